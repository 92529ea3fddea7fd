/* kube_frame.c - framing the API server's JSON answers as their bytes arrive
 * (kube_frame.h): where each watch event and each LIST item ends, found by
 * following strings and nesting, so that each is parsed once, alone, and
 * only when it is within the bounds. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube_frame.h"

static int blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* --- following the text ------------------------------------------------------- */

static void scan_byte(mk_kjscan *s, unsigned char c)
{
    if (s->in_str) {
        if (s->esc)
            s->esc = 0;
        else if (c == '\\')
            s->esc = 1;
        else if (c == '"')
            s->in_str = 0;
        return;
    }
    if (blank(c))
        return;
    switch (c) {
    case '"':
        s->in_str = 1;
        s->values++;
        break;
    case '{':
    case '[':
        s->depth++;
        s->values++;
        break;
    case '}':
    case ']':
        if (s->depth)
            s->depth--;
        break;
    default:
        /* The first byte of a number, true, false or null. */
        if (s->prev == ':' || s->prev == ',' || s->prev == '[')
            s->values++;
        break;
    }
    s->prev = (char)c;
}

/* Follows data[0..len) through an object that began at nesting `base`: how
 * many bytes belong to it, and *done when its closing brace is among them. */
static size_t scan_object(mk_kjscan *s, size_t base, const char *data, size_t len, int *done)
{
    for (size_t i = 0; i < len; i++) {
        scan_byte(s, (unsigned char)data[i]);
        if (s->depth == base) {
            *done = 1;
            return i + 1;
        }
    }
    *done = 0;
    return len;
}

/* Appends within MK_KFRAME_OBJECT_MAX: 0, -1 past it, -2 out of memory. */
static int buf_add(mk_kjbuf *b, const char *p, size_t n)
{
    if (b->len + n > MK_KFRAME_OBJECT_MAX)
        return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 16384;
        while (cap < b->len + n + 1)
            cap *= 2;
        if (cap > MK_KFRAME_OBJECT_MAX + 1)
            cap = MK_KFRAME_OBJECT_MAX + 1;
        char *nb = realloc(b->buf, cap);
        if (!nb)
            return -2;
        b->buf = nb;
        b->cap = cap;
    }
    memcpy(b->buf + b->len, p, n);
    b->len += n;
    return 0;
}

/* The error of a failed buf_add (`why`): the bound, in the caller's words
 * (`fmt`), or memory. Returns -2. */
static int bound_err(int why, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int bound_err(int why, char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (why == -2) {
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -2;
}

#define ONE_OBJECT "(the limit for one object)"

/* A byte that is not JSON's where it came, for a message. */
static void byte_name(unsigned char c, char *buf, size_t len)
{
    if (isprint(c))
        snprintf(buf, len, "'%c'", c);
    else
        snprintf(buf, len, "byte 0x%02x", c);
}

json_t *mk_kjson_load(const char *text, size_t len, size_t flags, json_error_t *je)
{
    json_t *j = json_loadb(text, len, flags, je);
    if (!j && !je->text[0])
        snprintf(je->text, sizeof je->text, "out of memory while parsing");
    return j;
}

/* " (line 1, column 16): reason", or ": reason" where jansson knows no place. */
static const char *where_why(const json_error_t *je, char *buf, size_t len)
{
    if (je->line > 0)
        snprintf(buf, len, " (line %d, column %d): %s", je->line, je->column, je->text);
    else
        snprintf(buf, len, ": %s", je->text);
    return buf;
}

/* --- watch streams ------------------------------------------------------------- */

void mk_kstream_reset(mk_kstream *s)
{
    free(s->obj.buf);
    memset(s, 0, sizeof *s);
}

int mk_kstream_feed(mk_kstream *s, const char *data, size_t len,
                    int (*fn)(void *ctx, json_t *obj), void *ctx, char *err, size_t errlen)
{
    size_t i = 0;
    while (i < len) {
        if (!s->in_obj) {
            unsigned char c = (unsigned char)data[i];
            char name[16];
            if (blank(c)) {
                i++;
                continue;
            }
            if (c != '{') {
                byte_name(c, name, sizeof name);
                snprintf(err, errlen, "malformed watch stream: %s where an event should begin", name);
                return -2;
            }
            memset(&s->scan, 0, sizeof s->scan);
            s->obj.len = 0;
            s->in_obj = 1;
        }
        int done, r;
        size_t n = scan_object(&s->scan, 0, data + i, len - i, &done);
        if ((r = buf_add(&s->obj, data + i, n)))
            return bound_err(r, err, errlen, "a watch event is over %u MiB " ONE_OBJECT,
                             MK_KFRAME_OBJECT_MAX >> 20);
        if (s->scan.values > MK_KFRAME_VALUES_MAX)
            return bound_err(-1, err, errlen, "a watch event holds more than %d JSON values " ONE_OBJECT,
                             MK_KFRAME_VALUES_MAX);
        i += n;
        if (!done)
            break;
        s->in_obj = 0;
        json_error_t je;
        json_t *obj = mk_kjson_load(s->obj.buf, s->obj.len, 0, &je);
        if (!obj) {
            char why[256];
            snprintf(err, errlen, "malformed watch event%s", where_why(&je, why, sizeof why));
            return -2;
        }
        int stop = fn(ctx, obj);
        json_decref(obj);
        if (stop)
            return -1;
    }
    return 0;
}

/* --- LIST answers -------------------------------------------------------------- */

enum { L_START, L_TOP, L_ITEMS, L_ITEM, L_DONE };   /* where in the answer */
enum { K_NONE, K_IN, K_END, K_ITEMS };              /* reading a top-level key */

void mk_klist_reset(mk_klist *l)
{
    free(l->rest.buf);
    free(l->item.buf);
    memset(l, 0, sizeof *l);
}

/* A byte of the answer outside its items: kept, and watched for the
 * top-level key "items" whose array holds them. */
static int top_byte(mk_klist *l, unsigned char c, char *err, size_t errlen)
{
    mk_kjscan *s = &l->scan;
    size_t depth = s->depth, values = s->values;
    int in_key_str = s->in_str;
    char prev = s->prev;
    int r;

    scan_byte(s, c);
    if ((r = buf_add(&l->rest, (const char *)&c, 1)))
        return bound_err(r, err, errlen, "holds over %u MiB besides its items " ONE_OBJECT,
                         MK_KFRAME_OBJECT_MAX >> 20);
    l->rest_values += s->values - values;
    if (l->rest_values > MK_KFRAME_VALUES_MAX)
        return bound_err(-1, err, errlen, "holds more than %d JSON values besides its items " ONE_OBJECT,
                         MK_KFRAME_VALUES_MAX);
    if (s->depth == 0) {
        l->state = L_DONE;          /* the top-level object's closing brace */
        return 0;
    }
    if (depth != 1)
        return 0;
    if (l->key_state == K_IN) {
        if (!s->in_str)
            l->key_state = K_END;
        else if (l->keylen++ < sizeof l->key)
            l->key[l->keylen - 1] = (char)c;
    } else if (!in_key_str && c == '"' && (prev == '{' || prev == ',')) {
        l->key_state = K_IN;
        l->keylen = 0;
    } else if (l->key_state == K_END && c == ':') {
        l->key_state = l->keylen == 5 && !memcmp(l->key, "items", 5) ? K_ITEMS : K_NONE;
    } else if (l->key_state == K_ITEMS && !blank(c)) {
        l->key_state = K_NONE;
        if (c == '[') {
            l->state = L_ITEMS;
            l->in_array = 0;
            l->need_comma = 0;
        }
    }
    return 0;
}

/* Between the items' array elements: only commas, blanks, the next item
 * (a Node is an object) or the array's end. */
static int between_items(mk_klist *l, unsigned char c, char *err, size_t errlen)
{
    char name[16];
    if (blank(c))
        return 0;
    if (c == ',' && l->need_comma) {
        l->need_comma = 0;
        return 0;
    }
    if (c == ']' && (l->need_comma || !l->in_array)) {
        l->state = L_TOP;
        return top_byte(l, c, err, errlen);
    }
    if (c == '{' && !l->need_comma) {
        l->state = L_ITEM;
        l->item.len = 0;
        l->item_values = l->scan.values;
        return 1;                   /* the item's first byte: not consumed here */
    }
    byte_name(c, name, sizeof name);
    snprintf(err, errlen, "is malformed: %s where items[%zu] or the end of items should be", name,
             l->items);
    return -2;
}

/* Gathers items[l->items]; hands it to fn when complete. Returns the bytes
 * used, or -1 (fn stopped) or -2 (err) through *rc. */
static size_t item_bytes(mk_klist *l, const char *data, size_t len,
                         int (*fn)(void *ctx, size_t index, json_t *item), void *ctx, int *rc,
                         char *err, size_t errlen)
{
    int done, r;
    size_t n = scan_object(&l->scan, 2, data, len, &done);
    *rc = 0;
    if ((r = buf_add(&l->item, data, n))) {
        *rc = bound_err(r, err, errlen, "has items[%zu] over %u MiB " ONE_OBJECT, l->items,
                        MK_KFRAME_OBJECT_MAX >> 20);
        return n;
    }
    if (l->scan.values - l->item_values > MK_KFRAME_VALUES_MAX) {
        *rc = bound_err(-1, err, errlen, "has items[%zu] with more than %d JSON values " ONE_OBJECT,
                        l->items, MK_KFRAME_VALUES_MAX);
        return n;
    }
    if (!done)
        return n;
    json_error_t je;
    json_t *item = mk_kjson_load(l->item.buf, l->item.len, 0, &je);
    if (!item) {
        char why[256];
        snprintf(err, errlen, "has items[%zu] that is not valid JSON%s", l->items,
                 where_why(&je, why, sizeof why));
        *rc = -2;
        return n;
    }
    l->state = L_ITEMS;
    l->need_comma = 1;
    l->in_array++;
    *rc = fn(ctx, l->items++, item) ? -1 : 0;
    json_decref(item);
    return n;
}

int mk_klist_feed(mk_klist *l, const char *data, size_t len,
                  int (*fn)(void *ctx, size_t index, json_t *item), void *ctx,
                  char *err, size_t errlen)
{
    char name[16];
    int rc = 0;
    for (size_t i = 0; i < len && rc == 0;) {
        unsigned char c = (unsigned char)data[i];
        switch (l->state) {
        case L_START:
            if (!blank(c) && c != '{') {
                byte_name(c, name, sizeof name);
                snprintf(err, errlen, "is not a NodeList: it begins with %s", name);
                return -2;
            }
            if (c == '{')
                l->state = L_TOP;
            else
                i++;
            break;
        case L_TOP:
            rc = top_byte(l, c, err, errlen);
            i++;
            break;
        case L_ITEMS:
            rc = between_items(l, c, err, errlen);
            if (rc == 1)
                rc = 0;
            else
                i++;
            break;
        case L_ITEM:
            i += item_bytes(l, data + i, len - i, fn, ctx, &rc, err, errlen);
            break;
        case L_DONE:
            if (!blank(c)) {
                byte_name(c, name, sizeof name);
                snprintf(err, errlen, "is malformed: %s after the NodeList's end", name);
                return -2;
            }
            i++;
            break;
        }
    }
    return rc;
}

json_t *mk_klist_end(mk_klist *l, char *err, size_t errlen)
{
    json_error_t je;
    json_t *list;
    if (l->state == L_START) {
        snprintf(err, errlen, "is empty, not a NodeList");
        return NULL;
    }
    if (l->state != L_DONE) {
        snprintf(err, errlen, "ends before the NodeList does");
        return NULL;
    }
    /* A second "items" would add nodes a parse of the whole would drop. */
    if (!(list = mk_kjson_load(l->rest.buf, l->rest.len, JSON_REJECT_DUPLICATES, &je))) {
        snprintf(err, errlen, "is not valid JSON: %s", je.text);
        return NULL;
    }
    if (!json_is_array(json_object_get(list, "items"))) {
        snprintf(err, errlen, "is not a NodeList: it has no items array");
        json_decref(list);
        return NULL;
    }
    return list;
}
