/* kube_watch.c - list+watch of one collection (nodes, GPUFaults, ...), the
 * way client-go's reflector does it: LIST (in pages of 500, as its pager
 * asks), then WATCH from the list's resourceVersion with bookmarks;
 * re-WATCH from the last resourceVersion seen when a stream ends; re-LIST
 * on 410 Gone, whether it comes as the HTTP status or as an ERROR event
 * inside a 200 stream. One thread and one watch serve any number of
 * objects; what they say goes to the caller's sink (for nodes, a store
 * that readers copy: kube_store.c). Answers are framed into objects as
 * they arrive (kube_frame.c): a LIST page costs one object's JSON tree at a
 * time, a watch event is parsed once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include "kube_frame.h"
#include "kube_obj.h"
#include "kube_watch.h"

#define SHORT_WATCH_MS 1000      /* an empty watch shorter than this backs off */
#define STABLE_WATCH_MS 60000    /* a watch that ran this long resets the backoff */

/* What the watch thread does next. */
enum next { WATCH, RELIST, BACKOFF_RELIST };

struct mk_kwatch {
    mk_khttp *http;
    mk_klog log;
    char *list_path;          /* /api/v1/nodes[?fieldSelector=..&labelSelector=..] */
    const char *what;         /* "nodes": for progress lines */
    int watch_timeout_s;
    int jitter;               /* each WATCH asks for watch_timeout_s to twice that */
    mk_kwatch_sink sink;      /* where the objects go; the caller's */
    pthread_t thread;
    int running;
    /* The watch thread's own. */
    char *rv;                 /* resourceVersion to watch from */
    enum next next;
    mk_kstream stream;
    char stream_err[1024];
    unsigned long stream_events;
    atomic_ulong relists, events, bookmarks;
};

/* --- resource versions -------------------------------------------------------------- */

static int set_rv(mk_kwatch *w, const json_t *obj)
{
    const char *rv = json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
    if (!rv)
        return 0;
    char *copy = strdup(rv);
    if (!copy)
        return -1;
    free(w->rv);
    w->rv = copy;
    return 0;
}

/* --- LIST -------------------------------------------------------------------------- */

#define LIST_PAGE 500            /* objects a LIST page asks for: client-go's pager's */

/* One LIST as its pages come in; the items go to the sink as they come. */
typedef struct {
    size_t n;                    /* items so far */
    char *cont;                  /* the last page's continue token; NULL: no more pages */
    int pages;
} list_acc;

static void list_acc_reset(mk_kwatch *w, list_acc *a)
{
    if (a->n || a->pages)
        w->sink.list_abort(w->sink.ctx);
    free(a->cont);
    memset(a, 0, sizeof *a);
}

/* One page as its bytes arrive. */
typedef struct {
    mk_kwatch *w;
    list_acc *acc;
    size_t limit;                /* the limit= asked for; 0: none */
    mk_klist frame;
    int failed;                  /* a bad item or framing: err says why */
    char err[1024];
} page_in;

/* An object the framing could not read whole (`bad`, which quotes the
 * server: scrubbed here) goes to the sink's bad, or is skipped with a
 * warning; the list or watch goes on. type: NULL in a LIST. */
static int bad_object(mk_kwatch *w, const char *type, json_t *obj, const char *bad, char *err,
                      size_t errlen)
{
    char why[512];
    snprintf(why, sizeof why, "%s", bad);
    mk_khttp_scrub(w->http, why, sizeof why);
    if (w->sink.bad)
        return w->sink.bad(w->sink.ctx, type, obj, why, err, errlen);
    const char *name = mk_kobj_name(obj);
    mk_klogf(&w->log, 1, "%s: skipped %s%s%s%s: it %s", w->what, name ? "'" : "an object",
             name ? name : "", name ? "'" : "", type ? " (a watch event)" : " (in a LIST)", why);
    return 0;
}

static int on_item(void *ctx, size_t index, json_t *item, const char *bad)
{
    page_in *p = ctx;
    list_acc *a = p->acc;
    char why[512] = "could not be held: out of memory";
    /* More would be a server ignoring limit=, its answer as big as the
     * cluster: what the sink keeps would grow with it. */
    if (p->limit && index >= p->limit) {
        snprintf(p->err, sizeof p->err, "has more than the %zu items limit= asked for", p->limit);
        return -1;
    }
    if (bad ? bad_object(p->w, NULL, item, bad, why, sizeof why)
            : p->w->sink.item(p->w->sink.ctx, a->n, item, why, sizeof why)) {
        snprintf(p->err, sizeof p->err, "has items[%zu] that %s", index, why);
        return -1;
    }
    a->n++;
    return 0;
}

static int on_page_data(void *ctx, const char *data, size_t len)
{
    page_in *p = ctx;
    if (mk_klist_feed(&p->frame, data, len, on_item, p, p->err, sizeof p->err) == 0)
        return 0;
    p->failed = 1;
    return -1;
}

/* The path of the next page: the first when there is no continue token yet. */
static char *page_path(const mk_kwatch *w, const char *cont)
{
    char *esc = cont ? curl_easy_escape(NULL, cont, 0) : NULL, *path = NULL;
    if ((!cont || esc) &&
        asprintf(&path, "%s%slimit=%d%s%s", w->list_path, strchr(w->list_path, '?') ? "&" : "?",
                 LIST_PAGE, esc ? "&continue=" : "", esc ? esc : "") < 0)
        path = NULL;
    curl_free(esc);
    return path;
}

/* A page's items are in; keep its resourceVersion and continue token from
 * the rest of it. Errors name the answer: "the API server's answer to LIST
 * /api/v1/nodes has items[3] over 4 MiB (...)". */
static int end_page(mk_kwatch *w, const mk_kget *req, page_in *p, char *err, size_t errlen)
{
    char what[512];
    json_t *list = p->failed ? NULL : mk_klist_end(&p->frame, p->err, sizeof p->err);
    list_acc *a = p->acc;
    if (!list) {
        mk_khttp_what(req, what, sizeof what);
        mk_khttp_scrub(w->http, p->err, sizeof p->err);
        snprintf(err, errlen, "the API server's answer to %s %s", what, p->err);
        return -1;
    }
    const char *cont = json_string_value(json_object_get(json_object_get(list, "metadata"), "continue"));
    free(a->cont);
    a->cont = cont && *cont ? strdup(cont) : NULL;
    int oom = (cont && *cont && !a->cont) || set_rv(w, list);
    json_decref(list);
    if (oom) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    a->pages++;
    return 0;
}

/* One LIST, LIST_PAGE objects a page, all from the snapshot the first page
 * was served from. A continue token the server no longer honours (410
 * Expired: its snapshot was compacted away) restarts the list whole, in one
 * answer, as client-go's pager does. Returns 0, MK_KHTTP_FAIL (err),
 * MK_KHTTP_BROKEN or MK_KHTTP_STOPPED. */
static int list_once(mk_kwatch *w, long long deadline_ms, char *err, size_t errlen)
{
    list_acc a = { 0 };
    int paged = 1, rc;
    do {
        char *path = paged ? page_path(w, a.cont) : strdup(w->list_path);
        if (!path) {
            snprintf(err, errlen, "out of memory");
            rc = MK_KHTTP_FAIL;
            break;
        }
        page_in page = { .w = w, .acc = &a, .limit = paged ? LIST_PAGE : 0 };
        mk_kget req = { .path = path, .timeout_s = 120, .deadline_ms = deadline_ms,
                        .max_body = MK_KHTTP_ANSWER_MAX, .sink = on_page_data, .ctx = &page };
        long status = 0;
        rc = mk_khttp_get(w->http, &req, &status, err, errlen);
        if (rc == 0 && status == 410 && a.cont) {
            mk_klogf(&w->log, 0, "list: the continue token expired after %zu %s; listing them "
                     "all at once", a.n, w->what);
            list_acc_reset(w, &a);
            paged = 0;
        } else if (rc == 0 && status == 200) {
            rc = end_page(w, &req, &page, err, errlen) ? MK_KHTTP_FAIL : 0;
        } else if (rc == 0) {
            rc = MK_KHTTP_FAIL;       /* 403, 404, 401 after a refresh: err says which */
        }
        mk_klist_reset(&page.frame);
        free(path);
    } while (rc == 0 && (a.cont || !a.pages));
    if (rc == 0) {
        mk_klogf(&w->log, 0, "listed %zu %s at resourceVersion %s (%d page%s)", a.n, w->what,
                 w->rv ? w->rv : "?", a.pages, a.pages == 1 ? "" : "s");
        rc = w->sink.list_end(w->sink.ctx) ? MK_KHTTP_FAIL : 0;
        a.n = 0;
        a.pages = 0;
        if (rc)
            snprintf(err, errlen, "out of memory");
    }
    list_acc_reset(w, &a);
    return rc;
}

/* LIST the collection; a broken answer is retried after a backoff step, within
 * the deadline (0: none). Returns 0, MK_KHTTP_FAIL (err) or MK_KHTTP_STOPPED. */
static int list_all(mk_kwatch *w, long long deadline_ms, char *err, size_t errlen)
{
    for (;;) {
        char why[1024];
        int rc = list_once(w, deadline_ms, err, errlen);
        if (rc != MK_KHTTP_BROKEN)
            return rc;
        snprintf(why, sizeof why, "%s", err);
        if ((rc = mk_khttp_backoff(w->http, deadline_ms, why, err, errlen)))
            return rc;
    }
}

/* --- WATCH -------------------------------------------------------------------------- */

static int on_event(void *ctx, json_t *ev, const char *bad)
{
    mk_kwatch *w = ctx;
    const char *type = json_string_value(json_object_get(ev, "type"));
    json_t *obj = json_object_get(ev, "object");
    char err[512] = "out of memory";

    if (!type || (bad && !strcmp(type, "ERROR"))) {
        snprintf(w->stream_err, sizeof w->stream_err, "a watch %s%s%s%s",
                 type ? "ERROR event" : "event without a type", bad ? " (it " : "",
                 bad ? bad : "", bad ? ")" : "");
        w->next = BACKOFF_RELIST;
        return -1;
    }
    if (!strcmp(type, "ERROR")) {
        /* A Status object. 410: our resourceVersion is too old to watch from. */
        json_int_t code = json_integer_value(json_object_get(obj, "code"));
        const char *msg = json_string_value(json_object_get(obj, "message"));
        snprintf(w->stream_err, sizeof w->stream_err, "watch ERROR event %lld: %s",
                 (long long)code, msg ? msg : "");
        w->next = code == 410 ? RELIST : BACKOFF_RELIST;
        return -1;
    }
    if (set_rv(w, obj)) {
        snprintf(w->stream_err, sizeof w->stream_err, "out of memory");
        w->next = BACKOFF_RELIST;
        return -1;
    }
    if (!strcmp(type, "BOOKMARK")) {
        atomic_fetch_add(&w->bookmarks, 1);
        return 0;
    }
    atomic_fetch_add(&w->events, 1);
    w->stream_events++;
    if (bad ? bad_object(w, type, obj, bad, err, sizeof err)
            : w->sink.event(w->sink.ctx, type, obj, err, sizeof err)) {
        snprintf(w->stream_err, sizeof w->stream_err, "%s event: %s", type, err);
        w->next = BACKOFF_RELIST;
        return -1;
    }
    return 0;
}

static int on_watch_data(void *ctx, const char *data, size_t len)
{
    mk_kwatch *w = ctx;
    int rc = mk_kstream_feed(&w->stream, data, len, on_event, w, w->stream_err, sizeof w->stream_err);
    if (rc == -2)
        w->next = BACKOFF_RELIST;
    /* The reason quotes the server (a Status message, jansson's "near"). */
    if (rc)
        mk_khttp_scrub(w->http, w->stream_err, sizeof w->stream_err);
    return rc ? -1 : 0;
}

/* One WATCH stream, from w->rv until it ends. Sets w->next. Returns 0,
 * MK_KHTTP_FAIL (err) or MK_KHTTP_STOPPED. */
static int watch_once(mk_kwatch *w, char *err, size_t errlen)
{
    char *path = NULL;
    long status = 0;
    /* With jitter, as client-go's reflector: watchers started together
     * (a DaemonSet rolled out) do not all come back at the same second. */
    int timeout_s = w->watch_timeout_s;
    if (w->jitter)
        timeout_s += (int)(((unsigned long long)mk_kmono_ms() * 2654435761u) % (unsigned)(timeout_s + 1));
    if (asprintf(&path, "%s%swatch=true&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=%d",
                 w->list_path, strchr(w->list_path, '?') ? "&" : "?", w->rv ? w->rv : "",
                 timeout_s) < 0) {
        snprintf(err, errlen, "out of memory");
        return MK_KHTTP_FAIL;
    }
    /* The server ends the stream after timeoutSeconds; our own limit, a bit
     * later, catches a connection that died silently. */
    mk_kget req = { .path = path, .watch = 1, .timeout_s = timeout_s + 30,
                    .sink = on_watch_data, .ctx = w };
    long long started = mk_kmono_ms();
    w->next = WATCH;
    w->stream_err[0] = '\0';
    w->stream_events = 0;
    int rc = mk_khttp_get(w->http, &req, &status, err, errlen);
    mk_kstream_reset(&w->stream);
    free(path);
    if (mk_kmono_ms() - started >= STABLE_WATCH_MS)
        mk_khttp_backoff_reset(w->http);     /* whatever ended it came after a good while */

    if (rc == MK_KHTTP_BROKEN) {
        char why[1024];
        snprintf(why, sizeof why, "%s", err);
        rc = mk_khttp_backoff(w->http, 0, why, err, errlen);
    } else if (rc == 0 && status == 410) {
        mk_klogf(&w->log, 0, "watch: 410 Gone (resourceVersion %s is too old); re-listing", w->rv);
        w->next = RELIST;
    } else if (rc == 0 && status != 200) {
        rc = MK_KHTTP_FAIL;
    } else if (rc == 0 && w->next != WATCH) {
        mk_klogf(&w->log, 0, "watch ended: %s; re-listing", w->stream_err);
        if (w->next == BACKOFF_RELIST)
            rc = mk_khttp_backoff(w->http, 0, w->stream_err, err, errlen);
    } else if (rc == 0 && !w->stream_events && mk_kmono_ms() - started < SHORT_WATCH_MS) {
        /* A server that ends streams at once must not make us spin. */
        rc = mk_khttp_backoff(w->http, 0, "watch ended at once without events", err, errlen);
    } else if (rc == 0) {
        /* Only a stream that ran its course resets the backoff: the 200s
         * of a LIST and a WATCH whose stream then breaks at once do not. */
        mk_khttp_backoff_reset(w->http);
    }
    return rc;
}

static void *watch_thread(void *arg)
{
    mk_kwatch *w = arg;
    char err[1024];
    for (;;) {
        int rc;
        if (w->next == WATCH) {
            rc = watch_once(w, err, sizeof err);
        } else {
            atomic_fetch_add(&w->relists, 1);
            rc = list_all(w, 0, err, sizeof err);
            if (rc == 0)
                w->next = WATCH;
        }
        if (rc == MK_KHTTP_STOPPED)
            break;
        if (rc) {
            w->sink.fail(w->sink.ctx, err);
            break;
        }
    }
    return NULL;
}

/* --- the handle ----------------------------------------------------------------------- */

mk_kwatch *mk_kwatch_start(mk_khttp *h, const mk_kwatch_sink *sink, const mk_klog *log,
                           const mk_kwatch_opts *o, char *err, size_t errlen)
{
    mk_kwatch *w = calloc(1, sizeof *w);
    if (!w) {
        mk_khttp_free(h);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    w->http = h;
    w->sink = *sink;
    w->log = *log;
    w->what = o->what;
    w->watch_timeout_s = o->watch_timeout_s;
    w->jitter = o->jitter;
    atomic_init(&w->relists, 0);
    atomic_init(&w->events, 0);
    atomic_init(&w->bookmarks, 0);
    if (!(w->list_path = strdup(o->path))) {
        snprintf(err, errlen, "out of memory");
        mk_kwatch_free(w);
        return NULL;
    }
    if (list_all(w, o->first_deadline_ms, err, errlen)) {
        mk_kwatch_free(w);
        return NULL;
    }
    w->next = WATCH;
    int e = pthread_create(&w->thread, NULL, watch_thread, w);
    if (e) {
        snprintf(err, errlen, "cannot start the watch thread: %s", strerror(e));
        mk_kwatch_free(w);
        return NULL;
    }
    w->running = 1;
    return w;
}

void mk_kwatch_counts_get(mk_kwatch *w, mk_kwatch_counts *out)
{
    out->relists = atomic_load(&w->relists);
    out->events = atomic_load(&w->events);
    out->bookmarks = atomic_load(&w->bookmarks);
    mk_khttp_counts_get(w->http, &out->http);
}

void mk_kwatch_free(mk_kwatch *w)
{
    if (!w)
        return;
    mk_khttp_stop(w->http);
    if (w->running)
        pthread_join(w->thread, NULL);
    mk_khttp_free(w->http);
    mk_kstream_reset(&w->stream);
    free(w->list_path);
    free(w->rv);
    free(w);
}
