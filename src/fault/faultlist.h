/* faultlist.h - whole collections from the API server, page by page, and
 * the nodes a GPUFault selects. */
#ifndef MOKKA_FAULTLIST_H
#define MOKKA_FAULTLIST_H

#include <jansson.h>
#include <stddef.h>
#include "gpufault.h"

/* Calls item() for each object of the collection at `path` (which may
 * carry a query), 500 a page, as each arrives. An object that cannot be
 * read whole (kube_frame.h) comes with `bad` set (scrubbed) and obj what
 * could be picked of it ({"metadata": {"name", ...}}). Returns 0 with
 * *status the HTTP answer (anything but 200: err holds the server's
 * message, *reason its Status reason), or MK_KHTTP_FAIL / MK_KHTTP_STOPPED
 * with err. */
typedef void (*mk_gfl_item)(void *ctx, json_t *obj, const char *bad);
int mk_gfl_list(mk_khttp *h, const char *path, long long deadline_ms, mk_gfl_item item, void *ctx,
                long *status, char *err, size_t errlen);

/* Every GPUFaultReport by node name (metadata.name), in *out (the
 * caller's). 0, or -1 with err (a refused LIST names the resource). */
int mk_gfl_reports(mk_khttp *h, long long deadline_ms, json_t **out, char *err, size_t errlen);

/* The nodes and their labels, from one LIST (narrowed by the fault's
 * selector when it has one). */
typedef struct mk_gfl_nodes {
    char **names;
    mk_nv_kv **labels;
    size_t *nlabels;
    size_t n;
} mk_gfl_nodes;

/* Lists the nodes: those `f` may select (f NULL: all). 0, or -1 with err. */
int mk_gfl_nodes_list(mk_khttp *h, const mk_gfault *f, long long deadline_ms, mk_gfl_nodes *out,
                      char *err, size_t errlen);
/* The names of the nodes f selects, sorted, in *names[*n] (free with
 * mk_gfl_names_free). */
void mk_gfl_selected(const mk_gfl_nodes *ns, const mk_gfault *f, char ***names, size_t *n);
void mk_gfl_names_free(char **names, size_t n);
void mk_gfl_nodes_free(mk_gfl_nodes *ns);

#endif
