/* suite_regex.c - the regular expressions suites match labels, annotations,
 * taints and command output with, compiled at a cost known in advance.
 *
 * glibc's regcomp builds a tree, copies a sub-expression once per count of
 * a bounded repetition (nested and chained repetitions multiply), and then
 * gives every optional node (?, *, |, anchors, each count past a bound's
 * minimum) its epsilon closure: the set of nodes reachable without reading,
 * so memory and time grow with the square of the optional nodes (a{,1000}
 * takes 9 MB, (a{,1000}){,1000} over 14 GB). Where a part that can match
 * nothing is repeated without bound, as in (a*)* or ((a?){,2})+, the
 * closures form cycles and glibc recomputes them along every path: 17 bytes
 * cost 17 s of CPU. So a pattern is measured first, the way regcomp will
 * expand it, and refused past the limits (suite_int.h's MK_RE_*) with a
 * message naming the limit and what to write instead. Within them regcomp
 * takes milliseconds and a few MB, so the compile itself needs no guard.
 * Back-references (a glibc extension to EREs) are refused too: matching
 * with them can take exponential time. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"

/* What a part of the pattern costs once regcomp has expanded it. */
typedef struct cost {
    unsigned long size;       /* tree nodes */
    unsigned long optional;   /* of them, the ones reached without reading */
    int empty;                /* whether it can match the empty string */
} cost;

/* An open group (or the whole pattern): its branches so far. */
typedef struct group {
    cost done;                /* the finished branches, joined by | */
    int alternated;           /* whether there was a | */
    cost seq;                 /* the current branch, without its last atom */
    cost last;                /* the last atom, which a quantifier repeats */
    int has_last;
    const char *last_at;      /* where the last atom starts */
    const char *open;         /* where the group starts */
} group;

typedef struct measure {
    group stack[MK_RE_MAX_DEPTH + 1];
    int depth;
    char *why;
    size_t len;
} measure;

/* Saturating, so that a hostile pattern cannot overflow the measure. */
static unsigned long cap(unsigned long v)
{
    return v > MK_RE_MAX_SIZE + 1 ? MK_RE_MAX_SIZE + 1 : v;
}

static unsigned long times(unsigned long a, unsigned long b)
{
    return b && a > (MK_RE_MAX_SIZE + 1) / b ? MK_RE_MAX_SIZE + 1 : cap(a * b);
}

static cost concat(cost a, cost b)
{
    return (cost){ cap(a.size + b.size), cap(a.optional + b.optional), a.empty && b.empty };
}

static cost alternate(cost a, cost b)
{
    return (cost){ cap(a.size + b.size + 1), cap(a.optional + b.optional + 1),
                   a.empty || b.empty };
}

static const cost NOTHING = { 0, 0, 1 };

/* The limits on sizes, checked after each step (sizes only grow). */
static int over(measure *m, cost c)
{
    if (c.size > MK_RE_MAX_SIZE) {
        snprintf(m->why, m->len, "its repetitions expand it past the limit of %d elements "
                 "(nested repetitions multiply)", MK_RE_MAX_SIZE);
        return 1;
    }
    if (c.optional > MK_RE_MAX_OPTIONAL) {
        snprintf(m->why, m->len, "its repetitions expand it past the limit of %d optional "
                 "elements (each ?, *, +, |, anchor and count past a minimum; nested "
                 "repetitions multiply): repeat less, or use * and + where no bound is needed",
                 MK_RE_MAX_OPTIONAL);
        return 1;
    }
    return 0;
}

/* The group's last atom joins its branch; then `atom` (at `at`) is last. */
static int add_atom(measure *m, cost atom, const char *at)
{
    group *g = &m->stack[m->depth];
    if (g->has_last)
        g->seq = concat(g->seq, g->last);
    g->last = atom;
    g->has_last = 1;
    g->last_at = at;
    return over(m, concat(g->seq, atom));
}

/* The group as one atom: its branches joined. */
static cost group_cost(group *g)
{
    cost branch = g->has_last ? concat(g->seq, g->last) : g->seq;
    return g->alternated ? alternate(g->done, branch) : branch;
}

static int open_group(measure *m, const char *at)
{
    if (m->depth == MK_RE_MAX_DEPTH) {
        snprintf(m->why, m->len, "groups nest over the limit of %d deep", MK_RE_MAX_DEPTH);
        return -1;
    }
    m->stack[++m->depth] = (group){ NOTHING, 0, NOTHING, NOTHING, 0, at, at };
    return 0;
}

/* The innermost group becomes its parent's last atom. An empty group keeps
 * its two parentheses as nodes; the others lose theirs (REG_NOSUB). */
static int close_group(measure *m)
{
    group *g = &m->stack[m->depth--];
    cost body = group_cost(g);
    if (body.size == 0)
        body = (cost){ 2, 2, 1 };
    return add_atom(m, body, g->open) ? -1 : 0;
}

/* A precision for printing from `from` to `to`, at most 40 bytes. */
static int excerpt(const char *from, const char *to)
{
    return to - from > 40 ? 40 : (int)(to - from);
}

/* A quantifier from `q` to `end` (inclusive) allowing lo to hi counts
 * (hi < 0: no bound) on the last atom, which regcomp copies hi times (lo + 1
 * when unbounded), adding a node reached without reading for each count past
 * lo (one star when unbounded). */
static int repeat(measure *m, const char *q, const char *end, unsigned long lo, long hi)
{
    group *g = &m->stack[m->depth];
    if (!g->has_last)   /* nothing to repeat: regcomp refuses it */
        return add_atom(m, (cost){ 1, 0, 0 }, q) ? -1 : 0;
    cost *a = &g->last;
    if (hi < 0 && a->empty) {
        snprintf(m->why, m->len, "%.*s repeats without bound a part that can match nothing, "
                 "%.*s, which can cost regcomp exponential time: repeat what cannot, e.g. a* "
                 "for (a*)*, (a|b)* for (a|b?)+", excerpt(g->last_at, end + 1), g->last_at,
                 excerpt(g->last_at, q), g->last_at);
        return -1;
    }
    unsigned long copies = hi < 0 ? lo + 1 : (unsigned long)hi > lo ? (unsigned long)hi : lo;
    unsigned long added = hi < 0 ? 1 : (unsigned long)hi > lo ? (unsigned long)hi - lo : 0;
    if (copies == 0)
        copies = 1;     /* x{0}: regcomp builds x before it drops it */
    a->size = cap(times(a->size, copies) + copies - 1 + added);
    a->optional = cap(times(a->optional, copies) + added);
    a->empty = a->empty || lo == 0;
    return over(m, concat(g->seq, *a)) ? -1 : 0;
}

/* A count in a bound, saturated past the limit. */
static const char *count(const char *p, unsigned long *n, int *found)
{
    *n = 0;
    *found = 0;
    for (; isdigit((unsigned char)*p); p++) {
        *found = 1;
        if (*n <= MK_RE_MAX_REPEAT)
            *n = *n * 10 + (unsigned long)(*p - '0');
    }
    return p;
}

/* {m}, {m,}, {m,n}, {,n} or {,} at p: 0 with the counts and the end, 1 when
 * it is not a bound (regcomp refuses it), -1 when a count is over the limit. */
static int bound(measure *m, const char *p, unsigned long *lo, long *hi, const char **end)
{
    unsigned long n;
    int has_lo, has_hi;
    const char *e = count(p + 1, lo, &has_lo);
    *hi = (long)*lo;
    if (*e == ',') {
        e = count(e + 1, &n, &has_hi);
        *hi = has_hi ? (long)n : -1;
    } else if (!has_lo) {
        return 1;
    }
    if (*e != '}')
        return 1;
    if (*lo > MK_RE_MAX_REPEAT || *hi > MK_RE_MAX_REPEAT) {
        snprintf(m->why, m->len, "the repetition %.*s is over the limit of %d", (int)(e - p + 1),
                 p, MK_RE_MAX_REPEAT);
        return -1;
    }
    *end = e;
    return 0;
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

/* The atom an escape stands for: GNU's word-boundary anchors match nothing
 * (\b and \B are two anchors and a |), \w \W \s \S are bracket expressions,
 * the rest literal characters. A bracket expression may be up to three
 * nodes (one | between its single- and multibyte halves), none optional:
 * the | always reads a character. */
static cost escape_cost(char c)
{
    if (strchr("bB", c))
        return (cost){ 3, 3, 1 };
    if (strchr("<>`'", c))
        return (cost){ 1, 1, 1 };
    if (strchr("wWsS", c))
        return (cost){ 3, 0, 0 };
    return (cost){ 1, 0, 0 };
}

/* One step of the scan at *pp; 0, or -1 with m->why. */
static int step(measure *m, const char **pp)
{
    const char *p = *pp, *end;
    group *g = &m->stack[m->depth];
    unsigned long lo;
    long hi;
    switch (*p) {
    case '(':
        return open_group(m, p);
    case ')':
        if (m->depth == 0)   /* an unmatched ) is an ordinary character */
            return add_atom(m, (cost){ 1, 0, 0 }, p) ? -1 : 0;
        return close_group(m);
    case '*':
        return repeat(m, p, p, 0, -1);
    case '+':
        return repeat(m, p, p, 1, -1);
    case '?':
        return repeat(m, p, p, 0, 1);
    case '{':
        switch (bound(m, p, &lo, &hi, &end)) {
        case -1:
            return -1;
        case 0:
            *pp = end;
            return repeat(m, p, end, lo, hi);
        }
        return add_atom(m, (cost){ 1, 0, 0 }, p) ? -1 : 0;
    case '[':
        end = bracket_end(p);
        if (end)
            *pp = end;
        return add_atom(m, (cost){ 3, 0, 0 }, p) ? -1 : 0;
    case '\\':
        if (p[1] >= '1' && p[1] <= '9') {
            snprintf(m->why, m->len, "back-references (\\%c) are not supported: matching with "
                     "them can take exponential time", p[1]);
            return -1;
        }
        if (p[1])
            (*pp)++;
        return add_atom(m, escape_cost(p[1]), p) ? -1 : 0;
    case '^': case '$':
        return add_atom(m, (cost){ 1, 1, 1 }, p) ? -1 : 0;
    case '|':
        if (g->has_last)
            g->seq = concat(g->seq, g->last);
        g->done = g->alternated ? alternate(g->done, g->seq) : g->seq;
        g->alternated = 1;
        g->seq = NOTHING;
        g->has_last = 0;
        return over(m, g->done) ? -1 : 0;
    default:
        /* A UTF-8 continuation byte is one more node of the character
         * before it, which a quantifier repeats whole. */
        if (((unsigned char)*p & 0xC0) == 0x80 && g->has_last) {
            g->last.size = cap(g->last.size + 1);
            return over(m, concat(g->seq, g->last)) ? -1 : 0;
        }
        return add_atom(m, (cost){ 1, 0, 0 }, p) ? -1 : 0;
    }
}

int mk_regex_measure(const char *pat, char *why, size_t len)
{
    size_t n = strlen(pat);
    if (n > MK_RE_MAX_LEN) {
        snprintf(why, len, "the pattern is %zu bytes, over the limit of %d", n, MK_RE_MAX_LEN);
        return -1;
    }
    measure *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    m->why = why;
    m->len = len;
    m->stack[0] = (group){ NOTHING, 0, NOTHING, NOTHING, 0, pat, pat };
    int rc = 0;
    for (const char *p = pat; *p && rc == 0; p++)
        rc = step(m, &p);
    /* Groups left open (regcomp refuses them) close for the measure. */
    while (rc == 0 && m->depth > 0)
        rc = close_group(m);
    if (rc == 0 && over(m, group_cost(&m->stack[0])))
        rc = -1;
    free(m);
    return rc;
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
