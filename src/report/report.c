/* report.c - building the report model, totals and the exit code (saving a
 * written report: report_save.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/util.h"
#include "report.h"

void mk_report_init(mk_report *r)
{
    memset(r, 0, sizeof *r);
}

static void case_free(mk_rcase *c)
{
    free(c->name);
    free(c->classname);
    free(c->file);
    free(c->node);
    free(c->type);
    free(c->message);
    free(c->detail);
    free(c->output);
    free(c);
}

void mk_report_free(mk_report *r)
{
    for (size_t i = 0; i < r->n; i++) {
        mk_rsuite *s = r->suites[i];
        for (size_t j = 0; j < s->n; j++)
            case_free(s->cases[j]);
        free(s->cases);
        free(s->name);
        free(s->file);
        free(s->hostname);
        free(s->output);
        free(s);
    }
    free(r->suites);
    memset(r, 0, sizeof *r);
}

/* SOURCE_DATE_EPOCH (reproducible builds' convention) pins the timestamp so
 * that two runs can produce byte-identical reports. */
static long long report_clock(void)
{
    const char *e = getenv("SOURCE_DATE_EPOCH");
    if (e && *e && strspn(e, "0123456789") == strlen(e) && strlen(e) < 19)
        return strtoll(e, NULL, 10);
    return (long long)time(NULL);
}

mk_rsuite *mk_report_add_suite(mk_report *r, const char *name, const char *file)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 4;
        r->suites = mk_xrealloc(r->suites, r->cap * sizeof *r->suites);
    }
    mk_rsuite *s = mk_xcalloc(1, sizeof *s);
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "localhost");
    host[sizeof host - 1] = 0;
    s->name = mk_xstrdup(name && *name ? name : "mokka");
    s->file = mk_xstrdup(file);
    s->hostname = mk_xstrdup(host);
    s->timestamp = report_clock();
    r->suites[r->n++] = s;
    return s;
}

mk_rcase *mk_rsuite_add_case(mk_rsuite *s, const char *name, const char *node)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 8;
        s->cases = mk_xrealloc(s->cases, s->cap * sizeof *s->cases);
    }
    mk_rcase *c = mk_xcalloc(1, sizeof *c);
    c->name = mk_xstrdup(name && *name ? name : "(unnamed)");
    c->classname = mk_xasprintf("mokka.%s", s->name);
    c->file = mk_xstrdup(s->file);
    c->node = mk_xstrdup(node);
    c->status = MK_ST_PASS;
    s->cases[s->n++] = c;
    return c;
}

void mk_rcase_set(mk_rcase *c, mk_status st, const char *type, const char *fmt, ...)
{
    c->status = st;
    free(c->type);
    c->type = mk_xstrdup(type);
    free(c->message);
    c->message = NULL;
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        c->message = mk_xvasprintf(fmt, ap);
        va_end(ap);
    }
}

void mk_rcase_detail(mk_rcase *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *line = mk_xvasprintf(fmt, ap);
    va_end(ap);
    char *d = c->detail ? mk_xasprintf("%s\n%s", c->detail, line) : line;
    if (d != line)
        free(line);
    free(c->detail);
    c->detail = d;
}

mk_rcase *mk_report_error(mk_report *r, const char *suite, const char *name,
                          const char *fmt, ...)
{
    mk_rsuite *s = NULL;
    for (size_t i = 0; i < r->n && !s; i++)
        if (strcmp(r->suites[i]->name, suite) == 0)
            s = r->suites[i];
    if (!s)
        s = mk_report_add_suite(r, suite, NULL);
    mk_rcase *c = mk_rsuite_add_case(s, name, NULL);
    va_list ap;
    va_start(ap, fmt);
    char *msg = mk_xvasprintf(fmt, ap);
    va_end(ap);
    mk_rcase_set(c, MK_ST_ERROR, "harness", "%s", msg);
    free(msg);
    return c;
}

static void add_case(mk_totals *t, const mk_rcase *c)
{
    t->tests++;
    switch (c->status) {
    case MK_ST_PASS: t->passed++; break;
    case MK_ST_FAIL: t->failures++; break;
    case MK_ST_ERROR: t->errors++; break;
    case MK_ST_SKIP: t->skipped++; break;
    }
}

mk_totals mk_rsuite_totals(const mk_rsuite *s)
{
    mk_totals t = {0, 0, 0, 0, 0, s->time_ms};
    for (size_t i = 0; i < s->n; i++)
        add_case(&t, s->cases[i]);
    return t;
}

mk_totals mk_report_totals(const mk_report *r)
{
    mk_totals t = {0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < r->n; i++) {
        mk_totals s = mk_rsuite_totals(r->suites[i]);
        t.tests += s.tests;
        t.passed += s.passed;
        t.failures += s.failures;
        t.errors += s.errors;
        t.skipped += s.skipped;
        t.time_ms += s.time_ms;
    }
    if (r->time_ms > 0)
        t.time_ms = r->time_ms;
    return t;
}

const char *mk_status_name(mk_status st)
{
    static const char *const names[] = {"pass", "fail", "error", "skipped"};
    return names[st];
}

int mk_rsuite_several_nodes(const mk_rsuite *s)
{
    const char *first = NULL;
    for (size_t i = 0; i < s->n; i++) {
        const char *node = s->cases[i]->node;
        if (!node)
            continue;
        if (!first)
            first = node;
        else if (strcmp(first, node) != 0)
            return 1;
    }
    return 0;
}

int mk_report_exit_code(const mk_report *r)
{
    mk_totals t = mk_report_totals(r);
    return t.errors ? MK_EXIT_ENV : t.failures ? MK_EXIT_FAIL : MK_EXIT_OK;
}
