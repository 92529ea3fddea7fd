/* ytree.c - reading position-aware YAML trees (see ytree.h): lookups,
 * typed scalars with errors at their node, unknown keys with "did you
 * mean". Loading them is yload.c's. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "ytree.h"

void mk_yfree(mk_ydoc *doc)
{
    if (!doc)
        return;
    free(doc->pool);
    free(doc->file);
    free(doc);
}

mk_ynode *mk_yget(const mk_ynode *map, const char *key)
{
    if (!map || map->kind != MK_Y_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->keys[i]->str, key) == 0)
            return map->vals[i];
    return NULL;
}

int mk_yis_null(const mk_ynode *n)
{
    if (!n)
        return 0; /* absent is not null */
    if (n->kind != MK_Y_SCALAR || n->quoted)
        return 0;
    return n->str[0] == 0 || strcmp(n->str, "~") == 0 || strcasecmp(n->str, "null") == 0;
}

static const char *kind_name(const mk_ynode *n)
{
    switch (n->kind) {
    case MK_Y_MAP: return "a map";
    case MK_Y_SEQ: return "a list";
    default: return "a value";
    }
}

int mk_ystr(const mk_ynode *n, const char *what, const char **out, mk_diags *d)
{
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s: expected a string, got %s", what, kind_name(n));
        return -1;
    }
    if (strlen(n->str) != n->len) {
        mk_yerr(d, n, "%s: contains a NUL byte", what);
        return -1;
    }
    *out = n->str;
    return 0;
}

int mk_yint(const mk_ynode *n, const char *what, long long lo, long long hi,
            long long *out, mk_diags *d)
{
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "%s: expected an integer, got %s", what, kind_name(n));
        return -1;
    }
    char *end;
    errno = 0;
    long long v = strtoll(n->str, &end, 0);
    if (n->str[0] == 0 || *end || errno == ERANGE || isspace((unsigned char)n->str[0])) {
        mk_yerr(d, n, "%s: expected an integer, got '%s'", what, n->str);
        return -1;
    }
    if (v < lo || v > hi) {
        mk_yerr(d, n, "%s: %lld is out of range (%lld to %lld)", what, v, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

int mk_ybool(const mk_ynode *n, const char *what, int *out, mk_diags *d)
{
    static const char *const yes[] = { "true", "yes", "on", NULL };
    static const char *const no[] = { "false", "no", "off", NULL };
    if (n->kind == MK_Y_SCALAR) {
        for (int i = 0; yes[i]; i++)
            if (strcasecmp(n->str, yes[i]) == 0) {
                *out = 1;
                return 0;
            }
        for (int i = 0; no[i]; i++)
            if (strcasecmp(n->str, no[i]) == 0) {
                *out = 0;
                return 0;
            }
    }
    mk_yerr(d, n, "%s: expected true or false, got %s%s%s", what,
            n->kind == MK_Y_SCALAR ? "'" : "", n->kind == MK_Y_SCALAR ? n->str : kind_name(n),
            n->kind == MK_Y_SCALAR ? "'" : "");
    return -1;
}

int mk_ycheck_keys(const mk_ynode *map, const char *what,
                   const char *const *known, mk_diags *d)
{
    int bad = 0;
    if (!map || map->kind != MK_Y_MAP)
        return 0;
    for (size_t i = 0; i < map->n; i++) {
        const char *k = map->keys[i]->str;
        int ok = 0;
        for (size_t j = 0; known[j] && !ok; j++)
            ok = strcmp(known[j], k) == 0;
        if (ok)
            continue;
        bad++;
        /* Past the file's cap the message is only counted: skip the search. */
        const char *sugg = mk_diags_full(d, map->file) ? NULL : mk_did_you_mean(k, known);
        if (sugg)
            mk_yerr(d, map->keys[i], "unknown key '%s' in %s; did you mean '%s'?", k, what, sugg);
        else
            mk_yerr(d, map->keys[i], "unknown key '%s' in %s", k, what);
    }
    return bad;
}

static void vadd(mk_diags *d, mk_diag_level lvl, const mk_ynode *n, const char *fmt, va_list ap)
{
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    mk_diag_add(d, lvl, n ? n->file : NULL, n ? n->line : 0, n ? n->col : 0, "%s", msg);
}

void mk_yerr(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(d, MK_DIAG_ERROR, n, fmt, ap);
    va_end(ap);
}

void mk_ywarn(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(d, MK_DIAG_WARNING, n, fmt, ap);
    va_end(ap);
}

void mk_ynote(mk_diags *d, const mk_ynode *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd(d, MK_DIAG_NOTE, n, fmt, ap);
    va_end(ap);
}

/* Levenshtein distance, case-insensitive, capped at 64 characters. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 64;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
            size_t best = prev + cost;
            if (row[j] + 1 < best) best = row[j] + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            prev = cur;
        }
    }
    return row[lb];
}

const char *mk_did_you_mean(const char *word, const char *const *cands)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    size_t limit = strlen(word) / 3;
    if (limit < 2)
        limit = 2;
    /* Beyond 64 characters every distance reads 64, which a long word's
     * limit would take for a match. */
    if (strlen(word) > 64)
        return NULL;
    for (size_t i = 0; cands[i]; i++) {
        size_t dist = edit_distance(word, cands[i]);
        if (dist < bestd) {
            bestd = dist;
            best = cands[i];
        }
    }
    return bestd <= limit ? best : NULL;
}
