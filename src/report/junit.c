/* junit.c - the report as JUnit XML, in the shape that GitLab, Jenkins and
 * the common GitHub reporters all read: one <testsuites> root, flat
 * <testsuite>s (Ant's attribute set), <testcase>s with file and line,
 * <failure>/<error>/<skipped/>, and <system-out> for the plugin's log.
 *
 * Every text goes through mk_text_clean (no ANSI escapes, no characters XML
 * 1.0 forbids, valid UTF-8) before it is escaped, so no plugin log can break
 * the file. Times are printed from integer milliseconds, never through the
 * locale. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "util/util.h"
#include "report.h"

#define MESSAGE_MAX 1000   /* bytes of a failure message attribute */

/* Escapes cleaned text; in attributes, tab, newline and CR are written as
 * character references so that attribute normalisation keeps them. */
static void put_escaped(FILE *f, const char *clean, int attr)
{
    for (const char *p = clean; *p; p++) {
        switch (*p) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs(attr ? "&quot;" : "\"", f); break;
        case '\n': fputs(attr ? "&#10;" : "\n", f); break;
        case '\t': fputs(attr ? "&#9;" : "\t", f); break;
        default: fputc(*p, f); break;
        }
    }
}

static void put_text(FILE *f, const char *s)
{
    char *clean = mk_text_clean(s);
    put_escaped(f, clean, 0);
    free(clean);
}

/* ` name="value"`, the value on one line (names and messages are one-line
 * fields; a YAML block scalar must not smuggle in newlines). Readers drop
 * test cases with empty names, so `fallback` replaces a value that cleaning
 * left empty. */
static void put_attr(FILE *f, const char *name, const char *value, size_t max,
                     const char *fallback)
{
    char *line = mk_text_line(value ? value : "", max);
    fprintf(f, " %s=\"", name);
    put_escaped(f, *line || !fallback ? line : fallback, 1);
    fputc('"', f);
    free(line);
}

static void put_time(FILE *f, long long ms)
{
    char buf[32];
    mk_secs_format(ms, buf, sizeof buf);
    fprintf(f, " time=\"%s\"", buf);
}

static void put_counts(FILE *f, const mk_totals *t)
{
    fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\"",
            t->tests, t->failures, t->errors, t->skipped);
    put_time(f, t->time_ms);
}

/* Ant's form, local time without a zone: what Jenkins and most readers
 * parse (several reject an offset or a 'Z'). TZ=UTC gives UTC. */
static void put_timestamp(FILE *f, long long epoch)
{
    time_t t = (time_t)epoch;
    struct tm tm;
    char buf[32] = "1970-01-01T00:00:00";
    if (localtime_r(&t, &tm))
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(f, " timestamp=\"%s\"", buf);
}

static void put_system_out(FILE *f, const char *indent, const char *text)
{
    if (!text || !*text)
        return;
    fprintf(f, "%s<system-out>", indent);
    put_text(f, text);
    fputs("</system-out>\n", f);
}

static void put_case(FILE *f, const mk_rcase *c, int show_node)
{
    fputs("    <testcase", f);
    if (show_node && c->node) {
        char *name = mk_xasprintf("%s [%s]", c->name, c->node);
        put_attr(f, "name", name, 0, "(unnamed)");
        free(name);
    } else {
        put_attr(f, "name", c->name, 0, "(unnamed)");
    }
    put_attr(f, "classname", c->classname, 0, "mokka");
    if (c->file)
        put_attr(f, "file", c->file, 0, NULL);
    if (c->line > 0)
        fprintf(f, " line=\"%d\"", c->line);
    put_time(f, c->time_ms);

    if (c->status == MK_ST_PASS && !c->output) {
        fputs("/>\n", f);
        return;
    }
    fputs(">\n", f);
    if (c->status == MK_ST_PASS) {
        /* a passing case keeps only its output (an exec step's) */
    } else if (c->status == MK_ST_SKIP) {
        fputs("      <skipped", f);
        if (c->message)
            put_attr(f, "message", c->message, MESSAGE_MAX, NULL);
        fputs("/>\n", f);
    } else {
        const char *tag = c->status == MK_ST_FAIL ? "failure" : "error";
        fprintf(f, "      <%s", tag);
        put_attr(f, "message", c->message, MESSAGE_MAX, tag);
        put_attr(f, "type", c->type, 0, tag);
        if (c->detail && *c->detail) {
            fputc('>', f);
            put_text(f, c->detail);
            fprintf(f, "</%s>\n", tag);
        } else {
            fputs("/>\n", f);
        }
    }
    put_system_out(f, "      ", c->output);
    fputs("    </testcase>\n", f);
}

int mk_junit_write(const mk_report *r, FILE *f)
{
    mk_totals all = mk_report_totals(r);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mokka\"", f);
    put_counts(f, &all);
    fputs(">\n", f);
    for (size_t i = 0; i < r->n; i++) {
        const mk_rsuite *s = r->suites[i];
        mk_totals t = mk_rsuite_totals(s);
        fputs("  <testsuite", f);
        put_attr(f, "name", s->name, 0, "mokka");
        put_counts(f, &t);
        put_timestamp(f, s->timestamp);
        put_attr(f, "hostname", s->hostname, 0, "localhost");
        fputs(">\n", f);
        int show_node = mk_rsuite_several_nodes(s);
        for (size_t j = 0; j < s->n; j++)
            put_case(f, s->cases[j], show_node);
        put_system_out(f, "    ", s->output);
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
    if (ferror(f)) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}
