/* fleet_plan.c - what the fleet is before it meets the API server: the
 * nodes' names (PREFIX0000..., or PREFIX<pool>-0000... per pool), each
 * node's universe (a file of its own in --node-config, else its pool's
 * config, else the fleet's; `uuid: auto` follows the node's name, as on a
 * real node), the devices NVIDIA's plugin would list on it, and the labels
 * it carries. Every config file is read once; each node's universe is
 * loaded from that text with the node's name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config/config.h"
#include "util/util.h"
#include "fleet_int.h"

/* A config file's text, read once for every node on it. */
typedef struct text {
    const char *path;           /* NULL: the built-in universe */
    char *data;
    size_t len;
} text;

typedef struct plan {
    text *t;
    size_t nt;
    json_t *labels;             /* --labels, read once */
} plan;

static int load_text(plan *p, const char *path, const text **out, char *err, size_t errlen)
{
    for (size_t i = 0; i < p->nt; i++)
        if ((!path && !p->t[i].path) || (path && p->t[i].path && !strcmp(path, p->t[i].path)))
            return *out = &p->t[i], 0;
    text *grown = realloc(p->t, (p->nt + 1) * sizeof *p->t);
    if (!grown)
        return snprintf(err, errlen, "out of memory"), -1;
    p->t = grown;
    text *t = &p->t[p->nt];
    *t = (text){ path, NULL, 0 };
    if (path) {
        mk_diags d;
        mk_diags_init(&d);
        t->data = mk_read_input(path, &t->len, &d);
        if (!t->data) {
            const mk_diag *g = mk_diags_first_error(&d);
            if (g)
                mk_diag_format(g, err, errlen);
            else
                snprintf(err, errlen, "%s: cannot be read", path);
            mk_diags_free(&d);
            return -1;
        }
        mk_diags_free(&d);
    }
    p->nt++;
    *out = t;
    return 0;
}

static mk_universe *load_universe(plan *p, const char *path, const char *node, char *err,
                                  size_t errlen)
{
    const text *t;
    if (load_text(p, path, &t, err, errlen))
        return NULL;
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = t->path ? mk_universe_load_mem(t->path, t->data, t->len, node, &d)
                             : mk_universe_load(NULL, node, &d);
    if (!u) {
        const mk_diag *g = mk_diags_first_error(&d);
        char where[2048] = "";
        if (g)
            mk_diag_format(g, where, sizeof where);
        snprintf(err, errlen, "%s", where[0] ? where : "the universe does not load");
    }
    mk_diags_free(&d);
    return u;
}

static void plan_free(plan *p)
{
    json_decref(p->labels);
    for (size_t i = 0; i < p->nt; i++)
        free(p->t[i].data);
    free(p->t);
}

/* --labels "k=v,k2=v2", read once by the label-selector parser, which
 * checks keys and values as the API server would: only equalities. */
static json_t *extra_labels(const char *s, char *err, size_t errlen)
{
    mk_ksel sel = { 0 };
    char why[512];
    json_t *out = json_object();
    int rc = mk_ksel_parse(s ? s : "", &sel, why, sizeof why);
    if (rc == MK_KSEL_NOMEM || !out)
        snprintf(err, errlen, "out of memory");
    else if (rc)
        snprintf(err, errlen, "--labels: %s", why);
    for (size_t i = 0; rc == 0 && i < sel.n; i++) {
        if (sel.req[i].op != MK_KSEL_EQ) {
            snprintf(err, errlen, "--labels: '%s' is not KEY=VALUE", sel.req[i].key);
            rc = -1;
        } else {
            json_object_set_new(out, sel.req[i].key, json_string(sel.req[i].values[0]));
        }
    }
    mk_ksel_free(&sel);
    if (rc) {
        json_decref(out);
        return NULL;
    }
    return out;
}

/* The labels a kubelet, GFD (with NFD's gpu.present) and the fleet put on
 * node n, and `extra` (--labels). */
static int node_labels(mk_fleet *f, fnode *n, const json_t *extra, char *err, size_t errlen)
{
    json_t *l = n->labels = json_object();
    if (!l)
        return snprintf(err, errlen, "out of memory"), -1;
    if (f->o.gfd) {
        json_t *gfd = mk_gfd_labels(n->u, f->o.strategy, err, errlen);
        if (!gfd)
            return -1;
        json_object_update(l, gfd);
        json_decref(gfd);
        json_object_set_new(l, "nvidia.com/gpu.present", json_string("true"));
    }
    json_object_set_new(l, "kubernetes.io/hostname", json_string(n->name));
    json_object_set_new(l, "kubernetes.io/os", json_string("linux"));
    json_object_set_new(l, "kubernetes.io/arch", json_string("amd64"));
    json_object_set_new(l, "beta.kubernetes.io/os", json_string("linux"));
    json_object_set_new(l, "beta.kubernetes.io/arch", json_string("amd64"));
    json_object_set_new(l, FLEET_LABEL, json_string(f->name));
    if (n->pool)
        json_object_set_new(l, POOL_LABEL, json_string(n->pool));
    json_object_update(l, (json_t *)extra);
    return 0;
}

/* Node i's universe file: its own in --node-config, else its pool's or
 * the fleet's. */
static const char *config_of(mk_fleet *f, const char *name, const char *pool_config, char *buf,
                             size_t len)
{
    if (f->o.node_config) {
        snprintf(buf, len, "%s/%s.yaml", f->o.node_config, name);
        if (access(buf, F_OK) == 0)
            return buf;
    }
    return pool_config ? pool_config : f->o.config;
}

static int plan_node(mk_fleet *f, plan *p, size_t i, const char *pool, const char *config,
                     unsigned index, unsigned width, int *code, char *err, size_t errlen)
{
    fnode *n = &f->node[i];
    char name[512], file[4400], why[2048];
    if (pool)
        snprintf(name, sizeof name, "%s%s-%0*u", f->prefix, pool, (int)width, index);
    else
        snprintf(name, sizeof name, "%s%0*u", f->prefix, (int)width, index);
    *code = MK_FLEET_USAGE;
    if (mk_kname_check("node name", "Node", name, why, sizeof why))
        return snprintf(err, errlen, "%s (from --prefix%s)", why, pool ? " and --pool" : ""), -1;
    n->name = strdup(name);
    n->pool = pool;
    const char *path = config_of(f, name, config, file, sizeof file);
    n->config = path ? strdup(path) : NULL;
    if (!n->name || (path && !n->config))
        return snprintf(err, errlen, "out of memory"), -1;
    if (!(n->u = load_universe(p, n->config, name, why, sizeof why)))
        return snprintf(err, errlen, "node %s: %s", name, why), -1;
    if (mk_pdevs_list(n->u, f->o.strategy, &n->dev, &n->ndev, why, sizeof why))
        return snprintf(err, errlen, "node %s (%s): does not fit the device plugin: %s", name,
                        n->config ? n->config : "the built-in universe", why), -1;
    n->healthy = malloc(n->ndev + 1);
    n->user = malloc((n->ndev + 1) * sizeof *n->user);
    if (!n->healthy || !n->user)
        return snprintf(err, errlen, "out of memory"), -1;
    memset(n->healthy, 1, n->ndev + 1);
    for (size_t d = 0; d <= n->ndev; d++)
        n->user[d] = -1;
    snprintf(n->ip, sizeof n->ip, "10.%u.%u.%u", 200 + (unsigned)(i >> 16), (unsigned)(i >> 8) & 255,
             (unsigned)i & 255);
    if (node_labels(f, n, p->labels, why, sizeof why))
        return snprintf(err, errlen, "node %s: %s", name, why), -1;
    if (json_object_get(f->by_name, name) ||
        json_object_set_new(f->by_name, name, json_integer((json_int_t)i)))
        return snprintf(err, errlen, "node %s: named twice (pools '%s')", name, pool ? pool : ""), -1;
    *code = 0;
    return 0;
}

static unsigned digits(unsigned n)
{
    unsigned w = 1;
    while (n >= 10)
        n /= 10, w++;
    return w < 4 ? 4 : w;
}

int fleet_plan(mk_fleet *f, int *code, char *err, size_t errlen)
{
    plan p = { 0 };
    size_t total = 0;
    if (f->o.npools)
        for (size_t k = 0; k < f->o.npools; k++)
            total += f->o.pools[k].count;
    else
        total = f->o.nodes;
    *code = MK_FLEET_USAGE;
    if (total == 0)
        return snprintf(err, errlen, "no nodes: give --nodes N or --pool NAME=COUNT[:CONFIG]"), -1;
    if (!(p.labels = extra_labels(f->o.labels, err, errlen)))
        return -1;
    if (!(f->node = calloc(total, sizeof *f->node)) || !(f->by_name = json_object())) {
        plan_free(&p);
        return snprintf(err, errlen, "out of memory"), -1;
    }
    int rc = 0;
    size_t i = 0;
    /* nnodes counts the node being planned: what it holds is freed on failure */
    if (!f->o.npools)
        for (unsigned k = 0; rc == 0 && k < f->o.nodes; k++, i++) {
            f->nnodes = i + 1;
            rc = plan_node(f, &p, i, NULL, NULL, k, digits(f->o.nodes - 1), code, err, errlen);
        }
    for (size_t k = 0; rc == 0 && k < f->o.npools; k++) {
        const mk_fleet_pool *pl = &f->o.pools[k];
        for (unsigned j = 0; rc == 0 && j < pl->count; j++, i++) {
            f->nnodes = i + 1;
            rc = plan_node(f, &p, i, pl->name, pl->config, j, digits(pl->count - 1), code, err,
                           errlen);
        }
    }
    plan_free(&p);
    return rc;
}

void fleet_plan_free(mk_fleet *f)
{
    for (size_t i = 0; i < f->nnodes; i++) {
        fnode *n = &f->node[i];
        free(n->name);
        free((char *)n->config);
        if (n->u)
            mk_universe_free(n->u);
        free(n->dev);
        free(n->healthy);
        free(n->user);
        json_decref(n->labels);
    }
    free(f->node);
    json_decref(f->by_name);
}

void fleet_resources(const fnode *n, int healthy_only, json_t *obj)
{
    for (size_t d = 0; d < n->ndev; d++) {
        const char *r = n->dev[d].resource;
        if (json_object_get(obj, r))
            continue;               /* counted at its first device */
        size_t count = 0;
        for (size_t e = d; e < n->ndev; e++)
            count += !strcmp(n->dev[e].resource, r) && (!healthy_only || n->healthy[e]);
        char num[32];
        snprintf(num, sizeof num, "%zu", count);
        json_object_set_new(obj, r, json_string(num));
    }
}
