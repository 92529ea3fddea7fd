/* xalloc.c - allocation that prints one line and aborts when memory runs out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static void *check(void *p)
{
    if (!p) {
        fputs("mokka: out of memory\n", stderr);
        abort();
    }
    return p;
}

void *mk_xmalloc(size_t n)
{
    return check(malloc(n ? n : 1));
}

void *mk_xcalloc(size_t n, size_t size)
{
    return check(calloc(n ? n : 1, size ? size : 1));
}

void *mk_xrealloc(void *p, size_t n)
{
    return check(realloc(p, n ? n : 1));
}

char *mk_xstrdup(const char *s)
{
    return s ? check(strdup(s)) : NULL;
}

char *mk_xstrndup(const char *s, size_t n)
{
    return check(strndup(s, n));
}

char *mk_xvasprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    return check(s);
}

char *mk_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = mk_xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

char **mk_xargv_push(char **v, size_t *n, char *s)
{
    v = mk_xrealloc(v, (*n + 2) * sizeof *v);
    v[(*n)++] = s;
    v[*n] = NULL;
    return v;
}

void mk_argv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}
