/* agent_objects.c (fuzz target "agent_objects") - hostile JSON through
 * what the fault agent does with the API server's objects: the bytes framed
 * as a watch stream (mk_kstream_feed) and as a LIST answer (mk_klist_feed,
 * src/kube/kube_frame.c), each object read as a GPUFault the way the agent
 * reads it (mk_gfault_from_json, or mk_gfault_unreadable for one the
 * framing hands out as bad: NUL in keys, integers past 64 bits, nesting
 * past jansson's depth, ...) and as a Node (mk_knode_from_json).
 *
 * Checks what they promise: a bad object comes with a printable reason and
 * an object of what was picked; a GPUFault made of it is invalid with a
 * printable reason that says it cannot be read, whatever was picked; a
 * valid GPUFault has no string cut short by a NUL (every string it holds
 * is as long as jansson read it); a Node's view holds no NUL byte cut
 * short either ("\u0000" written out); and the whole and the chunked feed
 * agree (how the bytes were chunked changes nothing).
 *
 * fuzz-flags: -max_len=16384 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fault/fault.h"
#include "kube/kube_frame.h"
#include "kube/kube_node.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "agent_objects: %s fails\n", #cond); abort(); } } while (0)

static void printable(const char *s)
{
    for (; *s; s++)
        CHECK(*s >= 0x20 && *s < 0x7f);
}

typedef struct pass {
    size_t objects, bad;
    unsigned long hash;
} pass;

static void mix(pass *p, const char *s)
{
    for (; s && *s; s++)
        p->hash = p->hash * 31 + (unsigned char)*s;
    p->hash = p->hash * 31 + 1;
}

/* The picked or parsed object read as a GPUFault, as the agent does. */
static void as_gpufault(pass *p, const json_t *obj, const char *bad)
{
    mk_gfault f;
    json_t *kept = bad ? mk_gfault_unreadable(obj, bad) : NULL;
    CHECK(!bad || kept);
    if (mk_gfault_from_json(kept ? kept : obj, &f) == 0) {
        char what[256];
        unsigned char hit[8];
        printable(f.invalid);
        CHECK(!bad || strstr(f.invalid, "the object cannot be read: it ") == f.invalid);
        if (f.name)
            CHECK(!bad || !strcmp(f.name, mk_kobj_name(obj)));
        mk_gfault_gpus(&f, 8, NULL, hit, what, sizeof what);
        mk_gfault_describe(&f, what, sizeof what);
        printable(what);
        mix(p, f.invalid);
        mix(p, f.name);
        mk_gfault_free(&f);
    }
    json_decref(kept);
}

/* No string in the view is shorter than its JSON: NULs are written out. */
static void as_node(pass *p, const json_t *obj)
{
    mk_nv_node n;
    char err[512];
    if (mk_knode_from_json(obj, &n, err, sizeof err) != 0)
        return;
    const json_t *ann = json_object_get(json_object_get(obj, "metadata"), "annotations");
    for (size_t i = 0; i < n.nannotations; i++) {
        const json_t *v = json_object_get(ann, n.annotations[i].key);
        if (json_is_string(v))
            CHECK(strlen(n.annotations[i].value) >= json_string_length(v));
        mix(p, n.annotations[i].value);
    }
    CHECK(mk_knode_equal(&n, &n));
    mk_nv_node_free(&n);
}

static void take(pass *p, json_t *obj, const char *bad)
{
    p->objects++;
    CHECK(json_is_object(obj) || (!bad && obj));
    if (bad) {
        p->bad++;
        CHECK(bad[0]);
        printable(bad);
        mix(p, bad);
    }
    as_gpufault(p, obj, bad);
    if (!bad)
        as_node(p, obj);
}

static int on_event(void *ctx, json_t *ev, const char *bad)
{
    json_t *obj = json_object_get(ev, "object");
    take(ctx, obj ? obj : ev, bad);
    return 0;
}

static int on_item(void *ctx, size_t index, json_t *item, const char *bad)
{
    pass *p = ctx;
    CHECK(index == p->objects);
    take(p, item, bad);
    return 0;
}

static int stream(pass *p, const uint8_t *data, size_t size, size_t chunk)
{
    mk_kstream s = { 0 };
    char err[512] = "";
    int rc = 0;
    for (size_t at = 0; at < size && rc == 0; at += chunk)
        rc = mk_kstream_feed(&s, (const char *)data + at, size - at < chunk ? size - at : chunk,
                             on_event, p, err, sizeof err);
    CHECK(rc == 0 || (rc == -2 && err[0]));
    mk_kstream_reset(&s);
    return rc;
}

static int list(pass *p, const uint8_t *data, size_t size, size_t chunk)
{
    mk_klist l = { 0 };
    char err[512] = "";
    int rc = 0;
    for (size_t at = 0; at < size && rc == 0; at += chunk)
        rc = mk_klist_feed(&l, (const char *)data + at, size - at < chunk ? size - at : chunk,
                           on_item, p, err, sizeof err);
    CHECK(rc == 0 || (rc == -2 && err[0]));
    if (rc == 0) {
        json_t *rest = mk_klist_end(&l, err, sizeof err);
        CHECK(rest || err[0]);
        rc = rest ? 0 : 1;
        json_decref(rest);
    }
    mk_klist_reset(&l);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t chunk = 1 + data[0] % 32u;
    pass a = { 0 }, b = { 0 }, c = { 0 }, d = { 0 };
    CHECK(stream(&a, data, size, size) == stream(&b, data, size, chunk));
    CHECK(a.objects == b.objects && a.bad == b.bad && a.hash == b.hash);
    CHECK(list(&c, data, size, size) == list(&d, data, size, chunk));
    CHECK(c.objects == d.objects && c.bad == d.bad && c.hash == d.hash);
    return 0;
}
