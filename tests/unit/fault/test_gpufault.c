/* test_gpufault.c - the GPUFault model (src/fault/): reading good and bad
 * objects (each bad one's reason), which nodes and GPUs a fault lands on,
 * expiry, the builder and its round trip, and the fault in words. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fault/fault.h"
#include "fabric.h"
#include "units.h"
#include "support/testutil.h"

#define META "\"metadata\":{\"name\":\"gpu3-xid79\",\"uid\":\"6f0c\",\"resourceVersion\":\"1234\"," \
             "\"generation\":2,\"creationTimestamp\":\"2026-12-02T03:04:05Z\"}"
#define CREATED 1796180645000LL    /* 2026-12-02T03:04:05Z */

static json_t *load(const char *s)
{
    json_error_t je;
    json_t *j = json_loads(s, JSON_DECODE_ANY, &je);
    ck_assert_msg(j != NULL, "%s: %s", s, je.text);
    return j;
}

static void parse(const char *s, mk_gfault *f)
{
    json_t *j = load(s);
    ck_assert_int_eq(mk_gfault_from_json(j, f), 0);
    json_decref(j);
}

/* The object with META and this spec. */
static void parse_spec(const char *spec, mk_gfault *f)
{
    char buf[8192];
    snprintf(buf, sizeof buf, "{\"apiVersion\":\"mokka.io/v1alpha1\",\"kind\":\"GPUFault\"," META
             ",\"spec\":%s}", spec);
    parse(buf, f);
}

START_TEST(full_object)
{
    mk_gfault f;
    parse_spec("{\"nodes\":{\"names\":[\"gpu-node-1\",\"gpu-node-2\"],"
               "  \"selector\":{\"matchLabels\":{\"mokka.io/pool\":\"a\"},"
               "    \"matchExpressions\":[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"z1\",\"z2\"]}]}},"
               " \"gpus\":[3,\"5\",\"GPU-6f0c1234-aaaa-bbbb-cccc-0123456789ab\"],"
               " \"fault\":{\"xid\":79},\"duration\":\"5m\"}", &f);
    ck_assert_str_eq(f.invalid, "");
    ck_assert_str_eq(f.name, "gpu3-xid79");
    ck_assert_str_eq(f.uid, "6f0c");
    ck_assert_str_eq(f.rv, "1234");
    ck_assert_int_eq(f.generation, 2);
    ck_assert_int_eq(f.created_ms, CREATED);
    ck_assert_int_eq(f.duration_ms, 300000);
    ck_assert_int_eq(f.expires_ms, CREATED + 300000);
    ck_assert_uint_eq(f.nnames, 2);
    ck_assert_str_eq(f.names[1], "gpu-node-2");
    ck_assert_int_eq(f.has_selector, 1);
    ck_assert_uint_eq(f.sel.n, 2);
    ck_assert_int_eq(f.all_gpus, 0);
    ck_assert_uint_eq(f.nindexes, 2);
    ck_assert_int_eq(f.indexes[0], 3);
    ck_assert_int_eq(f.indexes[1], 5);
    ck_assert_uint_eq(f.nuuids, 1);
    ck_assert_str_eq(f.uuids[0], "GPU-6f0c1234-aaaa-bbbb-cccc-0123456789ab");
    ck_assert_int_eq(f.kind, MK_GF_XID);
    ck_assert_uint_eq(f.xid, 79);
    mk_gfault_free(&f);
    ck_assert_ptr_null(f.name);
}
END_TEST

START_TEST(minimal_and_kinds)
{
    mk_gfault f;
    /* A LIST item: no kind or apiVersion; no creationTimestamp: no expiry to count */
    parse("{\"metadata\":{\"name\":\"x\"},\"spec\":{\"gpus\":[\"all\"],\"fault\":{\"lost\":true},"
          "\"duration\":\"1m30s\"}}", &f);
    ck_assert_str_eq(f.invalid, "");
    ck_assert_ptr_null(f.uid);
    ck_assert_int_eq(f.all_gpus, 1);
    ck_assert_int_eq(f.kind, MK_GF_LOST);
    ck_assert_int_eq(f.duration_ms, 90000);
    ck_assert_int_eq(f.expires_ms, 0);
    ck_assert_uint_eq(f.nnames, 0);
    ck_assert_int_eq(f.has_selector, 0);
    mk_gfault_free(&f);

    static const struct { const char *fault; mk_gf_kind kind; } kinds[] = {
        { "{\"ecc\":\"single\"}", MK_GF_ECC_SINGLE }, { "{\"ecc\":\"double\"}", MK_GF_ECC_DOUBLE },
        { "{\"healthy\":true}", MK_GF_HEALTHY }, { "{\"xid\":1}", MK_GF_XID },
        { "{\"xid\":999}", MK_GF_XID }, { "{\"set\":{\"power\":300}}", MK_GF_SET },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "{\"gpus\":[0],\"fault\":%s,\"nodes\":{}}", kinds[i].fault);
        parse_spec(spec, &f);
        ck_assert_msg(f.invalid[0] == 0, "%s: %s", kinds[i].fault, f.invalid);
        ck_assert_int_eq(f.kind, kinds[i].kind);
        ck_assert_int_eq(f.expires_ms, 0);
        mk_gfault_free(&f);
    }
}
END_TEST

START_TEST(pins)
{
    mk_gfault f;
    /* any key order in; mk_metric order out */
    parse_spec("{\"gpus\":[0],\"fault\":{\"set\":{\"power\":\"300W\",\"memoryUsed\":\"30GiB\","
               "\"temperature\":90,\"utilization.gpu\":\"80%\",\"clocks.sm\":\"1410\"}}}", &f);
    ck_assert_str_eq(f.invalid, "");
    ck_assert_uint_eq(f.npins, 5);
    ck_assert_int_eq(f.pins[0].metric, MK_M_TEMP);
    ck_assert_int_eq(f.pins[0].value, 90);
    ck_assert_int_eq(f.pins[1].metric, MK_M_POWER);
    ck_assert_int_eq(f.pins[1].value, 300000);
    ck_assert_int_eq(f.pins[2].metric, MK_M_UTIL_GPU);
    ck_assert_int_eq(f.pins[3].metric, MK_M_MEM_USED);
    ck_assert_int_eq(f.pins[3].value, 30LL << 30);
    ck_assert_int_eq(f.pins[4].metric, MK_M_CLK_SM);
    char d[256];
    mk_gfault_describe(&f, d, sizeof d);
    ck_assert_str_eq(d, "set temperature=90C,power=300W,utilization.gpu=80%,memoryUsed=30GiB,"
                     "clocks.sm=1410MHz");
    mk_gfault_free(&f);
    parse_spec("{\"gpus\":[0],\"fault\":{\"set\":{\"temperature\":\"-5\",\"power\":\"0.2505kW\"}}}", &f);
    ck_assert_str_eq(f.invalid, "");
    mk_gfault_describe(&f, d, sizeof d);
    ck_assert_str_eq(d, "set temperature=-5C,power=250.500W");
    mk_gfault_describe(&f, d, 8);                 /* cut, still terminated */
    ck_assert_str_eq(d, "set tem");
    mk_gfault_free(&f);
}
END_TEST

START_TEST(describe)
{
    static const struct { const char *fault, *words; } cases[] = {
        { "{\"xid\":79}", "xid 79" }, { "{\"ecc\":\"single\"}", "ecc single" },
        { "{\"ecc\":\"double\"}", "ecc double" }, { "{\"lost\":true}", "lost" },
        { "{\"healthy\":true}", "healthy" }, { "{\"xid\":0}", "invalid" },
        { "{\"set\":{\"temperature\":\"90\",\"power\":\"300W\"}}", "set temperature=90C,power=300W" },
        /* a fabric fault states the whole word: completed, success, healthy where not given */
        { "{\"fabric\":{\"state\":\"inProgress\",\"status\":\"notReady\","
          "\"health\":[\"degradedBandwidth\"]}}",
          "fabric state=inProgress,status=notReady,health=degradedBandwidth" },
        { "{\"fabric\":{\"health\":[\"routeUnhealthy\",\"degradedBandwidth\"]}}",
          "fabric state=completed,status=success,health=degradedBandwidth,routeUnhealthy" },
        { "{\"fabric\":{\"state\":\"notStarted\"}}",
          "fabric state=notStarted,status=success,health=none" },
        { "{\"fabric\":{\"health\":[]}}", "fabric state=completed,status=success,health=none" },
        { "{\"fabric\":{\"status\":\"unknown\"}}",
          "fabric state=completed,status=unknown,health=none" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mk_gfault f;
        char spec[256], d[128];
        snprintf(spec, sizeof spec, "{\"gpus\":[0],\"fault\":%s}", cases[i].fault);
        parse_spec(spec, &f);
        mk_gfault_describe(&f, d, sizeof d);
        ck_assert_str_eq(d, cases[i].words);
        mk_gfault_free(&f);
    }
}
END_TEST

/* --- bad objects ------------------------------------------------------------ */

#define L10 "abcdefghij"
#define L50 L10 L10 L10 L10 L10

static const struct { const char *spec, *invalid; } bad_specs[] = {
    { "[]", "spec: must be an object" },
    { "{\"fault\":{\"xid\":79}}", "spec.gpus: missing; give GPU indexes, GPU UUIDs or all" },
    { "{\"gpus\":null,\"fault\":{\"xid\":79}}", "spec.gpus: missing; give GPU indexes, GPU UUIDs or all" },
    { "{\"gpus\":3,\"fault\":{\"xid\":79}}", "spec.gpus: must be a list of GPU indexes, GPU UUIDs or all" },
    { "{\"gpus\":[],\"fault\":{\"xid\":79}}", "spec.gpus: empty; give GPU indexes, GPU UUIDs or all" },
    { "{\"gpus\":[-1],\"fault\":{\"xid\":79}}", "spec.gpus[0]: -1 is not a GPU index (0-4095)" },
    { "{\"gpus\":[0,4096],\"fault\":{\"xid\":79}}", "spec.gpus[1]: 4096 is not a GPU index (0-4095)" },
    { "{\"gpus\":[9223372036854775807],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: 9223372036854775807 is not a GPU index (0-4095)" },
    { "{\"gpus\":[\"4096\"],\"fault\":{\"xid\":79}}", "spec.gpus[0]: '4096' is not a GPU index (0-4095)" },
    { "{\"gpus\":[\"99999999999999999999999\"],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: '99999999999999999999999' is not a GPU index (0-4095)" },
    { "{\"gpus\":[\"-1\"],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: '-1' is not a GPU index, a GPU UUID (GPU-...) or all" },
    { "{\"gpus\":[\"ALL\"],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: 'ALL' is not a GPU index, a GPU UUID (GPU-...) or all" },
    { "{\"gpus\":[\"GPU-\"],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: 'GPU-' is not a GPU index, a GPU UUID (GPU-...) or all" },
    { "{\"gpus\":[\"GPU-a_b\"],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: 'GPU-a_b' is not a GPU index, a GPU UUID (GPU-...) or all" },
    { "{\"gpus\":[\"GPU-" L50 L50 "\"],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: 'GPU-" L10 L10 L10 L10 "abcd...' is not a GPU index, a GPU UUID (GPU-...) or all" },
    { "{\"gpus\":[\"\\u00e9\\n\"],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: '??\?' is not a GPU index, a GPU UUID (GPU-...) or all" },
    { "{\"gpus\":[1.5],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: must be an index, a GPU UUID or all, not a number with a fraction" },
    { "{\"gpus\":[true],\"fault\":{\"xid\":79}}",
      "spec.gpus[0]: must be an index, a GPU UUID or all, not a boolean" },
    { "{\"gpus\":[null],\"fault\":{\"xid\":79}}", "spec.gpus[0]: must be an index, a GPU UUID or all, not null" },
    { "{\"gpus\":[[0]],\"fault\":{\"xid\":79}}", "spec.gpus[0]: must be an index, a GPU UUID or all, not a list" },
    { "{\"gpus\":[{}],\"fault\":{\"xid\":79}}", "spec.gpus[0]: must be an index, a GPU UUID or all, not an object" },
    { "{\"gpus\":[\"all\",1],\"fault\":{\"xid\":79}}", "spec.gpus: all must be the only item" },
    { "{\"gpus\":[0],\"fault\":{\"fabric\":{}}}",
      "spec.fault.fabric: empty; give state, status or health" },
    { "{\"gpus\":[0],\"fault\":{\"fabric\":true}}",
      "spec.fault.fabric: must be an object of state, status and health" },
    { "{\"gpus\":[0],\"fault\":{\"fabric\":{\"state\":\"inprogress\"}}}",
      "spec.fault.fabric.state: unknown value 'inprogress'; did you mean 'inProgress'?" },
    { "{\"gpus\":[0],\"fault\":{\"fabric\":{\"state\":\"notSupported\"}}}",
      "spec.fault.fabric.state: unknown value 'notSupported'; did you mean 'notStarted'?" },
    { "{\"gpus\":[0],\"fault\":{\"fabric\":{\"status\":5}}}",
      "spec.fault.fabric.status: must be a string, not a whole number" },
    { "{\"gpus\":[0],\"fault\":{\"fabric\":{\"health\":\"degradedBandwidth\"}}}",
      "spec.fault.fabric.health: must be a list of conditions (empty: none)" },
    { "{\"gpus\":[0],\"fault\":{\"fabric\":{\"health\":[\"routeRecovery\",\"zzz\"]}}}",
      "spec.fault.fabric.health[1]: unknown value 'zzz' (see mokka inject --help)" },
    { "{\"gpus\":[0],\"fault\":{\"fabric\":{\"clique\":3}}}",
      "spec.fault.fabric: unknown key 'clique'; give state, status or health" },
    { "{\"gpus\":[0]}", "spec.fault: missing; give one of xid, ecc, lost, healthy, set or fabric" },
    { "{\"gpus\":[0],\"fault\":\"xid\"}", "spec.fault: must be an object with one of xid, ecc, lost, healthy, set or fabric" },
    { "{\"gpus\":[0],\"fault\":{}}", "spec.fault: empty; give one of xid, ecc, lost, healthy, set or fabric" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":79,\"lost\":true}}", "spec.fault: has both xid and lost; give one" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{},\"ecc\":\"single\"}}", "spec.fault: has both set and ecc; give one" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":79,\"bogus\":1}}",
      "spec.fault: unknown key 'bogus'; give one of xid, ecc, lost, healthy, set or fabric" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":0}}", "spec.fault.xid: 0 is not from 1 to 999" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":1000}}", "spec.fault.xid: 1000 is not from 1 to 999" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":-9223372036854775807}}",
      "spec.fault.xid: -9223372036854775807 is not from 1 to 999" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":\"79\"}}", "spec.fault.xid: must be a whole number from 1 to 999, not a string" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":79.0}}",
      "spec.fault.xid: must be a whole number from 1 to 999, not a number with a fraction" },
    { "{\"gpus\":[0],\"fault\":{\"ecc\":\"triple\"}}", "spec.fault.ecc: 'triple' is not single or double" },
    { "{\"gpus\":[0],\"fault\":{\"ecc\":2}}", "spec.fault.ecc: must be single or double, not a whole number" },
    { "{\"gpus\":[0],\"fault\":{\"lost\":false}}", "spec.fault.lost: must be true" },
    { "{\"gpus\":[0],\"fault\":{\"healthy\":\"yes\"}}", "spec.fault.healthy: must be true" },
    { "{\"gpus\":[0],\"fault\":{\"set\":[]}}",
      "spec.fault.set: must be an object of metrics and values, like {temperature: \"90\"}" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{}}}",
      "spec.fault.set: empty; give metrics and values, like {temperature: \"90\"}" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{\"temprature\":\"90\"}}}",
      "spec.fault.set: unknown metric 'temprature'; did you mean 'temperature'?" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{\"zzz\":\"90\"}}}",
      "spec.fault.set: unknown metric 'zzz' (see mokka inject --help)" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{\"power\":\"300X\"}}}",
      "spec.fault.set.power: '300X': expected a power like 210, 210W, 0.21kW or 210000mW" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{\"utilization.gpu\":101}}}",
      "spec.fault.set.utilization.gpu: '101': value out of range" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{\"temperature\":90.5}}}",
      "spec.fault.set.temperature: must be a string or a whole number, not a number with a fraction" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{\"temperature\":null}}}",
      "spec.fault.set.temperature: must be a string or a whole number, not null" },
    { "{\"gpus\":[0],\"fault\":{\"set\":{\"memoryUsed\":9223372036854775807}}}",
      "spec.fault.set.memoryUsed: '9223372036854775807': size too large" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":79},\"duration\":\"5x\"}",
      "spec.duration: '5x' is not a duration like 500ms, 30s, 5m, 1h or 1m30s (24h at most)" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":79},\"duration\":\"25h\"}",
      "spec.duration: '25h' is not a duration like 500ms, 30s, 5m, 1h or 1m30s (24h at most)" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":79},\"duration\":\"0s\"}",
      "spec.duration: must be more than 0; leave it out for a fault that holds until deleted" },
    { "{\"gpus\":[0],\"fault\":{\"xid\":79},\"duration\":300}", "spec.duration: must be a string like 5m, not a whole number" },
    { "{\"nodes\":[],\"gpus\":[0],\"fault\":{\"xid\":79}}", "spec.nodes: must be an object with names and a selector" },
    { "{\"nodes\":{\"names\":\"a\"},\"gpus\":[0],\"fault\":{\"xid\":79}}", "spec.nodes.names: must be a list of node names" },
    { "{\"nodes\":{\"names\":[]},\"gpus\":[0],\"fault\":{\"xid\":79}}", "spec.nodes.names: empty; leave it out for every node" },
    { "{\"nodes\":{\"names\":[\"a\",1]},\"gpus\":[0],\"fault\":{\"xid\":79}}",
      "spec.nodes.names[1]: must be a string, not a whole number" },
    { "{\"nodes\":{\"names\":[\"Node_1\"]},\"gpus\":[0],\"fault\":{\"xid\":79}}",
      "spec.nodes.names[0]: 'Node_1' is not a node name (a DNS subdomain: lower-case letters, digits, '-' and '.')" },
    { "{\"nodes\":{\"selector\":\"a=b\"},\"gpus\":[0],\"fault\":{\"xid\":79}}",
      "spec.nodes.selector: must be a label selector (matchLabels, matchExpressions)" },
    { "{\"nodes\":{\"selector\":{\"matchExpressions\":[{\"key\":\"a\",\"operator\":\"Equals\"}]}},"
      "\"gpus\":[0],\"fault\":{\"xid\":79}}",
      "spec.nodes.selector.matchExpressions[0].operator: 'Equals' is not In, NotIn, Exists or DoesNotExist" },
};

START_TEST(bad_spec)
{
    mk_gfault f;
    parse_spec(bad_specs[_i].spec, &f);
    ck_assert_str_eq(f.invalid, bad_specs[_i].invalid);
    /* the metadata stays, for the report */
    ck_assert_str_eq(f.name, "gpu3-xid79");
    ck_assert_str_eq(f.uid, "6f0c");
    ck_assert_str_eq(f.rv, "1234");
    char d[32];
    mk_gfault_describe(&f, d, sizeof d);
    ck_assert_str_eq(d, "invalid");
    unsigned char hit[2] = { 1, 1 };
    char why[600];
    ck_assert_int_eq(mk_gfault_gpus(&f, 2, NULL, hit, why, sizeof why), -1);
    ck_assert_str_eq(why, f.invalid);
    ck_assert_int_eq(hit[0] + hit[1], 0);
    mk_gfault_free(&f);
}
END_TEST

static const struct { const char *obj, *invalid; } bad_objects[] = {
    { "[]", "the object is not a JSON object" },
    { "\"GPUFault\"", "the object is not a JSON object" },
    { "{}", "metadata: missing" },
    { "{\"metadata\":[],\"spec\":{}}", "metadata: must be an object" },
    { "{\"metadata\":{},\"spec\":{}}", "metadata.name: missing" },
    { "{\"metadata\":{\"name\":7},\"spec\":{}}", "metadata.name: missing" },
    { "{\"metadata\":{\"name\":\"Bad_Name\"},\"spec\":{}}",
      "metadata.name: 'Bad_Name' is not a DNS subdomain (lower-case letters, digits, '-' and '.')" },
    { "{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":5},\"spec\":{}}",
      "metadata.creationTimestamp: must be a string" },
    { "{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":\"yesterday\"},\"spec\":{}}",
      "metadata.creationTimestamp: 'yesterday' is not an RFC 3339 time from 1970 on" },
    { "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},\"spec\":{}}", "kind: must be GPUFault" },
    { "{\"apiVersion\":\"mokka.io/v1\",\"metadata\":{\"name\":\"x\"},\"spec\":{}}",
      "apiVersion: must be mokka.io/v1alpha1" },
    { "{\"metadata\":{\"name\":\"x\"}}", "spec: missing" },
};

START_TEST(bad_object)
{
    mk_gfault f;
    parse(bad_objects[_i].obj, &f);
    ck_assert_str_eq(f.invalid, bad_objects[_i].invalid);
    mk_gfault_free(&f);
}
END_TEST

START_TEST(caps)
{
    json_t *o = load("{" META ",\"spec\":{\"fault\":{\"xid\":79}}}");
    json_t *spec = json_object_get(o, "spec"), *gpus = json_array(), *nodes = json_object(),
           *names = json_array();
    json_object_set_new(spec, "gpus", gpus);
    for (int i = 0; i < MK_GF_MAX_GPUS; i++)
        json_array_append_new(gpus, json_integer(i));
    mk_gfault f;
    ck_assert_int_eq(mk_gfault_from_json(o, &f), 0);
    ck_assert_str_eq(f.invalid, "");
    ck_assert_uint_eq(f.nindexes, MK_GF_MAX_GPUS);
    mk_gfault_free(&f);
    json_array_append_new(gpus, json_integer(0));
    ck_assert_int_eq(mk_gfault_from_json(o, &f), 0);
    ck_assert_str_eq(f.invalid, "spec.gpus: 4097 items; at most 4096");
    mk_gfault_free(&f);
    json_array_clear(gpus);
    json_array_append_new(gpus, json_integer(0));

    json_object_set_new(spec, "nodes", nodes);
    json_object_set_new(nodes, "names", names);
    for (int i = 0; i <= MK_GF_MAX_NAMES; i++) {
        char n[16];
        snprintf(n, sizeof n, "n%d", i);
        json_array_append_new(names, json_string(n));
    }
    ck_assert_int_eq(mk_gfault_from_json(o, &f), 0);
    ck_assert_str_eq(f.invalid, "spec.nodes.names: 5001 names; at most 5000");
    ck_assert_uint_eq(f.nnames, 0);          /* nodes unread: every node */
    ck_assert_int_eq(mk_gfault_selects(&f, "anything", NULL, 0), 1);
    mk_gfault_free(&f);
    json_array_remove(names, 0);
    ck_assert_int_eq(mk_gfault_from_json(o, &f), 0);
    ck_assert_str_eq(f.invalid, "");
    ck_assert_uint_eq(f.nnames, MK_GF_MAX_NAMES);
    mk_gfault_free(&f);
    json_object_del(spec, "nodes");

    json_t *fault = json_object_get(spec, "fault"), *set = json_object();
    json_object_clear(fault);
    json_object_set_new(fault, "set", set);
    for (int i = 0; i <= MK_GF_MAX_PINS; i++) {
        char n[16];
        snprintf(n, sizeof n, "m%d", i);
        json_object_set_new(set, n, json_string("1"));
    }
    ck_assert_int_eq(mk_gfault_from_json(o, &f), 0);
    ck_assert_str_eq(f.invalid, "spec.fault.set: 65 metrics; at most 64");
    mk_gfault_free(&f);

    /* A long unknown key: quoted cut, and no suggestion (mk_did_you_mean's
     * distances stop at 64 characters) */
    char key[300];
    memset(key, 't', sizeof key - 1);
    key[sizeof key - 1] = 0;
    json_object_clear(set);
    json_object_set_new(set, key, json_string("1"));
    ck_assert_int_eq(mk_gfault_from_json(o, &f), 0);
    ck_assert_str_eq(f.invalid, "spec.fault.set: unknown metric 'tttttttttttttttttttttttttttttttttttttttttttttttt...' "
                     "(see mokka inject --help)");
    mk_gfault_free(&f);
    json_decref(o);
}
END_TEST

/* An invalid object still knows its nodes when they were not what was bad. */
START_TEST(invalid_keeps_nodes)
{
    mk_gfault f;
    parse_spec("{\"nodes\":{\"names\":[\"a\"]},\"gpus\":[\"x\"],\"fault\":{\"xid\":79}}", &f);
    ck_assert_str_ne(f.invalid, "");
    ck_assert_int_eq(mk_gfault_selects(&f, "a", NULL, 0), 1);
    ck_assert_int_eq(mk_gfault_selects(&f, "b", NULL, 0), 0);
    mk_gfault_free(&f);
    parse("{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":\"bad\"},"
          "\"spec\":{\"nodes\":{\"names\":[\"a\"]}}}", &f);
    ck_assert_str_eq(f.invalid, "metadata.creationTimestamp: 'bad' is not an RFC 3339 time from 1970 on");
    ck_assert_int_eq(mk_gfault_selects(&f, "b", NULL, 0), 0);
    mk_gfault_free(&f);
}
END_TEST

/* --- where it lands --------------------------------------------------------- */

START_TEST(selects)
{
    static const mk_nv_kv pool_a[] = { { "mokka.io/pool", "a" }, { "zone", "z1" } };
    static const mk_nv_kv pool_b[] = { { "mokka.io/pool", "b" }, { "zone", "z1" } };
    mk_gfault f;
    parse_spec("{\"gpus\":[0],\"fault\":{\"xid\":79}}", &f);
    ck_assert_int_eq(mk_gfault_selects(&f, "any", NULL, 0), 1);
    mk_gfault_free(&f);

    parse_spec("{\"nodes\":{\"names\":[\"n1\",\"n2\"]},\"gpus\":[0],\"fault\":{\"xid\":79}}", &f);
    ck_assert_int_eq(mk_gfault_selects(&f, "n2", pool_b, 2), 1);
    ck_assert_int_eq(mk_gfault_selects(&f, "n3", pool_a, 2), 0);
    mk_gfault_free(&f);

    parse_spec("{\"nodes\":{\"selector\":{\"matchLabels\":{\"mokka.io/pool\":\"a\"}}},"
               "\"gpus\":[0],\"fault\":{\"xid\":79}}", &f);
    ck_assert_int_eq(mk_gfault_selects(&f, "n1", pool_a, 2), 1);
    ck_assert_int_eq(mk_gfault_selects(&f, "n1", pool_b, 2), 0);
    ck_assert_int_eq(mk_gfault_selects(&f, "n1", NULL, 0), 0);
    mk_gfault_free(&f);

    /* both: named AND matching */
    parse_spec("{\"nodes\":{\"names\":[\"n1\"],\"selector\":{\"matchExpressions\":"
               "[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"z1\",\"z2\"]}]}},"
               "\"gpus\":[0],\"fault\":{\"xid\":79}}", &f);
    ck_assert_int_eq(mk_gfault_selects(&f, "n1", pool_b, 2), 1);
    ck_assert_int_eq(mk_gfault_selects(&f, "n2", pool_b, 2), 0);
    ck_assert_int_eq(mk_gfault_selects(&f, "n1", NULL, 0), 0);
    mk_gfault_free(&f);

    /* an empty selector matches every node */
    parse_spec("{\"nodes\":{\"selector\":{}},\"gpus\":[0],\"fault\":{\"xid\":79}}", &f);
    ck_assert_int_eq(f.has_selector, 1);
    ck_assert_int_eq(mk_gfault_selects(&f, "n1", NULL, 0), 1);
    mk_gfault_free(&f);
}
END_TEST

static const char *const uuids[] = {
    "GPU-00000000-0000-0000-0000-000000000000", "GPU-11111111-1111-1111-1111-111111111111",
    NULL, "GPU-33333333-aaaa-bbbb-cccc-333333333333",
};

/* hit as a string of 0s and 1s, or the reason. */
static void gpus_of(const char *gpus, unsigned ndev, char *out, size_t len)
{
    mk_gfault f;
    char spec[512];
    unsigned char hit[16];
    snprintf(spec, sizeof spec, "{\"gpus\":%s,\"fault\":{\"xid\":79}}", gpus);
    parse_spec(spec, &f);
    ck_assert_msg(f.invalid[0] == 0, "%s", f.invalid);
    memset(hit, 7, sizeof hit);
    if (mk_gfault_gpus(&f, ndev, uuids, hit, out, len) == 0) {
        for (unsigned i = 0; i < ndev; i++)
            out[i] = (char)('0' + hit[i]);
        out[ndev] = 0;
    } else {
        for (unsigned i = 0; i < ndev; i++)
            ck_assert_int_eq(hit[i], 0);
    }
    ck_assert_int_eq(hit[ndev], 7);   /* nothing beyond ndev */
    mk_gfault_free(&f);
}

START_TEST(gpus)
{
    static const struct { const char *gpus; unsigned ndev; const char *want; } cases[] = {
        { "[3]", 4, "0001" },
        { "[\"3\",0,3]", 4, "1001" },
        { "[\"all\"]", 4, "1111" },
        { "[\"all\"]", 1, "1" },
        { "[\"GPU-11111111-1111-1111-1111-111111111111\"]", 4, "0100" },
        { "[\"GPU-33333333-AAAA-bbbb-CCCC-333333333333\",0]", 4, "1001" },
        { "[9]", 8, "gpu 9 is out of range: this node has GPUs 0-7" },
        { "[1]", 1, "gpu 1 is out of range: this node has GPU 0 only" },
        { "[0]", 0, "gpu 0 is out of range: this node has no GPUs" },
        { "[\"all\"]", 0, "the fault is for all GPUs, and this node has no GPUs" },
        { "[0,\"GPU-abc\"]", 4, "GPU-abc is not a GPU of this node" },
        { "[\"GPU-abc\"]", 0, "GPU-abc is not a GPU of this node" },
        { "[\"GPU-" L50 "\"]", 2, "GPU-" L10 L10 L10 L10 "abcd... is not a GPU of this node" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        gpus_of(cases[i].gpus, cases[i].ndev, out, sizeof out);
        ck_assert_msg(strcmp(out, cases[i].want) == 0, "%s on %u: '%s'", cases[i].gpus,
                      cases[i].ndev, out);
    }
}
END_TEST

START_TEST(expiry)
{
    mk_gfault f;
    char buf[512];
    static const struct { const char *created, *duration; long long expires; } cases[] = {
        { "2026-12-02T03:04:05Z", "500ms", CREATED + 500 },
        { "2026-12-02T03:04:05.250Z", "1m30s", CREATED + 250 + 90000 },
        { "2026-12-02T05:04:05+02:00", "24h", CREATED + 86400000LL },
        { "2026-12-31T23:59:59Z", "1h", 1798761599000LL + 3600000 },
        { "9999-12-31T23:59:59Z", "24h", 253402300799000LL + 86400000LL },
        { "2026-12-02T03:04:05Z", NULL, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char dur[64] = "";
        if (cases[i].duration)
            snprintf(dur, sizeof dur, ",\"duration\":\"%s\"", cases[i].duration);
        snprintf(buf, sizeof buf, "{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":\"%s\"},"
                 "\"spec\":{\"gpus\":[0],\"fault\":{\"xid\":79}%s}}", cases[i].created, dur);
        parse(buf, &f);
        ck_assert_str_eq(f.invalid, "");
        ck_assert_int_eq(f.expires_ms, cases[i].expires);
        ck_assert_int_eq(f.expires_ms ? f.expires_ms - f.created_ms : 0, f.duration_ms);
        mk_gfault_free(&f);
    }
}
END_TEST

/* --- the builder ------------------------------------------------------------ */

/* Builds r, which must work; reads it back, which must be valid; returns
 * the compact JSON. */
static char *build(const mk_gfault_req *r, mk_gfault *back)
{
    char err[512] = "";
    json_t *o = mk_gfault_build(r, err, sizeof err);
    ck_assert_msg(o != NULL, "%s", err);
    ck_assert_int_eq(mk_gfault_from_json(o, back), 0);
    ck_assert_str_eq(back->invalid, "");
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

START_TEST(build_xid)
{
    mk_gfault f;
    mk_gfault_req r = { .gpus = "3", .kind = MK_GF_XID, .xid = 79 };
    char *s = build(&r, &f);
    ck_assert_str_eq(s, "{\"apiVersion\":\"mokka.io/v1alpha1\",\"kind\":\"GPUFault\","
                     "\"metadata\":{\"generateName\":\"gpu3-xid79-\"},"
                     "\"spec\":{\"gpus\":[3],\"fault\":{\"xid\":79}}}");
    ck_assert_ptr_null(f.name);
    ck_assert_uint_eq(f.nindexes, 1);
    free(s);
    mk_gfault_free(&f);
}
END_TEST

START_TEST(build_fabric)
{
    mk_gfault f;
    mk_gfault_req r = { .gpus = "0-1", .kind = MK_GF_FABRIC, .fstate = MK_FABRIC_IN_PROGRESS,
                        .fstatus = -1, .fhealth = MK_FABRIC_DEGRADED_BW | MK_FABRIC_ACCESS_TIMEOUT };
    char *s = build(&r, &f), d[128];
    ck_assert_str_eq(s, "{\"apiVersion\":\"mokka.io/v1alpha1\",\"kind\":\"GPUFault\","
                     "\"metadata\":{\"generateName\":\"gpu0-1-fabric-\"},"
                     "\"spec\":{\"gpus\":[0,1],\"fault\":{\"fabric\":{\"state\":\"inProgress\","
                     "\"health\":[\"degradedBandwidth\",\"accessTimeoutRecovery\"]}}}}");
    ck_assert_int_eq(f.kind, MK_GF_FABRIC);
    mk_gfault_describe(&f, d, sizeof d);
    ck_assert_str_eq(d, "fabric state=inProgress,status=success,"
                     "health=degradedBandwidth,accessTimeoutRecovery");
    free(s);
    mk_gfault_free(&f);
    /* health none is an empty list: a stated "healthy", not a left-out part */
    r = (mk_gfault_req){ .gpus = "2", .kind = MK_GF_FABRIC, .fstate = -1, .fstatus = 27,
                         .fhealth = 0 };
    s = build(&r, &f);
    ck_assert_ptr_nonnull(strstr(s, "{\"fabric\":{\"status\":\"notReady\",\"health\":[]}}"));
    free(s);
    mk_gfault_free(&f);
}
END_TEST

START_TEST(build_everything)
{
    mk_gfault f;
    mk_ksel sel;
    char err[256];
    ck_assert_int_eq(mk_ksel_parse("mokka.io/pool=a,zone in (z1,z2)", &sel, err, sizeof err), 0);
    static const char *const nodes[] = { "gpu-node-1", "gpu-node-2" };
    static const char *const sets[] = { "power=300W", "temperature=90" };
    mk_gfault_req r = { .name = "hot", .nodes = nodes, .nnodes = 2, .selector = &sel,
                        .gpus = "0-2,5,GPU-6f0c1234-aaaa", .kind = MK_GF_SET, .sets = sets,
                        .nsets = 2, .duration = "5m" };
    char *s = build(&r, &f);
    ck_assert_str_eq(s, "{\"apiVersion\":\"mokka.io/v1alpha1\",\"kind\":\"GPUFault\","
                     "\"metadata\":{\"name\":\"hot\"},\"spec\":{"
                     "\"nodes\":{\"names\":[\"gpu-node-1\",\"gpu-node-2\"],\"selector\":"
                     "{\"matchLabels\":{\"mokka.io/pool\":\"a\"},\"matchExpressions\":"
                     "[{\"key\":\"zone\",\"operator\":\"In\",\"values\":[\"z1\",\"z2\"]}]}},"
                     "\"gpus\":[0,1,2,5,\"GPU-6f0c1234-aaaa\"],\"fault\":{\"set\":{\"power\":\"300W\","
                     "\"temperature\":\"90\"}},\"duration\":\"5m\"}}");
    ck_assert_str_eq(f.name, "hot");
    ck_assert_uint_eq(f.nindexes, 4);
    ck_assert_uint_eq(f.nuuids, 1);
    ck_assert_uint_eq(f.npins, 2);
    ck_assert_int_eq(f.duration_ms, 300000);
    static const mk_nv_kv labels[] = { { "mokka.io/pool", "a" }, { "zone", "z2" } };
    ck_assert_int_eq(mk_gfault_selects(&f, "gpu-node-2", labels, 2), 1);
    ck_assert_int_eq(mk_gfault_selects(&f, "gpu-node-3", labels, 2), 0);
    char d[128];
    mk_gfault_describe(&f, d, sizeof d);
    ck_assert_str_eq(d, "set temperature=90C,power=300W");
    free(s);
    mk_gfault_free(&f);
    mk_ksel_free(&sel);
}
END_TEST

START_TEST(build_generated_names)
{
    static const struct { const char *gpus; mk_gf_kind kind; const char *prefix; } cases[] = {
        { "3", MK_GF_XID, "gpu3-xid79-" },
        { "0,2", MK_GF_ECC_DOUBLE, "gpu0.2-ecc-double-" },
        { "0-3", MK_GF_ECC_SINGLE, "gpu0-3-ecc-single-" },
        { "all", MK_GF_LOST, "gpuall-lost-" },
        { "GPU-6F0C1234-aaaa-bbbb", MK_GF_HEALTHY, "gpuu6f0c1234-healthy-" },
        { "GPU-----", MK_GF_HEALTHY, "gpuu-healthy-" },
        { "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15", MK_GF_XID, "gpu0.1.2.3.4.5.6.7.8.9.10.11.12-xid79-" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mk_gfault f;
        mk_gfault_req r = { .gpus = cases[i].gpus, .kind = cases[i].kind, .xid = 79 };
        char err[256];
        json_t *o = mk_gfault_build(&r, err, sizeof err);
        ck_assert_msg(o != NULL, "%s", err);
        const char *gn = json_string_value(json_object_get(json_object_get(o, "metadata"), "generateName"));
        ck_assert_str_eq(gn, cases[i].prefix);
        /* what the API server will make of it is a name */
        char name[128];
        snprintf(name, sizeof name, "%sx7k2p", gn);
        ck_assert_msg(mk_kname_ok(name), "%s", name);
        ck_assert_int_eq(mk_gfault_from_json(o, &f), 0);
        ck_assert_str_eq(f.invalid, "");
        mk_gfault_free(&f);
        json_decref(o);
    }
}
END_TEST

START_TEST(build_errors)
{
    static const char *const one_set[] = { "temperature=90" };
    static const char *const bad_sets[][2] = {
        { "temperature", NULL }, { "=90", NULL }, { "temp=90", NULL }, { "power=300X", NULL },
        { "temperature=90", "temperature=91" }, { "utilization.gpu=101", NULL },
    };
    static const char *const bad_nodes[] = { "Gpu_1" };
    static const struct { mk_gfault_req r; const char *err; } cases[] = {
        { { .kind = MK_GF_LOST }, "give --gpu: an index, a range, a GPU UUID or all" },
        { { .gpus = "", .kind = MK_GF_LOST }, "give --gpu: an index, a range, a GPU UUID or all" },
        { { .gpus = "x", .kind = MK_GF_LOST }, "--gpu takes an index, a range, a GPU UUID or all, not 'x'" },
        { { .gpus = "0,,1", .kind = MK_GF_LOST }, "--gpu takes an index, a range, a GPU UUID or all, not ''" },
        { { .gpus = "0,", .kind = MK_GF_LOST }, "--gpu takes an index, a range, a GPU UUID or all, not ''" },
        { { .gpus = "1-", .kind = MK_GF_LOST }, "--gpu takes an index, a range, a GPU UUID or all, not '1-'" },
        { { .gpus = "-1", .kind = MK_GF_LOST }, "--gpu takes an index, a range, a GPU UUID or all, not '-1'" },
        { { .gpus = "1-2-3", .kind = MK_GF_LOST }, "--gpu takes an index, a range, a GPU UUID or all, not '1-2-3'" },
        { { .gpus = "12345", .kind = MK_GF_LOST }, "--gpu takes an index, a range, a GPU UUID or all, not '12345'" },
        { { .gpus = "3-1", .kind = MK_GF_LOST }, "--gpu: '3-1' is not a range: 3 is more than 1" },
        { { .gpus = "0-4096", .kind = MK_GF_LOST }, "--gpu: '0-4096': GPU indexes are 0-4095" },
        { { .gpus = "0-4095,0", .kind = MK_GF_LOST }, "--gpu: more than 4096 GPUs" },
        { { .gpus = "GPU-a_b", .kind = MK_GF_LOST }, "--gpu: 'GPU-a_b' is not a GPU index, a GPU UUID (GPU-...) or all" },
        { { .gpus = "all,1", .kind = MK_GF_LOST }, "--gpu: all must be the only item" },
        { { .gpus = "0", .kind = MK_GF_XID, .xid = 0 }, "--xid: 0 is not from 1 to 999" },
        { { .gpus = "0", .kind = MK_GF_XID, .xid = 1000 }, "--xid: 1000 is not from 1 to 999" },
        { { .gpus = "0", .kind = MK_GF_SET }, "give --set METRIC=VALUE, like temperature=90" },
        { { .gpus = "0", .kind = MK_GF_LOST, .sets = one_set, .nsets = 1 },
          "--set is a fault of its own: give it without --xid, --ecc, --lost, --healthy or --fabric-*" },
        { { .gpus = "0", .kind = MK_GF_SET, .sets = bad_sets[0], .nsets = 1 },
          "--set takes METRIC=VALUE, like temperature=90, not 'temperature'" },
        { { .gpus = "0", .kind = MK_GF_SET, .sets = bad_sets[1], .nsets = 1 },
          "--set takes METRIC=VALUE, like temperature=90, not '=90'" },
        { { .gpus = "0", .kind = MK_GF_SET, .sets = bad_sets[2], .nsets = 1 },
          "--set: unknown metric 'temp' (see mokka inject --help)" },
        { { .gpus = "0", .kind = MK_GF_SET, .sets = bad_sets[3], .nsets = 1 },
          "--set power: '300X': expected a power like 210, 210W, 0.21kW or 210000mW" },
        { { .gpus = "0", .kind = MK_GF_SET, .sets = bad_sets[4], .nsets = 2 }, "--set temperature given twice" },
        { { .gpus = "0", .kind = MK_GF_SET, .sets = bad_sets[5], .nsets = 1 },
          "--set utilization.gpu: '101': value out of range" },
        { { .gpus = "0", .kind = MK_GF_LOST, .duration = "5" },
          "--for: '5' is not a duration like 500ms, 30s, 5m, 1h or 1m30s (24h at most)" },
        { { .gpus = "0", .kind = MK_GF_LOST, .duration = "0s" },
          "--for: must be more than 0; leave it out for a fault that holds until deleted" },
        { { .gpus = "0", .kind = MK_GF_LOST, .nodes = bad_nodes, .nnodes = 1 },
          "--node: 'Gpu_1' is not a node name (a DNS subdomain: lower-case letters, digits, '-' and '.')" },
        { { .name = "Hot!", .gpus = "0", .kind = MK_GF_LOST },
          "--name: 'Hot!' is not a DNS subdomain (lower-case letters, digits, '-' and '.')" },
        { { .name = "caf\xc3\xa9", .gpus = "0", .kind = MK_GF_LOST },
          "--name: 'caf?\?' is not a DNS subdomain (lower-case letters, digits, '-' and '.')" },
        { { .gpus = "0", .kind = MK_GF_LOST, .duration = "\xff" },
          "--for: '?' is not a duration like 500ms, 30s, 5m, 1h or 1m30s (24h at most)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char err[512] = "";
        json_t *o = mk_gfault_build(&cases[i].r, err, sizeof err);
        ck_assert_msg(o == NULL, "case %zu built", i);
        ck_assert_msg(strcmp(err, cases[i].err) == 0, "case %zu: '%s'", i, err);
    }
}
END_TEST

/* A NUL inside a string would cut it short where C reads it ("3\u0000x"
 * as GPU 3, "a\u0000b" as node a): such a string makes the fault invalid,
 * by its path; one in an annotation (free text, never read) does not. */
START_TEST(nul_in_strings)
{
    static const struct { const char *spec, *why; } cases[] = {
        { "{\"gpus\":[\"3\\u0000x\"],\"fault\":{\"xid\":79}}", "spec.gpus[0]: holds a NUL byte (\\u0000)" },
        { "{\"nodes\":{\"names\":[\"a\\u0000b\"]},\"gpus\":[1],\"fault\":{\"xid\":79}}",
          "spec.nodes.names[0]: holds a NUL byte (\\u0000)" },
        { "{\"gpus\":[1],\"fault\":{\"ecc\":\"single\\u0000\"}}", "spec.fault.ecc: holds a NUL byte (\\u0000)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[1024];
        mk_gfault f;
        json_error_t je;
        snprintf(buf, sizeof buf, "{" META ",\"spec\":%s}", cases[i].spec);
        json_t *j = json_loads(buf, JSON_ALLOW_NUL, &je);
        ck_assert_msg(j != NULL, "%s", je.text);
        ck_assert_int_eq(mk_gfault_from_json(j, &f), 0);
        ck_assert_str_eq(f.invalid, cases[i].why);
        mk_gfault_free(&f);
        json_decref(j);
    }
    json_t *j = json_loads("{\"metadata\":{\"name\":\"n\",\"annotations\":{\"a\":\"x\\u0000\"}},"
                           "\"spec\":{\"gpus\":[1],\"fault\":{\"xid\":79}}}", JSON_ALLOW_NUL, NULL);
    mk_gfault f;
    ck_assert_int_eq(mk_gfault_from_json(j, &f), 0);
    ck_assert_str_eq(f.invalid, "");
    mk_gfault_free(&f);
    json_decref(j);
}
END_TEST

/* What the framing picked of an object it could not read: its metadata,
 * and a reason that says so; every node reports it. */
START_TEST(unreadable_object)
{
    json_t *picked = load("{\"metadata\":{\"name\":\"wide\",\"uid\":\"u-1\",\"resourceVersion\":\"7\"}}");
    json_t *kept = mk_gfault_unreadable(picked, "holds more than 250000 JSON values (the limit for one object)");
    mk_gfault f;
    ck_assert_int_eq(mk_gfault_from_json(kept, &f), 0);
    ck_assert_str_eq(f.invalid, "the object cannot be read: it holds more than 250000 JSON values (the "
                                "limit for one object)");
    ck_assert_str_eq(f.name, "wide");
    ck_assert_str_eq(f.uid, "u-1");
    ck_assert_str_eq(f.rv, "7");
    ck_assert_int_eq(mk_gfault_selects(&f, "any-node", NULL, 0), 1);
    mk_gfault_free(&f);
    json_decref(kept);
    json_decref(picked);
    kept = mk_gfault_unreadable(NULL, "cannot be read (line 1, column 9): too big integer");
    ck_assert_int_eq(mk_gfault_from_json(kept, &f), 0);
    ck_assert_ptr_null(f.name);
    ck_assert_ptr_nonnull(strstr(f.invalid, "too big integer"));
    mk_gfault_free(&f);
    json_decref(kept);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpufault");
    TCase *tc = tcase_create("gpufault");
    tcase_add_test(tc, full_object);
    tcase_add_test(tc, minimal_and_kinds);
    tcase_add_test(tc, pins);
    tcase_add_test(tc, build_fabric);
    tcase_add_test(tc, describe);
    tcase_add_loop_test(tc, bad_spec, 0, (int)(sizeof bad_specs / sizeof bad_specs[0]));
    tcase_add_loop_test(tc, bad_object, 0, (int)(sizeof bad_objects / sizeof bad_objects[0]));
    tcase_add_test(tc, caps);
    tcase_add_test(tc, invalid_keeps_nodes);
    tcase_add_test(tc, selects);
    tcase_add_test(tc, gpus);
    tcase_add_test(tc, expiry);
    tcase_add_test(tc, build_xid);
    tcase_add_test(tc, build_everything);
    tcase_add_test(tc, build_generated_names);
    tcase_add_test(tc, build_errors);
    tcase_add_test(tc, nul_in_strings);
    tcase_add_test(tc, unreadable_object);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
