/* suite_regex.c - the regular expressions suites match labels, annotations
 * and taints with, compiled at a cost known in advance.
 *
 * glibc's regcomp copies a sub-expression once per count of a bounded
 * repetition, and nested repetitions multiply: the one-line pattern
 * /(a{1,32767}){1,32767}/ grew to 2 GB before failing. So a pattern is
 * measured first, by the size its repetitions expand it to, and refused
 * past the limits (suite.h's MK_RE_*) with a message naming the limit.
 * Back-references (a glibc extension to EREs) are refused too: matching
 * with them can take exponential time. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"

typedef struct group {
    unsigned long total;      /* expanded size so far */
    unsigned long last;       /* size of the last atom, which a quantifier repeats */
} group;

/* Saturating, so that a hostile pattern cannot overflow the measure. */
static unsigned long cap(unsigned long v)
{
    return v > MK_RE_MAX_SIZE + 1 ? MK_RE_MAX_SIZE + 1 : v;
}

static void add_atom(group *g, unsigned long size)
{
    g->last = size;
    g->total = cap(g->total + size);
}

/* Repeats the last atom up to `times` in all (it is already counted once). */
static void repeat(group *g, unsigned long times)
{
    g->total = cap(g->total + g->last * (times ? times - 1 : 0));
    g->last = cap(g->last * times);
}

/* The end of a bracket expression starting at p ('['), or NULL. */
static const char *bracket_end(const char *p)
{
    p++;
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    for (; *p && *p != ']'; p++)
        if (p[0] == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
            const char *close = strchr(p + 2, p[1]);
            if (!close || close[1] != ']')
                return NULL;
            p = close + 1;
        }
    return *p == ']' ? p : NULL;
}

/* {m}, {m,} or {m,n} at p; the largest count it allows in *times and the
 * end in *end. 0, 1 when it is not a bound (regcomp then judges it), or
 * -1 with why when a count is over the limit. */
static int bound(const char *p, unsigned long *times, const char **end, char *why, size_t len)
{
    char *e;
    if (!isdigit((unsigned char)p[1]))
        return 1;
    unsigned long lo = strtoul(p + 1, &e, 10), hi = lo;
    if (*e == ',' && isdigit((unsigned char)e[1])) {
        hi = strtoul(e + 1, &e, 10);
    } else if (*e == ',') {
        hi = lo + 1;        /* "{m,}": open ended, counted as m + 1 */
        e++;
    }
    if (*e != '}')
        return 1;
    if (lo > MK_RE_MAX_REPEAT || hi > MK_RE_MAX_REPEAT) {
        snprintf(why, len, "the repetition %.*s is over the limit of %d", (int)(e - p + 1), p,
                 MK_RE_MAX_REPEAT);
        return -1;
    }
    *times = hi > lo ? hi : lo;
    *end = e;
    return 0;
}

int mk_regex_measure(const char *pat, char *why, size_t len)
{
    group stack[MK_RE_MAX_DEPTH + 1] = { { 0, 0 } };
    int depth = 0;
    size_t n = strlen(pat);
    if (n > MK_RE_MAX_LEN) {
        snprintf(why, len, "the pattern is %zu bytes, over the limit of %d", n, MK_RE_MAX_LEN);
        return -1;
    }
    for (const char *p = pat; *p; p++) {
        group *g = &stack[depth];
        unsigned long times;
        const char *end;
        switch (*p) {
        case '(':
            if (depth == MK_RE_MAX_DEPTH) {
                snprintf(why, len, "groups nest over the limit of %d deep", MK_RE_MAX_DEPTH);
                return -1;
            }
            stack[++depth] = (group){ 0, 0 };
            break;
        case ')':
            if (depth == 0) {
                add_atom(g, 1);
                break;
            }
            depth--;
            add_atom(&stack[depth], stack[depth + 1].total + 1);
            break;
        case '*': case '+': case '?':
            repeat(g, 2);
            break;
        case '{':
            switch (bound(p, &times, &end, why, len)) {
            case -1:
                return -1;
            case 0:
                repeat(g, times);
                p = end;
                break;
            default:
                add_atom(g, 1);
            }
            break;
        case '[':
            end = bracket_end(p);
            add_atom(g, 1);
            if (end)
                p = end;
            break;
        case '\\':
            if (p[1] >= '1' && p[1] <= '9') {
                snprintf(why, len, "back-references (\\%c) are not supported: matching with them "
                         "can take exponential time", p[1]);
                return -1;
            }
            add_atom(g, 1);
            if (p[1])
                p++;
            break;
        case '|':
            g->last = 0;
            break;
        default:
            add_atom(g, 1);
        }
    }
    unsigned long total = 0;
    for (int i = 0; i <= depth; i++)
        total = cap(total + stack[i].total);
    if (total > MK_RE_MAX_SIZE) {
        snprintf(why, len, "its repetitions expand it past the limit of %d elements (nested "
                 "repetitions multiply)", MK_RE_MAX_SIZE);
        return -1;
    }
    return 0;
}

int mk_regex_compile(regex_t *re, const char *pat, char *why, size_t len)
{
    return mk_regex_compile_flags(re, pat, 0, why, len);
}

int mk_regex_compile_flags(regex_t *re, const char *pat, int cflags, char *why, size_t len)
{
    if (mk_regex_measure(pat, why, len) != 0)
        return -1;
    int rc = regcomp(re, pat, REG_EXTENDED | REG_NOSUB | cflags);
    if (rc != 0) {
        regerror(rc, re, why, len);
        return -1;
    }
    return 0;
}
