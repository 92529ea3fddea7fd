/* faultlist.c - LISTs of whole collections (GPUFaults, GPUFaultReports,
 * Nodes), page by page, and which listed nodes a GPUFault selects. */
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include "faultapi.h"
#include "faultlist.h"
#include "util/util.h"

#define PAGE 500

/* One page as its bytes arrive, framed into items (kube_frame.h): a page
 * costs one item's tree at a time, and an item that cannot be read whole
 * goes to the caller as such instead of failing the page. */
typedef struct page {
    mk_khttp *h;
    mk_klist frame;
    mk_gfl_item item;
    void *ctx;
    int failed;
    char err[1024];
} page;

static int on_item(void *ctx, size_t index, json_t *obj, const char *bad)
{
    page *p = ctx;
    char why[512];
    (void)index;
    if (bad) {
        snprintf(why, sizeof why, "%s", bad);
        mk_khttp_scrub(p->h, why, sizeof why);
    }
    p->item(p->ctx, obj, bad ? why : NULL);
    return 0;
}

static int on_data(void *ctx, const char *data, size_t len)
{
    page *p = ctx;
    if (mk_klist_feed(&p->frame, data, len, on_item, p, p->err, sizeof p->err) == 0)
        return 0;
    p->failed = 1;
    return -1;
}

static char *page_path(const char *path, const char *cont)
{
    char *esc = cont ? curl_easy_escape(NULL, cont, 0) : NULL;
    char *p = mk_xasprintf("%s%slimit=%d%s%s", path, strchr(path, '?') ? "&" : "?", PAGE,
                           esc ? "&continue=" : "", esc ? esc : "");
    curl_free(esc);
    return p;
}

/* One page's items to item(); 0 with *status and *rest (the list less
 * its items), or what mk_khttp_get says. */
static int get_page(mk_khttp *h, const char *path, long long deadline_ms, mk_gfl_item item,
                    void *ctx, json_t **rest, long *status, char *err, size_t errlen)
{
    page p = { .h = h, .item = item, .ctx = ctx };
    mk_kget req = { .path = path, .deadline_ms = deadline_ms, .max_body = MK_KHTTP_ANSWER_MAX,
                    .sink = on_data, .ctx = &p };
    int rc = mk_khttp_get(h, &req, status, err, errlen);
    *rest = NULL;
    if (rc == 0 && *status == 200 &&
        (p.failed || !(*rest = mk_klist_end(&p.frame, p.err, sizeof p.err)))) {
        char what[512];
        mk_khttp_what(&req, what, sizeof what);
        mk_khttp_scrub(h, p.err, sizeof p.err);
        snprintf(err, errlen, "the API server's answer to %s %s", what, p.err);
        rc = MK_KHTTP_FAIL;
    }
    mk_klist_reset(&p.frame);
    return rc;
}

int mk_gfl_list(mk_khttp *h, const char *path, long long deadline_ms, mk_gfl_item item, void *ctx,
                long *status, char *err, size_t errlen)
{
    char *cont = NULL;
    int rc;
    do {
        char *p = page_path(path, cont);
        json_t *list;
        free(cont);
        cont = NULL;
        rc = get_page(h, p, deadline_ms, item, ctx, &list, status, err, errlen);
        free(p);
        if (rc != 0 || *status != 200)
            break;
        const char *c = json_string_value(json_object_get(json_object_get(list, "metadata"),
                                                          "continue"));
        cont = c && *c ? mk_xstrdup(c) : NULL;
        json_decref(list);
    } while (cont);
    free(cont);
    return rc;
}

static void skipped(const char *kind, const char *name, const char *why)
{
    char q[72], msg[800];
    mk_text_snip(name ? name : "", 64, q, sizeof q);
    snprintf(msg, sizeof msg, "skipped %s '%s': it %s", kind, q, why);
    mk_log_as((void *)"inject", 1, msg);
}

/* A report that cannot be read is left out, said once: its node then
 * counts as running no agent. */
static void put_report(void *ctx, json_t *obj, const char *bad)
{
    const char *name = mk_kobj_name(obj);
    if (bad) {
        skipped("GPUFaultReport", name, bad);
    } else if (name) {
        json_object_set(ctx, name, obj);
    }
}

int mk_gfl_reports(mk_khttp *h, long long deadline_ms, json_t **out, char *err, size_t errlen)
{
    long status;
    char why[1024];
    *out = json_object();
    int rc = mk_gfl_list(h, MK_GFR_PATH, deadline_ms, put_report, *out, &status, why, sizeof why);
    if (rc == 0 && status == 200)
        return 0;
    if (rc == 0)
        snprintf(err, errlen, "cannot list GPUFaultReports (HTTP %ld): %s", status, why);
    else
        snprintf(err, errlen, "cannot list GPUFaultReports: %s", why);
    json_decref(*out);
    *out = NULL;
    return -1;
}

static void put_node(void *ctx, json_t *obj, const char *bad)
{
    mk_gfl_nodes *ns = ctx;
    const char *name = mk_kobj_name(obj), *k;
    json_t *labels = json_object_get(json_object_get(obj, "metadata"), "labels"), *v;
    if (bad) {
        skipped("Node", name, bad);
        return;
    }
    if (!name)
        return;
    ns->names = mk_xrealloc(ns->names, (ns->n + 1) * sizeof *ns->names);
    ns->labels = mk_xrealloc(ns->labels, (ns->n + 1) * sizeof *ns->labels);
    ns->nlabels = mk_xrealloc(ns->nlabels, (ns->n + 1) * sizeof *ns->nlabels);
    mk_nv_kv *kv = mk_xcalloc(json_object_size(labels) + 1, sizeof *kv);
    size_t n = 0;
    json_object_foreach(labels, k, v)
        if (json_is_string(v))
            kv[n++] = (mk_nv_kv){ mk_xstrdup(k), mk_xstrdup(json_string_value(v)) };
    ns->names[ns->n] = mk_xstrdup(name);
    ns->labels[ns->n] = kv;
    ns->nlabels[ns->n++] = n;
}

int mk_gfl_nodes_list(mk_khttp *h, const mk_gfault *f, long long deadline_ms, mk_gfl_nodes *out,
                      char *err, size_t errlen)
{
    char *sel = f && f->has_selector ? mk_ksel_to_string(&f->sel) : NULL;
    char *esc = sel && *sel ? curl_easy_escape(NULL, sel, 0) : NULL;
    char *path = mk_xasprintf("/api/v1/nodes%s%s", esc ? "?labelSelector=" : "", esc ? esc : "");
    long status;
    char why[1024];
    curl_free(esc);
    free(sel);
    memset(out, 0, sizeof *out);
    int rc = mk_gfl_list(h, path, deadline_ms, put_node, out, &status, why, sizeof why);
    free(path);
    if (rc == 0 && status == 200)
        return 0;
    if (rc == 0)
        snprintf(err, errlen, "cannot list nodes (HTTP %ld): %s", status, why);
    else
        snprintf(err, errlen, "cannot list nodes: %s", why);
    mk_gfl_nodes_free(out);
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void mk_gfl_selected(const mk_gfl_nodes *ns, const mk_gfault *f, char ***names, size_t *n)
{
    *names = mk_xcalloc(ns->n + 1, sizeof **names);
    *n = 0;
    for (size_t i = 0; i < ns->n; i++)
        if (mk_gfault_selects(f, ns->names[i], ns->labels[i], ns->nlabels[i]))
            (*names)[(*n)++] = mk_xstrdup(ns->names[i]);
    qsort(*names, *n, sizeof **names, by_name);
}

void mk_gfl_names_free(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

void mk_gfl_nodes_free(mk_gfl_nodes *ns)
{
    for (size_t i = 0; i < ns->n; i++) {
        for (size_t j = 0; j < ns->nlabels[i]; j++) {
            free(ns->labels[i][j].key);
            free(ns->labels[i][j].value);
        }
        free(ns->labels[i]);
        free(ns->names[i]);
    }
    free(ns->names);
    free(ns->labels);
    free(ns->nlabels);
    memset(ns, 0, sizeof *ns);
}
