/* test_kube_time.c - RFC 3339 times as the API server writes them
 * (kube_time.c), to the millisecond. */
#include <check.h>
#include "kube/kube_time.h"
#include "support/testutil.h"

static const struct { const char *in; long long ms; } good[] = {
    { "2024-05-01T10:00:00Z", 1714557600000LL },
    { "2024-05-01T10:00:00.1Z", 1714557600100LL },
    { "2024-05-01T10:00:00.123456789Z", 1714557600123LL },
    { "2024-05-01T12:00:00+02:00", 1714557600000LL },
    { "2024-05-01T04:30:00.5-05:30", 1714557600500LL },
    { "2024-05-01T10:00:00z", 1714557600000LL },
    { "1970-01-01T00:00:00Z", 0 },
    { "2024-02-29T00:00:00Z", 1709164800000LL },
    { "2000-02-29T00:00:00Z", 951782400000LL },
    { "9999-12-31T23:59:59Z", 253402300799000LL },
};

static const char *const bad[] = {
    "", "2024-05-01", "2024-05-01T10:00:00", "2024-05-01t10:00:00Z", "2024-05-01T10:00:00Zjunk",
    " 2024-05-01T10:00:00Z", "2024-5-01T10:00:00Z", "+2024-05-01T10:00:00Z",
    "2024-13-01T10:00:00Z", "2024-00-01T10:00:00Z", "2023-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z", "2024-04-31T10:00:00Z", "2024-05-01T24:00:00Z",
    "2024-05-01T10:60:00Z", "2024-05-01T10:00:60Z", "2024-05-01T10:00:00.Z",
    "2024-05-01T10:00:00.1234567890Z", "2024-05-01T10:00:00+2:00", "2024-05-01T10:00:00+24:00",
    "2024-05-01T10:00:00+02:60", "2024-05-01T10:00:00+0200", "1969-12-31T23:59:59Z",
    "1970-01-01T00:00:00+00:01", "10000-01-01T00:00:00Z",
};

START_TEST(parses)
{
    long long ms = -1;
    ck_assert_msg(mk_ktime_ms(good[_i].in, &ms) == 0, "'%s' rejected", good[_i].in);
    ck_assert_int_eq(ms, good[_i].ms);
}
END_TEST

START_TEST(rejects)
{
    long long ms = 42;
    ck_assert_msg(mk_ktime_ms(bad[_i], &ms) == -1, "'%s' accepted", bad[_i]);
    ck_assert_int_eq(ms, 42);
}
END_TEST

/* The three forms the API server is written in, each read back to the
 * millisecond: a Time, RFC3339Nano to the millisecond, and a MicroTime. */
START_TEST(formats)
{
    static const char *const want[] = { "2026-12-02T03:04:05Z", "2026-12-02T03:04:05.123Z",
                                        "2026-12-02T03:04:05.123000Z" };
    const long long t = 1796180645123LL;
    char buf[64];
    mk_ktime_format(t, _i, buf, sizeof buf);
    ck_assert_str_eq(buf, want[_i]);
    long long back = -1;
    ck_assert_int_eq(mk_ktime_ms(buf, &back), 0);
    ck_assert_int_eq(back, _i ? t : t - 123);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_time");
    TCase *tc = tcase_create("rfc3339");
    tcase_add_loop_test(tc, parses, 0, (int)(sizeof good / sizeof good[0]));
    tcase_add_loop_test(tc, rejects, 0, (int)(sizeof bad / sizeof bad[0]));
    tcase_add_loop_test(tc, formats, 0, 3);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
