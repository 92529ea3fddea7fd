/* suite_expect_exec.c - expectations on the case's last exec step: its
 * exit status (a count: 128+N for a command killed by signal N, as a shell
 * reports it) and its stdout and stderr (exact text, compared without the
 * trailing newlines, or a /regex/ in which ^ and $ match at every line). */
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

#define SHOWN_VALUE_MAX 200   /* bytes of output shown in a detail line */

static mk_xres no_exec(mk_xctx *c, const char *key)
{
    return mk_x_error(c, "%s: the case ran no exec to check", key);
}

/* --- exit ------------------------------------------------------------------------ */

static void free_cmp(void *arg)
{
    mk_cmp_free(arg);
    free(arg);
}

static int parse_exit(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    mk_cmp *c = mk_xcalloc(1, sizeof *c);
    if (mk_cmp_parse(val, "exit", c, d) != 0) {
        free(c);
        return -1;
    }
    x->arg = c;
    return 0;
}

static mk_xres check_exit(const mk_expect *x, mk_xctx *c)
{
    const mk_cmp *want = x->arg;
    if (!c->exec)
        return no_exec(c, "exit");
    long long target, actual = c->exec->exited ? c->exec->code : 128 + c->exec->code;
    char err[512], expect[64];
    if (mk_cmp_target(want, c->vars, &target, err, sizeof err) != 0)
        return mk_x_error(c, "exit: %s", err);
    if (mk_cmp_holds(want->op, actual, target))
        return MK_X_PASS;
    mk_cmp_describe(want->op, target, expect, sizeof expect);
    if (c->exec->exited)
        mk_x_fail(c, "the command exited with status %lld, expected %s", actual, expect);
    else
        mk_x_fail(c, "the command was killed by signal %d (exit %lld), expected %s",
                  c->exec->code, actual, expect);
    mk_x_detail(c, "expected: exit %s", expect);
    mk_x_detail(c, "actual:   exit %lld", actual);
    return MK_X_FAIL;
}

const mk_xkind mk_xk_exit = {"exit", MK_XK_EXEC, parse_exit, check_exit, free_cmp, NULL};

/* --- stdout, stderr ------------------------------------------------------------- */

static void free_match(void *arg)
{
    mk_match_free(arg);
    free(arg);
}

static int parse_output(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    mk_match *m = mk_xcalloc(1, sizeof *m);
    if (mk_match_parse(val, x->kind->key, 0, m, d) != 0) {
        free(m);
        return -1;
    }
    x->arg = m;
    return 0;
}

/* 1 when text matches, 0 when not, -1 with err. */
static int output_matches(const mk_match *m, const char *text, const mk_vars *vars, char *err,
                          size_t errlen)
{
    char *want = mk_vars_expand(m->text, vars, err, errlen);
    if (!want)
        return -1;
    int rc;
    if (m->kind == MK_MATCH_EXACT) {
        size_t n = strlen(text);
        while (n && text[n - 1] == '\n')
            n--;
        rc = strlen(want) == n && strncmp(text, want, n) == 0;
    } else {
        regex_t re;
        char why[256];
        if (mk_regex_compile_flags(&re, want, REG_NEWLINE, why, sizeof why) != 0) {
            snprintf(err, errlen, "invalid regular expression /%.80s/: %s", want, why);
            rc = -1;
        } else {
            rc = regexec(&re, text, 0, NULL, 0) == 0;
            regfree(&re);
        }
    }
    free(want);
    return rc;
}

static mk_xres check_output(const mk_expect *x, mk_xctx *c)
{
    const char *key = x->kind->key;
    if (!c->exec)
        return no_exec(c, key);
    const char *text = strcmp(key, "stdout") == 0 ? c->exec->out : c->exec->err;
    char err[512], expect[256];
    int m = output_matches(x->arg, text, c->vars, err, sizeof err);
    if (m < 0)
        return mk_x_error(c, "%s: %s", key, err);
    if (m)
        return MK_X_PASS;
    mk_match_describe(x->arg, c->vars, expect, sizeof expect);
    char *shown = mk_text_line(text, SHOWN_VALUE_MAX);
    if (*text)
        mk_x_fail(c, "the command's %s does not match %s", key, expect);
    else
        mk_x_fail(c, "the command wrote nothing on %s, expected %s", key, expect);
    mk_x_detail(c, "expected: %s %s", key, expect);
    mk_x_detail(c, "actual:   %s '%s' (all of it in system-out)", key, shown);
    free(shown);
    return MK_X_FAIL;
}

const mk_xkind mk_xk_stdout = {"stdout", MK_XK_EXEC, parse_output, check_output, free_match,
                               NULL};
const mk_xkind mk_xk_stderr = {"stderr", MK_XK_EXEC, parse_output, check_output, free_match,
                               NULL};
