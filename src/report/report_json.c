/* report_json.c - the report as JSON for scripts (`--report json`).
 *
 * Schema version 1, stable: fields are only ever added, and a change in
 * meaning bumps "version". Times are integer milliseconds, timestamps ISO
 * 8601 in UTC, absent texts null. Texts are cleaned like in the JUnit
 * writer (JSON needs valid UTF-8; escape sequences mean nothing to scripts).
 *
 *   {"version": 1, "tool": "mokka", "mokka_version": "0.1.0", "time_ms": N,
 *    "totals": {"tests", "passed", "failures", "errors", "skipped"},
 *    "suites": [{"name", "file", "hostname", "timestamp", "time_ms", "totals",
 *                "log", "cases": [{"name", "classname", "file", "line", "node",
 *                                  "status": "pass|fail|error|skipped",
 *                                  "time_ms", "type", "message", "detail",
 *                                  "log"}]}]} */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <time.h>
#include "report.h"
#include "util/util.h"

#define JSON_SCHEMA_VERSION 1

static json_t *text(const char *s)
{
    if (!s)
        return json_null();
    char *clean = mk_text_clean(s);
    json_t *j = json_string(clean);
    free(clean);
    return j;
}

static json_t *totals(const mk_totals *t)
{
    return json_pack("{sI sI sI sI sI}", "tests", (json_int_t)t->tests,
                     "passed", (json_int_t)t->passed, "failures", (json_int_t)t->failures,
                     "errors", (json_int_t)t->errors, "skipped", (json_int_t)t->skipped);
}

static json_t *utc_timestamp(long long epoch)
{
    time_t t = (time_t)epoch;
    struct tm tm;
    char buf[32] = "1970-01-01T00:00:00Z";
    if (gmtime_r(&t, &tm))
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return json_string(buf);
}

static json_t *one_case(const mk_rcase *c)
{
    return json_pack("{so so so sI so ss sI so so so so}",
                     "name", text(c->name), "classname", text(c->classname),
                     "file", text(c->file), "line", (json_int_t)c->line,
                     "node", text(c->node), "status", mk_status_name(c->status),
                     "time_ms", (json_int_t)c->time_ms, "type", text(c->type),
                     "message", text(c->message), "detail", text(c->detail),
                     "log", text(c->output));
}

static json_t *one_suite(const mk_rsuite *s)
{
    mk_totals t = mk_rsuite_totals(s);
    json_t *cases = json_array();
    for (size_t i = 0; cases && i < s->n; i++)
        if (json_array_append_new(cases, one_case(s->cases[i])) != 0) {
            json_decref(cases);
            cases = NULL;
        }
    return json_pack("{so so so so sI so so so}",
                     "name", text(s->name), "file", text(s->file),
                     "hostname", text(s->hostname), "timestamp", utc_timestamp(s->timestamp),
                     "time_ms", (json_int_t)s->time_ms, "totals", totals(&t),
                     "log", text(s->output), "cases", cases);
}

int mk_report_json_write(const mk_report *r, FILE *f)
{
    mk_totals t = mk_report_totals(r);
    json_t *suites = json_array();
    for (size_t i = 0; suites && i < r->n; i++)
        if (json_array_append_new(suites, one_suite(r->suites[i])) != 0) {
            json_decref(suites);
            suites = NULL;
        }
    /* json_pack's "o" takes ownership even on failure, and fails on NULL */
    json_t *root = json_pack("{si ss ss sI so so}", "version", JSON_SCHEMA_VERSION,
                             "tool", "mokka", "mokka_version", MOKKA_VERSION,
                             "time_ms", (json_int_t)t.time_ms, "totals", totals(&t),
                             "suites", suites);
    if (!root) {
        errno = ENOMEM;
        return -1;
    }
    int rc = json_dumpf(root, f, JSON_INDENT(2)) == 0 && fputc('\n', f) != EOF ? 0 : -1;
    json_decref(root);
    if (rc == 0 && ferror(f))
        rc = -1;
    if (rc != 0 && !errno)
        errno = EIO;
    return rc;
}
