/* kube_podsink.c - the watch of Pod objects as the pods of the store: the
 * sink (kube_watch.h) that parses each Pod (kube_pod.c) into the store
 * (kube_store.c), a LIST page by page, then each event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube.h"
#include "kube_pod.h"
#include "kube_podsink.h"

#define LIST_CAP0 500

struct mk_kpodsink {
    mk_kstore *store;
    mk_nv_pod *list;         /* the LIST in progress */
    size_t n, cap;
};

static int on_item(void *ctx, size_t index, json_t *obj, char *err, size_t errlen)
{
    mk_kpodsink *s = ctx;
    char why[512];
    (void)index;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : LIST_CAP0;
        mk_nv_pod *grown = realloc(s->list, cap * sizeof *grown);
        if (!grown) {
            snprintf(err, errlen, "could not be held: out of memory");
            return -1;
        }
        s->list = grown;
        s->cap = cap;
    }
    if (mk_kpod_from_json(obj, &s->list[s->n], why, sizeof why)) {
        snprintf(err, errlen, "is not a Pod: %s", why);
        return -1;
    }
    s->n++;
    return 0;
}

static void on_list_abort(void *ctx)
{
    mk_kpodsink *s = ctx;
    for (size_t i = 0; i < s->n; i++)
        mk_nv_pod_free(&s->list[i]);
    free(s->list);
    s->list = NULL;
    s->n = s->cap = 0;
}

static int on_list_end(void *ctx)
{
    mk_kpodsink *s = ctx;
    int rc = mk_kstore_pod_replace(s->store, s->list, s->n);   /* takes the pods */
    free(s->list);
    s->list = NULL;
    s->n = s->cap = 0;
    return rc;
}

static int on_event(void *ctx, const char *type, json_t *obj, char *err, size_t errlen)
{
    mk_kpodsink *s = ctx;
    if (!strcmp(type, "DELETED")) {
        const char *name = mk_kobj_name(obj);
        const char *ns = json_string_value(json_object_get(json_object_get(obj, "metadata"),
                                                           "namespace"));
        if (name && mk_kstore_pod_delete(s->store, ns, name)) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        return 0;
    }
    mk_nv_pod p;
    char why[512] = "out of memory";
    if (mk_kpod_from_json(obj, &p, why, sizeof why) || mk_kstore_pod_put(s->store, &p)) {
        snprintf(err, errlen, "%s event: %s", type, why);
        return -1;
    }
    return 0;
}

static void on_fail(void *ctx, const char *why)
{
    mk_kpodsink *s = ctx;
    mk_kstore_fail(s->store, why);
}

mk_kpodsink *mk_kpodsink_new(mk_kstore *store, mk_kwatch_sink *out)
{
    mk_kpodsink *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->store = store;
    *out = (mk_kwatch_sink){ .item = on_item, .list_end = on_list_end, .list_abort = on_list_abort,
                             .event = on_event, .fail = on_fail, .ctx = s };
    return s;
}

void mk_kpodsink_free(mk_kpodsink *s)
{
    if (!s)
        return;
    on_list_abort(s);
    free(s);
}
