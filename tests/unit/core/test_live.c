/* test_live.c - live values and health rules (live.h): fixed, range, drift,
 * follow and N/A values, pins, seed reproducibility, each rule firing
 * exactly once (temperature, memory, time), mark healthy and config
 * changes, energy integration and ECC counts. Concurrent readers are in
 * test_live_threads.c. */
#include "config_check.h"
#include "live.h"

static const char *const fn_names[] = { "nvmlInit_v2" };

typedef struct {
    mk_universe *u;
    mk_state st;
    mk_live L;
} world;

static void world_open(world *w, const char *yaml)
{
    w->u = LOAD_CLEAN(yaml);
    char err[512];
    ck_assert_msg(mk_state_open(&w->st, NULL, w->u, fn_names, 1, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(mk_live_init(&w->L, &w->st, w->u), 0);
}

static void world_close(world *w)
{
    mk_live_free(&w->L);
    mk_state_close(&w->st);
    mk_universe_free(w->u);
}

static int64_t rd(world *w, unsigned dev, mk_metric m)
{
    int64_t v = -12345;
    ck_assert_int_eq(mk_live_read(&w->L, w->u, dev, m, &v), 0);
    return v;
}

#define DEV0(fields) "profile: a100-sxm4-40gb\nseed: 42\ndevices:\n  - {" fields "}\n"

START_TEST(fixed_and_na)
{
    world w;
    world_open(&w, DEV0("temperature: 42, fanSpeed: N/A"));
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(rd(&w, 0, MK_M_TEMP), 42);
    int64_t v = 7;
    ck_assert_int_eq(mk_live_read(&w.L, w.u, 0, MK_M_FAN, &v), -1);
    ck_assert_int_eq(v, 7);
    world_close(&w);
}
END_TEST

START_TEST(ranges)
{
    world w;
    world_open(&w, DEV0("temperature: 35-45, memoryUsed: 1GiB-2GiB"));
    int seen_lo = 0, seen_hi = 0;
    for (int i = 0; i < 2000; i++) {
        int64_t t = rd(&w, 0, MK_M_TEMP);
        ck_assert_int_ge(t, 35);
        ck_assert_int_le(t, 45);
        seen_lo |= t == 35;
        seen_hi |= t == 45;
        ck_assert_int_eq(w.st.dev[0].value[MK_M_TEMP], t);   /* published for mokka stats */
        int64_t m = rd(&w, 0, MK_M_MEM_USED);
        ck_assert_int_ge(m, 1ll << 30);
        ck_assert_int_le(m, 2ll << 30);
    }
    ck_assert(seen_lo && seen_hi);
    world_close(&w);
}
END_TEST

START_TEST(drift)
{
    world w;
    world_open(&w, DEV0("temperature: {min: 30, max: 50, step: 2, start: 40}, "
                        "utilization: {gpu: -1}"));
    int64_t prev = w.st.dev[0].value[MK_M_TEMP];
    ck_assert_int_eq(prev, 40);                      /* starts at start: */
    int moved = 0;
    for (int i = 0; i < 2000; i++) {
        int64_t t = rd(&w, 0, MK_M_TEMP);
        ck_assert_int_ge(t, 30);
        ck_assert_int_le(t, 50);
        ck_assert_int_le(t - prev, 2);
        ck_assert_int_ge(t - prev, -2);
        moved |= t != 40;
        prev = t;
    }
    ck_assert(moved);
    /* -1: the start is drawn from the seed, inside the range. */
    int64_t g0 = w.st.dev[0].value[MK_M_UTIL_GPU];
    ck_assert_int_ge(g0, 0);
    ck_assert_int_le(g0, 100);
    int64_t g = rd(&w, 0, MK_M_UTIL_GPU);
    ck_assert_int_le(g - g0, 5);
    ck_assert_int_ge(g - g0, -5);
    world_close(&w);
}
END_TEST

START_TEST(follow)
{
    world w;
    world_open(&w, DEV0("power: follow, memoryUsed: follow, powerLimits: {enforced: 300W}"));
    mk_state_pin(&w.st, 0, MK_M_UTIL_GPU, 0);
    ck_assert_int_eq(rd(&w, 0, MK_M_POWER), 53000);     /* idle */
    mk_state_pin(&w.st, 0, MK_M_UTIL_GPU, 100);
    ck_assert_int_eq(rd(&w, 0, MK_M_POWER), 300000);    /* the enforced limit */
    mk_state_pin(&w.st, 0, MK_M_UTIL_GPU, 50);
    ck_assert_int_eq(rd(&w, 0, MK_M_POWER), 53000 + (300000 - 53000) / 2);
    mk_state_pin(&w.st, 0, MK_M_UTIL_MEM, 100);         /* memory follows memory util */
    ck_assert_int_eq(rd(&w, 0, MK_M_MEM_USED), (int64_t)(40960 - 620) << 20);
    mk_state_pin(&w.st, 0, MK_M_UTIL_MEM, 0);
    ck_assert_int_eq(rd(&w, 0, MK_M_MEM_USED), 0);
    world_close(&w);
}
END_TEST

START_TEST(pins)
{
    world w;
    world_open(&w, DEV0("temperature: 35-45, fanSpeed: N/A"));
    mk_state_pin(&w.st, 0, MK_M_TEMP, 99);
    for (int i = 0; i < 10; i++)
        ck_assert_int_eq(rd(&w, 0, MK_M_TEMP), 99);
    mk_state_unpin(&w.st, 0, MK_M_TEMP);
    ck_assert_int_le(rd(&w, 0, MK_M_TEMP), 45);
    /* A pin gives even a missing sensor a value. */
    mk_state_pin(&w.st, 0, MK_M_FAN, 50);
    ck_assert_int_eq(rd(&w, 0, MK_M_FAN), 50);
    world_close(&w);
}
END_TEST

/* The n-th read of a metric is a function of (seed, device, metric, n). */
START_TEST(seed_reproducible)
{
    static const char yaml[] = "profile: a100-sxm4-40gb\nseed: 42\ncount: 2\n"
                               "defaults: {temperature: 30-80, utilization: {gpu: -1, memory: 5-95},"
                               " power: follow, memoryUsed: {min: 1GiB, max: 30GiB}}\n";
    world a, b, c;
    world_open(&a, yaml);
    world_open(&b, yaml);
    static const char other[] = "profile: a100-sxm4-40gb\nseed: 43\ncount: 2\n"
                                "defaults: {temperature: 30-80, utilization: {gpu: -1, memory: "
                                "5-95}, power: follow, memoryUsed: {min: 1GiB, max: 30GiB}}\n";
    world_open(&c, other);
    static const mk_metric ms[] = { MK_M_TEMP, MK_M_UTIL_GPU, MK_M_UTIL_MEM, MK_M_POWER,
                                    MK_M_MEM_USED };
    int differs = 0;
    for (int i = 0; i < 300; i++)
        for (unsigned dev = 0; dev < 2; dev++)
            for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++) {
                int64_t x = rd(&a, dev, ms[k]), y = rd(&b, dev, ms[k]);
                ck_assert_msg(x == y, "read %d of %s on GPU %u: %lld and %lld", i,
                              mk_metric_name(ms[k]), dev, (long long)x, (long long)y);
                differs |= rd(&c, dev, ms[k]) != x;
            }
    ck_assert(differs);
    world_close(&a);
    world_close(&b);
    world_close(&c);
    /* Without seed: every start differs. */
    static const char unseeded[] = "profile: a100-sxm4-40gb\ncount: 1\n"
                                   "defaults: {temperature: 0-150}\n";
    world_open(&a, unseeded);
    mk_test_sleep_ms(1);
    world_open(&b, unseeded);
    differs = 0;
    for (int i = 0; i < 50; i++)
        differs |= rd(&a, 0, MK_M_TEMP) != rd(&b, 0, MK_M_TEMP);
    ck_assert(differs);
    world_close(&a);
    world_close(&b);
}
END_TEST

START_TEST(temperature_rule_fires_once)
{
    world w;
    world_open(&w, "profile: a100-sxm4-40gb\nseed: 1\ncount: 3\ndevices:\n"
                   "  - {index: 0, temperature: 90, unhealthy_on_temperature: 85}\n"
                   "  - {index: 1, temperature: 80, unhealthy_on_temperature: 85}\n"
                   "  - {index: 2, temperature: 70-90, unhealthy_on_temperature: 85, xid: 31}\n");
    for (int i = 0; i < 500; i++)
        for (unsigned dev = 0; dev < 3; dev++)
            rd(&w, dev, MK_M_TEMP);
    ck_assert_uint_eq(w.st.dev[0].fault_seq, 1);
    ck_assert_uint_eq(w.st.dev[0].last_xid, 79);
    ck_assert_uint_eq(w.st.dev[0].health, MK_FAULT_XID);
    ck_assert_uint_eq(w.st.dev[0].rules_fired, MK_RULE_TEMP);
    ck_assert_uint_eq(w.st.dev[1].fault_seq, 0);
    ck_assert_uint_eq(w.st.dev[1].health, MK_FAULT_NONE);
    ck_assert_uint_eq(w.st.dev[2].fault_seq, 1);
    ck_assert_uint_eq(w.st.dev[2].last_xid, 31);
    world_close(&w);
}
END_TEST

START_TEST(memory_rule_fires_once)
{
    world w;
    /* 90 % of 40340 MiB usable is 36306 MiB. */
    world_open(&w, "profile: a100-sxm4-40gb\ncount: 2\ndevices:\n"
                   "  - {index: 0, memoryUsed: 36307MiB, unhealthy_on_memory_exceed: 90, "
                   "mode: ecc}\n"
                   "  - {index: 1, memoryUsed: 36306MiB, unhealthy_on_memory_exceed: 90}\n");
    for (int i = 0; i < 100; i++) {
        rd(&w, 0, MK_M_MEM_USED);
        rd(&w, 1, MK_M_MEM_USED);
    }
    ck_assert_uint_eq(w.st.dev[0].fault_seq, 2);           /* DBE + XID 48 */
    ck_assert_uint_eq(w.st.dev[0].health, MK_FAULT_ECC);
    ck_assert_uint_eq(w.st.dev[0].last_xid, 48);
    ck_assert_uint_eq(w.st.dev[0].ecc_dbe, 1);
    ck_assert_uint_eq(w.st.dev[1].fault_seq, 0);
    world_close(&w);
}
END_TEST

START_TEST(time_rule_and_tick)
{
    world w;
    world_open(&w, "profile: a100-sxm4-40gb\ncount: 3\ndevices:\n"
                   "  - {index: 0, unhealthy_after_seconds: 2, mode: lost}\n"
                   "  - {index: 1, temperature: 95, unhealthy_on_temperature: 90}\n");
    uint64_t epoch = w.st.hdr->epoch_mono_ns;
    uint64_t next = mk_live_tick(&w.L, w.u);
    ck_assert_uint_eq(next, epoch + 2000000000ull);
    ck_assert_uint_eq(w.st.dev[0].fault_seq, 0);
    /* The tick samples the temperature rule on its own. */
    ck_assert_uint_eq(w.st.dev[1].fault_seq, 1);
    w.st.hdr->epoch_mono_ns = epoch - 3000000000ull;       /* three seconds later */
    ck_assert_uint_eq(mk_live_tick(&w.L, w.u), UINT64_MAX);
    ck_assert_uint_eq(w.st.dev[0].fault_seq, 1);
    ck_assert_uint_eq(w.st.dev[0].health, MK_FAULT_LOST);
    ck_assert_uint_eq(w.st.dev[0].last_xid, 79);
    for (int i = 0; i < 10; i++)
        mk_live_tick(&w.L, w.u);
    ck_assert_uint_eq(w.st.dev[0].fault_seq, 1);
    ck_assert_uint_eq(w.st.dev[1].fault_seq, 1);
    ck_assert_uint_eq(w.st.dev[2].fault_seq, 0);
    world_close(&w);
}
END_TEST

START_TEST(healthy_again_and_rule_changes)
{
    static const char yaml[] = "profile: a100-sxm4-40gb\ncount: 2\n"
                               "defaults: {temperature: 95, unhealthy_on_temperature: 90}\n";
    world w;
    world_open(&w, yaml);
    mk_live_tick(&w.L, w.u);
    ck_assert_uint_eq(w.st.dev[0].fault_seq, 1);
    /* Marked healthy by hand, the rule that broke it does not fire again. */
    mk_state_mark_healthy(&w.st, 0);
    for (int i = 0; i < 10; i++) {
        mk_live_tick(&w.L, w.u);
        rd(&w, 0, MK_M_TEMP);
    }
    ck_assert_uint_eq(w.st.dev[0].fault_seq, 1);
    ck_assert_uint_eq(w.st.dev[0].health, MK_FAULT_NONE);
    /* A config whose rules changed for GPU 1 only re-arms GPU 1. */
    mk_universe *nu = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 2\n"
                                 "defaults: {temperature: 95, unhealthy_on_temperature: 90}\n"
                                 "devices:\n  - {index: 1, unhealthy_on_temperature: 91}\n");
    mk_live_rules_changed(&w.L, w.u, nu);
    ck_assert_uint_ne(w.st.dev[0].rules_fired, 0);
    ck_assert_uint_eq(w.st.dev[1].rules_fired, 0);
    mk_live_tick(&w.L, nu);
    ck_assert_uint_eq(w.st.dev[0].fault_seq, 1);
    ck_assert_uint_eq(w.st.dev[1].fault_seq, 2);
    mk_universe_free(nu);
    world_close(&w);
}
END_TEST

START_TEST(energy)
{
    world w;
    world_open(&w, DEV0("power: 300W"));
    mk_state_dev *sd = &w.st.dev[0];
    /* Two seconds at 300 W are 600 J. */
    uint64_t e0 = mk_live_energy(&w.L, w.u, 0);
    sd->energy_ns -= 2000000000ull;
    uint64_t e1 = mk_live_energy(&w.L, w.u, 0);
    ck_assert_uint_ge(e1 - e0, 600000);
    ck_assert_uint_lt(e1 - e0, 600000 + 3000);
    /* Long gaps do not overflow: mW times ns passes 2^64 after 7 hours at
     * 700 W, or (as here, within any machine's uptime) 10 s at 4 MW. */
    world_close(&w);
    world_open(&w, DEV0("power: 4000kW"));
    sd = &w.st.dev[0];
    e0 = mk_live_energy(&w.L, w.u, 0);
    sd->energy_ns -= 10000000000ull;
    e1 = mk_live_energy(&w.L, w.u, 0);
    ck_assert_uint_ge(e1 - e0, 4000000000ull * 10);
    ck_assert_uint_lt(e1 - e0, 4000000000ull * 10 + 4000000000ull / 10);
    world_close(&w);
    /* Readers polling faster than a millijoule per poll lose nothing. */
    world_open(&w, DEV0("power: 60W"));
    e0 = mk_live_energy(&w.L, w.u, 0);
    double t0 = mk_test_now_ms();
    while (mk_test_now_ms() - t0 < 200)
        mk_live_energy(&w.L, w.u, 0);
    double spent = mk_test_now_ms() - t0;
    e1 = mk_live_energy(&w.L, w.u, 0);
    double want = 60.0 * (mk_test_now_ms() - t0);   /* 60 W is 60 mJ a millisecond */
    ck_assert_msg((double)(e1 - e0) > 0.9 * 60.0 * spent && (double)(e1 - e0) <= want + 2,
                  "%llu mJ in %.0f ms at 60 W", (unsigned long long)(e1 - e0), spent);
    /* A pinned power is what is integrated. */
    mk_state_pin(&w.st, 0, MK_M_POWER, 100000);
    e0 = mk_live_energy(&w.L, w.u, 0);
    w.st.dev[0].energy_ns -= 1000000000ull;
    e1 = mk_live_energy(&w.L, w.u, 0);
    ck_assert_uint_ge(e1 - e0, 100000);
    ck_assert_uint_lt(e1 - e0, 100000 + 1000);
    world_close(&w);
}
END_TEST

START_TEST(ecc_counts)
{
    world w;
    world_open(&w, DEV0("temperature: 40"));
    uint64_t sbe, dbe;
    mk_live_ecc(&w.L, 0, &sbe, &dbe);
    ck_assert_uint_eq(sbe, 0);
    ck_assert_uint_eq(dbe, 0);
    mk_state_raise(&w.st, 0, MK_FAULT_ECC, 0, -1);
    w.st.dev[0].ecc_since_ns -= 3000000000ull;            /* three seconds ago */
    mk_live_ecc(&w.L, 0, &sbe, &dbe);
    ck_assert_uint_eq(dbe, 1);
    ck_assert_uint_ge(sbe, 3);
    ck_assert_uint_le(sbe, 4);
    uint64_t later;
    w.st.dev[0].ecc_since_ns -= 2000000000ull;
    mk_live_ecc(&w.L, 0, &later, &dbe);
    ck_assert_uint_ge(later, sbe + 2);                     /* still rising */
    mk_state_mark_healthy(&w.st, 0);
    mk_live_ecc(&w.L, 0, &sbe, &dbe);
    ck_assert_uint_eq(sbe, 0);                             /* counts stop with the fault */
    ck_assert_uint_eq(dbe, 1);
    world_close(&w);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("live");
    TCase *tc = tcase_create("live");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, fixed_and_na);
    tcase_add_test(tc, ranges);
    tcase_add_test(tc, drift);
    tcase_add_test(tc, follow);
    tcase_add_test(tc, pins);
    tcase_add_test(tc, seed_reproducible);
    tcase_add_test(tc, temperature_rule_fires_once);
    tcase_add_test(tc, memory_rule_fires_once);
    tcase_add_test(tc, time_rule_and_tick);
    tcase_add_test(tc, healthy_again_and_rule_changes);
    tcase_add_test(tc, energy);
    tcase_add_test(tc, ecc_counts);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
