/* diag.c - collecting diagnostics (each once, at most MK_DIAGS_PER_FILE a
 * file) and formatting them.
 *
 * Both limits are what keeps a hostile config cheap: `defaults:` are applied
 * to every GPU, so one mistake there would otherwise be reported once per
 * GPU, and a file of 60,000 unknown keys would make 60,000 lines. A hash set
 * finds repeats in constant time, whatever the number of diagnostics. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"

#define NOT_KEPT ((size_t)-1)
#define SUMMARY_LEN 160

/* A diagnostic seen: its hash, and its index in v, or NOT_KEPT for one only
 * counted (then the hash is all that is left of it). */
struct mk_diag_seen {
    uint64_t hash;   /* 0: a free slot */
    size_t idx;
};

/* One file's diagnostics, and the final line that counts those not kept. */
struct mk_diag_file {
    char *name;                   /* NULL: problems without a file */
    size_t kept, dropped_errors, dropped_warnings;
    size_t summary;               /* where that line was last seen in v */
    char *summary_msg;            /* its text (owned by v); NULL until needed */
};

void mk_diags_init(mk_diags *d)
{
    memset(d, 0, sizeof *d);
}

void mk_diags_free(mk_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].file);
        free(d->v[i].msg);
    }
    free(d->v);
    for (size_t i = 0; i < d->nfiles; i++)
        free(d->files[i].name);
    free(d->files);
    free(d->seen);
    int strict = d->strict;
    mk_diags_init(d);
    d->strict = strict;
}

static int same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t diag_hash(mk_diag_level lvl, const char *file, int line, int col,
                          const char *msg)
{
    unsigned char l = (unsigned char)lvl;
    int pos[2] = { line, col };
    uint64_t h = fnv(0xcbf29ce484222325ull, &l, 1);
    h = fnv(h, file ? file : "", file ? strlen(file) + 1 : 0); /* NULL differs from "" */
    h = fnv(h, pos, sizeof pos);
    h = fnv(h, msg, strlen(msg));
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h ? h : 1;
}

/* Whether an equal diagnostic was added before. A kept one is compared in
 * full; if v was reordered since (suite_load sorts its part), the index no
 * longer matches and the repeat is kept once more, which is harmless. */
static int seen_before(const mk_diags *d, uint64_t h, mk_diag_level lvl, const char *file,
                       int line, int col, const char *msg)
{
    if (!d->seencap)
        return 0;
    size_t mask = d->seencap - 1;
    for (size_t i = h & mask; d->seen[i].hash; i = (i + 1) & mask) {
        const struct mk_diag_seen *s = &d->seen[i];
        if (s->hash != h)
            continue;
        if (s->idx == NOT_KEPT)
            return 1;
        const mk_diag *g = s->idx < d->n ? &d->v[s->idx] : NULL;
        if (g && g->level == lvl && g->line == line && g->col == col &&
            same_text(g->file, file) && same_text(g->msg, msg))
            return 1;
    }
    return 0;
}

/* Out of memory here only costs the de-duplication of this one. */
static void remember(mk_diags *d, uint64_t h, size_t idx)
{
    if ((d->nseen + 1) * 2 > d->seencap) {
        size_t cap = d->seencap ? d->seencap * 2 : 64;
        struct mk_diag_seen *t = calloc(cap, sizeof *t);
        if (!t)
            return;
        for (size_t i = 0; i < d->seencap; i++) {
            if (!d->seen[i].hash)
                continue;
            size_t j = d->seen[i].hash & (cap - 1);
            while (t[j].hash)
                j = (j + 1) & (cap - 1);
            t[j] = d->seen[i];
        }
        free(d->seen);
        d->seen = t;
        d->seencap = cap;
    }
    size_t j = h & (d->seencap - 1);
    while (d->seen[j].hash)
        j = (j + 1) & (d->seencap - 1);
    d->seen[j] = (struct mk_diag_seen){ h, idx };
    d->nseen++;
}

static struct mk_diag_file *find_file(const mk_diags *d, const char *file)
{
    for (size_t i = 0; i < d->nfiles; i++)
        if (same_text(d->files[i].name, file))
            return &d->files[i];
    return NULL;
}

/* NULL when out of memory: the diagnostic is then kept without a limit. */
static struct mk_diag_file *file_record(mk_diags *d, const char *file)
{
    struct mk_diag_file *f = find_file(d, file);
    if (f)
        return f;
    char *name = file ? strdup(file) : NULL;
    struct mk_diag_file *v = (!file || name) ? realloc(d->files, (d->nfiles + 1) * sizeof *v) : NULL;
    if (!v) {
        free(name);
        return NULL;
    }
    d->files = v;
    f = &v[d->nfiles++];
    *f = (struct mk_diag_file){ name, 0, 0, 0, 0, NULL };
    return f;
}

int mk_diags_full(const mk_diags *d, const char *file)
{
    const struct mk_diag_file *f = find_file(d, file);
    return f && f->kept >= MK_DIAGS_PER_FILE;
}

/* Appends a diagnostic that takes msg; returns its index, or NOT_KEPT when
 * out of memory (msg is then freed). */
static size_t push(mk_diags *d, mk_diag_level lvl, const char *file, int line, int col,
                   char *msg)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        mk_diag *v = realloc(d->v, cap * sizeof *v);
        if (!v) {
            free(msg);
            return NOT_KEPT;
        }
        d->v = v;
        d->cap = cap;
    }
    mk_diag *g = &d->v[d->n];
    g->level = lvl;
    g->file = file ? strdup(file) : NULL;
    g->line = line;
    g->col = col;
    g->msg = msg;
    return d->n++;
}

static const char *plural(size_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* Counts a diagnostic not kept, in the file's final line (made at the first
 * one, placed without a line so that listings sort it last). */
static void count_dropped(mk_diags *d, struct mk_diag_file *f, mk_diag_level lvl)
{
    if (lvl == MK_DIAG_ERROR)
        f->dropped_errors++;
    else
        f->dropped_warnings++;
    if (!f->summary_msg) {
        char *m = calloc(1, SUMMARY_LEN);
        size_t at = m ? push(d, lvl, f->name, 0, 0, m) : NOT_KEPT;
        if (at == NOT_KEPT)
            return;
        f->summary = at;
        f->summary_msg = m;
    }
    if (f->summary >= d->n || d->v[f->summary].msg != f->summary_msg) {
        size_t i = 0;
        while (i < d->n && d->v[i].msg != f->summary_msg)
            i++;
        if (i == d->n)
            return;
        f->summary = i;
    }
    mk_diag *g = &d->v[f->summary];
    size_t e = f->dropped_errors, w = f->dropped_warnings;
    char what[96];
    if (e && w)
        snprintf(what, sizeof what, "%zu more %s and %zu more %s", e, plural(e, "error", "errors"),
                 w, plural(w, "warning", "warnings"));
    else
        snprintf(what, sizeof what, "%zu more %s", e + w,
                 e ? plural(e, "error", "errors") : plural(w, "warning", "warnings"));
    snprintf(g->msg, SUMMARY_LEN, "%s in this file %s not shown (only the first %d problems are)",
             what, e + w == 1 ? "is" : "are", MK_DIAGS_PER_FILE);
    if (e)
        g->level = MK_DIAG_ERROR;
}

void mk_diag_add(mk_diags *d, mk_diag_level lvl, const char *file, int line,
                 int col, const char *fmt, ...)
{
    if (lvl == MK_DIAG_WARNING && !d->strict)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    uint64_t h = msg ? diag_hash(lvl, file, line, col, msg) : 0;
    if (msg && seen_before(d, h, lvl, file, line, col, msg)) {
        free(msg);
        return;
    }
    /* Counted whether kept or not, so that the load fails as it should. */
    if (lvl == MK_DIAG_ERROR)
        d->errors++;
    else if (lvl == MK_DIAG_WARNING)
        d->warnings++;
    struct mk_diag_file *f = file_record(d, file);
    if (f && f->kept >= MK_DIAGS_PER_FILE) {
        free(msg);
        if (lvl == MK_DIAG_NOTE)
            return; /* a note past the limit is not a problem to count */
        if (h)
            remember(d, h, NOT_KEPT);
        count_dropped(d, f, lvl);
        return;
    }
    /* Out of memory keeps no text (msg NULL), but the count above stands. */
    size_t at = push(d, lvl, file, line, col, msg);
    if (at == NOT_KEPT)
        return;
    if (f)
        f->kept++;
    if (h)
        remember(d, h, at);
}

void mk_diag_format(const mk_diag *g, char *buf, size_t len)
{
    const char *lvl = g->level == MK_DIAG_ERROR ? "error"
                      : g->level == MK_DIAG_NOTE ? "note" : "warning";
    const char *msg = g->msg ? g->msg : "(out of memory)";
    if (g->file && g->line > 0)
        snprintf(buf, len, "%s:%d:%d: %s: %s", g->file, g->line, g->col, lvl, msg);
    else if (g->file)
        snprintf(buf, len, "%s: %s: %s", g->file, lvl, msg);
    else
        snprintf(buf, len, "%s: %s", lvl, msg);
}

const mk_diag *mk_diags_first_error(const mk_diags *d)
{
    for (size_t i = 0; i < d->n; i++)
        if (d->v[i].level == MK_DIAG_ERROR)
            return &d->v[i];
    return NULL;
}
