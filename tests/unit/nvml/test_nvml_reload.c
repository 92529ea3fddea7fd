/* test_nvml_reload.c - hot reload of the config file in a running process:
 * a changed live value is served and a new health rule fires within about
 * a second while the process waits for events; identity changes and broken
 * files are refused with one stderr line and change nothing; the file is
 * looked at no more than every 500 ms, by the calling threads (the library
 * has none of its own). Prints the measured reload latencies. */
#include <sys/stat.h>
#include "ids.h"
#include "nvml_dl.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

static uint64_t used_bytes(unsigned gpu)
{
    nvmlMemory_v2_t m = { .version = nvmlMemory_v2 };
    NV_OK(nv.nvmlDeviceGetMemoryInfo_v2(nv_gpu(gpu), &m));
    return m.used;
}

/* Polls (sparingly, so that this thread's own calls do not drive the
 * check) until GPU gpu serves `want` bytes used; the milliseconds it took. */
static double until_used(unsigned gpu, uint64_t want, double limit_ms)
{
    double t0 = mk_test_now_ms();
    while (used_bytes(gpu) != want) {
        ck_assert_msg(mk_test_now_ms() - t0 < limit_ms, "GPU %u still serves %llu bytes used", gpu,
                      (unsigned long long)used_bytes(gpu));
        mk_test_sleep_ms(10);
    }
    return mk_test_now_ms() - t0;
}

START_TEST(live_value_reloaded_while_waiting)
{
    nv_open();
    const char *path = nv_config("profile: a100-sxm4-40gb\ncount: 2\n"
                                 "defaults: {memoryUsed: 1GiB}\n");
    const char *state = nv_state_dir();
    int threads = mk_test_nthreads();
    NV_OK(nv.nvmlInit_v2());
    nv_waiter w;
    nv_waiter_start(&w, nv_xid_set(0), 15000);
    mk_test_sleep_ms(600);   /* past the first look at the file */
    ck_assert_uint_eq(used_bytes(1), GiB);
    double worst = 0;
    static const char *const values[] = { "5GiB", "7GiB", "2048MiB" };
    static const uint64_t bytes[] = { 5 * GiB, 7 * GiB, 2 * GiB };
    for (int i = 0; i < 3; i++) {
        char yaml[256];
        snprintf(yaml, sizeof yaml, "profile: a100-sxm4-40gb\ncount: 2\n"
                 "defaults: {memoryUsed: %s}\n", values[i]);
        mk_test_write(path, yaml);
        double took = until_used(1, bytes[i], 3000);
        fprintf(stderr, "measure: memoryUsed %s served %.0f ms after the file changed\n",
                values[i], took);
        if (took > worst)
            worst = took;
        ck_assert_int_eq(mk_test_nthreads(), threads + 1);   /* the waiter, nothing more */
    }
    ck_assert_double_lt(worst, 1500);
    mk_state st;
    char err[512];
    ck_assert_msg(mk_state_open_existing(&st, state, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(st.hdr->reloads, 3);
    nv_inject(st.path, 0, MK_FAULT_XID, 31, -1);            /* let the waiter go */
    mk_state_close(&st);
    nv_waiter_join(&w);
    NV_OK(w.rc);
    NV_OK(nv.nvmlEventSetFree(w.set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(rule_added_while_waiting)
{
    nv_open();
    const char *path = nv_config("profile: a100-sxm4-40gb\ncount: 2\n"
                                 "defaults: {temperature: 90}\n");
    NV_OK(nv.nvmlInit_v2());
    nv_waiter w;
    nv_waiter_start(&w, nv_xid_set(1), 15000);
    mk_test_sleep_ms(300);
    double changed = mk_test_now_ms();
    mk_test_write(path, "profile: a100-sxm4-40gb\ncount: 2\ndefaults: {temperature: 90}\n"
                  "devices:\n  - {index: 1, unhealthy_on_temperature: 85, xid: 62}\n");
    nv_waiter_join(&w);
    NV_OK(w.rc);
    ck_assert_uint_eq(w.e.eventData, 62);
    ck_assert_ptr_eq(w.e.device, nv_gpu(1));
    double took = w.returned - changed;
    fprintf(stderr, "measure: a health rule added to the file fired %.0f ms after the change\n",
            took);
    ck_assert_double_lt(took, 1500);
    /* A rule that changes again may fire again; one that stays does not. */
    nvmlEventData_t e;
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(w.set, &e, 700));
    mk_test_write(path, "profile: a100-sxm4-40gb\ncount: 2\ndefaults: {temperature: 90}\n"
                  "devices:\n  - {index: 1, unhealthy_on_temperature: 86, xid: 63}\n");
    NV_OK(nv.nvmlEventSetWait_v2(w.set, &e, 3000));
    ck_assert_uint_eq(e.eventData, 63);
    NV_OK(nv.nvmlEventSetFree(w.set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

typedef struct {
    const char *path;
    const char *first, *second;   /* config at init, and what it becomes */
} refusal;

/* In a child: init with `first`, rewrite to `second`, give the library a
 * chance to look (an event wait), and check that nothing changed. */
static int refused_reload(void *arg)
{
    const refusal *r = arg;
    mk_test_write(r->path, r->first);
    if (nv.nvmlInit_v2() != NVML_SUCCESS)
        return 1;
    char uuid[96], after[96];
    nvmlDevice_t h;
    unsigned n;
    if (nv.nvmlDeviceGetHandleByIndex_v2(1, &h) || nv.nvmlDeviceGetUUID(h, uuid, sizeof uuid))
        return 2;
    uint64_t used = used_bytes(1);
    nvmlEventSet_t set;
    nvmlEventData_t e;
    if (nv.nvmlEventSetCreate(&set) ||
        nv.nvmlDeviceRegisterEvents(h, nvmlEventTypeXidCriticalError, set))
        return 3;
    mk_test_sleep_ms(600);
    mk_test_write(r->path, r->second);
    if (nv.nvmlEventSetWait_v2(set, &e, 1500) != NVML_ERROR_TIMEOUT)
        return 4;
    if (nv.nvmlDeviceGetCount_v2(&n) || n != 2 || nv.nvmlDeviceGetUUID(h, after, sizeof after) ||
        strcmp(uuid, after) || used_bytes(1) != used)
        return 5;
    /* The next good file is taken again. */
    mk_test_write(r->path, "profile: a100-sxm4-40gb\ncount: 2\ndefaults: {memoryUsed: 3GiB}\n");
    double t0 = mk_test_now_ms();
    while (used_bytes(1) != 3 * GiB) {
        nv.nvmlEventSetWait_v2(set, &e, 100);
        if (mk_test_now_ms() - t0 > 3000)
            return 6;
    }
    return nv.nvmlShutdown() == NVML_SUCCESS ? 0 : 7;
}

static void expect_refusal(const char *second, const char *line_fmt)
{
    char path[4500], err[8192], want[8192];
    snprintf(path, sizeof path, "%s/config.yaml", mk_test_tmpdir("config"));
    setenv("MOCK_CONFIG_PATH", path, 1);
    refusal r = { path, "profile: a100-sxm4-40gb\ncount: 2\ndefaults: {memoryUsed: 1GiB}\n",
                  second };
    int rc = t_child_stderr(refused_reload, &r, err, sizeof err);
    ck_assert_msg(rc == 0, "child failed at step %d; stderr:\n%s", rc, err);
    snprintf(want, sizeof want, line_fmt, path, path);
    ck_assert_msg(t_count_lines(err) == 1, "stderr:\n%s", err);
    ck_assert_str_eq(err, want);
}

START_TEST(identity_changes_refused)
{
    nv_open();
    expect_refusal("profile: a100-sxm4-40gb\ncount: 3\n",
                   "mokka: config reload of %s refused: the GPU count changed from 2 to 3 "
                   "(identity changes need a restart); the running GPUs are unchanged\n");
    char uuid[MK_UUID_LEN], fmt[512];
    mk_derive_gpu_uuid("test-node", 1, uuid, sizeof uuid);
    snprintf(fmt, sizeof fmt, "mokka: config reload of %%s refused: GPU 1's uuid changed from %s "
             "to GPU-11111111-2222-3333-4444-555555555555 (identity changes need a restart); "
             "the running GPUs are unchanged\n", uuid);
    expect_refusal("profile: a100-sxm4-40gb\ncount: 2\n"
                   "devices:\n  - {index: 1, uuid: GPU-11111111-2222-3333-4444-555555555555}\n",
                   fmt);
    expect_refusal("profile: a100-sxm4-40gb\ncount: 2\n"
                   "devices:\n  - {index: 1, pciBusID: \"0000:99:00.0\"}\n",
                   "mokka: config reload of %s refused: GPU 1's pciBusID changed from "
                   "0000:0F:00.0 to 0000:99:00.0 (identity changes need a restart); the running "
                   "GPUs are unchanged\n");
    expect_refusal("profile: a100-sxm4-40gb\ncount: 2\n"
                   "devices:\n  - {index: 0, mig: {instances: [7g.40gb]}}\n",
                   "mokka: config reload of %s refused: GPU 0's MIG layout changed (identity "
                   "changes need a restart); the running GPUs are unchanged\n");
}
END_TEST

START_TEST(broken_files_refused)
{
    nv_open();
    expect_refusal("profile: a100-sxm4-40gb\ncount: [2\n",
                   "mokka: config reload refused, the running GPUs are unchanged: %s:3:1: error: "
                   "YAML syntax error: did not find expected ',' or ']' while parsing a flow "
                   "sequence\n");
    expect_refusal("profile: a100-sxm4-40gb\ncount: 2\ndefaults: {memoryUsed: lots}\n",
                   "mokka: config reload refused, the running GPUs are unchanged: %s:3:24: "
                   "error: memoryUsed: 'lots': expected a size like 40GB, 40GiB, 4864MiB or a "
                   "bare number (MB from 1024 up, GB below)\n");
}
END_TEST

typedef struct {
    volatile int stop;
    unsigned long calls;
} caller;

static void *call_thread(void *arg)
{
    caller *c = arg;
    unsigned n;
    while (!c->stop) {
        nv.nvmlDeviceGetCount_v2(&n);
        c->calls++;
    }
    return NULL;
}

/* However often the file changes and however busy the callers are, it is
 * looked at no more than every 500 ms. */
START_TEST(checks_at_most_every_500ms)
{
    nv_open();
    const char *path = nv_config("profile: a100-sxm4-40gb\ncount: 2\n"
                                 "defaults: {memoryUsed: 1GiB}\n");
    const char *state = nv_state_dir();
    NV_OK(nv.nvmlInit_v2());
    nv_waiter w;
    pthread_t busy;
    nv_waiter_start(&w, nv_xid_set(0), 15000);
    caller c = { 0, 0 };
    ck_assert_int_eq(pthread_create(&busy, NULL, call_thread, &c), 0);
    double t0 = mk_test_now_ms();
    for (int i = 0; mk_test_now_ms() - t0 < 3000; i++) {
        char yaml[128];
        snprintf(yaml, sizeof yaml, "profile: a100-sxm4-40gb\ncount: 2\n"
                 "defaults: {memoryUsed: %dGiB}\n", 1 + i % 9);
        mk_test_write(path, yaml);
        mk_test_sleep_ms(50);
    }
    double spent = mk_test_now_ms() - t0;
    c.stop = 1;
    pthread_join(busy, NULL);
    mk_state st;
    char err[512];
    ck_assert_msg(mk_state_open_existing(&st, state, err, sizeof err) == 0, "%s", err);
    uint32_t reloads = st.hdr->reloads;
    fprintf(stderr, "measure: %u reloads in %.0f ms of changes every 50 ms (%lu getter calls "
            "meanwhile)\n", reloads, spent, c.calls);
    ck_assert_uint_ge(reloads, 3);
    ck_assert_uint_le(reloads, (unsigned)(spent / 500) + 1);
    mk_state_raise(&st, 0, MK_FAULT_XID, 31, -1);
    mk_state_close(&st);
    nv_waiter_join(&w);
    NV_OK(nv.nvmlEventSetFree(w.set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* Getter calls alone (no event wait) also bring a change in. */
START_TEST(getters_alone_reload)
{
    nv_open();
    const char *path = nv_config("profile: a100-sxm4-40gb\ncount: 1\n"
                                 "defaults: {memoryUsed: 1GiB}\n");
    NV_OK(nv.nvmlInit_v2());
    mk_test_write(path, "profile: a100-sxm4-40gb\ncount: 1\ndefaults: {memoryUsed: 4GiB}\n");
    double t0 = mk_test_now_ms();
    unsigned n;
    while (used_bytes(0) != 4 * GiB) {
        ck_assert_double_lt(mk_test_now_ms() - t0, 3000);
        for (int i = 0; i < 300; i++)
            NV_OK(nv.nvmlDeviceGetCount_v2(&n));
        mk_test_sleep_ms(1);
    }
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* A new file of the same size and the same time stamp (written within one
 * tick of the file system's clock) is still seen. */
START_TEST(same_size_same_mtime)
{
    nv_open();
    const char *path = nv_config("profile: a100-sxm4-40gb\ncount: 1\n"
                                 "defaults: {memoryUsed: 1GiB}\n");
    NV_OK(nv.nvmlInit_v2());
    struct stat before;
    ck_assert_int_eq(stat(path, &before), 0);
    mk_test_write(path, "profile: a100-sxm4-40gb\ncount: 1\ndefaults: {memoryUsed: 6GiB}\n");
    struct timespec times[2] = { before.st_atim, before.st_mtim };
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    nvmlEventSet_t set;
    nvmlEventData_t e;
    NV_OK(nv.nvmlEventSetCreate(&set));
    NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(0), nvmlEventTypeXidCriticalError, set));
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 1200));
    ck_assert_uint_eq(used_bytes(0), 6 * GiB);
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvml_reload");
    TCase *tc = tcase_create("nvml_reload");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, live_value_reloaded_while_waiting);
    tcase_add_test(tc, rule_added_while_waiting);
    tcase_add_test(tc, identity_changes_refused);
    tcase_add_test(tc, broken_files_refused);
    tcase_add_test(tc, checks_at_most_every_500ms);
    tcase_add_test(tc, getters_alone_reload);
    tcase_add_test(tc, same_size_same_mtime);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
