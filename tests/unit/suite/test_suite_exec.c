/* test_suite_exec.c - exec steps: every error `mokka lint` gives for exec:
 * and its expectations, with file:line:col; the runner handing the
 * environment the command (variables expanded, shell text, env, timeout),
 * exit/stdout/stderr passing and failing with their messages, the output in
 * the case's system-out, a command past its timeout failing the case,
 * `within:` running the last step again until it passes, as-allocated
 * calling Allocate and passing the plugin's envs, and an environment
 * without commands (mokka assert) making the case an ERROR. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "fake_nodesrc.h"
#include "report/report.h"
#include "suite/suite_int.h"
#include "support/testutil.h"

static fake f;
static mk_report rep;
static const mk_suite_var vars[] = {{"uuid.3", "GPU-3"}, {"node", "node-a"}};

/* The fake command: answers from a script, one entry per run (the last
 * repeats), and remembers what it was asked. */
typedef struct answer {
    int exited, code, timed_out;
    const char *out, *err;
} answer;
static const answer *script;
static size_t nscript, runs;
static char asked_argv[512], asked_env[512];
static long long asked_timeout;

static void join_into(char *buf, size_t len, char *const *v)
{
    buf[0] = 0;
    for (size_t i = 0; v && v[i]; i++)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? "|" : "", v[i]);
}

static int fake_exec(mk_suite_env *env, const mk_exec_req *req, mk_exec_res *res, char *err,
                     size_t errlen)
{
    (void)env;
    (void)err;
    (void)errlen;
    join_into(asked_argv, sizeof asked_argv, req->argv);
    join_into(asked_env, sizeof asked_env, req->env);
    asked_timeout = req->timeout_ms;
    const answer *a = &script[runs < nscript ? runs : nscript - 1];
    runs++;
    memset(res, 0, sizeof *res);
    res->exited = a->exited;
    res->code = a->code;
    res->timed_out = a->timed_out;
    res->out = strdup(a->out);
    res->err = strdup(a->err);
    res->ms = 5;
    return 0;
}

static void setup(void)
{
    fake_init(&f);
    f.env.vars = vars;
    f.env.nvars = sizeof vars / sizeof vars[0];
    f.env.exec = fake_exec;
    fake_add_node(&f, "node-a", "nvidia.com/gpu", 4);
    mk_report_init(&rep);
    runs = 0;
    static const answer ok = {1, 0, 0, "GPU 0: A100\nGPU 1: A100\n", ""};
    script = &ok;
    nscript = 1;
}

static void teardown(void)
{
    mk_report_free(&rep);
    fake_free(&f);
}

static int run(const char *yaml)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_suite *s = mk_suite_load_mem("t.yaml", yaml, strlen(yaml), &d);
    if (!s) {
        char line[512];
        mk_diag_format(mk_diags_first_error(&d), line, sizeof line);
        ck_abort_msg("suite does not load: %s", line);
    }
    int rc = mk_suite_run(s, &f.env, &rep);
    mk_suite_free(s);
    mk_diags_free(&d);
    return rc;
}

static const mk_rcase *result(size_t i)
{
    ck_assert_uint_gt(rep.suites[0]->n, i);
    return rep.suites[0]->cases[i];
}

/* --- lint ------------------------------------------------------------------------- */

static const struct { const char *yaml, *errors; } bad[] = {
    {"cases:\n  - name: a\n    exec: []\n",
     "t.yaml:3:11: error: exec is an empty list\n"},
    {"cases:\n  - name: a\n    exec: ''\n",
     "t.yaml:3:11: error: exec command is empty\n"},
    {"cases:\n  - name: a\n    exec: {comand: [ls]}\n",
     "t.yaml:3:11: error: exec needs 'command' (a list of words, or a shell command line)\n"
        "t.yaml:3:12: error: unknown key 'comand' in exec; did you mean 'command'?\n"},
    {"cases:\n  - name: a\n    exec: {command: []}\n",
     "t.yaml:3:21: error: exec command must be a list of words such as [nvidia-smi, -L] or a "
        "shell command line, not an empty list\n"},
    {"cases:\n  - name: a\n    exec: {command: ['', x, [y]]}\n",
     "t.yaml:3:22: error: exec command: each word must be a string (the first not empty), not an empty one\n"
        "t.yaml:3:29: error: exec command: each word must be a string, not a list\n"},
    {"cases:\n  - name: a\n    exec: {command: [echo, '${uuid.3']}\n",
     "t.yaml:3:28: error: exec command: '${uuid.3' has a bad variable reference; write ${name} "
        "(letters, digits, '.', '_', '-')\n"},
    {"cases:\n  - name: a\n    exec: {command: ls, timeout: 5, as-allocated: 0}\n",
     "t.yaml:3:34: error: exec timeout needs a unit: 5s or 5ms\n"
        "t.yaml:3:51: error: exec as-allocated: 0 is out of range (1 to 1024)\n"},
    {"cases:\n  - name: a\n    exec: {command: ls, timeout: 0s}\n",
     "t.yaml:3:34: error: exec timeout must be longer than 0\n"},
    {"cases:\n  - name: a\n    exec: {command: ls, env: [A]}\n",
     "t.yaml:3:30: error: exec env must be a map, not a list\n"},
    {"cases:\n  - name: a\n    exec: {command: ls, env: {A: [x], B: null}}\n",
     "t.yaml:3:34: error: exec env A must be a string, not a list\n"
        "t.yaml:3:42: error: exec env B must be a string, not null\n"},
    {"cases:\n  - name: a\n    exec: {command: ls, resource: nvidia.com/gpu}\n",
     "t.yaml:3:35: error: exec resource names what as-allocated takes; give as-allocated too\n"},
    {"cases:\n  - name: a\n    exec: [{command: ls}, 3, [x]]\n",
     "t.yaml:3:30: error: each exec must be a shell command line or a map such as "
        "{command: [nvidia-smi, -L]}, not a list\n"},
    {"cases:\n  - name: a\n    expect: {exit: 0, stdout: x}\n",
     "t.yaml:3:14: error: exit checks the case's exec, and this case has none (add exec: {command: [...]})\n"
        "t.yaml:3:23: error: stdout checks the case's exec, and this case has none (add exec: {command: [...]})\n"},
    {"cases:\n  - name: a\n    exec: ls\n    expect: {exit: '>=x', stderr: [x], stdout: null}\n",
     "t.yaml:4:20: error: exit must be a count or a comparison such as 8, \">=1\", \"<8\", \"!=0\" or \"${gpus}-1\", not '>=x'\n"
        "t.yaml:4:35: error: stderr must be a string or /regex/, not a list\n"
        "t.yaml:4:48: error: stdout must be a string or /regex/, not null\n"},
    {"cases:\n  - name: a\n    exec: ls\n    expect: {stdout: '/(/'}\n",
     "t.yaml:4:22: error: stdout: invalid regular expression /(/: "},
};

START_TEST(test_lint_errors)
{
    mk_diags d;
    mk_diags_init(&d);
    const char *yaml = bad[_i].yaml;
    mk_suite *s = mk_suite_load_mem("t.yaml", yaml, strlen(yaml), &d);
    mk_sb got = MK_SB_INIT;
    for (size_t i = 0; i < d.n; i++) {
        char line[1024];
        mk_diag_format(&d.v[i], line, sizeof line);
        mk_sb_printf(&got, "%s\n", line);
    }
    ck_assert_ptr_null(s);
    ck_assert_msg(strncmp(mk_sb_str(&got), bad[_i].errors, strlen(bad[_i].errors)) == 0,
                  "case %d:\n%s\nwant:\n%s", _i, mk_sb_str(&got), bad[_i].errors);
    mk_sb_free(&got);
    mk_diags_free(&d);
}
END_TEST

/* --- running --------------------------------------------------------------------- */

START_TEST(test_passes_with_output_in_system_out)
{
    ck_assert_int_eq(run("cases:\n"
                         "  - name: lists\n"
                         "    exec: {command: [nvidia-smi, -L, '${uuid.3}'], env: {N: '${node}'}, timeout: 5s}\n"
                         "    expect: {exit: 0, stdout: '/^GPU 1: A100$/', stderr: ''}\n"
                         "  - name: exact\n"
                         "    exec: 'nvidia-smi -L | head -1'\n"
                         "    expect: {exit: '<1', stdout: \"GPU 0: A100\\nGPU 1: A100\"}\n"),
                     MK_EXIT_OK);
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    ck_assert_int_eq(result(1)->status, MK_ST_PASS);
    ck_assert_str_eq(asked_argv, "/bin/sh|-c|nvidia-smi -L | head -1");
    ck_assert_int_eq(asked_timeout, MK_EXEC_DEFAULT_TIMEOUT_MS);
    ck_assert_str_eq(result(0)->output, "$ nvidia-smi -L GPU-3\n(env N=node-a)\n--- stdout ---\n"
                                        "GPU 0: A100\nGPU 1: A100\n(exit 0 after 5ms)\n");
}
END_TEST

START_TEST(test_failures_say_what_was_seen)
{
    static const answer bad_run = {1, 2, 0, "nothing here", "\033[31mboom\033[0m\n"};
    script = &bad_run;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: fails\n"
                         "    exec: {command: [probe]}\n"
                         "    expect: {exit: 0, stdout: /GPU/, stderr: quiet}\n"),
                     MK_EXIT_FAIL);
    const mk_rcase *c = result(0);
    ck_assert_int_eq(c->status, MK_ST_FAIL);
    ck_assert_str_eq(c->message, "the command exited with status 2, expected 0 (and 2 more)");
    ck_assert_ptr_nonnull(strstr(c->detail, "stdout (t.yaml:4:23): the command's stdout does not "
                                            "match /GPU/\n  expected: stdout /GPU/\n"
                                            "  actual:   stdout 'nothing here'"));
    ck_assert_ptr_nonnull(strstr(c->output, "--- stderr ---\nboom\n(exit 2 after 5ms)\n"
                                            "\n--- the plugin's log ---\n"));
}
END_TEST

START_TEST(test_killed_by_signal_is_128_plus)
{
    static const answer killed = {0, 9, 0, "", ""};
    script = &killed;
    ck_assert_int_eq(run("cases:\n  - name: k\n    exec: x\n    expect: {exit: 137}\n"),
                     MK_EXIT_OK);
}
END_TEST

START_TEST(test_timeout_fails_the_case)
{
    static const answer slow = {0, 9, 1, "partial\n", ""};
    script = &slow;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: slow\n"
                         "    exec: [{command: 'sleep 100', timeout: 1s}, ls]\n"
                         "    expect: {exit: 0}\n"),
                     MK_EXIT_FAIL);
    ck_assert_int_eq(runs, 1);   /* the second step never ran */
    ck_assert_int_eq(result(0)->status, MK_ST_FAIL);
    ck_assert_str_eq(result(0)->type, "timeout");
    ck_assert_str_eq(result(0)->message, "exec 'sleep 100' ran past its timeout of 1s and was "
                                         "killed with its process group");
}
END_TEST

START_TEST(test_within_runs_the_last_step_again)
{
    static const answer seq[] = {{1, 1, 0, "0 GPUs\n", ""}, {1, 1, 0, "0 GPUs\n", ""},
                                 {1, 0, 0, "2 GPUs\n", ""}};
    script = seq;
    nscript = 3;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: waits\n"
                         "    exec: [first, second]\n"
                         "    expect: {exit: 0, stdout: /^2 GPUs/}\n"
                         "    within: 10s\n"),
                     MK_EXIT_OK);
    ck_assert_int_eq(runs, 3);   /* first, second, then second once more */
    ck_assert_str_eq(asked_argv, "/bin/sh|-c|second");
    /* the log keeps the first step and the last run of the second */
    ck_assert_str_eq(result(0)->output, "$ first\n--- stdout ---\n0 GPUs\n(exit 1 after 5ms)\n"
                                        "\n$ second\n--- stdout ---\n2 GPUs\n(exit 0 after 5ms)\n");
}
END_TEST

START_TEST(test_as_allocated_passes_the_plugins_envs)
{
    ck_assert_int_eq(run("cases:\n"
                         "  - name: two\n"
                         "    exec: {command: 'echo ${allocated}', as-allocated: 2,\n"
                         "           env: {NVIDIA_VISIBLE_DEVICES: '${allocated},GPU-3'}}\n"),
                     MK_EXIT_OK);
    ck_assert_int_eq(f.allocs, 1);
    ck_assert_str_eq(f.last_alloc, "nvidia.com/gpu:GPU-0,GPU-1");
    ck_assert_str_eq(asked_argv, "/bin/sh|-c|echo GPU-0,GPU-1");
    ck_assert_str_eq(asked_env, "NVIDIA_VISIBLE_DEVICES=GPU-0,GPU-1|"
                                "NVIDIA_VISIBLE_DEVICES=GPU-0,GPU-1,GPU-3");
    ck_assert_ptr_nonnull(strstr(result(0)->output, "(as allocated: GPU-0,GPU-1)\n"));

    fake_set_health(&f, 0, 0, 0);
    f.fail_alloc = 0;
    ck_assert_int_eq(run("cases:\n  - name: too many\n"
                         "    exec: {command: ls, as-allocated: 4, resource: nvidia.com/gpu}\n"),
                     MK_EXIT_ENV);
    ck_assert_str_eq(rep.suites[1]->cases[0]->message,
                     "exec 'ls': as-allocated 4: only 3 healthy nvidia.com/gpu devices listed");
    f.fail_alloc = 1;
    ck_assert_int_eq(run("cases:\n  - name: refused\n    exec: {command: ls, as-allocated: 1}\n"),
                     MK_EXIT_ENV);
    ck_assert_str_eq(rep.suites[2]->cases[0]->message,
                     "exec 'ls': as-allocated: Allocate GPU-1 of nvidia.com/gpu failed: rpc "
                     "error: unknown device");
}
END_TEST

START_TEST(test_no_commands_here_is_an_error)
{
    f.env.exec = NULL;
    f.src.kind = "API server";
    ck_assert_int_eq(run("cases:\n  - name: a\n    exec: {command: [nvidia-smi]}\n"
                         "    expect: {exit: 0}\n"),
                     MK_EXIT_ENV);
    ck_assert_int_eq(result(0)->status, MK_ST_ERROR);
    ck_assert_str_eq(result(0)->message, "cannot exec 'nvidia-smi': commands run in the GPU-node "
                                         "sandbox of mokka run; the API server has none");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("suite_exec");
    TCase *lint = tcase_create("lint");
    tcase_add_loop_test(lint, test_lint_errors, 0, (int)(sizeof bad / sizeof bad[0]));
    suite_add_tcase(s, lint);
    TCase *tc = tcase_create("run");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_passes_with_output_in_system_out);
    tcase_add_test(tc, test_failures_say_what_was_seen);
    tcase_add_test(tc, test_killed_by_signal_is_128_plus);
    tcase_add_test(tc, test_timeout_fails_the_case);
    tcase_add_test(tc, test_within_runs_the_last_step_again);
    tcase_add_test(tc, test_as_allocated_passes_the_plugins_envs);
    tcase_add_test(tc, test_no_commands_here_is_an_error);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
