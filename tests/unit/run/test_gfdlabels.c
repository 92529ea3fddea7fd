/* test_gfdlabels.c - gpu-feature-discovery's labels file joined to a node
 * view (src/run/gfdlabels.c): the key=value lines as labels, a later line
 * winning; the inner view's nodes and resources kept; the version changing
 * when the file changes, and a waiter woken by it. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "support/testutil.h"
#include "run/run.h"

/* An inner source with one node and a version the test sets. */
static mk_nv_nodes inner_view;
static int inner_snapshot(mk_nodesrc *s, mk_nv_nodes *out, char *err, size_t errlen)
{
    return mk_nv_nodes_copy(out, &inner_view);
}

static int inner_wait(mk_nodesrc *s, uint64_t seen, int timeout_ms, char *err, size_t errlen)
{
    if (seen != inner_view.version)
        return 1;
    usleep((useconds_t)timeout_ms * 1000);
    return 0;
}

static mk_nodesrc inner = { "built-in kubelet", inner_snapshot, inner_wait, NULL, NULL, NULL };

static void setup(void)
{
    memset(&inner_view, 0, sizeof inner_view);
    inner_view.version = 7;
    inner_view.n = 1;
    inner_view.node = calloc(1, sizeof *inner_view.node);
    inner_view.node[0].name = strdup("node-a");
}

static void teardown(void)
{
    mk_nv_nodes_free(&inner_view);
}

START_TEST(test_parse)
{
    mk_nv_node n;
    memset(&n, 0, sizeof n);
    ck_assert_int_eq(mk_gfd_parse_labels("# comment\n\nnvidia.com/gpu.count=8\r\n"
                                         "no-equals\n=novalue\nnvidia.com/gpu.product=A=B\n"
                                         "nvidia.com/gpu.count=4\nempty=", &n), 0);
    ck_assert_uint_eq(n.nlabels, 3);
    ck_assert_str_eq(mk_nv_label(&n, "nvidia.com/gpu.count"), "4");
    ck_assert_str_eq(mk_nv_label(&n, "nvidia.com/gpu.product"), "A=B");
    ck_assert_str_eq(mk_nv_label(&n, "empty"), "");
    mk_nv_node_free(&n);
}
END_TEST

START_TEST(test_view_and_versions)
{
    const char *dir = mk_test_tmpdir("gfdlabels");
    char path[512];
    snprintf(path, sizeof path, "%s/gfd", dir);
    mk_gfdlabels *l = mk_gfdlabels_new(&inner, path);
    mk_nodesrc *src = mk_gfdlabels_nodesrc(l);
    ck_assert_ptr_null(src->allocate);
    mk_nv_nodes ns;
    char err[256];

    /* No file yet: the inner view as it is. */
    ck_assert_int_eq(src->snapshot(src, &ns, err, sizeof err), 0);
    ck_assert_uint_eq(ns.node[0].nlabels, 0);
    ck_assert_uint_eq(mk_gfdlabels_count(l), 0);
    uint64_t v0 = ns.version;
    mk_nv_nodes_free(&ns);
    ck_assert_int_eq(src->wait_change(src, v0, 150, err, sizeof err), 0);

    /* The file appears: a waiter wakes, the labels are in the view. */
    mk_test_write(path, "nvidia.com/gpu.count=8\n");
    ck_assert_int_eq(src->wait_change(src, v0, 2000, err, sizeof err), 1);
    ck_assert_int_eq(src->snapshot(src, &ns, err, sizeof err), 0);
    ck_assert_str_eq(mk_nv_label(&ns.node[0], "nvidia.com/gpu.count"), "8");
    ck_assert_str_eq(ns.node[0].name, "node-a");
    ck_assert_uint_ne(ns.version, v0);
    uint64_t v1 = ns.version;
    mk_nv_nodes_free(&ns);
    ck_assert_uint_eq(mk_gfdlabels_count(l), 1);

    /* Rewritten with the same text: no change. The inner view changes:
     * a change. */
    mk_test_write(path, "nvidia.com/gpu.count=8\n");
    ck_assert_int_eq(src->wait_change(src, v1, 150, err, sizeof err), 0);
    inner_view.version++;
    ck_assert_int_eq(src->wait_change(src, v1, 150, err, sizeof err), 1);
    ck_assert_int_eq(src->snapshot(src, &ns, err, sizeof err), 0);
    uint64_t v2 = ns.version;
    ck_assert_uint_ne(v2, v1);
    mk_nv_nodes_free(&ns);

    /* Relabelled: another version, the new value. */
    mk_test_write(path, "nvidia.com/gpu.count=7\nnvidia.com/mig.capable=true\n");
    ck_assert_int_eq(src->wait_change(src, v2, 2000, err, sizeof err), 1);
    ck_assert_int_eq(src->snapshot(src, &ns, err, sizeof err), 0);
    ck_assert_str_eq(mk_nv_label(&ns.node[0], "nvidia.com/gpu.count"), "7");
    ck_assert_uint_ne(ns.version, v2);
    mk_nv_nodes_free(&ns);
    ck_assert_uint_eq(mk_gfdlabels_count(l), 2);

    mk_gfdlabels_free(l);
    mk_test_rmtree(dir);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gfdlabels");
    TCase *tc = tcase_create("gfdlabels");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_parse);
    tcase_add_test(tc, test_view_and_versions);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
