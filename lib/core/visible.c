/* visible.c - NVIDIA_VISIBLE_DEVICES read against a universe into the
 * container's view (visible.h). No allocation can abort: the library uses
 * this inside its host process. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "textesc.h"
#include "visible.h"

#define ENTRY_MAX 128   /* longer entries name nothing: UUIDs are 40 bytes */

/* Shows universe GPU g (next in order when not yet shown); whole: all of
 * its MIG devices too. */
static void show_gpu(mk_visible *v, const mk_universe *u, unsigned g, int whole)
{
    if (v->pos[g] < 0) {
        v->pos[g] = (int)v->n;
        v->gpu[v->n++] = g;
    }
    if (whole)
        memset(v->mig + v->mig_base[g], 1, u->dev[g].nmig);
}

static void show_mig(mk_visible *v, const mk_universe *u, unsigned g, size_t j)
{
    show_gpu(v, u, g, 0);
    v->mig[v->mig_base[g] + j] = 1;
}

/* A whole number with nothing after it, below limit; -1 when not. */
static long read_index(const char *s, const char **end, size_t limit)
{
    if (*s < '0' || *s > '9')
        return -1;
    long n = 0;
    while (*s >= '0' && *s <= '9') {
        n = n * 10 + (*s++ - '0');
        if ((size_t)n >= limit)
            return -1;
    }
    *end = s;
    return n;
}

/* One entry: 1 when it named something. */
static int show_entry(mk_visible *v, const mk_universe *u, const char *e)
{
    const char *end;
    long g = read_index(e, &end, u->ndev);
    if (g >= 0 && !*end) {
        show_gpu(v, u, (unsigned)g, 1);
        return 1;
    }
    if (g >= 0 && *end == ':') {
        long j = read_index(end + 1, &end, u->dev[g].nmig);
        if (j < 0 || *end)
            return 0;
        show_mig(v, u, (unsigned)g, (size_t)j);
        return 1;
    }
    for (unsigned i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        if (strcasecmp(d->uuid, e) == 0) {
            show_gpu(v, u, i, 1);
            return 1;
        }
        for (size_t j = 0; j < d->nmig; j++)
            if (strcasecmp(d->mig[j].uuid, e) == 0) {
                show_mig(v, u, i, j);
                return 1;
            }
    }
    return 0;
}

/* Escaped: the list goes to a terminal or a log (textesc.h). */
static void note_unknown(char *unknown, size_t len, const char *e)
{
    char shown[4 * ENTRY_MAX];
    size_t used = strlen(unknown);
    if (used < len)
        snprintf(unknown + used, len - used, "%s'%s'", used ? ", " : "",
                 mk_text_escape(e, 0, shown, sizeof shown));
}

static int is_word(const char *s, size_t n, const char *word)
{
    return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

/* The entries of spec, trimmed; empty ones (",,") are no entries. */
static void read_entries(mk_visible *v, const mk_universe *u, const char *spec, char *unknown,
                         size_t len)
{
    for (const char *p = spec; *p;) {
        size_t n = strcspn(p, ",");
        const char *s = p, *t = p + n;
        p = *t ? t + 1 : t;
        while (s < t && (*s == ' ' || *s == '\t'))
            s++;
        while (t > s && (t[-1] == ' ' || t[-1] == '\t'))
            t--;
        if (s == t)
            continue;
        char e[ENTRY_MAX];
        snprintf(e, sizeof e, "%.*s", (int)(t - s), s);
        if ((size_t)(t - s) >= sizeof e || !show_entry(v, u, e))
            note_unknown(unknown, len, e);
    }
}

static void show_all(mk_visible *v, const mk_universe *u)
{
    for (unsigned i = 0; i < u->ndev; i++)
        show_gpu(v, u, i, 1);
}

/* spec without the blanks around it: *s, *len. */
static void trim(const char *spec, const char **s, size_t *len)
{
    *s = spec;
    *len = strlen(spec);
    while (**s == ' ' || **s == '\t')
        (*s)++, (*len)--;
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
        (*len)--;
}

int mk_visible_restricted(const char *spec)
{
    const char *s;
    size_t len;
    if (!spec)
        return 0;
    trim(spec, &s, &len);
    return !is_word(s, len, "all");
}

int mk_visible_none(const char *spec)
{
    const char *s;
    size_t len;
    trim(spec, &s, &len);
    return !len || is_word(s, len, "none") || is_word(s, len, "void");
}

int mk_visible_parse(const mk_universe *u, const char *spec, mk_visible *v, char *unknown,
                     size_t len)
{
    memset(v, 0, sizeof *v);
    if (len)
        unknown[0] = 0;
    for (size_t i = 0; i < u->ndev; i++)
        v->nmig_total += u->dev[i].nmig;
    v->gpu = calloc(u->ndev ? u->ndev : 1, sizeof *v->gpu);
    v->pos = calloc(u->ndev ? u->ndev : 1, sizeof *v->pos);
    v->mig_base = calloc(u->ndev ? u->ndev : 1, sizeof *v->mig_base);
    v->mig = calloc(v->nmig_total ? v->nmig_total : 1, 1);
    if (!v->gpu || !v->pos || !v->mig_base || !v->mig) {
        mk_visible_free(v);
        return -1;
    }
    size_t k = 0;
    for (size_t i = 0; i < u->ndev; i++) {
        v->pos[i] = -1;
        v->mig_base[i] = k;
        k += u->dev[i].nmig;
    }
    if (!mk_visible_restricted(spec)) {
        show_all(v, u);
        return 0;
    }
    v->restricted = 1;
    if (!mk_visible_none(spec))
        read_entries(v, u, spec, unknown, len);
    return 0;
}

void mk_visible_free(mk_visible *v)
{
    free(v->gpu);
    free(v->pos);
    free(v->mig_base);
    free(v->mig);
    memset(v, 0, sizeof *v);
}

size_t mk_visible_nmig(const mk_visible *v, const mk_universe *u, unsigned gpu)
{
    size_t n = 0;
    for (size_t j = 0; j < u->dev[gpu].nmig; j++)
        n += mk_visible_mig(v, gpu, j);
    return n;
}
