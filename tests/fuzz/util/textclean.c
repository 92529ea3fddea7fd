/* textclean.c (fuzz target "textclean") - drives the cleaning of text that
 * comes from plugins, nodes and suites before reports carry it
 * (src/util/textclean.c), and checks what it promises: valid UTF-8, no
 * escape sequences, no control characters but tab and newline (none at all
 * on one line), runs of blanks made one space, cut at `max` bytes on a
 * character boundary; and that cleaning twice changes nothing more.
 *
 * fuzz-flags: -max_len=4096 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "textclean: %s fails\n", #cond); abort(); } } while (0)

/* Valid UTF-8 without controls (C0 but tab and newline, DEL, C1) or the
 * non-characters U+FFFE and U+FFFF. */
static void clean_ok(const char *s, int one_line)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t cp;
        int n;
        if (*p < 0x80) {
            CHECK(*p >= 0x20 || (!one_line && (*p == '\t' || *p == '\n')));
            CHECK(*p != 0x7f);
            p++;
            continue;
        }
        if (*p >= 0xc2 && *p < 0xe0) {
            n = 2;
            cp = *p & 0x1fu;
        } else if (*p >= 0xe0 && *p < 0xf0) {
            n = 3;
            cp = *p & 0x0fu;
        } else {
            CHECK(*p >= 0xf0 && *p < 0xf5);
            n = 4;
            cp = *p & 0x07u;
        }
        for (int i = 1; i < n; i++) {
            CHECK((p[i] & 0xc0) == 0x80);
            cp = cp << 6 | (p[i] & 0x3fu);
        }
        CHECK(n != 3 || (cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff)));
        CHECK(n != 4 || (cp >= 0x10000 && cp <= 0x10ffff));
        CHECK(!(cp >= 0x80 && cp <= 0x9f) && cp != 0xfffe && cp != 0xffff);
        p += n;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t max = data[0];   /* 0: no limit */
    char *s = malloc(size);
    if (!s)
        return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = 0;

    char *c = mk_text_clean(s);
    clean_ok(c, 0);
    char *again = mk_text_clean(c);
    CHECK(strcmp(again, c) == 0);

    char *line = mk_text_line(s, max);
    clean_ok(line, 1);
    size_t len = strlen(line);
    CHECK(len == 0 || (line[0] != ' ' && line[len - 1] != ' '));
    CHECK(!strstr(line, "  "));
    if (max >= 3)
        CHECK(len <= max);

    free(line);
    free(again);
    free(c);
    free(s);
    return 0;
}
