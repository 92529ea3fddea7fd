/* test_visible_env.c - the view's spec from an environment: without the
 * CDI devices' MOKKA_VISIBLE_GPU_<index> variables it is
 * NVIDIA_VISIBLE_DEVICES as it is; with them, the union of all they name,
 * by index whatever the environment's order, after what
 * NVIDIA_VISIBLE_DEVICES names; `all` anywhere is every GPU; void, none
 * and empty add nothing; what it names reads against a universe as the
 * library reads it. */
#include <stdlib.h>
#include "config_check.h"
#include "visible.h"

/* The spec of env (NULL-terminated), checked against want (NULL: unset)
 * and whether CDI variables were joined in. */
static void spec_is(char *const *env, const char *want, int cdi)
{
    char *spec = (char *)"unchanged";
    ck_assert_int_eq(mk_visible_env_spec(env, &spec), cdi);
    if (want)
        ck_assert_str_eq(spec, want);
    else
        ck_assert_ptr_null(spec);
    free(spec);
}

START_TEST(without_cdi_variables_nvidia_visible_devices_alone)
{
    spec_is(NULL, NULL, 0);   /* environ after clearenv() */
    char *none[] = {"PATH=/bin", NULL};
    spec_is(none, NULL, 0);
    char *nvd[] = {"PATH=/bin", "NVIDIA_VISIBLE_DEVICES=3,1", NULL};
    spec_is(nvd, "3,1", 0);
    char *empty[] = {"NVIDIA_VISIBLE_DEVICES=", NULL};
    spec_is(empty, "", 0);
    char *near[] = {"NVIDIA_VISIBLE_DEVICES_X=2", "MOKKA_VISIBLE_GPU=1", "XMOKKA_VISIBLE_GPU_1=1",
                    "MOKKA_VISIBLE_GPU_=4", NULL};
    spec_is(near, NULL, 0);
}
END_TEST

START_TEST(cdi_variables_by_index)
{
    char *env[] = {"MOKKA_VISIBLE_GPU_3=GPU-c", "PATH=/bin", "MOKKA_VISIBLE_GPU_1=GPU-a", NULL};
    spec_is(env, "GPU-a,GPU-c", 1);
    char *ten[] = {"MOKKA_VISIBLE_GPU_10=GPU-k", "MOKKA_VISIBLE_GPU_9=GPU-j", NULL};
    spec_is(ten, "GPU-j,GPU-k", 1);
    char *named[] = {"MOKKA_VISIBLE_GPU_x=GPU-x", "MOKKA_VISIBLE_GPU_2=GPU-b", NULL};
    spec_is(named, "GPU-b,GPU-x", 1);   /* a name that is no number: last */
}
END_TEST

START_TEST(union_with_nvidia_visible_devices)
{
    char *both[] = {"MOKKA_VISIBLE_GPU_1=GPU-a", "NVIDIA_VISIBLE_DEVICES=0", NULL};
    spec_is(both, "0,GPU-a", 1);
    /* the CDI spec's own void, and an empty device value, add nothing */
    char *voided[] = {"NVIDIA_VISIBLE_DEVICES=void", "MOKKA_VISIBLE_GPU_2=GPU-b",
                      "MOKKA_VISIBLE_GPU_0=", NULL};
    spec_is(voided, "GPU-b", 1);
    char *nothing[] = {"NVIDIA_VISIBLE_DEVICES=none", "MOKKA_VISIBLE_GPU_0= ", NULL};
    spec_is(nothing, "void", 1);
    char *all_device[] = {"NVIDIA_VISIBLE_DEVICES=void", "MOKKA_VISIBLE_GPU_1=GPU-a",
                          "MOKKA_VISIBLE_GPU_ALL=all", NULL};
    spec_is(all_device, "all", 1);
    char *all_nvd[] = {"NVIDIA_VISIBLE_DEVICES=ALL", "MOKKA_VISIBLE_GPU_1=GPU-a", NULL};
    spec_is(all_nvd, "all", 1);
}
END_TEST

/* What the joined spec shows, read as the library reads it. */
START_TEST(the_library_sees_exactly_those)
{
    mk_universe *u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 4\n");
    char g1[160], g3[160];
    snprintf(g3, sizeof g3, "MOKKA_VISIBLE_GPU_3=%s", u->dev[3].uuid);
    snprintf(g1, sizeof g1, "MOKKA_VISIBLE_GPU_1=%s", u->dev[1].uuid);
    char *env[] = {"NVIDIA_VISIBLE_DEVICES=void", g3, g1, g1, NULL};
    char *spec, unknown[64];
    ck_assert_int_eq(mk_visible_env_spec(env, &spec), 1);
    mk_visible v;
    ck_assert_int_eq(mk_visible_parse(u, spec, &v, unknown, sizeof unknown), 0);
    ck_assert_int_eq(v.restricted, 1);
    ck_assert_uint_eq(v.n, 2);
    ck_assert_uint_eq(v.gpu[0], 1);
    ck_assert_uint_eq(v.gpu[1], 3);
    ck_assert_str_eq(unknown, "");
    mk_visible_free(&v);
    free(spec);
    mk_universe_free(u);
}
END_TEST

START_TEST(none_vs_some)
{
    ck_assert(mk_visible_none(""));
    ck_assert(mk_visible_none(" Void "));
    ck_assert(mk_visible_none("none"));
    ck_assert(!mk_visible_none("0"));
    ck_assert(!mk_visible_none("all"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("visible_env");
    TCase *tc = tcase_create("visible_env");
    tcase_add_test(tc, without_cdi_variables_nvidia_visible_devices_alone);
    tcase_add_test(tc, cdi_variables_by_index);
    tcase_add_test(tc, union_with_nvidia_visible_devices);
    tcase_add_test(tc, the_library_sees_exactly_those);
    tcase_add_test(tc, none_vs_some);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
