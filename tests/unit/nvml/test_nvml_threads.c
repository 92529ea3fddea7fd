/* test_nvml_threads.c - the library under many threads at once, for a few
 * seconds: getters (GPU and MIG), event waits with injections and rules
 * firing, config reloads, and init/shutdown pairs, first beside a process
 * that holds the library open and then with nobody holding it, so that
 * first init and last shutdown race too. Passes when every call answers
 * as it should, nothing deadlocks (Check's timeout bounds the test), and,
 * under `make tsan`, no data race is reported. */
#include "nvml_dl.h"

#define SECONDS 3.0

static const char yaml_a[] =
    "profile: a100-sxm4-40gb\ncount: 4\nseed: 3\n"
    "defaults: {temperature: 30-60, memoryUsed: 1GiB-3GiB, utilization: {gpu: -1}}\n"
    "devices:\n"
    "  - {index: 1, mig: {instances: [3g.20gb, 2g.10gb, 1g.5gb]}}\n"
    "  - {index: 2, temperature: 50-90, unhealthy_on_temperature: 85, xid: 43}\n"
    "  - {index: 3, unhealthy_after_seconds: 1, mode: ecc}\n";
/* The same GPUs with other live values and rules: a reload takes it. */
static const char yaml_b[] =
    "profile: a100-sxm4-40gb\ncount: 4\nseed: 3\n"
    "defaults: {temperature: 40-70, memoryUsed: 2GiB-4GiB, utilization: {gpu: -1}}\n"
    "devices:\n"
    "  - {index: 1, mig: {instances: [3g.20gb, 2g.10gb, 1g.5gb]}}\n"
    "  - {index: 2, temperature: 50-90, unhealthy_on_temperature: 80, xid: 44}\n"
    "  - {index: 3, unhealthy_after_seconds: 2, mode: ecc}\n";

typedef struct {
    double until;   /* mk_test_now_ms() */
    const char *config, *state;
    _Atomic unsigned long calls, events, cycles, failures;
    char failure[256];
} run;

static void note_failure(run *r, const char *what, nvmlReturn_t rc)
{
    if (atomic_fetch_add(&r->failures, 1) == 0)
        snprintf(r->failure, sizeof r->failure, "%s: %s (%d)", what, nv.nvmlErrorString(rc), rc);
}

#define CALL(r, call) do { \
        nvmlReturn_t rc_ = (call); \
        atomic_fetch_add_explicit(&(r)->calls, 1, memory_order_relaxed); \
        if (rc_ != NVML_SUCCESS) note_failure((r), #call, rc_); \
    } while (0)

/* One round of the queries a device plugin and an exporter make. */
static void getters(run *r)
{
    unsigned n;
    CALL(r, nv.nvmlDeviceGetCount_v2(&n));
    if (n != 4) {
        note_failure(r, "count", NVML_ERROR_UNKNOWN);
        return;
    }
    for (unsigned i = 0; i < n; i++) {
        nvmlDevice_t h, again, mig, parent;
        char name[96], uuid[96];
        nvmlPciInfo_t pci;
        nvmlMemory_t mem;
        nvmlGpuTopologyLevel_t level;
        CALL(r, nv.nvmlDeviceGetHandleByIndex_v2(i, &h));
        CALL(r, nv.nvmlDeviceGetName(h, name, sizeof name));
        CALL(r, nv.nvmlDeviceGetUUID(h, uuid, sizeof uuid));
        CALL(r, nv.nvmlDeviceGetHandleByUUID(uuid, &again));
        CALL(r, nv.nvmlDeviceGetPciInfo_v3(h, &pci));
        CALL(r, nv.nvmlDeviceGetTopologyCommonAncestor(h, again, &level));
        nvmlReturn_t rc = nv.nvmlDeviceGetMemoryInfo(h, &mem);
        if (rc != NVML_SUCCESS && rc != NVML_ERROR_GPU_IS_LOST)
            note_failure(r, "nvmlDeviceGetMemoryInfo", rc);
        unsigned cur, pend, count;
        CALL(r, nv.nvmlDeviceGetMigMode(h, &cur, &pend));
        if (cur != NVML_DEVICE_MIG_ENABLE)
            continue;
        CALL(r, nv.nvmlDeviceGetMaxMigDeviceCount(h, &count));
        for (unsigned j = 0; j < 3; j++) {
            unsigned gi, ci;
            nvmlDeviceAttributes_t attr;
            nvmlGpuInstance_t gih;
            nvmlGpuInstanceInfo_t info;
            CALL(r, nv.nvmlDeviceGetMigDeviceHandleByIndex(h, j, &mig));
            CALL(r, nv.nvmlDeviceGetDeviceHandleFromMigDeviceHandle(mig, &parent));
            CALL(r, nv.nvmlDeviceGetAttributes_v2(mig, &attr));
            CALL(r, nv.nvmlDeviceGetGpuInstanceId(mig, &gi));
            CALL(r, nv.nvmlDeviceGetComputeInstanceId(mig, &ci));
            CALL(r, nv.nvmlDeviceGetGpuInstanceById(h, gi, &gih));
            CALL(r, nv.nvmlGpuInstanceGetInfo(gih, &info));
        }
    }
}

static void *getter_thread(void *arg)
{
    run *r = arg;
    while (mk_test_now_ms() < r->until)
        getters(r);
    return NULL;
}

/* Waits with short timeouts on its own set of every GPU. */
static void *event_thread(void *arg)
{
    run *r = arg;
    nvmlEventSet_t set;
    CALL(r, nv.nvmlEventSetCreate(&set));
    for (unsigned i = 0; i < 4; i++) {
        nvmlDevice_t h;
        CALL(r, nv.nvmlDeviceGetHandleByIndex_v2(i, &h));
        CALL(r, nv.nvmlDeviceRegisterEvents(h, 0xb, set));
    }
    while (mk_test_now_ms() < r->until) {
        nvmlEventData_t e;
        nvmlReturn_t rc = nv.nvmlEventSetWait_v2(set, &e, 50);
        if (rc == NVML_SUCCESS)
            atomic_fetch_add(&r->events, 1);
        else if (rc != NVML_ERROR_TIMEOUT)
            note_failure(r, "nvmlEventSetWait_v2", rc);
    }
    CALL(r, nv.nvmlEventSetFree(set));
    return NULL;
}

/* `mokka inject` from this process: its own mapping of the state file. */
static void *inject_thread(void *arg)
{
    run *r = arg;
    mk_state st;
    char err[512];
    if (mk_state_open_existing(&st, r->state, err, sizeof err) != 0) {
        note_failure(r, err, NVML_ERROR_UNKNOWN);
        return NULL;
    }
    for (unsigned x = 1; mk_test_now_ms() < r->until; x++) {
        mk_state_raise(&st, x % 2 ? 0 : 1, MK_FAULT_XID, 13, x % 4 == 0 ? 1 : -1);
        if (x % 5 == 0)
            mk_state_raise_ecc(&st, 0, 0, -1);
        if (x % 7 == 0)
            mk_state_pin(&st, 0, MK_M_TEMP, (int64_t)(x % 50) + 30);
        mk_test_sleep_ms(10);
    }
    mk_state_close(&st);
    return NULL;
}

static void *reload_thread(void *arg)
{
    run *r = arg;
    for (int i = 0; mk_test_now_ms() < r->until; i++) {
        mk_test_write(r->config, i % 2 ? yaml_a : yaml_b);
        mk_test_sleep_ms(200);
    }
    return NULL;
}

/* init, a round of getters, shutdown: the pair go-nvml makes per request. */
static void *cycle_thread(void *arg)
{
    run *r = arg;
    while (mk_test_now_ms() < r->until) {
        nvmlReturn_t rc = nv.nvmlInit_v2();
        if (rc != NVML_SUCCESS) {
            note_failure(r, "nvmlInit_v2", rc);
            continue;
        }
        getters(r);
        CALL(r, nv.nvmlShutdown());
        atomic_fetch_add(&r->cycles, 1);
    }
    return NULL;
}

typedef void *(*thread_fn)(void *);

static void run_threads(run *r, const thread_fn *fns, int n)
{
    pthread_t th[32];
    r->until = mk_test_now_ms() + SECONDS * 1000;
    for (int i = 0; i < n; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, fns[i], r), 0);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    ck_assert_msg(r->failures == 0, "%lu failures, the first: %s", r->failures, r->failure);
}

static void setup(run *r)
{
    nv_open();
    memset(r, 0, sizeof *r);
    r->config = nv_config(yaml_a);
    r->state = nv_state_dir();
}

START_TEST(everything_at_once)
{
    run r;
    setup(&r);
    NV_OK(nv.nvmlInit_v2());    /* held throughout, as a device plugin holds it */
    static const thread_fn fns[] = { getter_thread, getter_thread, getter_thread, getter_thread,
                                     event_thread, event_thread, event_thread, inject_thread,
                                     reload_thread, cycle_thread, cycle_thread };
    run_threads(&r, fns, (int)(sizeof fns / sizeof fns[0]));
    fprintf(stderr, "measure: %d threads for %.0f s: %lu calls, %lu events, %lu init/shutdown "
            "pairs\n", (int)(sizeof fns / sizeof fns[0]), SECONDS, r.calls, r.events, r.cycles);
    ck_assert_uint_gt(r.events, 10);
    ck_assert_uint_gt(r.cycles, 10);
    NV_OK(nv.nvmlShutdown());
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlShutdown());
}
END_TEST

/* Nobody holds the library: first init and last shutdown happen again and
 * again, while other threads are inside their own pairs. */
START_TEST(first_init_and_last_shutdown_race)
{
    run r;
    setup(&r);
    static const thread_fn fns[] = { cycle_thread, cycle_thread, cycle_thread, cycle_thread,
                                     cycle_thread, cycle_thread };
    run_threads(&r, fns, (int)(sizeof fns / sizeof fns[0]));
    fprintf(stderr, "measure: %lu init/shutdown pairs on 6 threads in %.0f s\n", r.cycles,
            SECONDS);
    ck_assert_uint_gt(r.cycles, 60);
    unsigned n;
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlDeviceGetCount_v2(&n));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvml_threads");
    TCase *tc = tcase_create("nvml_threads");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, everything_at_once);
    tcase_add_test(tc, first_init_and_last_shutdown_race);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
