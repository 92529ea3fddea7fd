/* kube_obj.c - single requests on objects of any kind (kube_obj.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "kube_obj.h"

typedef struct answer {
    mk_sb body;
} answer;

static int on_data(void *ctx, const char *data, size_t len)
{
    answer *a = ctx;
    mk_sb_printf(&a->body, "%.*s", (int)len, data);
    return 0;
}

int mk_kobj_request(mk_khttp *h, const mk_kobj_req *r, long *status, json_t **out,
                    char *reason, size_t reasonlen, char *err, size_t errlen)
{
    char *body = r->body ? json_dumps(r->body, JSON_COMPACT) : NULL;
    answer a = { MK_SB_INIT };
    const char *ctype = r->content_type ? r->content_type
                        : !strcmp(r->method, "PATCH") ? "application/merge-patch+json" : NULL;
    mk_kget req = { .path = r->path, .method = strcmp(r->method, "GET") ? r->method : NULL,
                    .body = body, .body_len = body ? strlen(body) : 0, .content_type = ctype,
                    .timeout_s = 60, .deadline_ms = r->deadline_ms,
                    .max_body = MK_KOBJ_ANSWER_MAX, .sink = on_data, .ctx = &a };
    if (out)
        *out = NULL;
    if (reason && reasonlen)
        reason[0] = '\0';
    if (r->body && !body) {
        snprintf(err, errlen, "out of memory");
        return MK_KHTTP_FAIL;
    }
    int rc = mk_khttp_get(h, &req, status, err, errlen);
    if (rc == MK_KHTTP_BROKEN)
        rc = MK_KHTTP_FAIL;          /* err says how the answer broke off */
    if (rc == 0 && *status >= 200 && *status < 300 && out) {
        json_error_t je;
        char what[512];
        *out = json_loadb(mk_sb_str(&a.body), a.body.len, 0, &je);
        if (!*out) {
            mk_khttp_what(&req, what, sizeof what);
            snprintf(err, errlen, "the API server's answer to %s is not JSON: %s", what, je.text);
            mk_khttp_scrub(h, err, errlen);
            rc = MK_KHTTP_FAIL;
        }
    } else if (rc == 0 && reason && reasonlen) {
        snprintf(reason, reasonlen, "%s", mk_khttp_reason(h));
    }
    mk_sb_free(&a.body);
    free(body);
    return rc;
}

const char *mk_kobj_name(const json_t *obj)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
}
