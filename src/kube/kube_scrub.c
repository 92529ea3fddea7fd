/* kube_scrub.c - lists of secrets, and replacing them in text (kube_scrub.h). */
#include <stdlib.h>
#include <string.h>
#include "kube_scrub.h"

#define REDACTED "(redacted)"
/* A text cut off in the middle of a secret (by the server, by jansson's
 * 160-byte error text, by a bounded buffer) ends with the secret's first
 * bytes; from this many on they are taken for it. */
#define CUT_SECRET_MIN 4
/* Lines of a PEM key shorter than this are not taken for secrets: the last
 * line of its base64 can be a few bytes that would match anywhere. */
#define PEM_LINE_MIN 16

static void add(mk_ksecrets *l, const char *s, size_t len)
{
    if (s && len && l->n < MK_KSECRETS_MAX)
        l->v[l->n++] = (mk_ksecret){ .s = s, .len = len };
}

void mk_ksecrets_add(mk_ksecrets *l, const char *secret)
{
    add(l, secret, secret ? strlen(secret) : 0);
}

void mk_ksecrets_add_pem(mk_ksecrets *l, const char *pem, size_t len)
{
    add(l, pem, len);
    for (size_t i = 0; pem && i < len;) {
        const char *line = pem + i, *nl = memchr(line, '\n', len - i);
        size_t ll = nl ? (size_t)(nl - line) : len - i;
        i += ll + 1;
        if (ll && line[ll - 1] == '\r')
            ll--;
        if (ll >= PEM_LINE_MIN && strncmp(line, "-----", 5))
            add(l, line, ll);
    }
}

/* The length of the longest secret at text[i..n), 0 if none. A secret
 * running past the end counts when the text ends inside it. */
static size_t match(const char *text, size_t i, size_t n, const mk_ksecrets *l)
{
    size_t best = 0;
    for (size_t j = 0; j < l->n; j++) {
        const mk_ksecret *sec = &l->v[j];
        size_t len = sec->len, left = n - i;
        if (sec->s[0] != text[i])
            continue;
        if (len <= left && memcmp(text + i, sec->s, len) == 0 && len > best)
            best = len;
        else if (len > left && left >= CUT_SECRET_MIN && memcmp(text + i, sec->s, left) == 0)
            best = left;
    }
    return best;
}

void mk_kscrub(char *text, size_t size, const mk_ksecrets *l)
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
        size_t m = match(text, i, n, l);
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
