/* test_suite_run.c - the suite runner against a fake node source: every
 * comparison form, `within:` passing after a change and timing out with the
 * last value seen, actions reaching the environment and their failures
 * becoming errors, capabilities, several nodes, the plugin expectations,
 * the cluster-only expectations, variables, skip and cancel. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "fake_nodesrc.h"
#include "report/report.h"
#include "suite/suite.h"
#include "support/testutil.h"

static fake f;
static mk_report rep;
static const mk_suite_var vars[] = {
    {"gpus", "8"}, {"uuid.0", "GPU-0"}, {"uuid.3", "GPU-3"}, {"word", "eight"},
};

static void setup(void)
{
    fake_init(&f);
    f.env.vars = vars;
    f.env.nvars = sizeof vars / sizeof vars[0];
    fake_add_node(&f, "node-a", "nvidia.com/gpu", 8);
    mk_report_init(&rep);
}

static void teardown(void)
{
    mk_report_free(&rep);
    fake_free(&f);
}

/* Loads and runs a suite; returns mk_suite_run's exit code. */
static int run(const char *yaml)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_suite *s = mk_suite_load_mem("t.yaml", yaml, strlen(yaml), &d);
    if (!s) {
        char line[512];
        mk_diag_format(mk_diags_first_error(&d), line, sizeof line);
        ck_abort_msg("suite does not load: %s", line);
    }
    int rc = mk_suite_run(s, &f.env, &rep);
    mk_suite_free(s);
    mk_diags_free(&d);
    return rc;
}

static const mk_rcase *result(size_t i)
{
    ck_assert_uint_eq(rep.n, 1);
    ck_assert_uint_gt(rep.suites[0]->n, i);
    return rep.suites[0]->cases[i];
}

/* --- comparisons --------------------------------------------------------------- */

static const struct { const char *expect; mk_status st; const char *message; } cmps[] = {
    {"capacity: 8", MK_ST_PASS, NULL},
    {"capacity: 0", MK_ST_FAIL, "nvidia.com/gpu capacity is 8, expected 0"},
    {"capacity: \"==8\"", MK_ST_PASS, NULL},
    {"capacity: \">=1\"", MK_ST_PASS, NULL},
    {"capacity: \">= 9\"", MK_ST_FAIL, "nvidia.com/gpu capacity is 8, expected >= 9"},
    {"capacity: \">8\"", MK_ST_FAIL, "nvidia.com/gpu capacity is 8, expected > 8"},
    {"capacity: \"<8\"", MK_ST_FAIL, "nvidia.com/gpu capacity is 8, expected < 8"},
    {"capacity: \"<=8\"", MK_ST_PASS, NULL},
    {"capacity: \"!=0\"", MK_ST_PASS, NULL},
    {"capacity: \"!=8\"", MK_ST_FAIL, "nvidia.com/gpu capacity is 8, expected != 8"},
    {"capacity: \"${gpus}\"", MK_ST_PASS, NULL},
    {"allocatable: \"${gpus}-1\"", MK_ST_FAIL, "nvidia.com/gpu allocatable is 8, expected 7"},
    {"allocatable: \"> ${gpus} - 1\"", MK_ST_PASS, NULL},
    {"allocatable: \"${gpus}+1\"", MK_ST_FAIL, "nvidia.com/gpu allocatable is 8, expected 9"},
    {"devices: 8", MK_ST_PASS, NULL},
    {"healthy-count: 8", MK_ST_PASS, NULL},
    {"unhealthy-count: 0", MK_ST_PASS, NULL},
    {"unhealthy-count: \">0\"", MK_ST_FAIL, "nvidia.com/gpu unhealthy-count is 0, expected > 0"},
    {"{resource: nvidia.com/mig-1g.5gb, capacity: 0}", MK_ST_PASS, NULL},
    {"{resource: nvidia.com/mig-1g.5gb, capacity: 1}", MK_ST_FAIL,
     "nvidia.com/mig-1g.5gb capacity is 0 (not advertised), expected 1"},
    {"capacity: \"${nope}\"", MK_ST_ERROR,
     "capacity: unknown variable ${nope} (known: gpus, uuid.0, uuid.3, word)"},
    {"capacity: \"${word}\"", MK_ST_ERROR, "capacity: variable ${word} is 'eight', not a number"},
};

START_TEST(test_comparison)
{
    char yaml[512];
    const char *e = cmps[_i].expect;
    snprintf(yaml, sizeof yaml, "cases:\n  - name: c\n    expect: %s%s%s\n",
             e[0] == '{' ? "" : "{", e, e[0] == '{' ? "" : "}");
    run(yaml);
    const mk_rcase *c = result(0);
    ck_assert_msg(c->status == cmps[_i].st, "%s: status %s", e, mk_status_name(c->status));
    if (cmps[_i].message)
        ck_assert_str_eq(c->message, cmps[_i].message);
    else
        ck_assert_ptr_null(c->message);
}
END_TEST

/* A long unknown name in an environment without variables: the message once
 * overran its buffer and the stack frame (mokka assert died with SIGSEGV). */
START_TEST(test_unknown_long_variable_without_variables)
{
    char name[2001], yaml[2200];
    memset(name, 'A', sizeof name - 1);
    name[sizeof name - 1] = 0;
    f.env.nvars = 0;
    snprintf(yaml, sizeof yaml, "cases:\n  - name: c\n    expect: {capacity: \"${%s}\"}\n", name);
    ck_assert_int_eq(run(yaml), MK_EXIT_ENV);
    const mk_rcase *c = result(0);
    ck_assert_int_eq(c->status, MK_ST_ERROR);
    ck_assert_str_eq(c->message, "capacity: unknown variable ${AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
                     "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA...} (this environment defines none)");
}
END_TEST

START_TEST(test_failure_detail)
{
    f.view.node[0].res[0].dev[2].healthy = 0;
    f.view.node[0].res[0].allocatable = 7;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: c\n"
                         "    expect:\n"
                         "      allocatable: 8\n"
                         "      devices: 7\n"), MK_EXIT_FAIL);
    const mk_rcase *c = result(0);
    ck_assert_str_eq(c->type, "assertion");
    ck_assert_str_eq(c->message, "nvidia.com/gpu allocatable is 7, expected 8 (and 1 more)");
    ck_assert_str_eq(c->detail,
        "allocatable (t.yaml:4:7): nvidia.com/gpu allocatable is 7, expected 8\n"
        "  expected: allocatable 8\n"
        "  actual:   allocatable 7\n"
        "  nvidia.com/gpu on node node-a: capacity 8, allocatable 7, 8 devices listed, unhealthy: GPU-2\n"
        "\n"
        "devices (t.yaml:5:7): nvidia.com/gpu devices is 8, expected 7\n"
        "  expected: devices 7\n"
        "  actual:   devices 8\n"
        "  nvidia.com/gpu on node node-a: capacity 8, allocatable 7, 8 devices listed, unhealthy: GPU-2");
    ck_assert_str_eq(c->file, "t.yaml");
    ck_assert_int_eq(c->line, 2);
    ck_assert_str_eq(c->node, "node-a");
    ck_assert_ptr_nonnull(c->output);                  /* the plugin's log tail */
    ck_assert_ptr_nonnull(rep.suites[0]->output);
}
END_TEST

/* --- which devices --------------------------------------------------------------- */

START_TEST(test_health_lists)
{
    fake_set_health(&f, 0, 3, 0);
    ck_assert_int_eq(run("cases:\n"
                         "  - name: ok\n"
                         "    expect: {unhealthy: [\"${uuid.3}\"], healthy: [GPU-0, GPU-7]}\n"
                         "  - name: wrong\n"
                         "    expect: {unhealthy: [GPU-0, GPU-3, GPU-9]}\n"
                         "  - name: wrong healthy\n"
                         "    expect: {healthy: [GPU-3]}\n"), MK_EXIT_FAIL);
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    const mk_rcase *c = result(1);
    ck_assert_str_eq(c->message, "nvidia.com/gpu GPU-0 is Healthy, expected Unhealthy");
    ck_assert_ptr_nonnull(strstr(c->detail,
        "  expected: Unhealthy: GPU-0, GPU-3, GPU-9\n"
        "  actual:   GPU-0 Healthy, GPU-3 Unhealthy, GPU-9 not listed\n"));
    ck_assert_str_eq(result(2)->message, "nvidia.com/gpu GPU-3 is Unhealthy, expected Healthy");
}
END_TEST

START_TEST(test_topology)
{
    f.view.node[0].res[0].dev[7].numa = -1;
    run("cases:\n"
        "  - name: ok\n"
        "    expect: {topology: {GPU-0: 0, GPU-5: 1, GPU-7: null}}\n"
        "  - name: wrong\n"
        "    expect: {topology: {GPU-0: 1, GPU-7: 0, GPU-9: 0}}\n");
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    const mk_rcase *c = result(1);
    ck_assert_str_eq(c->message, "nvidia.com/gpu GPU-0 has NUMA node 0, expected NUMA node 1");
    ck_assert_ptr_nonnull(strstr(c->detail, "GPU-7: expected NUMA node 0, actual no NUMA node"));
    ck_assert_ptr_nonnull(strstr(c->detail, "GPU-9: expected NUMA node 0, not listed"));
}
END_TEST

/* --- within ------------------------------------------------------------------------ */

static void xid_on_3(fake *fk)
{
    fake_set_health(fk, 0, 3, 0);
}

static void schedule_xid(fake *fk, const mk_inject *inj)
{
    ck_assert_int_eq(inj->kind, MK_INJECT_XID);
    fk->change = xid_on_3;
    fk->change_after_ms = 150;
}

START_TEST(test_within_passes_after_change)
{
    f.on_inject = schedule_xid;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: xid 79 takes gpu 3 out\n"
                         "    inject: {gpu: 3, xid: 79}\n"
                         "    expect:\n"
                         "      allocatable: ${gpus}-1\n"
                         "      unhealthy: [\"${uuid.3}\"]\n"
                         "      unhealthy-count: 1\n"
                         "    within: 10s\n"), MK_EXIT_OK);
    const mk_rcase *c = result(0);
    ck_assert_int_eq(c->status, MK_ST_PASS);
    ck_assert_int_ge(c->time_ms, 150);
    ck_assert_int_lt(c->time_ms, 5000);
    ck_assert_int_eq(f.injects, 1);
    ck_assert_uint_eq(f.last_inject.gpu, 3);
    ck_assert_uint_eq(f.last_inject.xid, 79);
    /* one snapshot before the change and one after: waiting, not polling */
    ck_assert_int_le(f.snapshots, 3);
    ck_assert_ptr_null(c->output);                     /* no log tail for passes */
}
END_TEST

static void two_down(fake *fk)
{
    fake_set_health(fk, 0, 3, 0);
    fake_set_health(fk, 0, 4, 0);
}

START_TEST(test_within_timeout_reports_last_seen)
{
    f.change = two_down;
    f.change_after_ms = 50;
    long long t0 = fake_now();
    ck_assert_int_eq(run("cases:\n"
                         "  - name: exactly one down\n"
                         "    expect: {allocatable: 7}\n"
                         "    within: 400ms\n"), MK_EXIT_FAIL);
    long long took = fake_now() - t0;
    const mk_rcase *c = result(0);
    ck_assert_int_eq(c->status, MK_ST_FAIL);
    ck_assert_str_eq(c->type, "timeout");
    ck_assert_str_eq(c->message, "after 400ms: nvidia.com/gpu allocatable is 6, expected 7");
    ck_assert_msg(strncmp(c->detail, "waited 400ms; checked 2 times, last after ", 42) == 0,
                  "%s", c->detail);
    ck_assert_ptr_nonnull(strstr(c->detail, "  actual:   allocatable 6\n"));
    ck_assert_int_ge(took, 400);
    ck_assert_int_lt(took, 2000);
    ck_assert_int_ge(c->time_ms, 400);
}
END_TEST

START_TEST(test_suite_timeout_is_default_within)
{
    f.change = xid_on_3;
    f.change_after_ms = 100;
    ck_assert_int_eq(run("timeout: 5s\n"
                         "cases:\n"
                         "  - name: waits by default\n"
                         "    expect: {unhealthy-count: 1}\n"
                         "  - name: within 0 does not\n"
                         "    expect: {unhealthy-count: 2}\n"
                         "    within: 0\n"), MK_EXIT_FAIL);
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    ck_assert_int_eq(result(1)->status, MK_ST_FAIL);
    ck_assert_str_eq(result(1)->type, "assertion");
    ck_assert_int_lt(result(1)->time_ms, 1000);
}
END_TEST

static int allocs_until_ok;

static int flaky_allocate(mk_nodesrc *s, const char *res, char **ids, size_t n,
                          mk_nv_alloc *out, char *err, size_t len)
{
    f.fail_alloc = --allocs_until_ok > 0;
    return fake_allocate(s, res, ids, n, out, err, len);
}

START_TEST(test_within_rechecks_plugin_calls)
{
    /* the view never changes; the second Allocate, a second later, works */
    allocs_until_ok = 2;
    f.src.allocate = flaky_allocate;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: allocate eventually\n"
                         "    expect: {allocate: {count: 1}}\n"
                         "    within: 5s\n"), MK_EXIT_OK);
    ck_assert_int_eq(f.allocs, 2);
    ck_assert_int_ge(result(0)->time_ms, 1000);
}
END_TEST

/* --- actions -------------------------------------------------------------------------- */

START_TEST(test_actions_reach_env)
{
    ck_assert_int_eq(run("cases:\n"
                         "  - name: act\n"
                         "    inject: [{gpu: 1, ecc: double}, {gpu: 2, lost: true}]\n"
                         "    set: {gpu: 5, temperature: 90, power: 300W}\n"
                         "    restart-plugin: true\n"
                         "    wait: 60ms\n"), MK_EXIT_OK);
    ck_assert_int_eq(f.injects, 2);
    ck_assert_int_eq(f.last_inject.kind, MK_INJECT_LOST);
    ck_assert_uint_eq(f.last_inject.gpu, 2);
    ck_assert_int_eq(f.sets, 2);
    ck_assert_str_eq(f.last_set, "5 power=300W");
    ck_assert_int_eq(f.restarts, 1);
    const mk_rcase *c = result(0);
    ck_assert_int_eq(c->status, MK_ST_PASS);
    ck_assert_int_ge(c->time_ms, 60);
    ck_assert_str_eq(c->node, "node-a");
}
END_TEST

static const struct { const char *yaml; const char *message; } action_errors[] = {
    {"inject: {gpu: 3, xid: 79}", "inject xid 79 on gpu 3 failed: no such GPU"},
    {"inject: {gpu: 1, ecc: single}", "inject single-bit ecc error on gpu 1 failed: no such GPU"},
    {"set: {gpu: 2, fan: 50}", "set fan: 50 on gpu 2 failed: unknown metric 'fan'"},
    {"restart-plugin: true", "restart-plugin failed: plugin did not come back"},
};

START_TEST(test_action_failure_is_error)
{
    f.fail_actions = 1;
    char yaml[256];
    snprintf(yaml, sizeof yaml, "cases:\n  - name: act\n    %s\n    expect: {capacity: 8}\n",
             action_errors[_i].yaml);
    ck_assert_int_eq(run(yaml), MK_EXIT_ENV);
    const mk_rcase *c = result(0);
    ck_assert_int_eq(c->status, MK_ST_ERROR);
    ck_assert_str_eq(c->type, "action");
    ck_assert_str_eq(c->message, action_errors[_i].message);
    ck_assert_int_eq(f.snapshots, 1);                  /* nodes listed; nothing checked */
}
END_TEST

static const struct { const char *yaml; const char *message; } action_unavailable[] = {
    {"inject: {gpu: 0, healthy: true}",
     "cannot inject healthy on gpu 0: this environment (fake kubelet) has no mock GPUs to inject into"},
    {"set: {gpu: 0, temperature: 1}",
     "cannot set temperature on gpu 0: this environment (fake kubelet) has no mock GPUs"},
    {"restart-plugin: true",
     "cannot restart the plugin: this environment (fake kubelet) does not run it"},
};

START_TEST(test_action_unavailable_is_error)
{
    f.env.inject = NULL;
    f.env.set = NULL;
    f.env.restart_plugin = NULL;
    char yaml[256];
    snprintf(yaml, sizeof yaml, "cases:\n  - name: act\n    %s\n", action_unavailable[_i].yaml);
    ck_assert_int_eq(run(yaml), MK_EXIT_ENV);
    ck_assert_int_eq(result(0)->status, MK_ST_ERROR);
    ck_assert_str_eq(result(0)->message, action_unavailable[_i].message);
}
END_TEST

/* --- nodes ------------------------------------------------------------------------------ */

START_TEST(test_one_result_per_node)
{
    fake_add_node(&f, "node-c", "nvidia.com/gpu", 4);
    fake_add_node(&f, "node-b", "nvidia.com/gpu", 8);
    ck_assert_int_eq(run("cases:\n"
                         "  - name: eight\n"
                         "    expect: {capacity: 8}\n"
                         "  - name: act\n"
                         "    wait: 1ms\n"), MK_EXIT_FAIL);
    ck_assert_uint_eq(rep.suites[0]->n, 6);
    static const char *const order[] = {"node-a", "node-b", "node-c"};   /* sorted */
    for (size_t i = 0; i < 3; i++) {
        ck_assert_str_eq(result(i)->node, order[i]);
        ck_assert_str_eq(result(i)->name, "eight");
        ck_assert_str_eq(result(i + 3)->node, order[i]);
        ck_assert_int_eq(result(i + 3)->status, MK_ST_PASS);
    }
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    ck_assert_int_eq(result(1)->status, MK_ST_PASS);
    ck_assert_int_eq(result(2)->status, MK_ST_FAIL);
    ck_assert_int_eq(mk_rsuite_several_nodes(rep.suites[0]), 1);
}
END_TEST

START_TEST(test_named_nodes)
{
    static const char *const nodes[] = {"node-a", "node-z", NULL};
    f.env.nodes = nodes;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: eight\n"
                         "    expect: {capacity: 8}\n"
                         "    within: 100ms\n"), MK_EXIT_ENV);
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    const mk_rcase *c = result(1);
    ck_assert_str_eq(c->node, "node-z");
    ck_assert_int_eq(c->status, MK_ST_ERROR);
    ck_assert_str_eq(c->message, "after 100ms: node node-z is not in the view (fake kubelet)");
}
END_TEST

START_TEST(test_no_nodes)
{
    fake_free(&f);
    f.view.n = 0;
    ck_assert_int_eq(run("cases:\n  - name: c\n    expect: {capacity: 8}\n"), MK_EXIT_ENV);
    ck_assert_str_eq(result(0)->message, "no nodes to check: the fake kubelet shows none");
    ck_assert_ptr_null(result(0)->node);
    mk_report_free(&rep);
    static const char *const none[] = {NULL};
    f.env.nodes = none;
    ck_assert_int_eq(run("cases:\n  - name: c\n    expect: {capacity: 8}\n"), MK_EXIT_ENV);
    ck_assert_str_eq(result(0)->message, "no nodes to check: the list of nodes is empty");
}
END_TEST

START_TEST(test_source_failures)
{
    f.fail_snapshot = 1;
    ck_assert_int_eq(run("cases:\n  - name: c\n    expect: {capacity: 8}\n"), MK_EXIT_ENV);
    ck_assert_str_eq(result(0)->type, "harness");
    ck_assert_str_eq(result(0)->message,
                     "cannot read the node view (fake kubelet): connection refused");
    mk_report_free(&rep);
    f.fail_snapshot = 0;
    f.fail_wait = 1;
    ck_assert_int_eq(run("cases:\n  - name: c\n    expect: {capacity: 7}\n    within: 1s\n"),
                     MK_EXIT_ENV);
    ck_assert_str_eq(result(0)->message, "waiting for the node view failed: watch closed");
}
END_TEST

/* --- capabilities -------------------------------------------------------------------- */

START_TEST(test_capabilities)
{
    f.env.caps = MK_ENV_NODE_OBJECTS;
    f.src.kind = "API server";
    run("cases:\n"
        "  - name: devices\n"
        "    expect: {capacity: 8, unhealthy: [GPU-1]}\n");
    ck_assert_int_eq(result(0)->status, MK_ST_ERROR);
    ck_assert_str_eq(result(0)->type, "unsupported");
    ck_assert_str_eq(result(0)->message, "unhealthy needs the device plugin's device list, which "
                     "the API server does not have (check it under mokka run)");
    mk_report_free(&rep);
    f.env.caps = MK_ENV_DEVICE_LIST;
    f.src.kind = "built-in kubelet";
    run("cases:\n  - name: labels\n    expect: {label: {a: b}}\n");
    ck_assert_str_eq(result(0)->message, "label needs the node's labels, which the built-in "
                     "kubelet does not have: pass --gfd to mokka run to have "
                     "gpu-feature-discovery label the node (or check it with mokka assert)");
}
END_TEST

/* mokka run --gfd: labels are checked beside the device list, while the
 * rest of the Node object (annotations, ...) still is not there. */
START_TEST(test_capability_labels)
{
    fake_kv(&f.view.node[0].labels, &f.view.node[0].nlabels, "nvidia.com/gpu.count", "8");
    f.env.caps = MK_ENV_DEVICE_LIST | MK_ENV_LABELS;
    f.src.kind = "built-in kubelet";
    run("cases:\n"
        "  - name: labels\n"
        "    expect: {label: {nvidia.com/gpu.count: \"8\"}, unhealthy-count: 0}\n"
        "  - name: annotations\n"
        "    expect: {annotation: {a: b}}\n");
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    ck_assert_int_eq(result(1)->status, MK_ST_ERROR);
    ck_assert_str_eq(result(1)->message, "annotation needs the Node object from the API server, "
                     "which the built-in kubelet does not have (check it with mokka assert)");
}
END_TEST

/* --- plugin calls ------------------------------------------------------------------------ */

START_TEST(test_allocate)
{
    fake_set_health(&f, 0, 0, 0);
    ck_assert_int_eq(run("cases:\n"
                         "  - name: first healthy\n"
                         "    expect:\n"
                         "      allocate: {count: 2, env: {NVIDIA_VISIBLE_DEVICES: \"${allocated}\",\n"
                         "                 NOT_SET: null}, mounts: {/usr/bin/nvidia-smi: /nvidia-smi$/},\n"
                         "                 devices: {/dev/nvidia0: /dev/nvidia0}}\n"
                         "  - name: named ids\n"
                         "    expect: {allocate: {ids: [\"${uuid.3}\"], env: {NVIDIA_VISIBLE_DEVICES: /^GPU-3$/}}}\n"),
                     MK_EXIT_OK);
    ck_assert_str_eq(f.last_alloc, "nvidia.com/gpu:GPU-3");
    ck_assert_int_eq(f.allocs, 2);
}
END_TEST

START_TEST(test_allocate_failures)
{
    for (size_t i = 1; i < 8; i++)
        fake_set_health(&f, 0, i, 0);
    run("cases:\n"
        "  - name: wrong env\n"
        "    expect: {allocate: {env: {NVIDIA_VISIBLE_DEVICES: GPU-7, EXTRA: x}}}\n"
        "  - name: too many\n"
        "    expect: {allocate: {count: 2}}\n"
        "  - name: mount absent\n"
        "    expect: {allocate: {mounts: {/usr/bin/nvidia-smi: null}}}\n");
    const mk_rcase *c = result(0);
    ck_assert_str_eq(c->message, "Allocate env NVIDIA_VISIBLE_DEVICES is 'GPU-0', expected 'GPU-7'");
    ck_assert_ptr_nonnull(strstr(c->detail, "  actual:   env EXTRA absent\n"));
    ck_assert_ptr_nonnull(strstr(c->detail, "  response env: NVIDIA_VISIBLE_DEVICES=GPU-0"));
    ck_assert_str_eq(result(1)->message,
                     "cannot allocate 2 nvidia.com/gpu: only 1 healthy device listed");
    ck_assert_str_eq(result(2)->message,
                     "Allocate mounts /usr/bin/nvidia-smi is '/usr/bin/nvidia-smi', expected absent");
    mk_report_free(&rep);

    f.fail_alloc = 1;
    run("cases:\n  - name: rpc\n    expect: {allocate: {count: 1}}\n");
    ck_assert_int_eq(result(0)->status, MK_ST_FAIL);
    ck_assert_str_eq(result(0)->message,
                     "Allocate GPU-0 of nvidia.com/gpu failed: rpc error: unknown device");
    mk_report_free(&rep);

    f.src.allocate = NULL;
    f.src.preferred = NULL;
    f.src.kind = "API server";
    run("cases:\n  - name: a\n    expect: {allocate: {count: 1}}\n"
        "  - name: p\n    expect: {preferred: {size: 1}}\n");
    ck_assert_int_eq(result(0)->status, MK_ST_ERROR);
    ck_assert_str_eq(result(0)->message, "allocate needs the built-in kubelet (mokka run); the "
                     "API server cannot call the device plugin");
    ck_assert_str_eq(result(1)->message, "preferred needs the built-in kubelet (mokka run); the "
                     "API server cannot call the device plugin");
}
END_TEST

START_TEST(test_preferred)
{
    run("cases:\n"
        "  - name: must first\n"
        "    expect: {preferred: {available: [GPU-1, GPU-2, GPU-3], must: [GPU-3], size: 2,\n"
        "                         expect: [GPU-3, GPU-1]}}\n"
        "  - name: any of all\n"
        "    expect: {preferred: {size: 8}}\n"
        "  - name: other choice\n"
        "    expect: {preferred: {available: [GPU-1, GPU-2], size: 1, expect: [GPU-2]}}\n");
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    ck_assert_int_eq(result(1)->status, MK_ST_PASS);
    const mk_rcase *c = result(2);
    ck_assert_str_eq(c->message, "GetPreferredAllocation did not prefer GPU-2");
    ck_assert_ptr_nonnull(strstr(c->detail, "  actual:   [GPU-1]"));
    ck_assert_int_eq(f.prefs, 3);
}
END_TEST

/* --- cluster-only ---------------------------------------------------------------------------- */

static void cluster_node(void)
{
    mk_nv_node *n = &f.view.node[0];
    fake_kv(&n->labels, &n->nlabels, "nvidia.com/gpu.present", "true");
    fake_kv(&n->labels, &n->nlabels, "nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB");
    fake_kv(&n->annotations, &n->nannotations, "note", "line1\nline2");
    n->conditions = calloc(2, sizeof *n->conditions);
    n->nconditions = 2;
    n->conditions[0] = (mk_nv_condition){strdup("Ready"), strdup("True"),
                                         strdup("KubeletReady"), strdup("kubelet is posting ready status")};
    n->conditions[1] = (mk_nv_condition){strdup("MemoryPressure"), strdup("False"),
                                         strdup("KubeletHasSufficientMemory"), NULL};
    n->taints = calloc(1, sizeof *n->taints);
    n->ntaints = 1;
    n->taints[0] = (mk_nv_taint){strdup("nvidia.com/gpu"), strdup("present"), strdup("NoSchedule")};
}

START_TEST(test_cluster_expectations)
{
    cluster_node();
    ck_assert_int_eq(run("cases:\n"
                         "  - name: all hold\n"
                         "    expect:\n"
                         "      condition: [{type: Ready}, {type: MemoryPressure, status: \"False\",\n"
                         "                  reason: /Sufficient/}]\n"
                         "      label: {nvidia.com/gpu.present: \"true\", nvidia.com/gpu.product: /A100/,\n"
                         "              nvidia.com/mig.config: null}\n"
                         "      annotation: {note: /line2/}\n"
                         "      taint: [{key: nvidia.com/gpu, effect: NoSchedule, value: present},\n"
                         "              {key: nvidia.com/gpu, effect: NoExecute, absent: true},\n"
                         "              {key: other, absent: true}]\n"), MK_EXIT_OK);
    mk_report_free(&rep);

    static const struct { const char *expect, *message; } fails[] = {
        {"condition: {type: Ready, status: \"False\"}",
         "node node-a condition Ready status is 'True', expected 'False'"},
        {"condition: {type: DiskPressure}", "node node-a has no condition DiskPressure"},
        {"condition: {type: Ready, message: /not ready/}",
         "node node-a condition Ready message is 'kubelet is posting ready status', expected /not ready/"},
        {"label: {nvidia.com/gpu.present: \"false\"}",
         "node node-a label nvidia.com/gpu.present is 'true', expected 'false'"},
        {"label: {nvidia.com/mig.config: all-1g.5gb}",
         "node node-a has no label nvidia.com/mig.config, expected 'all-1g.5gb'"},
        {"label: {nvidia.com/gpu.present: null}",
         "node node-a label nvidia.com/gpu.present is 'true', expected absent"},
        {"annotation: {note: /line3/}", "node node-a annotation note is 'line1 line2', expected /line3/"},
        {"taint: {key: nvidia.com/gpu, absent: true}",
         "node node-a has taint nvidia.com/gpu=present:NoSchedule, expected none"},
        {"taint: {key: nvidia.com/gpu, effect: NoExecute}",
         "node node-a has no taint nvidia.com/gpu:NoExecute"},
        {"taint: {key: nvidia.com/gpu, value: absent}", "node node-a has no taint nvidia.com/gpu"},
    };
    for (size_t i = 0; i < sizeof fails / sizeof fails[0]; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml, "cases:\n  - name: c\n    expect: {%s}\n", fails[i].expect);
        ck_assert_int_eq(run(yaml), MK_EXIT_FAIL);
        ck_assert_str_eq(result(0)->message, fails[i].message);
        mk_report_free(&rep);
    }
}
END_TEST

/* --- skip, cancel, progress ------------------------------------------------------------------- */

START_TEST(test_skip)
{
    ck_assert_int_eq(run("cases:\n"
                         "  - name: later\n"
                         "    skip: needs MIG\n"
                         "    expect: {capacity: 99}\n"), MK_EXIT_OK);
    const mk_rcase *c = result(0);
    ck_assert_int_eq(c->status, MK_ST_SKIP);
    ck_assert_str_eq(c->message, "needs MIG");
    ck_assert_str_eq(c->node, "node-a");               /* one result per node, as always */
    ck_assert_int_eq(f.snapshots, 1);                  /* to list the nodes; nothing checked */
}
END_TEST

static volatile sig_atomic_t stop;

static void cancel_on_first_wait(mk_suite_env *env, const mk_progress *p)
{
    (void)env;
    if (p->phase == MK_PROGRESS_WAIT)
        stop = 1;
}

START_TEST(test_cancel)
{
    f.env.cancel = &stop;
    f.env.progress = cancel_on_first_wait;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: waiting\n"
                         "    expect: {capacity: 9}\n"
                         "    within: 1m\n"
                         "  - name: never runs\n"
                         "    expect: {capacity: 8}\n"), MK_EXIT_ENV);
    ck_assert_int_eq(result(0)->status, MK_ST_ERROR);
    ck_assert_str_eq(result(0)->message, "cancelled while waiting");
    ck_assert_int_lt(result(0)->time_ms, 5000);
    ck_assert_int_eq(result(1)->status, MK_ST_SKIP);
    ck_assert_str_eq(result(1)->message, "cancelled");
}
END_TEST

static char events[256];

/* Records "C<i>/<n>" at a case's start, "W<i>/<n>" at its first wait and
 * "D<i>/<n><status>" at its end. */
static void record_progress(mk_suite_env *env, const mk_progress *p)
{
    static int waited;
    (void)env;
    if (p->phase == MK_PROGRESS_WAIT && waited++)
        return;
    if (p->phase == MK_PROGRESS_CASE)
        waited = 0;
    char e[64];
    snprintf(e, sizeof e, "%c%zu/%zu%s ", "CWD"[p->phase], p->index, p->total,
             p->phase == MK_PROGRESS_DONE ? mk_status_name(p->status) : "");
    strncat(events, e, sizeof events - strlen(events) - 1);
}

START_TEST(test_progress)
{
    f.env.progress = record_progress;
    f.change = xid_on_3;
    f.change_after_ms = 300;
    run("cases:\n"
        "  - name: one\n"
        "    expect: {unhealthy-count: 1}\n"
        "    within: 5s\n"
        "  - name: two\n"
        "    skip: yes\n"
        "    wait: 1s\n");
    ck_assert_str_eq(events, "C1/2 W1/2 D1/2pass C2/2 D2/2skipped ");
}
END_TEST

START_TEST(test_progress_printer_quiet)
{
    /* the CLI printer honours --quiet */
    mk_quiet = 1;
    f.env.progress = mk_suite_progress_stderr;
    ck_assert_int_eq(run("cases:\n  - name: c\n    expect: {capacity: 8}\n"), MK_EXIT_OK);
    mk_quiet = 0;
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("suite_run");
    TCase *tc = tcase_create("expectations");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_loop_test(tc, test_comparison, 0, (int)(sizeof cmps / sizeof cmps[0]));
    tcase_add_test(tc, test_failure_detail);
    tcase_add_test(tc, test_unknown_long_variable_without_variables);
    tcase_add_test(tc, test_health_lists);
    tcase_add_test(tc, test_topology);
    tcase_add_test(tc, test_allocate);
    tcase_add_test(tc, test_allocate_failures);
    tcase_add_test(tc, test_preferred);
    tcase_add_test(tc, test_cluster_expectations);
    tcase_add_test(tc, test_capabilities);
    tcase_add_test(tc, test_capability_labels);
    suite_add_tcase(s, tc);

    tc = tcase_create("running");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_within_passes_after_change);
    tcase_add_test(tc, test_within_timeout_reports_last_seen);
    tcase_add_test(tc, test_suite_timeout_is_default_within);
    tcase_add_test(tc, test_within_rechecks_plugin_calls);
    tcase_add_test(tc, test_actions_reach_env);
    tcase_add_loop_test(tc, test_action_failure_is_error, 0,
                        (int)(sizeof action_errors / sizeof action_errors[0]));
    tcase_add_loop_test(tc, test_action_unavailable_is_error, 0,
                        (int)(sizeof action_unavailable / sizeof action_unavailable[0]));
    tcase_add_test(tc, test_one_result_per_node);
    tcase_add_test(tc, test_named_nodes);
    tcase_add_test(tc, test_no_nodes);
    tcase_add_test(tc, test_source_failures);
    tcase_add_test(tc, test_skip);
    tcase_add_test(tc, test_cancel);
    tcase_add_test(tc, test_progress);
    tcase_add_test(tc, test_progress_printer_quiet);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
