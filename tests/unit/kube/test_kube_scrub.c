/* test_kube_scrub.c - secrets replaced in text (kube_scrub.c): every
 * occurrence, the longest of overlapping secrets, a secret cut off at the
 * end of the text, results cut to the buffer, and a PEM key's lines. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "kube/kube_scrub.h"
#include "support/testutil.h"

static void check_scrub(const char *in, size_t size, const char *want)
{
    char buf[256];
    mk_ksecrets l = { .n = 0 };
    mk_ksecrets_add(&l, "abc123");
    mk_ksecrets_add(&l, "abc123-longer");     /* contains the first */
    mk_ksecrets_add(&l, "");                  /* ignored, as is NULL */
    mk_ksecrets_add(&l, NULL);
    mk_ksecrets_add(&l, "tok");
    ck_assert_uint_eq(l.n, 3);
    snprintf(buf, sizeof buf, "%s", in);
    mk_kscrub(buf, size, &l);
    ck_assert_msg(strcmp(buf, want) == 0, "'%s' became '%s', want '%s'", in, buf, want);
}

START_TEST(replaces_every_occurrence)
{
    check_scrub("abc123 and abc123abc123", 256, "(redacted) and (redacted)(redacted)");
    check_scrub("no secret here: zzz", 256, "no secret here: zzz");
    check_scrub("", 256, "");
    check_scrub("tok", 256, "(redacted)");              /* shorter than its replacement */
}
END_TEST

START_TEST(longest_wins)
{
    check_scrub("x abc123-longer y", 256, "x (redacted) y");
}
END_TEST

/* A text cut in the middle of a secret: its first four bytes or more at
 * the very end are taken for it; fewer could be anything. */
START_TEST(cut_secret_at_the_end)
{
    check_scrub("Bearer abc1", 256, "Bearer (redacted)");
    check_scrub("Bearer abc123-lon", 256, "Bearer (redacted)");
    check_scrub("Bearer abc", 256, "Bearer abc");
    check_scrub("abc1 in the middle", 256, "abc1 in the middle");
}
END_TEST

START_TEST(cut_to_the_buffer)
{
    check_scrub("tok tok tok", 16, "(redacted) (red");
}
END_TEST

/* The whole key and each base64 line of 16 bytes or more; not the BEGIN
 * and END lines, nor a short last line that could match anywhere. */
START_TEST(pem_key_lines)
{
    static const char pem[] = "-----BEGIN EC PRIVATE KEY-----\r\n"
                              "MHcCAQEEIBsekritLineOne000000000000\r\n"
                              "oAoGCCqGSM49\r\n"
                              "-----END EC PRIVATE KEY-----\r\n";
    mk_ksecrets l = { .n = 0 };
    char text[256] = "quoted: MHcCAQEEIBsekritLineOne000000000000; BEGIN EC PRIVATE KEY; oAoGCCqGSM49";
    mk_ksecrets_add_pem(&l, pem, sizeof pem - 1);
    ck_assert_uint_eq(l.n, 2);
    mk_kscrub(text, sizeof text, &l);
    ck_assert_str_eq(text, "quoted: (redacted); BEGIN EC PRIVATE KEY; oAoGCCqGSM49");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_scrub");
    TCase *tc = mk_test_case(s, "scrub", NULL, NULL, 10);
    tcase_add_test(tc, replaces_every_occurrence);
    tcase_add_test(tc, longest_wins);
    tcase_add_test(tc, cut_secret_at_the_end);
    tcase_add_test(tc, cut_to_the_buffer);
    tcase_add_test(tc, pem_key_lines);
    return mk_test_run(s);
}
