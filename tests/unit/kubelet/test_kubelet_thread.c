/* test_kubelet_thread.c - the built-in kubelet's threaded behaviour with a
 * device plugin written in the test: health updates waking wait_change, a
 * plugin's death, re-registration replacing the old connection (which stays
 * followed, as kubelet v1.20 never stops a replaced endpoint), stop()
 * while others wait or call, and that stop leaves no threads, sockets or
 * descriptors. Runs under TSan with --concurrency. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "deviceplugin/deviceplugin.h"
#include "kubelet/kubelet.h"
#include "support/dp_double.h"
#include "support/kl_events.h"
#include "support/testutil.h"

static const char *dir;
static mk_kubelet *k;
static mk_nodesrc *src;
static mk_kl_events *events;
static mk_dpd *plugin;
static int threads0, fds0, sockets0;

static void start_kubelet(void)
{
    k = mk_kl_events_start_kubelet(dir, &events);
    src = mk_kubelet_nodesrc(k);
}

static void setup(void)
{
    threads0 = mk_test_thread_baseline();
    fds0 = mk_test_nfds();
    sockets0 = mk_test_nsockets();
    dir = mk_test_tmpdir("kubelet-thread");
    start_kubelet();
}

static void teardown(void)
{
    mk_kubelet_stop(k);
    mk_dpd_stop(plugin);
    plugin = NULL;
    mk_kl_events_free(events);
    events = NULL;
    mk_test_rmtree(dir);
}

/* Allocatable and capacity of example.com/gpu, and the view's version. */
typedef struct counts { long long cap, alloc; uint64_t version; const char *endpoint; } counts;

static counts gpu(void)
{
    static char endpoint[256];
    mk_nv_nodes ns;
    char err[256];
    ck_assert_msg(src->snapshot(src, &ns, err, sizeof err) == 0, "%s", err);
    const mk_nv_resource *r = mk_nv_find_resource(&ns.node[0], "example.com/gpu");
    counts c = { -1, -1, ns.version, NULL };
    if (r) {
        c.cap = r->capacity;
        c.alloc = r->allocatable;
        snprintf(endpoint, sizeof endpoint, "%s", r->endpoint ? r->endpoint : "");
        c.endpoint = endpoint;
    }
    mk_nv_nodes_free(&ns);
    return c;
}

static int gpu_is(void *arg)
{
    const long long *want = arg;   /* {capacity, allocatable} */
    counts c = gpu();
    return c.cap == want[0] && c.alloc == want[1];
}

static void wait_gpu(long long cap, long long alloc)
{
    long long want[2] = { cap, alloc };
    int reached = mk_test_wait_for(gpu_is, want, MK_TEST_PATIENCE_MS);
    counts c = gpu();
    ck_assert_msg(reached, "example.com/gpu never reached %lld/%lld (now %lld/%lld); events:\n%s",
                  alloc, cap, c.alloc, c.cap, mk_kl_events_dump(events));
}

static mk_dpd *plugin_with(const char *endpoint, int ndev)
{
    mk_dpd_opts o = { .endpoint = endpoint };
    mk_dpd *p = mk_dpd_start(dir, &o);
    for (int i = 0; i < ndev; i++) {
        char id[32];
        snprintf(id, sizeof id, "%s-%d", endpoint, i);
        mk_dpd_add(p, id, 1, i % 2);
    }
    char err[512];
    ck_assert_msg(mk_dpd_register(p, NULL, NULL, err, sizeof err) == MK_RPC_OK, "%s", err);
    return p;
}

static void *flip_health_later(void *arg)
{
    mk_test_sleep_ms(50);
    mk_dpd_set_health(plugin, arg, 0);
    return NULL;
}

START_TEST(health_update_wakes_wait_change)
{
    plugin = plugin_with("p", 4);
    wait_gpu(4, 4);
    uint64_t v = gpu().version;
    pthread_t t;
    pthread_create(&t, NULL, flip_health_later, "p-2");
    char err[256];
    double t0 = mk_test_now_ms();
    ck_assert_int_eq(src->wait_change(src, v, 3 * MK_TEST_PATIENCE_MS, err, sizeof err), 1);
    double waited = mk_test_now_ms() - t0;
    pthread_join(t, NULL);
    /* Woken by the change, not by the timeout. */
    ck_assert_msg(waited < MK_TEST_PATIENCE_MS, "woke after %.0f ms", waited);
    counts c = gpu();
    ck_assert_int_eq(c.cap, 4);
    ck_assert_int_eq(c.alloc, 3);
    ck_assert_uint_gt(c.version, v);
    ck_assert(mk_kl_events_wait(events, "DEVICES example.com/gpu 3/4", MK_TEST_PATIENCE_MS));
    /* Nothing changes: wait_change times out on time. */
    t0 = mk_test_now_ms();
    ck_assert_int_eq(src->wait_change(src, c.version, 100, err, sizeof err), 0);
    ck_assert_msg(mk_test_now_ms() - t0 >= 95, "returned after %.0f ms", mk_test_now_ms() - t0);
}
END_TEST

START_TEST(plugin_death_makes_allocatable_zero)
{
    plugin = plugin_with("p", 2);
    wait_gpu(2, 2);
    uint64_t v = gpu().version;
    mk_dpd_stop(plugin);
    plugin = NULL;
    char err[256];
    ck_assert_int_eq(src->wait_change(src, v, MK_TEST_PATIENCE_MS, err, sizeof err), 1);
    wait_gpu(2, 0);
    ck_assert_msg(mk_kl_events_wait(events, "STREAM_ENDED example.com/gpu", MK_TEST_PATIENCE_MS), "%s",
                  mk_kl_events_dump(events));
    /* The devices are known but not allocatable. */
    char *ids[] = { "p-0" };
    mk_nv_alloc a;
    ck_assert_int_eq(src->allocate(src, "example.com/gpu", ids, 1, &a, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "is unhealthy"), "%s", err);

    /* The plugin restarts (same endpoint) and registers again. */
    plugin = plugin_with("p", 2);
    wait_gpu(2, 2);
    ck_assert_msg(src->allocate(src, "example.com/gpu", ids, 1, &a, err, sizeof err) == 0, "%s", err);
    mk_nv_alloc_free(&a);
    ck_assert_int_eq(mk_kl_events_count(events, "REGISTERED example.com/gpu p"), 2);
}
END_TEST

static int streams_are(void *arg)
{
    void **a = arg;
    return mk_dpd_streams(a[0]) == (size_t)(long)a[1];
}

START_TEST(second_registration_replaces_the_first)
{
    mk_dpd *old = plugin_with("old", 2);
    wait_gpu(2, 2);
    plugin = plugin_with("new", 3);
    wait_gpu(3, 3);
    ck_assert_str_eq(gpu().endpoint, "new");
    ck_assert_int_eq(mk_kl_events_count(events, "REPLACED example.com/gpu new old"), 1);
    /* As kubelet v1.20 (manager.go: registerEndpoint replaces the map entry,
     * never stops the old endpoint) the old stream stays open... */
    void *one[2] = { old, (void *)1L };
    ck_assert(mk_test_wait_for(streams_are, one, MK_TEST_PATIENCE_MS));
    /* ...and a list it sends replaces the resource's (v1.20's callback does
     * not ask which endpoint sent it), reported as such. */
    mk_dpd_set_health(old, "old-0", 0);
    ck_assert(mk_kl_events_wait(events, "STALE_LIST example.com/gpu 1/2", MK_TEST_PATIENCE_MS));
    wait_gpu(2, 1);
    /* The new plugin's next list takes it back; the old one's death
     * changes nothing and reports nothing. */
    mk_dpd_set_health(plugin, "new-0", 1);
    wait_gpu(3, 3);
    uint64_t v = gpu().version;
    mk_dpd_stop(old);
    char err[256];
    ck_assert_int_eq(src->wait_change(src, v, 200, err, sizeof err), 0);
    ck_assert_int_eq(mk_kl_events_count(events, "STREAM_ENDED"), 0);
    char *ids[] = { "new-2" };
    mk_nv_alloc a;
    ck_assert_msg(src->allocate(src, "example.com/gpu", ids, 1, &a, err, sizeof err) == 0, "%s", err);
    mk_nv_alloc_free(&a);
    ck_assert_int_eq(mk_dpd_calls(plugin, "Allocate"), 1);
}
END_TEST

/* A waiter's thread id, published just before it calls wait_change. */
static int waiter_tid;

static void *wait_forever(void *arg)
{
    char err[256];
    __atomic_store_n(&waiter_tid, (int)gettid(), __ATOMIC_RELEASE);
    return (void *)(long)src->wait_change(src, *(uint64_t *)arg, 30000, err, sizeof err);
}

/* Published and asleep: nothing between the two can sleep, so the waiter
 * is blocked inside wait_change. */
static int waiter_blocked(void *arg)
{
    int tid = __atomic_load_n(&waiter_tid, __ATOMIC_ACQUIRE);
    return tid && mk_test_thread_state(tid) == 'S';
}

START_TEST(stop_wakes_waiters)
{
    uint64_t v = gpu().version;
    pthread_t t;
    pthread_create(&t, NULL, wait_forever, &v);
    ck_assert(mk_test_wait_for(waiter_blocked, NULL, MK_TEST_PATIENCE_MS));
    double t0 = mk_test_now_ms();
    /* The waiter is woken and stop waits for it to leave before freeing
     * anything (ASan and TSan watch that). */
    mk_kubelet_stop(k);
    k = NULL;
    void *rv;
    pthread_join(t, &rv);
    /* Not after the waiter's 30 s. */
    ck_assert_msg(mk_test_now_ms() - t0 < MK_TEST_PATIENCE_MS, "stop took %.0f ms",
                  mk_test_now_ms() - t0);
    ck_assert_int_eq((int)(long)rv, -1);
}
END_TEST

/* Snapshots and allocations from other threads while the plugin
 * re-registers over and over. */
static volatile int churning;

static void *use_view(void *arg)
{
    int ok = 0;
    char err[512];
    while (__atomic_load_n(&churning, __ATOMIC_ACQUIRE)) {
        mk_nv_nodes ns;
        if (src->snapshot(src, &ns, err, sizeof err) == 0)
            mk_nv_nodes_free(&ns);
        char *ids[] = { "p-0" };
        mk_nv_alloc a;
        if (src->allocate(src, "example.com/gpu", ids, 1, &a, err, sizeof err) == 0) {
            mk_nv_alloc_free(&a);
            ok++;
        }
    }
    return (void *)(long)ok;
}

START_TEST(concurrent_use_while_plugin_reregisters)
{
    plugin = plugin_with("p", 2);
    wait_gpu(2, 2);
    __atomic_store_n(&churning, 1, __ATOMIC_RELEASE);
    pthread_t t[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&t[i], NULL, use_view, NULL);
    char err[512];
    for (int i = 0; i < 20; i++)
        ck_assert_msg(mk_dpd_register(plugin, NULL, NULL, err, sizeof err) == MK_RPC_OK, "%s", err);
    mk_test_sleep_ms(50);
    __atomic_store_n(&churning, 0, __ATOMIC_RELEASE);
    long ok = 0;
    for (int i = 0; i < 3; i++) {
        void *rv;
        pthread_join(t[i], &rv);
        ok += (long)rv;
    }
    ck_assert_int_gt(ok, 0);
    ck_assert_int_eq(mk_kl_events_count(events, "REGISTERED"), 21);
    /* Every registration's stream stays open on the plugin: kubelet v1.20
     * never stops a replaced endpoint (a real plugin restarts its server,
     * which ends them). */
    void *one[2] = { plugin, (void *)21L };
    ck_assert(mk_test_wait_for(streams_are, one, MK_TEST_PATIENCE_MS));
    wait_gpu(2, 2);
}
END_TEST

START_TEST(stop_leaves_nothing_behind)
{
    plugin = plugin_with("p", 2);
    wait_gpu(2, 2);
    char *ids[] = { "p-1" }, err[256];
    mk_nv_alloc a;
    ck_assert_msg(src->allocate(src, "example.com/gpu", ids, 1, &a, err, sizeof err) == 0, "%s", err);
    mk_nv_alloc_free(&a);
    const char *sock = mk_test_path(dir, "kubelet.sock");
    mk_kubelet_stop(k);
    k = NULL;
    struct stat st;
    ck_assert_int_ne(stat(sock, &st), 0);
    /* The plugin saw its stream end. */
    void *none[2] = { plugin, (void *)0L };
    ck_assert(mk_test_wait_for(streams_are, none, MK_TEST_PATIENCE_MS));
    mk_dpd_stop(plugin);
    plugin = NULL;
    ck_assert_int_ne(stat(mk_test_path(dir, "p"), &st), 0);
    ck_assert_int_eq(mk_test_wait_nthreads(threads0, MK_TEST_PATIENCE_MS), threads0);
    ck_assert_int_eq(mk_test_wait_nsockets(sockets0, MK_TEST_PATIENCE_MS), sockets0);
    /* gRPC keeps two process-wide descriptors once initialised (and a
     * sanitizer's runtime may keep two of its own); what matters is that
     * nothing grows from here, checked below. */
    int kept = getenv("MOKKA_SAN") ? 4 : 2;
    ck_assert_int_le(mk_test_wait_nfds(fds0 + kept, MK_TEST_PATIENCE_MS), fds0 + kept);

    /* And again from there: nothing grows. */
    int fds1 = mk_test_nfds();
    start_kubelet();
    plugin = plugin_with("p", 1);
    wait_gpu(1, 1);
    mk_kubelet_stop(k);
    k = NULL;
    mk_dpd_stop(plugin);
    plugin = NULL;
    ck_assert_int_eq(mk_test_wait_nthreads(threads0, MK_TEST_PATIENCE_MS), threads0);
    ck_assert_int_le(mk_test_wait_nfds(fds1, MK_TEST_PATIENCE_MS), fds1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kubelet_thread");
    TCase *tc = mk_test_case(s, "kubelet_thread", setup, teardown, 60);
    tcase_add_test(tc, health_update_wakes_wait_change);
    tcase_add_test(tc, plugin_death_makes_allocatable_zero);
    tcase_add_test(tc, second_registration_replaces_the_first);
    tcase_add_test(tc, stop_wakes_waiters);
    tcase_add_test(tc, concurrent_use_while_plugin_reregisters);
    tcase_add_test(tc, stop_leaves_nothing_behind);
    return mk_test_run(s);
}
