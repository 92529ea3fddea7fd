/* summary.c - the human summary on stderr: one line per case, the failure
 * message and detail indented under it, and a totals line. Colour only when
 * mk_sgr says so (a terminal, no NO_COLOR, no --color=never); all text is
 * cleaned so that a plugin's escape sequences cannot reach the terminal. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "report.h"

static const struct { const char *word, *sgr; } looks[] = {
    [MK_ST_PASS] = {"PASS ", "32"},
    [MK_ST_FAIL] = {"FAIL ", "1;31"},
    [MK_ST_ERROR] = {"ERROR", "1;35"},
    [MK_ST_SKIP] = {"SKIP ", "33"},
};

/* `text` in the SGR style `code`. mk_sgr returns one static buffer, so each
 * call's result is used before the next call. */
static void put_styled(FILE *f, const char *code, const char *text)
{
    fputs(mk_sgr(f, code), f);
    fputs(text, f);
    fputs(mk_sgr(f, "0"), f);
}

/* Each line of `text`, cleaned, after `indent`. */
static void put_indented(FILE *f, const char *indent, const char *text)
{
    char *clean = mk_text_clean(text);
    for (char *line = clean, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        fprintf(f, "%s%s\n", *line ? indent : "", line);
    }
    free(clean);
}

static void put_case(FILE *f, const mk_rcase *c, int show_node)
{
    char secs[32];
    mk_duration_format(c->time_ms, secs, sizeof secs);
    char *name = mk_text_line(c->name, 0);
    put_styled(f, looks[c->status].sgr, looks[c->status].word);
    fprintf(f, "  %s", name);
    free(name);
    if (show_node && c->node) {
        char *node = mk_text_line(c->node, 0);
        fprintf(f, " [%s]", node);
        free(node);
    }
    fprintf(f, " (%s)\n", secs);
    if (c->status == MK_ST_PASS)
        return;
    if (c->message) {
        char *msg = mk_text_line(c->message, 0);
        fprintf(f, "       %s\n", msg);
        free(msg);
    }
    if (c->detail)
        put_indented(f, "         ", c->detail);
}

int mk_summary_write(const mk_report *r, FILE *f)
{
    for (size_t i = 0; i < r->n; i++) {
        const mk_rsuite *s = r->suites[i];
        char *name = mk_text_line(s->name, 0), *file = mk_text_line(s->file, 0);
        put_styled(f, "1", name);
        if (file)
            fprintf(f, " (%s)", file);
        fputc('\n', f);
        free(name);
        free(file);
        int show_node = mk_rsuite_several_nodes(s);
        for (size_t j = 0; j < s->n; j++)
            put_case(f, s->cases[j], show_node);
    }
    mk_totals t = mk_report_totals(r);
    char secs[32];
    mk_duration_format(t.time_ms, secs, sizeof secs);
    const char *verdict = t.errors ? "ERROR" : t.failures ? "FAILED" : "PASSED";
    const char *sgr = t.errors ? "1;35" : t.failures ? "1;31" : "1;32";
    put_styled(f, sgr, verdict);
    fprintf(f, ": %zu test%s, %zu passed, %zu failed, %zu error%s, %zu skipped in %s\n",
            t.tests, t.tests == 1 ? "" : "s", t.passed, t.failures, t.errors,
            t.errors == 1 ? "" : "s", t.skipped, secs);
    if (ferror(f)) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}
