/* textclean.c - UTF-8 validation (lib/core/textesc.c reads it),
 * escape-sequence removal, flattening, and snippets of untrusted text for
 * error messages. */
#include <stdint.h>
#include <string.h>
#include "textesc.h"
#include "util.h"

#define ESC 0x1b
#define BEL 0x07

static int cont(unsigned char c)
{
    return (c & 0xc0) == 0x80;   /* the NUL terminator is never one */
}

/* Skips an escape sequence starting at ESC: CSI (colours, cursor moves),
 * OSC/DCS-style strings ended by BEL or ESC \, and the short two-byte forms.
 * A malformed sequence ends where it stops looking like one. */
static const unsigned char *skip_escape(const unsigned char *p)
{
    p++;
    if (*p == '[') {
        p++;
        while (*p >= 0x20 && *p <= 0x3f)
            p++;
        return *p >= 0x40 && *p <= 0x7e ? p + 1 : p;
    }
    if (*p && strchr("]PX^_", *p)) {
        for (p++; *p; p++) {
            if (*p == BEL)
                return p + 1;
            if (*p == ESC && p[1] == '\\')
                return p + 2;
        }
        return p;
    }
    while (*p >= 0x20 && *p <= 0x2f)
        p++;
    return *p >= 0x30 && *p <= 0x7e ? p + 1 : p;
}

char *mk_text_clean(const char *s)
{
    if (!s)
        return NULL;
    const unsigned char *p = (const unsigned char *)s;
    /* worst case: every byte invalid, each becoming 3 bytes of U+FFFD */
    char *out = mk_xmalloc(strlen(s) * 3 + 1), *o = out;
    while (*p) {
        uint32_t cp;
        int n;
        if (*p == ESC) {
            p = skip_escape(p);
        } else if (*p == '\r') {
            *o++ = '\n';
            p += p[1] == '\n' ? 2 : 1;
        } else if (*p < 0x20 || *p == 0x7f) {
            if (*p == '\t' || *p == '\n')
                *o++ = (char)*p;
            p++;
        } else if (*p < 0x80) {
            *o++ = (char)*p++;
        } else if ((n = mk_utf8_seq(p, &cp)) == 0) {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        } else {
            /* C1 controls and the two non-characters XML forbids */
            if (!(cp >= 0x80 && cp <= 0x9f) && cp != 0xfffe && cp != 0xffff) {
                memcpy(o, p, (size_t)n);
                o += n;
            }
            p += n;
        }
    }
    *o = 0;
    return out;
}

char *mk_text_line(const char *s, size_t max)
{
    if (!s)
        return NULL;
    char *t = mk_text_clean(s);
    char *o = t;
    int space = 0;
    for (const char *p = t; *p; p++) {
        if (*p == ' ' || *p == '\t' || *p == '\n') {
            space = o != t;
            continue;
        }
        if (space)
            *o++ = ' ';
        space = 0;
        *o++ = *p;
    }
    *o = 0;
    size_t len = (size_t)(o - t);
    if (max && len > max) {
        size_t cut = max > 3 ? max - 3 : 0;
        while (cut && cont((unsigned char)t[cut]))
            cut--;
        memcpy(t + cut, "...", 4);
    }
    return t;
}

void mk_text_snip(const char *s, size_t max, char *buf, size_t len)
{
    size_t n = 0, i = 0;
    if (!len)
        return;
    for (; s[i] && n + 1 < len && i < max; i++)
        buf[n++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    if (s[i] && n + 4 <= len) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = 0;
}

char *mk_text_escaped(const char *s)
{
    size_t len = strlen(s) * 4 + 4;   /* a byte is 4 at most (\xNN); room for the end */
    return mk_text_escape(s, 0, mk_xmalloc(len), len);
}

char *mk_text_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    char *out = mk_xmalloc(strlen(s) * 3 + 1), *o = out;
    while (*p) {
        uint32_t cp;
        int n = *p < 0x80 ? 1 : mk_utf8_seq(p, &cp);
        if (n) {
            memcpy(o, p, (size_t)n);
            o += n;
            p += n;
        } else {
            memcpy(o, "\xef\xbf\xbd", 3);
            o += 3;
            p++;
        }
    }
    *o = 0;
    return out;
}
