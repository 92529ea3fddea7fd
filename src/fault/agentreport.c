/* agentreport.c - a node's GPUFaultReport (agentreport.h).
 *
 * Why one object per node, written by that node alone: a report in the
 * GPUFault's status would be one object that every selected node writes at
 * the same moment (5,000 writers of one object: conflicts and retries, and
 * a watch event to every watcher for each), and a report on the Node object
 * would need the right to patch Nodes and would wake every Node watcher in
 * the cluster (the scheduler, kubelets, controllers) for each fault. A
 * report object per node has a single writer, needs no read-modify-write
 * (an unconditional PUT), and is read only by who follows faults. */
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

json_t *mk_freport_json(const mk_freport_agent *a, const mk_fr_entry *e, size_t n, long long now_ms)
{
    char started[40], now[40];
    json_t *faults = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(faults, entry_json(&e[i]));
    mk_ktime_format(a->started_ms, 0, started, sizeof started);
    mk_ktime_format(now_ms, 1, now, sizeof now);
    return json_pack("{ss ss s{ss s{ss}} s{ss s{ss ss si ss sb} ss so}}",
                     "apiVersion", MK_GF_API_VERSION, "kind", "GPUFaultReport",
                     "metadata", "name", a->node, "labels", "mokka.io/agent", "true",
                     "status", "node", a->node,
                     "agent", "version", MOKKA_VERSION, "startedAt", started, "gpus", (int)a->gpus,
                     "mode", a->mode, "running", a->running,
                     "updatedAt", now, "faults", faults);
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
