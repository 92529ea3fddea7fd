/* test_nvml_leaks.c - 10,000 nvmlInit/nvmlShutdown cycles (with getters,
 * event sets, MIG, the state file and config reloads in between) and
 * 1,000 failed inits leave nothing behind: LeakSanitizer checks it under
 * `make asan`; in a normal build the resident set size must not grow.
 * Prints RSS before and after. */
#include "nvml_dl.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define CYCLES 10000

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fscanf(f, "%ld %ld", &size, &resident), 2);
    fclose(f);
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static const char yaml_a[] = "profile: a100-sxm4-40gb\ncount: 8\n"
                             "defaults: {temperature: 30-40, memoryUsed: 1GiB-2GiB}\n"
                             "devices:\n  - {index: 3, mig: {instances: [3g.20gb, 3g.20gb]}}\n";
static const char yaml_b[] = "profile: a100-sxm4-40gb\ncount: 8\n"
                             "defaults: {temperature: 40-50, memoryUsed: 2GiB-3GiB}\n"
                             "devices:\n  - {index: 3, mig: {instances: [3g.20gb, 3g.20gb]}}\n";

/* One client's life: init, look around, maybe wait for an event (where a
 * changed config is reloaded), shut down. */
static void cycle(int i, const char *config)
{
    NV_OK(nv.nvmlInit_v2());
    unsigned n;
    NV_OK(nv.nvmlDeviceGetCount_v2(&n));
    nvmlDevice_t mig;
    NV_OK(nv.nvmlDeviceGetMigDeviceHandleByIndex(nv_gpu(3), 1, &mig));
    nvmlMemory_t mem;
    NV_OK(nv.nvmlDeviceGetMemoryInfo(nv_gpu(i % 8), &mem));
    nvmlEventSet_t set;
    NV_OK(nv.nvmlEventSetCreate(&set));
    NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(i % 8), nvmlEventTypeXidCriticalError, set));
    if (i % 1000 == 999) {
        /* Let a changed config be reloaded: the old one is kept until the
         * last shutdown, which must free it. */
        mk_test_write(config, i % 2000 == 999 ? yaml_b : yaml_a);
        nvmlEventData_t e;
        NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 600));
    }
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}

START_TEST(init_shutdown_cycles)
{
    nv_open();
    const char *config = nv_config(yaml_a);
    nv_state_dir();
    for (int i = 0; i < 200; i++)    /* warm up: the C library's own buffers */
        cycle(i, config);
    long before = rss_kib();
    double t0 = mk_test_now_ms();
    for (int i = 0; i < CYCLES; i++)
        cycle(i, config);
    double took = mk_test_now_ms() - t0;
    long after = rss_kib();
    fprintf(stderr, "measure: %d init/shutdown cycles in %.0f ms (%.0f us each); RSS %ld KiB "
            "before, %ld KiB after (%+ld KiB)%s\n", CYCLES, took, took / CYCLES * 1e3, before,
            after, after - before, UNDER_ASAN ? " under ASan, not judged" : "");
    if (!UNDER_ASAN)
        ck_assert_msg(after - before < 1024, "RSS grew by %ld KiB", after - before);
}
END_TEST

START_TEST(failed_inits)
{
    nv_open();
    nv_config("profile: a100-sxm4-40gb\ncount: 2\ndefaults: {temprature: 40}\n"
              "devices:\n  - {index: 1, mig: {instances: [9g.99gb]}}\n");
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    long before = 0;
    for (int i = 0; i < 1100; i++) {
        if (i == 100)
            before = rss_kib();
        nvmlReturn_t rc = nv.nvmlInit_v2();
        if (rc != NVML_ERROR_UNKNOWN) {
            dup2(saved, 2);
            ck_abort_msg("init %d returned %d", i, rc);
        }
    }
    long after = rss_kib();
    dup2(saved, 2);
    close(null);
    close(saved);
    fprintf(stderr, "measure: 1000 failed inits: RSS %ld KiB before, %ld KiB after\n", before,
            after);
    if (!UNDER_ASAN)
        ck_assert_msg(after - before < 512, "RSS grew by %ld KiB", after - before);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvml_leaks");
    TCase *tc = tcase_create("nvml_leaks");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, init_shutdown_cycles);
    tcase_add_test(tc, failed_inits);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
