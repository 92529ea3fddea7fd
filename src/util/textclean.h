/* textclean.h - text from plugins, nodes and suites made fit for reports:
 * valid UTF-8 (each bad byte becomes U+FFFD), no ANSI escape sequences, and
 * no control characters other than tab and newline. XML 1.0 forbids most
 * control characters, JSON needs valid UTF-8, and terminals act on escapes. */
#ifndef MOKKA_TEXTCLEAN_H
#define MOKKA_TEXTCLEAN_H

#include <stddef.h>

/* A cleaned copy (NULL stays NULL). A lone CR becomes a newline; CRLF one. */
char *mk_text_clean(const char *s);
/* A cleaned copy on one line: whitespace runs become one space, ends are
 * trimmed, and text over `max` bytes is cut on a character boundary with
 * "..." appended (max 0: no limit). */
char *mk_text_line(const char *s, size_t max);

#endif
