/* agent.c - a node's fault agent (agent.h).
 *
 * Three threads and three connections: a watch of every GPUFault, a watch
 * of this node's Node object (its labels decide which faults select it),
 * and the agent thread, which wakes when either changes or a fault
 * expires, reconciles the live state (reconcile.c) and writes the node's
 * report when what it says changed. At rest it sends nothing: the watches
 * are renewed every 5-10 minutes and that is all, so a fleet of agents
 * costs the API server two idle watches per node. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "kube/kube.h"
#include "agentreport.h"
#include "faultapi.h"
#include "gpufault.h"
#include "reconcile.h"
#include "util/util.h"
#include "agent.h"

#define DEFAULT_WATCH_TIMEOUT_S 300
#define WRITE_DEADLINE_MS 30000
#define LAST_WRITE_DEADLINE_MS 5000
#define RETRY_FIRST_MS 1000
#define RETRY_MAX_MS 60000
/* Below this many faults at the peak, what the heap keeps is small. */
#define TRIM_MIN_FAULTS 256

struct mk_fagent {
    char *node, *state_path, *mode;
    mk_fagent_opts o;
    mk_kclient *client;         /* its connection: the report's writes */
    mk_kwatch *wf, *wn;
    mk_frec *rec;
    long long started_ms;
    pthread_t thread;
    int running;                /* the agent thread was started */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    /* Under mu. */
    unsigned long version, seen;
    int stop, failed;
    char failure[1024];
    json_t *faults;             /* name -> GPUFault */
    json_t *labels;             /* the node's labels; NULL: no such Node */
    long long next_ms;          /* the next expiry (Unix ms), 0: none */
    /* The watch threads' own, during a LIST. */
    json_t *fpending, *npending;
    size_t nlisted;
    /* The agent thread's own. */
    int report_due;             /* the last write failed: retry at retry_ms */
    long long retry_ms, retry_step_ms;
    char last_write_err[1024];
    size_t peak_faults;         /* the most faults held since memory was last given back */
};

static long long unix_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A line for the agent's log. */
#define say(a, warning, ...) mk_logf((a)->o.log, (a)->o.log_ctx, (warning), __VA_ARGS__)

static void changed(mk_fagent *a)
{
    a->version++;
    pthread_cond_signal(&a->cv);
}

/* --- the GPUFault watch ---------------------------------------------------------------- */

static int f_item(void *ctx, size_t index, json_t *obj, char *err, size_t errlen)
{
    mk_fagent *a = ctx;
    const char *name = mk_kobj_name(obj);
    (void)index;
    if (!a->fpending && !(a->fpending = json_object()))
        return snprintf(err, errlen, "could not be held: out of memory"), -1;
    if (!name)
        return 0;                       /* not an object anyone could have made */
    return json_object_set(a->fpending, name, obj) ? (snprintf(err, errlen, "could not be held: out of memory"), -1) : 0;
}

static void f_abort(void *ctx)
{
    mk_fagent *a = ctx;
    json_decref(a->fpending);
    a->fpending = NULL;
}

static int f_end(void *ctx)
{
    mk_fagent *a = ctx;
    json_t *fresh = a->fpending ? a->fpending : json_object();
    a->fpending = NULL;
    if (!fresh)
        return -1;
    pthread_mutex_lock(&a->mu);
    json_decref(a->faults);
    a->faults = fresh;
    changed(a);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

static int f_event(void *ctx, const char *type, json_t *obj, char *err, size_t errlen)
{
    mk_fagent *a = ctx;
    const char *name = mk_kobj_name(obj);
    int rc = 0;
    if (!name)
        return 0;
    pthread_mutex_lock(&a->mu);
    if (!strcmp(type, "DELETED"))
        json_object_del(a->faults, name);
    else
        rc = json_object_set(a->faults, name, obj);
    changed(a);
    pthread_mutex_unlock(&a->mu);
    if (rc)
        snprintf(err, errlen, "out of memory");
    return rc;
}

/* A GPUFault that cannot be read whole is kept as what was picked of it
 * and why (mk_gfault_unreadable), and reported Rejected with that reason;
 * nameless, it cannot be reported. */
static int f_bad(void *ctx, const char *type, json_t *obj, const char *why, char *err, size_t errlen)
{
    mk_fagent *a = ctx;
    json_t *kept = NULL;
    if (!mk_kobj_name(obj)) {
        say(a, 1, "skipped a GPUFault without a name that can be read: it %s", why);
        return 0;
    }
    if (type && !strcmp(type, "DELETED"))
        return f_event(ctx, type, obj, err, errlen);
    if (!(kept = mk_gfault_unreadable(obj, why)))
        return snprintf(err, errlen, "could not be held: out of memory"), -1;
    int rc = type ? f_event(ctx, type, kept, err, errlen) : f_item(ctx, 0, kept, err, errlen);
    json_decref(kept);
    return rc;
}

static void w_fail(void *ctx, const char *why)
{
    mk_fagent *a = ctx;
    pthread_mutex_lock(&a->mu);
    if (!a->failed)
        snprintf(a->failure, sizeof a->failure, "%s", why);
    a->failed = 1;
    changed(a);
    pthread_mutex_unlock(&a->mu);
}

/* --- the Node watch: its labels ----------------------------------------------------------- */

static json_t *labels_of(const json_t *node)
{
    json_t *l = json_object_get(json_object_get(node, "metadata"), "labels");
    return json_is_object(l) ? json_deep_copy(l) : json_object();
}

static void set_labels(mk_fagent *a, json_t *labels)
{
    pthread_mutex_lock(&a->mu);
    /* Status updates (heartbeats) come every few seconds; only labels matter. */
    int same = (!labels && !a->labels) || (labels && a->labels && json_equal(labels, a->labels));
    json_decref(a->labels);
    a->labels = labels;
    if (!same)
        changed(a);
    pthread_mutex_unlock(&a->mu);
}

static int n_item(void *ctx, size_t index, json_t *obj, char *err, size_t errlen)
{
    mk_fagent *a = ctx;
    (void)index;
    json_decref(a->npending);
    if (!(a->npending = labels_of(obj)))
        return snprintf(err, errlen, "could not be held: out of memory"), -1;
    a->nlisted++;
    return 0;
}

static void n_abort(void *ctx)
{
    mk_fagent *a = ctx;
    json_decref(a->npending);
    a->npending = NULL;
    a->nlisted = 0;
}

static int n_end(void *ctx)
{
    mk_fagent *a = ctx;
    set_labels(a, a->nlisted ? a->npending : NULL);
    a->npending = NULL;
    a->nlisted = 0;
    return 0;
}

/* This node's Node cannot be read whole: its labels stay as last seen. */
static int n_bad(void *ctx, const char *type, json_t *obj, const char *why, char *err, size_t errlen)
{
    mk_fagent *a = ctx;
    (void)obj;
    (void)err;
    (void)errlen;
    if (type && !strcmp(type, "DELETED")) {
        set_labels(a, NULL);
        return 0;
    }
    say(a, 1, "node %s: its Node object cannot be read: it %s; the faults go by the labels last "
        "seen", a->node, why);
    if (!type) {                        /* in a LIST: as if listed with those labels */
        pthread_mutex_lock(&a->mu);
        json_t *l = a->labels ? json_deep_copy(a->labels) : json_object();
        pthread_mutex_unlock(&a->mu);
        if (!l)
            return snprintf(err, errlen, "could not be held: out of memory"), -1;
        json_decref(a->npending);
        a->npending = l;
        a->nlisted++;
    }
    return 0;
}

static int n_event(void *ctx, const char *type, json_t *obj, char *err, size_t errlen)
{
    mk_fagent *a = ctx;
    json_t *l = NULL;
    if (strcmp(type, "DELETED") && !(l = labels_of(obj))) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    set_labels(a, l);
    return 0;
}

/* --- reconciling and reporting -------------------------------------------------------------- */

/* The faults and labels as they are now, parsed outside the lock. */
typedef struct snapshot {
    mk_gfault *f;
    size_t n;
    mk_nv_kv *labels;
    size_t nlabels;
    json_t *fobjs, *lobj;
} snapshot;

static void snapshot_free(snapshot *s)
{
    mk_gfaults_free(s->f, s->n);
    free(s->labels);
    json_decref(s->fobjs);
    json_decref(s->lobj);
}

/* Called with mu held; parsed after unlocking. A deep copy: the watch
 * threads change and free what they hold, and a json value shared between
 * threads is not safe to free (jansson's last decref does not acquire what
 * the other thread wrote). Faults are few; copying them is cheap. */
static void snapshot_take(mk_fagent *a, snapshot *s)
{
    memset(s, 0, sizeof *s);
    s->fobjs = json_deep_copy(a->faults);   /* NULL when out of memory: snapshot_parse says so */
    s->lobj = a->labels ? json_deep_copy(a->labels) : NULL;
}

static int snapshot_parse(snapshot *s)
{
    if (!s->fobjs || !(s->f = mk_gfaults_read(s->fobjs, &s->n)))
        return -1;
    return (s->labels = mk_gfault_labels(s->lobj, &s->nlabels)) ? 0 : -1;
}

static int write_report(mk_fagent *a, mk_khttp *h, int running, long long deadline_ms)
{
    size_t n;
    int ch;
    char err[1024];
    const mk_fr_entry *e = mk_frec_entries(a->rec, &n, &ch);
    mk_freport_agent who = { a->node, a->mode, a->started_ms, mk_frec_ngpus(a->rec), running };
    json_t *rep = mk_freport_json(&who, e, n, unix_ms());
    int rc = rep ? mk_freport_write(h, a->node, rep, deadline_ms, err, sizeof err) : -1;
    json_decref(rep);
    if (rc == -1 && strcmp(err, a->last_write_err)) {
        say(a, 1, "cannot write GPUFaultReport %s: %s; the faults still apply, but `mokka inject "
            "--cluster --wait` cannot see this node until it can", a->node, rep ? err : "out of memory");
        snprintf(a->last_write_err, sizeof a->last_write_err, "%s", err);
    } else if (rc == 0 && a->last_write_err[0]) {
        say(a, 0, "GPUFaultReport %s written again", a->node);
        a->last_write_err[0] = '\0';
    }
    return rc;
}

/* One pass: reconcile, then report when the report changed (or a failed
 * write is due again). Returns MK_KHTTP_STOPPED when stopped. */
static int pass(mk_fagent *a, snapshot *s)
{
    long long next = 0, now = unix_ms();
    size_t n;
    int ch = 0;
    if (snapshot_parse(s) || mk_frec_run(a->rec, s->f, s->n, a->node, s->labels, s->nlabels, now, &next))
        say(a, 1, "out of memory while applying the GPUFaults; retrying at the next change");
    pthread_mutex_lock(&a->mu);
    a->next_ms = next;
    pthread_mutex_unlock(&a->mu);
    mk_frec_entries(a->rec, &n, &ch);
    if (!ch && !(a->report_due && now >= a->retry_ms))
        return 0;
    a->report_due = 1;
    int rc = write_report(a, mk_kclient_http(a->client), 1, mk_kmono_ms() + WRITE_DEADLINE_MS);
    if (rc == 0) {
        a->report_due = 0;
        a->retry_step_ms = 0;
    } else if (rc == -1) {
        a->retry_step_ms = a->retry_step_ms ? a->retry_step_ms * 2 : RETRY_FIRST_MS;
        if (a->retry_step_ms > RETRY_MAX_MS)
            a->retry_step_ms = RETRY_MAX_MS;
        a->retry_ms = unix_ms() + a->retry_step_ms;
    }
    return rc;
}

/* Gives the memory freed with deleted faults back to the system once the
 * faults held fell to half of their peak. glibc keeps what the watch and
 * agent threads free in their arenas, fragmented by what stays: after
 * 10,000 faults were created and deleted the agent stayed at 108 MiB
 * resident with 2 MiB in use; malloc_trim returns the free pages. The
 * peak halves with each trim, so that what the last passes of a large
 * deletion free goes back too, and trims stop below TRIM_MIN_FAULTS. */
static void give_back_memory(mk_fagent *a, size_t held)
{
    if (held > a->peak_faults) {
        a->peak_faults = held;
        return;
    }
    if (a->peak_faults < TRIM_MIN_FAULTS || held > a->peak_faults / 2)
        return;
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    a->peak_faults = held > a->peak_faults / 2 ? held : a->peak_faults / 2;
}

static void wait_until(mk_fagent *a, long long until_ms)
{
    struct timespec ts = { (time_t)(until_ms / 1000), (long)(until_ms % 1000) * 1000000L };
    pthread_cond_timedwait(&a->cv, &a->mu, &ts);
}

static void *agent_thread(void *arg)
{
    mk_fagent *a = arg;
    pthread_mutex_lock(&a->mu);
    while (!a->stop) {
        long long now = unix_ms(), until = now + 60000;
        int retry = a->report_due && now >= a->retry_ms;
        int expiry = a->next_ms && now >= a->next_ms;
        if (a->version == a->seen && !retry && !expiry) {
            if (a->next_ms && a->next_ms < until)
                until = a->next_ms;
            if (a->report_due && a->retry_ms < until)
                until = a->retry_ms;
            wait_until(a, until);
            continue;
        }
        snapshot s;
        a->seen = a->version;
        a->next_ms = 0;
        snapshot_take(a, &s);
        pthread_mutex_unlock(&a->mu);
        int rc = pass(a, &s);
        size_t held = s.n;
        snapshot_free(&s);
        give_back_memory(a, held);
        pthread_mutex_lock(&a->mu);
        if (rc == MK_KHTTP_STOPPED)
            break;
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* --- start, stop ------------------------------------------------------------------------------ */

static void rec_log(void *ctx, const char *msg)
{
    mk_fagent *a = ctx;
    if (!strncmp(msg, "warning: ", 9))
        say(a, 1, "%s", msg + 9);
    else
        say(a, 0, "%s", msg);
}

static mk_kwatch *start_watch(mk_fagent *a, const char *path, const char *what,
                              const mk_kwatch_sink *sink, long long deadline, char *err, size_t errlen)
{
    mk_kwatch_opts wo = {
        .path = path, .what = what, .jitter = 1, .first_deadline_ms = deadline,
        .watch_timeout_s = a->o.watch_timeout_s > 0 ? a->o.watch_timeout_s : DEFAULT_WATCH_TIMEOUT_S,
    };
    return mk_kclient_watch(a->client, &wo, sink, err, errlen);
}

static int open_cluster(mk_fagent *a, char *err, size_t errlen)
{
    long long deadline = mk_kmono_ms() + (a->o.open_timeout_ms > 0 ? a->o.open_timeout_ms
                                                                   : MK_KUBE_OPEN_TIMEOUT_MS);
    mk_kwatch_sink fs = { .item = f_item, .list_end = f_end, .list_abort = f_abort,
                          .event = f_event, .fail = w_fail, .ctx = a, .bad = f_bad };
    mk_kwatch_sink ns = { .item = n_item, .list_end = n_end, .list_abort = n_abort,
                          .event = n_event, .fail = w_fail, .ctx = a, .bad = n_bad };
    mk_kube_opts ko = { .kubeconfig = a->o.kubeconfig, .context = a->o.context,
                        .verbose = a->o.verbose, .log = a->o.log, .log_ctx = a->o.log_ctx };
    if (!(a->client = mk_kclient_open(&ko, err, errlen)))
        return -1;
    if (!(a->wf = start_watch(a, MK_GF_PATH, "GPUFaults", &fs, deadline, err, errlen))) {
        if (strstr(err, ": 404 "))
            snprintf(err + strlen(err), errlen - strlen(err), " (the API server does not know "
                     "GPUFault objects: install their definition with " MK_GF_CRD_HINT ")");
        return -1;
    }
    char *npath = mk_knodes_path(a->node, NULL);
    a->wn = npath ? start_watch(a, npath, "nodes", &ns, deadline, err, errlen) : NULL;
    if (!npath)
        snprintf(err, errlen, "out of memory");
    free(npath);
    return a->wn ? 0 : -1;
}

mk_fagent *mk_fagent_start(const mk_fagent_opts *o, char *err, size_t errlen)
{
    mk_fagent *a = calloc(1, sizeof *a);
    if (!a) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    a->o = *o;
    a->node = strdup(o->node);
    a->state_path = strdup(o->state_path);
    a->mode = strdup(o->mode ? o->mode : "agent");
    a->started_ms = unix_ms();
    a->faults = json_object();
    pthread_mutex_init(&a->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_cond_init(&a->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (!a->node || !a->state_path || !a->mode || !a->faults) {
        snprintf(err, errlen, "out of memory");
        mk_fagent_stop(a);
        return NULL;
    }
    if (!(a->rec = mk_frec_open(a->state_path, rec_log, a, err, errlen)) || open_cluster(a, err, errlen)) {
        mk_fagent_stop(a);
        return NULL;
    }
    if (!a->labels)
        say(a, 1, "node %s is not in the API server: until it is, only GPUFaults that name it or "
            "select every node apply here", a->node);
    /* The first pass here, so that the report exists (the agent is seen)
     * before the caller goes on: written even when it lists nothing. */
    snapshot s;
    a->report_due = 1;
    pthread_mutex_lock(&a->mu);
    a->seen = a->version;
    snapshot_take(a, &s);
    pthread_mutex_unlock(&a->mu);
    pass(a, &s);
    snapshot_free(&s);
    int e = pthread_create(&a->thread, NULL, agent_thread, a);
    if (e) {
        snprintf(err, errlen, "cannot start the agent thread: %s", strerror(e));
        mk_fagent_stop(a);
        return NULL;
    }
    a->running = 1;
    return a;
}

int mk_fagent_failed(mk_fagent *a, char *err, size_t errlen)
{
    pthread_mutex_lock(&a->mu);
    int failed = a->failed;
    if (failed)
        snprintf(err, errlen, "%s", a->failure);
    pthread_mutex_unlock(&a->mu);
    return failed ? -1 : 0;
}

void mk_fagent_stop(mk_fagent *a)
{
    if (!a)
        return;
    if (a->running) {
        pthread_mutex_lock(&a->mu);
        a->stop = 1;
        pthread_cond_signal(&a->cv);
        pthread_mutex_unlock(&a->mu);
        mk_khttp_stop(mk_kclient_http(a->client));   /* a write in progress ends now */
        pthread_join(a->thread, NULL);
    }
    mk_kwatch_free(a->wf);
    mk_kwatch_free(a->wn);
    if (a->running) {
        /* The last word: this node's agent is gone, so followers stop
         * counting it. A fresh connection: the old one was stopped. */
        char err[512];
        mk_khttp *h = mk_kclient_connect(a->client, err, sizeof err);
        if (h)
            write_report(a, h, 0, mk_kmono_ms() + LAST_WRITE_DEADLINE_MS);
        mk_khttp_free(h);
    }
    mk_kclient_close(a->client);
    mk_frec_close(a->rec);
    json_decref(a->faults);
    json_decref(a->labels);
    json_decref(a->fpending);
    json_decref(a->npending);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->cv);
    free(a->node);
    free(a->state_path);
    free(a->mode);
    free(a);
}
