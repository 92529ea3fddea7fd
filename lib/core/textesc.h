/* textesc.h - text from outside (an environment variable such as
 * NVIDIA_VISIBLE_DEVICES) shown on one line of a terminal or a log: no byte
 * of it may move the cursor, colour the screen, end the line or break the
 * UTF-8 around it. Shared by the library's stderr lines and the CLI (whose
 * src/util/textclean.c cleans report text with the same UTF-8 reader). */
#ifndef MOKKA_TEXTESC_H
#define MOKKA_TEXTESC_H

#include <stddef.h>
#include <stdint.h>

/* Length of the valid UTF-8 sequence of two or more bytes at p (0: none:
 * ASCII, a stray or overlong byte, a surrogate), its code point in *cp. */
int mk_utf8_seq(const unsigned char *p, uint32_t *cp);

/* The first `max` bytes of s (0: all) into buf[len], escaped as C writes
 * them: \\ for a backslash, \n, \r, \t, and \xNN for every other control
 * character (ESC included, C1 controls as their UTF-8 bytes) and every byte
 * that is not UTF-8; "..." when s was cut, by max or by len (never inside
 * an escape or a character). Returns buf. */
char *mk_text_escape(const char *s, size_t max, char *buf, size_t len);

#endif
