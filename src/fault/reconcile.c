/* reconcile.c - one node's GPUs brought to the GPUFaults that select it
 * (reconcile.h).
 *
 * Faults are desired state, so each run compares what should hold now
 * with what was applied and acts on the difference only: a fault applied
 * once raises its event once, however often the objects are listed again.
 * Several faults may hold on one GPU; what it shows is their combination:
 * the worst health (lost over a double-bit ECC error over an XID) and, for
 * each pinned metric and for the NVLink fabric, the newest fault's value. Clearing one fault leaves
 * the GPU as the others make it, without new events; clearing the last
 * marks it healthy.
 *
 * What was applied is written beside the live state (cluster-faults.json)
 * after every change: an agent that restarts on the same state knows what
 * it must not raise again and what it must clear, even for a fault deleted
 * while no agent ran. A fresh state (a new `mokka run`) has no journal, so
 * every fault that holds is applied to it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>
#include <jansson.h>
#include "diag.h"
#include "fabric.h"
#include "state.h"
#include "units.h"
#include "reconcile.h"

#define JOURNAL "cluster-faults.json"
#define JOURNAL_LOCK "cluster-faults.lock"

typedef struct applied {
    char *uid, *name, *rv;
    long long generation, created_ms;
    mk_gf_kind kind;
    unsigned xid;
    mk_gf_pin *pins;
    size_t npins;
    mk_gf_fabric fabric;        /* MK_GF_FABRIC */
    unsigned char *hit;         /* [ndev]: the GPUs it holds on */
} applied;

/* A fault that should hold now. */
typedef struct want {
    const mk_gfault *f;
    unsigned char *hit;
    int held;                   /* applied already, as it is */
} want;

struct mk_frec {
    mk_state st;
    unsigned ndev;
    const char **uuids;
    char journal[4200];
    int lock_fd;                /* JOURNAL_LOCK, held for the agent's life */
    applied *ap;
    size_t nap;
    mk_fr_entry *cur, *hist, *out;
    size_t ncur, nhist;
    int changed;
    mk_frec_log log;
    void *log_ctx;
    int fabric_asked;           /* has_fabric was looked for (once, at the first fabric fault) */
    unsigned char *has_fabric;  /* [ndev]: the GPU has an NVLink fabric; NULL: not known */
};

const char *mk_fr_phase_name(mk_fr_phase p)
{
    static const char *const names[] = {"Applied", "Cleared", "Expired", "Rejected"};
    return names[p];
}

/* --- small pieces ------------------------------------------------------------------ */

static void logf_(mk_frec *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(mk_frec *r, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    if (!r->log)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->log(r->log_ctx, msg);
}

static char *dup0(const char *s)
{
    return strdup(s ? s : "");
}

/* Health faults, worst last: what a GPU under several shows. */
static int severity(mk_gf_kind k)
{
    switch (k) {
    case MK_GF_XID: return MK_FAULT_XID;
    case MK_GF_ECC_DOUBLE: return MK_FAULT_ECC;
    case MK_GF_LOST: return MK_FAULT_LOST;
    default: return MK_FAULT_NONE;
    }
}

static int worse(int a, int b)
{
    /* LOST > ECC > XID > NONE, whatever the enum's order. */
    static const int rank[] = {[MK_FAULT_NONE] = 0, [MK_FAULT_XID] = 1, [MK_FAULT_ECC] = 2,
                               [MK_FAULT_LOST] = 3};
    return rank[a] >= rank[b] ? a : b;
}

static void applied_free(applied *a)
{
    free(a->uid);
    free(a->name);
    free(a->rv);
    free(a->pins);
    free(a->hit);
}

static void entry_free(mk_fr_entry *e)
{
    free(e->name);
    free(e->uid);
    free(e->rv);
    free(e->reason);
    free(e->gpus);
}

static void entries_free(mk_fr_entry *e, size_t n)
{
    for (size_t i = 0; i < n; i++)
        entry_free(&e[i]);
    free(e);
}

/* "GPU 3", "GPUs 0, 1, 2" */
static void gpu_list(const unsigned char *hit, unsigned ndev, char *buf, size_t len)
{
    size_t k = 0, n = 0;
    for (unsigned g = 0; g < ndev; g++)
        n += hit[g] != 0;
    k += (size_t)snprintf(buf, len, "GPU%s ", n == 1 ? "" : "s");
    for (unsigned g = 0, first = 1; g < ndev && k < len; g++)
        if (hit[g]) {
            k += (size_t)snprintf(buf + k, len - k, "%s%u", first ? "" : ", ", g);
            first = 0;
        }
}

static void describe_applied(const applied *a, char *buf, size_t len)
{
    mk_gfault f = { .kind = a->kind, .xid = a->xid, .pins = a->pins, .npins = a->npins,
                    .fabric = a->fabric };
    mk_gfault_describe(&f, buf, len);
}

/* --- the journal ---------------------------------------------------------------------- */

static json_t *applied_json(const mk_frec *r, const applied *a)
{
    json_t *gpus = json_array(), *pins = json_array();
    for (unsigned g = 0; g < r->ndev; g++)
        if (a->hit[g])
            json_array_append_new(gpus, json_integer(g));
    for (size_t i = 0; i < a->npins; i++)
        json_array_append_new(pins, json_pack("[iI]", a->pins[i].metric, (json_int_t)a->pins[i].value));
    json_t *j = json_pack("{ss ss ss sI sI si si so so}", "uid", a->uid, "name", a->name, "rv", a->rv,
                          "generation", (json_int_t)a->generation,
                          "created_ms", (json_int_t)a->created_ms, "kind", (int)a->kind,
                          "xid", (int)a->xid, "gpus", gpus, "pins", pins);
    /* Only fabric faults have it: journals from before it read the same. */
    if (j && a->kind == MK_GF_FABRIC)
        json_object_set_new(j, "fabric", json_pack("[iii]", a->fabric.state, (int)a->fabric.status,
                                                   (int)a->fabric.health));
    return j;
}

/* A fabric fault's [state, status, health]; 0, or -1 when it is not one. */
static int fabric_from_json(const json_t *j, mk_gf_fabric *out)
{
    int state, status, health;
    if (json_unpack((json_t *)j, "[iii]", &state, &status, &health) ||
        state <= MK_FABRIC_NOT_SUPPORTED || state > MK_FABRIC_COMPLETED || status < 0 ||
        health < 0 || health >= 1 << MK_FABRIC_HEALTH_BITS)
        return -1;
    *out = (mk_gf_fabric){ state, (unsigned)status, (unsigned)health };
    return 0;
}

/* Written whole to a new file, then renamed over the old: a crash leaves
 * one or the other, never half of one. */
static int save_journal(mk_frec *r, char *err, size_t errlen)
{
    json_t *list = json_array();
    char tmp[4300];
    for (size_t i = 0; i < r->nap; i++)
        json_array_append_new(list, applied_json(r, &r->ap[i]));
    json_t *doc = json_pack("{si so}", "version", 1, "applied", list);
    snprintf(tmp, sizeof tmp, "%s.tmp", r->journal);
    int rc = doc && json_dump_file(doc, tmp, JSON_INDENT(1)) == 0 && rename(tmp, r->journal) == 0 ? 0 : -1;
    if (rc)
        snprintf(err, errlen, "cannot write %.400s: %s", r->journal, strerror(errno));
    json_decref(doc);
    return rc;
}

/* An entry of the journal; 0, or -1 when it is not one of ours. */
static int applied_from_json(const mk_frec *r, json_t *j, applied *a)
{
    json_int_t gen = 0, created = 0;
    int kind = -1, xid = 0;
    const char *uid, *name, *rv;
    json_t *gpus, *pins, *fabric = NULL;
    memset(a, 0, sizeof *a);
    if (json_unpack(j, "{ss ss ss sI sI si si so so s?o}", "uid", &uid, "name", &name, "rv", &rv,
                    "generation", &gen, "created_ms", &created, "kind", &kind, "xid", &xid,
                    "gpus", &gpus, "pins", &pins, "fabric", &fabric) ||
        kind < MK_GF_XID || kind > MK_GF_FABRIC || !json_is_array(gpus) || !json_is_array(pins) ||
        (kind == MK_GF_FABRIC && fabric_from_json(fabric, &a->fabric)))
        return -1;
    a->hit = calloc(r->ndev ? r->ndev : 1, 1);
    a->pins = calloc(json_array_size(pins) + 1, sizeof *a->pins);
    a->uid = strdup(uid);
    a->name = strdup(name);
    a->rv = strdup(rv);
    if (!a->hit || !a->pins || !a->uid || !a->name || !a->rv) {
        applied_free(a);
        return -1;
    }
    a->generation = gen;
    a->created_ms = created;
    a->kind = (mk_gf_kind)kind;
    a->xid = (unsigned)xid;
    size_t i;
    json_t *v;
    json_array_foreach(gpus, i, v) {
        json_int_t g = json_integer_value(v);
        if (g >= 0 && g < (json_int_t)r->ndev)
            a->hit[g] = 1;
    }
    json_array_foreach(pins, i, v) {
        int m = (int)json_integer_value(json_array_get(v, 0));
        if (m >= 0 && m < MK_M_COUNT)
            a->pins[a->npins++] = (mk_gf_pin){ .metric = m,
                                               .value = json_integer_value(json_array_get(v, 1)) };
    }
    return 0;
}

/* A journal that is missing is a fresh state; one that cannot be read is
 * said once and treated as fresh (the faults that hold are applied anew). */
static int load_journal(mk_frec *r)
{
    json_error_t je;
    json_t *doc = json_load_file(r->journal, 0, &je), *list = json_object_get(doc, "applied");
    size_t i;
    json_t *v;
    if (!doc) {
        if (access(r->journal, F_OK) == 0)
            logf_(r, "warning: %s is not readable (%s); applying the faults that hold anew",
                  r->journal, je.text);
        return 0;
    }
    r->ap = calloc(json_array_size(list) + 1, sizeof *r->ap);
    if (!r->ap) {
        json_decref(doc);
        return -1;
    }
    json_array_foreach(list, i, v)
        if (applied_from_json(r, v, &r->ap[r->nap]) == 0)
            r->nap++;
    json_decref(doc);
    return 0;
}

/* --- open, close ------------------------------------------------------------------------ */

/* One agent per state: two would each rewrite the journal from what they
 * alone applied (the last rename wins, the other's entries are lost) and
 * raise every fault twice. The lock (flock, released by the kernel when the
 * agent dies, however) is held from open to close; the holder's pid is
 * written in the file for the message the next one gets. */
static int lock_journal(mk_frec *r, const char *dir, int dirlen, char *err, size_t errlen)
{
    char path[4300];
    snprintf(path, sizeof path, "%.*s%s", dirlen, dir, JOURNAL_LOCK);
    r->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (r->lock_fd < 0) {
        snprintf(err, errlen, "cannot open %.400s: %s", path, strerror(errno));
        return -1;
    }
    if (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        char pid[32] = "";
        ssize_t n = pread(r->lock_fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = 0;
        pid[strcspn(pid, "\n")] = 0;
        snprintf(err, errlen, "another agent (pid %s) already applies GPUFaults to the live "
                 "state in %.*s: one agent per state directory; stop it, or give this one a "
                 "state directory of its own (--state-dir)",
                 pid[0] ? pid : "unknown", dirlen > 0 ? dirlen - 1 : 1, dirlen > 0 ? dir : ".");
        return -1;
    }
    char me[32];
    int n = snprintf(me, sizeof me, "%d\n", (int)getpid());
    if (ftruncate(r->lock_fd, 0) != 0 || pwrite(r->lock_fd, me, (size_t)n, 0) != n) {
        snprintf(err, errlen, "cannot write %.400s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

mk_frec *mk_frec_open(const char *state_path, mk_frec_log log, void *log_ctx, char *err,
                      size_t errlen)
{
    mk_frec *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    r->log = log;
    r->log_ctx = log_ctx;
    r->lock_fd = -1;
    const char *slash = strrchr(state_path, '/');
    int dirlen = slash ? (int)(slash - state_path + 1) : 0;
    if (lock_journal(r, state_path, dirlen, err, errlen) != 0 ||
        mk_state_open_existing(&r->st, state_path, err, errlen)) {
        if (r->lock_fd >= 0)
            close(r->lock_fd);
        free(r);
        return NULL;
    }
    r->ndev = r->st.hdr->ndev;
    snprintf(r->journal, sizeof r->journal, "%.*s%s", dirlen, state_path, JOURNAL);
    r->uuids = calloc(r->ndev + 1, sizeof *r->uuids);
    if (!r->uuids || load_journal(r)) {
        snprintf(err, errlen, "out of memory");
        mk_frec_close(r);
        return NULL;
    }
    for (unsigned g = 0; g < r->ndev; g++)
        r->uuids[g] = r->st.dev[g].uuid;
    return r;
}

void mk_frec_close(mk_frec *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nap; i++)
        applied_free(&r->ap[i]);
    free(r->ap);
    entries_free(r->cur, r->ncur);
    entries_free(r->hist, r->nhist);
    free(r->out);
    free(r->uuids);
    free(r->has_fabric);
    mk_state_close(&r->st);
    if (r->lock_fd >= 0)
        close(r->lock_fd);
    free(r);
}

unsigned mk_frec_ngpus(const mk_frec *r)
{
    return r->ndev;
}

/* --- GPUs without a fabric ----------------------------------------------------------------- */

/* Which GPUs have an NVLink fabric: the state does not say, the universe it
 * was made from does. Loaded once, when the first fabric fault comes (other
 * faults never pay for it), and only trusted when it still describes the
 * state's GPUs; when it does not load, every GPU is taken to have one and
 * NVML ignores the fault's word on those that do not. */
static const unsigned char *fabric_gpus(mk_frec *r)
{
    if (r->fabric_asked)
        return r->has_fabric;
    r->fabric_asked = 1;
    mk_diags d;
    mk_diags_init(&d);
    const char *cfg = r->st.hdr->config_path;
    mk_universe *u = mk_universe_load(cfg[0] ? cfg : NULL, r->st.hdr->node, &d);
    int same = u && u->ndev == r->ndev;
    for (unsigned g = 0; same && g < r->ndev; g++)
        same = strcmp(u->dev[g].uuid, r->st.dev[g].uuid) == 0;
    if (same && (r->has_fabric = calloc(r->ndev + 1, 1)))
        for (unsigned g = 0; g < r->ndev; g++)
            r->has_fabric[g] = u->dev[g].fabric.state != MK_FABRIC_NOT_SUPPORTED;
    if (!same)
        logf_(r, "warning: the config %s does not describe this state's GPUs now; fabric faults "
              "are applied to every GPU they name (NVML ignores them on GPUs without a fabric)",
              cfg[0] ? cfg : "(built-in)");
    mk_universe_free(u);
    mk_diags_free(&d);
    return r->has_fabric;
}

/* A fabric fault on a GPU without a fabric is refused, as `mokka inject`
 * refuses it locally: 0, or -1 with why. */
static int fabric_check(mk_frec *r, const mk_gfault *f, const unsigned char *hit, char *why,
                        size_t whylen)
{
    const unsigned char *has = f->kind == MK_GF_FABRIC ? fabric_gpus(r) : NULL;
    for (unsigned g = 0; has && g < r->ndev; g++)
        if (hit[g] && !has[g]) {
            snprintf(why, whylen, "GPU %u (%s) has no NVLink fabric: its NVML answers "
                     "NOT_SUPPORTED", g, r->st.dev[g].name);
            return -1;
        }
    return 0;
}

/* --- acting on the GPUs ------------------------------------------------------------------ */

/* Whether a is newer than b: pins of the newer fault win. */
static int newer(const applied *a, const applied *b)
{
    return a->created_ms != b->created_ms ? a->created_ms > b->created_ms
                                          : strcmp(a->name, b->name) > 0;
}

/* The XID a health fault raises: what its GPU shows as the last one. */
static unsigned fault_xid(const applied *a)
{
    switch (a->kind) {
    case MK_GF_XID: return a->xid;
    case MK_GF_ECC_DOUBLE: return 48;
    case MK_GF_LOST: return 79;
    default: return 0;
    }
}

/* The fault's event on each GPU it names, once. */
static void raise_on(mk_frec *r, const applied *a)
{
    for (unsigned g = 0; g < r->ndev; g++) {
        if (!a->hit[g])
            continue;
        switch (a->kind) {
        case MK_GF_XID: mk_state_raise(&r->st, g, MK_FAULT_XID, a->xid, -1); break;
        case MK_GF_ECC_SINGLE: mk_state_raise_ecc(&r->st, g, 0, -1); break;
        case MK_GF_ECC_DOUBLE: mk_state_raise_ecc(&r->st, g, 1, -1); break;
        case MK_GF_LOST: mk_state_raise(&r->st, g, MK_FAULT_LOST, fault_xid(a), -1); break;
        case MK_GF_HEALTHY: mk_state_mark_healthy(&r->st, g); break;
        case MK_GF_SET: break;          /* pins: settle_pins */
        case MK_GF_FABRIC: break;       /* settle_fabric */
        }
    }
}

/* After a health fault left GPU g: the worst of those that still hold, with
 * the XID of the newest of them (whichever order they were raised in), or
 * healthy. */
static void settle_health(mk_frec *r, unsigned g)
{
    int mode = MK_FAULT_NONE;
    for (size_t i = 0; i < r->nap; i++)
        if (r->ap[i].hit[g])
            mode = worse(mode, severity(r->ap[i].kind));
    const applied *best = NULL;
    for (size_t i = 0; mode != MK_FAULT_NONE && i < r->nap; i++)
        if (r->ap[i].hit[g] && severity(r->ap[i].kind) == mode && (!best || newer(&r->ap[i], best)))
            best = &r->ap[i];
    mk_state_hold(&r->st, g, (mk_fault_mode)mode, best ? fault_xid(best) : 0);
}

/* Each metric in `metrics` on GPU g: the newest holder's value, or the
 * config's again. */
static void settle_pins(mk_frec *r, unsigned g, uint32_t metrics)
{
    for (int m = 0; m < MK_M_COUNT; m++) {
        if (!(metrics & (1u << m)))
            continue;
        const applied *best = NULL;
        int64_t v = 0;
        for (size_t i = 0; i < r->nap; i++)
            for (size_t k = 0; r->ap[i].hit[g] && k < r->ap[i].npins; k++)
                if (r->ap[i].pins[k].metric == m && (!best || newer(&r->ap[i], best))) {
                    best = &r->ap[i];
                    v = r->ap[i].pins[k].value;
                }
        if (best)
            mk_state_pin(&r->st, g, (mk_metric)m, v);
        else
            mk_state_unpin(&r->st, g, (mk_metric)m);
    }
}

/* GPU g's fabric: the newest fabric fault's word, or the config's again. */
static void settle_fabric(mk_frec *r, unsigned g)
{
    const applied *best = NULL;
    for (size_t i = 0; i < r->nap; i++)
        if (r->ap[i].hit[g] && r->ap[i].kind == MK_GF_FABRIC && (!best || newer(&r->ap[i], best)))
            best = &r->ap[i];
    mk_fabric f = { 0 };
    if (best)
        f = (mk_fabric){ .state = best->fabric.state, .status = (int)best->fabric.status,
                         .health = best->fabric.health };
    mk_state_fabric(&r->st, g, best ? mk_fabric_pack(&f) : 0);
}

static uint32_t pin_mask(const applied *a)
{
    uint32_t m = 0;
    for (size_t k = 0; k < a->npins; k++)
        m |= 1u << a->pins[k].metric;
    return m;
}

/* What a run changes on each GPU, settled once at the end. */
typedef struct touched {
    unsigned char *health;     /* [ndev]: a health fault left it */
    uint32_t *pins;            /* [ndev]: metrics to settle */
    unsigned char *fabric;     /* [ndev]: a fabric fault came or left */
} touched;

static int push_hist(mk_frec *r, mk_fr_entry *e);
static const mk_fr_entry *find_entry(const mk_fr_entry *e, size_t n, const char *uid);

/* A fault cleared that the report did not list (an agent restarted on the
 * state clears what was deleted meanwhile) still goes into its history. */
static int remember_cleared(mk_frec *r, const applied *a, long long now)
{
    if (find_entry(r->cur, r->ncur, a->uid))
        return 0;                   /* settle_entries moves it */
    mk_fr_entry e = { .name = dup0(a->name), .uid = dup0(a->uid), .rv = dup0(a->rv),
                      .phase = MK_FR_CLEARED, .gpus = calloc(r->ndev + 1, sizeof *e.gpus),
                      .time_ms = now };
    for (unsigned g = 0; e.gpus && g < r->ndev; g++)
        if (a->hit[g])
            e.gpus[e.ngpus++] = g;
    if (!e.name || !e.uid || !e.rv || !e.gpus || push_hist(r, &e)) {
        entry_free(&e);
        return -1;
    }
    r->changed = 1;
    return 0;
}

static void forget(mk_frec *r, size_t i, touched *t, long long now, const char *why)
{
    applied *a = &r->ap[i];
    remember_cleared(r, a, now);
    char what[256], gpus[256];
    describe_applied(a, what, sizeof what);
    gpu_list(a->hit, r->ndev, gpus, sizeof gpus);
    logf_(r, "cleared GPUFault %s (%s) from %s: %s", a->name, what, gpus, why);
    for (unsigned g = 0; g < r->ndev; g++) {
        if (!a->hit[g])
            continue;
        t->health[g] |= severity(a->kind) != MK_FAULT_NONE;
        t->pins[g] |= pin_mask(a);
        t->fabric[g] |= a->kind == MK_GF_FABRIC;
    }
    applied_free(a);
    memmove(a, a + 1, (r->nap - i - 1) * sizeof *a);
    r->nap--;
}

/* Takes w->hit. */
static int apply(mk_frec *r, want *w, touched *t)
{
    const mk_gfault *f = w->f;
    applied a = { .uid = dup0(f->uid), .name = dup0(f->name), .rv = dup0(f->rv),
                  .generation = f->generation, .created_ms = f->created_ms, .kind = f->kind,
                  .xid = f->xid, .npins = f->npins, .fabric = f->fabric, .hit = w->hit };
    a.pins = malloc((f->npins + 1) * sizeof *a.pins);
    applied *grown = realloc(r->ap, (r->nap + 1) * sizeof *grown);
    w->hit = NULL;
    if (grown)
        r->ap = grown;
    if (!a.uid || !a.name || !a.rv || !a.pins || !grown) {
        applied_free(&a);
        return -1;
    }
    if (f->npins)
        memcpy(a.pins, f->pins, f->npins * sizeof *a.pins);
    raise_on(r, &a);
    for (unsigned g = 0; g < r->ndev; g++)
        if (a.hit[g]) {
            t->pins[g] |= pin_mask(&a);
            t->fabric[g] |= a.kind == MK_GF_FABRIC;
        }
    r->ap[r->nap++] = a;
    char what[256], gpus[256];
    mk_gfault_describe(f, what, sizeof what);
    gpu_list(a.hit, r->ndev, gpus, sizeof gpus);
    logf_(r, "applied GPUFault %s (%s) to %s at resourceVersion %s", a.name, what, gpus, a.rv);
    return 0;
}

static want *find_want(want *w, size_t n, const char *uid)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(w[i].f->uid ? w[i].f->uid : "", uid))
            return &w[i];
    return NULL;
}

static const mk_gfault *find_fault(const mk_gfault *f, size_t n, const char *uid)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].uid ? f[i].uid : "", uid))
            return &f[i];
    return NULL;
}

/* --- the report's entries ---------------------------------------------------------------- */

static int add_entry(mk_fr_entry **list, size_t *n, const mk_gfault *f, mk_fr_phase phase,
                     const char *reason, const unsigned char *hit, unsigned ndev, long long now)
{
    mk_fr_entry *grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    *list = grown;
    mk_fr_entry *e = &grown[*n];
    *e = (mk_fr_entry){ .name = dup0(f->name), .uid = dup0(f->uid), .rv = dup0(f->rv),
                        .phase = phase, .reason = reason ? strdup(reason) : NULL,
                        .gpus = calloc(ndev + 1, sizeof *e->gpus), .time_ms = now };
    for (unsigned g = 0; hit && e->gpus && g < ndev; g++)
        if (hit[g])
            e->gpus[e->ngpus++] = g;
    (*n)++;
    return e->name && e->uid && e->rv && e->gpus && (!reason || e->reason) ? 0 : -1;
}

static int same_entry(const mk_fr_entry *a, const mk_fr_entry *b)
{
    return a->phase == b->phase && !strcmp(a->rv, b->rv) && !strcmp(a->name, b->name) &&
           !strcmp(a->reason ? a->reason : "", b->reason ? b->reason : "") &&
           a->ngpus == b->ngpus && !memcmp(a->gpus, b->gpus, a->ngpus * sizeof *a->gpus);
}

static const mk_fr_entry *find_entry(const mk_fr_entry *e, size_t n, const char *uid)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(e[i].uid, uid))
            return &e[i];
    return NULL;
}

/* Takes *e as the newest history entry; the oldest goes past MK_FR_HISTORY. */
static int push_hist(mk_frec *r, mk_fr_entry *e)
{
    if (r->nhist == MK_FR_HISTORY)
        entry_free(&r->hist[--r->nhist]);
    mk_fr_entry *grown = realloc(r->hist, (r->nhist + 1) * sizeof *grown);
    if (!grown)
        return -1;
    r->hist = grown;
    memmove(r->hist + 1, r->hist, r->nhist * sizeof *r->hist);
    r->hist[0] = *e;
    r->nhist++;
    return 0;
}

/* The new entries replace the old: an entry that did not change keeps its
 * time; one whose fault left becomes history (Applied -> Cleared, Expired
 * stays Expired; a rejection is simply gone). */
static int settle_entries(mk_frec *r, mk_fr_entry *fresh, size_t nfresh, long long now)
{
    int changed = nfresh != r->ncur;
    for (size_t i = 0; i < nfresh; i++) {
        const mk_fr_entry *old = find_entry(r->cur, r->ncur, fresh[i].uid);
        if (old && same_entry(old, &fresh[i]))
            fresh[i].time_ms = old->time_ms;
        else
            changed = 1;
    }
    for (size_t i = 0; i < r->ncur; i++) {
        mk_fr_entry *old = &r->cur[i];
        if (find_entry(fresh, nfresh, old->uid) || old->phase == MK_FR_REJECTED)
            continue;
        if (old->phase == MK_FR_APPLIED) {
            old->phase = MK_FR_CLEARED;
            old->time_ms = now;
        }
        if (push_hist(r, old))
            return -1;
        *old = (mk_fr_entry){ 0 };
        changed = 1;
    }
    /* A fault that is back (selected again) is no longer history. */
    for (size_t i = 0; i < r->nhist;) {
        if (find_entry(fresh, nfresh, r->hist[i].uid)) {
            entry_free(&r->hist[i]);
            memmove(&r->hist[i], &r->hist[i + 1], (r->nhist - i - 1) * sizeof *r->hist);
            r->nhist--;
            changed = 1;
        } else {
            i++;
        }
    }
    entries_free(r->cur, r->ncur);
    r->cur = fresh;
    r->ncur = nfresh;
    r->changed |= changed;
    return 0;
}

/* --- one run ------------------------------------------------------------------------------ */

static int same_gpus(const unsigned char *a, const unsigned char *b, unsigned n)
{
    return !memcmp(a, b, n);
}

int mk_frec_run(mk_frec *r, const mk_gfault *faults, size_t n, const char *node,
                const mk_nv_kv *labels, size_t nlabels, long long now_ms, long long *next_ms)
{
    want *w = calloc(n + 1, sizeof *w);
    touched t = { calloc(r->ndev + 1, 1), calloc(r->ndev + 1, sizeof *t.pins),
                  calloc(r->ndev + 1, 1) };
    mk_fr_entry *fresh = NULL;
    size_t nw = 0, nfresh = 0;
    int rc = w && t.health && t.pins && t.fabric ? 0 : -1, journal = 0;
    char why[512], err[512];
    *next_ms = 0;

    /* What should hold now, and what the report says of each fault. */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const mk_gfault *f = &faults[i];
        unsigned char *hit = NULL;
        if (f->invalid[0]) {
            rc = add_entry(&fresh, &nfresh, f, MK_FR_REJECTED, f->invalid, NULL, r->ndev, now_ms);
            continue;
        }
        if (!mk_gfault_selects(f, node, labels, nlabels))
            continue;
        if (!(hit = calloc(r->ndev + 1, 1))) {
            rc = -1;
        } else if (mk_gfault_gpus(f, r->ndev, r->uuids, hit, why, sizeof why) ||
                   fabric_check(r, f, hit, why, sizeof why)) {
            rc = add_entry(&fresh, &nfresh, f, MK_FR_REJECTED, why, NULL, r->ndev, now_ms);
        } else if (f->expires_ms && now_ms >= f->expires_ms) {
            rc = add_entry(&fresh, &nfresh, f, MK_FR_EXPIRED, NULL, hit, r->ndev, now_ms);
        } else {
            rc = add_entry(&fresh, &nfresh, f, MK_FR_APPLIED, NULL, hit, r->ndev, now_ms);
            w[nw++] = (want){ f, hit, 0 };
            hit = NULL;
            if (f->expires_ms && (!*next_ms || f->expires_ms < *next_ms))
                *next_ms = f->expires_ms;
        }
        free(hit);
    }

    /* Clear what no longer holds (or holds differently: cleared, then applied anew). */
    for (size_t i = r->nap; rc == 0 && i-- > 0;) {
        applied *a = &r->ap[i];
        want *x = find_want(w, nw, a->uid);
        if (x && x->f->generation == a->generation && same_gpus(x->hit, a->hit, r->ndev)) {
            if (strcmp(a->rv, x->f->rv ? x->f->rv : "")) {
                free(a->rv);
                a->rv = dup0(x->f->rv);
                journal = 1;
            }
            x->held = 1;
            continue;
        }
        const mk_gfault *f = find_fault(faults, n, a->uid);
        forget(r, i, &t, now_ms, !f ? "the GPUFault was deleted"
                         : x ? "its spec changed; applying it anew"
                         : f->expires_ms && now_ms >= f->expires_ms ? "it expired"
                         : f->invalid[0] ? "it is no longer valid"
                         : "it no longer selects this node");
        journal = 1;
    }
    for (unsigned g = 0; rc == 0 && g < r->ndev; g++)
        if (t.health[g])
            settle_health(r, g);

    /* Apply what is new, oldest first. */
    for (size_t i = 0; rc == 0 && i < nw; i++)
        if (!w[i].held) {
            rc = apply(r, &w[i], &t);
            journal = 1;
        }
    for (unsigned g = 0; rc == 0 && g < r->ndev; g++)
        if (t.pins[g] || t.fabric[g]) {
            settle_pins(r, g, t.pins[g]);
            if (t.fabric[g])
                settle_fabric(r, g);
        }

    if (journal && save_journal(r, err, sizeof err))
        logf_(r, "warning: %s; an agent restarted on this state would apply the faults anew", err);
    if (rc == 0)
        rc = settle_entries(r, fresh, nfresh, now_ms);
    else
        entries_free(fresh, nfresh);
    for (size_t i = 0; i < nw; i++)
        free(w[i].hit);
    free(w);
    free(t.health);
    free(t.pins);
    free(t.fabric);
    return rc;
}

const mk_fr_entry *mk_frec_entries(mk_frec *r, size_t *n, int *changed)
{
    mk_fr_entry *out = realloc(r->out, (r->ncur + r->nhist + 1) * sizeof *out);
    if (out) {
        r->out = out;
        if (r->ncur)
            memcpy(out, r->cur, r->ncur * sizeof *out);
        if (r->nhist)
            memcpy(out + r->ncur, r->hist, r->nhist * sizeof *out);
    }
    *n = out ? r->ncur + r->nhist : 0;
    *changed = r->changed;
    r->changed = 0;
    return r->out;
}
