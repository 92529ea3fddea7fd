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
#include "util/util.h"

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

/* --- picking shallow strings -------------------------------------------------------- */

static void pick_start(mk_kjpick *p, size_t base, const char *const *paths)
{
    memset(p, 0, sizeof *p);
    p->base = base;
    p->paths = paths;
}

/* Whether the keys of levels 1..level (all in objects) spell `path`. */
static int pick_path_is(const mk_kjpick *p, size_t level, const char *path)
{
    for (size_t l = 1; l <= level; l++) {
        size_t n = strcspn(path, ".");
        if (!p->is_obj[l] || p->keylen[l] != n || memcmp(p->key[l], path, n))
            return 0;
        path += n;
        if (l < level && *path++ != '.')
            return 0;
    }
    return *path == '\0';
}

/* Byte c, which took the scan from (depth0, in_str0, prev0) to s. */
static void pick_byte(mk_kjpick *p, const mk_kjscan *s, size_t depth0, int in_str0, char prev0,
                      unsigned char c)
{
    size_t level = depth0 - p->base;
    if (in_str0) {
        if (p->in_key) {
            if (!s->in_str)
                p->in_key = 0;
            else if (p->keylen[level] < MK_KJPICK_KEY)
                p->key[level][p->keylen[level]++] = (char)c;
            else
                p->keylen[level] = MK_KJPICK_KEY + 1;      /* longer than any we compare */
        } else if (p->grab) {
            size_t i = (size_t)p->grab - 1;
            if (p->cur < MK_KJPICK_VALUE)
                p->val[i][p->cur] = (char)c;
            p->cur++;
            if (!s->in_str) {
                p->vallen[i] = p->cur <= MK_KJPICK_VALUE ? p->cur : 0;
                p->grab = 0;
            }
        }
        return;
    }
    if ((c == '{' || c == '[') && s->depth - p->base <= MK_KJPICK_LEVELS) {
        p->is_obj[s->depth - p->base] = c == '{';
        return;
    }
    if (c != '"' || level < 1 || level > MK_KJPICK_LEVELS || !p->is_obj[level])
        return;
    if (prev0 == '{' || prev0 == ',') {
        p->in_key = 1;
        p->keylen[level] = 0;
        return;
    }
    for (size_t i = 0; prev0 == ':' && i < MK_KJPICK_PATHS && p->paths[i]; i++)
        if (pick_path_is(p, level, p->paths[i])) {
            p->grab = (int)i + 1;
            p->val[i][0] = '"';
            p->cur = 1;
            return;
        }
}

/* What was picked, as {"metadata": {"name": ...}}; NULL when out of memory. */
static json_t *pick_result(const mk_kjpick *p)
{
    json_t *root = json_object();
    for (size_t i = 0; root && i < MK_KJPICK_PATHS && p->paths[i]; i++) {
        if (!p->vallen[i])
            continue;
        json_t *v = json_loadb(p->val[i], p->vallen[i], JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        json_t *at = root;
        const char *path = p->paths[i];
        if (!json_is_string(v)) {       /* not a string jansson reads: not picked */
            json_decref(v);
            continue;
        }
        for (size_t n; path[n = strcspn(path, ".")] == '.'; path += n + 1) {
            char key[MK_KJPICK_KEY + 1];
            snprintf(key, sizeof key, "%.*s", (int)n, path);
            json_t *next = json_object_get(at, key);
            if (!json_is_object(next) && json_object_set_new(at, key, next = json_object()))
                next = NULL;
            if (!(at = next))
                break;
        }
        if (!at || json_object_set_new(at, path, v)) {
            json_decref(root);
            return NULL;
        }
    }
    return root;
}

/* Follows data[0..len) through an object that began at nesting `base`: how
 * many bytes belong to it, and *done when its closing brace is among them.
 * The picker, when given, follows it too. */
static size_t scan_object(mk_kjscan *s, mk_kjpick *p, size_t base, const char *data, size_t len,
                          int *done)
{
    for (size_t i = 0; i < len; i++) {
        size_t depth0 = s->depth;
        int in_str0 = s->in_str;
        char prev0 = s->prev;
        scan_byte(s, (unsigned char)data[i]);
        /* The picker needs a string's bytes only when it reads the string
         * (a key, a picked value), and nothing deep inside. */
        if (p && (!in_str0 || p->in_key || p->grab) &&
            (depth0 - p->base <= MK_KJPICK_LEVELS || s->depth - p->base <= MK_KJPICK_LEVELS))
            pick_byte(p, s, depth0, in_str0, prev0, (unsigned char)data[i]);
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

static const char oom_parsing[] = "out of memory while parsing";

json_t *mk_kjson_load(const char *text, size_t len, size_t flags, json_error_t *je)
{
    json_t *j = json_loadb(text, len, flags, je);
    if (!j && !je->text[0])
        snprintf(je->text, sizeof je->text, "%s", oom_parsing);
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

/* --- objects past the bounds ------------------------------------------------------- */

/* Keeps n more bytes of an object in b unless it is bad already, counting
 * them in *seen; makes it bad (why in bad[badlen]) at a bound. Returns 0,
 * or -2 with err when out of memory or past MK_KFRAME_SKIP_MAX. */
static int keep_bytes(mk_kjbuf *b, size_t *seen, const mk_kjscan *scan, size_t values0,
                      const char *p, size_t n, char *bad, size_t badlen, const char *what,
                      char *err, size_t errlen)
{
    *seen += n;
    if (*seen > MK_KFRAME_SKIP_MAX) {
        snprintf(err, errlen, "%s runs past %u MiB: given up", what, MK_KFRAME_SKIP_MAX >> 20);
        return -2;
    }
    if (bad[0])
        return 0;
    int r = buf_add(b, p, n);
    if (r == -2) {
        snprintf(err, errlen, "out of memory");
        return -2;
    }
    if (r == -1)
        snprintf(bad, badlen, "is over %u MiB " ONE_OBJECT, MK_KFRAME_OBJECT_MAX >> 20);
    else if (scan->values - values0 > MK_KFRAME_VALUES_MAX)
        snprintf(bad, badlen, "holds more than %d JSON values " ONE_OBJECT, MK_KFRAME_VALUES_MAX);
    if (bad[0]) {               /* what was kept is of no use now */
        free(b->buf);
        memset(b, 0, sizeof *b);
    }
    return 0;
}

/* The complete object in b: parsed, or (bad set) what was picked of it.
 * NULL with err only when out of memory. */
static json_t *load_object(const mk_kjbuf *b, const mk_kjpick *p, char *bad, size_t badlen,
                           char *err, size_t errlen)
{
    json_error_t je;
    json_t *obj = NULL;
    if (!bad[0]) {
        obj = mk_kjson_load(b->buf, b->len, JSON_ALLOW_NUL, &je);
        /* Our memory, not the object's fault. */
        if (!obj && (json_error_code(&je) == json_error_out_of_memory ||
                     !strcmp(je.text, oom_parsing))) {
            snprintf(err, errlen, "%s", oom_parsing);
            return NULL;
        }
        if (obj)
            return obj;
        /* Printable ASCII: jansson's "near '...'" quotes the object's bytes. */
        char why[200], raw[256];
        snprintf(raw, sizeof raw, "cannot be read%.200s", where_why(&je, why, sizeof why));
        mk_text_snip(raw, sizeof raw, bad, badlen);
    }
    if (!(obj = pick_result(p)))
        snprintf(err, errlen, "out of memory");
    return obj;
}

/* --- watch streams ------------------------------------------------------------- */

static const char *const event_paths[] = { "type", "object.metadata.name", "object.metadata.uid",
                                           "object.metadata.resourceVersion", NULL };

void mk_kstream_reset(mk_kstream *s)
{
    free(s->obj.buf);
    memset(s, 0, sizeof *s);
}

int mk_kstream_feed(mk_kstream *s, const char *data, size_t len,
                    int (*fn)(void *ctx, json_t *obj, const char *bad), void *ctx,
                    char *err, size_t errlen)
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
            pick_start(&s->pick, 0, event_paths);
            s->obj.len = 0;
            s->seen = 0;
            s->bad[0] = '\0';
            s->in_obj = 1;
        }
        int done;
        size_t n = scan_object(&s->scan, &s->pick, 0, data + i, len - i, &done);
        if (keep_bytes(&s->obj, &s->seen, &s->scan, 0, data + i, n, s->bad, sizeof s->bad,
                       "a watch event", err, errlen))
            return -2;
        i += n;
        if (!done)
            break;
        s->in_obj = 0;
        json_t *obj = load_object(&s->obj, &s->pick, s->bad, sizeof s->bad, err, errlen);
        if (!obj)
            return -2;
        int stop = fn(ctx, obj, s->bad[0] ? s->bad : NULL);
        json_decref(obj);
        if (stop)
            return -1;
    }
    return 0;
}

/* --- LIST answers -------------------------------------------------------------- */

static const char *const item_paths[] = { "metadata.name", "metadata.uid",
                                          "metadata.resourceVersion", NULL };

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
        l->item_seen = 0;
        l->bad[0] = '\0';
        pick_start(&l->pick, 2, item_paths);
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
                         int (*fn)(void *ctx, size_t index, json_t *item, const char *bad),
                         void *ctx, int *rc, char *err, size_t errlen)
{
    int done;
    char what[64];
    size_t n = scan_object(&l->scan, &l->pick, 2, data, len, &done);
    snprintf(what, sizeof what, "items[%zu]", l->items);
    if ((*rc = keep_bytes(&l->item, &l->item_seen, &l->scan, l->item_values, data, n, l->bad,
                          sizeof l->bad, what, err, errlen)))
        return n;
    if (!done)
        return n;
    json_t *item = load_object(&l->item, &l->pick, l->bad, sizeof l->bad, err, errlen);
    if (!item) {
        *rc = -2;
        return n;
    }
    l->state = L_ITEMS;
    l->need_comma = 1;
    l->in_array++;
    *rc = fn(ctx, l->items++, item, l->bad[0] ? l->bad : NULL) ? -1 : 0;
    json_decref(item);
    return n;
}

int mk_klist_feed(mk_klist *l, const char *data, size_t len,
                  int (*fn)(void *ctx, size_t index, json_t *item, const char *bad), void *ctx,
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
