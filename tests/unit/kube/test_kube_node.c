/* test_kube_node.c - Node objects as node views (kube_node.c). */
#include <check.h>
#include <string.h>
#include "kube/kube_node.h"
#include "support/testutil.h"

static const char node_json[] =
    "{\"kind\":\"Node\",\"apiVersion\":\"v1\","
    " \"metadata\":{\"name\":\"gpu-1\",\"resourceVersion\":\"42\","
    "   \"labels\":{\"nvidia.com/gpu.product\":\"H100\",\"pool\":\"gpu\"},"
    "   \"annotations\":{\"note\":\"x\"}},"
    " \"spec\":{\"taints\":[{\"key\":\"nvidia.com/gpu\",\"value\":\"present\",\"effect\":\"NoSchedule\"},"
    "                      {\"key\":\"maintenance\",\"effect\":\"NoExecute\"}]},"
    " \"status\":{"
    "   \"capacity\":{\"cpu\":\"64\",\"memory\":\"528280128Ki\",\"nvidia.com/gpu\":\"8\"},"
    "   \"allocatable\":{\"cpu\":\"63500m\",\"memory\":\"517794368Ki\",\"nvidia.com/gpu\":\"7\","
    "                    \"example.com/only-allocatable\":\"2\"},"
    "   \"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\","
    "                    \"message\":\"kubelet is posting ready status\",\"lastHeartbeatTime\":\"2024-05-01T10:00:00Z\"},"
    "                   {\"type\":\"GPUHealthy\",\"status\":\"False\"}]}}";

static json_t *load(const char *s)
{
    json_t *j = json_loads(s, 0, NULL);
    ck_assert_ptr_nonnull(j);
    return j;
}

START_TEST(node_fields)
{
    json_t *j = load(node_json);
    mk_nv_node n;
    char err[256];
    ck_assert_int_eq(mk_knode_from_json(j, &n, err, sizeof err), 0);
    ck_assert_str_eq(n.name, "gpu-1");

    ck_assert_uint_eq(n.nres, 4);
    const mk_nv_resource *gpu = mk_nv_find_resource(&n, "nvidia.com/gpu");
    ck_assert_ptr_nonnull(gpu);
    ck_assert_int_eq(gpu->capacity, 8);
    ck_assert_int_eq(gpu->allocatable, 7);
    ck_assert_uint_eq(gpu->ndev, 0);
    ck_assert_int_eq(mk_nv_find_resource(&n, "cpu")->allocatable, 64);     /* 63.5 rounded up */
    ck_assert_int_eq(mk_nv_find_resource(&n, "memory")->capacity, 540958851072LL);
    const mk_nv_resource *only = mk_nv_find_resource(&n, "example.com/only-allocatable");
    ck_assert_int_eq(only->capacity, 0);
    ck_assert_int_eq(only->allocatable, 2);

    ck_assert_str_eq(mk_nv_label(&n, "pool"), "gpu");
    ck_assert_str_eq(mk_nv_label(&n, "nvidia.com/gpu.product"), "H100");
    ck_assert_str_eq(mk_nv_annotation(&n, "note"), "x");

    const mk_nv_condition *ready = mk_nv_condition_find(&n, "Ready");
    ck_assert_str_eq(ready->status, "True");
    ck_assert_str_eq(ready->reason, "KubeletReady");
    ck_assert_str_eq(ready->message, "kubelet is posting ready status");
    const mk_nv_condition *gh = mk_nv_condition_find(&n, "GPUHealthy");
    ck_assert_str_eq(gh->status, "False");
    ck_assert_ptr_null(gh->reason);

    ck_assert_uint_eq(n.ntaints, 2);
    ck_assert_str_eq(n.taints[0].key, "nvidia.com/gpu");
    ck_assert_str_eq(n.taints[0].value, "present");
    ck_assert_str_eq(n.taints[0].effect, "NoSchedule");
    ck_assert_ptr_null(n.taints[1].value);
    mk_nv_node_free(&n);
    json_decref(j);
}
END_TEST

START_TEST(node_minimal)
{
    json_t *j = load("{\"metadata\":{\"name\":\"bare\"}}");
    mk_nv_node n;
    char err[256];
    ck_assert_int_eq(mk_knode_from_json(j, &n, err, sizeof err), 0);
    ck_assert_str_eq(n.name, "bare");
    ck_assert_uint_eq(n.nres + n.nlabels + n.nannotations + n.nconditions + n.ntaints, 0);
    mk_nv_node_free(&n);
    json_decref(j);
}
END_TEST

START_TEST(node_without_name)
{
    json_t *j = load("{\"metadata\":{}}");
    mk_nv_node n;
    char err[256];
    ck_assert_int_eq(mk_knode_from_json(j, &n, err, sizeof err), -1);
    ck_assert_str_eq(err, "the API server sent a Node without metadata.name");
    json_decref(j);
}
END_TEST

/* Parse node_json with one substitution. */
static void variant(mk_nv_node *n, const char *from, const char *to)
{
    char buf[sizeof node_json + 64], err[256];
    const char *at = strstr(node_json, from);
    ck_assert_ptr_nonnull(at);
    snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - node_json), node_json, to, at + strlen(from));
    json_t *j = load(buf);
    ck_assert_int_eq(mk_knode_from_json(j, n, err, sizeof err), 0);
    json_decref(j);
}

START_TEST(equality_ignores_heartbeats_only)
{
    mk_nv_node a, b;
    variant(&a, "x", "x");
    variant(&b, "2024-05-01T10:00:00Z", "2024-05-01T10:00:10Z");
    ck_assert_int_eq(mk_knode_equal(&a, &b), 1);
    mk_nv_node_free(&b);

    static const char *const changes[][2] = {
        { "\"nvidia.com/gpu\":\"7\"", "\"nvidia.com/gpu\":\"6\"" },
        { "\"nvidia.com/gpu\":\"8\"", "\"nvidia.com/gpu\":\"9\"" },
        { "\"pool\":\"gpu\"", "\"pool\":\"cpu\"" },
        { "\"note\":\"x\"", "\"note\":\"y\"" },
        { "\"status\":\"False\"", "\"status\":\"True\"" },
        { "\"NoExecute\"", "\"PreferNoSchedule\"" },
        { "\"KubeletReady\"", "\"KubeletNotReady\"" },
    };
    for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
        variant(&b, changes[i][0], changes[i][1]);
        ck_assert_msg(!mk_knode_equal(&a, &b), "change %zu not noticed", i);
        mk_nv_node_free(&b);
    }
    mk_nv_node_free(&a);
}
END_TEST

/* Strings with NUL (annotations and messages are free text) are kept
 * whole, the NUL written out as JSON writes it. */
START_TEST(nul_written_out)
{
    json_t *j = json_loads("{\"metadata\":{\"name\":\"gpu-1\",\"annotations\":{\"note\":\"a\\u0000b\\u0000\"}},"
                           "\"status\":{\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
                           "\"message\":\"\\u0000x\"}]}}", JSON_ALLOW_NUL, NULL);
    mk_nv_node n;
    char err[256];
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(mk_knode_from_json(j, &n, err, sizeof err), 0);
    ck_assert_str_eq(mk_nv_annotation(&n, "note"), "a\\u0000b\\u0000");
    ck_assert_str_eq(n.conditions[0].message, "\\u0000x");
    mk_nv_node_free(&n);
    json_decref(j);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_node");
    TCase *tc = tcase_create("node");
    tcase_add_test(tc, node_fields);
    tcase_add_test(tc, nul_written_out);
    tcase_add_test(tc, node_minimal);
    tcase_add_test(tc, node_without_name);
    tcase_add_test(tc, equality_ignores_heartbeats_only);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
