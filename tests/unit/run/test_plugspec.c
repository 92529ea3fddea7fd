/* test_plugspec.c - the plugins of `mokka run` as --add-plugin and a run
 * file give them (src/run/plugspec.c): names (a-z, 0-9, '-', unique, the
 * second of two naming the first's place), the command split at blanks with
 * leading VAR=VALUE words as the plugin's environment, a run file's
 * command/args/env/log with ${VAR} and ${RUN_FILE_DIR}, and its errors at
 * file:line:col. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/testutil.h"
#include "run/run.h"

START_TEST(test_add_plugin)
{
    mk_plugin_specs s = { 0 };
    char err[512];
    ck_assert_int_eq(mk_plugin_specs_add_arg(&s, "old=/bin/ndp --mig-strategy=none", err,
                                             sizeof err), 0);
    ck_assert_int_eq(mk_plugin_specs_add_arg(&s, "new=CONFIG_FILE=/etc/c.yaml  X_1=a=b ndp "
                                             "--flag=V=1 Y=2", err, sizeof err), 0);
    ck_assert_uint_eq(s.n, 2);
    ck_assert_str_eq(s.v[0].name, "old");
    ck_assert_uint_eq(s.v[0].nargs, 2);
    ck_assert_str_eq(s.v[0].args[0], "/bin/ndp");
    ck_assert_ptr_null(s.v[0].env);
    ck_assert_str_eq(s.v[1].env[0], "CONFIG_FILE=/etc/c.yaml");
    ck_assert_str_eq(s.v[1].env[1], "X_1=a=b");
    ck_assert_ptr_null(s.v[1].env[2]);
    /* after the command, NAME=VALUE is an argument */
    ck_assert_uint_eq(s.v[1].nargs, 3);
    ck_assert_str_eq(s.v[1].args[2], "Y=2");
    ck_assert_ptr_null(s.v[1].file);

    ck_assert_int_eq(mk_plugin_specs_add_arg(&s, "old=x", err, sizeof err), -1);
    ck_assert_str_eq(err, "--add-plugin: two plugins are named 'old' (the first at "
                          "--add-plugin old): each plugin needs a name of its own");
    ck_assert_int_eq(mk_plugin_specs_add_arg(&s, "Old=x", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "a plugin name takes a-z, 0-9 and '-'"), "%s", err);
    ck_assert_int_eq(mk_plugin_specs_add_arg(&s, "-a=x", err, sizeof err), -1);
    ck_assert_msg(strstr(err, "starts and ends with a letter or digit"), "%s", err);
    ck_assert_int_eq(mk_plugin_specs_add_arg(&s, "c=  A=1 ", err, sizeof err), -1);
    ck_assert_str_eq(err, "--add-plugin c: no command after the name");
    ck_assert_int_eq(mk_plugin_specs_add_arg(&s, "just-a-command", err, sizeof err), -1);
    ck_assert_str_eq(err, "--add-plugin takes NAME=COMMAND [ARG...], not 'just-a-command'");
    mk_plugin_specs_free(&s);
}
END_TEST

static const char *write_file(const char *dir, const char *name, const char *text)
{
    const char *path = mk_test_path(dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
    return path;
}

START_TEST(test_run_file)
{
    const char *dir = mk_test_tmpdir("plugspec");
    setenv("MOKKA_TEST_NDP", "/opt/ndp", 1);
    const char *path = write_file(dir, "plugins.yaml",
        "plugins:\n"
        "  - name: old\n"
        "    command: [\"${MOKKA_TEST_NDP}/old\", --mig-strategy=none]\n"
        "  - name: new\n"
        "    command: ndp\n"
        "    args: [--x, \"${RUN_FILE_DIR}/c.yaml\"]\n"
        "    env: {CONFIG_FILE: \"${RUN_FILE_DIR}/c.yaml\", A: \"1\"}\n"
        "    log: /tmp/new.log\n"
        "  - name: third\n"
        "    command: [t]\n"
        "    env: [B=2]\n");
    mk_plugin_specs s = { 0 };
    mk_diags d;
    mk_diags_init(&d);
    ck_assert_int_eq(mk_plugin_specs_load(&s, path, &d), 0);
    ck_assert_int_eq(d.errors, 0);
    ck_assert_uint_eq(s.n, 3);
    ck_assert_str_eq(s.v[0].args[0], "/opt/ndp/old");
    ck_assert_str_eq(s.v[0].file, path);
    ck_assert_int_eq(s.v[0].line, 2);
    char want[4200];
    snprintf(want, sizeof want, "%s/c.yaml", dir);
    ck_assert_uint_eq(s.v[1].nargs, 3);
    ck_assert_str_eq(s.v[1].args[2], want);
    snprintf(want, sizeof want, "CONFIG_FILE=%s/c.yaml", dir);
    ck_assert_str_eq(s.v[1].env[0], want);
    ck_assert_str_eq(s.v[1].env[1], "A=1");
    ck_assert_str_eq(s.v[1].log, "/tmp/new.log");
    ck_assert_str_eq(s.v[2].env[0], "B=2");
    mk_plugin_specs_free(&s);
    mk_diags_free(&d);
}
END_TEST

/* The first error's text, file name left out. */
static void load_error(const char *dir, const char *text, const char *want)
{
    const char *path = write_file(dir, "bad.yaml", text);
    mk_plugin_specs s = { 0 };
    mk_diags d;
    mk_diags_init(&d);
    ck_assert_int_eq(mk_plugin_specs_load(&s, path, &d), -1);
    ck_assert_int_gt(d.errors, 0);
    char line[2048];
    mk_diag_format(&d.v[0], line, sizeof line);
    const char *at = strstr(line, "bad.yaml:");
    ck_assert_msg(at && strstr(at, want), "%s does not say %s", line, want);
    mk_plugin_specs_free(&s);
    mk_diags_free(&d);
}

START_TEST(test_run_file_errors)
{
    const char *dir = mk_test_tmpdir("plugspec-bad");
    unsetenv("MOKKA_TEST_UNSET");
    load_error(dir, "plugins:\n  - name: a\n    command: [x]\n  - name: a\n    command: [y]\n",
               "bad.yaml:4:11: error: two plugins are named 'a' (the first at ");
    load_error(dir, "plugins:\n  - name: a\n", "bad.yaml:2:5: error: plugin 'a' has no command");
    load_error(dir, "plugins:\n  - name: a\n    command: [\"${MOKKA_TEST_UNSET}\"]\n",
               "bad.yaml:3:15: error: command: ${MOKKA_TEST_UNSET} is not set in the environment");
    load_error(dir, "plugins:\n  - command: [x]\n", "bad.yaml:2:5: error: a plugin needs a name");
    load_error(dir, "plugins: []\n", "error: plugins is a list of at least one plugin");
    load_error(dir, "other: 1\n", "error: a run file holds `plugins:`");
    load_error(dir, "plugins:\n  - name: a\n    command: [x]\n    enviroment: {}\n",
               "bad.yaml:4:5: error: unknown key 'enviroment'");
    load_error(dir, "plugins:\n  - name: a\n    command: [x]\n    env: [NOEQUALS]\n",
               "'NOEQUALS' is not NAME=VALUE");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plugspec");
    TCase *tc = mk_test_case(s, "plugspec", NULL, NULL, 30);
    tcase_add_test(tc, test_add_plugin);
    tcase_add_test(tc, test_run_file);
    tcase_add_test(tc, test_run_file_errors);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
