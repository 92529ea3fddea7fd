/* lint_strict.c - strict-mode checks on a compiled universe (see
 * lint_strict.h). Each check looks at one device at a time; findings at the
 * same position with the same text are merged ("GPUs 0-7: ..."), since one
 * line of `defaults:` usually concerns every GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config.h"
#include "units.h"

typedef struct finding {
    const mk_ynode *at;
    char text[400];
    unsigned *gpus;
    size_t n;
} finding;

typedef struct findings {
    finding *v;
    size_t n, cap;
} findings;

static void add(findings *f, const mk_ynode *at, unsigned gpu, const char *text)
{
    finding *x = NULL;
    for (size_t i = 0; i < f->n && !x; i++)
        if (f->v[i].at == at && strcmp(f->v[i].text, text) == 0)
            x = &f->v[i];
    if (!x) {
        if (f->n == f->cap) {
            size_t cap = f->cap ? f->cap * 2 : 8;
            finding *nv = realloc(f->v, cap * sizeof *nv);
            if (!nv)
                return;
            f->v = nv;
            f->cap = cap;
        }
        x = &f->v[f->n++];
        memset(x, 0, sizeof *x);
        x->at = at;
        snprintf(x->text, sizeof x->text, "%s", text);
    }
    unsigned *g = realloc(x->gpus, (x->n + 1) * sizeof *g);
    if (!g)
        return;
    x->gpus = g;
    x->gpus[x->n++] = gpu;
}

/* "GPU 3", "GPUs 0-7", "GPUs 0, 2, 4-6" (indexes arrive in order). */
static void gpu_list(const finding *x, char *buf, size_t len)
{
    size_t o = (size_t)snprintf(buf, len, "GPU%s ", x->n > 1 ? "s" : "");
    for (size_t i = 0; i < x->n && o < len; ) {
        size_t j = i;
        while (j + 1 < x->n && x->gpus[j + 1] == x->gpus[j] + 1)
            j++;
        if (j >= i + 2) /* three or more in a row */
            o += (size_t)snprintf(buf + o, len - o, "%s%u-%u", i ? ", " : "", x->gpus[i], x->gpus[j]);
        else if (j == i + 1)
            o += (size_t)snprintf(buf + o, len - o, "%s%u, %u", i ? ", " : "", x->gpus[i], x->gpus[j]);
        else
            o += (size_t)snprintf(buf + o, len - o, "%s%u", i ? ", " : "", x->gpus[i]);
        i = j + 1;
    }
}

static void flush(findings *f, mk_diags *d)
{
    char gpus[512];
    for (size_t i = 0; i < f->n; i++) {
        gpu_list(&f->v[i], gpus, sizeof gpus);
        mk_ywarn(d, f->v[i].at, "%s: %s", gpus, f->v[i].text);
        free(f->v[i].gpus);
    }
    free(f->v);
}

/* --- where a device's value was written ------------------------------------------------ */

/* The `devices:` entry of GPU i (explicit `index:`, else its position). */
static const mk_ynode *device_entry(const mk_ydoc *doc, unsigned i)
{
    const mk_ynode *list = mk_yget(doc->root, "devices");
    if (!list || list->kind != MK_Y_SEQ)
        return NULL;
    for (size_t k = 0; k < list->n; k++) {
        const mk_ynode *e = list->vals[k], *idx = mk_yget(e, "index");
        long long v = idx && idx->kind == MK_Y_SCALAR ? strtoll(idx->str, NULL, 0) : (long long)k;
        if (e->kind == MK_Y_MAP && v == (long long)i)
            return e;
    }
    return NULL;
}

/* A dotted key path ("utilization.gpu") inside a map. */
static const mk_ynode *at_path(const mk_ynode *map, const char *path)
{
    char key[64];
    const char *dot;
    while (map && (dot = strchr(path, '.'))) {
        snprintf(key, sizeof key, "%.*s", (int)(dot - path), path);
        map = mk_yget(map, key);
        path = dot + 1;
    }
    return map ? mk_yget(map, path) : NULL;
}

/* The value node that set `path` for GPU i (device entry first, then
 * defaults; `alt` is a second spelling such as health.xid), or the best
 * place to point at when the value came from a profile. */
static const mk_ynode *origin(const mk_ydoc *doc, unsigned i, const char *path, const char *alt)
{
    const mk_ynode *layers[2] = { device_entry(doc, i), mk_yget(doc->root, "defaults") };
    const mk_ynode *n;
    for (int l = 0; l < 2; l++) {
        if ((n = at_path(layers[l], path)) || (alt && (n = at_path(layers[l], alt))))
            return n;
    }
    for (int l = 0; l < 2; l++)
        if ((n = mk_yget(layers[l], "profile")))
            return n;
    if ((n = mk_yget(doc->root, "profile")))
        return n;
    return layers[0] ? layers[0] : doc->root;
}

/* --- checks ----------------------------------------------------------------------------- */

/* The largest value a live spec hands out; 0 when the sensor is absent. */
static int max_of(const mk_lv *lv, int64_t *out)
{
    if (lv->kind == MK_LV_NA)
        return 0;
    *out = lv->hi;
    return 1;
}

static void check_temperatures(const mk_universe *u, const mk_ydoc *doc, findings *f)
{
    char text[400];
    int64_t t;
    for (unsigned i = 0; i < u->ndev; i++) {
        const mk_device *dv = &u->dev[i];
        if (max_of(&dv->lv[MK_M_TEMP], &t) && t > dv->temp_shutdown) {
            snprintf(text, sizeof text, "temperature can reach %lld C, above the shutdown "
                     "threshold of %d C (thresholds.shutdown): a real GPU would have shut down",
                     (long long)t, dv->temp_shutdown);
            add(f, origin(doc, i, "temperature", NULL), i, text);
        }
        if (max_of(&dv->lv[MK_M_TEMP_MEM], &t) && t > dv->temp_mem_max) {
            snprintf(text, sizeof text, "memoryTemperature can reach %lld C, above the memory's "
                     "maximum of %d C (thresholds.memoryMax)", (long long)t, dv->temp_mem_max);
            add(f, origin(doc, i, "memoryTemperature", NULL), i, text);
        }
    }
}

static void check_rules(const mk_universe *u, const mk_ydoc *doc, findings *f)
{
    char text[400], a[48], b[48];
    int64_t t;
    for (unsigned i = 0; i < u->ndev; i++) {
        const mk_device *dv = &u->dev[i];
        const mk_health_rules *h = &dv->health;
        if (h->on_temperature >= 0 &&
            (!max_of(&dv->lv[MK_M_TEMP], &t) || t <= h->on_temperature)) {
            if (dv->lv[MK_M_TEMP].kind == MK_LV_NA)
                snprintf(text, sizeof text, "unhealthy_on_temperature can never fire: the GPU has "
                         "no temperature sensor (temperature: N/A)");
            else
                snprintf(text, sizeof text, "unhealthy_on_temperature: %d C is never exceeded: "
                         "the temperature stays at or below %lld C (only `mokka inject --set "
                         "temperature=...` can fire this rule)", h->on_temperature, (long long)t);
            add(f, origin(doc, i, "unhealthy_on_temperature", "health.unhealthy_on_temperature"),
                i, text);
        }
        uint64_t usable = dv->mem_total - dv->mem_reserved;
        if (h->on_memory_exceed < 0)
            continue;
        if (!max_of(&dv->lv[MK_M_MEM_USED], &t)) {
            snprintf(text, sizeof text, "unhealthy_on_memory_exceed can never fire: memoryUsed "
                     "is N/A");
        } else if ((uint64_t)t * 100 <= usable * (uint64_t)h->on_memory_exceed) {
            mk_format_quantity(MK_U_MEMORY, (int64_t)(usable * (uint64_t)h->on_memory_exceed / 100),
                               a, sizeof a);
            mk_format_quantity(MK_U_MEMORY, t, b, sizeof b);
            snprintf(text, sizeof text, "unhealthy_on_memory_exceed: %d%% (%s) is never exceeded: "
                     "memoryUsed stays at or below %s (only `mokka inject --set memoryUsed=...` "
                     "can fire this rule)", h->on_memory_exceed, a, b);
        } else {
            continue;
        }
        add(f, origin(doc, i, "unhealthy_on_memory_exceed", "health.unhealthy_on_memory_exceed"),
            i, text);
    }
}

static void check_power(const mk_universe *u, const mk_ydoc *doc, findings *f)
{
    char text[400], a[48], b[48];
    int64_t p;
    for (unsigned i = 0; i < u->ndev; i++) {
        const mk_device *dv = &u->dev[i];
        if (!max_of(&dv->lv[MK_M_POWER], &p) || p <= (int64_t)dv->power_limit)
            continue;
        mk_format_quantity(MK_U_POWER, p, a, sizeof a);
        mk_format_quantity(MK_U_POWER, dv->power_limit, b, sizeof b);
        snprintf(text, sizeof text, "power can reach %s, above the enforced power limit of %s "
                 "(powerLimits): a real board never draws more than its limit", a, b);
        add(f, origin(doc, i, "power", NULL), i, text);
    }
}

/* Without a seed, every process draws other values: one warning, at the
 * first range or drifting value. */
static void check_seed(const mk_universe *u, const mk_ydoc *doc, mk_diags *d)
{
    if (u->has_seed)
        return;
    for (unsigned i = 0; i < u->ndev; i++)
        for (int m = 0; m < MK_M_COUNT; m++) {
            mk_lv_kind k = u->dev[i].lv[m].kind;
            if (k != MK_LV_RANGE && k != MK_LV_DRIFT)
                continue;
            mk_ywarn(d, origin(doc, i, mk_metrics[m].name, NULL),
                     "%s %s, but the config has no seed: values differ from run to run; add a "
                     "top-level `seed: N` to make runs reproducible", mk_metrics[m].name,
                     k == MK_LV_RANGE ? "is a range" : "drifts");
            return;
        }
}

void mk_lint_strict(const mk_universe *u, const mk_ydoc *doc, mk_diags *d)
{
    findings f = { 0 };
    if (!doc->root)
        return;
    check_temperatures(u, doc, &f);
    check_rules(u, doc, &f);
    check_power(u, doc, &f);
    flush(&f, d);
    check_seed(u, doc, d);
}
