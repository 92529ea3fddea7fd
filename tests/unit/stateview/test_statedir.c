/* test_statedir.c - state directories (src/statedir.h): the base directory
 * and its fallbacks, fresh per-program directories and their removal, and
 * finding a state file by --state-dir, by --pid (a child started here with
 * or without MOKKA_STATE_DIR) and as the only live one. */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "state.h"
#include "stateview/stateview.h"
#include "universe.h"
#include "support/testutil.h"

static char tmp[256];

static void setup(void)
{
    snprintf(tmp, sizeof tmp, "%s", mk_test_tmpdir("statedir"));
    char base[300];
    snprintf(base, sizeof base, "%s/run", tmp);
    setenv("MOKKA_RUNTIME_DIR", base, 1);
}

static void teardown(void)
{
    unsetenv("MOKKA_RUNTIME_DIR");
}

/* A live state file in dir, attached to this process. */
static void make_state(const char *dir, mk_state *st)
{
    static const char *const names[] = { "nvmlInit_v2" };
    char err[512];
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load(NULL, "statedir-test", &d);
    ck_assert_ptr_nonnull(u);
    ck_assert_msg(mk_state_open(st, dir, u, names, 1, err, sizeof err) == 0, "%s", err);
    mk_universe_free(u);
    mk_diags_free(&d);
}

/* Starts `sleep 30` with env (NULL-terminated NAME=value list) and waits
 * until it has exec'd: before that, /proc/PID/environ is still ours. */
static pid_t start_sleep(char *const env[])
{
    char *argv[] = { "sleep", "30", NULL };
    char path[64], comm[32] = "";
    pid_t pid;
    ck_assert_int_eq(posix_spawn(&pid, "/bin/sleep", NULL, NULL, argv, env), 0);
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    for (int i = 0; i < 500 && strcmp(comm, "sleep\n") != 0; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            if (!fgets(comm, sizeof comm, f))
                comm[0] = 0;
            fclose(f);
        }
        usleep(10000);
    }
    ck_assert_str_eq(comm, "sleep\n");
    return pid;
}

static void stop(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

START_TEST(test_base_from_runtime_dir)
{
    char base[4096], err[512], want[300];
    struct stat sb;
    snprintf(want, sizeof want, "%s/run", tmp);
    ck_assert_int_eq(mk_statedir_base(base, sizeof base, err, sizeof err), 0);
    ck_assert_str_eq(base, want);
    ck_assert_int_eq(stat(base, &sb), 0);
    ck_assert_int_eq(sb.st_mode & 0777, 0700);
}
END_TEST

START_TEST(test_base_from_xdg_runtime_dir)
{
    char base[4096], err[512], want[300];
    unsetenv("MOKKA_RUNTIME_DIR");
    setenv("XDG_RUNTIME_DIR", tmp, 1);
    snprintf(want, sizeof want, "%s/mokka", tmp);
    ck_assert_int_eq(mk_statedir_base(base, sizeof base, err, sizeof err), 0);
    ck_assert_str_eq(base, want);
    unsetenv("XDG_RUNTIME_DIR");
}
END_TEST

START_TEST(test_new_and_remove)
{
    char a[4096], b[4096], err[512], want[400], file[4200];
    ck_assert_int_eq(mk_statedir_new("my prog/x", a, sizeof a, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/run/my_prog_x-%d", tmp, (int)getpid());
    ck_assert_str_eq(a, want);
    /* The same pid again (a kept directory): a new name, not a reuse. */
    ck_assert_int_eq(mk_statedir_new("my prog/x", b, sizeof b, err, sizeof err), 0);
    ck_assert_str_ne(a, b);
    snprintf(file, sizeof file, "%s/state", a);
    FILE *f = fopen(file, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    mk_statedir_remove(a);
    mk_statedir_remove(b);
    ck_assert_int_ne(access(a, F_OK), 0);
    ck_assert_int_ne(access(b, F_OK), 0);
}
END_TEST

START_TEST(test_find_by_dir)
{
    char dir[4096], path[4200], err[1024], want[4200];
    mk_state st;
    ck_assert_int_eq(mk_statedir_new("t", dir, sizeof dir, err, sizeof err), 0);
    ck_assert_int_eq(mk_statedir_find(dir, 0, path, sizeof path, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no state file in"));
    make_state(dir, &st);
    ck_assert_int_eq(mk_statedir_find(dir, 0, path, sizeof path, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/state", dir);
    ck_assert_str_eq(path, want);
    mk_state_close(&st);
}
END_TEST

START_TEST(test_find_the_only_live_one)
{
    char a[4096], b[4096], path[4200], err[1024], want[4200];
    mk_state sa, sb;
    ck_assert_int_eq(mk_statedir_find(NULL, 0, path, sizeof path, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "no live program"));
    ck_assert_int_eq(mk_statedir_new("a", a, sizeof a, err, sizeof err), 0);
    make_state(a, &sa);
    ck_assert_int_eq(mk_statedir_find(NULL, 0, path, sizeof path, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/state", a);
    ck_assert_str_eq(path, want);
    ck_assert_int_eq(mk_statedir_new("b", b, sizeof b, err, sizeof err), 0);
    make_state(b, &sb);
    ck_assert_int_eq(mk_statedir_find(NULL, 0, path, sizeof path, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "2 programs") && strstr(err, "--pid"), "%s", err);
    /* Detached (the program ended): not live any more. */
    mk_state_close(&sb);
    ck_assert_int_eq(mk_statedir_find(NULL, 0, path, sizeof path, err, sizeof err), 0);
    mk_state_close(&sa);
}
END_TEST

START_TEST(test_find_by_pid)
{
    char dir[4096], path[4200], err[1024], want[4200], var[4200];
    mk_state st;
    ck_assert_int_eq(mk_statedir_new("p", dir, sizeof dir, err, sizeof err), 0);
    make_state(dir, &st);
    snprintf(var, sizeof var, "MOKKA_STATE_DIR=%s", dir);
    char *on[] = { var, NULL }, *off[] = { "PATH=/bin", NULL };
    pid_t child = start_sleep(on);
    ck_assert_int_eq(mk_statedir_find(NULL, child, path, sizeof path, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/state", dir);
    ck_assert_str_eq(path, want);
    stop(child);
    child = start_sleep(off);
    ck_assert_int_eq(mk_statedir_find(NULL, child, path, sizeof path, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "is not on the mock"), "%s", err);
    stop(child);
    ck_assert_int_eq(mk_statedir_find(NULL, 0x7ffffffe, path, sizeof path, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "no process with pid"), "%s", err);
    mk_state_close(&st);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("statedir");
    TCase *tc = tcase_create("statedir");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_base_from_runtime_dir);
    tcase_add_test(tc, test_base_from_xdg_runtime_dir);
    tcase_add_test(tc, test_new_and_remove);
    tcase_add_test(tc, test_find_by_dir);
    tcase_add_test(tc, test_find_the_only_live_one);
    tcase_add_test(tc, test_find_by_pid);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
