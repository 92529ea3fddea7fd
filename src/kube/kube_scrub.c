/* kube_scrub.c - replacing secrets in text (kube_scrub.h). */
#include <stdlib.h>
#include <string.h>
#include "kube_scrub.h"

#define REDACTED "(redacted)"
/* A text cut off in the middle of a secret (by the server, by jansson's
 * 160-byte error text, by a bounded buffer) ends with the secret's first
 * bytes; from this many on they are taken for it. */
#define CUT_SECRET_MIN 4

/* The length of the longest secret at text[i..n), 0 if none. A secret
 * running past the end counts when the text ends inside it. */
static size_t match(const char *text, size_t i, size_t n, const mk_ksecret *sec, size_t k)
{
    size_t best = 0;
    for (size_t j = 0; j < k; j++) {
        size_t len = sec[j].len, left = n - i;
        if (!len || sec[j].s[0] != text[i])
            continue;
        if (len <= left && memcmp(text + i, sec[j].s, len) == 0 && len > best)
            best = len;
        else if (len > left && left >= CUT_SECRET_MIN && memcmp(text + i, sec[j].s, left) == 0)
            best = left;
    }
    return best;
}

void mk_kscrub(char *text, size_t size, const mk_ksecret *sec, size_t k)
{
    size_t n = strlen(text), o = 0;
    char *out;
    if (!size || !n)
        return;
    if (!(out = malloc(size))) {
        /* No room to rewrite: hide everything rather than risk a secret. */
        strncpy(text, REDACTED, size - 1);
        text[size - 1] = '\0';
        return;
    }
    for (size_t i = 0; i < n && o + 1 < size;) {
        size_t m = match(text, i, n, sec, k);
        if (!m) {
            out[o++] = text[i++];
            continue;
        }
        size_t r = strlen(REDACTED) < size - 1 - o ? strlen(REDACTED) : size - 1 - o;
        memcpy(out + o, REDACTED, r);
        o += r;
        i += m;
    }
    out[o] = '\0';
    memcpy(text, out, o + 1);
    free(out);
}
