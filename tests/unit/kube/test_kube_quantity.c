/* test_kube_quantity.c - Kubernetes quantity strings as integers (kube_node.c). */
#include <check.h>
#include <limits.h>
#include "kube/kube_node.h"
#include "support/testutil.h"

static const struct {
    const char *in;
    int rc;            /* 0 integral, 1 rounded up, -1 invalid */
    long long value;
} cases[] = {
    { "8", 0, 8 },
    { "0", 0, 0 },
    { "+3", 0, 3 },
    { "-2", 0, -2 },
    { "1k", 0, 1000 },
    { "1M", 0, 1000000 },
    { "2G", 0, 2000000000LL },
    { "1T", 0, 1000000000000LL },
    { "1P", 0, 1000000000000000LL },
    { "1E", 0, 1000000000000000000LL },        /* exa, not an exponent */
    { "1Ki", 0, 1024 },
    { "1Mi", 0, 1048576 },
    { "528280128Ki", 0, 540958851072LL },
    { "1Gi", 0, 1073741824LL },
    { "1Ei", 0, 1152921504606846976LL },
    { "500m", 1, 1 },                          /* cpu: half a core rounds up */
    { "1500m", 1, 2 },
    { "2000m", 0, 2 },
    { "63500m", 1, 64 },
    { "100u", 1, 1 },
    { "5n", 1, 1 },
    { "0m", 0, 0 },
    { "1.5", 1, 2 },
    { "1.0", 0, 1 },
    { ".5", 1, 1 },
    { "5.", 0, 5 },
    { "0.1Ki", 1, 103 },                       /* 102.4 */
    { "2e3", 0, 2000 },
    { "2E3", 0, 2000 },
    { "1e-3", 1, 1 },
    { "-500m", 1, 0 },                         /* ceiling of -0.5 */
    { "1.5k", 0, 1500 },
    { "9223372036854775807", 0, LLONG_MAX },
    { "9223372036854775808", -1, 0 },          /* does not fit */
    { "16Ei", -1, 0 },
    { "1e100", -1, 0 },
    { "", -1, 0 },
    { "k", -1, 0 },
    { "+", -1, 0 },
    { ".", -1, 0 },
    { "1.2.3", -1, 0 },
    { "1 k", -1, 0 },
    { "1kk", -1, 0 },
    { "1Xi", -1, 0 },
    { "1e", -1, 0 },
    { "1ki", -1, 0 },
    { "abc", -1, 0 },
    { "8 ", -1, 0 },
};

START_TEST(quantity_table)
{
    long long v = 424242;
    int rc = mk_kquantity(cases[_i].in, &v);
    ck_assert_msg(rc == cases[_i].rc, "'%s': rc %d, want %d", cases[_i].in, rc, cases[_i].rc);
    if (rc >= 0)
        ck_assert_msg(v == cases[_i].value, "'%s': %lld, want %lld", cases[_i].in, v, cases[_i].value);
}
END_TEST

START_TEST(quantity_invalid_leaves_output)
{
    long long v = 7;
    ck_assert_int_eq(mk_kquantity("nope", &v), -1);
    ck_assert_int_eq(v, 7);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_quantity");
    TCase *tc = tcase_create("parse");
    tcase_add_loop_test(tc, quantity_table, 0, (int)(sizeof cases / sizeof cases[0]));
    tcase_add_test(tc, quantity_invalid_leaves_output);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
