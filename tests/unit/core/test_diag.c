/* test_diag.c - collecting diagnostics (diag.h): each kept once, at most
 * MK_DIAGS_PER_FILE a file with a last line counting the rest, counts that
 * include what was not kept, and warnings only when strict. */
#include "config_check.h"

START_TEST(repeats_are_kept_once)
{
    mk_diags d;
    mk_diags_init(&d);
    for (int round = 0; round < 3; round++)
        for (int i = 0; i < 50; i++)
            mk_diag_add(&d, MK_DIAG_ERROR, "a.yaml", i + 1, 1, "problem %d", i);
    ck_assert_uint_eq(d.n, 50);
    ck_assert_uint_eq(d.errors, 50);
    /* Differing in anything is another diagnostic: level, file, place, text. */
    mk_diag_add(&d, MK_DIAG_ERROR, "b.yaml", 1, 1, "problem 0");
    mk_diag_add(&d, MK_DIAG_ERROR, NULL, 1, 1, "problem 0");
    mk_diag_add(&d, MK_DIAG_ERROR, "", 1, 1, "problem 0");
    mk_diag_add(&d, MK_DIAG_ERROR, "a.yaml", 1, 2, "problem 0");
    mk_diag_add(&d, MK_DIAG_ERROR, "a.yaml", 1, 1, "problem 0 ");
    d.strict = 1;
    mk_diag_add(&d, MK_DIAG_WARNING, "a.yaml", 1, 1, "problem 0");
    ck_assert_uint_eq(d.n, 56);
    ck_assert_uint_eq(d.errors, 55);
    ck_assert_uint_eq(d.warnings, 1);
    mk_diags_free(&d);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_int_eq(d.strict, 1);
    /* Freed means forgotten: the same text is new again. */
    mk_diag_add(&d, MK_DIAG_ERROR, "a.yaml", 1, 1, "problem 0");
    ck_assert_uint_eq(d.n, 1);
    mk_diags_free(&d);
}
END_TEST

START_TEST(warnings_only_when_strict)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_diag_add(&d, MK_DIAG_WARNING, "a.yaml", 1, 1, "odd");
    ck_assert_uint_eq(d.n, 0);
    ck_assert_uint_eq(d.warnings, 0);
    mk_diags_free(&d);
}
END_TEST

/* 200,000 distinct problems in one file: each used to be compared with all
 * before it (minutes of work); now 100 are kept, the rest counted. */
START_TEST(capped_per_file)
{
    mk_diags d;
    mk_diags_init(&d);
    for (int i = 0; i < 200000; i++)
        mk_diag_add(&d, MK_DIAG_ERROR, "a.yaml", i + 1, 1, "problem %d", i);
    ck_assert_uint_eq(d.n, MK_DIAGS_PER_FILE + 1);
    ck_assert_uint_eq(d.errors, 200000);
    ck_assert(mk_diags_full(&d, "a.yaml"));
    ck_assert(!mk_diags_full(&d, "b.yaml"));
    ck_assert(t_has_diag(&d, "a.yaml:100:1: error: problem 99"));
    ck_assert(!t_has_diag(&d, "a.yaml:101:1: error: problem 100"));
    ck_assert(t_has_diag(&d, "a.yaml: error: 199900 more errors in this file are not shown "
                             "(only the first 100 problems are)"));
    /* The first error is still the first found. */
    char line[256];
    mk_diag_format(mk_diags_first_error(&d), line, sizeof line);
    ck_assert_str_eq(line, "a.yaml:1:1: error: problem 0");
    /* A repeat of one not kept is not counted twice. */
    mk_diag_add(&d, MK_DIAG_ERROR, "a.yaml", 150001, 1, "problem 150000");
    ck_assert_uint_eq(d.errors, 200000);
    /* Another file has a cap of its own. */
    mk_diag_add(&d, MK_DIAG_ERROR, "b.yaml", 1, 1, "problem 0");
    ck_assert_uint_eq(d.n, MK_DIAGS_PER_FILE + 2);
    mk_diags_free(&d);
}
END_TEST

/* The last line counts errors and warnings apart, in words that fit the
 * numbers, and is an error as soon as an error was not kept. */
START_TEST(the_last_line)
{
    mk_diags d;
    mk_diags_init(&d);
    d.strict = 1;
    for (int i = 0; i < MK_DIAGS_PER_FILE; i++)
        mk_diag_add(&d, MK_DIAG_WARNING, "w.yaml", i + 1, 1, "odd %d", i);
    mk_diag_add(&d, MK_DIAG_WARNING, "w.yaml", 500, 1, "odder");
    ck_assert(t_has_diag(&d, "w.yaml: warning: 1 more warning in this file is not shown (only "
                             "the first 100 problems are)"));
    mk_diag_add(&d, MK_DIAG_ERROR, "w.yaml", 501, 1, "wrong");
    ck_assert(t_has_diag(&d, "w.yaml: error: 1 more error and 1 more warning in this file are not "
                             "shown (only the first 100 problems are)"));
    mk_diag_add(&d, MK_DIAG_ERROR, "w.yaml", 502, 1, "wrong again");
    ck_assert(t_has_diag(&d, "w.yaml: error: 2 more errors and 1 more warning in this file are "
                             "not shown (only the first 100 problems are)"));
    ck_assert_uint_eq(d.n, MK_DIAGS_PER_FILE + 1);
    ck_assert_uint_eq(d.errors, 2);
    ck_assert_uint_eq(d.warnings, MK_DIAGS_PER_FILE + 1);
    mk_diags_free(&d);
}
END_TEST

/* The last line is found again after the list was sorted under it (the
 * suite loader sorts what it added into file order). */
START_TEST(the_last_line_survives_reordering)
{
    mk_diags d;
    mk_diags_init(&d);
    for (int i = 0; i <= MK_DIAGS_PER_FILE; i++)
        mk_diag_add(&d, MK_DIAG_ERROR, "a.yaml", MK_DIAGS_PER_FILE + 1 - i, 1, "p %d", i);
    mk_diag last = d.v[d.n - 1];
    memmove(d.v + 1, d.v, (d.n - 1) * sizeof *d.v);
    d.v[0] = last;
    mk_diag_add(&d, MK_DIAG_ERROR, "a.yaml", 900, 1, "one more");
    ck_assert_uint_eq(d.n, MK_DIAGS_PER_FILE + 1);
    ck_assert(t_has_diag(&d, "a.yaml: error: 2 more errors in this file are not shown (only the "
                             "first 100 problems are)"));
    mk_diags_free(&d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("diag");
    TCase *tc = tcase_create("diag");
    tcase_add_test(tc, repeats_are_kept_once);
    tcase_add_test(tc, warnings_only_when_strict);
    tcase_add_test(tc, capped_per_file);
    tcase_add_test(tc, the_last_line);
    tcase_add_test(tc, the_last_line_survives_reordering);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
