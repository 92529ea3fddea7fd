/* healwatch.c - a GPU that is healthy again reaches the node: NVIDIA's
 * device plugin marks a device unhealthy on an XID and never turns it
 * healthy again, so while `mokka run --hold` serves a node, a GPU that was
 * unhealthy and is healthy again in the live state (a GPUFault deleted or
 * expired, `mokka inject --healthy`, a suite's `healthy: true`, any change of
 * the state) gets the plugins that serve it restarted: once the state has
 * been quiet for a moment (a fault cleared on eight GPUs is one restart),
 * said in one line. A restarted plugin sees the GPUs still broken as broken
 * (the library replays the fault that broke them, nvml_events.c), so only
 * the healed ones come back.
 *
 * It watches from the plugins' start: a GPU broken and healed during the
 * suites without a restart-plugin is due as soon as the hold begins. What
 * each plugin has seen is kept per plugin and GPU ("stale": the plugin may
 * hold the GPU unhealthy), reset when that plugin starts again for any
 * reason (a crash, a suite's restart-plugin, this file's restart). */
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run.h"
#include "util/util.h"

#define HEAL_QUIET_S 1.0      /* the state quiet this long before a restart */
#define HEAL_POLL_NS 200000000ull

struct mk_healwatch {
    mk_healwatch_opts o;
    char state_path[4300];
    pthread_t thread;
    _Atomic int quit, armed;
    mk_state st;
    int st_open;
    unsigned ngpus;
    uint32_t *health;          /* per GPU, as last seen */
    uint64_t *faults;          /* per GPU: XIDs and double-bit ECC errors so far */
    unsigned *why_xid;         /* per GPU: the XID of the last breakage seen (0: none) */
    uint32_t *why_mode;        /* per GPU: its mk_fault_mode */
    unsigned char *stale;      /* [plugin * ngpus + GPU] */
    unsigned *gen;             /* per plugin: starts after the first, as last seen */
    double due;                /* when the restart is due (0: none) */
};

/* A line for the run's log. */
#define say(h, warning, ...) mk_logf((h)->o.log, (h)->o.log_ctx, (warning), __VA_ARGS__)

/* How often plugin p was started after its first start. */
static unsigned generation(const mk_healwatch *h, size_t p)
{
    unsigned crashes = 0, restarts = 0;
    mk_super_status(h->o.plugins[p].super, &crashes, &restarts, NULL, 0);
    return crashes + restarts;
}

static uint64_t faults_of(const mk_state_dev *sd)
{
    return atomic_load(&sd->xid_count) + atomic_load(&sd->ecc_dbe);
}

/* The live state appears when the plugin first calls nvmlInit, which may
 * be after the node shows its GPUs (cluster mode): looked for until then.
 * What the plugins saw before it existed is nothing. */
static int open_state(mk_healwatch *h)
{
    char err[600];
    if (mk_state_open_existing(&h->st, h->state_path, err, sizeof err) != 0)
        return -1;
    unsigned n = h->st.hdr->ndev;
    size_t np = h->o.nplugins;
    h->health = calloc(n ? n : 1, sizeof *h->health);
    h->faults = calloc(n ? n : 1, sizeof *h->faults);
    h->why_xid = calloc(n ? n : 1, sizeof *h->why_xid);
    h->why_mode = calloc(n ? n : 1, sizeof *h->why_mode);
    h->stale = calloc(np * n + 1, 1);
    h->gen = calloc(np + 1, sizeof *h->gen);
    if (!h->health || !h->faults || !h->why_xid || !h->why_mode || !h->stale || !h->gen) {
        mk_state_close(&h->st);
        say(h, 1, "out of memory: GPUs healthy again will not restart the plugin");
        return -2;
    }
    h->ngpus = n;
    for (size_t p = 0; p < np; p++)
        h->gen[p] = generation(h, p);
    h->st_open = 1;
    return 0;
}

/* Brings what each plugin may hold unhealthy up to date; 1 when a GPU
 * turned healthy again (or broke and healed between two looks). */
static int look(mk_healwatch *h)
{
    int healed = 0;
    for (size_t p = 0; p < h->o.nplugins; p++) {
        unsigned g = generation(h, p);
        if (g == h->gen[p])
            continue;
        /* Started again: it sees what is broken now, nothing else. */
        h->gen[p] = g;
        for (unsigned d = 0; d < h->ngpus; d++)
            h->stale[p * h->ngpus + d] = atomic_load(&h->st.dev[d].health) != MK_FAULT_NONE;
    }
    for (unsigned d = 0; d < h->ngpus; d++) {
        const mk_state_dev *sd = &h->st.dev[d];
        uint32_t now = atomic_load(&sd->health);
        uint64_t f = faults_of(sd);
        int broke = now != MK_FAULT_NONE || f != h->faults[d];
        if (broke) {
            h->why_mode[d] = now != MK_FAULT_NONE ? now : MK_FAULT_XID;
            h->why_xid[d] = atomic_load(&sd->last_xid);
            for (size_t p = 0; p < h->o.nplugins; p++)
                h->stale[p * h->ngpus + d] = 1;
        }
        healed |= now == MK_FAULT_NONE && (h->health[d] != MK_FAULT_NONE || f != h->faults[d]);
        h->health[d] = now;
        h->faults[d] = f;
    }
    return healed;
}

/* Whether plugin p serves GPU d, as far as the kubelet's view tells: its
 * resources list the GPU's UUID or one of its MIG devices. A plugin that
 * serves nothing (another one replaced it) is left alone; one whose
 * device ids are no UUIDs (DEVICE_ID_STRATEGY=index) serves them all. */
static int serves(const mk_healwatch *h, const mk_nv_node *node, size_t p, unsigned d)
{
    if (h->o.nplugins == 1 || !node)
        return 1;
    const mk_device *dev = d < h->o.u->ndev ? &h->o.u->dev[d] : NULL;
    int any = 0, named = 0;
    for (size_t i = 0; i < node->nres; i++) {
        const mk_nv_resource *res = &node->res[i];
        if (!res->plugin || strcmp(res->plugin, h->o.plugins[p].name) != 0)
            continue;
        any = 1;
        for (size_t k = 0; k < res->ndev && dev; k++) {
            const char *id = res->dev[k].id;
            int uuid = strncmp(id, "GPU-", 4) == 0 || strncmp(id, "MIG-", 4) == 0;
            named |= uuid;
            if (strcmp(id, dev->uuid) == 0)
                return 1;
            for (size_t m = 0; m < dev->nmig; m++)
                if (strcmp(id, dev->mig[m].uuid) == 0)
                    return 1;
        }
    }
    return any && !named;
}

/* "GPU 0 (GPU-...) is healthy again after xid 79" or "GPUs 0, 3 are
 * healthy again after xid 79, ecc" (each cause once) into buf. */
static void describe(const mk_healwatch *h, const unsigned char *healed, char *buf, size_t len)
{
    char gpus[512] = "", causes[256] = "";
    size_t ng = 0, nc = 0, at = 0, atc = 0;
    unsigned first = 0;
    for (unsigned d = 0; d < h->ngpus; d++) {
        if (!healed[d])
            continue;
        char what[32];
        if (h->why_mode[d] == MK_FAULT_XID)
            snprintf(what, sizeof what, "xid %u", h->why_xid[d]);
        else
            snprintf(what, sizeof what, "%s", mk_fault_mode_name((mk_fault_mode)h->why_mode[d]));
        if (!strstr(causes, what) && atc < sizeof causes)
            atc += (size_t)snprintf(causes + atc, sizeof causes - atc, "%s%s", nc++ ? ", " : "", what);
        if (!ng)
            first = d;
        if (at < sizeof gpus)
            at += (size_t)snprintf(gpus + at, sizeof gpus - at, "%s%u", ng ? ", " : "", d);
        ng++;
    }
    if (ng == 1 && first < h->o.u->ndev)
        snprintf(buf, len, "GPU %u (%s) is healthy again after %s", first, h->o.u->dev[first].uuid,
                 causes);
    else
        snprintf(buf, len, "GPUs %s are healthy again after %s", gpus, causes);
}

/* The debounced restart: every plugin that may hold a GPU unhealthy that
 * is healthy now, and serves it. */
static void restart_healed(mk_healwatch *h)
{
    size_t np = h->o.nplugins;
    unsigned char *healed = calloc(h->ngpus + 1, 1), *restart = calloc(np + 1, 1);
    mk_nv_nodes ns = { 0 };
    char err[600], who[600] = "", why[1024];
    int have_view = h->o.src && np > 1 && h->o.src->snapshot(h->o.src, &ns, err, sizeof err) == 0;
    const mk_nv_node *node = have_view && ns.n ? &ns.node[0] : NULL;
    size_t nrestart = 0, at = 0;
    for (size_t p = 0; healed && restart && p < np; p++) {
        mk_super_state st = mk_super_status(h->o.plugins[p].super, NULL, NULL, NULL, 0);
        if (st == MK_SUPER_FAILED || st == MK_SUPER_STOPPED)
            continue;
        for (unsigned d = 0; d < h->ngpus; d++)
            if (h->stale[p * h->ngpus + d] && atomic_load(&h->st.dev[d].health) == MK_FAULT_NONE &&
                serves(h, node, p, d))
                healed[d] = restart[p] = 1;
        if (restart[p] && np > 1 && at < sizeof who)
            at += (size_t)snprintf(who + at, sizeof who - at, "%s'%s'", nrestart ? ", " : "",
                                   h->o.plugins[p].name);
        nrestart += restart[p];
    }
    if (have_view)
        mk_nv_nodes_free(&ns);
    if (nrestart) {
        describe(h, healed, why, sizeof why);
        say(h, 0, "%s: restarting %s%s so that the node advertises %s again (the plugin never "
            "turns a device healthy by itself)", why, np == 1 ? "the plugin" : nrestart > 1
            ? "plugins " : "plugin ", who, strstr(why, " are ") ? "them" : "it");
    }
    for (size_t p = 0; p < np && nrestart && !h->quit; p++)
        if (restart[p] && mk_super_restart(h->o.plugins[p].super, err, sizeof err) != 0)
            say(h, 1, "restarting %s%s%s failed: %s", np > 1 ? "plugin '" : "the plugin",
                np > 1 ? h->o.plugins[p].name : "", np > 1 ? "'" : "", err);
    free(healed);
    free(restart);
}

/* Whether any plugin may hold unhealthy a GPU that is healthy now. */
static int any_healed(const mk_healwatch *h)
{
    for (size_t p = 0; p < h->o.nplugins; p++)
        for (unsigned d = 0; d < h->ngpus; d++)
            if (h->stale[p * h->ngpus + d] && h->health[d] == MK_FAULT_NONE)
                return 1;
    return 0;
}

static void *watch(void *arg)
{
    mk_healwatch *h = arg;
    int was_armed = 0;
    while (!h->quit) {
        if (!h->st_open) {
            if (open_state(h) == -2)
                break;
            if (!h->st_open) {
                usleep(200000);
                continue;
            }
        }
        uint32_t seen = atomic_load(&h->st.hdr->wake);
        int healed = look(h);
        int armed = h->armed;
        /* A heal, or arming with heals already seen, (re)starts the quiet
         * period: a burst of clears is one restart. */
        if (armed && (healed || (!was_armed && any_healed(h))))
            h->due = mk_now_s() + HEAL_QUIET_S;
        was_armed = armed;
        if (h->due && mk_now_s() >= h->due) {
            h->due = 0;
            restart_healed(h);
            continue;
        }
        mk_state_wait(&h->st, seen, HEAL_POLL_NS);
    }
    return NULL;
}

mk_healwatch *mk_healwatch_start(const mk_healwatch_opts *o, char *err, size_t errlen)
{
    mk_healwatch *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->o = *o;
    snprintf(h->state_path, sizeof h->state_path, "%s/state", o->state_dir);
    if (pthread_create(&h->thread, NULL, watch, h) != 0) {
        snprintf(err, errlen, "cannot start a thread");
        free(h);
        return NULL;
    }
    return h;
}

void mk_healwatch_arm(mk_healwatch *h)
{
    if (h)
        h->armed = 1;
}

void mk_healwatch_stop(mk_healwatch *h)
{
    if (!h)
        return;
    h->quit = 1;
    pthread_join(h->thread, NULL);
    if (h->st_open)
        mk_state_close(&h->st);
    free(h->health);
    free(h->faults);
    free(h->why_xid);
    free(h->why_mode);
    free(h->stale);
    free(h->gen);
    free(h);
}
