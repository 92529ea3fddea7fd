/* test_nvml_fabric.c - nvmlDeviceGetGpuFabricInfo and ...V on the built
 * library: a GPU without a fabric answers NOT_SUPPORTED; one with a fabric
 * answers the config's identity in the unversioned struct and in versions
 * 2 and 3 of the versioned one (other versions: ARGUMENT_VERSION_MISMATCH);
 * an override in the live state (what `mokka inject --fabric-*` writes)
 * shows at the next call; a lost GPU answers GPU_IS_LOST. */
#include <check.h>
#include "fabric.h"
#include "nvml_dl.h"

static const char GB200[] =
    "profile: gb200\ncount: 4\ntopology: {nvlink: none}\n"
    "defaults:\n  fabric: {clusterUuid: 8c4ba2e1-0f9d-4b3a-9e51-7d20c6a1f3b8, cliqueId: 32766}\n"
    "devices:\n  - {index: 3, fabric: {health: [degradedBandwidth]}}\n";
static const unsigned char CLUSTER[16] = { 0x8c, 0x4b, 0xa2, 0xe1, 0x0f, 0x9d, 0x4b, 0x3a,
                                           0x9e, 0x51, 0x7d, 0x20, 0xc6, 0xa1, 0xf3, 0xb8 };

START_TEST(test_no_fabric)
{
    nv_start("profile: a100-sxm4-40gb\ncount: 2\n");
    nvmlGpuFabricInfo_t info;
    nvmlGpuFabricInfoV_t v = { .version = nvmlGpuFabricInfo_v3 };
    NV_RC(NVML_ERROR_NOT_SUPPORTED, nv.nvmlDeviceGetGpuFabricInfo(nv_gpu(0), &info));
    NV_RC(NVML_ERROR_NOT_SUPPORTED, nv.nvmlDeviceGetGpuFabricInfoV(nv_gpu(1), &v));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(test_versions)
{
    nv_start(GB200);
    nvmlGpuFabricInfo_t info;
    memset(&info, 0xff, sizeof info);
    NV_OK(nv.nvmlDeviceGetGpuFabricInfo(nv_gpu(0), &info));
    ck_assert_mem_eq(info.clusterUuid, CLUSTER, 16);
    ck_assert_int_eq(info.status, NVML_SUCCESS);
    ck_assert_uint_eq(info.cliqueId, 32766);
    ck_assert_uint_eq(info.state, NVML_GPU_FABRIC_STATE_COMPLETED);
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlDeviceGetGpuFabricInfo(nv_gpu(0), NULL));

    /* v2: the health mask, and nothing past it. */
    nvmlGpuFabricInfoV_t v;
    memset(&v, 0x5a, sizeof v);
    v.version = nvmlGpuFabricInfo_v2;
    NV_OK(nv.nvmlDeviceGetGpuFabricInfoV(nv_gpu(3), &v));
    ck_assert_mem_eq(v.clusterUuid, CLUSTER, 16);
    ck_assert_uint_eq(v.cliqueId, 32766);
    ck_assert(NVML_GPU_FABRIC_HEALTH_TEST(v.healthMask, _DEGRADED_BW, _TRUE));
    ck_assert(NVML_GPU_FABRIC_HEALTH_TEST(v.healthMask, _ROUTE_UNHEALTHY, _FALSE));
    ck_assert_uint_eq(v.healthSummary, 0x5a);
    /* v3: the summary too. */
    v.version = nvmlGpuFabricInfo_v3;
    NV_OK(nv.nvmlDeviceGetGpuFabricInfoV(nv_gpu(3), &v));
    ck_assert_uint_eq(v.healthSummary, NVML_GPU_FABRIC_HEALTH_SUMMARY_LIMITED_CAPACITY);
    NV_OK(nv.nvmlDeviceGetGpuFabricInfoV(nv_gpu(0), &v));
    ck_assert_uint_eq(v.healthSummary, NVML_GPU_FABRIC_HEALTH_SUMMARY_HEALTHY);
    ck_assert(NVML_GPU_FABRIC_HEALTH_TEST(v.healthMask, _DEGRADED_BW, _FALSE));
    /* Another version, or the size of another struct. */
    unsigned bad[] = { 0, 1u << 24 | (unsigned)sizeof v, 4u << 24 | (unsigned)sizeof v,
                       2u << 24 | (unsigned)sizeof v };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        v.version = bad[i];
        NV_RC(NVML_ERROR_ARGUMENT_VERSION_MISMATCH, nv.nvmlDeviceGetGpuFabricInfoV(nv_gpu(0), &v));
    }
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(test_live_override)
{
    const char *state = nv_start(GB200);
    mk_state st;
    char err[512];
    ck_assert_msg(mk_state_open_existing(&st, state, err, sizeof err) == 0, "%s", err);
    mk_fabric f = { .state = MK_FABRIC_IN_PROGRESS, .status = NVML_ERROR_NOT_READY,
                    .health = MK_FABRIC_ROUTE_UNHEALTHY };
    mk_state_fabric(&st, 1, mk_fabric_pack(&f));
    nvmlGpuFabricInfoV_t v = { .version = nvmlGpuFabricInfo_v3 };
    NV_OK(nv.nvmlDeviceGetGpuFabricInfoV(nv_gpu(1), &v));
    ck_assert_uint_eq(v.state, NVML_GPU_FABRIC_STATE_IN_PROGRESS);
    ck_assert_int_eq(v.status, NVML_ERROR_NOT_READY);
    ck_assert_uint_eq(v.healthSummary, NVML_GPU_FABRIC_HEALTH_SUMMARY_UNHEALTHY);
    ck_assert_mem_eq(v.clusterUuid, CLUSTER, 16);   /* the identity stays */
    mk_state_fabric(&st, 1, 0);
    NV_OK(nv.nvmlDeviceGetGpuFabricInfoV(nv_gpu(1), &v));
    ck_assert_uint_eq(v.state, NVML_GPU_FABRIC_STATE_COMPLETED);
    ck_assert_int_eq(v.status, NVML_SUCCESS);
    mk_state_close(&st);
    nvmlDevice_t gpu2 = nv_gpu(2);
    nv_inject(state, 2, MK_FAULT_LOST, 79, -1);
    NV_RC(NVML_ERROR_GPU_IS_LOST, nv.nvmlDeviceGetGpuFabricInfoV(gpu2, &v));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("nvml_fabric");
    TCase *tc = tcase_create("fabric");
    tcase_add_test(tc, test_no_fabric);
    tcase_add_test(tc, test_versions);
    tcase_add_test(tc, test_live_override);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
