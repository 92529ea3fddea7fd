/* strbuf.h - a growing string, for messages and details built piece by piece. */
#ifndef MOKKA_STRBUF_H
#define MOKKA_STRBUF_H

#include <stddef.h>

typedef struct mk_sb {
    char *s;        /* NUL-terminated once anything was added; else NULL */
    size_t len, cap;
} mk_sb;

#define MK_SB_INIT {0, 0, 0}

void mk_sb_printf(mk_sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_sb_puts(mk_sb *b, const char *s);
/* The text so far ("" when empty). */
const char *mk_sb_str(const mk_sb *b);
/* Hands the text to the caller (NULL when empty) and empties the buffer. */
char *mk_sb_take(mk_sb *b);
void mk_sb_free(mk_sb *b);

#endif
