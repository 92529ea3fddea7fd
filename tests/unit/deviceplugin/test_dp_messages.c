/* test_dp_messages.c - device-plugin messages without gRPC: device lists
 * packed and read back, NUMA node ids a plugin may not send, and the
 * answers to GetPreferredAllocation and Allocate read for the kubelet. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "deviceplugin/deviceplugin.h"
#include "support/testutil.h"

/* A ListAndWatchResponse with one device on NUMA node `numa`. */
static mk_rpc_buf one_device(const char *id, int64_t numa)
{
    V1beta1__NUMANode node = V1BETA1__NUMANODE__INIT, *nodes[1] = { &node };
    V1beta1__TopologyInfo topo = V1BETA1__TOPOLOGY_INFO__INIT;
    V1beta1__Device dev = V1BETA1__DEVICE__INIT, *devs[1] = { &dev };
    V1beta1__ListAndWatchResponse r = V1BETA1__LIST_AND_WATCH_RESPONSE__INIT;
    node.id = numa;
    topo.n_nodes = 1;
    topo.nodes = nodes;
    dev.id = (char *)id;
    dev.health = MK_DP_HEALTHY;
    dev.topology = &topo;
    r.n_devices = 1;
    r.devices = devs;
    mk_rpc_buf b;
    ck_assert_int_eq(mk_dp_pack(&r, &b), 0);
    return b;
}

START_TEST(device_lists_read_back)
{
    mk_nv_device in[] = { { "GPU-a", 1, 0 }, { "GPU-b", 0, -1 }, { "MIG-c", 1, 3 } };
    mk_rpc_buf b;
    ck_assert_int_eq(mk_dp_pack_devices(in, 3, &b), 0);
    mk_nv_device *out;
    size_t n, healthy;
    char err[128];
    ck_assert_int_eq(mk_dp_unpack_devices(b.data, b.len, &out, &n, &healthy, err, sizeof err), 0);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(healthy, 2);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(out[i].id, in[i].id);
        ck_assert_int_eq(out[i].healthy, in[i].healthy);
        ck_assert_int_eq(out[i].numa, in[i].numa);
    }
    mk_dp_free_devices(out, n);
    free(b.data);
}
END_TEST

START_TEST(numa_nodes_beyond_int_or_negative_are_refused)
{
    /* Found by the plugin_messages fuzz target: -5 read as -5 (shown as a
     * node) and 2^32 as node 0. */
    const int64_t bad[] = { -5, -1, (int64_t)1 << 32, INT64_MAX };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mk_rpc_buf b = one_device("GPU-x", bad[i]);
        mk_nv_device *out;
        size_t n, healthy;
        char err[128];
        ck_assert_int_eq(mk_dp_unpack_devices(b.data, b.len, &out, &n, &healthy, err, sizeof err), -1);
        ck_assert_ptr_null(out);
        ck_assert_uint_eq(n, 0);
        ck_assert_ptr_nonnull(strstr(err, "device GPU-x has NUMA node"));
        ck_assert_ptr_nonnull(strstr(err, "out of range"));
        free(b.data);
    }
    mk_rpc_buf b = one_device("GPU-y", 7);
    mk_nv_device *out;
    size_t n, healthy;
    char err[128];
    ck_assert_int_eq(mk_dp_unpack_devices(b.data, b.len, &out, &n, &healthy, err, sizeof err), 0);
    ck_assert_int_eq(out[0].numa, 7);
    mk_dp_free_devices(out, n);
    free(b.data);
}
END_TEST

START_TEST(preferred_allocation_is_one_container)
{
    char *want[] = { "GPU-a", "GPU-b" };
    V1beta1__ContainerPreferredAllocationResponse c =
        V1BETA1__CONTAINER_PREFERRED_ALLOCATION_RESPONSE__INIT, *cs[2] = { &c, &c };
    c.n_deviceids = 2;
    c.deviceids = want;
    V1beta1__PreferredAllocationResponse r = V1BETA1__PREFERRED_ALLOCATION_RESPONSE__INIT;
    r.n_container_responses = 1;
    r.container_responses = cs;
    mk_rpc_buf b;
    ck_assert_int_eq(mk_dp_pack(&r, &b), 0);
    char **ids, err[128];
    size_t n;
    ck_assert_int_eq(mk_dp_unpack_preferred(b.data, b.len, &ids, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(ids[0], "GPU-a");
    ck_assert_str_eq(ids[1], "GPU-b");
    for (size_t i = 0; i < n; i++)
        free(ids[i]);
    free(ids);
    free(b.data);

    r.n_container_responses = 2;
    ck_assert_int_eq(mk_dp_pack(&r, &b), 0);
    ck_assert_int_eq(mk_dp_unpack_preferred(b.data, b.len, &ids, &n, err, sizeof err), -1);
    ck_assert_str_eq(err, "answered 2 containers for 1");
    ck_assert_ptr_null(ids);
    free(b.data);

    const uint8_t junk[] = { 0x0a, 0x05, 0x01 };
    ck_assert_int_eq(mk_dp_unpack_preferred(junk, sizeof junk, &ids, &n, err, sizeof err), -1);
    ck_assert_str_eq(err, "malformed PreferredAllocationResponse");
}
END_TEST

START_TEST(allocation_read_with_the_ids_asked_for)
{
    V1beta1__ContainerAllocateResponse__EnvsEntry env =
        V1BETA1__CONTAINER_ALLOCATE_RESPONSE__ENVS_ENTRY__INIT, *envs[1] = { &env };
    env.key = "NVIDIA_VISIBLE_DEVICES";
    env.value = "GPU-a";
    V1beta1__Mount mount = V1BETA1__MOUNT__INIT, *mounts[1] = { &mount };
    mount.container_path = "/bin/nvidia-smi";
    mount.host_path = "/host/nvidia-smi";
    V1beta1__DeviceSpec spec = V1BETA1__DEVICE_SPEC__INIT, *specs[1] = { &spec };
    spec.container_path = "/dev/nvidia0";
    spec.host_path = "/dev/nvidia3";
    V1beta1__CDIDevice cdi = V1BETA1__CDIDEVICE__INIT, *cdis[1] = { &cdi };
    cdi.name = "nvidia.com/gpu=0";
    V1beta1__ContainerAllocateResponse c = V1BETA1__CONTAINER_ALLOCATE_RESPONSE__INIT, *cs[1] = { &c };
    c.n_envs = 1;
    c.envs = envs;
    c.n_mounts = 1;
    c.mounts = mounts;
    c.n_devices = 1;
    c.devices = specs;
    c.n_cdi_devices = 1;
    c.cdi_devices = cdis;
    V1beta1__AllocateResponse r = V1BETA1__ALLOCATE_RESPONSE__INIT;
    r.n_container_responses = 1;
    r.container_responses = cs;
    mk_rpc_buf b;
    ck_assert_int_eq(mk_dp_pack(&r, &b), 0);

    char *ids[] = { "GPU-a" }, err[128];
    mk_nv_alloc a = { 0 };
    ck_assert_int_eq(mk_dp_unpack_allocation(b.data, b.len, ids, 1, &a, err, sizeof err), 0);
    ck_assert_uint_eq(a.nids, 1);
    ck_assert_str_eq(a.ids[0], "GPU-a");
    ck_assert_uint_eq(a.nenvs, 1);
    ck_assert_str_eq(a.envs[0].key, "NVIDIA_VISIBLE_DEVICES");
    ck_assert_str_eq(a.envs[0].value, "GPU-a");
    ck_assert_uint_eq(a.nmounts, 1);
    ck_assert_str_eq(a.mounts[0].value, "/host/nvidia-smi");
    ck_assert_uint_eq(a.ndevices, 1);
    ck_assert_str_eq(a.devices[0].key, "/dev/nvidia0");
    ck_assert_str_eq(a.devices[0].value, "/dev/nvidia3");
    ck_assert_uint_eq(a.ncdi, 1);
    ck_assert_str_eq(a.cdi[0], "nvidia.com/gpu=0");
    mk_nv_alloc_free(&a);
    free(b.data);

    r.n_container_responses = 0;
    ck_assert_int_eq(mk_dp_pack(&r, &b), 0);
    ck_assert_int_eq(mk_dp_unpack_allocation(b.data, b.len, ids, 1, &a, err, sizeof err), -1);
    ck_assert_str_eq(err, "answered 0 containers for 1");
    mk_nv_alloc_free(&a);
    free(b.data);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dp_messages");
    TCase *tc = mk_test_case(s, "dp_messages", NULL, NULL, 10);
    tcase_add_test(tc, device_lists_read_back);
    tcase_add_test(tc, numa_nodes_beyond_int_or_negative_are_refused);
    tcase_add_test(tc, preferred_allocation_is_one_container);
    tcase_add_test(tc, allocation_read_with_the_ids_asked_for);
    return mk_test_run(s);
}
