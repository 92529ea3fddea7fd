/* kube_watch.c (fuzz target "kube_watch") - drives what cluster mode does
 * with the API server's bytes: the watch stream's framing (mk_kstream_feed,
 * src/kube/kube_frame.c) cuts the input into JSON objects, each applied as
 * the watch applies it: an event's Node (ADDED, MODIFIED, DELETED) or a
 * LIST answer's items decoded into node views (src/kube/kube_node.c, with
 * its quantities) and kept in a node store (kube_store.c).
 *
 * The input goes in twice, whole and in chunks of 1 to 32 bytes (the first
 * byte says), and must give the same objects and the same view both ways:
 * the framing promises to be indifferent to where chunks end. The same
 * bytes are then framed as a LIST answer (mk_klist_feed), whose items must
 * also come out the same both ways.
 *
 * fuzz-flags: -max_len=16384 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube/kube_node.h"
#include "kube/kube_store.h"
#include "kube/kube_frame.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "kube_watch: %s fails\n", #cond); abort(); } } while (0)

typedef struct pass {
    mk_kstore *store;
    size_t objects;
    unsigned long hash;   /* of the objects' compact, sorted JSON */
} pass;

static void put_node(pass *p, const json_t *obj)
{
    mk_nv_node n;
    char err[512];
    if (mk_knode_from_json(obj, &n, err, sizeof err) != 0) {
        CHECK(err[0]);
        return;
    }
    CHECK(mk_knode_equal(&n, &n));
    CHECK(mk_kstore_put(p->store, &n) == 0);
}

static void put_list(pass *p, const json_t *items)
{
    mk_nv_nodes fresh = { 0 };
    size_t n = json_array_size(items);
    fresh.node = calloc(n ? n : 1, sizeof *fresh.node);
    CHECK(fresh.node != NULL);
    char err[512];
    for (size_t i = 0; i < n; i++)
        if (mk_knode_from_json(json_array_get(items, i), &fresh.node[fresh.n], err, sizeof err) == 0)
            fresh.n++;
    CHECK(mk_kstore_replace(p->store, &fresh) == 0);
}

static int on_object(void *ctx, json_t *obj, const char *bad)
{
    pass *p = ctx;
    char *text = json_dumps(obj, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    CHECK(text != NULL);
    for (const char *c = text; *c; c++)
        p->hash = p->hash * 31 + (unsigned char)*c;
    for (const char *c = bad ? bad : ""; *c; c++)
        p->hash = p->hash * 31 + (unsigned char)*c;
    free(text);
    p->objects++;
    if (bad) {                  /* what was picked of an object past the bounds */
        CHECK(json_is_object(obj) && bad[0]);
        return 0;
    }

    const char *type = json_string_value(json_object_get(obj, "type"));
    json_t *node = json_object_get(obj, "object");
    json_t *items = json_object_get(obj, "items");
    if (type && !strcmp(type, "DELETED")) {
        const char *name = json_string_value(json_object_get(json_object_get(node, "metadata"), "name"));
        if (name)
            CHECK(mk_kstore_delete(p->store, name) == 0);
    } else if (type && (!strcmp(type, "ADDED") || !strcmp(type, "MODIFIED"))) {
        put_node(p, node);
    } else if (json_is_array(items)) {
        put_list(p, items);
    } else if (!type) {
        put_node(p, obj);
    }
    return 0;
}

static int on_item(void *ctx, size_t index, json_t *item, const char *bad)
{
    pass *p = ctx;
    CHECK(index == p->objects);
    on_object(ctx, item, bad);
    return 0;
}

/* One framer's feed: the watch stream's or the LIST answer's. */
typedef int (*feed_fn)(void *framer, const char *data, size_t len, pass *p, char *err,
                       size_t errlen);

static int feed_stream(void *framer, const char *data, size_t len, pass *p, char *err,
                       size_t errlen)
{
    return mk_kstream_feed(framer, data, len, on_object, p, err, errlen);
}

static int feed_list(void *framer, const char *data, size_t len, pass *p, char *err,
                     size_t errlen)
{
    return mk_klist_feed(framer, data, len, on_item, p, err, errlen);
}

/* Feeds data in chunks of `chunk` bytes into a new store; 0, or the feed's
 * error (which must say something). */
static int feed_chunks(feed_fn feed, void *framer, pass *p, const uint8_t *data, size_t size,
                       size_t chunk, char *err, size_t errlen)
{
    int rc = 0;
    p->store = mk_kstore_new();
    CHECK(p->store != NULL);
    for (size_t at = 0; at < size && rc == 0; at += chunk) {
        size_t n = size - at < chunk ? size - at : chunk;
        rc = feed(framer, (const char *)data + at, n, p, err, errlen);
    }
    CHECK(rc == 0 || (rc == -2 && err[0]));
    return rc;
}

/* The bytes as a watch stream; the view it leaves in *view. */
static int run(pass *p, const uint8_t *data, size_t size, size_t chunk, mk_nv_nodes *view)
{
    mk_kstream s = { 0 };
    char err[512];
    int rc = feed_chunks(feed_stream, &s, p, data, size, chunk, err, sizeof err);
    mk_kstream_reset(&s);
    CHECK(mk_kstore_snapshot(p->store, view, err, sizeof err) == 0);
    mk_kstore_free(p->store);
    return rc;
}

/* The bytes as a LIST answer: the items one by one, then the rest. */
static int run_list(pass *p, const uint8_t *data, size_t size, size_t chunk)
{
    mk_klist l = { 0 };
    char err[512];
    int rc = feed_chunks(feed_list, &l, p, data, size, chunk, err, sizeof err);
    if (rc == 0) {
        json_t *rest = mk_klist_end(&l, err, sizeof err);
        CHECK(rest || err[0]);
        rc = rest ? 0 : 1;
        json_decref(rest);
    }
    mk_klist_reset(&l);
    mk_kstore_free(p->store);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    pass whole = { 0 }, chunked = { 0 };
    mk_nv_nodes a, b;
    int rc_whole = run(&whole, data, size, size, &a);
    int rc_chunked = run(&chunked, data, size, 1 + data[0] % 32u, &b);
    CHECK(rc_whole == rc_chunked);
    CHECK(whole.objects == chunked.objects && whole.hash == chunked.hash);
    CHECK(a.version == b.version && a.n == b.n);
    for (size_t i = 0; i < a.n; i++)
        CHECK(mk_knode_equal(&a.node[i], &b.node[i]));
    mk_nv_nodes_free(&a);
    mk_nv_nodes_free(&b);
    pass list_whole = { 0 }, list_chunked = { 0 };
    rc_whole = run_list(&list_whole, data, size, size);
    rc_chunked = run_list(&list_chunked, data, size, 1 + data[0] % 32u);
    CHECK(rc_whole == rc_chunked);
    CHECK(list_whole.objects == list_chunked.objects && list_whole.hash == list_chunked.hash);
    return 0;
}
