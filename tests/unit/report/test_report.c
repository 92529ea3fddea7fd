/* test_report.c - the report model (totals, exit codes, harness errors,
 * timestamps), saving (atomic for regular files, in place for devices and
 * FIFOs, through symlinks), the JSON writer's schema and the terminal
 * summary with and without colour. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "util/util.h"
#include "report/report.h"
#include "support/testproc.h"
#include "support/testutil.h"

/* Captures what a writer writes. */
static char *written(int (*writer)(const mk_report *, FILE *), const mk_report *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ck_assert_int_eq(writer(r, f), 0);
    fclose(f);
    return buf;
}

/* One suite with one case of each status, with fixed times. */
static void sample(mk_report *r)
{
    mk_report_init(r);
    mk_rsuite *s = mk_report_add_suite(r, "smoke", "fixtures/suites/smoke.yaml");
    s->time_ms = 1234;
    mk_rcase *c = mk_rsuite_add_case(s, "registered", "node-a");
    c->line = 4;
    c->time_ms = 4;
    c = mk_rsuite_add_case(s, "xid 79", "node-a");
    c->line = 12;
    c->time_ms = 30001;
    mk_rcase_set(c, MK_ST_FAIL, "timeout", "after 30s: allocatable is %d, expected %d", 8, 7);
    mk_rcase_detail(c, "expected: allocatable 7");
    mk_rcase_detail(c, "actual:   allocatable 8");
    c->output = strdup("\033[31mE0101 health check failed\033[0m\n");
    c = mk_rsuite_add_case(s, "restart", "node-a");
    mk_rcase_set(c, MK_ST_ERROR, "action", "restart-plugin failed: timeout");
    c = mk_rsuite_add_case(s, "mig", "node-a");
    mk_rcase_set(c, MK_ST_SKIP, "skipped", "needs MIG");
}

START_TEST(test_totals_and_exit_codes)
{
    mk_report r;
    mk_report_init(&r);
    ck_assert_int_eq(mk_report_exit_code(&r), MK_EXIT_OK);
    mk_rsuite *s = mk_report_add_suite(&r, "a", NULL);
    mk_rcase *pass = mk_rsuite_add_case(s, "p", NULL);
    mk_rcase *skip = mk_rsuite_add_case(s, "s", NULL);
    mk_rcase_set(skip, MK_ST_SKIP, NULL, NULL);
    ck_assert_int_eq(mk_report_exit_code(&r), MK_EXIT_OK);
    mk_rcase_set(pass, MK_ST_FAIL, "assertion", "x");
    ck_assert_int_eq(mk_report_exit_code(&r), MK_EXIT_FAIL);
    mk_rsuite *s2 = mk_report_add_suite(&r, "b", NULL);
    mk_rcase_set(mk_rsuite_add_case(s2, "e", NULL), MK_ST_ERROR, "harness", "y");
    ck_assert_int_eq(mk_report_exit_code(&r), MK_EXIT_ENV);   /* errors win */
    s->time_ms = 10;
    s2->time_ms = 5;
    mk_totals t = mk_report_totals(&r);
    ck_assert_uint_eq(t.tests, 3);
    ck_assert_uint_eq(t.passed, 0);
    ck_assert_uint_eq(t.failures, 1);
    ck_assert_uint_eq(t.errors, 1);
    ck_assert_uint_eq(t.skipped, 1);
    ck_assert_int_eq(t.time_ms, 15);                  /* the sum, unless the run was timed */
    r.time_ms = 40;
    ck_assert_int_eq(mk_report_totals(&r).time_ms, 40);
    ck_assert_str_eq(pass->classname, "mokka.a");
    ck_assert_str_eq(mk_status_name(MK_ST_SKIP), "skipped");
    mk_report_free(&r);
}
END_TEST

START_TEST(test_harness_error)
{
    mk_report r;
    mk_report_init(&r);
    mk_rcase *c = mk_report_error(&r, "mokka", "plugin registration",
                                  "the plugin did not register within %ds", 60);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_str_eq(r.suites[0]->name, "mokka");
    ck_assert_int_eq(c->status, MK_ST_ERROR);
    ck_assert_str_eq(c->type, "harness");
    ck_assert_str_eq(c->message, "the plugin did not register within 60s");
    mk_report_error(&r, "mokka", "second", "again");
    ck_assert_uint_eq(r.n, 1);                        /* same suite */
    ck_assert_uint_eq(r.suites[0]->n, 2);
    ck_assert_int_eq(mk_report_exit_code(&r), MK_EXIT_ENV);
    mk_report_free(&r);
}
END_TEST

START_TEST(test_several_nodes_and_names)
{
    mk_report r;
    mk_report_init(&r);
    mk_rsuite *s = mk_report_add_suite(&r, "", NULL);
    ck_assert_str_eq(s->name, "mokka");
    mk_rcase *c = mk_rsuite_add_case(s, "", NULL);
    ck_assert_str_eq(c->name, "(unnamed)");
    ck_assert_int_eq(mk_rsuite_several_nodes(s), 0);
    mk_rsuite_add_case(s, "a", "n1");
    mk_rsuite_add_case(s, "a", "n1");
    ck_assert_int_eq(mk_rsuite_several_nodes(s), 0);
    mk_rsuite_add_case(s, "a", "n2");
    ck_assert_int_eq(mk_rsuite_several_nodes(s), 1);
    mk_report_free(&r);
}
END_TEST

START_TEST(test_source_date_epoch)
{
    mk_report r;
    mk_report_init(&r);
    setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
    ck_assert_int_eq(mk_report_add_suite(&r, "a", NULL)->timestamp, 1700000000);
    setenv("SOURCE_DATE_EPOCH", "yesterday", 1);       /* ignored, like other tools do */
    ck_assert_int_gt(mk_report_add_suite(&r, "b", NULL)->timestamp, 1700000000);
    unsetenv("SOURCE_DATE_EPOCH");
    mk_report_free(&r);
}
END_TEST

START_TEST(test_save)
{
    mk_report r;
    sample(&r);
    const char *dir = mk_test_tmpdir("report"), *path = mk_test_path(dir, "out.xml");
    char err[256];
    ck_assert_int_eq(mk_report_save(&r, path, mk_junit_write, err, sizeof err), 0);
    ck_assert_int_eq(access(path, R_OK), 0);
    ck_assert_int_eq(rmdir(dir), -1);                  /* only out.xml, no temporary left */
    unlink(path);
    ck_assert_int_eq(rmdir(dir), 0);
    ck_assert_int_eq(mk_report_save(&r, "/nonexistent/out.xml", mk_junit_write, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot write /nonexistent/out.xml: No such file or directory");
    mk_report_free(&r);
}
END_TEST

/* A character device in a test directory (root can make one: CI runs as
 * root), else the system's /dev/null, which a non-root writer cannot
 * replace anyway; either way it must stay a device. */
static const char *device_path(const char *dir)
{
    const char *p = mk_test_path(dir, "null");
    if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0)
        return p;
    return "/dev/null";
}

START_TEST(test_save_device_in_place)
{
    mk_report r;
    sample(&r);
    const char *dir = mk_test_tmpdir("report"), *dev = device_path(dir);
    char err[256];
    struct stat st;
    ck_assert_int_eq(mk_report_save(&r, dev, mk_junit_write, err, sizeof err), 0);
    ck_assert_int_eq(lstat(dev, &st), 0);
    ck_assert_msg(S_ISCHR(st.st_mode), "%s was replaced by a regular file", dev);
    ck_assert_int_eq(rmdir(dir), -1);                  /* the device, no temporary beside it */
    mk_report_free(&r);
}
END_TEST

START_TEST(test_save_fifo_in_place)
{
    mk_report r;
    sample(&r);
    const char *dir = mk_test_tmpdir("report"), *fifo = mk_test_path(dir, "fifo");
    const char *got = mk_test_path(dir, "got");
    char err[256];
    struct stat st;
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    pid_t reader = mk_test_fork();
    if (reader == 0) {                                  /* cat fifo > got */
        FILE *in = fopen(fifo, "r"), *out = fopen(got, "w");
        int c;
        while (in && out && (c = fgetc(in)) != EOF)
            fputc(c, out);
        _exit(in && out && fclose(out) == 0 ? 0 : 1);
    }
    ck_assert_int_eq(mk_report_save(&r, fifo, mk_junit_write, err, sizeof err), 0);
    ck_assert_int_eq(mk_test_wait(reader), 0);
    ck_assert_int_eq(lstat(fifo, &st), 0);
    ck_assert(S_ISFIFO(st.st_mode));
    ck_assert_ptr_nonnull(strstr(mk_test_slurp(got), "<testsuites"));
    mk_report_free(&r);
}
END_TEST

/* A reader that opens the FIFO, takes nothing and goes away: once the
 * writer blocked on the full pipe, then died of SIGPIPE with no message. */
START_TEST(test_save_fifo_reader_goes_away)
{
    mk_report r;
    sample(&r);
    mk_rsuite *s = mk_report_add_suite(&r, "big", "big.yaml");
    for (int i = 0; i < 2000; i++)              /* far more than a pipe holds */
        mk_rcase_set(mk_rsuite_add_case(s, "case", "node-a"), MK_ST_FAIL, "assertion",
                     "%0100d", i);
    const char *dir = mk_test_tmpdir("report"), *fifo = mk_test_path(dir, "fifo");
    char err[256];
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    pid_t reader = mk_test_fork();
    if (reader == 0) {
        int fd = open(fifo, O_RDONLY);
        usleep(500 * 1000);
        _exit(fd >= 0 ? 0 : 1);
    }
    ck_assert_int_eq(mk_report_save(&r, fifo, mk_junit_write, err, sizeof err), -1);
    ck_assert_int_eq(mk_test_wait(reader), 0);
    ck_assert_str_eq(err + strlen(err) - strlen("before the end of the report"),
                     "before the end of the report");
    ck_assert_ptr_nonnull(strstr(err, "its reader closed it"));
    mk_report_free(&r);
}
END_TEST

START_TEST(test_save_through_symlinks)
{
    mk_report r;
    sample(&r);
    const char *dir = mk_test_tmpdir("report");
    const char *target = mk_test_path(dir, "artifact.xml"), *link = mk_test_path(dir, "r.xml");
    const char *later = mk_test_path(dir, "later.xml"), *dangling = mk_test_path(dir, "d.xml");
    char err[256];
    struct stat st;
    FILE *f = fopen(target, "w");
    fputs("old", f);
    fclose(f);
    ck_assert_int_eq(chmod(target, 0640), 0);
    ck_assert_int_eq(symlink("artifact.xml", link), 0);
    ck_assert_int_eq(mk_report_save(&r, link, mk_junit_write, err, sizeof err), 0);
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert_msg(S_ISLNK(st.st_mode), "the symlink was replaced");
    ck_assert_int_eq(stat(target, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0640);         /* the file keeps its mode */
    ck_assert_ptr_nonnull(strstr(mk_test_slurp(target), "<testsuites"));
    /* A link to a file not written yet: the file appears, the link stays. */
    ck_assert_int_eq(symlink("later.xml", dangling), 0);
    ck_assert_int_eq(mk_report_save(&r, dangling, mk_junit_write, err, sizeof err), 0);
    ck_assert_int_eq(lstat(dangling, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    ck_assert_int_eq(stat(later, &st), 0);
    ck_assert(S_ISREG(st.st_mode));
    /* A directory is refused, not replaced. */
    ck_assert_int_eq(mk_report_save(&r, dir, mk_junit_write, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "it is a directory"));
    mk_report_free(&r);
}
END_TEST

/* --- JSON ----------------------------------------------------------------------- */

START_TEST(test_json)
{
    mk_report r;
    sample(&r);
    r.suites[0]->timestamp = 1700000000;
    char *text = written(mk_report_json_write, &r);
    ck_assert_ptr_null(strchr(text, '\033'));
    json_error_t jerr;
    json_t *root = json_loads(text, 0, &jerr);
    ck_assert_msg(root != NULL, "%s", jerr.text);
    ck_assert_int_eq(json_integer_value(json_object_get(root, "version")), 1);
    ck_assert_str_eq(json_string_value(json_object_get(root, "tool")), "mokka");
    ck_assert_str_eq(json_string_value(json_object_get(root, "mokka_version")), MOKKA_VERSION);
    ck_assert_int_eq(json_integer_value(json_object_get(root, "time_ms")), 1234);
    json_t *totals = json_object_get(root, "totals");
    ck_assert_int_eq(json_integer_value(json_object_get(totals, "tests")), 4);
    ck_assert_int_eq(json_integer_value(json_object_get(totals, "passed")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(totals, "failures")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(totals, "errors")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(totals, "skipped")), 1);

    json_t *suite = json_array_get(json_object_get(root, "suites"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(suite, "name")), "smoke");
    ck_assert_str_eq(json_string_value(json_object_get(suite, "timestamp")), "2023-11-14T22:13:20Z");
    ck_assert(json_is_null(json_object_get(suite, "log")));
    json_t *cases = json_object_get(suite, "cases");
    ck_assert_uint_eq(json_array_size(cases), 4);

    json_t *pass = json_array_get(cases, 0);
    ck_assert_str_eq(json_string_value(json_object_get(pass, "status")), "pass");
    ck_assert_str_eq(json_string_value(json_object_get(pass, "classname")), "mokka.smoke");
    ck_assert_str_eq(json_string_value(json_object_get(pass, "file")), "fixtures/suites/smoke.yaml");
    ck_assert_int_eq(json_integer_value(json_object_get(pass, "line")), 4);
    ck_assert_str_eq(json_string_value(json_object_get(pass, "node")), "node-a");
    ck_assert_int_eq(json_integer_value(json_object_get(pass, "time_ms")), 4);
    ck_assert(json_is_null(json_object_get(pass, "message")));
    ck_assert(json_is_null(json_object_get(pass, "detail")));

    json_t *fail = json_array_get(cases, 1);
    ck_assert_str_eq(json_string_value(json_object_get(fail, "status")), "fail");
    ck_assert_str_eq(json_string_value(json_object_get(fail, "type")), "timeout");
    ck_assert_str_eq(json_string_value(json_object_get(fail, "message")),
                     "after 30s: allocatable is 8, expected 7");
    ck_assert_str_eq(json_string_value(json_object_get(fail, "detail")),
                     "expected: allocatable 7\nactual:   allocatable 8");
    ck_assert_str_eq(json_string_value(json_object_get(fail, "log")), "E0101 health check failed\n");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cases, 2), "status")), "error");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(cases, 3), "status")), "skipped");
    json_decref(root);
    free(text);
    mk_report_free(&r);
}
END_TEST

START_TEST(test_json_bad_utf8)
{
    mk_report r;
    mk_report_init(&r);
    mk_rcase *c = mk_rsuite_add_case(mk_report_add_suite(&r, "s", NULL), "bad \xff byte", NULL);
    c->output = strdup("log \xc3");
    char *text = written(mk_report_json_write, &r);
    json_t *root = json_loads(text, 0, NULL);
    ck_assert_ptr_nonnull(root);
    json_decref(root);
    free(text);
    mk_report_free(&r);
}
END_TEST

/* --- summary -------------------------------------------------------------------- */

START_TEST(test_summary_plain)
{
    mk_report r;
    sample(&r);
    mk_color_set("auto");                              /* a memory stream is no terminal */
    char *text = written(mk_summary_write, &r);
    ck_assert_str_eq(text,
        "smoke (fixtures/suites/smoke.yaml)\n"
        "PASS   registered (4ms)\n"
        "FAIL   xid 79 (30.001s)\n"
        "       after 30s: allocatable is 8, expected 7\n"
        "         expected: allocatable 7\n"
        "         actual:   allocatable 8\n"
        "ERROR  restart (0s)\n"
        "       restart-plugin failed: timeout\n"
        "SKIP   mig (0s)\n"
        "       needs MIG\n"
        "ERROR: 4 tests, 1 passed, 1 failed, 1 error, 1 skipped in 1.234s\n");
    free(text);
    mk_report_free(&r);
}
END_TEST

START_TEST(test_summary_nodes_and_colour)
{
    mk_report r;
    mk_report_init(&r);
    mk_rsuite *s = mk_report_add_suite(&r, "multi", NULL);
    mk_rsuite_add_case(s, "eight", "gpu-1");
    mk_rcase *c = mk_rsuite_add_case(s, "eight \033[1mloud\033[0m", "gpu-2");
    mk_rcase_set(c, MK_ST_FAIL, "assertion", "capacity is 4, expected 8");
    mk_color_set("always");
    char *text = written(mk_summary_write, &r);
    mk_color_set("auto");
    ck_assert_str_eq(text,
        "\033[1mmulti\033[0m\n"
        "\033[32mPASS \033[0m  eight [gpu-1] (0s)\n"
        "\033[1;31mFAIL \033[0m  eight loud [gpu-2] (0s)\n"
        "       capacity is 4, expected 8\n"
        "\033[1;31mFAILED\033[0m: 2 tests, 1 passed, 1 failed, 0 errors, 0 skipped in 0s\n");
    free(text);
    mk_report_free(&r);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc = tcase_create("model");
    tcase_add_test(tc, test_totals_and_exit_codes);
    tcase_add_test(tc, test_harness_error);
    tcase_add_test(tc, test_several_nodes_and_names);
    tcase_add_test(tc, test_source_date_epoch);
    tcase_add_test(tc, test_save);
    tcase_add_test(tc, test_save_device_in_place);
    tcase_add_test(tc, test_save_fifo_in_place);
    tcase_add_test(tc, test_save_fifo_reader_goes_away);
    tcase_add_test(tc, test_save_through_symlinks);
    suite_add_tcase(s, tc);
    tc = tcase_create("writers");
    tcase_add_test(tc, test_json);
    tcase_add_test(tc, test_json_bad_utf8);
    tcase_add_test(tc, test_summary_plain);
    tcase_add_test(tc, test_summary_nodes_and_colour);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
