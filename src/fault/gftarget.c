/* gftarget.c - where a GPUFault lands: whether a node is one of its nodes,
 * and which of that node's GPUs it names. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "gpufault.h"
#include "util/util.h"

int mk_gfault_selects(const mk_gfault *f, const char *node, const mk_nv_kv *labels, size_t nlabels)
{
    int named = f->nnames == 0;
    for (size_t i = 0; i < f->nnames && !named; i++)
        named = strcmp(f->names[i], node) == 0;
    return named && (!f->has_selector || mk_ksel_match(&f->sel, labels, nlabels));
}

static void range_of(unsigned ndev, char *buf, size_t len)
{
    if (ndev == 0)
        snprintf(buf, len, "this node has no GPUs");
    else if (ndev == 1)
        snprintf(buf, len, "this node has GPU 0 only");
    else
        snprintf(buf, len, "this node has GPUs 0-%u", ndev - 1);
}

/* NVML writes UUIDs in lower case, people copy them in any case. */
static int find_uuid(unsigned ndev, const char *const *uuids, const char *uuid)
{
    for (unsigned i = 0; i < ndev; i++)
        if (uuids[i] && strcasecmp(uuids[i], uuid) == 0)
            return (int)i;
    return -1;
}

/* The GPUs named, into hit; or why not with -1. */
static int resolve(const mk_gfault *f, unsigned ndev, const char *const *uuids, unsigned char *hit,
                   char *why, size_t whylen)
{
    char range[64], q[64];
    if (f->invalid[0]) {
        snprintf(why, whylen, "%s", f->invalid);
        return -1;
    }
    range_of(ndev, range, sizeof range);
    if (f->all_gpus && ndev == 0) {
        snprintf(why, whylen, "the fault is for all GPUs, and %s", range);
        return -1;
    }
    if (f->all_gpus)
        memset(hit, 1, ndev);
    for (size_t i = 0; i < f->nindexes; i++) {
        if (f->indexes[i] < 0 || (unsigned long)f->indexes[i] >= ndev) {
            snprintf(why, whylen, "gpu %ld is out of range: %s", f->indexes[i], range);
            return -1;
        }
        hit[f->indexes[i]] = 1;
    }
    for (size_t i = 0; i < f->nuuids; i++) {
        int at = uuids ? find_uuid(ndev, uuids, f->uuids[i]) : -1;
        if (at < 0) {
            mk_text_snip(f->uuids[i], 48, q, sizeof q);
            snprintf(why, whylen, "%s is not a GPU of this node", q);
            return -1;
        }
        hit[at] = 1;
    }
    return 0;
}

int mk_gfault_gpus(const mk_gfault *f, unsigned ndev, const char *const *uuids, unsigned char *hit,
                   char *why, size_t whylen)
{
    memset(hit, 0, ndev);
    if (resolve(f, ndev, uuids, hit, why, whylen) == 0)
        return 0;
    memset(hit, 0, ndev);   /* a fault holds on all the GPUs it names or on none */
    return -1;
}
