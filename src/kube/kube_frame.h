/* kube_frame.h - the API server's JSON answers framed as their bytes arrive:
 * a watch stream into its events, a LIST answer into its items. A scan that
 * follows strings and nesting finds where each object ends, so each is
 * parsed once and alone, however the answer is chunked or spread over lines,
 * and no object (so no JSON tree) grows past the bounds below: the memory a
 * LIST answer costs is one item's, not the whole answer's.
 *
 * The bounds are each object's, never the answer's: an object past them,
 * or one jansson cannot read (an integer beyond 64 bits, a key with a NUL,
 * nesting past jansson's depth), is handed out as a bad one (its `bad`
 * reason set) with what could be picked from its text as it went by: its
 * metadata.name, uid and resourceVersion (and a watch event's type), so
 * that the caller can report that object and go on with the others. Strings
 * with NUL ("\u0000") are read (JSON_ALLOW_NUL): what shows them escapes.
 *
 * Errors and reasons may quote the server's text (jansson's reasons do):
 * callers scrub them (mk_khttp_scrub) before they go into messages. */
#ifndef MOKKA_KUBE_FRAME_H
#define MOKKA_KUBE_FRAME_H

#include <jansson.h>
#include <stddef.h>

/* The most one object may hold: a watch event, a LIST item, or a LIST answer
 * less its items. etcd keeps objects of 1.5 MiB at most; their JSON fits. */
#define MK_KFRAME_OBJECT_MAX (4u << 20)
/* The most an object past the bounds may run to while it is skipped to its
 * end (not kept): past this, the stream or answer is given up (an event
 * that never ends). Four times the bound: JSON escapes make an object's
 * text longer than what etcd keeps. */
#define MK_KFRAME_SKIP_MAX (16u << 20)
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

/* The shallow strings of an object picked from its text as it goes by
 * (metadata.name, ...), for when the object itself cannot be read. */
#define MK_KJPICK_LEVELS 4     /* levels below the object's root followed */
#define MK_KJPICK_PATHS 4
#define MK_KJPICK_KEY 24       /* bytes of a key compared */
#define MK_KJPICK_VALUE 512    /* bytes of a picked string's text kept */
typedef struct mk_kjpick {
    const char *const *paths;  /* "metadata.name", ..., NULL-ended */
    size_t base;               /* the scan's depth outside the object */
    unsigned char is_obj[MK_KJPICK_LEVELS + 1];
    char key[MK_KJPICK_LEVELS + 1][MK_KJPICK_KEY];
    size_t keylen[MK_KJPICK_LEVELS + 1];
    int in_key;                /* reading a key (at the current level) */
    int grab;                  /* 1 + the path whose string is being read */
    char val[MK_KJPICK_PATHS][MK_KJPICK_VALUE];
    size_t vallen[MK_KJPICK_PATHS];   /* 0: not picked */
    size_t cur;                /* bytes of the string being read */
} mk_kjpick;

/* A watch stream: JSON objects one after the other (the API server ends
 * each with a newline; none is needed). */
typedef struct mk_kstream {
    mk_kjscan scan;
    mk_kjpick pick;
    mk_kjbuf obj;            /* the event so far */
    size_t seen;             /* its bytes so far, kept or not */
    int in_obj;              /* between an event's '{' and its '}' */
    char bad[256];           /* why the event is not kept; "": it is */
} mk_kstream;

/* Calls fn for each complete event, as soon as its last byte arrives (fn
 * returns 0 to go on, -1 to stop). An event past the bounds or unreadable
 * comes with `bad` set ("holds more than 250000 JSON values (the limit for
 * one object)") and obj what was picked of it: {"type": ..., "object":
 * {"metadata": {"name", "uid", "resourceVersion"}}}, as much as was found.
 * Returns 0, -1 when fn stopped, -2 on a malformed stream, an event that
 * runs past MK_KFRAME_SKIP_MAX, or out of memory (err set). */
int mk_kstream_feed(mk_kstream *s, const char *data, size_t len,
                    int (*fn)(void *ctx, json_t *obj, const char *bad), void *ctx,
                    char *err, size_t errlen);
void mk_kstream_reset(mk_kstream *s);

/* A LIST answer: one object whose "items" array is handed out an element
 * at a time; its other members (metadata, kind) are kept for the end. */
typedef struct mk_klist {
    int state;
    mk_kjscan scan;
    mk_kjbuf rest;           /* the answer less its items' text */
    size_t rest_values;
    mk_kjbuf item;           /* the item being gathered */
    mk_kjpick pick;
    size_t item_values;      /* scan.values when it began */
    size_t item_seen;        /* its bytes so far, kept or not */
    char bad[256];           /* why the item is not kept; "": it is */
    size_t items;            /* items handed out */
    size_t in_array;         /* of them, in the array being read */
    int need_comma;
    int key_state;           /* reading a top-level key, and is it "items" */
    char key[8];             /* its first bytes */
    size_t keylen;
} mk_klist;

/* Calls fn for each item, index from 0 (fn returns 0 to go on, -1 to stop).
 * An item past the bounds or unreadable comes with `bad` set ("is over 4
 * MiB (the limit for one object)") and item what was picked of it:
 * {"metadata": {"name", "uid", "resourceVersion"}}, as much as was found.
 * Returns 0, -1 when fn stopped, -2 on a malformed answer, one past the
 * bounds besides its items, or out of memory. Errors here and from
 * mk_klist_end say what is wrong with the answer without naming it, for
 * "the API server's answer to LIST /x " to go before them: "is malformed:
 * ']' where items[3] or the end of items should be". */
int mk_klist_feed(mk_klist *l, const char *data, size_t len,
                  int (*fn)(void *ctx, size_t index, json_t *item, const char *bad), void *ctx,
                  char *err, size_t errlen);
/* The answer ended: the NodeList less its items (its "items" an empty
 * array), or NULL with err when it is incomplete or not a NodeList. */
json_t *mk_klist_end(mk_klist *l, char *err, size_t errlen);
void mk_klist_reset(mk_klist *l);

/* json_loadb whose error always says what was wrong: jansson leaves the
 * reason empty when memory runs out mid-parse. */
json_t *mk_kjson_load(const char *text, size_t len, size_t flags, json_error_t *je);

#endif
