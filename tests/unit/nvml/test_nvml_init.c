/* test_nvml_init.c - nvmlInit*, nvmlShutdown and the config through the
 * public NVML API: reference counting as in the real library, calls before
 * init, handles that outlive shutdown/init cycles, the built-in universe, a
 * named config that cannot be used (an NVML error and exactly one stderr
 * line naming file:line:col, never a silent fallback), the state file, and
 * no thread of the library's own. */
#include <sys/stat.h>
#include "nvml_dl.h"

START_TEST(calls_before_init)
{
    nv_open();
    unsigned n = 99;
    nvmlDevice_t h;
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlDeviceGetCount_v2(&n));
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlDeviceGetHandleByIndex_v2(0, &h));
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlShutdown());
    unsigned t;
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlDeviceGetTemperature(NULL, NVML_TEMPERATURE_GPU, &t));
    char v[80];
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlSystemGetDriverVersion(v, sizeof v));
    ck_assert_uint_eq(n, 99);
    /* nvmlErrorString needs no init. */
    ck_assert_str_eq(nv.nvmlErrorString(NVML_ERROR_UNINITIALIZED), "Uninitialized");
    ck_assert_str_eq(nv.nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
    ck_assert_str_eq(nv.nvmlErrorString((nvmlReturn_t)12345), "Unknown Error");
}
END_TEST

START_TEST(reference_counting)
{
    nv_open();
    unsigned n;
    NV_OK(nv.nvmlInit_v2());
    NV_OK(nv.nvmlInit());
    NV_OK(nv.nvmlInitWithFlags(0));
    NV_OK(nv.nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS | NVML_INIT_FLAG_NO_ATTACH));
    for (int i = 0; i < 3; i++) {
        NV_OK(nv.nvmlShutdown());
        NV_OK(nv.nvmlDeviceGetCount_v2(&n));     /* an inner shutdown keeps the library up */
        ck_assert_uint_eq(n, 8);
    }
    NV_OK(nv.nvmlShutdown());
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlDeviceGetCount_v2(&n));
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlShutdown());
    NV_OK(nv.nvmlInit_v2());
    NV_OK(nv.nvmlDeviceGetCount_v2(&n));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(default_universe)
{
    nv_open();
    NV_OK(nv.nvmlInit_v2());
    unsigned n;
    NV_OK(nv.nvmlDeviceGetCount_v2(&n));
    ck_assert_uint_eq(n, 8);
    char name[96], ver[80];
    NV_OK(nv.nvmlDeviceGetName(nv_gpu(7), name, sizeof name));
    ck_assert_str_eq(name, "NVIDIA A100-SXM4-40GB");
    NV_OK(nv.nvmlSystemGetDriverVersion(ver, sizeof ver));
    ck_assert_str_eq(ver, "535.261.03");
    nvmlPciInfo_t pci;
    NV_OK(nv.nvmlDeviceGetPciInfo_v3(nv_gpu(0), &pci));
    ck_assert_str_eq(pci.busId, "00000000:07:00.0");
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* Clients keep handles across init/shutdown pairs (go-nvml nests them). */
START_TEST(handles_survive_cycles)
{
    nv_start("profile: a100-sxm4-40gb\ncount: 3\n"
             "devices:\n  - {index: 1, mig: {instances: [3g.20gb, 2g.10gb]}}\n");
    nvmlDevice_t gpu[3], mig;
    char uuid[3][96], mig_uuid[96];
    for (unsigned i = 0; i < 3; i++) {
        gpu[i] = nv_gpu(i);
        NV_OK(nv.nvmlDeviceGetUUID(gpu[i], uuid[i], sizeof uuid[i]));
    }
    NV_OK(nv.nvmlDeviceGetMigDeviceHandleByIndex(gpu[1], 1, &mig));
    NV_OK(nv.nvmlDeviceGetUUID(mig, mig_uuid, sizeof mig_uuid));
    NV_OK(nv.nvmlShutdown());
    char buf[96];
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlDeviceGetUUID(gpu[0], buf, sizeof buf));
    for (int cycle = 0; cycle < 5; cycle++) {
        NV_OK(nv.nvmlInit_v2());
        for (unsigned i = 0; i < 3; i++) {
            ck_assert_ptr_eq(nv_gpu(i), gpu[i]);
            NV_OK(nv.nvmlDeviceGetUUID(gpu[i], buf, sizeof buf));
            ck_assert_str_eq(buf, uuid[i]);
        }
        NV_OK(nv.nvmlDeviceGetUUID(mig, buf, sizeof buf));
        ck_assert_str_eq(buf, mig_uuid);
        nvmlDevice_t again;
        NV_OK(nv.nvmlDeviceGetHandleByUUID(mig_uuid, &again));
        ck_assert_ptr_eq(again, mig);
        NV_OK(nv.nvmlShutdown());
    }
}
END_TEST

START_TEST(config_from_either_variable)
{
    nv_open();
    const char *path = nv_config("profile: t4\ncount: 3\n");
    unsetenv("MOCK_CONFIG_PATH");
    setenv("MOKKA_CONFIG", path, 1);
    NV_OK(nv.nvmlInit_v2());
    unsigned n;
    NV_OK(nv.nvmlDeviceGetCount_v2(&n));
    ck_assert_uint_eq(n, 3);
    NV_OK(nv.nvmlShutdown());
    /* MOCK_CONFIG_PATH wins when both are set. */
    nv_config("profile: t4\ncount: 2\n");
    NV_OK(nv.nvmlInit_v2());
    NV_OK(nv.nvmlDeviceGetCount_v2(&n));
    ck_assert_uint_eq(n, 2);
    NV_OK(nv.nvmlShutdown());
}
END_TEST

typedef struct {
    int (*init)(void);
} init_call;

static int init_v2(void) { return nv.nvmlInit_v2(); }
static int init_v1(void) { return nv.nvmlInit(); }
static int init_flags(void) { return nv.nvmlInitWithFlags(0); }

/* In a child: init must fail with NVML_ERROR_UNKNOWN (exit 0), and calls
 * after it answer UNINITIALIZED. */
static int failing_init(void *arg)
{
    const init_call *c = arg;
    nvmlReturn_t rc = c->init();
    unsigned n;
    if (rc == NVML_SUCCESS)
        return 1;
    if (nv.nvmlDeviceGetCount_v2(&n) != NVML_ERROR_UNINITIALIZED)
        return 2;
    return rc == NVML_ERROR_UNKNOWN ? 0 : 3;
}

/* The config at `path` holds `yaml` (NULL: leave it as it is); init fails
 * with one stderr line: "mokka: cannot load the GPU config PATH: DIAG". */
static void init_refused(const char *path, const char *diag)
{
    static const init_call calls[] = { { init_v2 }, { init_v1 }, { init_flags } };
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        char err[8192], want[8192];
        int rc = t_child_stderr(failing_init, (void *)&calls[i], err, sizeof err);
        ck_assert_msg(rc == 0, "init %zu: %s", i, rc == 1 ? "succeeded" : rc == 2 ?
                      "calls work after a failed init" : "not NVML_ERROR_UNKNOWN");
        snprintf(want, sizeof want, "mokka: cannot load the GPU config %s: %s\n", path, diag);
        ck_assert_msg(t_count_lines(err) == 1, "stderr:\n%s", err);
        ck_assert_str_eq(err, want);
    }
}

START_TEST(bad_configs_fail_init_with_one_line)
{
    nv_open();
    char diag[8192];
    const char *p = nv_config("profile: t4\ncount: 2\ndevices: [{index: 0, temprature: 40}]\n");
    snprintf(diag, sizeof diag, "%s:3:22: error: unknown key 'temprature' in device 0; did you "
             "mean 'temperature'?", p);
    init_refused(p, diag);

    p = nv_config("profile: t4\ncount: [2\n");
    snprintf(diag, sizeof diag, "%s:3:1: error: YAML syntax error: did not find expected ',' or "
             "']' while parsing a flow sequence", p);
    init_refused(p, diag);

    /* Several errors: the first, and how many more. */
    p = nv_config("profile: t4\ncount: 2\ncolour: red\ndefaults: {fans: many, pstate: P99}\n");
    snprintf(diag, sizeof diag, "%s:3:1: error: unknown key 'colour' in the config (and 2 more; "
             "run `mokka lint` on the file)", p);
    init_refused(p, diag);

    p = nv_config("");
    snprintf(diag, sizeof diag, "%s:1:1: error: expected a config map with `devices:` or "
             "`profile:` and `count:`", p);
    init_refused(p, diag);

    /* Hostile configs cost what lint says, and one line: nesting 20,000 deep
     * stops at the limit, and 512 GPUs sharing a minor are one error. */
    size_t depth = 20000;
    char *deep = malloc(depth * 5 + 8);
    ck_assert_ptr_nonnull(deep);
    for (size_t i = 0; i < depth; i++)
        memcpy(deep + 4 * i, "{a: ", 4);
    memset(deep + 4 * depth, '}', depth);
    deep[5 * depth] = 0;
    p = nv_config(deep);
    free(deep);
    snprintf(diag, sizeof diag, "%s:1:1025: error: nested deeper than 256 levels (the limit)", p);
    init_refused(p, diag);
    p = nv_config("profile: a100-sxm4-40gb\ncount: 512\ndefaults: {minorNumber: 5}\n");
    snprintf(diag, sizeof diag, "%s:2:8: error: GPU 1: minorNumber 5 is already used by GPU 0; "
             "512 GPUs share it (GPUs 0, 1, 2, 3, 4, 5, 6, 7 and 504 more)", p);
    init_refused(p, diag);

    char missing[4500];
    snprintf(missing, sizeof missing, "%s/none.yaml", mk_test_tmpdir("config"));
    setenv("MOCK_CONFIG_PATH", missing, 1);
    snprintf(diag, sizeof diag, "%s: error: cannot open: No such file or directory", missing);
    init_refused(missing, diag);

    const char *dir = mk_test_tmpdir("config");
    setenv("MOCK_CONFIG_PATH", dir, 1);
    snprintf(diag, sizeof diag, "%s: error: cannot read: Is a directory", dir);
    init_refused(dir, diag);

    if (geteuid() != 0) {   /* root reads any file */
        p = nv_config("profile: t4\ncount: 1\n");
        ck_assert_int_eq(chmod(p, 0), 0);
        snprintf(diag, sizeof diag, "%s: error: cannot open: Permission denied", p);
        init_refused(p, diag);
    }
}
END_TEST

/* Versions as long as NVML's buffers allow come back whole. */
START_TEST(long_versions)
{
    char yaml[512], driver[64], nvml[80], buf[80];
    memset(driver, '5', 63);
    driver[63] = 0;
    memset(nvml, '7', 79);
    nvml[79] = 0;
    snprintf(yaml, sizeof yaml, "profile: h100-sxm5-80gb\ncount: 1\ndriverVersion: '%s'\n"
             "nvmlVersion: '%s'\n", driver, nvml);
    nv_start(yaml);
    NV_OK(nv.nvmlSystemGetDriverVersion(buf, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE));
    ck_assert_str_eq(buf, driver);
    NV_OK(nv.nvmlSystemGetNVMLVersion(buf, NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE));
    ck_assert_str_eq(buf, nvml);
    NV_OK(nv.nvmlDeviceGetGspFirmwareVersion(nv_gpu(0), buf));
    ck_assert_str_eq(buf, driver);
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* After a failed init the library stays usable: a good config later works. */
START_TEST(failed_init_then_good_config)
{
    nv_open();
    nv_config("profile: nope\ncount: 1\n");
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    nvmlReturn_t rc = nv.nvmlInit_v2();
    dup2(saved, 2);
    close(null);
    close(saved);
    NV_RC(NVML_ERROR_UNKNOWN, rc);
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlShutdown());
    nv_config("profile: t4\ncount: 1\n");
    NV_OK(nv.nvmlInit_v2());
    unsigned n;
    NV_OK(nv.nvmlDeviceGetCount_v2(&n));
    ck_assert_uint_eq(n, 1);
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(state_file)
{
    nv_open();
    nv_config("profile: t4\ncount: 2\n");
    const char *path = nv_state_dir();
    NV_OK(nv.nvmlInit_v2());
    mk_state st;
    char err[512];
    ck_assert_msg(mk_state_open_existing(&st, path, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(st.hdr->ndev, 2);
    ck_assert_str_eq(st.hdr->node, "test-node");
    int attached = 0;
    for (int i = 0; i < MK_STATE_PIDS; i++)
        attached |= st.hdr->pids[i] == getpid();
    ck_assert(attached);
    unsigned n;
    NV_OK(nv.nvmlDeviceGetCount_v2(&n));
    NV_OK(nv.nvmlShutdown());
    attached = 0;
    for (int i = 0; i < MK_STATE_PIDS; i++)
        attached |= st.hdr->pids[i] == getpid();
    ck_assert(!attached);
    /* Calls are counted per function, in the file. */
    int found = 0;
    for (unsigned f = 0; f < st.hdr->nfn; f++)
        if (strcmp(st.names[f], "nvmlDeviceGetCount_v2") == 0) {
            ck_assert_uint_eq(mk_state_calls(&st, f, NULL), 1);
            found = 1;
        }
    ck_assert(found);
    mk_state_close(&st);
}
END_TEST

static int init_with_bad_state_dir(void *arg)
{
    (void)arg;
    if (nv.nvmlInit_v2() != NVML_SUCCESS)
        return 1;
    unsigned n;
    return nv.nvmlDeviceGetCount_v2(&n) == NVML_SUCCESS && n == 1 ? 0 : 2;
}

/* A state directory that cannot be used is said, once, and the library
 * works from private memory. */
START_TEST(unusable_state_dir)
{
    nv_open();
    nv_config("profile: t4\ncount: 1\n");
    char file[4500], dir[4600], err[4096], want[8192];
    snprintf(file, sizeof file, "%s/file", mk_test_tmpdir("state"));
    mk_test_write(file, "x");
    snprintf(dir, sizeof dir, "%s/state", file);
    setenv("MOKKA_STATE_DIR", dir, 1);
    ck_assert_int_eq(t_child_stderr(init_with_bad_state_dir, NULL, err, sizeof err), 0);
    snprintf(want, sizeof want, "mokka: live state: cannot create state directory %s: Not a "
             "directory; using private memory (mokka stats and inject cannot reach this "
             "process)\n", dir);
    ck_assert_str_eq(err, want);
}
END_TEST

/* Nothing runs at load or init: no thread of the library's own, ever. */
START_TEST(no_threads)
{
    int before = mk_test_nthreads();
    nv_open();
    ck_assert_int_eq(mk_test_nthreads(), before);
    nv_config("profile: a100-sxm4-40gb\ncount: 2\ndefaults: {unhealthy_after_seconds: 0.2}\n");
    nv_state_dir();
    NV_OK(nv.nvmlInit_v2());
    ck_assert_int_eq(mk_test_nthreads(), before);
    nvmlEventSet_t set;
    nvmlEventData_t e;
    NV_OK(nv.nvmlEventSetCreate(&set));
    NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(0), nvmlEventTypeXidCriticalError, set));
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 2000));
    ck_assert_int_eq(mk_test_nthreads(), before);
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
    ck_assert_int_eq(mk_test_nthreads(), before);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvml_init");
    TCase *tc = tcase_create("nvml_init");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, calls_before_init);
    tcase_add_test(tc, reference_counting);
    tcase_add_test(tc, default_universe);
    tcase_add_test(tc, handles_survive_cycles);
    tcase_add_test(tc, config_from_either_variable);
    tcase_add_test(tc, bad_configs_fail_init_with_one_line);
    tcase_add_test(tc, long_versions);
    tcase_add_test(tc, failed_init_then_good_config);
    tcase_add_test(tc, state_file);
    tcase_add_test(tc, unusable_state_dir);
    tcase_add_test(tc, no_threads);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
