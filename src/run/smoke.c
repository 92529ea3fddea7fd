/* smoke.c - the default suite of `mokka run` (no --suite), written for the
 * universe the run serves and the plugin's MIG strategy, so that it fits
 * whatever it runs on: the resources NVIDIA's plugin advertises under that
 * strategy (none: every GPU as nvidia.com/gpu; single: the MIG devices as
 * nvidia.com/gpu; mixed: whole GPUs as nvidia.com/gpu and each MIG profile
 * as nvidia.com/mig-PROFILE) are all registered and healthy, an allocation
 * answers, and one XID 79 takes exactly one GPU's devices out.
 *
 * GPUs with health rules (unhealthy_after_seconds, ..._on_temperature,
 * ..._on_memory_exceed) turn unhealthy on their own, so the suite expects
 * health only of the others and injects into one of those. A universe of
 * whole GPUs without health rules gets fixtures/suites/smoke.yaml's cases.
 * A universe the plugin refuses under the strategy (single with MIG devices
 * of two types, say) gets one case that says so and expects no GPUs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
#include "nvmodel/nvmodel.h"

/* One device the plugin lists: its resource, id and GPU. */
typedef struct entry {
    char resource[64 + MK_SHORT_LEN];
    const char *uuid;
    unsigned gpu;
    int whole;      /* the GPU itself, not one of its MIG devices */
    int rules;      /* its GPU has health rules: it may turn unhealthy by itself */
} entry;

/* A resource and how its devices stand. */
typedef struct resource {
    const char *name;
    size_t n, ruled;
} resource;

typedef struct smoke {
    const mk_universe *u;
    entry *e;
    size_t ne;
    resource *r;
    size_t nr;
    int all_whole;  /* every device a whole GPU: counts as ${gpus}, as smoke.yaml has them */
    const char *in; /* what an expectation line is indented by past a resource's "- " */
    FILE *f;
} smoke;

static int has_rules(const mk_device *d)
{
    return d->health.after_seconds >= 0 || d->health.on_memory_exceed >= 0 ||
           d->health.on_temperature >= 0;
}

/* What NVIDIA's plugin lists under the strategy (src/nvmodel/pdevs.c);
 * -1 with why when it refuses to serve the universe so, with why empty
 * when out of memory. */
static int list_devices(smoke *s, const char *strategy, char *why, size_t whylen)
{
    mk_pdev *p;
    size_t n;
    if (mk_pdevs_list(s->u, strategy, &p, &n, why, whylen) != 0)
        return -1;
    s->e = calloc(n ? n : 1, sizeof *s->e);
    s->r = calloc(n ? n : 1, sizeof *s->r);
    if (!s->e || !s->r) {
        free(p);
        why[0] = 0;
        return -1;
    }
    for (size_t i = 0; i < n; i++, s->ne++) {
        s->e[i] = (entry){ "", p[i].id, p[i].gpu, p[i].mig < 0, has_rules(&s->u->dev[p[i].gpu]) };
        snprintf(s->e[i].resource, sizeof s->e[i].resource, "%s", p[i].resource);
    }
    free(p);
    /* the resources: nvidia.com/gpu first, then in the order of their
     * first device */
    s->all_whole = 1;
    for (size_t i = 0; i < s->ne; i++)
        if (strcmp(s->e[i].resource, MK_GPU_RESOURCE) == 0 && s->nr == 0)
            s->r[s->nr++] = (resource){ MK_GPU_RESOURCE, 0, 0 };
    for (size_t i = 0; i < s->ne; i++) {
        s->all_whole &= s->e[i].whole;
        size_t k = 0;
        while (k < s->nr && strcmp(s->r[k].name, s->e[i].resource) != 0)
            k++;
        if (k == s->nr)
            s->r[s->nr++] = (resource){ s->e[i].resource, 0, 0 };
        s->r[k].n++;
        s->r[k].ruled += s->e[i].rules;
    }
    s->in = s->nr > 1 ? "  " : "";
    return 0;
}

/* Counts in terms of ${gpus} where the resource is every GPU, as a
 * hand-written suite would put them. */
static int all_gpus(const smoke *s, const resource *r)
{
    return s->all_whole && r->n == s->u->ndev && r->n > 0;
}

static void count(const smoke *s, const resource *r, const char *key, long long less)
{
    if (all_gpus(s, r))
        fprintf(s->f, "%s      %s: ${gpus}%s\n", s->in, key, less ? "-1" : "");
    else
        fprintf(s->f, "%s      %s: %lld\n", s->in, key, (long long)r->n - less);
}

/* A device id as a YAML double-quoted string: a GPU by its variable. */
static void id(const smoke *s, const entry *e)
{
    if (e->whole) {
        fprintf(s->f, "\"${uuid.%u}\"", e->gpu);
        return;
    }
    fputc('"', s->f);
    for (const char *c = e->uuid; *c; c++)
        fprintf(s->f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    fputc('"', s->f);
}

/* `key: [ids]` of the devices of resource r, healthy ones without rules,
 * on GPU gpu (is_on) or not on it; nothing when there are none. */
static void ids(const smoke *s, const resource *r, const char *key, int is_on, long gpu)
{
    size_t n = 0;
    for (size_t i = 0; i < s->ne; i++) {
        const entry *e = &s->e[i];
        if (strcmp(e->resource, r->name) != 0 || e->rules || ((long)e->gpu == gpu) != is_on)
            continue;
        if (n++)
            fputs(", ", s->f);
        else
            fprintf(s->f, "%s      %s: [", s->in, key);
        id(s, e);
    }
    if (n)
        fputs("]\n", s->f);
}

static void resource_head(const smoke *s, const resource *r)
{
    fprintf(s->f, s->nr > 1 ? "      - resource: %s\n" : "      resource: %s\n", r->name);
}

/* Case 1: every resource with every device, healthy unless ruled. */
static void case_registered(smoke *s)
{
    int ruled = 0;
    for (size_t k = 0; k < s->nr; k++)
        ruled |= s->r[k].ruled > 0;
    fprintf(s->f, "  - name: every %s registered and %s\n    expect:\n",
            s->all_whole ? "GPU" : "GPU and MIG device",
            ruled ? "those without health rules healthy" : "healthy");
    if (s->nr == 0)
        fprintf(s->f, "      resource: " MK_GPU_RESOURCE "\n      capacity: 0\n");
    for (size_t k = 0; k < s->nr; k++) {
        const resource *r = &s->r[k];
        resource_head(s, r);
        count(s, r, "capacity", 0);
        if (r->ruled) {
            count(s, r, "devices", 0);
            ids(s, r, "healthy", 0, -1);
            continue;
        }
        count(s, r, "allocatable", 0);
        count(s, r, "devices", 0);
        fprintf(s->f, "%s      unhealthy-count: 0\n", s->in);
    }
    fputs("    within: 30s\n", s->f);
}

/* The first device without health rules, whole GPUs first: whose
 * resource case 2 allocates from and whose GPU case 3 injects into. */
static const entry *target(const smoke *s)
{
    for (int whole = 1; whole >= 0; whole--)
        for (size_t i = 0; i < s->ne; i++)
            if (!s->e[i].rules && s->e[i].whole == whole)
                return &s->e[i];
    return NULL;
}

static void case_allocate(smoke *s, const entry *t)
{
    int gpu = strcmp(t->resource, MK_GPU_RESOURCE) == 0;
    fprintf(s->f, "\n  - name: allocating one %s%s sets NVIDIA_VISIBLE_DEVICES to it\n    expect:\n",
            gpu ? "GPU" : "device of ", gpu ? "" : t->resource);
    if (!gpu)
        fprintf(s->f, "      resource: %s\n", t->resource);
    fputs("      allocate:\n        count: 1\n        env:\n"
          "          NVIDIA_VISIBLE_DEVICES: ${allocated}\n", s->f);
}

/* Case 3: XID 79 on the target's GPU. A whole GPU goes out exactly; of a
 * MIG GPU's devices NVIDIA's plugin marks at least one per resource (v0.17
 * tracks one per parent GPU), so that is what is expected of them. */
static void case_xid(smoke *s, const entry *t)
{
    fprintf(s->f, "\n  - name: XID 79 on GPU %u takes %s\n    inject: {gpu: %u, xid: 79}\n    expect:\n",
            t->gpu, t->whole ? "exactly that GPU out" : "out MIG devices of that GPU only", t->gpu);
    for (size_t k = 0; k < s->nr; k++) {
        const resource *r = &s->r[k];
        size_t on = 0;
        for (size_t i = 0; i < s->ne; i++)
            on += strcmp(s->e[i].resource, r->name) == 0 && s->e[i].gpu == t->gpu;
        if (!on && r->ruled == r->n)
            continue;
        if (s->nr > 1 || strcmp(r->name, MK_GPU_RESOURCE) != 0)
            resource_head(s, r);
        if (on && t->whole) {
            if (!r->ruled)
                count(s, r, "allocatable", 1);
            ids(s, r, "unhealthy", 1, t->gpu);
            if (!r->ruled)
                fprintf(s->f, "%s      unhealthy-count: 1\n", s->in);
        } else if (on) {
            fprintf(s->f, "%s      unhealthy-count: \">=1\"\n", s->in);
        } else if (!r->ruled) {
            count(s, r, "allocatable", 0);
            fprintf(s->f, "%s      unhealthy-count: 0\n", s->in);
        }
        if (r->ruled || (on && !t->whole))
            ids(s, r, "healthy", 0, t->gpu);
    }
    fputs("    within: 30s\n", s->f);
}

/* A universe NVIDIA's plugin refuses to serve under the strategy: it exits
 * at start, so the node has none of its resources; the case's name says
 * why, in the plugin's words. */
static void case_refused(smoke *s, const char *strategy, const char *why)
{
    fprintf(s->f, "  - name: \"NVIDIA's plugin serves nothing under MIG strategy %s here: ",
            strategy ? strategy : "none");
    for (const char *c = why; *c; c++)
        fprintf(s->f, *c == '"' || *c == '\\' ? "\\%c" : "%c", *c);
    fputs("\"\n    expect:\n      resource: " MK_GPU_RESOURCE "\n      capacity: 0\n", s->f);
}

char *mk_smoke_suite(const mk_universe *u, const char *mig_strategy)
{
    smoke s = { .u = u };
    char *text = NULL;
    size_t len = 0;
    char why[256] = "";
    int refused = list_devices(&s, mig_strategy, why, sizeof why) != 0;
    if ((refused && !why[0]) || !(s.f = open_memstream(&text, &len))) {
        free(s.e);
        free(s.r);
        return NULL;
    }
    fputs("suite: smoke\ncases:\n", s.f);
    if (refused) {
        case_refused(&s, mig_strategy, why);
    } else {
        case_registered(&s);
        const entry *t = target(&s);
        if (t) {
            case_allocate(&s, t);
            case_xid(&s, t);
        }
    }
    int bad = ferror(s.f);
    bad |= fclose(s.f) != 0;
    free(s.e);
    free(s.r);
    if (bad) {
        free(text);
        return NULL;
    }
    return text;
}
