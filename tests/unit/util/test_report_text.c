/* test_report_text.c - the text helpers the report writers stand on:
 * cleaning (escape sequences, control characters, invalid UTF-8), one-line
 * flattening with truncation, snippets for error messages, and durations
 * both ways. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "textesc.h"
#include "util/util.h"
#include "support/testutil.h"

static const struct { const char *in, *out; } cleans[] = {
    {"plain text", "plain text"},
    {"\033[31mred\033[0m and \033[1;32mbold green\033[m", "red and bold green"},
    {"cursor\033[2K\033[1Gmoves", "cursormoves"},
    {"title\033]0;window title\007 after", "title after"},
    {"link \033]8;;http://x\033\\text\033]8;;\033\\", "link text"},
    {"charset \033(Bswitch", "charset switch"},
    {"lone escape at end \033", "lone escape at end "},
    {"nul-free controls \001\002\010\013\014\177 gone", "nul-free controls  gone"},
    {"tab\tand\nnewline kept", "tab\tand\nnewline kept"},
    {"crlf\r\nline\rprogress", "crlf\nline\nprogress"},
    {"utf-8 ok: caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80", "utf-8 ok: caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x9a\x80"},
    {"bad byte \xff here", "bad byte \xef\xbf\xbd here"},
    {"truncated \xe2\x9c", "truncated \xef\xbf\xbd\xef\xbf\xbd"},
    {"overlong \xc0\xaf", "overlong \xef\xbf\xbd\xef\xbf\xbd"},
    {"surrogate \xed\xa0\x80", "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
    {"C1 \xc2\x9b" "31m control", "C1 31m control"},
    {"noncharacter \xef\xbf\xbe\xef\xbf\xbf!", "noncharacter !"},
};

START_TEST(test_clean)
{
    char *got = mk_text_clean(cleans[_i].in);
    ck_assert_str_eq(got, cleans[_i].out);
    free(got);
}
END_TEST

START_TEST(test_line)
{
    char *got = mk_text_line("  first\n\n  second\tthird \033[1mbold\033[0m  ", 0);
    ck_assert_str_eq(got, "first second third bold");
    free(got);
    got = mk_text_line("abcdefghij", 8);
    ck_assert_str_eq(got, "abcde...");
    free(got);
    got = mk_text_line("abc\xe2\x9c\x93" "def", 7);          /* never cut inside a character */
    ck_assert_str_eq(got, "abc...");
    free(got);
    got = mk_text_line("short", 8);
    ck_assert_str_eq(got, "short");
    free(got);
    ck_assert_ptr_null(mk_text_clean(NULL));
    ck_assert_ptr_null(mk_text_line(NULL, 0));
}
END_TEST

START_TEST(test_snip)
{
    char buf[16];
    mk_text_snip("short", 8, buf, sizeof buf);
    ck_assert_str_eq(buf, "short");
    mk_text_snip("abcdefghij", 8, buf, sizeof buf);
    ck_assert_str_eq(buf, "abcdefgh...");
    mk_text_snip("tab\there caf\xc3\xa9\033", 20, buf, sizeof buf);
    ck_assert_str_eq(buf, "tab?here caf???");
    mk_text_snip("0123456789abcdefghij", 64, buf, sizeof buf);   /* the buffer cuts it */
    ck_assert_str_eq(buf, "0123456789abcde");
    mk_text_snip("x", 8, buf, 0);                                  /* nothing written */
}
END_TEST

static const struct { const char *in; long long ms; } durations[] = {
    {"0", 0}, {"500ms", 500}, {"30s", 30000}, {"5m", 300000}, {"1h", 3600000},
    {"1m30s", 90000}, {"1h2m3s4ms", 3723004}, {"24h", 86400000},
};

static const char *const bad_durations[] = {
    "", "5", "s", "5 s", "5sec", "1.5s", "-1s", "25h", "99999999999h", "1d", "5S",
};

/* Outside text on one line (lib/core/textesc.h): nothing a terminal acts
 * on, nothing that is not UTF-8, nothing lost. */
START_TEST(test_escape)
{
    char buf[64];
    char *e = mk_text_escaped("2,0\033[2J\033]0;title\a\n\r\t\\x\xff\xc2\x9b\xc3\xa9");
    ck_assert_str_eq(e, "2,0\\x1b[2J\\x1b]0;title\\x07\\n\\r\\t\\\\x\\xff\\xc2\\x9b\xc3\xa9");
    free(e);
    /* cut by max or by the buffer: never inside an escape or a character */
    ck_assert_str_eq(mk_text_escape("abcdef", 3, buf, sizeof buf), "abc...");
    ck_assert_str_eq(mk_text_escape("a\033b", 0, buf, 7), "a...");
    ck_assert_str_eq(mk_text_escape("\xc3\xa9\xc3\xa9", 3, buf, sizeof buf), "\xc3\xa9...");
    e = mk_text_utf8("a\033\xff\xc3\xa9");
    ck_assert_str_eq(e, "a\033\xef\xbf\xbd\xc3\xa9");
    free(e);
}
END_TEST

START_TEST(test_duration_parse)
{
    for (size_t i = 0; i < sizeof durations / sizeof durations[0]; i++) {
        long long ms = -1;
        ck_assert_int_eq(mk_duration_parse(durations[i].in, &ms), 0);
        ck_assert_int_eq(ms, durations[i].ms);
    }
    for (size_t i = 0; i < sizeof bad_durations / sizeof bad_durations[0]; i++) {
        long long ms;
        ck_assert_msg(mk_duration_parse(bad_durations[i], &ms) != 0, "'%s' parsed",
                      bad_durations[i]);
    }
}
END_TEST

START_TEST(test_duration_format)
{
    static const struct { long long ms; const char *fmt, *secs; } f[] = {
        {0, "0s", "0.000"}, {4, "4ms", "0.004"}, {999, "999ms", "0.999"},
        {1000, "1s", "1.000"}, {2500, "2.5s", "2.500"}, {3210, "3.21s", "3.210"},
        {30001, "30.001s", "30.001"}, {90000, "1m30s", "90.000"}, {3600000, "1h", "3600.000"},
        {3723500, "1h2m3.5s", "3723.500"}, {-5, "0s", "0.000"},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char a[32], b[32];
        mk_duration_format(f[i].ms, a, sizeof a);
        mk_secs_format(f[i].ms, b, sizeof b);
        ck_assert_str_eq(a, f[i].fmt);
        ck_assert_str_eq(b, f[i].secs);
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report_text");
    TCase *tc = tcase_create("text");
    tcase_add_loop_test(tc, test_clean, 0, (int)(sizeof cleans / sizeof cleans[0]));
    tcase_add_test(tc, test_line);
    tcase_add_test(tc, test_snip);
    tcase_add_test(tc, test_escape);
    tcase_add_test(tc, test_duration_parse);
    tcase_add_test(tc, test_duration_format);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
