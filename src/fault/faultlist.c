/* faultlist.c - LISTs of whole collections (GPUFaults, GPUFaultReports,
 * Nodes), page by page, and which listed nodes a GPUFault selects. */
#include <stdlib.h>
#include <string.h>
#include <curl/curl.h>
#include "faultapi.h"
#include "faultlist.h"
#include "util/util.h"

#define PAGE 500

static int on_data(void *ctx, const char *data, size_t len)
{
    mk_sb *b = ctx;
    mk_sb_printf(b, "%.*s", (int)len, data);
    return 0;
}

static char *page_path(const char *path, const char *cont)
{
    char *esc = cont ? curl_easy_escape(NULL, cont, 0) : NULL;
    char *p = mk_xasprintf("%s%slimit=%d%s%s", path, strchr(path, '?') ? "&" : "?", PAGE,
                           esc ? "&continue=" : "", esc ? esc : "");
    curl_free(esc);
    return p;
}

/* One page into *list; 0 with *status, or what mk_khttp_get says. */
static int get_page(mk_khttp *h, const char *path, long long deadline_ms, json_t **list,
                    long *status, char *err, size_t errlen)
{
    mk_sb body = MK_SB_INIT;
    mk_kget req = { .path = path, .deadline_ms = deadline_ms, .max_body = MK_KHTTP_ANSWER_MAX,
                    .sink = on_data, .ctx = &body };
    int rc = mk_khttp_get(h, &req, status, err, errlen);
    *list = NULL;
    if (rc == 0 && *status == 200) {
        json_error_t je;
        *list = json_loadb(mk_sb_str(&body), body.len, 0, &je);
        if (!*list || !json_is_array(json_object_get(*list, "items"))) {
            char what[512];
            mk_khttp_what(&req, what, sizeof what);
            snprintf(err, errlen, "the API server's answer to %s is not a list: %s", what,
                     *list ? "it has no items" : je.text);
            json_decref(*list);
            rc = MK_KHTTP_FAIL;
        }
    }
    mk_sb_free(&body);
    return rc;
}

int mk_gfl_list(mk_khttp *h, const char *path, long long deadline_ms,
                void (*item)(void *ctx, json_t *obj), void *ctx, long *status, char *err,
                size_t errlen)
{
    char *cont = NULL;
    int rc;
    do {
        char *p = page_path(path, cont);
        json_t *list;
        free(cont);
        cont = NULL;
        rc = get_page(h, p, deadline_ms, &list, status, err, errlen);
        free(p);
        if (rc != 0 || *status != 200)
            break;
        size_t i;
        json_t *obj;
        json_array_foreach(json_object_get(list, "items"), i, obj)
            item(ctx, obj);
        const char *c = json_string_value(json_object_get(json_object_get(list, "metadata"),
                                                          "continue"));
        cont = c && *c ? mk_xstrdup(c) : NULL;
        json_decref(list);
    } while (cont);
    free(cont);
    return rc;
}

static void put_report(void *ctx, json_t *obj)
{
    const char *name = mk_kobj_name(obj);
    if (name)
        json_object_set(ctx, name, obj);
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

static void put_node(void *ctx, json_t *obj)
{
    mk_gfl_nodes *ns = ctx;
    const char *name = mk_kobj_name(obj), *k;
    json_t *labels = json_object_get(json_object_get(obj, "metadata"), "labels"), *v;
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
