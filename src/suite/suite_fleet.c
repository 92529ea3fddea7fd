/* suite_fleet.c - a fleet's numbers from one snapshot: the selected nodes,
 * each with the requests of the pods bound to it that are neither
 * Succeeded nor Failed (what the scheduler counts against a node), and the
 * sums, fragmentation and pod counts the fleet expectations compare. One
 * pass over the nodes and one over the pods, whatever their number. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "suite.h"
#include "suite_fleet.h"

static int by_node_name(const void *a, const void *b)
{
    return strcmp(((const mk_fsum_node *)a)->node->name, ((const mk_fsum_node *)b)->node->name);
}

static int is_ready(const mk_nv_node *n)
{
    const mk_nv_condition *c = mk_nv_condition_find(n, "Ready");
    return c && c->status && strcmp(c->status, "True") == 0;
}

int mk_fsum_pod_active(const mk_nv_pod *p)
{
    return p->phase != MK_NV_POD_SUCCEEDED && p->phase != MK_NV_POD_FAILED;
}

int mk_fsum_pod_unscheduled(const mk_nv_pod *p, const char *ns, const mk_ksel *sel)
{
    return !p->node && p->phase == MK_NV_POD_PENDING && (!ns || strcmp(p->ns, ns) == 0) &&
           (!sel || mk_ksel_match(sel, p->labels, p->nlabels));
}

long long mk_fsum_find(const mk_fsum *f, const char *name)
{
    size_t lo = 0, hi = f->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(f->node[mid].node->name, name);
        if (c == 0)
            return (long long)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static long long add_sat(long long a, long long b)
{
    long long r;
    return __builtin_add_overflow(a, b, &r) ? __LONG_LONG_MAX__ : r;
}

int mk_fsum_compute(mk_fsum *f, const mk_nv_nodes *snap, const mk_ksel *sel,
                     const char *resource)
{
    memset(f, 0, sizeof *f);
    f->node = calloc(snap->n ? snap->n : 1, sizeof *f->node);
    if (!f->node)
        return -1;
    for (size_t i = 0; i < snap->n; i++) {
        const mk_nv_node *n = &snap->node[i];
        if (sel && !mk_ksel_match(sel, n->labels, n->nlabels))
            continue;
        mk_fsum_node *fn = &f->node[f->n++];
        const mk_nv_resource *r = mk_nv_find_resource(n, resource);
        fn->node = n;
        fn->ready = is_ready(n);
        fn->capacity = r ? r->capacity : 0;
        fn->allocatable = r && r->allocatable > 0 ? r->allocatable : 0;
    }
    if (f->n > 1)
        qsort(f->node, f->n, sizeof *f->node, by_node_name);
    for (size_t i = 0; i < snap->npods; i++) {
        const mk_nv_pod *p = &snap->pod[i];
        long long at = p->node ? mk_fsum_find(f, p->node) : -1;
        if (at < 0)
            continue;
        f->placed++;
        f->phase[p->phase < MK_FLEET_PHASES ? p->phase : MK_NV_POD_UNKNOWN]++;
        if (!mk_fsum_pod_active(p))
            continue;
        f->node[at].pods++;
        f->node[at].used = add_sat(f->node[at].used, mk_nv_pod_request(p, resource));
    }
    for (size_t i = 0; i < f->n; i++) {
        mk_fsum_node *fn = &f->node[i];
        fn->free = fn->allocatable > fn->used ? fn->allocatable - fn->used : 0;
        f->ready += fn->ready != 0;
        f->advertising += fn->allocatable > 0;
        f->allocatable = add_sat(f->allocatable, fn->allocatable);
        f->used = add_sat(f->used, fn->used);
        f->free = add_sat(f->free, fn->free);
        f->partly_used += fn->used > 0 && fn->used < fn->allocatable;
        if (fn->free > f->largest_fit)
            f->largest_fit = fn->free;
        if (!i || fn->pods < f->pods_min)
            f->pods_min = fn->pods;
        if (fn->pods > f->pods_max)
            f->pods_max = fn->pods;
    }
    return 0;
}

long long mk_fsum_stranded(const mk_fsum *f, long long k)
{
    long long sum = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->node[i].free < k)
            sum = add_sat(sum, f->node[i].free);
    return sum;
}

void mk_fsum_describe(const mk_fsum *f, const char *resource, char *buf, size_t len)
{
    snprintf(buf, len, "%zu node%s (%zu Ready), %s %lld allocatable, %lld used, %lld free, "
             "%zu partly used, largest fit %lld; %zu pod%s on them, %zu running", f->n,
             f->n == 1 ? "" : "s", f->ready, resource, f->allocatable, f->used, f->free,
             f->partly_used, f->largest_fit, f->placed, f->placed == 1 ? "" : "s",
             f->phase[MK_NV_POD_RUNNING]);
}

int mk_suite_fleet_summary(mk_nodesrc *src, const char *resource, char *buf, size_t len)
{
    mk_nv_nodes snap;
    mk_fsum f;
    char err[256];
    if (src->snapshot(src, &snap, err, sizeof err) != 0)
        return -1;
    int rc = snap.has_pods ? mk_fsum_compute(&f, &snap, NULL, resource) : -1;
    if (rc == 0) {
        size_t waiting = 0;
        for (size_t i = 0; i < snap.npods; i++)
            waiting += mk_fsum_pod_unscheduled(&snap.pod[i], NULL, NULL);
        char totals[512];
        mk_fsum_describe(&f, resource, totals, sizeof totals);
        snprintf(buf, len, "%s; %zu pod%s not scheduled", totals, waiting, waiting == 1 ? "" : "s");
        mk_fsum_free(&f);
    }
    mk_nv_nodes_free(&snap);
    return rc;
}

void mk_fsum_free(mk_fsum *f)
{
    free(f->node);
    memset(f, 0, sizeof *f);
}
