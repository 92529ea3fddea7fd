/* textesc.c - UTF-8 reading and one-line escaping of outside text (see
 * textesc.h). No allocation: the library calls it inside its host. */
#include <stdio.h>
#include <string.h>
#include "textesc.h"

static int cont(unsigned char c)
{
    return (c & 0xc0) == 0x80;   /* the NUL terminator is never one */
}

int mk_utf8_seq(const unsigned char *p, uint32_t *cp)
{
    if (p[0] < 0xc2)
        return 0;
    if (p[0] < 0xe0) {
        if (!cont(p[1]))
            return 0;
        *cp = (uint32_t)(p[0] & 0x1f) << 6 | (p[1] & 0x3f);
        return 2;
    }
    if (p[0] < 0xf0) {
        if (!cont(p[1]) || !cont(p[2]))
            return 0;
        *cp = (uint32_t)(p[0] & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 | (p[2] & 0x3f);
        return *cp < 0x800 || (*cp >= 0xd800 && *cp <= 0xdfff) ? 0 : 3;
    }
    if (p[0] < 0xf5) {
        if (!cont(p[1]) || !cont(p[2]) || !cont(p[3]))
            return 0;
        *cp = (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
              (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
        return *cp < 0x10000 || *cp > 0x10ffff ? 0 : 4;
    }
    return 0;
}

/* The escaped form of the character at p (n bytes of it taken) into out;
 * its length. */
static size_t escape_one(const unsigned char *p, size_t *n, char out[17])
{
    uint32_t cp;
    int seq = p[0] >= 0x80 ? mk_utf8_seq(p, &cp) : 0;
    *n = seq ? (size_t)seq : 1;
    if (seq && cp > 0x9f) {
        memcpy(out, p, (size_t)seq);
        return (size_t)seq;
    }
    if (seq) {   /* a C1 control: each byte */
        snprintf(out, 17, "\\x%02x\\x%02x", p[0], p[1]);
        return 8;
    }
    switch (p[0]) {
    case '\\': memcpy(out, "\\\\", 2); return 2;
    case '\n': memcpy(out, "\\n", 2); return 2;
    case '\r': memcpy(out, "\\r", 2); return 2;
    case '\t': memcpy(out, "\\t", 2); return 2;
    }
    if (p[0] < 0x20 || p[0] >= 0x7f) {
        snprintf(out, 17, "\\x%02x", p[0]);
        return 4;
    }
    out[0] = (char)p[0];
    return 1;
}

char *mk_text_escape(const char *s, size_t max, char *buf, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    size_t o = 0;
    if (!len)
        return buf;
    if (max && (size_t)(end - p) > max)
        end = p + max;
    while (p < end) {
        char one[17];
        size_t n, w = escape_one(p, &n, one);
        if (p + n > end || o + w + 4 > len)   /* room kept for "..." */
            break;
        memcpy(buf + o, one, w);
        o += w;
        p += n;
    }
    if (*p && o + 3 < len) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = 0;
    return buf;
}
