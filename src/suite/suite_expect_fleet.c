/* suite_expect_fleet.c - `fleet:`, expectations on all the selected nodes at
 * once, from the API server's Nodes and Pods (suite_fleet.c adds them up):
 * how many nodes, Ready, advertising the resource; its units allocatable,
 * used by the pods bound there, free; fragmentation (nodes partly used,
 * units stranded for a request of k, the largest request that fits); pods
 * by phase, per node, and those waiting to be scheduled. Each number is a
 * count or a comparison as everywhere in suites. A failure names the
 * numbers and the nodes (or pods) that make them worst. */
#include <stdlib.h>
#include <string.h>
#include "suite_fleet.h"
#include "suite_int.h"
#include "util/util.h"

#define WORST_SHOWN 5   /* nodes or pods listed under a failure */

typedef enum {
    F_NODES, F_READY, F_ADVERTISING, F_ALLOCATABLE, F_USED, F_FREE, F_PARTLY_USED,
    F_STRANDED, F_LARGEST_FIT, F_PODS, F_PODS_MIN, F_PODS_MAX, F_UNSCHEDULED
} fmetric;

typedef struct fcheck {
    fmetric m;
    long long arg;           /* F_PODS: the phase (-1: all); F_STRANDED: the request */
    mk_cmp cmp;
} fcheck;

typedef struct fleet_x {
    char *selector;          /* narrows the nodes; NULL: all the environment's */
    mk_ksel sel;
    char *ns;                /* unscheduled: namespace, or NULL */
    char *pod_selector;      /* unscheduled: selector, or NULL */
    mk_ksel podsel;
    fcheck *v;
    size_t n;
} fleet_x;

static void free_fleet(void *arg)
{
    fleet_x *fx = arg;
    for (size_t i = 0; i < fx->n; i++)
        mk_cmp_free(&fx->v[i].cmp);
    free(fx->v);
    free(fx->selector);
    free(fx->ns);
    free(fx->pod_selector);
    mk_ksel_free(&fx->sel);
    mk_ksel_free(&fx->podsel);
    free(fx);
}

/* --- parsing ------------------------------------------------------------------- */

static int add(fleet_x *fx, fmetric m, long long arg, const mk_ynode *n, const char *what,
               mk_diags *d)
{
    fx->v = mk_xrealloc(fx->v, (fx->n + 1) * sizeof *fx->v);
    fcheck *c = &fx->v[fx->n];
    c->m = m;
    c->arg = arg;
    if (mk_cmp_parse(n, what, &c->cmp, d) != 0)
        return -1;
    fx->n++;
    return 0;
}

static const char *const phase_keys[] = {"pending", "running", "succeeded", "failed", "unknown",
                                         "all", NULL};

static int parse_pods(fleet_x *fx, const mk_ynode *n, mk_diags *d)
{
    if (n->kind == MK_Y_SCALAR)   /* pods: N is every pod placed on the nodes */
        return add(fx, F_PODS, -1, n, "fleet pods", d);
    if (mk_yneed_map(n, "fleet pods", d) != 0 || mk_ycheck_keys(n, "fleet pods", phase_keys, d))
        return -1;
    int bad = 0;
    for (size_t i = 0; i < n->n; i++) {
        long long ph = -1;
        for (int k = 0; k < MK_FLEET_PHASES; k++)
            if (!strcmp(n->keys[i]->str, phase_keys[k]))
                ph = k;
        char what[64];
        snprintf(what, sizeof what, "fleet pods %s", n->keys[i]->str);
        bad |= add(fx, F_PODS, ph, n->vals[i], what, d) != 0;
    }
    if (!n->n) {
        mk_yerr(d, n, "fleet pods names no phase (pending, running, succeeded, failed, unknown, all)");
        bad = 1;
    }
    return bad ? -1 : 0;
}

static int parse_per_node(fleet_x *fx, const mk_ynode *n, mk_diags *d)
{
    static const char *const keys[] = {"min", "max", NULL};
    if (mk_yneed_map(n, "fleet pods-per-node", d) != 0 ||
        mk_ycheck_keys(n, "fleet pods-per-node", keys, d))
        return -1;
    const mk_ynode *mn = mk_yget(n, "min"), *mx = mk_yget(n, "max");
    if (!mn && !mx) {
        mk_yerr(d, n, "fleet pods-per-node needs min or max (such as {max: \"<=8\"})");
        return -1;
    }
    int bad = mn && add(fx, F_PODS_MIN, 0, mn, "fleet pods-per-node min", d);
    bad |= mx && add(fx, F_PODS_MAX, 0, mx, "fleet pods-per-node max", d);
    return bad ? -1 : 0;
}

static int parse_stranded_one(fleet_x *fx, const mk_ynode *n, mk_diags *d)
{
    static const char *const keys[] = {"request", "count", NULL};
    if (mk_yneed_map(n, "fleet stranded", d) != 0 || mk_ycheck_keys(n, "fleet stranded", keys, d))
        return -1;
    const mk_ynode *rq = mk_yget(n, "request"), *cn = mk_yget(n, "count");
    char *end = NULL;
    long long k = rq && rq->kind == MK_Y_SCALAR ? strtoll(rq->str, &end, 10) : 0;
    if (!rq || !end || *end || k < 1 || k > 1 << 20) {
        mk_yerr(d, rq ? rq : n, "fleet stranded needs request: the size of a request, 1 or more "
                "(such as {request: 8, count: \"<=16\"})");
        return -1;
    }
    if (!cn) {
        mk_yerr(d, n, "fleet stranded needs count: how many free units may be stranded for "
                "a request of %lld (such as \"<=16\")", k);
        return -1;
    }
    return add(fx, F_STRANDED, k, cn, "fleet stranded count", d);
}

static int parse_unscheduled(fleet_x *fx, const mk_ynode *n, mk_diags *d)
{
    static const char *const keys[] = {"count", "namespace", "selector", NULL};
    if (n->kind == MK_Y_SCALAR)
        return add(fx, F_UNSCHEDULED, 0, n, "fleet unscheduled", d);
    if (mk_yneed_map(n, "fleet unscheduled", d) != 0 ||
        mk_ycheck_keys(n, "fleet unscheduled", keys, d))
        return -1;
    const mk_ynode *cn = mk_yget(n, "count"), *ns = mk_yget(n, "namespace"),
                   *sel = mk_yget(n, "selector");
    const char *nss;
    char err[512];
    int bad = 0;
    if (!cn) {
        mk_yerr(d, n, "fleet unscheduled needs count (such as {count: 0, namespace: team-a})");
        bad = 1;
    } else {
        bad |= add(fx, F_UNSCHEDULED, 0, cn, "fleet unscheduled count", d) != 0;
    }
    if (ns && (mk_ystr(ns, "fleet unscheduled namespace", &nss, d) != 0 || !*nss)) {
        if (ns->kind == MK_Y_SCALAR)
            mk_yerr(d, ns, "fleet unscheduled namespace is empty");
        bad = 1;
    } else if (ns) {
        fx->ns = mk_xstrdup(nss);
    }
    if (sel && (mk_ysel(sel, "fleet unscheduled selector", &fx->pod_selector, d) != 0 ||
                mk_ksel_parse(fx->pod_selector, &fx->podsel, err, sizeof err) != 0))
        bad = 1;
    return bad ? -1 : 0;
}

static const char *const fleet_keys[] = {
    "selector", "nodes", "ready", "advertising", "allocatable", "used", "free", "partly-used",
    "stranded", "largest-fit", "pods", "pods-per-node", "unscheduled", NULL
};

static int parse_field(fleet_x *fx, const char *key, const mk_ynode *v, mk_diags *d)
{
    static const struct { const char *key; fmetric m; } plain[] = {
        {"nodes", F_NODES}, {"ready", F_READY}, {"advertising", F_ADVERTISING},
        {"allocatable", F_ALLOCATABLE}, {"used", F_USED}, {"free", F_FREE},
        {"partly-used", F_PARTLY_USED}, {"largest-fit", F_LARGEST_FIT},
    };
    char what[64];
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) {
        if (strcmp(key, plain[i].key) == 0) {
            snprintf(what, sizeof what, "fleet %s", key);
            return add(fx, plain[i].m, 0, v, what, d);
        }
    }
    if (!strcmp(key, "pods"))
        return parse_pods(fx, v, d);
    if (!strcmp(key, "pods-per-node"))
        return parse_per_node(fx, v, d);
    if (!strcmp(key, "unscheduled"))
        return parse_unscheduled(fx, v, d);
    if (!strcmp(key, "stranded")) {
        if (v->kind != MK_Y_SEQ)
            return parse_stranded_one(fx, v, d);
        int bad = !v->n;
        if (bad)
            mk_yerr(d, v, "fleet stranded is an empty list");
        for (size_t i = 0; i < v->n; i++)
            bad |= parse_stranded_one(fx, v->vals[i], d) != 0;
        return bad ? -1 : 0;
    }
    return 0;   /* selector, read by parse_fleet */
}

static int parse_fleet(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    if (mk_yneed_map(val, "fleet", d) != 0)
        return -1;
    fleet_x *fx = mk_xcalloc(1, sizeof *fx);
    int bad = mk_ycheck_keys(val, "fleet", fleet_keys, d) != 0;
    const mk_ynode *sel = mk_yget(val, "selector");
    char err[512];
    if (sel && (mk_ysel(sel, "fleet selector", &fx->selector, d) != 0 ||
                mk_ksel_parse(fx->selector, &fx->sel, err, sizeof err) != 0))
        bad = 1;
    for (size_t i = 0; i < val->n; i++)
        bad |= parse_field(fx, val->keys[i]->str, val->vals[i], d) != 0;
    if (!bad && !fx->n) {
        mk_yerr(d, val, "fleet names no number to check (such as nodes, ready, used, free, "
                "partly-used, pods or unscheduled)");
        bad = 1;
    }
    if (bad) {
        free_fleet(fx);
        return -1;
    }
    x->arg = fx;
    return 0;
}

unsigned mk_fsum_needs(const mk_expect *x)
{
    const fleet_x *fx = x->arg;
    unsigned needs = MK_FLEET_NEEDS_PODS;   /* the pods come with the view, counted or not */
    if (x->kind != &mk_xk_fleet)
        return 0;
    for (size_t i = 0; i < fx->n; i++)
        if (fx->v[i].m == F_UNSCHEDULED)
            needs |= MK_FLEET_NEEDS_UNSCHEDULED;
    return needs;
}

/* --- the worst nodes and pods ----------------------------------------------------- */

typedef struct ranked {
    long long key;
    size_t i;
} ranked;

static int by_key_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* Which nodes a failing number is about, and in what order they are worst. */
typedef enum { W_NONE, W_NOT_READY, W_NOT_ADVERTISING, W_LOW_ALLOC, W_MOST_USED, W_LEAST_USED,
               W_MOST_FREE, W_LEAST_FREE, W_PARTLY, W_STRANDED, W_FEWEST_PODS,
               W_MOST_PODS } worst_kind;

/* The node's key for the ranking (largest first), or 0 with *in = 0 for a
 * node that does not belong in the list. */
static long long rank_key(worst_kind w, const mk_fsum_node *n, long long arg, int *in)
{
    *in = 1;
    switch (w) {
    case W_NOT_READY: *in = !n->ready; return 0;
    case W_NOT_ADVERTISING: *in = n->allocatable <= 0; return 0;
    case W_LOW_ALLOC: *in = n->allocatable < n->capacity; return n->capacity - n->allocatable;
    case W_MOST_USED: return n->used;
    case W_LEAST_USED: return -n->used;
    case W_MOST_FREE: return n->free;
    case W_LEAST_FREE: return -n->free;
    case W_PARTLY: *in = n->used > 0 && n->used < n->allocatable; return n->used;
    case W_STRANDED: *in = n->free > 0 && n->free < arg; return n->free;
    case W_FEWEST_PODS: return -(long long)n->pods;
    case W_MOST_PODS: return (long long)n->pods;
    case W_NONE: break;
    }
    *in = 0;
    return 0;
}

static void node_line(mk_xctx *c, worst_kind w, const mk_fsum_node *n)
{
    const char *name = n->node->name, *res = c->resource;
    if (w == W_NOT_READY) {
        const mk_nv_condition *cond = mk_nv_condition_find(n->node, "Ready");
        if (!cond)
            mk_x_detail(c, "  %s: no Ready condition", name);
        else
            mk_x_detail(c, "  %s: Ready %s%s%s", name, cond->status ? cond->status : "",
                        cond->reason && *cond->reason ? " " : "", cond->reason ? cond->reason : "");
    } else if (w == W_NOT_ADVERTISING || w == W_LOW_ALLOC) {
        mk_x_detail(c, "  %s: %lld of %lld %s allocatable", name, n->allocatable, n->capacity, res);
    } else if (w == W_FEWEST_PODS || w == W_MOST_PODS) {
        mk_x_detail(c, "  %s: %zu pod%s", name, n->pods, n->pods == 1 ? "" : "s");
    } else if (w == W_MOST_FREE || w == W_LEAST_FREE || w == W_STRANDED) {
        mk_x_detail(c, "  %s: %lld of %lld free", name, n->free, n->allocatable);
    } else {
        mk_x_detail(c, "  %s: %lld of %lld used", name, n->used, n->allocatable);
    }
}

static void show_worst(mk_xctx *c, const mk_fsum *f, worst_kind w, long long arg,
                       const char *title)
{
    if (w == W_NONE || !f->n)
        return;
    ranked *r = mk_xcalloc(f->n, sizeof *r);
    size_t n = 0;
    for (size_t i = 0; i < f->n; i++) {
        int in;
        long long key = rank_key(w, &f->node[i], arg, &in);
        if (in)
            r[n++] = (ranked){key, i};
    }
    qsort(r, n, sizeof *r, by_key_desc);
    if (n)
        mk_x_detail(c, "%s:", title);
    for (size_t i = 0; i < n && i < WORST_SHOWN; i++)
        node_line(c, w, &f->node[r[i].i]);
    if (n > WORST_SHOWN)
        mk_x_detail(c, "  (and %zu more)", n - WORST_SHOWN);
    free(r);
}

/* Pods that make a pod count: bound to the nodes in a phase, or waiting. */
static void show_pods(mk_xctx *c, const mk_fsum *f, const fleet_x *fx, const fcheck *k)
{
    size_t shown = 0, more = 0;
    const mk_nv_nodes *snap = c->snap;
    for (size_t i = 0; i < snap->npods; i++) {
        const mk_nv_pod *p = &snap->pod[i];
        int in = k->m == F_UNSCHEDULED
                     ? mk_fsum_pod_unscheduled(p, fx->ns, fx->pod_selector ? &fx->podsel : NULL)
                     : p->node && mk_fsum_find(f, p->node) >= 0 &&
                           (k->arg < 0 || (long long)p->phase == k->arg);
        if (!in)
            continue;
        if (shown == WORST_SHOWN) {
            more++;
            continue;
        }
        if (!shown++)
            mk_x_detail(c, "pods:");
        if (k->m == F_UNSCHEDULED)
            mk_x_detail(c, "  %s/%s: %s", p->ns, p->name,
                        p->unschedulable ? p->unschedulable : "not scheduled yet");
        else
            mk_x_detail(c, "  %s/%s on %s: %s", p->ns, p->name, p->node,
                        mk_nv_phase_name(p->phase));
    }
    if (more)
        mk_x_detail(c, "  (and %zu more)", more);
}

/* --- checking ---------------------------------------------------------------------- */

static size_t unscheduled(const mk_nv_nodes *snap, const fleet_x *fx)
{
    size_t n = 0;
    for (size_t i = 0; i < snap->npods; i++)
        n += mk_fsum_pod_unscheduled(&snap->pod[i], fx->ns, fx->pod_selector ? &fx->podsel : NULL);
    return n;
}

/* The number a check compares, what it is called ("nodes partly used") and
 * which nodes to list when it fails (too high: hi, too low: lo). */
static long long actual(const fcheck *k, const mk_fsum *f, const mk_nv_nodes *snap,
                        const fleet_x *fx, const char *res, char *what, size_t len,
                        worst_kind *hi, worst_kind *lo)
{
    *hi = *lo = W_NONE;
    switch (k->m) {
    case F_NODES: snprintf(what, len, "nodes"); return (long long)f->n;
    case F_READY:
        snprintf(what, len, "nodes Ready");
        *lo = W_NOT_READY;
        return (long long)f->ready;
    case F_ADVERTISING:
        snprintf(what, len, "nodes advertising %s", res);
        *lo = W_NOT_ADVERTISING;
        return (long long)f->advertising;
    case F_ALLOCATABLE:
        snprintf(what, len, "%s allocatable", res);
        *lo = W_LOW_ALLOC;
        return f->allocatable;
    case F_USED:
        snprintf(what, len, "%s used", res);
        *hi = W_MOST_USED;
        *lo = W_LEAST_USED;
        return f->used;
    case F_FREE:
        snprintf(what, len, "%s free", res);
        *hi = W_MOST_FREE;
        *lo = W_LEAST_FREE;
        return f->free;
    case F_PARTLY_USED:
        snprintf(what, len, "nodes partly used (%s)", res);
        *hi = W_PARTLY;
        return (long long)f->partly_used;
    case F_STRANDED:
        snprintf(what, len, "%s free but stranded for a request of %lld", res, k->arg);
        *hi = W_STRANDED;
        return mk_fsum_stranded(f, k->arg);
    case F_LARGEST_FIT:
        snprintf(what, len, "the largest request of %s that fits", res);
        *lo = *hi = W_MOST_FREE;
        return f->largest_fit;
    case F_PODS:
        if (k->arg < 0) {
            snprintf(what, len, "pods on the nodes");
            return (long long)f->placed;
        }
        snprintf(what, len, "pods %s on the nodes", mk_nv_phase_name((mk_nv_phase)k->arg));
        return (long long)f->phase[k->arg];
    case F_PODS_MIN:
        snprintf(what, len, "the fewest pods on a node");
        *lo = *hi = W_FEWEST_PODS;
        return (long long)f->pods_min;
    case F_PODS_MAX:
        snprintf(what, len, "the most pods on a node");
        *lo = *hi = W_MOST_PODS;
        return (long long)f->pods_max;
    case F_UNSCHEDULED:
        snprintf(what, len, "pods not scheduled%s%s", fx->ns ? " in " : "", fx->ns ? fx->ns : "");
        return (long long)unscheduled(snap, fx);
    }
    return 0;
}

/* "29 nodes partly used", "1 node partly used" (what: "nodes partly used"). */
static void counted(char *buf, size_t len, long long n, const char *what)
{
    int plural_first = !strncmp(what, "nodes", 5) || !strncmp(what, "pods", 4);
    size_t word = strcspn(what, " ");
    size_t cut = n == 1 && plural_first ? 1 : 0;
    snprintf(buf, len, "%lld %.*s%s", n, (int)(word - cut), what, what + word);
}

static mk_xres check_one(const fcheck *k, const mk_fsum *f, const fleet_x *fx, mk_xctx *c)
{
    char what[160], expect[64], err[512];
    worst_kind hi, lo;
    long long target, a = actual(k, f, c->snap, fx, c->resource, what, sizeof what, &hi, &lo);
    if (mk_cmp_target(&k->cmp, c->vars, &target, err, sizeof err) != 0)
        return mk_x_error(c, "fleet: %s", err);
    if (mk_cmp_holds(k->cmp.op, a, target))
        return MK_X_PASS;
    mk_cmp_describe(k->cmp.op, target, expect, sizeof expect);
    const char *of = fx->selector;
    char count[200], among[48] = "";
    counted(count, sizeof count, a, what);
    if (k->m != F_NODES)
        snprintf(among, sizeof among, " (%zu node%s)", f->n, f->n == 1 ? "" : "s");
    mk_x_fail(c, "fleet%s%s%s: %s, expected %s%s", of ? " (" : "", of ? of : "", of ? ")" : "",
              count, expect, among);
    mk_x_detail(c, "expected: %s: %s", what, expect);
    mk_x_detail(c, "actual:   %s: %lld", what, a);
    if (k->m == F_PODS || k->m == F_UNSCHEDULED)
        show_pods(c, f, fx, k);
    else
        show_worst(c, f, a > target ? hi : lo, k->arg, "the worst nodes");
    return MK_X_FAIL;
}

static mk_xres check_fleet(const mk_expect *x, mk_xctx *c)
{
    const fleet_x *fx = x->arg;
    mk_fsum f;
    if (!c->snap || !c->snap->has_pods)
        return mk_x_error(c, "fleet: the view has no pods (the API server's pods are not "
                          "watched)");
    if (mk_fsum_compute(&f, c->snap, fx->selector ? &fx->sel : NULL, x->resource) != 0)
        return mk_x_error(c, "fleet: out of memory");
    mk_xres res = MK_X_PASS;
    int nfail = 0;
    for (size_t i = 0; i < fx->n; i++) {
        mk_xres r = check_one(&fx->v[i], &f, fx, c);
        nfail += r == MK_X_FAIL;
        if (r > res)
            res = r;
    }
    if (res == MK_X_FAIL && nfail > 1)   /* one line for the case: the first, and a count */
        mk_sb_printf(&c->msg, " (and %d more)", nfail - 1);
    if (res == MK_X_FAIL) {
        char totals[512];
        mk_fsum_describe(&f, x->resource, totals, sizeof totals);
        mk_x_detail(c, "fleet: %s", totals);
    }
    mk_fsum_free(&f);
    return res;
}

const mk_xkind mk_xk_fleet = {"fleet", MK_XK_FLEET | MK_XK_NODE_OBJECT, parse_fleet, check_fleet,
                              free_fleet, NULL};
