/* test_visible.c - NVIDIA_VISIBLE_DEVICES read against a universe: unset
 * and all show everything unrestricted; none, void and empty show nothing;
 * indexes, GPU UUIDs, MIG UUIDs and G:M in listed order, without repeats;
 * a MIG device shows its parent with only the MIG devices named; unknown
 * entries are left out and listed. */
#include "config_check.h"
#include "visible.h"

/* Four A100s, GPU 1 with three MIG devices. */
static mk_universe *four(void)
{
    return LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 4\ndevices:\n"
                      "  - index: 1\n    mig: {instances: [1g.5gb, 1g.5gb, 2g.10gb]}\n");
}

/* The view of spec shows exactly these universe GPUs, in order. */
static void shows(const mk_universe *u, const mk_visible *v, const unsigned *gpus, size_t n)
{
    ck_assert_uint_eq(v->n, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(v->gpu[i], gpus[i]);
        ck_assert_int_eq(v->pos[gpus[i]], (int)i);
    }
    size_t hidden = 0;
    for (size_t g = 0; g < u->ndev; g++)
        hidden += v->pos[g] < 0;
    ck_assert_uint_eq(hidden, u->ndev - n);
}

START_TEST(unset_and_all)
{
    mk_universe *u = four();
    const char *forms[] = {NULL, "all", " All\t"};
    static const unsigned every[] = {0, 1, 2, 3};
    for (size_t f = 0; f < 3; f++) {
        mk_visible v;
        char unknown[64];
        ck_assert_int_eq(mk_visible_parse(u, forms[f], &v, unknown, sizeof unknown), 0);
        ck_assert_int_eq(v.restricted, 0);
        shows(u, &v, every, 4);
        ck_assert_uint_eq(mk_visible_nmig(&v, u, 1), 3);
        ck_assert_str_eq(unknown, "");
        mk_visible_free(&v);
    }
    mk_universe_free(u);
}
END_TEST

START_TEST(none_void_empty)
{
    mk_universe *u = four();
    const char *forms[] = {"none", "void", "", "  ", "VOID"};
    for (size_t f = 0; f < 5; f++) {
        mk_visible v;
        char unknown[64];
        ck_assert_int_eq(mk_visible_parse(u, forms[f], &v, unknown, sizeof unknown), 0);
        ck_assert_int_eq(v.restricted, 1);
        shows(u, &v, NULL, 0);
        ck_assert(!mk_visible_mig(&v, 1, 0));
        ck_assert_str_eq(unknown, "");
        mk_visible_free(&v);
    }
    mk_universe_free(u);
}
END_TEST

START_TEST(indexes_and_uuids_in_order)
{
    mk_universe *u = four();
    char spec[256], unknown[64];
    snprintf(spec, sizeof spec, "3, %s,3,,%s", u->dev[0].uuid, u->dev[1].uuid);
    for (char *p = spec + 4; *p && *p != ','; p++)   /* UUIDs match in any case */
        *p = (char)(*p >= 'a' && *p <= 'f' ? *p - 32 : *p);
    mk_visible v;
    ck_assert_int_eq(mk_visible_parse(u, spec, &v, unknown, sizeof unknown), 0);
    static const unsigned want[] = {3, 0, 1};
    shows(u, &v, want, 3);
    ck_assert_uint_eq(mk_visible_nmig(&v, u, 1), 3);   /* named whole: all its MIG devices */
    ck_assert_str_eq(unknown, "");
    mk_visible_free(&v);
    mk_universe_free(u);
}
END_TEST

START_TEST(mig_devices_show_their_parent)
{
    mk_universe *u = four();
    char spec[256], unknown[64];
    snprintf(spec, sizeof spec, "%s,2,1:0", u->dev[1].mig[2].uuid);
    mk_visible v;
    ck_assert_int_eq(mk_visible_parse(u, spec, &v, unknown, sizeof unknown), 0);
    static const unsigned want[] = {1, 2};
    shows(u, &v, want, 2);
    ck_assert(mk_visible_mig(&v, 1, 0));
    ck_assert(!mk_visible_mig(&v, 1, 1));
    ck_assert(mk_visible_mig(&v, 1, 2));
    ck_assert_uint_eq(mk_visible_nmig(&v, u, 1), 2);
    mk_visible_free(&v);

    snprintf(spec, sizeof spec, "1:1,1");   /* named whole as well: all of them */
    ck_assert_int_eq(mk_visible_parse(u, spec, &v, unknown, sizeof unknown), 0);
    ck_assert_uint_eq(mk_visible_nmig(&v, u, 1), 3);
    mk_visible_free(&v);
    mk_universe_free(u);
}
END_TEST

START_TEST(unknown_entries_listed)
{
    mk_universe *u = four();
    char unknown[256], big[300];
    memset(big, '7', sizeof big - 1);
    big[sizeof big - 1] = 0;
    mk_visible v;
    ck_assert_int_eq(mk_visible_parse(u, "4,1:3,0:0,2,GPU-x,-1,1:,:1,2x", &v, unknown,
                                      sizeof unknown), 0);
    static const unsigned want[] = {2};
    shows(u, &v, want, 1);
    ck_assert_str_eq(unknown, "'4', '1:3', '0:0', 'GPU-x', '-1', '1:', ':1', '2x'");
    mk_visible_free(&v);

    /* a huge entry or a tiny buffer: cut, never overrun */
    ck_assert_int_eq(mk_visible_parse(u, big, &v, unknown, 8), 0);
    ck_assert_uint_eq(v.n, 0);
    ck_assert_uint_eq(strlen(unknown), 7);
    mk_visible_free(&v);
    mk_universe_free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("visible");
    TCase *tc = tcase_create("visible");
    tcase_add_test(tc, unset_and_all);
    tcase_add_test(tc, none_void_empty);
    tcase_add_test(tc, indexes_and_uuids_in_order);
    tcase_add_test(tc, mig_devices_show_their_parent);
    tcase_add_test(tc, unknown_entries_listed);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
