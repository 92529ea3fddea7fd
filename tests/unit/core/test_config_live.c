/* test_config_live.c - live values and health rules in a config: every
 * form a live value may take (fixed, range, drift, follow, N/A, the map
 * form) for each kind of metric, health rules flat and under health:, and
 * every error about them with its exact position. */
#include "config_check.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

#define DEV(fields) "profile: a100-sxm4-40gb\ndevices:\n  - {index: 0, " fields "}\n"
#define C0 16   /* column of the first field on line 3 */

static mk_lv lv_of(const char *fields_yaml, mk_metric m)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, DEV("%s"), fields_yaml);
    mk_universe *u = LOAD_CLEAN(yaml);
    mk_lv lv = u->dev[0].lv[m];
    mk_universe_free(u);
    return lv;
}

static void lv_is(mk_lv lv, mk_lv_kind kind, int64_t lo, int64_t hi)
{
    ck_assert_int_eq(lv.kind, kind);
    ck_assert_int_eq(lv.lo, lo);
    ck_assert_int_eq(lv.hi, hi);
}

START_TEST(fixed_values)
{
    lv_is(lv_of("temperature: 42", MK_M_TEMP), MK_LV_FIXED, 42, 42);
    lv_is(lv_of("memoryTemperature: 50C", MK_M_TEMP_MEM), MK_LV_FIXED, 50, 50);
    lv_is(lv_of("power: 210", MK_M_POWER), MK_LV_FIXED, 210000, 210000);
    lv_is(lv_of("power: 0.3kW", MK_M_POWER), MK_LV_FIXED, 300000, 300000);
    lv_is(lv_of("memoryUsed: 10GiB", MK_M_MEM_USED), MK_LV_FIXED, (int64_t)(10 * GiB),
          (int64_t)(10 * GiB));
    lv_is(lv_of("memoryUsed: 2048MiB", MK_M_MEM_USED), MK_LV_FIXED, (int64_t)(2 * GiB),
          (int64_t)(2 * GiB));
    lv_is(lv_of("utilization: {gpu: 15, memory: 32%}", MK_M_UTIL_MEM), MK_LV_FIXED, 32, 32);
    lv_is(lv_of("clocks: {sm: 1400MHz}", MK_M_CLK_SM), MK_LV_FIXED, 1400, 1400);
    lv_is(lv_of("fanSpeed: 40", MK_M_FAN), MK_LV_FIXED, 40, 40);
}
END_TEST

START_TEST(ranges)
{
    lv_is(lv_of("temperature: 35-45", MK_M_TEMP), MK_LV_RANGE, 35, 45);
    lv_is(lv_of("temperature: 40-40", MK_M_TEMP), MK_LV_FIXED, 40, 40);
    lv_is(lv_of("power: 100W-0.2kW", MK_M_POWER), MK_LV_RANGE, 100000, 200000);
    lv_is(lv_of("memoryUsed: 1GiB-2048MiB", MK_M_MEM_USED), MK_LV_RANGE, (int64_t)GiB,
          (int64_t)(2 * GiB));
    lv_is(lv_of("utilization: {gpu: 10-90}", MK_M_UTIL_GPU), MK_LV_RANGE, 10, 90);
    lv_is(lv_of("clocks: {graphics: 210-1410}", MK_M_CLK_GRAPHICS), MK_LV_RANGE, 210, 1410);
}
END_TEST

START_TEST(drift)
{
    mk_lv lv = lv_of("utilization: {gpu: -1, memory: -1}", MK_M_UTIL_GPU);
    lv_is(lv, MK_LV_DRIFT, 0, 100);
    ck_assert_int_eq(lv.step, 5);
    ck_assert_int_eq(lv.start, -1);   /* drawn from the seed when the state starts */
    lv = lv_of("temperature: -1", MK_M_TEMP);
    lv_is(lv, MK_LV_DRIFT, 25, 90);
    lv = lv_of("temperature: {min: 30, max: 50, step: 2, start: 40}", MK_M_TEMP);
    lv_is(lv, MK_LV_DRIFT, 30, 50);
    ck_assert_int_eq(lv.step, 2);
    ck_assert_int_eq(lv.start, 40);
    lv = lv_of("temperature: {min: 30, max: 50}", MK_M_TEMP);
    ck_assert_int_eq(lv.step, 5);
    ck_assert_int_eq(lv.start, 40);    /* the middle */
    lv = lv_of("memoryUsed: {min: 1GiB, max: 3GiB}", MK_M_MEM_USED);
    lv_is(lv, MK_LV_DRIFT, (int64_t)GiB, (int64_t)(3 * GiB));
    ck_assert_int_eq(lv.step, (int64_t)(2 * GiB) / 20 + 1);
    ck_assert_int_eq(lv.start, (int64_t)(2 * GiB));
    lv = lv_of("utilization: {gpu: {max: 60}}", MK_M_UTIL_GPU);
    lv_is(lv, MK_LV_DRIFT, 0, 60);
    ck_assert_int_eq(lv.start, 30);
}
END_TEST

START_TEST(follow_and_na)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, DEV("power: follow, memoryUsed: follow, temperature: follow, "
                                    "clocks: {graphics: follow, sm: follow, memory: follow, "
                                    "video: follow}, fanSpeed: N/A, memoryTemperature: n/a"));
    mk_universe *u = LOAD_CLEAN(yaml);
    const mk_device *g = &u->dev[0];
    lv_is(g->lv[MK_M_POWER], MK_LV_FOLLOW, g->power_idle, g->power_limit);
    ck_assert_int_eq(g->lv[MK_M_POWER].lo, 53000);   /* the profile's powerIdle */
    ck_assert_int_eq(g->lv[MK_M_POWER].hi, 400000);  /* its enforced limit */
    lv_is(g->lv[MK_M_MEM_USED], MK_LV_FOLLOW, 0, (int64_t)(40960 * MiB - 620 * MiB));
    lv_is(g->lv[MK_M_TEMP], MK_LV_FOLLOW, 30, 85);
    lv_is(g->lv[MK_M_CLK_GRAPHICS], MK_LV_FOLLOW, 1410 / 6, 1410);
    lv_is(g->lv[MK_M_CLK_SM], MK_LV_FOLLOW, 1410 / 6, 1410);
    lv_is(g->lv[MK_M_CLK_MEM], MK_LV_FOLLOW, 1215, 1215);
    lv_is(g->lv[MK_M_CLK_VIDEO], MK_LV_FOLLOW, 1290 / 3, 1290);
    ck_assert_int_eq(g->lv[MK_M_FAN].kind, MK_LV_NA);
    ck_assert_int_eq(g->lv[MK_M_TEMP_MEM].kind, MK_LV_NA);
    mk_universe_free(u);
    /* A fan speed gives the GPU a fan; N/A leaves it without. */
    ck_assert_int_eq(lv_of("fanSpeed: N/A", MK_M_FAN).kind, MK_LV_NA);
    /* The enforced limit, when given, is where `follow` tops out. */
    lv_is(lv_of("power: follow, powerLimits: {enforced: 300W}", MK_M_POWER), MK_LV_FOLLOW,
          53000, 300000);
}
END_TEST

static void live_error(const char *fields_yaml, int col, const char *msg)
{
    char yaml[1024], want[1024];
    snprintf(yaml, sizeof yaml, DEV("%s"), fields_yaml);
    snprintf(want, sizeof want, "t.yaml:3:%d: error: %s", col, msg);
    EXPECT_ONLY(yaml, want);
}

START_TEST(live_value_errors)
{
    live_error("temperature: [40]", C0 + 13,
               "temperature: expected a value, a range like 35-45, -1, follow or a map");
    live_error("temperature: hot", C0 + 13,
               "temperature: 'hot': expected a whole temperature in degrees C, like 42");
    live_error("temperature: 35-hot", C0 + 13,
               "temperature: bad range '35-hot': expected a whole temperature in degrees C, "
               "like 42");
    live_error("temperature: 45-35", C0 + 13, "temperature: range '45-35' runs backwards");
    live_error("power: 300W-200W", C0 + 7, "power: range '300W-200W' runs backwards");
    live_error("memoryUsed: 2GiB-1GiB", C0 + 12, "memoryUsed: range '2GiB-1GiB' runs backwards");
    live_error("power: -1", C0 + 7,
               "power: '-1': expected a power like 210, 210W, 0.21kW or 210000mW");
    live_error("memoryUsed: -1", C0 + 12,
               "memoryUsed: '-1': expected a size like 40GB, 40GiB, 4864MiB or a bare number "
               "(MB from 1024 up, GB below)");
    live_error("fanSpeed: follow", C0 + 10,
               "fanSpeed: only power, temperature, memoryUsed and clocks can follow utilization");
    live_error("utilization: {gpu: follow}", C0 + 19,
               "utilization.gpu: only power, temperature, memoryUsed and clocks can follow "
               "utilization");
    live_error("utilization: {gpu: 101}", C0 + 19,
               "utilization.gpu: '101': value out of range");
    live_error("utilization: 50", C0 + 13, "utilization: expected a map");
    live_error("utilization: {gpus: 5}", C0 + 14,
               "unknown key 'gpus' in utilization; did you mean 'gpu'?");
    live_error("clocks: {shader: 5}", C0 + 9, "unknown key 'shader' in clocks");
    live_error("temperature: {min: cold}", C0 + 19,
               "temperature.min: expected a whole temperature in degrees C, like 42");
    live_error("temperature: {max: [1]}", C0 + 19,
               "temperature.max: expected a whole temperature in degrees C, like 42");
    live_error("temperature: {step: x}", C0 + 20,
               "temperature.step: expected a whole temperature in degrees C, like 42");
    live_error("temperature: {start: x}", C0 + 21,
               "temperature.start: expected a whole temperature in degrees C, like 42");
    live_error("temperature: {min: 50, max: 40}", C0 + 13,
               "temperature: needs min <= start <= max");
    live_error("temperature: {min: 30, max: 40, start: 45}", C0 + 13,
               "temperature: needs min <= start <= max");
    live_error("temperature: {avg: 40}", C0 + 14, "unknown key 'avg' in temperature");
    live_error("temperature: {mx: 40}", C0 + 14,
               "unknown key 'mx' in temperature; did you mean 'max'?");
}
END_TEST

START_TEST(health_defaults)
{
    mk_universe *u = LOAD_CLEAN("profile: t4\ncount: 1\n");
    const mk_health_rules *h = &u->dev[0].health;
    ck_assert_double_lt(h->after_seconds, 0);
    ck_assert_int_lt(h->on_memory_exceed, 0);
    ck_assert_int_lt(h->on_temperature, 0);
    ck_assert_uint_eq(h->xid, 79);
    ck_assert_int_eq(h->mode, MK_FAULT_XID);
    mk_universe_free(u);
}
END_TEST

static mk_health_rules rules_of(const char *yaml)
{
    mk_universe *u = LOAD_CLEAN(yaml);
    mk_health_rules h = u->dev[0].health;
    mk_universe_free(u);
    return h;
}

START_TEST(health_rules_flat_and_nested)
{
    mk_health_rules flat = rules_of(DEV("unhealthy_after_seconds: 30, unhealthy_on_memory_exceed: "
                                        "90, unhealthy_on_temperature: 85, xid: 48, mode: ecc"));
    mk_health_rules nested = rules_of(DEV("health: {unhealthy_after_seconds: 30, "
                                          "unhealthy_on_memory_exceed: 90, "
                                          "unhealthy_on_temperature: 85, xid: 48, mode: ecc}"));
    ck_assert_mem_eq(&flat, &nested, sizeof flat);
    ck_assert_double_eq(flat.after_seconds, 30);
    ck_assert_int_eq(flat.on_memory_exceed, 90);
    ck_assert_int_eq(flat.on_temperature, 85);
    ck_assert_uint_eq(flat.xid, 48);
    ck_assert_int_eq(flat.mode, MK_FAULT_ECC);
    ck_assert_double_eq(rules_of(DEV("unhealthy_after_seconds: 5m")).after_seconds, 300);
    ck_assert_double_eq(rules_of(DEV("unhealthy_after_seconds: 500ms")).after_seconds, 0.5);
    ck_assert_double_eq(rules_of(DEV("unhealthy_after_seconds: 1h")).after_seconds, 3600);
    ck_assert_double_eq(rules_of(DEV("unhealthy_after_seconds: 0")).after_seconds, 0);
    ck_assert_int_eq(rules_of(DEV("mode: lost")).mode, MK_FAULT_LOST);
    ck_assert_int_eq(rules_of(DEV("mode: XID")).mode, MK_FAULT_XID);
    /* defaults: carry rules to every GPU; a device entry overrides. */
    mk_universe *u = LOAD_CLEAN("profile: t4\ncount: 3\n"
                                "defaults: {health: {unhealthy_after_seconds: 60, xid: 31}}\n"
                                "devices:\n  - {index: 2, xid: 94, mode: lost}\n");
    ck_assert_double_eq(u->dev[0].health.after_seconds, 60);
    ck_assert_uint_eq(u->dev[1].health.xid, 31);
    ck_assert_double_eq(u->dev[2].health.after_seconds, 60);
    ck_assert_uint_eq(u->dev[2].health.xid, 94);
    ck_assert_int_eq(u->dev[2].health.mode, MK_FAULT_LOST);
    ck_assert_int_eq(u->dev[1].health.mode, MK_FAULT_XID);
    mk_universe_free(u);
}
END_TEST

START_TEST(health_errors)
{
    live_error("unhealthy_after_seconds: soon", C0 + 25,
               "unhealthy_after_seconds: expected seconds like 300 or a duration like 5m");
    live_error("unhealthy_after_seconds: [1]", C0 + 25,
               "unhealthy_after_seconds: expected seconds like 300 or a duration like 5m");
    live_error("unhealthy_on_memory_exceed: 0", C0 + 28,
               "unhealthy_on_memory_exceed: 0 is out of range (1 to 100)");
    live_error("unhealthy_on_memory_exceed: 101", C0 + 28,
               "unhealthy_on_memory_exceed: 101 is out of range (1 to 100)");
    live_error("unhealthy_on_temperature: 201", C0 + 26,
               "unhealthy_on_temperature: 201 is out of range (1 to 200)");
    live_error("unhealthy_on_temperature: hot", C0 + 26,
               "unhealthy_on_temperature: expected an integer, got 'hot'");
    live_error("xid: 0", C0 + 5, "xid: 0 is out of range (1 to 999)");
    live_error("xid: 1000", C0 + 5, "xid: 1000 is out of range (1 to 999)");
    live_error("mode: reset", C0 + 6, "mode: unknown value 'reset' (one of: xid, ecc, lost)");
    live_error("mode: lose", C0 + 6, "mode: unknown value 'lose'; did you mean 'lost'?");
    live_error("mode: [xid]", C0 + 6, "mode: expected a name");
    live_error("health: [xid]", C0 + 8, "health: expected a map");
    live_error("health: {xid: 48, after: 5}", C0 + 18, "unknown key 'after' in health");
    live_error("health: {unhealthy_after_second: 5}", C0 + 9,
               "unknown key 'unhealthy_after_second' in health; did you mean "
               "'unhealthy_after_seconds'?");
    live_error("unhealthy_on_temprature: 80", C0,
               "unknown key 'unhealthy_on_temprature' in device 0; did you mean "
               "'unhealthy_on_temperature'?");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config_live");
    TCase *tc = tcase_create("config_live");
    tcase_add_test(tc, fixed_values);
    tcase_add_test(tc, ranges);
    tcase_add_test(tc, drift);
    tcase_add_test(tc, follow_and_na);
    tcase_add_test(tc, live_value_errors);
    tcase_add_test(tc, health_defaults);
    tcase_add_test(tc, health_rules_flat_and_nested);
    tcase_add_test(tc, health_errors);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
