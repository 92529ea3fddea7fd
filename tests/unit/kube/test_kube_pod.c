/* test_kube_pod.c - Pod objects as a view's pods (kube_pod.c): requests
 * added up as the scheduler does, the phase, what is kept of a pod not yet
 * scheduled; the pods' list path; and pods in the store (kube_store.c):
 * sorted, equal updates keeping the version, deletes, a LIST replacing. */
#include <check.h>
#include <string.h>
#include "kube/kube_pod.h"
#include "kube/kube_store.h"
#include "support/testutil.h"

static json_t *load(const char *s)
{
    json_t *j = json_loads(s, 0, NULL);
    ck_assert_ptr_nonnull(j);
    return j;
}

static mk_nv_pod parse(const char *s)
{
    json_t *j = load(s);
    mk_nv_pod p;
    char err[256];
    ck_assert_int_eq(mk_kpod_from_json(j, &p, err, sizeof err), 0);
    json_decref(j);
    return p;
}

/* Containers add up; the largest init container wins where it is larger;
 * a limit stands for a missing request; the overhead adds on top. */
START_TEST(requests_as_the_scheduler_counts)
{
    mk_nv_pod p = parse(
        "{\"metadata\":{\"name\":\"train\",\"namespace\":\"team-a\",\"labels\":{\"app\":\"x\"}},"
        " \"spec\":{\"nodeName\":\"gpu-1\","
        "   \"containers\":[{\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"2\"}}},"
        "                   {\"resources\":{\"requests\":{\"nvidia.com/gpu\":\"1\",\"cpu\":\"500m\"},"
        "                                   \"limits\":{\"nvidia.com/gpu\":\"1\",\"cpu\":\"2\"}}}],"
        "   \"initContainers\":[{\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"4\"}}},"
        "                       {\"resources\":{\"limits\":{\"nvidia.com/mig-1g.5gb\":\"1\"}}}],"
        "   \"overhead\":{\"cpu\":\"1\"}},"
        " \"status\":{\"phase\":\"Running\"}}");
    ck_assert_str_eq(p.ns, "team-a");
    ck_assert_str_eq(p.name, "train");
    ck_assert_str_eq(p.node, "gpu-1");
    ck_assert_int_eq(p.phase, MK_NV_POD_RUNNING);
    ck_assert_int_eq(mk_nv_pod_request(&p, "nvidia.com/gpu"), 4);        /* init 4 > 2 + 1 */
    ck_assert_int_eq(mk_nv_pod_request(&p, "nvidia.com/mig-1g.5gb"), 1);
    ck_assert_int_eq(mk_nv_pod_request(&p, "cpu"), 2);                   /* 500m -> 1, + 1 */
    ck_assert_int_eq(mk_nv_pod_request(&p, "memory"), 0);
    ck_assert_uint_eq(p.nlabels, 0);                                     /* bound: not kept */
    mk_nv_pod_free(&p);
}
END_TEST

START_TEST(unscheduled_keeps_labels_and_why)
{
    mk_nv_pod p = parse(
        "{\"metadata\":{\"name\":\"waits\",\"namespace\":\"b\",\"labels\":{\"app\":\"huge\"}},"
        " \"spec\":{\"containers\":[{}]},"
        " \"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":\"PodScheduled\","
        "   \"status\":\"False\",\"reason\":\"Unschedulable\",\"message\":\"0/3 nodes are available\"}]}}");
    ck_assert_ptr_null(p.node);
    ck_assert_int_eq(p.phase, MK_NV_POD_PENDING);
    ck_assert_uint_eq(p.nlabels, 1);
    ck_assert_str_eq(p.labels[0].key, "app");
    ck_assert_str_eq(p.unschedulable, "0/3 nodes are available");
    ck_assert_uint_eq(p.nreq, 0);
    mk_nv_pod_free(&p);

    p = parse("{\"metadata\":{\"name\":\"odd\"},\"status\":{\"phase\":\"Evicted\"}}");
    ck_assert_str_eq(p.ns, "");
    ck_assert_int_eq(p.phase, MK_NV_POD_UNKNOWN);
    ck_assert_str_eq(mk_nv_phase_name(p.phase), "Unknown");
    mk_nv_pod_free(&p);

    json_t *j = load("{\"metadata\":{}}");
    char err[256];
    ck_assert_int_eq(mk_kpod_from_json(j, &p, err, sizeof err), -1);
    ck_assert_str_eq(err, "the object has no metadata.name");
    json_decref(j);
}
END_TEST

START_TEST(pods_path)
{
    char *p = mk_kpods_path(NULL);
    ck_assert_str_eq(p, "/api/v1/pods");
    free(p);
    p = mk_kpods_path("gpu-1");
    ck_assert_str_eq(p, "/api/v1/pods?fieldSelector=spec.nodeName%3Dgpu-1");
    free(p);
}
END_TEST

static mk_nv_pod pod(const char *ns, const char *name, const char *node, mk_nv_phase ph)
{
    mk_nv_pod p = {0};
    p.ns = strdup(ns);
    p.name = strdup(name);
    p.node = node ? strdup(node) : NULL;
    p.phase = ph;
    return p;
}

static mk_nv_nodes snap(mk_kstore *s)
{
    mk_nv_nodes v;
    char err[64];
    ck_assert_int_eq(mk_kstore_snapshot(s, &v, err, sizeof err), 0);
    return v;
}

START_TEST(store_keeps_pods)
{
    mk_kstore *s = mk_kstore_new();
    mk_nv_nodes v = snap(s);
    ck_assert_int_eq(v.has_pods, 0);
    mk_nv_nodes_free(&v);

    mk_nv_pod list[3] = {pod("b", "p2", "n1", MK_NV_POD_RUNNING),
                         pod("a", "p9", NULL, MK_NV_POD_PENDING),
                         pod("b", "p1", "n2", MK_NV_POD_FAILED)};
    ck_assert_int_eq(mk_kstore_pod_replace(s, list, 3), 0);
    v = snap(s);
    uint64_t version = v.version;
    ck_assert_int_eq(v.has_pods, 1);
    ck_assert_uint_eq(v.npods, 3);
    ck_assert_str_eq(v.pod[0].name, "p9");   /* by namespace, then name */
    ck_assert_str_eq(v.pod[1].name, "p1");
    ck_assert_str_eq(v.pod[2].name, "p2");
    mk_nv_nodes_free(&v);

    mk_nv_pod same = pod("b", "p2", "n1", MK_NV_POD_RUNNING);
    ck_assert_int_eq(mk_kstore_pod_put(s, &same), 0);
    char err[64];
    ck_assert_int_eq(mk_kstore_wait(s, version, 0, err, sizeof err), 0);   /* nothing changed */

    mk_nv_pod done = pod("b", "p2", "n1", MK_NV_POD_SUCCEEDED);
    ck_assert_int_eq(mk_kstore_pod_put(s, &done), 0);
    ck_assert_int_eq(mk_kstore_wait(s, version, 0, err, sizeof err), 1);
    ck_assert_int_eq(mk_kstore_pod_delete(s, "a", "p9"), 0);
    ck_assert_int_eq(mk_kstore_pod_delete(s, "a", "gone"), 0);
    mk_nv_pod added = pod("c", "p0", "n1", MK_NV_POD_PENDING);
    ck_assert_int_eq(mk_kstore_pod_put(s, &added), 0);
    v = snap(s);
    ck_assert_uint_eq(v.npods, 3);
    ck_assert_str_eq(v.pod[0].name, "p1");
    ck_assert_int_eq(v.pod[1].phase, MK_NV_POD_SUCCEEDED);
    ck_assert_str_eq(v.pod[2].ns, "c");
    mk_nv_nodes_free(&v);
    mk_kstore_free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_pod");
    TCase *tc = tcase_create("pod");
    tcase_add_test(tc, requests_as_the_scheduler_counts);
    tcase_add_test(tc, unscheduled_keeps_labels_and_why);
    tcase_add_test(tc, pods_path);
    tcase_add_test(tc, store_keeps_pods);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
