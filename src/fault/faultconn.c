/* faultconn.c - GPUFaults through one API server client: create, delete,
 * the selected nodes, and refusals told with the object at fault and what
 * to do about it. */
#include <stdlib.h>
#include <string.h>
#include "faultapi.h"
#include "faultconn.h"
#include "faultlist.h"
#include "util/util.h"

#define REQUEST_MS 30000

int mk_gfconn_open(mk_gfconn *c, const char *kubeconfig, const char *context, const mk_klog *log,
                   char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->log = *log;
    if (mk_kubeconfig_load(kubeconfig, context, &c->target, err, errlen) == 0 &&
        (c->h = mk_khttp_new(&c->target, &c->log, err, errlen)))
        return 0;
    mk_ktarget_free(&c->target);
    return -1;
}

void mk_gfconn_close(mk_gfconn *c)
{
    mk_khttp_free(c->h);
    mk_ktarget_free(&c->target);
    memset(c, 0, sizeof *c);
}

void mk_gfconn_budget(mk_gfconn *c, long long ms, const char *what)
{
    c->budget_from_ms = mk_kmono_ms();
    c->budget_ms = c->budget_from_ms + ms;
    snprintf(c->budget_what, sizeof c->budget_what, "%s", what);
}

long long mk_gfconn_deadline(const mk_gfconn *c)
{
    long long d = mk_kmono_ms() + REQUEST_MS;
    return c->budget_ms && c->budget_ms < d ? c->budget_ms : d;
}

void mk_gfconn_timed_out(const mk_gfconn *c, char *err, size_t errlen)
{
    long long now = mk_kmono_ms();
    size_t n = strlen(err);
    if (!c->budget_ms || now < c->budget_ms || n + 1 >= errlen)
        return;
    long long ms = now - c->budget_from_ms;
    snprintf(err + n, errlen - n, "; the API server %s did not answer within %s (waited "
             "%lld.%lld s)", c->target.server, c->budget_what, ms / 1000, ms % 1000 / 100);
}

int mk_gfconn_refused(const mk_gfconn *c, const char *verb, const char *what, long status,
                      const char *reason, const char *msg, char *err, size_t errlen)
{
    char where[1024];
    mk_khttp_describe(c->h, where, sizeof where);
    if (status == 404 && strcmp(verb, "delete") && strcmp(verb, "get")) {
        snprintf(err, errlen, "the API server at %s has no GPUFault resource (%s/%s "
                 "gpufaults): install it with `%s`", where, MK_GF_GROUP, MK_GF_VERSION,
                 MK_GF_CRD_HINT);
        return MK_EXIT_ENV;
    }
    if (status == 404) {
        snprintf(err, errlen, "no %s", what);
        return MK_EXIT_USAGE;
    }
    if (status == 409 && strcmp(reason, "AlreadyExists") == 0) {
        const char *name = strchr(what, ' ');
        snprintf(err, errlen, "%s already exists: clear it with `mokka inject --cluster --clear "
                 "%s`, or give another --name", what, name ? name + 1 : what);
        return MK_EXIT_USAGE;
    }
    if (status == 422 || status == 400) {
        snprintf(err, errlen, "the API server refused %s: %s", what, msg);
        return MK_EXIT_USAGE;
    }
    if (status == 401 || status == 403) {
        snprintf(err, errlen, "the API server does not let %s %s %s (HTTP %ld; check RBAC): %s",
                 c->target.user ? c->target.user : "this user", verb, what, status, msg);
        return MK_EXIT_ENV;
    }
    snprintf(err, errlen, "cannot %s %s (HTTP %ld): %s", verb, what, status, msg);
    return MK_EXIT_ENV;
}

/* One request on a GPUFault: 0 with *out (when out), else the exit code. */
static int request(mk_gfconn *c, const char *method, const char *path, const json_t *body,
                   const char *verb, const char *what, json_t **out, char *err, size_t errlen)
{
    char reason[64] = "", why[2048];
    long status;
    mk_kobj_req req = { .method = method, .path = path, .body = body,
                        .deadline_ms = mk_gfconn_deadline(c) };
    int rc = mk_kobj_request(c->h, &req, &status, out, reason, sizeof reason, why, sizeof why);
    if (rc != 0) {
        snprintf(err, errlen, "cannot %s %s: %s", verb, what, why);
        mk_gfconn_timed_out(c, err, errlen);
        return MK_EXIT_ENV;
    }
    if (status / 100 != 2)
        return mk_gfconn_refused(c, verb, what, status, reason, why, err, errlen);
    return 0;
}

int mk_gfconn_create(mk_gfconn *c, const json_t *body, const char *what, mk_gfault *created,
                     char *err, size_t errlen)
{
    json_t *obj = NULL;
    int rc = request(c, "POST", MK_GF_PATH, body, "create", what, &obj, err, errlen);
    if (rc == 0 && mk_gfault_from_json(obj, created) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = MK_EXIT_ENV;
    }
    json_decref(obj);
    return rc;
}

int mk_gfconn_get(mk_gfconn *c, const char *name, mk_gfault *f, char *err, size_t errlen)
{
    char *path = mk_kpath_name(MK_GF_PATH, name, err, errlen);
    if (!path)
        return MK_EXIT_USAGE;
    char *what = mk_xasprintf("GPUFault %s", name);
    json_t *obj = NULL;
    int rc = request(c, "GET", path, NULL, "get", what, &obj, err, errlen);
    if (rc == 0 && mk_gfault_from_json(obj, f) != 0) {
        snprintf(err, errlen, "out of memory");
        rc = MK_EXIT_ENV;
    }
    json_decref(obj);
    free(path);
    free(what);
    return rc;
}

int mk_gfconn_delete(mk_gfconn *c, const char *name, char *err, size_t errlen)
{
    char *path = mk_kpath_name(MK_GF_PATH, name, err, errlen);
    if (!path)
        return MK_EXIT_USAGE;
    char *what = mk_xasprintf("GPUFault %s", name);
    int rc = request(c, "DELETE", path, NULL, "delete", what, NULL, err, errlen);
    free(path);
    free(what);
    return rc;
}

int mk_gfconn_selected(mk_gfconn *c, const mk_gfault *f, char ***names, size_t *n, char *err,
                       size_t errlen)
{
    mk_gfl_nodes ns;
    if (mk_gfl_nodes_list(c->h, f, mk_gfconn_deadline(c), &ns, err, errlen)) {
        mk_gfconn_timed_out(c, err, errlen);
        return -1;
    }
    mk_gfl_selected(&ns, f, names, n);
    mk_gfl_nodes_free(&ns);
    return 0;
}
