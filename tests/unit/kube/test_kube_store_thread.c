/* test_kube_store_thread.c - the shared node view (kube_store.c): versions,
 * order, heartbeats that change nothing, failure, and readers copying while
 * the writers (of nodes, and of pods) change it (a thread test: it runs
 * under TSan too). */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube/kube_store.h"
#include "support/testutil.h"

/* A node with one resource, nvidia.com/gpu allocatable = alloc. */
static mk_nv_node node(const char *name, long long alloc)
{
    mk_nv_node n = { 0 };
    n.name = strdup(name);
    n.nres = 1;
    n.res = calloc(1, sizeof *n.res);
    n.res[0].name = strdup("nvidia.com/gpu");
    n.res[0].capacity = 8;
    n.res[0].allocatable = alloc;
    return n;
}

static mk_nv_nodes snap(mk_kstore *s)
{
    mk_nv_nodes out;
    char err[128];
    ck_assert_int_eq(mk_kstore_snapshot(s, &out, err, sizeof err), 0);
    return out;
}

static mk_nv_nodes list_of(const char *const *names, size_t n)
{
    mk_nv_nodes l = { .n = n, .node = calloc(n, sizeof(mk_nv_node)) };
    for (size_t i = 0; i < n; i++)
        l.node[i] = node(names[i], 8);
    return l;
}

START_TEST(versions_and_order)
{
    mk_kstore *s = mk_kstore_new();
    char err[128];
    mk_nv_nodes v = snap(s);
    ck_assert_int_eq(v.version, 0);
    ck_assert_uint_eq(v.n, 0);
    mk_nv_nodes_free(&v);
    ck_assert_int_eq(mk_kstore_wait(s, 0, 10, err, sizeof err), 0);     /* nothing yet */

    static const char *const names[] = { "c", "a", "b" };
    mk_nv_nodes l = list_of(names, 3);
    ck_assert_int_eq(mk_kstore_replace(s, &l), 0);
    ck_assert_int_eq(mk_kstore_wait(s, 0, 10, err, sizeof err), 1);
    v = snap(s);
    ck_assert_int_eq(v.version, 1);
    ck_assert_str_eq(v.node[0].name, "a");                                /* sorted */
    ck_assert_str_eq(v.node[2].name, "c");
    mk_nv_nodes_free(&v);

    l = list_of(names, 3);                                                /* the same again */
    ck_assert_int_eq(mk_kstore_replace(s, &l), 0);
    mk_nv_node same = node("b", 8), changed = node("b", 7), added = node("bb", 1);
    ck_assert_int_eq(mk_kstore_put(s, &same), 0);
    v = snap(s);
    ck_assert_int_eq(v.version, 1);                                       /* heartbeats: no change */
    mk_nv_nodes_free(&v);

    ck_assert_int_eq(mk_kstore_put(s, &changed), 0);
    ck_assert_int_eq(mk_kstore_put(s, &added), 0);
    ck_assert_int_eq(mk_kstore_delete(s, "a"), 0);
    ck_assert_int_eq(mk_kstore_delete(s, "nobody"), 0);
    v = snap(s);
    ck_assert_int_eq(v.version, 4);
    ck_assert_uint_eq(v.n, 3);
    ck_assert_str_eq(v.node[0].name, "b");
    ck_assert_int_eq(v.node[0].res[0].allocatable, 7);
    ck_assert_str_eq(v.node[1].name, "bb");
    ck_assert_str_eq(v.node[2].name, "c");
    mk_nv_nodes_free(&v);
    mk_kstore_free(s);
}
END_TEST

START_TEST(snapshots_are_copies)
{
    mk_kstore *s = mk_kstore_new();
    static const char *const names[] = { "a" };
    mk_nv_nodes l = list_of(names, 1);
    mk_kstore_replace(s, &l);
    mk_nv_nodes before = snap(s);
    mk_nv_node n = node("a", 3);
    mk_kstore_put(s, &n);
    mk_kstore_delete(s, "a");
    ck_assert_int_eq(before.node[0].res[0].allocatable, 8);
    mk_nv_nodes after = snap(s);
    ck_assert_uint_eq(after.n, 0);
    mk_nv_nodes_free(&before);
    mk_nv_nodes_free(&after);
    mk_kstore_free(s);
}
END_TEST

START_TEST(failure_keeps_the_last_view)
{
    mk_kstore *s = mk_kstore_new();
    char err[128];
    static const char *const names[] = { "a" };
    mk_nv_nodes l = list_of(names, 1);
    mk_kstore_replace(s, &l);
    mk_kstore_fail(s, "GET x: 403 Forbidden");
    ck_assert_int_eq(mk_kstore_wait(s, 1, 1000, err, sizeof err), -1);
    ck_assert_str_eq(err, "GET x: 403 Forbidden");
    ck_assert_int_eq(mk_kstore_wait(s, 0, 1000, err, sizeof err), 1);     /* a change first */
    mk_nv_nodes v = snap(s);
    ck_assert_uint_eq(v.n, 1);
    mk_nv_nodes_free(&v);
    mk_kstore_free(s);
}
END_TEST

/* --- threads --------------------------------------------------------------------------- */

#define NODES 40
#define ROUNDS 60

static void *writer(void *arg)
{
    mk_kstore *s = arg;
    char name[16];
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < NODES; i++) {
            snprintf(name, sizeof name, "n%02d", i);
            mk_nv_node n = node(name, r % 8);
            ck_assert_int_eq(mk_kstore_put(s, &n), 0);
        }
        snprintf(name, sizeof name, "n%02d", r % NODES);
        ck_assert_int_eq(mk_kstore_delete(s, name), 0);
    }
    mk_kstore_fail(s, "done");
    return NULL;
}

static void *reader(void *arg)
{
    mk_kstore *s = arg;
    uint64_t seen = 0;
    char err[128];
    for (;;) {
        mk_nv_nodes v = snap(s);
        ck_assert_uint_ge(v.version, seen);
        for (size_t i = 1; i < v.n; i++)
            ck_assert_int_lt(strcmp(v.node[i - 1].name, v.node[i].name), 0);
        for (size_t i = 0; i < v.n; i++)
            ck_assert_int_lt(v.node[i].res[0].allocatable, 8);
        seen = v.version;
        mk_nv_nodes_free(&v);
        if (mk_kstore_wait(s, seen, 5000, err, sizeof err) < 0)
            return NULL;
    }
}

START_TEST(readers_copy_while_the_writer_changes)
{
    mk_kstore *s = mk_kstore_new();
    pthread_t w, r[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&r[i], NULL, reader, s);
    pthread_create(&w, NULL, writer, s);
    pthread_join(w, NULL);
    for (int i = 0; i < 4; i++)
        pthread_join(r[i], NULL);
    mk_nv_nodes v = snap(s);
    ck_assert_uint_eq(v.n, NODES - 1);      /* each round deletes one, the next brings it back */
    ck_assert_int_eq(v.node[0].res[0].allocatable, (ROUNDS - 1) % 8);
    mk_nv_nodes_free(&v);
    mk_kstore_free(s);
}
END_TEST

#define PODS 300

static void *pod_writer(void *arg)
{
    mk_kstore *s = arg;
    char name[16];
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < PODS; i++) {
            snprintf(name, sizeof name, "p%03d", i);
            mk_nv_pod p = {.ns = strdup("ns"), .name = strdup(name), .node = strdup("n01"),
                           .phase = (mk_nv_phase)(r % 4)};
            ck_assert_int_eq(mk_kstore_pod_put(s, &p), 0);
        }
        ck_assert_int_eq(mk_kstore_pod_delete(s, "ns", "p000"), 0);
    }
    return NULL;
}

/* Two writers (the nodes' watch, the pods') lose none of each other's
 * changes; readers see both sorted. */
START_TEST(node_and_pod_writers_together)
{
    mk_kstore *s = mk_kstore_new();
    pthread_t w, pw, r[2];
    ck_assert_int_eq(mk_kstore_pod_replace(s, NULL, 0), 0);   /* the pods' first LIST: none */
    for (int i = 0; i < 2; i++)
        pthread_create(&r[i], NULL, reader, s);
    pthread_create(&pw, NULL, pod_writer, s);
    pthread_create(&w, NULL, writer, s);
    pthread_join(w, NULL);
    pthread_join(pw, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(r[i], NULL);
    mk_nv_nodes v = snap(s);
    ck_assert_uint_eq(v.n, NODES - 1);
    ck_assert_uint_eq(v.npods, PODS - 1);
    ck_assert_int_eq(v.has_pods, 1);
    for (size_t i = 1; i < v.npods; i++)
        ck_assert_int_lt(strcmp(v.pod[i - 1].name, v.pod[i].name), 0);
    ck_assert_int_eq(v.pod[0].phase, MK_NV_POD_FAILED);
    mk_nv_nodes_free(&v);
    mk_kstore_free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_store");
    TCase *tc = tcase_create("view");
    tcase_add_test(tc, versions_and_order);
    tcase_add_test(tc, snapshots_are_copies);
    tcase_add_test(tc, failure_keeps_the_last_view);
    suite_add_tcase(s, tc);
    TCase *th = tcase_create("threads");
    tcase_set_timeout(th, 60);
    tcase_add_test(th, readers_copy_while_the_writer_changes);
    tcase_add_test(th, node_and_pod_writers_together);
    suite_add_tcase(s, th);
    return mk_test_run(s);
}
