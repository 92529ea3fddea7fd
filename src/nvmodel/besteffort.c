/* besteffort.c - the best-effort policy of NVIDIA's go-gpuallocator as the
 * device plugin v0.17.4 vendors it (gpuallocator/besteffort_policy.go): its
 * answer to GetPreferredAllocation for whole GPUs.
 *
 * The policy pads the available GPUs with empty slots to a multiple of the
 * size and walks every partition of them into sets of `size`: each set
 * starts with the first GPU left, the rest of it chosen in lexicographic
 * order; sets holding some but not all of the padding are skipped. It keeps
 * the first partition of the highest total score that has a set of real
 * GPUs holding every must-include GPU, and answers the set of that
 * partition holding them all with the highest score (the first of equals).
 * Size 1 is the exception: the first GPU that is all the must-include list.
 *
 * A pair of GPUs scores by where they meet in the PCIe tree (10 across NUMA
 * nodes, 20 in one NUMA node, 30 host bridge, 40 several PCIe switches, 50
 * one switch, 60 one board) plus 100 for each NVLink between them, as the
 * allocator counts them: the links whose far end has the other GPU's PCI
 * bus id. On an NVSwitch fabric the far end is a switch, so a switched GPU
 * has no NVLink to any GPU here (the allocator's own TODO says as much).
 *
 * All of it follows the order of the request's list, and is copied down to
 * two accidents of the Go code:
 * - The partition being built is a Go slice appended to in place. Once its
 *   backing array has room to spare (4 sets give room for 8), sibling
 *   branches write into the one array, so with 7 or more sets (size 2 from
 *   13 GPUs) the best partition kept is overwritten by later branches
 *   before its best set is picked: the plugin picks from the last partition
 *   walked that shares the kept one's first sets. The walk here keeps
 *   partitions in arrays shared and grown as Go's append does.
 * - The set picked can be a padded one: without must-include GPUs when its
 *   real GPUs are closely linked and the full sets are not, or with them
 *   after the overwriting above. The plugin then reads the UUID of a nil
 *   device and crashes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nvmodel_int.h"

#define PAD (-1)                /* an empty slot: Go's nil *Device */
#define MAX_GPUS 63             /* a request's GPUs, for sets of 2 or more */
#define MAX_SLOTS (2 * MAX_GPUS) /* with the padding */
/* Partitions walked before giving up: 16 GPUs in sets of 2 are 2 million
 * (NVIDIA's plugin takes seconds), in sets of 3 22 million (the walk here
 * takes seconds); past this neither answers in time. */
#define MAX_PARTITIONS 100000000ULL

/* A Go backing array of sets, each `size` slots (positions in the request's
 * list, or PAD), shared by every slice that points into it. */
typedef struct garr {
    size_t refs, cap;
    int slot[];
} garr;

typedef struct gslice {
    garr *a;
    size_t len;                 /* sets */
} gslice;

typedef struct walk {
    size_t n, size, padding;
    const int *must;            /* positions in the list */
    size_t nmust;
    const int *score;           /* n x n: score of pair (i, j) seen from i */
    gslice best;
    long best_score;
    unsigned long long partitions;
    int stop;                   /* out of memory or past MAX_PARTITIONS */
    int oom;
} walk;

static void release(gslice s)
{
    if (s.a && --s.a->refs == 0)
        free(s.a);
}

/* append(s, set) as Go does it: in place while the array has room, else
 * into a new array of twice the capacity (1 from none: sets are 24-byte
 * slice headers, whose sizes 24, 48, 96, ... are Go's malloc size classes,
 * so the doubling is exact). The result holds a reference. */
static gslice append(walk *w, gslice s, const int *set)
{
    garr *a = s.a;
    if (!a || s.len == a->cap) {
        size_t cap = a ? 2 * a->cap : 1;
        garr *b = malloc(sizeof *b + cap * w->size * sizeof(int));
        if (!b) {
            w->oom = w->stop = 1;
            return (gslice){ NULL, 0 };
        }
        b->refs = 0;
        b->cap = cap;
        if (s.len)
            memcpy(b->slot, a->slot, s.len * w->size * sizeof(int));
        a = b;
    }
    memcpy(a->slot + s.len * w->size, set, w->size * sizeof(int));
    a->refs++;
    return (gslice){ a, s.len + 1 };
}

static int has(const int *set, size_t n, int dev)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == dev)
            return 1;
    return 0;
}

static int has_all_must(const walk *w, const int *set)
{
    for (size_t i = 0; i < w->nmust; i++)
        if (!has(set, w->size, w->must[i]))
            return 0;
    return 1;
}

static long set_score(const walk *w, const int *set)
{
    long sum = 0;
    for (size_t i = 0; i < w->size; i++)
        for (size_t j = i + 1; j < w->size; j++)
            if (set[i] != PAD && set[j] != PAD)
                sum += w->score[(size_t)set[i] * w->n + (size_t)set[j]];
    return sum;
}

/* A whole partition: kept when it has a set of real GPUs with every
 * must-include GPU and beats the best so far (or is the first such). */
static void partition(walk *w, gslice p)
{
    if (++w->partitions > MAX_PARTITIONS)
        w->stop = 1;
    int usable = 0;
    for (size_t k = 0; k < p.len && !usable; k++) {
        const int *set = p.a->slot + k * w->size;
        usable = has_all_must(w, set) && !has(set, w->size, PAD);
    }
    long sum = 0;
    for (size_t k = 0; usable && k < p.len; k++)
        sum += set_score(w, p.a->slot + k * w->size);
    if (usable && (sum > w->best_score || !w->best.a)) {
        release(w->best);
        w->best = p;
        w->best_score = sum;
        return;
    }
    release(p);
}

/* Go's iterate(devices, size, accum): devs[0] with each (size-1)-subset of
 * the rest, in lexicographic order, then the partitions of what is left. */
static void iterate(walk *w, const int *devs, size_t ndev, gslice accum)
{
    size_t size = w->size;
    if (ndev == size) {
        gslice p = append(w, accum, devs);
        if (p.a)
            partition(w, p);
        return;
    }
    size_t pick[MAX_SLOTS], k = size - 1;
    int set[MAX_SLOTS], rest[MAX_SLOTS];
    for (size_t i = 0; i < k; i++)
        pick[i] = i + 1;
    while (!w->stop) {
        set[0] = devs[0];
        size_t pads = devs[0] == PAD;
        for (size_t i = 0; i < k; i++) {
            set[i + 1] = devs[pick[i]];
            pads += set[i + 1] == PAD;
        }
        if (pads == 0 || pads == w->padding) {
            size_t nrest = 0;
            for (size_t i = 0; i < ndev; i++)
                if (!has(set, size, devs[i]))
                    rest[nrest++] = devs[i];
            gslice next = append(w, accum, set);
            if (next.a) {
                iterate(w, rest, nrest, next);
                release(next);
            }
        }
        /* the next subset: bump the last index that can move */
        size_t i = k;
        while (i > 0 && pick[i - 1] == ndev - k + i - 1)
            i--;
        if (i == 0)
            break;
        pick[i - 1]++;
        for (size_t j = i; j < k; j++)
            pick[j] = pick[j - 1] + 1;
    }
}

/* NVLinks from a to b as the allocator counts them (see the top). */
static unsigned links(const mk_device *a, const mk_device *b)
{
    unsigned n = 0;
    for (unsigned l = 0; !a->nvlink_switched && l < a->nvlinks; l++)
        n += a->nvlink_peer[l] == (int)b->index;
    return n;
}

static int pair_score(const mk_device *a, const mk_device *b)
{
    int pcie;
    switch (mk_topology_level(a, b)) {
    case MK_TOPO_INTERNAL: pcie = 60; break;
    case MK_TOPO_SINGLE: pcie = 50; break;
    case MK_TOPO_MULTIPLE: pcie = 40; break;
    case MK_TOPO_HOSTBRIDGE: pcie = 30; break;
    case MK_TOPO_NODE: pcie = 20; break;
    default: pcie = 10; break;
    }
    return pcie + 100 * (int)links(a, b);
}

/* The walk's outcome: the best set of the partition as it stands at the
 * end (see the top for why that can differ from the one kept). */
static int best_set(const walk *w, size_t *out, char *err, size_t errlen)
{
    const int *pick = NULL;
    long pick_score = 0;
    for (size_t k = 0; k < w->best.len; k++) {
        const int *set = w->best.a->slot + k * w->size;
        if (!has_all_must(w, set))
            continue;
        long s = set_score(w, set);
        if (!pick || s > pick_score) {
            pick = set;
            pick_score = s;
        }
    }
    if (!pick) {
        snprintf(err, errlen, "NVIDIA's plugin answers no devices (its best-effort policy's "
                 "partition kept no set with every must-include GPU)");
        return -1;
    }
    if (has(pick, w->size, PAD)) {
        snprintf(err, errlen, "NVIDIA's plugin crashes on this request (its best-effort policy "
                 "picks a set padded with a nil device)");
        return -1;
    }
    for (size_t i = 0; i < w->size; i++)
        out[i] = (size_t)pick[i];
    return 0;
}

int mk_besteffort(const mk_universe *u, const unsigned *gpus, size_t n, const unsigned *must,
                  size_t nmust, size_t size, size_t *out, char *err, size_t errlen)
{
    if (size == 0)
        return 0;
    if (n < size || nmust > size) {
        snprintf(err, errlen, "NVIDIA's plugin answers no devices: %zu asked for, %zu available, "
                 "%zu must be included", size, n, nmust);
        return -1;
    }
    if (size > 1 && n > MAX_GPUS) {
        snprintf(err, errlen, "%zu GPUs in sets of %zu are past what NVIDIA's best-effort "
                 "policy can search", n, size);
        return -1;
    }
    int mpos[MAX_GPUS];
    for (size_t i = 0; i < nmust; i++) {
        size_t j = 0;
        while (j < n && gpus[j] != must[i])
            j++;
        if (j == n) {
            snprintf(err, errlen, "NVIDIA's plugin answers no devices: must-include GPU %u is "
                     "not available", must[i]);
            return -1;
        }
        mpos[i] = (int)j;
    }
    if (size == 1) {                        /* the first GPU that is all the must-include list */
        out[0] = nmust ? (size_t)mpos[0] : 0;
        return 0;
    }
    int *score = malloc(n * n * sizeof *score);
    if (!score) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            score[i * n + j] = i == j ? 0 : pair_score(&u->dev[gpus[i]], &u->dev[gpus[j]]);
    size_t total = (n + size - 1) / size * size;
    walk w = { .n = n, .size = size, .padding = total - n, .must = mpos, .nmust = nmust,
               .score = score };
    int devs[MAX_SLOTS];
    for (size_t i = 0; i < total; i++)
        devs[i] = i < n ? (int)i : PAD;
    iterate(&w, devs, total, (gslice){ NULL, 0 });
    int rc = -1;
    if (w.oom)
        snprintf(err, errlen, "out of memory");
    else if (w.stop)
        snprintf(err, errlen, "more than %llu ways to split %zu GPUs into sets of %zu: past what "
                 "NVIDIA's best-effort policy answers in time", MAX_PARTITIONS, n, size);
    else if (!w.best.a)
        snprintf(err, errlen, "NVIDIA's plugin answers no devices (no partition of the available "
                 "GPUs has a set with every must-include GPU)");
    else
        rc = best_set(&w, out, err, errlen);
    release(w.best);
    free(score);
    return rc;
}
