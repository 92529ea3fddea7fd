/* test_kube_name.c - names in API paths (kube_name.c): DNS subdomains
 * taken and refused, the refusal that names where the name came from, why,
 * and the name escaped; paths with the name as one encoded segment, and
 * names refused there whatever the checks before; paths that could fold
 * into another refused. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube/kube_name.h"
#include "support/testutil.h"

#define RULES " (a DNS subdomain: lower-case letters, digits, '-' and '.', each part starting " \
              "and ending with a letter or digit, 253 at most)"

START_TEST(subdomains)
{
    static const char *const good[] = { "a", "gpu-node-1", "node.example.com", "0", "a-b.c-d",
                                        "a--b" };
    static const char *const bad[] = { "", "A", "-a", "a-", "a..b", ".a", "a.", "a_b", "a.-b",
                                       "a-.b", "a b", "caf\xc3\xa9", ".", "..", "a/b", "x#",
                                       "x?y", "a%2Fb" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(mk_kname_ok(good[i]), "'%s' refused", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!mk_kname_ok(bad[i]), "'%s' taken", bad[i]);
    char buf[300];
    memset(buf, 'a', 253);
    buf[253] = 0;
    ck_assert_int_eq(mk_kname_ok(buf), 1);
    strcat(buf, "a");
    ck_assert_int_eq(mk_kname_ok(buf), 0);
    ck_assert_int_eq(mk_ksubdomain("ab/c", 2), 1);   /* a prefix of a longer text */
}
END_TEST

static void check_refusal(const char *name, const char *want)
{
    char err[1024] = "";
    ck_assert_int_eq(mk_kname_check("--clear", "GPUFault", name, err, sizeof err), -1);
    ck_assert_msg(strcmp(err, want) == 0, "got  %s\nwant %s", err, want);
}

START_TEST(refusal_says_where_why_and_what)
{
    char err[64] = "untouched";
    ck_assert_int_eq(mk_kname_check("--node", "node", "gpu-1", err, sizeof err), 0);
    ck_assert_str_eq(err, "untouched");
    check_refusal("../../api/v1/nodes/n", "--clear: '../../api/v1/nodes/n' is not a GPUFault "
                  "name: it holds '/'" RULES);
    check_refusal("", "--clear: '' is not a GPUFault name: it is empty" RULES);
    check_refusal("..", "--clear: '..' is not a GPUFault name: a part is empty or starts or ends "
                  "with '-'" RULES);
    check_refusal("Up", "--clear: 'Up' is not a GPUFault name: it holds 'U'" RULES);
    /* Control bytes, quotes, backslashes and UTF-8 escaped. */
    check_refusal("x\x1b[31m'\\\n\xc3\xa9", "--clear: 'x\\x1b[31m\\x27\\x5c\\x0a\\xc3\\xa9' is "
                  "not a GPUFault name: it holds '\\x1b'" RULES);
    /* Long names: the count, and 80 bytes shown. */
    char name[400], want[1024];
    memset(name, 'a', 300);
    name[300] = 0;
    snprintf(want, sizeof want, "--clear: '%.80s...' is not a GPUFault name: it has 300 "
             "characters" RULES, name);
    check_refusal(name, want);
    /* A short buffer cuts the message, never overruns. */
    char small[16];
    ck_assert_int_eq(mk_kname_check("--clear", "GPUFault", "A", small, sizeof small), -1);
    ck_assert_str_eq(small, "--clear: 'A' is");
}
END_TEST

static void check_path(const char *name, const char *want)
{
    char err[256] = "";
    char *p = mk_kpath_name("/apis/mokka.io/v1alpha1/gpufaults", name, err, sizeof err);
    ck_assert_msg(p, "'%s' refused: %s", name, err);
    ck_assert_str_eq(p, want);
    ck_assert_msg(mk_kpath_clean(p), "%s not clean", p);
    free(p);
}

START_TEST(paths_hold_one_encoded_segment)
{
    check_path("x", "/apis/mokka.io/v1alpha1/gpufaults/x");
    check_path("node.example-1", "/apis/mokka.io/v1alpha1/gpufaults/node.example-1");
    check_path("x#", "/apis/mokka.io/v1alpha1/gpufaults/x%23");
    check_path("x?dryRun=All", "/apis/mokka.io/v1alpha1/gpufaults/x%3FdryRun%3DAll");
    check_path("a%2F..", "/apis/mokka.io/v1alpha1/gpufaults/a%252F..");
    check_path("%2e%2e", "/apis/mokka.io/v1alpha1/gpufaults/%252e%252e");
    check_path("a b\n", "/apis/mokka.io/v1alpha1/gpufaults/a%20b%0A");
    check_path("...", "/apis/mokka.io/v1alpha1/gpufaults/...");
}
END_TEST

START_TEST(paths_refuse_names_that_leave_their_segment)
{
    static const char *const bad[] = { "", ".", "..", "../x", "a/b", "/", "x/..", "\x1b/" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[256] = "";
        char *p = mk_kpath_name("/apis/g/v/things", bad[i], err, sizeof err);
        ck_assert_msg(!p, "'%s' became %s", bad[i], p);
        ck_assert_msg(strstr(err, "cannot name an object in /apis/g/v/things: it would name "
                                  "another path"), "%s", err);
    }
    char err[256];
    ck_assert_ptr_null(mk_kpath_name("/c", "\x1b/..", err, sizeof err));
    ck_assert_str_eq(err, "'\\x1b/..' cannot name an object in /c: it would name another path");
}
END_TEST

START_TEST(paths_that_could_fold_are_not_clean)
{
    static const char *const clean[] = {
        "/api/v1/nodes", "/api/v1/nodes?fieldSelector=metadata.name%3D..%2Fx",
        "/apis/g/v/things/...", "/apis/g/v/things/.x", "/apis/g/v/things/x.", "/",
        "/api/v1/nodes?a=/../b", "/apis/g/v/things/%2e%2e%2e", "/api/v1/nodes?x=#",
    };
    static const char *const folds[] = {
        "/apis/g/v/things/..", "/apis/g/v/things/../../api/v1/nodes/n", "/a/./b", "/.",
        "/apis/g/v/things/%2e%2E", "/apis/g/v/things/%2E", "/a/.%2e/b", "/a/..?x=1",
        "/apis/g/v/things/x#", "/apis/g/v/things/#?x", "..", ".",
    };
    for (size_t i = 0; i < sizeof clean / sizeof clean[0]; i++)
        ck_assert_msg(mk_kpath_clean(clean[i]), "%s refused", clean[i]);
    for (size_t i = 0; i < sizeof folds / sizeof folds[0]; i++)
        ck_assert_msg(!mk_kpath_clean(folds[i]), "%s taken", folds[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_name");
    TCase *tc = mk_test_case(s, "names", NULL, NULL, 10);
    tcase_add_test(tc, subdomains);
    tcase_add_test(tc, refusal_says_where_why_and_what);
    tcase_add_test(tc, paths_hold_one_encoded_segment);
    tcase_add_test(tc, paths_refuse_names_that_leave_their_segment);
    tcase_add_test(tc, paths_that_could_fold_are_not_clean);
    return mk_test_run(s);
}
