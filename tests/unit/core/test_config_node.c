/* test_config_node.c - the config's node keys (lib/core/config_node.c):
 * machine: and its default from the GPUs, debug: and debugListen:. */
#include <check.h>
#include "config_check.h"

static const struct { const char *yaml, *machine; } machines[] = {
    { "version: 1.0\nprofile: a100-sxm4-40gb\ncount: 8\n", "NVIDIA DGX A100" },
    { "version: 1.0\nprofile: a100-sxm4-80gb\ncount: 8\n", "NVIDIA DGX A100" },
    { "version: 1.0\nprofile: h100-sxm5-80gb\ncount: 8\n", "NVIDIA DGX H100" },
    { "version: 1.0\nprofile: h200-sxm-141gb\ncount: 8\n", "NVIDIA DGX H200" },
    { "version: 1.0\nprofile: b200\ncount: 8\n", "NVIDIA DGX B200" },
    /* Not eight, not one profile, or no DGX of them: the generic name. */
    { "version: 1.0\nprofile: h100-sxm5-80gb\ncount: 4\n", "Mokka Virtual GPU Node" },
    { "version: 1.0\nprofile: l4\ncount: 8\n", "Mokka Virtual GPU Node" },
    { "version: 1.0\nprofile: a100-sxm4-40gb\ncount: 8\ndevices:\n  - {index: 7, profile: a100-sxm4-80gb}\n",
      "Mokka Virtual GPU Node" },
    { "version: 1.0\nprofile: l4\ncount: 1\nmachine: Acme Box\n", "Acme Box" },
};

START_TEST(test_machine)
{
    mk_universe *u = LOAD_CLEAN(machines[_i].yaml);
    ck_assert_str_eq(u->machine, machines[_i].machine);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_debug)
{
    mk_universe *u = LOAD_CLEAN("version: 1.0\nprofile: l4\ncount: 1\n");
    ck_assert_int_eq(u->debug, 0);
    ck_assert_str_eq(u->debug_listen, "127.0.0.1:8080");
    mk_universe_free(u);
    u = LOAD_CLEAN("version: 1.0\nprofile: l4\ncount: 1\ndebug: true\ndebugListen: \"[::1]:9500\"\n");
    ck_assert_int_eq(u->debug, 1);
    ck_assert_str_eq(u->debug_listen, "[::1]:9500");
    mk_universe_free(u);
}
END_TEST

START_TEST(test_errors)
{
    EXPECT_ONLY("version: 1.0\nprofile: l4\ncount: 1\ndebugListen: localhost\n",
                "t.yaml:4:14: error: debugListen: expected HOST:PORT like 127.0.0.1:8080");
    EXPECT_ONLY("version: 1.0\nprofile: l4\ncount: 1\ndebugListen: \"x:70000\"\n",
                "t.yaml:4:14: error: debugListen: expected HOST:PORT like 127.0.0.1:8080");
    EXPECT_ONLY("version: 1.0\nprofile: l4\ncount: 1\nmachine: \"\"\n",
                "t.yaml:4:10: error: machine: must not be empty");
    EXPECT_DIAG("version: 1.0\nprofile: l4\ncount: 1\ndebug: maybe\n",
                "t.yaml:4:8: error: debug: expected true or false, got 'maybe'");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("config_node");
    TCase *tc = tcase_create("node");
    tcase_add_loop_test(tc, test_machine, 0, (int)(sizeof machines / sizeof machines[0]));
    tcase_add_test(tc, test_debug);
    tcase_add_test(tc, test_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
