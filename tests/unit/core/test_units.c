/* test_units.c - the quantities a config may write (units.h): memory,
 * power, durations, whole-number quantities, metric names and formatting. */
#include "support/testutil.h"
#include "units.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define TiB (1ull << 40)

static uint64_t mem(const char *s)
{
    uint64_t v = 0;
    const char *why = NULL;
    ck_assert_msg(mk_parse_memory(s, &v, &why) == 0, "'%s' refused: %s", s, why);
    return v;
}

static void mem_bad(const char *s, const char *why_want)
{
    uint64_t v = 12345;
    const char *why = NULL;
    ck_assert_msg(mk_parse_memory(s, &v, &why) == -1, "'%s' accepted as %llu", s,
                  (unsigned long long)v);
    ck_assert_str_eq(why, why_want);
    ck_assert_uint_eq(v, 12345);
}

static const char *const MEM_WHY =
    "expected a size like 40GB, 40GiB, 4864MiB or a bare number (MB from 1024 up, GB below)";

START_TEST(memory_forms)
{
    ck_assert_uint_eq(mem("40960"), 40960 * MiB);      /* bare, from 1024 up: MB */
    ck_assert_uint_eq(mem("1024"), 1024 * MiB);
    ck_assert_uint_eq(mem("48"), 48 * GiB);            /* bare, below 1024: GB */
    ck_assert_uint_eq(mem("1023"), 1023 * GiB);
    ck_assert_uint_eq(mem("40GB"), 40 * GiB);          /* nvidia-smi: GB = GiB */
    ck_assert_uint_eq(mem("40GiB"), 40 * GiB);
    ck_assert_uint_eq(mem("48 GB"), 48 * GiB);
    ck_assert_uint_eq(mem("4864MiB"), 4864 * MiB);
    ck_assert_uint_eq(mem("4864MB"), 4864 * MiB);
    ck_assert_uint_eq(mem("4864M"), 4864 * MiB);
    ck_assert_uint_eq(mem("1.5TB"), TiB + TiB / 2);
    ck_assert_uint_eq(mem("2TiB"), 2 * TiB);
    ck_assert_uint_eq(mem("0.5GiB"), 512 * MiB);
    ck_assert_uint_eq(mem("64KiB"), 64 * 1024);
    ck_assert_uint_eq(mem("100B"), 100);
    ck_assert_uint_eq(mem("40gb"), 40 * GiB);          /* units are case-insensitive */
    ck_assert_uint_eq(mem("  40 GiB  "), 40 * GiB);
    ck_assert_uint_eq(mem("0"), 0);
}
END_TEST

START_TEST(memory_bad_forms)
{
    mem_bad("", MEM_WHY);
    mem_bad("GB", MEM_WHY);
    mem_bad("forty", MEM_WHY);
    mem_bad("40XB", MEM_WHY);
    mem_bad("40 G B", MEM_WHY);
    mem_bad("-5GB", MEM_WHY);
    mem_bad("40GB extra", MEM_WHY);
    mem_bad("0x10", MEM_WHY);      /* no hexadecimal sizes */
    mem_bad("1e3", MEM_WHY);       /* no exponents */
    mem_bad("inf", MEM_WHY);
    mem_bad("nan", MEM_WHY);
    mem_bad("99999999TB", "size too large");
}
END_TEST

static uint64_t power(const char *s)
{
    uint64_t v = 0;
    const char *why = NULL;
    ck_assert_msg(mk_parse_power(s, &v, &why) == 0, "'%s' refused: %s", s, why);
    return v;
}

START_TEST(power_forms)
{
    ck_assert_uint_eq(power("210"), 210000);
    ck_assert_uint_eq(power("210W"), 210000);
    ck_assert_uint_eq(power("210 w"), 210000);
    ck_assert_uint_eq(power("0.21kW"), 210000);
    ck_assert_uint_eq(power("0.21KW"), 210000);
    ck_assert_uint_eq(power("210000mW"), 210000);
    ck_assert_uint_eq(power("52.5W"), 52500);
    const char *why;
    uint64_t v;
    static const char *const bad[] = { "", "W", "210MW", "210 watts", "-5W", "0x10", "1e3W",
                                       NULL };
    for (int i = 0; bad[i]; i++) {
        ck_assert_msg(mk_parse_power(bad[i], &v, &why) == -1, "'%s' accepted", bad[i]);
        ck_assert_str_eq(why, "expected a power like 210, 210W, 0.21kW or 210000mW");
    }
    ck_assert_int_eq(mk_parse_power("5000kW", &v, &why), -1);
    ck_assert_str_eq(why, "power too large");
}
END_TEST

START_TEST(duration_forms)
{
    double s;
    const char *why;
    static const struct { const char *in; double s; } good[] = {
        { "500ms", 0.5 }, { "30s", 30 }, { "5m", 300 }, { "1h", 3600 }, { "90", 90 },
        { "1.5", 1.5 }, { "0", 0 }, { "2 s", 2 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ck_assert_msg(mk_parse_duration(good[i].in, &s, &why) == 0, "'%s' refused", good[i].in);
        ck_assert_double_eq_tol(s, good[i].s, 1e-9);
    }
    static const char *const bad[] = { "", "5 minutes", "5M", "1d", "-1s", "s", "1e2s", NULL };
    for (int i = 0; bad[i]; i++) {
        ck_assert_msg(mk_parse_duration(bad[i], &s, &why) == -1, "'%s' accepted", bad[i]);
        ck_assert_str_eq(why, "expected a duration like 500ms, 30s, 5m or 1h");
    }
    /* Longer ones would overflow nanoseconds (found by the config fuzz
     * target: unhealthy_after_seconds: 99999999999999999999). */
    ck_assert_int_eq(mk_parse_duration("1000000000", &s, &why), 0);
    static const char *const long_ones[] = { "1000000001", "277778h", "99999999999999999999", NULL };
    for (int i = 0; long_ones[i]; i++) {
        ck_assert_msg(mk_parse_duration(long_ones[i], &s, &why) == -1, "'%s' accepted", long_ones[i]);
        ck_assert_str_eq(why, "duration too long (at most 1e9 s, about 31 years)");
    }
}
END_TEST

static void qty(mk_unit u, const char *s, int64_t want)
{
    int64_t v;
    const char *why = NULL;
    ck_assert_msg(mk_parse_quantity(u, s, &v, &why) == 0, "'%s' refused: %s", s, why);
    ck_assert_int_eq(v, want);
}

static void qty_bad(mk_unit u, const char *s, const char *why_want)
{
    int64_t v;
    const char *why = NULL;
    ck_assert_msg(mk_parse_quantity(u, s, &v, &why) == -1, "'%s' accepted", s);
    ck_assert_str_eq(why, why_want);
}

START_TEST(whole_quantities)
{
    qty(MK_U_CELSIUS, "42", 42);
    qty(MK_U_CELSIUS, "42C", 42);
    qty(MK_U_CELSIUS, "-5", -5);
    qty_bad(MK_U_CELSIUS, "42.5", "expected a whole temperature in degrees C, like 42");
    qty_bad(MK_U_CELSIUS, "42F", "expected a whole temperature in degrees C, like 42");
    qty_bad(MK_U_CELSIUS, "1001", "value out of range");
    qty(MK_U_PERCENT, "15", 15);
    qty(MK_U_PERCENT, "100%", 100);
    qty_bad(MK_U_PERCENT, "101", "value out of range");
    qty_bad(MK_U_PERCENT, "-1", "value out of range");
    qty_bad(MK_U_PERCENT, "half", "expected a whole percentage from 0 to 100");
    qty(MK_U_MHZ, "1410", 1410);
    qty(MK_U_MHZ, "1410 MHz", 1410);
    qty_bad(MK_U_MHZ, "1.4GHz", "expected a clock in MHz, like 1410");
    qty(MK_U_COUNT, "7", 7);
    qty_bad(MK_U_COUNT, "7 things", "expected a whole number");
    /* Beyond int64_t: refused, never converted (undefined behaviour). */
    qty_bad(MK_U_COUNT, "99999999999999999999", "value out of range");
    qty_bad(MK_U_CELSIUS, "-99999999999999999999", "value out of range");
    qty(MK_U_MEMORY, "10GiB", (int64_t)(10 * GiB));
    qty_bad(MK_U_MEMORY, "10 apples", MEM_WHY);
    qty(MK_U_POWER, "300W", 300000);
    qty_bad(MK_U_POWER, "lots", "expected a power like 210, 210W, 0.21kW or 210000mW");
}
END_TEST

START_TEST(metric_names)
{
    for (int m = 0; m < MK_M_COUNT; m++) {
        ck_assert_int_eq(mk_metric_by_name(mk_metrics[m].name), m);
        ck_assert_str_eq(mk_metric_name((mk_metric)m), mk_metrics[m].name);
    }
    ck_assert_int_eq(mk_metric_by_name("temperature"), MK_M_TEMP);
    ck_assert_int_eq(mk_metric_by_name("utilization.gpu"), MK_M_UTIL_GPU);
    ck_assert_int_eq(mk_metric_by_name("memoryUsed"), MK_M_MEM_USED);
    ck_assert_int_eq(mk_metric_by_name("clocks.sm"), MK_M_CLK_SM);
    ck_assert_int_eq(mk_metric_by_name("Temperature"), -1);
    ck_assert_int_eq(mk_metric_by_name(""), -1);
    ck_assert_str_eq(mk_metric_name(MK_M_COUNT), "?");
}
END_TEST

static void fmt(mk_unit u, int64_t v, const char *want)
{
    char buf[64];
    mk_format_quantity(u, v, buf, sizeof buf);
    ck_assert_str_eq(buf, want);
}

START_TEST(formatting)
{
    fmt(MK_U_MEMORY, (int64_t)(40 * GiB), "40 GiB");
    fmt(MK_U_MEMORY, (int64_t)(4864 * MiB), "4864 MiB");
    fmt(MK_U_POWER, 210000, "210 W");
    fmt(MK_U_POWER, 52500, "52.500 W");
    fmt(MK_U_CELSIUS, 42, "42 C");
    fmt(MK_U_PERCENT, 15, "15 %");
    fmt(MK_U_MHZ, 1410, "1410 MHz");
    fmt(MK_U_COUNT, -3, "-3");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("units");
    TCase *tc = tcase_create("units");
    tcase_add_test(tc, memory_forms);
    tcase_add_test(tc, memory_bad_forms);
    tcase_add_test(tc, power_forms);
    tcase_add_test(tc, duration_forms);
    tcase_add_test(tc, whole_quantities);
    tcase_add_test(tc, metric_names);
    tcase_add_test(tc, formatting);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
