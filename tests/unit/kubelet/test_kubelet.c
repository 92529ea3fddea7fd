/* test_kubelet.c - the built-in kubelet against a device plugin written in
 * the test (support/dp_double.c): what Register accepts and refuses, the
 * devices it learns, Allocate / PreStartContainer / GetPreferredAllocation
 * round trips, and how it treats an existing kubelet.sock. The threaded
 * behaviour (updates, plugin death, re-registration, stop) is in
 * test_kubelet_thread.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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

static void setup(void)
{
    dir = mk_test_tmpdir("kubelet");
    k = mk_kl_events_start_kubelet(dir, &events);
    src = mk_kubelet_nodesrc(k);
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

/* The one node's resource `name` in a fresh snapshot (NULL if none). */
static mk_nv_nodes snap;
static const mk_nv_resource *resource(const char *name)
{
    char err[256];
    mk_nv_nodes_free(&snap);
    ck_assert_msg(src->snapshot(src, &snap, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(snap.n, 1);
    return mk_nv_find_resource(&snap.node[0], name);
}

static int has_devices(void *arg)
{
    const mk_nv_resource *r = resource("example.com/gpu");
    return r && r->ndev == (size_t)(long)arg;
}

/* A plugin with a0 (healthy, NUMA 0), a1 (healthy, NUMA 1), a2 (unhealthy,
 * no topology), registered and listed. */
static void plugin_up(int preferred, int pre_start)
{
    mk_dpd_opts o = { .preferred = preferred, .pre_start = pre_start };
    plugin = mk_dpd_start(dir, &o);
    mk_dpd_add(plugin, "a0", 1, 0);
    mk_dpd_add(plugin, "a1", 1, 1);
    mk_dpd_add(plugin, "a2", 0, -1);
    char err[512];
    ck_assert_msg(mk_dpd_register(plugin, NULL, NULL, err, sizeof err) == MK_RPC_OK, "%s", err);
    ck_assert(mk_test_wait_for(has_devices, (void *)3L, MK_TEST_PATIENCE_MS));
}

START_TEST(resource_names)
{
    static const char *const good[] = {
        "nvidia.com/gpu", "nvidia.com/mig-1g.5gb", "example.com/Gpu_1", "a.b-c.d/x",
    };
    static const struct { const char *name, *why; } bad[] = {
        { "gpu", "domain/name" },
        { "kubernetes.io/gpu", "reserved" },
        { "foo.kubernetes.io/gpu", "reserved" },
        { "requests.example.com/gpu", "requests." },
        { "example.com/a/b", "exactly one '/'" },
        { "Example.com/gpu", "DNS-1123" },
        { "-x.com/gpu", "DNS-1123" },
        { "x..com/gpu", "DNS-1123" },
        { "/gpu", "DNS-1123" },
        { "example.com/", "must be 1-63" },
        { "example.com/-gpu", "must be 1-63" },
        { "example.com/gp u", "must be 1-63" },
        { "example.com/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "must be 1-63" },
    };
    char why[256];
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(mk_extended_resource_name_check(good[i], why, sizeof why) == 0,
                      "%s: %s", good[i], why);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_msg(mk_extended_resource_name_check(bad[i].name, why, sizeof why) == -1,
                      "%s accepted", bad[i].name);
        ck_assert_msg(strstr(why, bad[i].why), "%s: %s", bad[i].name, why);
    }
}
END_TEST

START_TEST(register_rejects_bad_version)
{
    plugin = mk_dpd_start(dir, NULL);
    char err[512];
    ck_assert_int_eq(mk_dpd_register(plugin, "v1alpha1", NULL, err, sizeof err),
                     MK_RPC_INVALID_ARGUMENT);
    ck_assert_str_eq(err, "INVALID_ARGUMENT: requested API version \"v1alpha1\" is not supported "
                     "by kubelet. Supported versions are [\"v1beta1\"]");
    ck_assert_ptr_null(resource("example.com/gpu"));
    ck_assert_int_eq(mk_kl_events_count(events, "REJECTED example.com/gpu requested API version"), 1);
    /* It never dialled the plugin back. */
    ck_assert_int_eq(mk_dpd_calls(plugin, "GetDevicePluginOptions"), 0);
}
END_TEST

START_TEST(register_rejects_bad_resource_name)
{
    plugin = mk_dpd_start(dir, NULL);
    char err[512];
    ck_assert_int_eq(mk_dpd_register(plugin, NULL, "kubernetes.io/gpu", err, sizeof err),
                     MK_RPC_INVALID_ARGUMENT);
    ck_assert_str_eq(err, "INVALID_ARGUMENT: the ResourceName \"kubernetes.io/gpu\" is invalid: "
                     "the kubernetes.io domain is reserved for native resources");
    ck_assert_int_eq(mk_dpd_register(plugin, NULL, "gpu", err, sizeof err), MK_RPC_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "the ResourceName \"gpu\" is invalid: it must be domain/name"), "%s", err);
    ck_assert_int_eq(mk_dpd_register_any(dir, MK_DP_VERSION, "example.com/gpu", "", err, sizeof err),
                     MK_RPC_INVALID_ARGUMENT);
    ck_assert_msg(strstr(err, "sent no endpoint"), "%s", err);
    ck_assert_int_eq(mk_kl_events_count(events, "REJECTED"), 3);
    ck_assert_ptr_null(resource("gpu"));
    ck_assert_uint_eq(snap.node[0].nres, 0);
}
END_TEST

START_TEST(register_rejects_unreachable_endpoint)
{
    char err[512], want[1024];
    double t0 = mk_test_now_ms();
    ck_assert_int_eq(mk_dpd_register_any(dir, MK_DP_VERSION, "example.com/gpu", "nobody.sock",
                                    err, sizeof err), MK_RPC_UNAVAILABLE);
    snprintf(want, sizeof want, "UNAVAILABLE: cannot reach the device plugin for example.com/gpu: "
             "cannot connect to %s/nobody.sock: No such file or directory", dir);
    ck_assert_str_eq(err, want);
    /* Refused at once, not after the 10 s dial timeout. */
    ck_assert_msg(mk_test_now_ms() - t0 < 5000, "took %.0f ms", mk_test_now_ms() - t0);
    ck_assert_ptr_null(resource("example.com/gpu"));
    ck_assert_int_eq(mk_kl_events_count(events, "REJECTED example.com/gpu cannot reach"), 1);
}
END_TEST

START_TEST(devices_appear_with_health_and_numa)
{
    plugin_up(1, 0);
    const mk_nv_resource *r = resource("example.com/gpu");
    ck_assert_str_eq(snap.node[0].name, "mokka-node");
    ck_assert_int_eq(r->capacity, 3);
    ck_assert_int_eq(r->allocatable, 2);
    ck_assert_str_eq(r->endpoint, "double.sock");
    ck_assert_int_eq(r->get_preferred_allocation, 1);
    ck_assert_int_eq(r->pre_start_required, 0);
    ck_assert_str_eq(r->dev[0].id, "a0");
    ck_assert_int_eq(r->dev[0].healthy, 1);
    ck_assert_int_eq(r->dev[0].numa, 0);
    ck_assert_int_eq(r->dev[1].numa, 1);
    ck_assert_str_eq(r->dev[2].id, "a2");
    ck_assert_int_eq(r->dev[2].healthy, 0);
    ck_assert_int_eq(r->dev[2].numa, -1);
    ck_assert_msg(mk_kl_events_count(events, "REGISTERED example.com/gpu double.sock") == 1,
                  "%s", mk_kl_events_dump(events));
    ck_assert(mk_kl_events_wait(events, "DEVICES example.com/gpu 2/3", MK_TEST_PATIENCE_MS));
    ck_assert_int_eq(mk_dpd_calls(plugin, "GetDevicePluginOptions"), 1);
    ck_assert_int_eq(mk_dpd_calls(plugin, "ListAndWatch"), 1);
    mk_nv_nodes_free(&snap);
}
END_TEST

START_TEST(snapshots_are_sorted_copies)
{
    plugin_up(0, 0);
    mk_dpd_opts o = { .resource = "example.com/fpga", .endpoint = "fpga.sock" };
    mk_dpd *fpga = mk_dpd_start(dir, &o);
    char err[512];
    ck_assert_int_eq(mk_dpd_register(fpga, NULL, NULL, err, sizeof err), MK_RPC_OK);
    ck_assert_ptr_nonnull(resource("example.com/fpga"));
    ck_assert_str_eq(snap.node[0].res[0].name, "example.com/fpga");
    ck_assert_str_eq(snap.node[0].res[1].name, "example.com/gpu");
    ck_assert_uint_eq(snap.node[0].res[0].ndev, 0);
    /* A snapshot is the caller's: later changes do not touch it. */
    mk_nv_nodes held;
    ck_assert_int_eq(src->snapshot(src, &held, err, sizeof err), 0);
    mk_dpd_add(fpga, "f0", 1, -1);
    ck_assert_int_eq(src->wait_change(src, held.version, MK_TEST_PATIENCE_MS, err, sizeof err), 1);
    ck_assert_uint_eq(mk_nv_find_resource(&held.node[0], "example.com/fpga")->ndev, 0);
    mk_nv_nodes_free(&held);
    mk_nv_nodes_free(&snap);
    mk_dpd_stop(fpga);
}
END_TEST

static const char *kv(const mk_nv_kv *v, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].key, key) == 0)
            return v[i].value;
    return NULL;
}

START_TEST(allocate_round_trip_with_prestart)
{
    plugin_up(0, 1);
    char *ids[] = { "a1", "a0" }, err[512];
    mk_nv_alloc a;
    ck_assert_msg(src->allocate(src, "example.com/gpu", ids, 2, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(a.nids, 2);
    ck_assert_str_eq(a.ids[0], "a1");
    ck_assert_str_eq(kv(a.envs, a.nenvs, "DOUBLE_DEVICES"), "a1,a0");
    ck_assert_str_eq(kv(a.mounts, a.nmounts, "/usr/lib/double"), "/opt/double/lib");
    ck_assert_uint_eq(a.ndevices, 2);
    ck_assert_str_eq(kv(a.devices, a.ndevices, "/dev/double1"), "/dev/double1");
    ck_assert_str_eq(kv(a.annotations, a.nannotations, "double/allocated"), "yes");
    ck_assert_uint_eq(a.ncdi, 2);
    ck_assert_str_eq(a.cdi[0], "example.com/gpu=a1");
    mk_nv_alloc_free(&a);
    ck_assert_int_eq(mk_dpd_calls(plugin, "Allocate"), 1);
    ck_assert_int_eq(mk_dpd_calls(plugin, "PreStartContainer"), 1);
}
END_TEST

START_TEST(allocate_refuses_what_the_kubelet_would)
{
    plugin_up(0, 0);
    char *unknown[] = { "a0", "zz" }, *sick[] = { "a2" }, err[512];
    mk_nv_alloc a;
    ck_assert_int_eq(src->allocate(src, "example.com/gpu", unknown, 2, &a, err, sizeof err), -1);
    ck_assert_str_eq(err, "example.com/gpu has no device zz");
    ck_assert_int_eq(src->allocate(src, "example.com/gpu", sick, 1, &a, err, sizeof err), -1);
    ck_assert_str_eq(err, "device a2 of example.com/gpu is unhealthy; the kubelet would not allocate it");
    ck_assert_int_eq(src->allocate(src, "example.com/tpu", sick, 1, &a, err, sizeof err), -1);
    ck_assert_str_eq(err, "no device plugin has registered example.com/tpu");
    ck_assert_int_eq(mk_dpd_calls(plugin, "Allocate"), 0);
    /* Without pre_start_required there is no PreStartContainer. */
    ck_assert_int_eq(src->allocate(src, "example.com/gpu", unknown, 1, &a, err, sizeof err), 0);
    mk_nv_alloc_free(&a);
    ck_assert_int_eq(mk_dpd_calls(plugin, "PreStartContainer"), 0);
}
END_TEST

START_TEST(preferred_round_trip)
{
    plugin_up(1, 0);
    char *avail[] = { "a0", "a1", "a2" }, *must[] = { "a1" }, **out, err[512];
    size_t n;
    ck_assert_msg(src->preferred(src, "example.com/gpu", avail, 3, must, 1, 2, &out, &n,
                                 err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(out[0], "a1");
    ck_assert_str_eq(out[1], "a2");
    for (size_t i = 0; i < n; i++)
        free(out[i]);
    free(out);
    ck_assert_int_eq(mk_dpd_calls(plugin, "GetPreferredAllocation"), 1);
}
END_TEST

START_TEST(preferred_only_when_advertised)
{
    plugin_up(0, 0);
    char *avail[] = { "a0" }, **out, err[512];
    size_t n;
    ck_assert_int_eq(src->preferred(src, "example.com/gpu", avail, 1, NULL, 0, 1, &out, &n,
                                    err, sizeof err), -1);
    ck_assert_str_eq(err, "the device plugin for example.com/gpu does not offer GetPreferredAllocation");
    ck_assert_ptr_null(out);
    ck_assert_int_eq(mk_dpd_calls(plugin, "GetPreferredAllocation"), 0);
}
END_TEST

START_TEST(live_socket_is_not_taken_over)
{
    char err[512];
    ck_assert_ptr_null(mk_kubelet_start(dir, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "a server is answering on") && strstr(err, "refusing to take it over"),
                  "%s", err);
    /* The first kubelet still serves. */
    plugin_up(0, 0);
}
END_TEST

START_TEST(stale_socket_is_replaced_other_files_are_not)
{
    const char *d2 = mk_test_tmpdir("kubelet-stale");
    const char *sock = mk_test_path(d2, "kubelet.sock");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    ck_assert_uint_lt(strlen(sock), sizeof sa.sun_path);
    memcpy(sa.sun_path, sock, strlen(sock) + 1);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    close(fd);
    char err[512];
    mk_kubelet *k2 = mk_kubelet_start(d2, NULL, err, sizeof err);
    ck_assert_msg(k2, "%s", err);
    ck_assert_str_eq(mk_kubelet_socket(k2), sock);
    mk_kubelet_stop(k2);
    struct stat st;
    ck_assert_int_ne(stat(sock, &st), 0);

    FILE *f = fopen(sock, "w");
    fputs("not a socket\n", f);
    fclose(f);
    ck_assert_ptr_null(mk_kubelet_start(d2, NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "exists and is not a socket"), "%s", err);
    ck_assert_int_eq(stat(sock, &st), 0);
    mk_test_rmtree(d2);
}
END_TEST

START_TEST(start_creates_the_directory)
{
    char sub[4300], err[512];
    snprintf(sub, sizeof sub, "%s/var/lib/kubelet/device-plugins", dir);
    mk_kubelet *k2 = mk_kubelet_start(sub, NULL, err, sizeof err);
    ck_assert_msg(k2, "%s", err);
    struct stat st;
    ck_assert_int_eq(stat(mk_kubelet_socket(k2), &st), 0);
    ck_assert(S_ISSOCK(st.st_mode));
    mk_kubelet_stop(k2);
    ck_assert_ptr_null(mk_kubelet_start("relative/dir", NULL, err, sizeof err));
    ck_assert_msg(strstr(err, "must be an absolute path"), "%s", err);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kubelet");
    TCase *tc = mk_test_case(s, "kubelet", setup, teardown, 30);
    tcase_add_test(tc, resource_names);
    tcase_add_test(tc, register_rejects_bad_version);
    tcase_add_test(tc, register_rejects_bad_resource_name);
    tcase_add_test(tc, register_rejects_unreachable_endpoint);
    tcase_add_test(tc, devices_appear_with_health_and_numa);
    tcase_add_test(tc, snapshots_are_sorted_copies);
    tcase_add_test(tc, allocate_round_trip_with_prestart);
    tcase_add_test(tc, allocate_refuses_what_the_kubelet_would);
    tcase_add_test(tc, preferred_round_trip);
    tcase_add_test(tc, preferred_only_when_advertised);
    tcase_add_test(tc, live_socket_is_not_taken_over);
    tcase_add_test(tc, stale_socket_is_replaced_other_files_are_not);
    tcase_add_test(tc, start_creates_the_directory);
    return mk_test_run(s);
}
