/* kube_obj.h - objects of any kind through the API server: one request
 * with a JSON body, its JSON answer, and the API server's reason when it
 * refuses (NotFound, AlreadyExists, Conflict, Invalid). */
#ifndef MOKKA_KUBE_OBJ_H
#define MOKKA_KUBE_OBJ_H

#include <stddef.h>
#include <jansson.h>
#include "kube_http.h"

/* The most an object answer may hold: the API server's own limit on one
 * object is 1.5 MiB; a list of them can be bigger. */
#define MK_KOBJ_ANSWER_MAX (8u << 20)

typedef struct mk_kobj_req {
    const char *method;        /* "GET", "POST", "PUT", "PATCH", "DELETE" */
    const char *path;          /* "/apis/mokka.io/v1alpha1/gpufaults/x" */
    const json_t *body;        /* or NULL */
    const char *content_type;  /* NULL: application/json (PATCH: merge-patch) */
    long long deadline_ms;     /* mk_kmono_ms() clock; 0: none */
} mk_kobj_req;

/* Returns 0 with *status (the HTTP answer), *out the answer's object for a
 * 2xx (when out is not NULL; the caller's), and for other answers err with
 * the API server's message and *reason its Status reason ("AlreadyExists",
 * copied into reason[reasonlen] when reason is not NULL). Returns
 * MK_KHTTP_FAIL (err) or MK_KHTTP_STOPPED when there was no answer. */
int mk_kobj_request(mk_khttp *h, const mk_kobj_req *r, long *status, json_t **out,
                    char *reason, size_t reasonlen, char *err, size_t errlen);

/* metadata.name of an object, or NULL. */
const char *mk_kobj_name(const json_t *obj);

#endif
