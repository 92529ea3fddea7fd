/* kube_selector.h - Kubernetes label selectors: kubectl's string form (also
 * what ?labelSelector= takes), metav1.LabelSelector as JSON, and matching a
 * node's labels. Keys and values are checked as the API server checks them. */
#ifndef MOKKA_KUBE_SELECTOR_H
#define MOKKA_KUBE_SELECTOR_H

#include <jansson.h>
#include <stddef.h>
#include "nodeview/nodeview.h"

/* At most this many requirements in a selector, and values in one
 * requirement (the GPUFault CRD's schema says the same). */
#define MK_KSEL_MAX 256

/* Returned (with err "out of memory") when memory runs out; -1 is a bad
 * selector, err saying why. */
#define MK_KSEL_NOMEM (-2)

typedef enum {
    MK_KSEL_EQ,          /* key=value, key==value; matchLabels */
    MK_KSEL_NE,          /* key!=value: also matches nodes without the label */
    MK_KSEL_IN,          /* key in (a,b) */
    MK_KSEL_NOTIN,       /* key notin (a,b): also matches nodes without the label */
    MK_KSEL_EXISTS,      /* key */
    MK_KSEL_NOT_EXISTS   /* !key */
} mk_ksel_op;

typedef struct mk_ksel_req {
    char *key;
    mk_ksel_op op;
    char **values;       /* EQ, NE: one; IN, NOTIN: one or more; else none */
    size_t nvalues;
} mk_ksel_req;

/* The requirements, all of which a node must meet; n == 0 matches every
 * node. A zeroed struct is an empty selector. */
typedef struct mk_ksel {
    mk_ksel_req *req;
    size_t n;
} mk_ksel;

/* kubectl's string form, "a=b,c==d,e!=f,g in (x,y),h notin (z),i,!j";
 * "" (or blanks) is the empty selector. Returns 0, or -1 with err saying
 * where: "at 'zone in (a,': a list must end with ')'"; or MK_KSEL_NOMEM. */
int mk_ksel_parse(const char *s, mk_ksel *out, char *err, size_t errlen);

/* A metav1.LabelSelector: matchLabels and matchExpressions (operators In,
 * NotIn, Exists, DoesNotExist); other fields are ignored. JSON null is the
 * empty selector. Errors name the field: "matchExpressions[1].operator:
 * 'Equals' is not In, NotIn, Exists or DoesNotExist". Returns 0, -1 or
 * MK_KSEL_NOMEM. */
int mk_ksel_from_json(const json_t *label_selector, mk_ksel *out, char *err, size_t errlen);

/* As a LabelSelector: equalities in matchLabels (a second one for the same
 * key goes to matchExpressions as In, so that nothing is lost), the rest in
 * matchExpressions (a != becomes NotIn). NULL when out of memory. */
json_t *mk_ksel_to_json(const mk_ksel *s);

/* The string form, requirements in their order, without blanks but around
 * in and notin: "pool=a,zone in (z1,z2),!gone". "" for the empty selector;
 * NULL when out of memory. The caller frees it. */
char *mk_ksel_to_string(const mk_ksel *s);

/* 1 when the labels meet every requirement, else 0. */
int mk_ksel_match(const mk_ksel *s, const mk_nv_kv *labels, size_t nlabels);

/* Appends copies of more's requirements to into (repeated --selector
 * options AND together). 0, -1 when that makes more than MK_KSEL_MAX
 * requirements, or MK_KSEL_NOMEM; into is unchanged on failure. */
int mk_ksel_and(mk_ksel *into, const mk_ksel *more);

/* Frees what the selector holds and empties it. */
void mk_ksel_free(mk_ksel *s);

#endif
