/* doctor.c - the lines of `mokka doctor`'s report (see doctor.h). */
#include <stdarg.h>
#include "util/util.h"
#include "doctor.h"

void mk_dr_section(mk_doctor *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(mk_sgr(d->out, "1"), d->out);
    vfprintf(d->out, fmt, ap);
    fprintf(d->out, "%s\n", mk_sgr(d->out, "0"));
    va_end(ap);
}

static void line(mk_doctor *d, const char *word, const char *sgr, const char *fix,
                 const char *fmt, va_list ap)
{
    fprintf(d->out, "  %s%s%s  ", mk_sgr(d->out, sgr), word, mk_sgr(d->out, "0"));
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    if (fix)
        fprintf(d->out, "        fix: %s\n", fix);
}

void mk_dr_pass(mk_doctor *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line(d, "PASS", "32", NULL, fmt, ap);
    va_end(ap);
    d->passed++;
}

void mk_dr_warn(mk_doctor *d, const char *fix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line(d, "WARN", "33", fix, fmt, ap);
    va_end(ap);
    d->warned++;
}

void mk_dr_fail(mk_doctor *d, const char *fix, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    line(d, "FAIL", "31", fix, fmt, ap);
    va_end(ap);
    d->failed++;
}
