/* xalloc.h - allocation that cannot fail: the CLI's engines (suite, report)
 * treat running out of memory as fatal, like git's xmalloc, so that callers
 * are not littered with checks that can never be tested. Not for lib/: the
 * NVML library must never abort its host process. */
#ifndef MOKKA_XALLOC_H
#define MOKKA_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *mk_xmalloc(size_t n);
void *mk_xcalloc(size_t n, size_t size);
void *mk_xrealloc(void *p, size_t n);
/* A copy of s; NULL stays NULL. */
char *mk_xstrdup(const char *s);
char *mk_xstrndup(const char *s, size_t n);
char *mk_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *mk_xvasprintf(const char *fmt, va_list ap);

#endif
