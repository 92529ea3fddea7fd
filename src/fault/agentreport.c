/* agentreport.c - a node's GPUFaultReport (agentreport.h).
 *
 * Why one object per node, written by that node alone: a report in the
 * GPUFault's status would be one object that every selected node writes at
 * the same moment (5,000 writers of one object: conflicts and retries, and
 * a watch event to every watcher for each), and a report on the Node object
 * would need the right to patch Nodes and would wake every Node watcher in
 * the cluster (the scheduler, kubelets, controllers) for each fault. A
 * report object per node has a single writer, needs no read-modify-write
 * (an unconditional PUT), and is read only by who follows faults.
 *
 * Why a bound on its size: an entry takes about 140 bytes, so 10,000
 * faults that hold make a 1.4 MB report, and etcd refuses any object over
 * 1.5 MiB: past that the node could not report at all. What is left out
 * is counted, so that readers know the report is not the whole story. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "faultapi.h"
#include "agentreport.h"

static json_t *entry_json(const mk_fr_entry *e)
{
    char t[40];
    json_t *gpus = json_array();
    for (size_t i = 0; i < e->ngpus; i++)
        json_array_append_new(gpus, json_integer(e->gpus[i]));
    mk_ktime_format(e->time_ms, 1, t, sizeof t);
    json_t *j = json_pack("{ss ss ss ss so ss}", "name", e->name, "uid", e->uid,
                          "resourceVersion", e->rv, "phase", mk_fr_phase_name(e->phase),
                          "gpus", gpus, "time", t);
    if (j && e->reason)
        json_object_set_new(j, "reason", json_string(e->reason));
    return j;
}

/* --- the bound ------------------------------------------------------------------- */

/* Which entries go first when not all fit: what holds on the GPUs, then
 * what was refused, then what ended; the newest first within each. */
typedef struct ranked {
    int rank;
    long long time_ms;
    size_t i;
} ranked;

static int rank_of(mk_fr_phase p)
{
    return p == MK_FR_APPLIED ? 0 : p == MK_FR_REJECTED ? 1 : 2;
}

static int by_rank(const void *x, const void *y)
{
    const ranked *a = x, *b = y;
    if (a->rank != b->rank)
        return a->rank - b->rank;
    if (a->time_ms != b->time_ms)
        return a->time_ms > b->time_ms ? -1 : 1;
    return a->i > b->i ? -1 : a->i < b->i;   /* the same time: the later fault first */
}

/* kept[i]: entry i's JSON when it is in the report, else NULL. Returns how
 * many were left out, or -1 when out of memory. `room`: the bytes the
 * entries may take, written compactly with their commas. */
static long choose(const mk_fr_entry *e, size_t n, size_t room, json_t **kept)
{
    ranked *order = malloc((n + 1) * sizeof *order);
    size_t ended = 0;
    long dropped = 0;
    if (!order)
        return -1;
    for (size_t i = 0; i < n; i++)
        order[i] = (ranked){ rank_of(e[i].phase), e[i].time_ms, i };
    qsort(order, n, sizeof *order, by_rank);
    for (size_t k = 0; k < n; k++) {
        size_t i = order[k].i;
        if (order[k].rank == 2 && ended++ >= MK_FR_HISTORY) {
            dropped++;
            continue;
        }
        json_t *j = entry_json(&e[i]);
        if (!j) {
            free(order);
            return -1;
        }
        size_t len = json_dumpb(j, NULL, 0, JSON_COMPACT) + 1;
        if (len > room) {
            json_decref(j);
            dropped++;
            continue;
        }
        room -= len;
        kept[i] = j;
    }
    free(order);
    return dropped;
}

json_t *mk_freport_json(const mk_freport_agent *a, const mk_fr_entry *e, size_t n, long long now_ms)
{
    char started[40], now[40];
    mk_ktime_format(a->started_ms, 0, started, sizeof started);
    mk_ktime_format(now_ms, 1, now, sizeof now);
    json_t *faults = json_array();
    json_t *rep = json_pack("{ss ss s{ss s{ss}} s{ss s{ss ss si ss sb} ss sO sI}}",
                            "apiVersion", MK_GF_API_VERSION, "kind", "GPUFaultReport",
                            "metadata", "name", a->node, "labels", "mokka.io/agent", "true",
                            "status", "node", a->node,
                            "agent", "version", MOKKA_VERSION, "startedAt", started,
                            "gpus", (int)a->gpus, "mode", a->mode, "running", a->running,
                            "updatedAt", now, "faults", faults,
                            "faultsDropped", (json_int_t)n);
    json_t **kept = calloc(n + 1, sizeof *kept);
    long dropped = -1;
    if (rep && faults && kept) {
        /* What the entries may take: the report without them (its count
         * already as wide as it can be) from the bound. */
        size_t bare = json_dumpb(rep, NULL, 0, JSON_COMPACT);
        dropped = bare < MK_FREPORT_MAX_BYTES ? choose(e, n, MK_FREPORT_MAX_BYTES - bare, kept) : -1;
    }
    for (size_t i = 0; i < n && dropped >= 0; i++)
        if (kept[i] && json_array_append(faults, kept[i]))
            dropped = -1;
    for (size_t i = 0; kept && i < n; i++)
        json_decref(kept[i]);
    free(kept);
    json_decref(faults);
    if (dropped < 0 ||
        json_object_set_new(json_object_get(rep, "status"), "faultsDropped", json_integer(dropped))) {
        json_decref(rep);
        return NULL;
    }
    return rep;
}

int mk_freport_write(mk_khttp *h, const char *node, json_t *report, long long deadline_ms,
                     char *err, size_t errlen)
{
    char reason[64];
    long status = 0;
    char *path = mk_kpath_name(MK_GFR_PATH, node, err, errlen);
    if (!path)
        return -1;
    mk_kobj_req patch = { .method = "PATCH", .path = path, .body = report, .deadline_ms = deadline_ms };
    int rc = mk_kobj_request(h, &patch, &status, NULL, reason, sizeof reason, err, errlen);
    if (rc == 0 && status == 404) {
        /* The first report of this node (or the collection is missing:
         * the create says which). */
        mk_kobj_req post = { .method = "POST", .path = MK_GFR_PATH, .body = report,
                             .deadline_ms = deadline_ms };
        rc = mk_kobj_request(h, &post, &status, NULL, reason, sizeof reason, err, errlen);
        if (rc == 0 && status == 409)   /* made meanwhile (a retried create): patch it */
            rc = mk_kobj_request(h, &patch, &status, NULL, reason, sizeof reason, err, errlen);
    }
    if (rc == 0 && (status < 200 || status >= 300))
        rc = -1;                        /* err has the API server's message */
    free(path);
    return rc == 0 ? 0 : rc == MK_KHTTP_STOPPED ? MK_KHTTP_STOPPED : -1;
}
