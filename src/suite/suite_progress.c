/* suite_progress.c - the CLI's progress display for suite runs, on stderr:
 * one line that updates in place on a terminal, and plain timestamped lines
 * in CI logs (no carriage returns or escapes there, and not too many). */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "util/util.h"
#include "suite.h"

#define NAME_MAX_TTY 60              /* keep the updating line on one row */
#define PLAIN_WAIT_EVERY_MS 10000    /* a "still waiting" line this often */

static void on_tty(const mk_progress *p, const char *name)
{
    char limit[32];
    switch (p->phase) {
    case MK_PROGRESS_CASE:
        fprintf(stderr, "\r\033[Kcase %zu/%zu '%s'", p->index, p->total, name);
        break;
    case MK_PROGRESS_WAIT:
        /* tenths of a second: steady width, no flicker of milliseconds */
        mk_duration_format(p->limit_ms, limit, sizeof limit);
        fprintf(stderr, "\r\033[Kcase %zu/%zu '%s' waiting %lld.%llds of %s", p->index,
                p->total, name, p->waited_ms / 1000, p->waited_ms % 1000 / 100, limit);
        break;
    case MK_PROGRESS_DONE:
        fputs("\r\033[K", stderr);
        break;
    }
    fflush(stderr);
}

/* The runner calls from one thread; the last "still waiting" line printed
 * is the only state. */
static long long plain_waits_printed;

static void plain(const mk_progress *p, const char *name)
{
    char stamp[16], waited[32], limit[32];
    time_t now = time(NULL);
    struct tm tm;
    /* UTC, like mokka run's own progress lines and the plugin's log. */
    if (!gmtime_r(&now, &tm))
        memset(&tm, 0, sizeof tm);
    strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    switch (p->phase) {
    case MK_PROGRESS_CASE:
        plain_waits_printed = 0;
        fprintf(stderr, "%s case %zu/%zu '%s'\n", stamp, p->index, p->total, name);
        break;
    case MK_PROGRESS_WAIT:
        if (p->waited_ms / PLAIN_WAIT_EVERY_MS <= plain_waits_printed)
            return;
        plain_waits_printed = p->waited_ms / PLAIN_WAIT_EVERY_MS;
        mk_duration_format(plain_waits_printed * PLAIN_WAIT_EVERY_MS, waited, sizeof waited);
        mk_duration_format(p->limit_ms, limit, sizeof limit);
        fprintf(stderr, "%s case %zu/%zu '%s' still waiting: %s of %s\n", stamp, p->index,
                p->total, name, waited, limit);
        break;
    case MK_PROGRESS_DONE:
        mk_duration_format(p->waited_ms, waited, sizeof waited);
        fprintf(stderr, "%s case %zu/%zu '%s': %s (%s)\n", stamp, p->index, p->total, name,
                mk_status_name(p->status), waited);
        break;
    }
}

void mk_suite_progress_stderr(mk_suite_env *env, const mk_progress *p)
{
    (void)env;
    if (mk_quiet)
        return;
    int tty = isatty(STDERR_FILENO);
    char *name = mk_text_line(p->name, tty ? NAME_MAX_TTY : 0);
    if (tty)
        on_tty(p, name);
    else
        plain(p, name);
    free(name);
}
