/* report.h - the report model (suites -> cases -> result) and its writers.
 *
 * The suite engine and the commands fill a report; the writers (JUnit XML,
 * JSON, the terminal summary) only read it. Text fields hold whatever the
 * producers give (plugin logs with colours, node annotations); each writer
 * cleans and escapes for its own format, so none can be broken by content.
 * Also: outputs.c.
 */
#ifndef MOKKA_REPORT_H
#define MOKKA_REPORT_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

typedef enum { MK_ST_PASS, MK_ST_FAIL, MK_ST_ERROR, MK_ST_SKIP } mk_status;

typedef struct mk_rcase {
    char *name;          /* never empty */
    char *classname;     /* "mokka.<suite>" */
    char *file;          /* the suite file, or NULL */
    int line;            /* the case's line in it; 0 when unknown */
    char *node;          /* the node checked, or NULL */
    mk_status status;
    long long time_ms;
    char *type;          /* failure or error kind: "assertion", "timeout", "action"... */
    char *message;       /* one line; NULL when passed */
    char *detail;        /* expected vs actual, several lines; or NULL */
    char *output;        /* captured output (the plugin's log tail); or NULL */
} mk_rcase;

typedef struct mk_rsuite {
    char *name;
    char *file;          /* or NULL */
    char *hostname;
    long long timestamp; /* Unix seconds at the start; SOURCE_DATE_EPOCH when set */
    long long time_ms;
    char *output;        /* suite-level output (the plugin's log tail); or NULL */
    size_t n, cap;
    mk_rcase **cases;
} mk_rsuite;

typedef struct mk_report {
    size_t n, cap;
    mk_rsuite **suites;
    long long time_ms;   /* the whole run; 0: the sum of the suites */
} mk_report;

typedef struct mk_totals {
    size_t tests, passed, failures, errors, skipped;
    long long time_ms;
} mk_totals;

void mk_report_init(mk_report *r);
void mk_report_free(mk_report *r);

/* A new suite, stamped with the current time and the host name. */
mk_rsuite *mk_report_add_suite(mk_report *r, const char *name, const char *file);
/* A new passing case; classname "mokka.<suite>". `node` may be NULL. */
mk_rcase *mk_rsuite_add_case(mk_rsuite *s, const char *name, const char *node);
/* Sets the status, the type and the one-line message (fmt NULL: none). */
void mk_rcase_set(mk_rcase *c, mk_status st, const char *type, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Appends a line to the detail. */
void mk_rcase_detail(mk_rcase *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records a harness failure outside any case (the plugin never registered):
 * an error case `name` in suite `suite`, which is added when missing. */
mk_rcase *mk_report_error(mk_report *r, const char *suite, const char *name,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));

mk_totals mk_rsuite_totals(const mk_rsuite *s);
mk_totals mk_report_totals(const mk_report *r);
const char *mk_status_name(mk_status st);      /* "pass", "fail", "error", "skipped" */
/* Whether the suite's cases name more than one node (writers then show them). */
int mk_rsuite_several_nodes(const mk_rsuite *s);
/* MK_EXIT_OK when nothing failed, MK_EXIT_ENV when any case is an error (the
 * harness could not check, so failures next to it prove little), else
 * MK_EXIT_FAIL when any case failed. Skipped cases do not count. */
int mk_report_exit_code(const mk_report *r);

/* Writers. Each returns 0, or -1 with errno set when writing failed. */
int mk_junit_write(const mk_report *r, FILE *f);       /* junit.c */
int mk_report_json_write(const mk_report *r, FILE *f); /* report_json.c */
int mk_summary_write(const mk_report *r, FILE *f);     /* summary.c; colour per mk_sgr(f) */

/* Writes with `writer` to `path` (report_save.c): "-" is stdout; a device, a
 * FIFO or a socket is written in place (--junit /dev/stdout, a pipe to a
 * collector), never replaced; a regular file, or a new one, is written to a
 * temporary file beside it and renamed over it, so CI never picks up half a
 * report; a symbolic link is followed, and the file it names is the one
 * written. 0, or -1 with err set. */
int mk_report_save(const mk_report *r, const char *path,
                   int (*writer)(const mk_report *, FILE *), char *err, size_t errlen);


/* outputs.c: where `mokka run` and `mokka assert` put their results: the
 * summary on stderr, --junit FILE, --report json[=FILE]; and the shared
 * cancel switch (SIGINT, SIGTERM, --timeout) that stops a run early while
 * still writing every report. */
typedef struct mk_outputs {
    const char *junit;   /* --junit FILE or NULL */
    const char *json;    /* --report json: "-" (stdout) or FILE, or NULL */
} mk_outputs;

/* Takes --report's argument; 0, or MK_EXIT_USAGE after a message. */
int mk_outputs_report_opt(mk_outputs *o, const char *cmd, const char *arg);
/* Summary to stderr, then the files; 0, or MK_EXIT_ENV when one could not
 * be written (after a message). */
int mk_outputs_write(const mk_outputs *o, const char *cmd, const mk_report *rep);

/* The cancel switch: 0 while running, else the signal that stopped the run
 * (SIGALRM for --timeout). */
extern volatile sig_atomic_t mk_cancel;
/* Catches SIGINT and SIGTERM into mk_cancel and starts a watchdog that sets
 * SIGALRM after timeout_s; mk_cancel_stop ends the watchdog. */
int mk_cancel_start(double timeout_s);
void mk_cancel_stop(void);


#endif
