/* strbuf.c - a growing string, and messages into an error buffer. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void reserve(mk_sb *b, size_t more)
{
    if (b->len + more + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + more + 1)
        cap *= 2;
    b->s = mk_xrealloc(b->s, cap);
    b->cap = cap;
}

void mk_sb_printf(mk_sb *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void mk_sb_puts(mk_sb *b, const char *s)
{
    size_t n = strlen(s);
    if (!n)
        return;
    reserve(b, n);
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
}

const char *mk_sb_str(const mk_sb *b)
{
    return b->s ? b->s : "";
}

char *mk_sb_take(mk_sb *b)
{
    char *s = b->len ? b->s : NULL;
    if (!s)
        free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

void mk_sb_free(mk_sb *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

int mk_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}
