/* test_nvml_mig.c - MIG through the public NVML calls, in the order the
 * Kubernetes device plugin makes them through go-nvlib (see
 * /work/notes/device_plugin_nvml.md, sections b and c). The test redoes
 * go-nvlib's profile matching and its memory-to-"5gb" arithmetic and checks
 * the names it arrives at: for MIG devices (single and mixed strategy) and
 * for the profiles a GPU could offer (mixed strategy's resources), against
 * NVIDIA's published names, and that both ways of naming agree. */
#include <math.h>
#include "nvml_dl.h"

/* --- go-nvlib's arithmetic (pkg/nvlib/device/mig_profile.go) ----------------- */

/* Slices of GPU-instance profile index i (NVML_GPU_INSTANCE_PROFILE_*). */
static int gi_slices(unsigned i)
{
    static const int s[] = { 1, 2, 3, 4, 7, 8, 6, 1, 2, 1, 1, 2, 4, 1, 2, 1, 2 };
    return i < sizeof s / sizeof s[0] ? s[i] : 0;
}

/* Slices of compute-instance profile index j. */
static int ci_slices(unsigned j)
{
    static const int s[] = { 1, 2, 3, 4, 7, 8, 6, 1 };
    return j < sizeof s / sizeof s[0] ? s[j] : 0;
}

static const char *gi_suffix(unsigned i)
{
    switch (i) {
    case 7: case 8: return "+me";
    case 15: case 16: return "+me.all";
    case 10: case 11: case 12: return "+gfx";
    case 13: case 14: return "-me";
    default: return "";
    }
}

/* getMigMemorySizeGB: the MIG memory as a fraction of the GPU, rounded up
 * to eighths, times the GPU's memory in whole GiB (rounded up), rounded
 * half away from zero (Go's math.Round). */
static unsigned mig_gb(uint64_t total_bytes, uint64_t mig_mb)
{
    double frac = (double)mig_mb * 1048576.0 / (double)total_bytes;
    frac = ceil(frac * 8) / 8;
    double total_gb = (double)((total_bytes + (1ull << 30) - 1) >> 30);
    return (unsigned)round(frac * total_gb);
}

/* MigProfileInfo.String(). */
static void profile_string(char *out, size_t len, unsigned gi, unsigned ci, uint64_t total_bytes,
                           uint64_t mig_mb)
{
    int g = gi_slices(gi), c = ci_slices(ci);
    unsigned gb = mig_gb(total_bytes, mig_mb);
    if (c == g)
        snprintf(out, len, "%dg.%ugb%s", g, gb, gi_suffix(gi));
    else
        snprintf(out, len, "%dc.%dg.%ugb%s", c, g, gb, gi_suffix(gi));
}

/* NOT_SUPPORTED and INVALID_ARGUMENT mean "no such profile here"; anything
 * else would stop the device plugin. */
static int skip(nvmlReturn_t rc)
{
    ck_assert_msg(rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_SUPPORTED ||
                  rc == NVML_ERROR_INVALID_ARGUMENT, "profile query: %s", nv.nvmlErrorString(rc));
    return rc != NVML_SUCCESS;
}

/* --- the device plugin's walk ------------------------------------------------ */

typedef struct {
    nvmlDevice_t handle;
    char uuid[96];
    char name[64];           /* from the device's attributes */
    char name_by_gi[64];     /* from its GI profile's memory */
    unsigned gi, ci;
    nvmlDeviceAttributes_t attr;
} mig_seen;

/* migdevice.GetProfile for one MIG device. */
static void get_profile(nvmlDevice_t mig, mig_seen *out)
{
    nvmlDevice_t parent, parent_again;
    NV_OK(nv.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(mig, &parent));
    nvmlMemory_t pmem;
    NV_OK(nv.nvmlDeviceGetMemoryInfo(parent, &pmem));
    NV_OK(nv.nvmlDeviceGetAttributes_v2(mig, &out->attr));
    NV_OK(nv.nvmlDeviceGetGpuInstanceId(mig, &out->gi));
    NV_OK(nv.nvmlDeviceGetComputeInstanceId(mig, &out->ci));
    nvmlGpuInstance_t gi;
    nvmlComputeInstance_t ci;
    NV_OK(nv.nvmlDeviceGetGpuInstanceById(parent, out->gi, &gi));
    NV_OK(nv.nvmlGpuInstanceGetComputeInstanceById(gi, out->ci, &ci));
    nvmlGpuInstanceInfo_t gii;
    nvmlComputeInstanceInfo_t cii;
    NV_OK(nv.nvmlGpuInstanceGetInfo(gi, &gii));
    NV_OK(nv.nvmlComputeInstanceGetInfo_v2(ci, &cii));
    ck_assert_ptr_eq(gii.device, parent);
    ck_assert_uint_eq(gii.id, out->gi);
    ck_assert_ptr_eq(cii.device, parent);
    ck_assert_ptr_eq(cii.gpuInstance, gi);
    ck_assert_uint_eq(cii.id, out->ci);
    int gi_index = -1, ci_index = -1;
    nvmlGpuInstanceProfileInfo_t gpi = { 0 };
    for (unsigned i = 0; i <= 16 && gi_index < 0; i++) {
        if (skip(nv.nvmlDeviceGetGpuInstanceProfileInfo(parent, i, &gpi)))
            continue;
        if (gpi.id == gii.profileId)
            gi_index = (int)i;
    }
    ck_assert_msg(gi_index >= 0, "no GI profile has id %u", gii.profileId);
    for (unsigned j = 0; j <= 7 && ci_index < 0; j++) {
        nvmlComputeInstanceProfileInfo_t cpi;
        if (skip(nv.nvmlGpuInstanceGetComputeInstanceProfileInfo(
                gi, j, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &cpi)))
            continue;
        if (cpi.id == cii.profileId)
            ci_index = (int)j;
    }
    ck_assert_msg(ci_index >= 0, "no CI profile has id %u", cii.profileId);
    profile_string(out->name, sizeof out->name, (unsigned)gi_index, (unsigned)ci_index,
                   pmem.total, out->attr.memorySizeMB);
    profile_string(out->name_by_gi, sizeof out->name_by_gi, (unsigned)gi_index,
                   (unsigned)ci_index, pmem.total, gpi.memorySizeMB);
    NV_OK(nv.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(mig, &parent_again));
    ck_assert_ptr_eq(parent_again, parent);
}

/* device.VisitMigDevices: every MIG device of GPU i, as the plugin finds
 * them. Returns how many. */
static size_t visit_mig_devices(unsigned i, mig_seen *out, size_t max)
{
    nvmlDevice_t g = nv_gpu(i);
    char name[96];
    NV_OK(nv.nvmlDeviceGetName(g, name, sizeof name));
    unsigned cur, pend, count;
    nvmlReturn_t rc = nv.nvmlDeviceGetMigMode(g, &cur, &pend);
    if (rc == NVML_ERROR_NOT_SUPPORTED)
        return 0;
    NV_OK(rc);
    NV_OK(nv.nvmlDeviceGetMaxMigDeviceCount(g, &count));
    size_t n = 0;
    for (unsigned j = 0; j < count; j++) {
        nvmlDevice_t mig;
        rc = nv.nvmlDeviceGetMigDeviceHandleByIndex(g, j, &mig);
        if (rc == NVML_ERROR_NOT_FOUND || rc == NVML_ERROR_INVALID_ARGUMENT)
            continue;
        NV_OK(rc);
        unsigned is_mig = 0;
        NV_OK(nv.nvmlDeviceIsMigDeviceHandle(mig, &is_mig));
        ck_assert_uint_eq(is_mig, 1);
        ck_assert_uint_lt(n, max);
        out[n].handle = mig;
        get_profile(mig, &out[n]);
        NV_OK(nv.nvmlDeviceGetUUID(mig, out[n].uuid, sizeof out[n].uuid));
        n++;
    }
    ck_assert_uint_eq(cur == NVML_DEVICE_MIG_ENABLE, n > 0);
    return n;
}

/* device.VisitMigProfiles, keeping what AddDefaultResourcesToConfig turns
 * into resources (C == G), each name once, in profile order,
 * comma-separated. */
static void possible_profiles(unsigned i, char *out, size_t len)
{
    nvmlDevice_t g = nv_gpu(i);
    nvmlMemory_t mem;
    NV_OK(nv.nvmlDeviceGetMemoryInfo(g, &mem));
    out[0] = 0;
    for (unsigned gi = 0; gi <= 16; gi++) {
        nvmlGpuInstanceProfileInfo_t info;
        if (skip(nv.nvmlDeviceGetGpuInstanceProfileInfo(g, gi, &info)))
            continue;
        for (unsigned ci = 0; ci <= 7; ci++) {
            int c = ci_slices(ci), gs = gi_slices(gi);
            if (c != gs)
                continue;
            char name[64], token[80];
            profile_string(name, sizeof name, gi, ci, mem.total, info.memorySizeMB);
            snprintf(token, sizeof token, ", %s,", name);
            char listed[600];
            snprintf(listed, sizeof listed, ", %s,", out);
            if (!strstr(listed, token))
                snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? ", " : "", name);
        }
    }
}

/* --- the GPUs ------------------------------------------------------------------ */

typedef struct {
    const char *profile;
    const char *resources;     /* NVIDIA's names, in GI profile index order */
    const char *instances[8];  /* one config per GPU: each profile once */
} gpu_case;

static const gpu_case cases[] = {
    { "a100-sxm4-40gb", "1g.5gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb, 1g.5gb+me, 1g.10gb",
      { "1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb", "1g.5gb+me", "1g.10gb" } },
    { "a100-sxm4-80gb", "1g.10gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb, 1g.10gb+me, 1g.20gb",
      { "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb", "1g.10gb+me", "1g.20gb" } },
    { "h100-sxm5-80gb", "1g.10gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb, 1g.10gb+me, 1g.20gb",
      { "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb", "1g.10gb+me", "1g.20gb" } },
    { "h100-pcie-80gb", "1g.10gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb, 1g.10gb+me, 1g.20gb",
      { "1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb", "1g.10gb+me", "1g.20gb" } },
    { "h200-sxm-141gb", "1g.18gb, 2g.35gb, 3g.71gb, 4g.71gb, 7g.141gb, 1g.18gb+me, 1g.35gb",
      { "1g.18gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb", "1g.18gb+me", "1g.35gb" } },
    { "b200", "1g.23gb, 2g.45gb, 3g.90gb, 4g.90gb, 7g.180gb, 1g.23gb+me, 1g.45gb",
      { "1g.23gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb", "1g.23gb+me", "1g.45gb" } },
    { "gb200", "1g.24gb, 2g.47gb, 3g.95gb, 4g.95gb, 7g.189gb, 1g.24gb+me, 1g.47gb",
      { "1g.24gb", "2g.47gb", "3g.95gb", "4g.95gb", "7g.189gb", "1g.24gb+me", "1g.47gb" } },
};

/* One GPU per profile, each holding one instance of it, plus one GPU with
 * MIG off. */
static void init_case(const gpu_case *c, unsigned *n_mig_gpus)
{
    char yaml[2048];
    unsigned n = 0;
    while (n < 8 && c->instances[n])
        n++;
    int len = snprintf(yaml, sizeof yaml, "profile: %s\ncount: %u\ndevices:\n", c->profile, n + 1);
    for (unsigned i = 0; i < n; i++)
        len += snprintf(yaml + len, sizeof yaml - (size_t)len,
                        "  - {index: %u, mig: {instances: [\"%s\"]}}\n", i, c->instances[i]);
    nv_config(yaml);
    NV_OK(nv.nvmlInit_v2());
    *n_mig_gpus = n;
}

START_TEST(mig_device_names)
{
    nv_open();
    const gpu_case *c = &cases[_i];
    unsigned n;
    init_case(c, &n);
    for (unsigned i = 0; i < n; i++) {
        mig_seen seen[8];
        ck_assert_uint_eq(visit_mig_devices(i, seen, 8), 1);
        ck_assert_msg(strcmp(seen[0].name, c->instances[i]) == 0,
                      "%s: a MIG device made as %s is named %s by the device plugin",
                      c->profile, c->instances[i], seen[0].name);
        /* The consistency requirement: the device's memory and its GI
         * profile's memory give the same name. */
        ck_assert_str_eq(seen[0].name_by_gi, seen[0].name);
        /* MIG UUIDs resolve to the MIG device, as health checks need. */
        nvmlDevice_t h;
        NV_OK(nv.nvmlDeviceGetHandleByUUID(seen[0].uuid, &h));
        ck_assert_ptr_eq(h, seen[0].handle);
        ck_assert_int_eq(strncmp(seen[0].uuid, "MIG-", 4), 0);
    }
    mig_seen none[1];
    ck_assert_uint_eq(visit_mig_devices(n, none, 1), 0);   /* the GPU with MIG off */
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(possible_profile_names)
{
    nv_open();
    const gpu_case *c = &cases[_i];
    unsigned n;
    init_case(c, &n);
    char names[512];
    for (unsigned i = 0; i <= n; i++) {   /* MIG on or off, the same list */
        possible_profiles(i, names, sizeof names);
        ck_assert_msg(strcmp(names, c->resources) == 0, "%s GPU %u offers\n  %s\nwant\n  %s",
                      c->profile, i, names, c->resources);
    }
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* mig-mixed.yaml's layout, walked as the plugin does: the resources it
 * advertises, and single strategy's rule that all devices look alike. */
START_TEST(mixed_layout)
{
    nv_start("profile: a100-sxm4-40gb\ncount: 3\ndevices:\n"
             "  - {index: 0, mig: {instances: [1g.5gb, 1g.5gb, 2g.10gb, 3g.20gb]}}\n"
             "  - {index: 2, mig: {instances: [1g.5gb, 1g.5gb, 1g.5gb]}}\n");
    mig_seen seen[8];
    ck_assert_uint_eq(visit_mig_devices(0, seen, 8), 4);
    static const char *const want[] = { "1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb" };
    static const unsigned gi_ids[] = { 7, 8, 4, 2 };
    for (int k = 0; k < 4; k++) {
        ck_assert_str_eq(seen[k].name, want[k]);
        ck_assert_uint_eq(seen[k].gi, gi_ids[k]);
        ck_assert_uint_eq(seen[k].ci, 0);
    }
    ck_assert_uint_eq(seen[0].attr.memorySizeMB, 4864);
    ck_assert_uint_eq(seen[0].attr.gpuInstanceSliceCount, 1);
    ck_assert_uint_eq(seen[3].attr.gpuInstanceSliceCount, 3);
    ck_assert_uint_eq(seen[3].attr.multiprocessorCount, 42);
    ck_assert_uint_eq(visit_mig_devices(1, seen, 8), 0);
    /* Single strategy: every MIG device's attributes equal, byte for byte. */
    ck_assert_uint_eq(visit_mig_devices(2, seen, 8), 3);
    for (int k = 1; k < 3; k++)
        ck_assert_mem_eq(&seen[k].attr, &seen[0].attr, sizeof seen[0].attr);
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < k; m++)
            ck_assert_str_ne(seen[k].uuid, seen[m].uuid);
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(mig_answers)
{
    nv_start("profile: a100-sxm4-40gb\ncount: 3\ndevices:\n"
             "  - {index: 0, mig: {instances: [3g.20gb]}}\n  - {index: 2, profile: t4}\n");
    unsigned cur, pend, count, is_mig;
    nvmlDevice_t mig, parent;
    NV_OK(nv.nvmlDeviceGetMigMode(nv_gpu(0), &cur, &pend));
    ck_assert_uint_eq(cur, NVML_DEVICE_MIG_ENABLE);
    ck_assert_uint_eq(pend, NVML_DEVICE_MIG_ENABLE);
    NV_OK(nv.nvmlDeviceGetMigMode(nv_gpu(1), &cur, &pend));
    ck_assert_uint_eq(cur, NVML_DEVICE_MIG_DISABLE);
    NV_RC(NVML_ERROR_NOT_SUPPORTED, nv.nvmlDeviceGetMigMode(nv_gpu(2), &cur, &pend));
    NV_OK(nv.nvmlDeviceGetMaxMigDeviceCount(nv_gpu(1), &count));  /* capable, disabled */
    ck_assert_uint_eq(count, 7);
    NV_OK(nv.nvmlDeviceGetMigDeviceHandleByIndex(nv_gpu(0), 0, &mig));
    NV_RC(NVML_ERROR_NOT_FOUND, nv.nvmlDeviceGetMigDeviceHandleByIndex(nv_gpu(0), 1, &parent));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT,
          nv.nvmlDeviceGetMigDeviceHandleByIndex(nv_gpu(0), 7, &parent));
    NV_RC(NVML_ERROR_NOT_FOUND, nv.nvmlDeviceGetMigDeviceHandleByIndex(nv_gpu(1), 0, &parent));
    NV_OK(nv.nvmlDeviceIsMigDeviceHandle(nv_gpu(0), &is_mig));
    ck_assert_uint_eq(is_mig, 0);
    NV_RC(NVML_ERROR_INVALID_ARGUMENT,
          nv.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nv_gpu(0), &parent));
    unsigned id;
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlDeviceGetGpuInstanceId(nv_gpu(0), &id));
    nvmlGpuInstance_t gi;
    NV_RC(NVML_ERROR_NOT_FOUND, nv.nvmlDeviceGetGpuInstanceById(nv_gpu(0), 2, &gi));
    NV_RC(NVML_ERROR_INVALID_STATE, nv.nvmlDeviceGetGpuInstanceById(nv_gpu(1), 1, &gi));
    NV_OK(nv.nvmlDeviceGetGpuInstanceId(mig, &id));
    ck_assert_uint_eq(id, 1);                 /* 3g.20gb at slot 0: the first half */
    NV_OK(nv.nvmlDeviceGetGpuInstanceById(nv_gpu(0), id, &gi));
    nvmlGpuInstanceInfo_t gii;
    NV_OK(nv.nvmlGpuInstanceGetInfo(gi, &gii));
    ck_assert_uint_eq(gii.placement.start, 0);
    ck_assert_uint_eq(gii.placement.size, 4);
    nvmlComputeInstance_t ci;
    NV_RC(NVML_ERROR_NOT_FOUND, nv.nvmlGpuInstanceGetComputeInstanceById(gi, 1, &ci));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlGpuInstanceGetInfo((nvmlGpuInstance_t)&gii, &gii));
    /* The MIG device's memory is its slice; the parent's is the GPU. */
    nvmlMemory_t mm, pm;
    NV_OK(nv.nvmlDeviceGetMemoryInfo(mig, &mm));
    NV_OK(nv.nvmlDeviceGetMemoryInfo(nv_gpu(0), &pm));
    ck_assert_uint_eq(mm.total, 19968ull << 20);
    ck_assert_uint_eq(pm.total, 40960ull << 20);
    nvmlGpuInstanceProfileInfo_t info;
    NV_RC(NVML_ERROR_INVALID_ARGUMENT,
          nv.nvmlDeviceGetGpuInstanceProfileInfo(nv_gpu(0), NVML_GPU_INSTANCE_PROFILE_COUNT, &info));
    NV_RC(NVML_ERROR_NOT_SUPPORTED, nv.nvmlDeviceGetGpuInstanceProfileInfo(nv_gpu(0), 6, &info));
    NV_RC(NVML_ERROR_NOT_SUPPORTED, nv.nvmlDeviceGetGpuInstanceProfileInfo(nv_gpu(2), 0, &info));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvml_mig");
    TCase *tc = tcase_create("nvml_mig");
    tcase_set_timeout(tc, 60);
    int n = (int)(sizeof cases / sizeof cases[0]);
    tcase_add_loop_test(tc, mig_device_names, 0, n);
    tcase_add_loop_test(tc, possible_profile_names, 0, n);
    tcase_add_test(tc, mixed_layout);
    tcase_add_test(tc, mig_answers);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
