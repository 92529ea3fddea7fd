/* suite_outcome.c - how an expectation's check says what went wrong: the
 * first failure or error becomes the case's one-line message, details pile
 * up under it. Below the kinds (suite_expect_*.c) and their table
 * (suite_expect.c), which both call down into it. */
#include <stdarg.h>
#include <stdlib.h>
#include "suite_int.h"
#include "util/util.h"

/* The first problem a check reports becomes its one-line message. */
static mk_xres vmessage(mk_xctx *c, mk_xres res, const char *fmt, va_list ap)
{
    if (!c->msg.len) {
        char *s = mk_xvasprintf(fmt, ap);
        mk_sb_puts(&c->msg, s);
        free(s);
    }
    return res;
}

mk_xres mk_x_fail(mk_xctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mk_xres r = vmessage(c, MK_X_FAIL, fmt, ap);
    va_end(ap);
    return r;
}

mk_xres mk_x_error(mk_xctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mk_xres r = vmessage(c, MK_X_ERROR, fmt, ap);
    va_end(ap);
    return r;
}

void mk_x_detail(mk_xctx *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = mk_xvasprintf(fmt, ap);
    va_end(ap);
    mk_sb_printf(&c->detail, "%s%s", c->detail.len ? "\n" : "", s);
    free(s);
}
