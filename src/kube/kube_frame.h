/* kube_frame.h - the API server's JSON answers framed as their bytes arrive:
 * a watch stream into its events, a LIST answer into its items. A scan that
 * follows strings and nesting finds where each object ends, so each is
 * parsed once and alone, however the answer is chunked or spread over lines,
 * and no object (so no JSON tree) grows past the bounds below: the memory a
 * LIST answer costs is one item's, not the whole answer's.
 *
 * Errors may quote the server's text (jansson's reasons do): callers scrub
 * them (mk_khttp_scrub) before they go into messages. */
#ifndef MOKKA_KUBE_FRAME_H
#define MOKKA_KUBE_FRAME_H

#include <jansson.h>
#include <stddef.h>

/* The most one object may hold: a watch event, a LIST item, or a LIST answer
 * less its items. etcd keeps objects of 1.5 MiB at most; their JSON fits. */
#define MK_KFRAME_OBJECT_MAX (4u << 20)
/* JSON values (keys count) in one object. A big Node has a few thousand;
 * jansson spends up to 232 bytes on one ({}), so this bounds a tree to
 * about 60 MiB where 4 MiB of "[{},{},...]" alone would make 300. */
#define MK_KFRAME_VALUES_MAX 250000

/* Where a JSON text's strings and nesting are, byte by byte. */
typedef struct mk_kjscan {
    size_t depth;
    unsigned char in_str, esc;
    char prev;               /* the last byte outside strings that was not blank */
    size_t values;           /* values begun so far */
} mk_kjscan;

/* An object's text as it is gathered. */
typedef struct mk_kjbuf {
    char *buf;
    size_t len, cap;
} mk_kjbuf;

/* A watch stream: JSON objects one after the other (the API server ends
 * each with a newline; none is needed). */
typedef struct mk_kstream {
    mk_kjscan scan;
    mk_kjbuf obj;            /* the event so far */
    int in_obj;              /* between an event's '{' and its '}' */
} mk_kstream;

/* Calls fn for each complete event, as soon as its last byte arrives (fn
 * returns 0 to go on, -1 to stop). Returns 0, -1 when fn stopped, -2 on a
 * malformed stream or an event past the bounds (err set). */
int mk_kstream_feed(mk_kstream *s, const char *data, size_t len,
                    int (*fn)(void *ctx, json_t *obj), void *ctx, char *err, size_t errlen);
void mk_kstream_reset(mk_kstream *s);

/* A LIST answer: one object whose "items" array is handed out an element
 * at a time; its other members (metadata, kind) are kept for the end. */
typedef struct mk_klist {
    int state;
    mk_kjscan scan;
    mk_kjbuf rest;           /* the answer less its items' text */
    size_t rest_values;
    mk_kjbuf item;           /* the item being gathered */
    size_t item_values;      /* scan.values when it began */
    size_t items;            /* items handed out */
    size_t in_array;         /* of them, in the array being read */
    int need_comma;
    int key_state;           /* reading a top-level key, and is it "items" */
    char key[8];             /* its first bytes */
    size_t keylen;
} mk_klist;

/* Calls fn for each item, index from 0 (fn returns 0 to go on, -1 to stop).
 * Returns 0, -1 when fn stopped, -2 on a malformed answer or one past the
 * bounds. Errors here and from mk_klist_end say what is wrong with the
 * answer without naming it, for "the API server's answer to LIST /x " to
 * go before them: "has items[3] over 4 MiB (the limit for one object)". */
int mk_klist_feed(mk_klist *l, const char *data, size_t len,
                  int (*fn)(void *ctx, size_t index, json_t *item), void *ctx,
                  char *err, size_t errlen);
/* The answer ended: the NodeList less its items (its "items" an empty
 * array), or NULL with err when it is incomplete or not a NodeList. */
json_t *mk_klist_end(mk_klist *l, char *err, size_t errlen);
void mk_klist_reset(mk_klist *l);

/* json_loadb whose error always says what was wrong: jansson leaves the
 * reason empty when memory runs out mid-parse. */
json_t *mk_kjson_load(const char *text, size_t len, size_t flags, json_error_t *je);

#endif
