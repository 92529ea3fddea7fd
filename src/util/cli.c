/* cli.c - exit codes, colour and diagnostics on stderr for every command and
 * engine (see util.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util.h"

int mk_quiet;
static int color_mode = -1; /* -1 auto, 0 never, 1 always */

int mk_color_set(const char *when)
{
    if (strcmp(when, "auto") == 0) color_mode = -1;
    else if (strcmp(when, "always") == 0) color_mode = 1;
    else if (strcmp(when, "never") == 0) color_mode = 0;
    else return -1;
    return 0;
}

int mk_color_on(FILE *f)
{
    if (color_mode >= 0)
        return color_mode;
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc)
        return 0;
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0)
        return 0;
    return isatty(fileno(f));
}

const char *mk_sgr(FILE *f, const char *code)
{
    /* A few buffers in turn, so that one printf can take several codes. */
    static __thread char buf[8][32];
    static __thread unsigned next;
    if (!mk_color_on(f))
        return "";
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "\033[%sm", code);
    return b;
}

int mk_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "mokka%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'mokka %s%s--help' for more information.\n",
            cmd ? cmd : "", cmd ? " " : "");
    return MK_EXIT_USAGE;
}

/* One line, whole: threads (a fleet's workers) log at once. */
static void vmsg(const char *cmd, const char *fmt, va_list ap)
{
    flockfile(stderr);
    fprintf(stderr, "mokka%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    funlockfile(stderr);
}

void mk_err(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(cmd, fmt, ap);
    va_end(ap);
}

void mk_info(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    if (mk_quiet)
        return;
    va_start(ap, fmt);
    vmsg(cmd, fmt, ap);
    va_end(ap);
}

void mk_log_as(void *cmd, int warning, const char *msg)
{
    if (warning)
        mk_err(cmd, "warning: %s", msg);
    else
        mk_info(cmd, "%s", msg);
}

void mk_logf(void (*log)(void *ctx, int warning, const char *msg), void *ctx, int warning,
             const char *fmt, ...)
{
    char msg[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (log)
        log(ctx, warning, msg);
    else
        fprintf(stderr, "mokka: %s%s\n", warning ? "warning: " : "", msg);
}
