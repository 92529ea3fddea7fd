/* test_suite_load.c - the suite parser: a well-formed suite with every key,
 * the defaults, and every error message with its exact file:line:col. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/util.h"
#include "suite/suite_int.h"
#include "support/testutil.h"

static mk_suite *load(const char *yaml, mk_diags *d)
{
    mk_diags_init(d);
    return mk_suite_load_mem("t.yaml", yaml, strlen(yaml), d);
}

/* Every diagnostic, formatted, one per line. */
static char *diagnostics(const char *yaml, int *loaded)
{
    mk_diags d;
    mk_suite *s = load(yaml, &d);
    mk_sb out = MK_SB_INIT;
    for (size_t i = 0; i < d.n; i++) {
        char line[1024];
        mk_diag_format(&d.v[i], line, sizeof line);
        mk_sb_printf(&out, "%s\n", line);
    }
    *loaded = s != NULL;
    mk_suite_free(s);
    mk_diags_free(&d);
    char *r = mk_sb_take(&out);
    return r ? r : strdup("");
}

/* --- every error, at its position ------------------------------------------- */

static const struct { const char *yaml, *errors; } bad[] = {
    {"",
     "t.yaml: error: the suite is empty (it needs a 'cases' list)\n"},
    {"- a\n",
     "t.yaml:1:1: error: a suite must be a map with 'cases', not a list\n"},
    {"suite: x\n",
     "t.yaml:1:1: error: the suite has no 'cases' list\n"},
    {"suite: x\n"
        "cases: {a: 1}\n",
     "t.yaml:2:8: error: cases must be a list of cases, not a map\n"},
    {"cases: []\n",
     "t.yaml:1:8: error: cases is an empty list\n"},
    {"suite: [x]\n"
        "cases: []\n",
     "t.yaml:1:8: error: suite: expected a string, got a list\n"
        "t.yaml:2:8: error: cases is an empty list\n"},
    {"suite: ''\n"
        "cases: []\n",
     "t.yaml:1:8: error: suite name is empty\n"
        "t.yaml:2:8: error: cases is an empty list\n"},
    {"timeout: 5\n"
        "cases: []\n",
     "t.yaml:1:10: error: timeout needs a unit: 5s or 5ms\n"
        "t.yaml:2:8: error: cases is an empty list\n"},
    {"timeout: soon\n"
        "cases: []\n",
     "t.yaml:1:10: error: timeout must be a duration such as 500ms, 30s, 5m or 1h (at most 24h), not 'soon'\n"
        "t.yaml:2:8: error: cases is an empty list\n"},
    {"timout: 2m\n"
        "cases: []\n",
     "t.yaml:1:1: error: unknown key 'timout' in the suite; did you mean 'timeout'?\n"
        "t.yaml:2:8: error: cases is an empty list\n"},
    {"cases:\n"
        "  - [x]\n",
     "t.yaml:2:5: error: each case must be a map with a name, not a list\n"},
    {"cases:\n"
        "  - nmae: a\n"
        "    wait: 1s\n",
     "t.yaml:2:5: error: unknown key 'nmae' in case; did you mean 'name'?\n"
        "t.yaml:2:5: error: case has no name\n"},
    {"cases:\n"
        "  - name: ''\n"
        "    wait: 1s\n",
     "t.yaml:2:11: error: case name is empty\n"},
    {"cases:\n"
        "  - name: {x: 1}\n"
        "    wait: 1s\n",
     "t.yaml:2:11: error: case name: expected a string, got a map\n"},
    {"cases:\n"
        "  - name: a\n"
        "    wait: 1s\n"
        "  - name: a\n"
        "    wait: 1s\n",
     "t.yaml:4:11: error: duplicate case name 'a' (first at 2:11)\n"},
    {"cases:\n"
        "  - name: a\n",
     "t.yaml:2:5: error: case 'a' does nothing: give it an expect, or an action (inject, set, restart-plugin, wait, exec)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    skip: ''\n",
     "t.yaml:3:11: error: skip must be a reason (or true), not empty\n"},
    {"cases:\n"
        "  - name: a\n"
        "    skip: [x]\n",
     "t.yaml:3:11: error: skip must be a reason (or true), not a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    within: 1s\n"
        "    wait: 1s\n",
     "t.yaml:3:13: error: within needs an expect to wait for\n"},
    {"cases:\n"
        "  - name: a\n"
        "    within: 1\n"
        "    expect: {capacity: 1}\n",
     "t.yaml:3:13: error: within needs a unit: 1s or 1ms\n"},
    {"cases:\n"
        "  - name: a\n"
        "    wait: 25h\n",
     "t.yaml:3:11: error: wait must be a duration such as 500ms, 30s, 5m or 1h (at most 24h), not '25h'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    wait: {}\n",
     "t.yaml:3:11: error: wait must be a duration such as 500ms, 30s, 5m or 1h, not a map\n"},
    {"cases:\n"
        "  - name: a\n"
        "    restart-plugin: \"\"\n",
     "t.yaml:3:21: error: restart-plugin is true (every plugin) or the name of a plugin, not empty\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expecct: {capacity: 1}\n",
     "t.yaml:3:5: error: unknown key 'expecct' in case; did you mean 'expect'?\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expct: {capacity: 1}\n",
     "t.yaml:3:5: error: unknown key 'expct' in case; did you mean 'expect'?\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: 3\n",
     "t.yaml:3:13: error: inject must be a map such as {gpu: 3, xid: 79} (or a list of them), not a value\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: []\n",
     "t.yaml:3:13: error: inject is an empty list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: [3]\n",
     "t.yaml:3:14: error: each inject must be a map such as {gpu: 3, xid: 79}, not a value\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {xid: 79}\n",
     "t.yaml:3:13: error: inject needs 'gpu' (the GPU's index in the config)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 3}\n",
     "t.yaml:3:13: error: inject needs a fault: xid, ecc, lost or healthy\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 3, xid: 79, lost: true}\n",
     "t.yaml:3:31: error: inject takes one fault, not both 'xid' and 'lost' (use a list of injects)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 1024, xid: 79}\n",
     "t.yaml:3:19: error: inject gpu: 1024 is out of range (0 to 1023)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: x, xid: 79}\n",
     "t.yaml:3:19: error: inject gpu: expected an integer, got 'x'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 1, xid: 0}\n",
     "t.yaml:3:27: error: inject xid: 0 is out of range (1 to 65535)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 1, ecc: dubble}\n",
     "t.yaml:3:27: error: inject ecc must be double or single, not 'dubble' (did you mean 'double'?)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 1, ecc: [double]}\n",
     "t.yaml:3:27: error: inject ecc must be double or single, not a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 1, lost: false}\n",
     "t.yaml:3:28: error: inject lost: false does nothing; leave it out\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 1, lost: sure}\n",
     "t.yaml:3:28: error: inject lost: expected true or false, got 'sure'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 1, healthy: false}\n",
     "t.yaml:3:31: error: inject healthy: false does nothing; to make a GPU unhealthy inject xid, ecc or lost\n"},
    {"cases:\n"
        "  - name: a\n"
        "    inject: {gpu: 1, xdi: 79}\n",
     "t.yaml:3:22: error: unknown key 'xdi' in inject; did you mean 'xid'?\n"},
    {"cases:\n"
        "  - name: a\n"
        "    set: {temperature: 90}\n",
     "t.yaml:3:10: error: set needs 'gpu' (the GPU's index in the config)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    set: {gpu: 1}\n",
     "t.yaml:3:10: error: set needs a metric besides gpu, for example temperature: 90\n"},
    {"cases:\n"
        "  - name: a\n"
        "    set: {gpu: 1, power: ''}\n",
     "t.yaml:3:26: error: set power needs a value such as 90, 300W or 30GiB, not an empty one\n"},
    {"cases:\n"
        "  - name: a\n"
        "    set: {gpu: 1, power: [1]}\n",
     "t.yaml:3:26: error: set power needs a value such as 90, 300W or 30GiB, not a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    set: []\n",
     "t.yaml:3:10: error: set is an empty list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: 3\n",
     "t.yaml:3:13: error: expect must be a map of expectations (or a list of such maps), not a value\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: []\n",
     "t.yaml:3:13: error: expect is an empty list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: [3]\n",
     "t.yaml:3:14: error: expect must be a map of expectations (or a list of such maps), not a value\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {}\n",
     "t.yaml:3:13: error: expect names no expectation (such as capacity, allocatable, unhealthy or allocate)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {resource: nvidia.com/gpu}\n",
     "t.yaml:3:13: error: expect names no expectation (such as capacity, allocatable, unhealthy or allocate)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {resource: '', capacity: 1}\n",
     "t.yaml:3:24: error: resource is empty (for example nvidia.com/gpu)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {resource: [x], capacity: 1}\n",
     "t.yaml:3:24: error: resource: expected a string, got a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capcity: 1}\n",
     "t.yaml:3:14: error: unknown key 'capcity' in expect; did you mean 'capacity'?\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {frobnicate: 1}\n",
     "t.yaml:3:14: error: unknown key 'frobnicate' in expect\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: {a: 1}}\n",
     "t.yaml:3:24: error: capacity must be a count or a comparison, not a map\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: !=0}\n",
     "t.yaml:3:27: error: YAML syntax error: did not find expected whitespace or line break while scanning a tag\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: '=8'}\n",
     "t.yaml:3:24: error: capacity must be a count or a comparison such as 8, \">=1\", \"<8\", \"!=0\" or \"${gpus}-1\", not '=8'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: '>= x'}\n",
     "t.yaml:3:24: error: capacity must be a count or a comparison such as 8, \">=1\", \"<8\", \"!=0\" or \"${gpus}-1\", not '>= x'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: '${gpus'}\n",
     "t.yaml:3:24: error: capacity must be a count or a comparison such as 8, \">=1\", \"<8\", \"!=0\" or \"${gpus}-1\", not '${gpus'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: '${gpus}*2'}\n",
     "t.yaml:3:24: error: capacity must be a count or a comparison such as 8, \">=1\", \"<8\", \"!=0\" or \"${gpus}-1\", not '${gpus}*2'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: '-1'}\n",
     "t.yaml:3:24: error: capacity must be a count or a comparison such as 8, \">=1\", \"<8\", \"!=0\" or \"${gpus}-1\", not '-1'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: 8 pods}\n",
     "t.yaml:3:24: error: capacity must be a count or a comparison such as 8, \">=1\", \"<8\", \"!=0\" or \"${gpus}-1\", not '8 pods'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {unhealthy: []}\n",
     "t.yaml:3:25: error: unhealthy is an empty list (to check that no device is unhealthy, write unhealthy-count: 0)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {healthy: GPU-1}\n",
     "t.yaml:3:23: error: healthy must be a list, not a value\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {healthy: [a, a]}\n",
     "t.yaml:3:27: error: healthy: 'a' is listed twice\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {healthy: ['', [x]]}\n",
     "t.yaml:3:24: error: healthy: each item must be a non-empty string, not an empty one\n"
        "t.yaml:3:28: error: healthy: each item must be a non-empty string, not a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {healthy: ['${uuid.1']}\n",
     "t.yaml:3:24: error: healthy: '${uuid.1' has a bad variable reference; write ${name} (letters, digits, '.', '_', '-')\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {topology: []}\n",
     "t.yaml:3:24: error: topology must be a map of device id: NUMA node (or null), not a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {topology: {}}\n",
     "t.yaml:3:24: error: topology must be a map of device id: NUMA node (or null), not an empty map\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {topology: {a: 2000, b: x}}\n",
     "t.yaml:3:28: error: topology 'a': 2000 is out of range (0 to 1023)\n"
        "t.yaml:3:37: error: topology 'b': expected an integer, got 'x'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: 1}\n",
     "t.yaml:3:24: error: allocate must be a map, not a value\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {cnt: 1}}\n",
     "t.yaml:3:25: error: unknown key 'cnt' in allocate; did you mean 'count'?\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {count: 0}}\n",
     "t.yaml:3:32: error: allocate count: 0 is out of range (1 to 1024)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {count: 2, ids: [a]}}\n",
     "t.yaml:3:32: error: allocate count is 2 but ids lists 1 device\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {ids: []}}\n",
     "t.yaml:3:30: error: allocate ids is an empty list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {env: []}}\n",
     "t.yaml:3:30: error: allocate env must be a map of name: value, not a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {env: {}}}\n",
     "t.yaml:3:30: error: allocate env is empty\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {env: {A: {}}}}\n",
     "t.yaml:3:34: error: allocate env 'A' must be a string or /regex/ or null, not a map\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {preferred: {must: [a]}}\n",
     "t.yaml:3:25: error: preferred needs 'size' (how many devices to ask for)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {preferred: {size: 0}}\n",
     "t.yaml:3:32: error: preferred size: 0 is out of range (1 to 1024)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {preferred: {must: [a, b], size: 1}}\n",
     "t.yaml:3:46: error: preferred size 1 is smaller than must (2 devices)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {preferred: {available: [a], size: 2}}\n",
     "t.yaml:3:48: error: preferred size 2 is larger than available (1 device)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {preferred: {expect: [a], size: 2}}\n",
     "t.yaml:3:34: error: preferred expect lists 1 device but size is 2\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {preferred: {available: [], size: 1}}\n",
     "t.yaml:3:37: error: preferred available is an empty list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {condition: []}\n",
     "t.yaml:3:25: error: condition is an empty list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {condition: [3]}\n",
     "t.yaml:3:26: error: condition must be a map, not a value\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {condition: {status: 'True'}}\n",
     "t.yaml:3:25: error: condition needs 'type' (for example Ready)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {condition: {type: ''}}\n",
     "t.yaml:3:32: error: condition type is empty\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {condition: {type: Ready, status: null}}\n",
     "t.yaml:3:47: error: condition status must be a string or /regex/, not null\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {condition: {type: Ready, staus: 'True'}}\n",
     "t.yaml:3:39: error: unknown key 'staus' in condition; did you mean 'status'?\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {label: []}\n",
     "t.yaml:3:21: error: label must be a map of name: value, not a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {label: {}}\n",
     "t.yaml:3:21: error: label is empty\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {label: {a: [1]}}\n",
     "t.yaml:3:25: error: label 'a' must be a string or /regex/ or null, not a list\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {annotation: {a: /(/}}\n",
     "t.yaml:3:30: error: annotation 'a': invalid regular expression /(/: Unmatched ( or \\(\n"},
    /* Patterns whose compilation would cost without bound (the first grew
     * past 4 GB in glibc's regcomp) are refused before it. */
    {"cases:\n"
        "  - name: a\n"
        "    expect: {label: {k: \"/(a{1,32767}){1,32767}/\"}}\n",
     "t.yaml:3:25: error: label 'k': invalid regular expression /(a{1,32767}){1,32767}/: the "
     "repetition {1,32767} is over the limit of 1000\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {label: {k: \"/([[:alpha:]]{1,500}){1,500}/\"}}\n",
     "t.yaml:3:25: error: label 'k': invalid regular expression /([[:alpha:]]{1,500}){1,500}/: "
     "its repetitions expand it past the limit of 10000 elements (nested repetitions multiply)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {label: {k: '/(a)\\1/'}}\n",
     "t.yaml:3:25: error: label 'k': invalid regular expression /(a)\\1/: back-references (\\1) "
     "are not supported: matching with them can take exponential time\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {taint: {effect: NoSchedule}}\n",
     "t.yaml:3:21: error: taint needs 'key'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {taint: {key: ''}}\n",
     "t.yaml:3:27: error: taint key is empty\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {taint: {key: a, effect: NoSchedul}}\n",
     "t.yaml:3:38: error: taint effect must be NoSchedule, PreferNoSchedule or NoExecute, not 'NoSchedul' (did you mean 'NoSchedule'?)\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {taint: {key: a, effect: Never}}\n",
     "t.yaml:3:38: error: taint effect must be NoSchedule, PreferNoSchedule or NoExecute, not 'Never'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {taint: {key: a, absent: maybe}}\n",
     "t.yaml:3:38: error: taint absent: expected true or false, got 'maybe'\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {taint: {key: a, value: b, absent: true}}\n",
     "t.yaml:3:37: error: taint value cannot be checked on an absent taint\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: >=1}\n",
     "t.yaml:3:24: error: YAML syntax error: found character that cannot start any token while scanning for the next token\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {capacity: 1, capacity: 2}\n",
     "t.yaml:3:27: error: duplicate key 'capacity' (first at line 3)\n"},
    {"cases:\n"
        "  - &a [*a]\n",
     "t.yaml:2:9: error: alias *a is inside the node it names, which makes the document endless\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {? [a] : 1}\n",
     "t.yaml:3:16: error: map keys must be plain values\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect:\n"
        "      capacity: !=0\n",
     "t.yaml:4:17: error: capacity is empty (write comparisons in quotes: \"!=0\", \">=1\")\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {env: {A: '/[/'}}}\n",
     "t.yaml:3:34: error: allocate env 'A': invalid regular expression /[/: Invalid regular expression\n"},
    {"cases:\n"
        "  - name: a\n"
        "    expect: {allocate: {mounts: {/a: '${x'}}}\n",
     "t.yaml:3:38: error: allocate mounts '/a': '${x' has a bad variable reference; write ${name} (letters, digits, '.', '_', '-')\n"},
};

START_TEST(test_error)
{
    int loaded;
    char *got = diagnostics(bad[_i].yaml, &loaded);
    ck_assert_msg(!loaded, "suite %d loaded", _i);
    ck_assert_str_eq(got, bad[_i].errors);
    free(got);
}
END_TEST

START_TEST(test_all_errors_collected)
{
    /* lint shows every problem at once, in file order */
    int loaded;
    char *got = diagnostics("timout: 1s\n"
                            "cases:\n"
                            "  - name: a\n"
                            "    skip: ''\n"
                            "    inject: {gpu: x, xid: 79}\n"
                            "  - name: a\n"
                            "    expect: {capcity: 1}\n", &loaded);
    ck_assert(!loaded);
    ck_assert_str_eq(got,
        "t.yaml:1:1: error: unknown key 'timout' in the suite; did you mean 'timeout'?\n"
        "t.yaml:4:11: error: skip must be a reason (or true), not empty\n"
        "t.yaml:5:19: error: inject gpu: expected an integer, got 'x'\n"
        "t.yaml:6:11: error: duplicate case name 'a' (first at 3:11)\n"
        "t.yaml:7:14: error: unknown key 'capcity' in expect; did you mean 'capacity'?\n");
    free(got);
}
END_TEST

/* A pattern over 1024 bytes is refused whatever it holds. */
START_TEST(test_long_regex)
{
    char yaml[4096], pat[2001];
    memset(pat, 'a', sizeof pat - 1);
    pat[sizeof pat - 1] = 0;
    snprintf(yaml, sizeof yaml, "cases:\n  - name: a\n    expect: {label: {k: /%s/}}\n", pat);
    int loaded;
    char *errors = diagnostics(yaml, &loaded);
    ck_assert(!loaded);
    ck_assert_ptr_nonnull(strstr(errors, "t.yaml:3:25: error: label 'k': invalid regular "
                                 "expression /aaaa"));
    ck_assert_ptr_nonnull(strstr(errors, "...: the pattern is 2000 bytes, over the limit of 1024\n"));
    free(errors);
}
END_TEST

/* Suites go through the config loader and its limits: a case nested 40,000
 * deep stops at the 257th level, a suite of 60,000 unknown keys shows the
 * first 100 in file order and a last line with the rest counted. */
START_TEST(test_hostile_suites)
{
    size_t depth = 40000, used;
    char *text = malloc(depth * 5 + 64);
    ck_assert_ptr_nonnull(text);
    used = (size_t)sprintf(text, "cases:\n  - name: a\n    expect: ");
    for (size_t i = 0; i < depth; i++, used += 4)
        memcpy(text + used, "{a: ", 4);
    memset(text + used, '}', depth);
    text[used + depth] = '\0';
    int loaded;
    char *got = diagnostics(text, &loaded);
    ck_assert(!loaded);
    /* cases, its list, the case and expect: the 254th map written is the 257th level. */
    ck_assert_str_eq(got, "t.yaml:3:1025: error: nested deeper than 256 levels (the limit)\n");
    free(got);
    free(text);

    text = malloc(60000 * 12 + 64);
    ck_assert_ptr_nonnull(text);
    used = 0;
    for (int i = 0; i < 60000; i++)
        used += (size_t)sprintf(text + used, "k%05d: 1\n", 59999 - i);
    sprintf(text + used, "cases: [{name: a, expect: {capacity: 1}}]\n");
    got = diagnostics(text, &loaded);
    ck_assert(!loaded);
    ck_assert_ptr_nonnull(strstr(got, "t.yaml:1:1: error: unknown key 'k59999' in the suite\n"));
    const char *last = "t.yaml: error: 59900 more errors in this file are not shown (only the "
                       "first 100 problems are)\n";
    ck_assert_str_eq(got + strlen(got) - strlen(last), last);
    free(got);
    free(text);
}
END_TEST

START_TEST(test_unreadable_file)
{
    mk_diags d;
    mk_diags_init(&d);
    ck_assert_ptr_null(mk_suite_load("/nonexistent/suite.yaml", &d));
    char line[512];
    mk_diag_format(mk_diags_first_error(&d), line, sizeof line);
    ck_assert_str_eq(line, "/nonexistent/suite.yaml: error: cannot open: No such file or directory");
    mk_diags_free(&d);
}
END_TEST

/* --- what a good suite loads to ---------------------------------------------- */

static const char full[] =
    "suite: gpu-node-smoke\n"
    "timeout: 2m\n"
    "cases:\n"
    "  - name: registered\n"
    "    expect:\n"
    "      resource: nvidia.com/gpu\n"
    "      capacity: 8\n"
    "      allocatable: \">= 1\"\n"
    "      devices: \"!=0\"\n"
    "      healthy-count: ${gpus}\n"
    "      unhealthy-count: \"<1\"\n"
    "      healthy: [GPU-0, \"${uuid.1}\"]\n"
    "      topology: {GPU-0: 0, \"${uuid.1}\": null}\n"
    "  - name: xid\n"
    "    inject: [{gpu: 3, xid: 79}, {gpu: 2, ecc: double}, {gpu: 1, ecc: single},\n"
    "             {gpu: 0, lost: true}, {gpu: 4, healthy: true}]\n"
    "    set: {gpu: 1, temperature: 90, power: 300W, utilization.gpu: 80, memoryUsed: 30GiB}\n"
    "    restart-plugin: true\n"
    "    wait: 1m30s\n"
    "    expect:\n"
    "      - allocatable: ${gpus}-1\n"
    "        unhealthy: [\"${uuid.3}\"]\n"
    "      - resource: nvidia.com/mig-1g.5gb\n"
    "        allocate: {count: 1, env: {NVIDIA_VISIBLE_DEVICES: \"${allocated}\", X: null},\n"
    "                   mounts: {/a: /^\\/b/}, devices: {/dev/nvidia0: /dev/nvidia0}}\n"
    "        preferred: {available: [a, b, c], must: [a], size: 2, expect: [a, b]}\n"
    "    within: 30s\n"
    "  - name: cluster\n"
    "    skip: waiting for the API-server client\n"
    "    expect:\n"
    "      condition: [{type: Ready}, {type: MemoryPressure, status: \"False\", reason: /Kubelet/}]\n"
    "      label: {nvidia.com/gpu.present: \"true\", gone: null}\n"
    "      annotation: {a: /x/}\n"
    "      taint: [{key: nvidia.com/gpu, effect: NoSchedule, absent: true}, {key: b, value: c}]\n"
    "  - name: actions only\n"
    "    wait: 0\n"
    "    skip: false\n";

START_TEST(test_full_suite)
{
    mk_diags d;
    mk_suite *s = load(full, &d);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(mk_suite_name(s), "gpu-node-smoke");
    ck_assert_uint_eq(mk_suite_ncases(s), 4);

    const mk_case *c = &s->cases[0];
    ck_assert_str_eq(c->name, "registered");
    ck_assert_int_eq(c->line, 4);
    ck_assert_int_eq(c->within_ms, 120000);          /* the suite's timeout */
    ck_assert_uint_eq(c->nx, 7);
    ck_assert_str_eq(c->x[0].kind->key, "capacity");
    ck_assert_int_eq(c->x[0].line, 7);
    ck_assert_int_eq(c->x[0].col, 7);
    ck_assert_str_eq(c->x[6].kind->key, "topology");

    c = &s->cases[1];
    ck_assert_uint_eq(c->ninj, 5);
    ck_assert_int_eq(c->inj[0].kind, MK_INJECT_XID);
    ck_assert_uint_eq(c->inj[0].gpu, 3);
    ck_assert_uint_eq(c->inj[0].xid, 79);
    ck_assert_int_eq(c->inj[1].kind, MK_INJECT_ECC_DOUBLE);
    ck_assert_int_eq(c->inj[2].kind, MK_INJECT_ECC_SINGLE);
    ck_assert_int_eq(c->inj[3].kind, MK_INJECT_LOST);
    ck_assert_int_eq(c->inj[4].kind, MK_INJECT_HEALTHY);
    ck_assert_uint_eq(c->nset, 4);
    ck_assert_str_eq(c->set[2].metric, "utilization.gpu");
    ck_assert_str_eq(c->set[3].value, "30GiB");
    ck_assert_int_eq(c->restart, 1);
    ck_assert_int_eq(c->wait_ms, 90000);
    ck_assert_int_eq(c->within_ms, 30000);
    ck_assert_uint_eq(c->nx, 4);
    ck_assert_str_eq(c->x[0].resource, "nvidia.com/gpu");
    ck_assert_str_eq(c->x[2].resource, "nvidia.com/mig-1g.5gb");
    ck_assert_str_eq(c->x[3].kind->key, "preferred");

    c = &s->cases[2];
    ck_assert_str_eq(c->skip, "waiting for the API-server client");
    ck_assert_uint_eq(c->nx, 6);                      /* lists give one expectation per item */
    ck_assert_str_eq(c->x[1].kind->key, "condition");
    ck_assert_str_eq(c->x[5].kind->key, "taint");

    c = &s->cases[3];
    ck_assert_ptr_null(c->skip);
    ck_assert_uint_eq(c->nx, 0);
    mk_suite_free(s);
    mk_diags_free(&d);
}
END_TEST

START_TEST(test_defaults)
{
    mk_diags d;
    mk_diags_init(&d);
    const char *yaml = "cases:\n  - name: a\n    expect: {capacity: 1}\n    skip: true\n";
    mk_suite *s = mk_suite_load_mem("fixtures/suites/smoke.v2.yaml", yaml, strlen(yaml), &d);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(mk_suite_name(s), "smoke.v2");   /* the file name without extension */
    ck_assert_int_eq(s->cases[0].within_ms, 0);       /* no timeout: checked once */
    ck_assert_str_eq(s->cases[0].x[0].resource, "nvidia.com/gpu");
    ck_assert_str_eq(s->cases[0].skip, "skipped in the suite");
    mk_suite_free(s);
    mk_diags_free(&d);
}
END_TEST

START_TEST(test_load_file)
{
    const char *path = mk_test_path(mk_test_tmpdir("suite"), "smoke.yaml");
    mk_test_write(path, "cases:\n  - name: a\n    wait: 10ms\n");
    mk_diags d;
    mk_diags_init(&d);
    mk_suite *s = mk_suite_load(path, &d);
    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(s->file, path);
    ck_assert_int_eq(s->cases[0].wait_ms, 10);
    mk_suite_free(s);
    mk_diags_free(&d);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("suite_load");
    TCase *tc = tcase_create("errors");
    tcase_add_loop_test(tc, test_error, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_test(tc, test_all_errors_collected);
    tcase_add_test(tc, test_hostile_suites);
    tcase_add_test(tc, test_unreadable_file);
    tcase_add_test(tc, test_long_regex);
    suite_add_tcase(s, tc);
    tc = tcase_create("good");
    tcase_add_test(tc, test_full_suite);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_load_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
