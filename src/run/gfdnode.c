/* gfdnode.c - gpu-feature-discovery's labels on the Node object, for
 * `mokka run --cluster --gfd`: what NFD does in NVIDIA's own deployment
 * (read GFD's features file, label the node), done directly with a merge
 * patch of the Node's metadata.labels.
 *
 * Which labels are Mokka's is written beside them, in the annotation
 * mokka.io/gfd-labels (the keys, comma-separated), so that a label GFD no
 * longer writes - after a MIG change, or by a later pod of the DaemonSet
 * with another universe - is taken off with the next patch, and no label
 * set by anyone else ever is. When the run ends, its labels go with it.
 *
 * GFD rewrites its file every second with a new nvidia.com/gfd.timestamp;
 * the Node is patched only when another label changes (the timestamp goes
 * along), since every patch of a Node wakes every watcher of Nodes in the
 * cluster. Beside GFD's labels goes nvidia.com/gpu.present=true, which
 * NFD's rule for NVIDIA's PCI vendor id gives a GPU node in NVIDIA's
 * deployment. One thread, one connection of its own. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "kube/kube.h"
#include "util/util.h"
#include "run.h"

#define OWNED_ANNOTATION "mokka.io/gfd-labels"
#define TIMESTAMP_LABEL "nvidia.com/gfd.timestamp"
#define PRESENT_LABEL "nvidia.com/gpu.present"
#define LOOK_MS 200          /* how often the file is looked at */
#define RETRY_MS 5000        /* after a failed patch */
#define REQUEST_MS 10000     /* one patch, retries included */
#define MAX_FILE (1 << 20)

struct mk_gfdnode {
    mk_kclient *client;
    char *path;              /* "/api/v1/nodes/NAME" */
    char file[4400];
    void (*log)(void *ctx, int warning, const char *msg);
    void *log_ctx;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    int stopping, published;
    char last_err[1024];     /* the last patch's failure, "" after a success */
    /* the thread's own */
    char **owned;            /* the keys on the Node that are Mokka's */
    size_t nowned;
    char *sent;              /* the labels last patched, as compared (no timestamp) */
};

/* A line for the run's log. */
#define say(g, warning, ...) mk_logf((g)->log, (g)->log_ctx, (warning), __VA_ARGS__)

static void free_owned(mk_gfdnode *g)
{
    for (size_t i = 0; i < g->nowned; i++)
        free(g->owned[i]);
    free(g->owned);
    g->owned = NULL;
    g->nowned = 0;
}

/* owned := the keys of the comma-separated list s; -1 when out of memory. */
static int set_owned(mk_gfdnode *g, const char *s)
{
    free_owned(g);
    while (s && *s) {
        size_t n = strcspn(s, ",");
        char **grown = realloc(g->owned, (g->nowned + 1) * sizeof *grown);
        if (!grown)
            return -1;
        g->owned = grown;
        if (n && !(g->owned[g->nowned++] = strndup(s, n)))
            return -1;
        s += n + (s[n] == ',');
    }
    return 0;
}

/* The keys a previous run left on the Node, so that this one takes off
 * what it no longer writes. A Node that cannot be read leaves none. */
static void read_owned(mk_gfdnode *g)
{
    json_t *node = NULL;
    long status = 0;
    char err[1024];
    mk_kobj_req get = { .method = "GET", .path = g->path, .deadline_ms = mk_kmono_ms() + REQUEST_MS };
    if (mk_kobj_request(mk_kclient_http(g->client), &get, &status, &node, NULL, 0, err,
                        sizeof err) != 0 || status != 200) {
        say(g, 1, "labels of an earlier run stay on the Node: cannot read it: %s", err);
        return;
    }
    json_t *ann = json_object_get(json_object_get(node, "metadata"), "annotations");
    set_owned(g, json_string_value(json_object_get(ann, OWNED_ANNOTATION)));
    json_decref(node);
}

/* GFD's file now, or NULL (none yet, unreadable, out of memory). */
static char *read_file(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char *text = malloc(MAX_FILE + 1);
    size_t n = text ? fread(text, 1, MAX_FILE, f) : 0;
    fclose(f);
    if (text)
        text[n] = 0;
    return text;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(((const mk_nv_kv *)a)->key, ((const mk_nv_kv *)b)->key);
}

/* The labels as compared (sorted by key): "k=v\n", without the timestamp. */
static char *canonical(const mk_nv_node *n)
{
    mk_sb sb = MK_SB_INIT;
    for (size_t i = 0; i < n->nlabels; i++)
        if (strcmp(n->labels[i].key, TIMESTAMP_LABEL) != 0)
            mk_sb_printf(&sb, "%s=%s\n", n->labels[i].key, n->labels[i].value);
    return mk_sb_take(&sb);
}

/* n's keys, comma-separated (the annotation's value); NULL for none. */
static char *keys_of(const mk_nv_node *n)
{
    mk_sb sb = MK_SB_INIT;
    for (size_t i = 0; n && i < n->nlabels; i++)
        mk_sb_printf(&sb, "%s%s", i ? "," : "", n->labels[i].key);
    return mk_sb_take(&sb);
}

/* The merge patch that makes the Node's labels of Mokka's exactly n's
 * (NULL n: none), and the annotation say so. */
static json_t *patch_for(const mk_gfdnode *g, const mk_nv_node *n)
{
    json_t *labels = json_object();
    for (size_t i = 0; i < g->nowned; i++)
        json_object_set_new(labels, g->owned[i], json_null());
    for (size_t i = 0; n && i < n->nlabels; i++)
        json_object_set_new(labels, n->labels[i].key, json_string(n->labels[i].value));
    char *keys = keys_of(n);
    json_t *owned = keys && *keys ? json_string(keys) : json_null();
    free(keys);
    return json_pack("{s{so s{so}}}", "metadata", "labels", labels, "annotations",
                     OWNED_ANNOTATION, owned);
}

/* Patches the Node to n's labels (NULL: none); 0, or -1 with g->last_err. */
static int patch(mk_gfdnode *g, const mk_nv_node *n, long long deadline_ms)
{
    char err[1024] = "out of memory";
    long status = 0;
    json_t *body = patch_for(g, n);
    mk_kobj_req req = { .method = "PATCH", .path = g->path, .body = body, .deadline_ms = deadline_ms };
    int rc = body ? mk_kobj_request(mk_kclient_http(g->client), &req, &status, NULL, NULL, 0, err,
                                    sizeof err) : -1;
    json_decref(body);
    if (rc == 0 && status >= 200 && status < 300) {
        char *keys = keys_of(n);
        set_owned(g, keys);
        free(keys);
        pthread_mutex_lock(&g->mu);
        g->last_err[0] = 0;
        pthread_mutex_unlock(&g->mu);
        return 0;
    }
    pthread_mutex_lock(&g->mu);
    snprintf(g->last_err, sizeof g->last_err, "cannot label node: PATCH %s: %s", g->path, err);
    pthread_mutex_unlock(&g->mu);
    return -1;
}

/* One look at the file: patches when its labels changed. Returns how long
 * to wait before the next look. */
static int look(mk_gfdnode *g, struct stat *seen)
{
    struct stat st;
    if (stat(g->file, &st) != 0 || (st.st_mtim.tv_sec == seen->st_mtim.tv_sec &&
                                    st.st_mtim.tv_nsec == seen->st_mtim.tv_nsec &&
                                    st.st_size == seen->st_size && st.st_ino == seen->st_ino))
        return LOOK_MS;
    char *text = read_file(g->file);
    mk_nv_node n;
    memset(&n, 0, sizeof n);
    /* What NFD's rule for NVIDIA's PCI vendor id adds beside GFD's labels,
     * and node selectors of GPU workloads name (GFD's own line wins). */
    int ok = text && mk_gfd_parse_labels(PRESENT_LABEL "=true", &n) == 0 &&
             mk_gfd_parse_labels(text, &n) == 0 && n.nlabels > 1;
    if (ok)     /* GFD writes them in any order */
        qsort(n.labels, n.nlabels, sizeof *n.labels, by_key);
    char *now = ok ? canonical(&n) : NULL;
    int failed = 0;
    if (now && (!g->sent || strcmp(now, g->sent) != 0)) {
        char before[sizeof g->last_err];
        pthread_mutex_lock(&g->mu);
        snprintf(before, sizeof before, "%s", g->last_err);
        pthread_mutex_unlock(&g->mu);
        if (patch(g, &n, mk_kmono_ms() + REQUEST_MS) == 0) {
            say(g, 0, "node labels: %zu from gpu-feature-discovery%s", n.nlabels,
                g->sent ? " (changed)" : "");
            free(g->sent);
            g->sent = now;
            now = NULL;
            pthread_mutex_lock(&g->mu);
            g->published = 1;
            pthread_mutex_unlock(&g->mu);
        } else {
            if (strcmp(before, g->last_err) != 0)   /* said once, not on every retry */
                say(g, 1, "%s", g->last_err);
            failed = 1;
        }
    }
    if (!failed)
        *seen = st;                 /* a failed patch is tried again on the next look */
    free(now);
    free(text);
    mk_nv_node_free(&n);
    return failed ? RETRY_MS : LOOK_MS;
}

static void *publish(void *arg)
{
    mk_gfdnode *g = arg;
    struct stat seen;
    memset(&seen, 0, sizeof seen);
    read_owned(g);
    pthread_mutex_lock(&g->mu);
    while (!g->stopping) {
        pthread_mutex_unlock(&g->mu);
        int wait_ms = look(g, &seen);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += wait_ms / 1000;
        until.tv_nsec += (long)(wait_ms % 1000) * 1000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_mutex_lock(&g->mu);
        while (!g->stopping && pthread_cond_timedwait(&g->cond, &g->mu, &until) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&g->mu);
    /* GFD is gone: so are its labels. */
    if (g->nowned && patch(g, NULL, mk_kmono_ms() + REQUEST_MS / 2) != 0)
        say(g, 1, "GFD's labels stay on the Node: %s", g->last_err);
    return NULL;
}

mk_gfdnode *mk_gfdnode_start(const mk_kube_opts *ko, const char *node, const char *file,
                             char *err, size_t errlen)
{
    mk_gfdnode *g = calloc(1, sizeof *g);
    if (!g) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    snprintf(g->file, sizeof g->file, "%s", file);
    g->log = ko->log;
    g->log_ctx = ko->log_ctx;
    pthread_mutex_init(&g->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g->cond, &ca);
    pthread_condattr_destroy(&ca);
    if (!(g->path = mk_kpath_name("/api/v1/nodes", node, err, errlen)) ||
        !(g->client = mk_kclient_open(ko, err, errlen)))
        goto fail;
    int rc = pthread_create(&g->thread, NULL, publish, g);
    if (rc == 0)
        return g;
    snprintf(err, errlen, "cannot start a thread: %s", strerror(rc));
fail:
    mk_kclient_close(g->client);
    g->client = NULL;
    free(g->path);
    pthread_cond_destroy(&g->cond);
    pthread_mutex_destroy(&g->mu);
    free(g);
    return NULL;
}

int mk_gfdnode_published(mk_gfdnode *g, char *err, size_t errlen)
{
    pthread_mutex_lock(&g->mu);
    int done = g->published;
    snprintf(err, errlen, "%s", g->last_err);
    pthread_mutex_unlock(&g->mu);
    return done;
}

void mk_gfdnode_stop(mk_gfdnode *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    g->stopping = 1;
    pthread_cond_signal(&g->cond);
    pthread_mutex_unlock(&g->mu);
    pthread_join(g->thread, NULL);
    mk_kclient_close(g->client);
    free_owned(g);
    free(g->sent);
    free(g->path);
    pthread_cond_destroy(&g->cond);
    pthread_mutex_destroy(&g->mu);
    free(g);
}
