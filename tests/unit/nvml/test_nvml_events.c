/* test_nvml_events.c - NVML events through the public API: waits that time
 * out, faults injected through the state file (from another process, as
 * `mokka inject` does) waking a waiter at once, health rules (after N
 * seconds, temperature, memory) delivering their XID, ECC and lost modes,
 * several sets on several threads, MIG-level faults, the v1 wait leaving
 * the MIG fields alone, and argument errors. Prints the measured wake-up
 * latencies. */
#include "nvml_dl.h"

#define XID nvmlEventTypeXidCriticalError
#define NO_ID 0xFFFFFFFFu

START_TEST(wait_times_out)
{
    nv_start("profile: a100-sxm4-40gb\ncount: 2\n");
    nvmlEventSet_t set = nv_xid_set(0);
    nvmlEventData_t e;
    static const unsigned timeouts[] = { 0, 50, 300, 1200 };
    for (size_t i = 0; i < sizeof timeouts / sizeof timeouts[0]; i++) {
        double t0 = mk_test_now_ms();
        NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, timeouts[i]));
        double took = mk_test_now_ms() - t0, want = timeouts[i];
        fprintf(stderr, "measure: EventSetWait_v2(timeout %u ms) returned TIMEOUT after %.1f ms\n",
                timeouts[i], took);
        ck_assert_msg(took >= want - 1 && took < want + 1000, "%u ms wait took %.1f ms",
                      timeouts[i], took);
    }
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* Injects from a forked child (another process, as `mokka inject` is) and
 * returns the time of the injection (mk_test_now_ms). */
static double inject_from_child(const char *state, unsigned gpu, mk_fault_mode mode,
                                unsigned xid, int mig)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = mk_test_fork();
    if (pid == 0) {
        mk_state st;
        char err[512];
        if (mk_state_open_existing(&st, state, err, sizeof err) != 0)
            _exit(2);
        double at = mk_test_now_ms();
        mk_state_raise(&st, gpu, mode, xid, mig);
        if (write(p[1], &at, sizeof at) != sizeof at)
            _exit(3);
        _exit(0);
    }
    double at = 0;
    ck_assert_int_eq(read(p[0], &at, sizeof at), sizeof at);
    ck_assert_int_eq(mk_test_wait(pid), 0);
    close(p[0]);
    close(p[1]);
    return at;
}

START_TEST(injection_wakes_a_waiter)
{
    const char *state = nv_start("profile: a100-sxm4-40gb\ncount: 4\n");
    nvmlEventSet_t set = nv_xid_set(2);
    double worst = 0, sum = 0;
    enum { ROUNDS = 5 };
    for (int round = 0; round < ROUNDS; round++) {
        nv_waiter j;
        nv_waiter_start(&j, set, 10000);
        mk_test_sleep_ms(100);                      /* let it go to sleep */
        double at = inject_from_child(state, 2, MK_FAULT_XID, 79 + (unsigned)round, -1);
        nv_waiter_join(&j);
        NV_OK(j.rc);
        double latency = j.returned - at;
        sum += latency;
        if (latency > worst)
            worst = latency;
        ck_assert_ptr_eq(j.e.device, nv_gpu(2));
        ck_assert_uint_eq(j.e.eventType, XID);
        ck_assert_uint_eq(j.e.eventData, 79 + (unsigned)round);
        ck_assert_uint_eq(j.e.gpuInstanceId, NO_ID);
        ck_assert_uint_eq(j.e.computeInstanceId, NO_ID);
        ck_assert_msg(latency < 1000, "woke %.1f ms after the injection", latency);
    }
    fprintf(stderr, "measure: wake-up after an injection from another process: mean %.3f ms, "
            "worst %.3f ms (%d rounds)\n", sum / ROUNDS, worst, ROUNDS);
    /* A fault raised by this process through its own mapping wakes too. */
    nv_waiter j;
    nv_waiter_start(&j, set, 10000);
    mk_test_sleep_ms(50);
    nv_inject(state, 2, MK_FAULT_XID, 13, -1);
    nv_waiter_join(&j);
    NV_OK(j.rc);
    ck_assert_uint_eq(j.e.eventData, 13);
    /* GPUs the set did not register stay silent. */
    nv_inject(state, 1, MK_FAULT_XID, 79, -1);
    nvmlEventData_t e;
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 100));
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* A set that registers a GPU already broken gets the fault that broke it
 * (a plugin started late must still see it), and nothing older; faults
 * queued while nobody waits are all delivered, in order, up to the ring's
 * size. */
START_TEST(queued_faults)
{
    const char *state = nv_start("profile: a100-sxm4-40gb\ncount: 2\n");
    nv_inject(state, 0, MK_FAULT_XID, 31, -1);
    nv_inject(state, 0, MK_FAULT_XID, 32, -1);
    nvmlEventSet_t set = nv_xid_set(0);
    nvmlEventData_t e;
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 50));
    ck_assert_uint_eq(e.eventData, 31);
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 50));
    ck_assert_uint_eq(e.eventData, 32);
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 50));
    for (unsigned x = 1; x <= 3; x++)
        nv_inject(state, 0, MK_FAULT_XID, x, -1);
    for (unsigned x = 1; x <= 3; x++) {
        NV_OK(nv.nvmlEventSetWait_v2(set, &e, 0));
        ck_assert_uint_eq(e.eventData, x);
    }
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 0));
    /* More than the ring holds: the newest MK_FAULT_RING arrive. */
    for (unsigned x = 101; x <= 140; x++)
        nv_inject(state, 0, MK_FAULT_XID, x, -1);
    for (unsigned x = 141 - MK_FAULT_RING; x <= 140; x++) {
        NV_OK(nv.nvmlEventSetWait_v2(set, &e, 0));
        ck_assert_uint_eq(e.eventData, x);
    }
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 0));
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* The time rule delivers its XID about N seconds after init. */
START_TEST(unhealthy_after_seconds)
{
    nv_open();
    nv_config("profile: h100-sxm5-80gb\ncount: 3\ndevices:\n"
              "  - {index: 1, unhealthy_after_seconds: 1}\n"
              "  - {index: 2, unhealthy_after_seconds: 1.5, xid: 94}\n");
    double t0 = mk_test_now_ms();
    NV_OK(nv.nvmlInit_v2());
    nvmlEventSet_t set;
    NV_OK(nv.nvmlEventSetCreate(&set));
    for (unsigned g = 0; g < 3; g++)
        NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(g), XID, set));
    nvmlEventData_t e;
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 5000));
    double first = mk_test_now_ms() - t0;
    ck_assert_ptr_eq(e.device, nv_gpu(1));
    ck_assert_uint_eq(e.eventData, 79);
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 5000));
    double second = mk_test_now_ms() - t0;
    ck_assert_ptr_eq(e.device, nv_gpu(2));
    ck_assert_uint_eq(e.eventData, 94);
    fprintf(stderr, "measure: unhealthy_after_seconds 1 and 1.5 fired %.0f ms and %.0f ms after "
            "nvmlInit\n", first, second);
    ck_assert_double_ge(first, 1000);
    ck_assert_double_lt(first, 1500);
    ck_assert_double_ge(second, 1500);
    ck_assert_double_lt(second, 2000);
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 300));   /* once only */
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(temperature_and_memory_rules)
{
    nv_start("profile: a100-sxm4-40gb\ncount: 3\ndevices:\n"
             "  - {index: 0, temperature: 90, unhealthy_on_temperature: 85, xid: 43}\n"
             "  - {index: 1, memoryUsed: 39GiB, unhealthy_on_memory_exceed: 95, xid: 63}\n"
             "  - {index: 2, temperature: 80, unhealthy_on_temperature: 85}\n");
    nvmlEventSet_t set;
    NV_OK(nv.nvmlEventSetCreate(&set));
    for (unsigned g = 0; g < 3; g++)
        NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(g), XID, set));
    nvmlEventData_t e;
    unsigned seen = 0;
    double t0 = mk_test_now_ms();
    for (int i = 0; i < 2; i++) {
        NV_OK(nv.nvmlEventSetWait_v2(set, &e, 3000));
        seen |= e.device == nv_gpu(0) && e.eventData == 43 ? 1 : 0;
        seen |= e.device == nv_gpu(1) && e.eventData == 63 ? 2 : 0;
    }
    ck_assert_uint_eq(seen, 3);
    ck_assert_double_lt(mk_test_now_ms() - t0, 1000); /* at the first look, not after a timeout */
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 600));
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(ecc_mode)
{
    const char *state = nv_start("profile: a100-sxm4-40gb\ncount: 2\ndevices:\n"
                                 "  - {index: 1, unhealthy_after_seconds: 0, mode: ecc}\n");
    unsigned long long types;
    NV_OK(nv.nvmlDeviceGetSupportedEventTypes(nv_gpu(1), &types));
    ck_assert_uint_eq(types & 0xb, 0xb);
    nvmlEventSet_t set;
    NV_OK(nv.nvmlEventSetCreate(&set));
    /* The device plugin's mask: XID | double-bit | single-bit ECC. */
    NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(1), 0xb, set));
    nvmlEventData_t e;
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 3000));
    ck_assert_uint_eq(e.eventType, nvmlEventTypeDoubleBitEccError);
    ck_assert_uint_eq(e.eventData, 0);
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 0));
    ck_assert_uint_eq(e.eventType, XID);
    ck_assert_uint_eq(e.eventData, 48);
    ck_assert_ptr_eq(e.device, nv_gpu(1));
    /* ECC counts rise from the fault on (read as `mokka stats` reads them). */
    mk_state st;
    char err[512];
    ck_assert_msg(mk_state_open_existing(&st, state, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(st.dev[1].ecc_dbe, 1);
    ck_assert_uint_gt(st.dev[1].ecc_since_ns, 0);
    ck_assert_uint_eq(st.dev[1].health, MK_FAULT_ECC);
    /* A single-bit error is an event of its own and leaves health alone. */
    mk_state_raise_ecc(&st, 0, 0, -1);
    NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(0), 0xb, set));
    mk_state_raise_ecc(&st, 0, 0, -1);
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 1000));
    ck_assert_uint_eq(e.eventType, nvmlEventTypeSingleBitEccError);
    ck_assert_ptr_eq(e.device, nv_gpu(0));
    ck_assert_uint_eq(st.dev[0].health, MK_FAULT_NONE);
    mk_state_close(&st);
    /* Registered for XIDs only, a set sees only the XID. */
    nvmlEventSet_t xs = nv_xid_set(0);
    nv_inject(state, 0, MK_FAULT_ECC, 0, -1);
    NV_OK(nv.nvmlEventSetWait_v2(xs, &e, 1000));
    ck_assert_uint_eq(e.eventType, XID);
    ck_assert_uint_eq(e.eventData, 48);
    NV_OK(nv.nvmlEventSetFree(xs));
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(lost_mode)
{
    nv_start("profile: a100-sxm4-40gb\ncount: 2\ndevices:\n"
             "  - {index: 0, unhealthy_after_seconds: 0.3, mode: lost}\n");
    nvmlDevice_t g = nv_gpu(0);
    nvmlMemory_t mem;
    nvmlBAR1Memory_t bar1;
    NV_OK(nv.nvmlDeviceGetMemoryInfo(g, &mem));
    nvmlEventSet_t set = nv_xid_set(0);
    nvmlEventData_t e;
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 3000));
    ck_assert_uint_eq(e.eventData, 79);
    NV_RC(NVML_ERROR_GPU_IS_LOST, nv.nvmlDeviceGetMemoryInfo(g, &mem));
    NV_RC(NVML_ERROR_GPU_IS_LOST, nv.nvmlDeviceGetBAR1MemoryInfo(g, &bar1));
    /* Identity stays readable, so clients can say which GPU was lost. */
    char uuid[96];
    NV_OK(nv.nvmlDeviceGetUUID(g, uuid, sizeof uuid));
    NV_OK(nv.nvmlDeviceGetMemoryInfo(nv_gpu(1), &mem));
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* Each of several sets, each waited on by its own thread, gets the event. */
START_TEST(several_sets_on_several_threads)
{
    const char *state = nv_start("profile: a100-sxm4-40gb\ncount: 2\n");
    enum { N = 6 };
    nv_waiter jobs[N];
    for (int i = 0; i < N; i++) {
        nvmlEventSet_t set = nv_xid_set(1);
        if (i % 2)
            NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(1), XID, set));   /* twice is once */
        nv_waiter_start(&jobs[i], set, 10000);
    }
    mk_test_sleep_ms(200);
    double at = inject_from_child(state, 1, MK_FAULT_XID, 92, -1);
    double worst = 0;
    for (int i = 0; i < N; i++) {
        nv_waiter_join(&jobs[i]);
        NV_OK(jobs[i].rc);
        ck_assert_uint_eq(jobs[i].e.eventData, 92);
        ck_assert_ptr_eq(jobs[i].e.device, nv_gpu(1));
        if (jobs[i].returned - at > worst)
            worst = jobs[i].returned - at;
        nvmlEventData_t e;
        NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(jobs[i].set, &e, 0));
        NV_OK(nv.nvmlEventSetFree(jobs[i].set));
    }
    fprintf(stderr, "measure: %d sets on %d threads all woke within %.3f ms of the injection\n",
            N, N, worst);
    ck_assert_double_lt(worst, 1000);
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(mig_faults)
{
    const char *state = nv_start("profile: a100-sxm4-40gb\ncount: 1\n"
                                 "devices:\n  - {mig: {instances: [3g.20gb, 2g.10gb, 1g.5gb]}}\n");
    nvmlEventSet_t set = nv_xid_set(0);
    /* Events are registered on the parent; a MIG handle is refused. */
    nvmlDevice_t mig;
    NV_OK(nv.nvmlDeviceGetMigDeviceHandleByIndex(nv_gpu(0), 1, &mig));
    NV_RC(NVML_ERROR_NOT_SUPPORTED, nv.nvmlDeviceRegisterEvents(mig, XID, set));
    unsigned gi, ci;
    NV_OK(nv.nvmlDeviceGetGpuInstanceId(mig, &gi));
    NV_OK(nv.nvmlDeviceGetComputeInstanceId(mig, &ci));
    nv_inject(state, 0, MK_FAULT_XID, 43, 1);
    nvmlEventData_t e;
    NV_OK(nv.nvmlEventSetWait_v2(set, &e, 1000));
    ck_assert_ptr_eq(e.device, nv_gpu(0));
    ck_assert_uint_eq(e.eventData, 43);
    ck_assert_uint_eq(e.gpuInstanceId, gi);
    ck_assert_uint_eq(e.computeInstanceId, ci);
    ck_assert_uint_eq(gi, 5);    /* 2g.10gb at slot 4, beside the 3g.20gb at 0 */
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

/* nvmlEventSetWait (v1) callers may pass the first version's smaller
 * struct: nothing is written after eventData. */
START_TEST(v1_wait_leaves_mig_fields)
{
    const char *state = nv_start("profile: a100-sxm4-40gb\ncount: 1\n");
    nvmlEventSet_t set = nv_xid_set(0);
    nv_inject(state, 0, MK_FAULT_XID, 79, -1);
    unsigned char buf[sizeof(nvmlEventData_t) + 16];
    memset(buf, 0xAB, sizeof buf);
    NV_OK(nv.nvmlEventSetWait(set, (nvmlEventData_t *)buf, 1000));
    nvmlEventData_t e;
    memcpy(&e, buf, sizeof e);
    ck_assert_ptr_eq(e.device, nv_gpu(0));
    ck_assert_uint_eq(e.eventType, XID);
    ck_assert_uint_eq(e.eventData, 79);
    size_t v1_end = offsetof(nvmlEventData_t, eventData) + sizeof e.eventData;
    for (size_t i = v1_end; i < sizeof buf; i++)
        ck_assert_msg(buf[i] == 0xAB, "byte %zu after the v1 struct was written", i);
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

START_TEST(argument_errors)
{
    nv_start("profile: a100-sxm4-40gb\ncount: 2\ndevices:\n  - {index: 1, ecc: false}\n");
    nvmlEventSet_t set;
    nvmlEventData_t e;
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlEventSetCreate(NULL));
    NV_OK(nv.nvmlEventSetCreate(&set));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlDeviceRegisterEvents(nv_gpu(0), XID, NULL));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT,
          nv.nvmlDeviceRegisterEvents((nvmlDevice_t)&set, XID, set));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlEventSetWait_v2(set, NULL, 0));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlEventSetWait_v2(NULL, &e, 0));
    /* ECC events only where ECC is on. */
    unsigned long long types;
    NV_OK(nv.nvmlDeviceGetSupportedEventTypes(nv_gpu(1), &types));
    ck_assert_uint_eq(types & 0x3, 0);
    ck_assert_uint_eq(types & XID, XID);
    NV_RC(NVML_ERROR_NOT_SUPPORTED, nv.nvmlDeviceRegisterEvents(nv_gpu(1), 0xb, set));
    NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(1), 0xb & types, set));
    NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(1), 0, set));
    NV_OK(nv.nvmlEventSetFree(set));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlEventSetFree(set));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlEventSetWait_v2(set, &e, 0));
    NV_RC(NVML_ERROR_INVALID_ARGUMENT, nv.nvmlDeviceRegisterEvents(nv_gpu(0), XID, set));
    NV_OK(nv.nvmlShutdown());
    NV_RC(NVML_ERROR_UNINITIALIZED, nv.nvmlEventSetCreate(&set));
}
END_TEST

/* A set kept across nvmlShutdown and an nvmlInit with far fewer GPUs (a
 * client that did not free it) answers, and reads nothing of GPUs that
 * are gone. */
START_TEST(set_kept_across_reinit)
{
    nv_start("profile: l4\ncount: 4096\ntopology: {nvlink: none}\n");
    nvmlEventSet_t set = nv_xid_set(4095);
    NV_OK(nv.nvmlShutdown());
    nv_config("profile: l4\ncount: 1\n");
    NV_OK(nv.nvmlInit_v2());
    nvmlEventData_t e;
    NV_RC(NVML_ERROR_TIMEOUT, nv.nvmlEventSetWait_v2(set, &e, 100));
    NV_OK(nv.nvmlEventSetFree(set));
    NV_OK(nv.nvmlShutdown());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("nvml_events");
    TCase *tc = tcase_create("nvml_events");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, wait_times_out);
    tcase_add_test(tc, injection_wakes_a_waiter);
    tcase_add_test(tc, queued_faults);
    tcase_add_test(tc, unhealthy_after_seconds);
    tcase_add_test(tc, temperature_and_memory_rules);
    tcase_add_test(tc, ecc_mode);
    tcase_add_test(tc, lost_mode);
    tcase_add_test(tc, several_sets_on_several_threads);
    tcase_add_test(tc, mig_faults);
    tcase_add_test(tc, v1_wait_leaves_mig_fields);
    tcase_add_test(tc, argument_errors);
    tcase_add_test(tc, set_kept_across_reinit);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
