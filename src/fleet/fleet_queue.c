/* fleet_queue.c - the fleet's writes to the API server, queued: what to
 * write (a node, lease, pod or report, by index), not the request, so that
 * a node or pod is queued once however often it changes (its flag says it
 * is queued) and the write sends what holds when it is sent. Leases and
 * node writes go in the urgent ring and are always taken first: a burst of
 * 8,000 pods must not make a node miss its lease renewal. And one request,
 * counted, as every write makes it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet_int.h"

static int urgent(wkind k)
{
    return k != W_POD && k != W_REPORT;
}

void fleet_queue(mk_fleet *f, wkind kind, int index)
{
    int r = urgent(kind) ? 0 : 1;
    if (f->qlen[r] == f->qcap[r]) {
        size_t cap = f->qcap[r] ? f->qcap[r] * 2 : 1024;
        work *grown = malloc(cap * sizeof *grown);
        if (!grown) {
            say(f, 1, "out of memory: a write was dropped");
            return;
        }
        for (size_t k = 0; k < f->qlen[r]; k++)
            grown[k] = f->q[r][(f->qhead[r] + k) % f->qcap[r]];
        free(f->q[r]);
        f->q[r] = grown;
        f->qcap[r] = cap;
        f->qhead[r] = 0;
    }
    f->q[r][(f->qhead[r] + f->qlen[r]++) % f->qcap[r]] = (work){ kind, index };
    pthread_cond_signal(&f->cv);
}

int fleet_take(mk_fleet *f, work *w)
{
    for (int r = 0; r < 2; r++)
        if (f->qlen[r]) {
            *w = f->q[r][f->qhead[r]];
            f->qhead[r] = (f->qhead[r] + 1) % f->qcap[r];
            f->qlen[r]--;
            return 1;
        }
    return 0;
}

int fleet_request(mk_fleet *f, mk_khttp *h, const char *method, const char *path,
                  const json_t *body, const char *ctype, long *status, json_t **out, char *err,
                  size_t errlen)
{
    mk_kobj_req r = { .method = method, .path = path, .body = body, .content_type = ctype,
                      .deadline_ms = mk_kmono_ms() + WRITE_DEADLINE_MS };
    mk_khttp_counts before, after;
    mk_khttp_counts_get(h, &before);
    int rc = mk_kobj_request(h, &r, status, out, NULL, 0, err, errlen);
    mk_khttp_counts_get(h, &after);
    atomic_fetch_add(&f->requests, 1 + (after.retries - before.retries));
    atomic_fetch_add(&f->retries_seen, after.retries - before.retries);
    return rc == 0 ? 0 : -1;
}
