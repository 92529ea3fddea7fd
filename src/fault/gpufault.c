/* gpufault.c - reading a GPUFault object, and the fault in words.
 *
 * Every field is checked as the CRD's schema checks it and then some (the
 * duration's 24 h, metric names and values): an object may have been
 * written with validation off or before the CRD was installed, and the
 * agent must say what is wrong with it rather than act on part of it. The
 * first problem found is the one reported. Memory is not assumed
 * (no mk_x* allocators): the agent answers out of memory, it does not
 * abort on it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabric.h"
#include "gpufault.h"
#include "units.h"
#include "util/util.h"
#include "ytree.h"

#define SNIP 48          /* bytes of a string from the object quoted in invalid */
enum { OK = 0, BAD = -1, NOMEM = -2 };
/* Marks what mk_gfault_unreadable keeps: no API field has a blank. */
#define UNREADABLE " unreadable"

static int bad(mk_gfault *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(mk_gfault *f, const char *fmt, ...)
{
    if (!f->invalid[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(f->invalid, sizeof f->invalid, fmt, ap);
        va_end(ap);
    }
    return BAD;
}

/* s, cut and cleaned for quoting in invalid, into q[SNIP + 4]. */
static const char *snip(const char *s, char *q)
{
    mk_text_snip(s, SNIP, q, SNIP + 4);
    return q;
}

/* *out = a copy of j when it is a string (else stays NULL). */
static int dup_string(const json_t *j, char **out)
{
    if (!json_is_string(j))
        return OK;
    *out = strdup(json_string_value(j));
    return *out ? OK : NOMEM;
}

static const char *type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "a list";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "a whole number";
    case JSON_REAL: return "a number with a fraction";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: break;
    }
    return "null";
}

/* A string with a NUL inside (jansson reads "\u0000") would be cut short
 * where C reads it ("0\u0000x" as GPU 0): the first such string of j, by
 * its path after `at` in path[len], makes the object bad. */
static int find_nul(const json_t *j, char *path, size_t len, size_t at)
{
    const char *k;
    size_t i;
    json_t *v;
    if (!j || at >= len)
        return 0;
    switch (json_typeof(j)) {
    case JSON_STRING:
        return strlen(json_string_value(j)) != json_string_length(j);
    case JSON_OBJECT:
        json_object_foreach((json_t *)j, k, v) {
            int n = snprintf(path + at, len - at, ".%s", k);
            if (n > 0 && find_nul(v, path, len, at + (size_t)n))
                return 1;
        }
        break;
    case JSON_ARRAY:
        json_array_foreach(j, i, v) {
            int n = snprintf(path + at, len - at, "[%zu]", i);
            if (n > 0 && find_nul(v, path, len, at + (size_t)n))
                return 1;
        }
        break;
    default:
        break;
    }
    path[at] = '\0';
    return 0;
}

static int refuse_nul(mk_gfault *f, const json_t *j, const char *name)
{
    char path[128], q[SNIP + 4];
    int n = snprintf(path, sizeof path, "%s", name);
    if (!find_nul(j, path, sizeof path, (size_t)n))
        return OK;
    return bad(f, "%s: holds a NUL byte (\\u0000)", snip(path, q));
}

/* --- metadata and kind ------------------------------------------------------ */

static int read_metadata(mk_gfault *f, const json_t *md)
{
    char q[SNIP + 4];
    if (!json_is_object(md))
        return bad(f, md ? "metadata: must be an object" : "metadata: missing");
    static const char *const keys[] = { "name", "generateName", "uid", "resourceVersion",
                                        "creationTimestamp" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char path[64];
        snprintf(path, sizeof path, "metadata.%s", keys[i]);
        if (refuse_nul(f, json_object_get(md, keys[i]), path))
            return BAD;
    }
    if (dup_string(json_object_get(md, "name"), &f->name) ||
        dup_string(json_object_get(md, "uid"), &f->uid) ||
        dup_string(json_object_get(md, "resourceVersion"), &f->rv))
        return NOMEM;
    const json_t *gen = json_object_get(md, "generation"), *ct = json_object_get(md, "creationTimestamp");
    if (json_is_integer(gen) && json_integer_value(gen) > 0)
        f->generation = json_integer_value(gen);
    if (!f->name && !json_is_string(json_object_get(md, "generateName")))
        return bad(f, "metadata.name: missing");
    if (f->name && !mk_kname_ok(f->name))
        return bad(f, "metadata.name: '%s' is not a DNS subdomain (lower-case letters, digits, "
                   "'-' and '.')", snip(f->name, q));
    if (ct && !json_is_null(ct) && !json_is_string(ct))
        return bad(f, "metadata.creationTimestamp: must be a string");
    if (json_is_string(ct) && mk_ktime_ms(json_string_value(ct), &f->created_ms))
        return bad(f, "metadata.creationTimestamp: '%s' is not an RFC 3339 time from 1970 on",
                   snip(json_string_value(ct), q));
    return OK;
}

/* kind and apiVersion are absent from the items of a LIST; when there,
 * they must be ours. */
static int read_kind(mk_gfault *f, const json_t *obj)
{
    const json_t *kind = json_object_get(obj, "kind"), *api = json_object_get(obj, "apiVersion");
    if (kind && !(json_is_string(kind) && strcmp(json_string_value(kind), MK_GF_KIND) == 0))
        return bad(f, "kind: must be " MK_GF_KIND);
    if (api && !(json_is_string(api) && strcmp(json_string_value(api), MK_GF_API_VERSION) == 0))
        return bad(f, "apiVersion: must be " MK_GF_API_VERSION);
    return OK;
}

/* --- spec.nodes ------------------------------------------------------------- */

static int read_names(mk_gfault *f, const json_t *names)
{
    char q[SNIP + 4];
    size_t n = json_array_size(names);
    if (!json_is_array(names))
        return bad(f, "spec.nodes.names: must be a list of node names");
    if (n == 0)
        return bad(f, "spec.nodes.names: empty; leave it out for every node");
    if (n > MK_GF_MAX_NAMES)
        return bad(f, "spec.nodes.names: %zu names; at most %d", n, MK_GF_MAX_NAMES);
    if (!(f->names = calloc(n, sizeof *f->names)))
        return NOMEM;
    for (; f->nnames < n; f->nnames++) {
        const json_t *v = json_array_get(names, f->nnames);
        if (!json_is_string(v))
            return bad(f, "spec.nodes.names[%zu]: must be a string, not %s", f->nnames,
                       type_name(v));
        if (!mk_kname_ok(json_string_value(v)))
            return bad(f, "spec.nodes.names[%zu]: '%s' is not a node name (a DNS subdomain: "
                       "lower-case letters, digits, '-' and '.')", f->nnames,
                       snip(json_string_value(v), q));
        if (!(f->names[f->nnames] = strdup(json_string_value(v))))
            return NOMEM;
    }
    return OK;
}

static int read_selector(mk_gfault *f, const json_t *sel)
{
    char err[256];
    if (!json_is_object(sel))
        return bad(f, "spec.nodes.selector: must be a label selector (matchLabels, "
                   "matchExpressions)");
    int rc = mk_ksel_from_json(sel, &f->sel, err, sizeof err);
    if (rc == MK_KSEL_NOMEM)
        return NOMEM;
    if (rc)
        return bad(f, "spec.nodes.selector.%s", err);
    f->has_selector = 1;
    return OK;
}

static void drop_nodes(mk_gfault *f)
{
    for (size_t i = 0; i < f->nnames; i++)
        free(f->names[i]);
    free(f->names);
    f->names = NULL;
    f->nnames = 0;
    mk_ksel_free(&f->sel);
    f->has_selector = 0;
}

/* Nodes that could not be read are every node (see mk_gfault_selects). */
static int read_nodes(mk_gfault *f, const json_t *nodes)
{
    int rc = OK;
    if (!nodes || json_is_null(nodes))
        return OK;
    if (!json_is_object(nodes))
        return bad(f, "spec.nodes: must be an object with names and a selector");
    const json_t *names = json_object_get(nodes, "names"), *sel = json_object_get(nodes, "selector");
    if (names && !json_is_null(names))
        rc = read_names(f, names);
    if (!rc && sel && !json_is_null(sel))
        rc = read_selector(f, sel);
    if (rc)
        drop_nodes(f);
    return rc;
}

/* --- spec.gpus -------------------------------------------------------------- */

/* "GPU-" and letters, digits and '-', as NVML writes UUIDs. */
static int uuid_ok(const char *s)
{
    size_t n = strlen(s);
    return strncmp(s, "GPU-", 4) == 0 && n > 4 && n <= MK_GF_MAX_UUID &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-") == n;
}

static int gpu_string(mk_gfault *f, const char *s, size_t i)
{
    char q[SNIP + 4];
    size_t n = strlen(s);
    if (strcmp(s, "all") == 0) {
        f->all_gpus = 1;
        return OK;
    }
    if (n && strspn(s, "0123456789") == n) {
        long v = n <= 4 ? strtol(s, NULL, 10) : MK_GF_MAX_GPUS;
        if (v >= MK_GF_MAX_GPUS)
            return bad(f, "spec.gpus[%zu]: '%s' is not a GPU index (0-%d)", i, snip(s, q),
                       MK_GF_MAX_GPUS - 1);
        f->indexes[f->nindexes++] = v;
        return OK;
    }
    if (!uuid_ok(s))
        return bad(f, "spec.gpus[%zu]: '%s' is not a GPU index, a GPU UUID (GPU-...) or all", i,
                   snip(s, q));
    if (!(f->uuids[f->nuuids] = strdup(s)))
        return NOMEM;
    f->nuuids++;
    return OK;
}

static int gpu_item(mk_gfault *f, const json_t *v, size_t i)
{
    if (json_is_string(v))
        return gpu_string(f, json_string_value(v), i);
    if (!json_is_integer(v))
        return bad(f, "spec.gpus[%zu]: must be an index, a GPU UUID or all, not %s", i,
                   type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < 0 || x >= MK_GF_MAX_GPUS)
        return bad(f, "spec.gpus[%zu]: %lld is not a GPU index (0-%d)", i, (long long)x,
                   MK_GF_MAX_GPUS - 1);
    f->indexes[f->nindexes++] = (long)x;
    return OK;
}

static int read_gpus(mk_gfault *f, const json_t *gpus)
{
    size_t n = json_array_size(gpus);
    if (!gpus || json_is_null(gpus))
        return bad(f, "spec.gpus: missing; give GPU indexes, GPU UUIDs or all");
    if (!json_is_array(gpus))
        return bad(f, "spec.gpus: must be a list of GPU indexes, GPU UUIDs or all");
    if (n == 0)
        return bad(f, "spec.gpus: empty; give GPU indexes, GPU UUIDs or all");
    if (n > MK_GF_MAX_GPUS)
        return bad(f, "spec.gpus: %zu items; at most %d", n, MK_GF_MAX_GPUS);
    if (!(f->indexes = calloc(n, sizeof *f->indexes)) || !(f->uuids = calloc(n, sizeof *f->uuids)))
        return NOMEM;
    for (size_t i = 0; i < n; i++) {
        int rc = gpu_item(f, json_array_get(gpus, i), i);
        if (rc)
            return rc;
    }
    if (f->all_gpus && n > 1)
        return bad(f, "spec.gpus: all must be the only item");
    return OK;
}

/* --- spec.fault ------------------------------------------------------------- */

#define FAULT_KEYS "xid, ecc, lost, healthy, set or fabric"

static int read_xid(mk_gfault *f, const json_t *v)
{
    if (!json_is_integer(v))
        return bad(f, "spec.fault.xid: must be a whole number from 1 to %d, not %s",
                   MK_GF_XID_MAX, type_name(v));
    if (json_integer_value(v) < 1 || json_integer_value(v) > MK_GF_XID_MAX)
        return bad(f, "spec.fault.xid: %lld is not from 1 to %d",
                   (long long)json_integer_value(v), MK_GF_XID_MAX);
    f->kind = MK_GF_XID;
    f->xid = (unsigned)json_integer_value(v);
    return OK;
}

static int read_ecc(mk_gfault *f, const json_t *v)
{
    char q[SNIP + 4];
    const char *s = json_string_value(v);
    if (!s)
        return bad(f, "spec.fault.ecc: must be single or double, not %s", type_name(v));
    if (strcmp(s, "single") && strcmp(s, "double"))
        return bad(f, "spec.fault.ecc: '%s' is not single or double", snip(s, q));
    f->kind = strcmp(s, "single") == 0 ? MK_GF_ECC_SINGLE : MK_GF_ECC_DOUBLE;
    return OK;
}

static int read_flag(mk_gfault *f, const json_t *v, const char *key, mk_gf_kind kind)
{
    if (!json_is_true(v))
        return bad(f, "spec.fault.%s: must be true", key);
    f->kind = kind;
    return OK;
}

static int unknown_metric(mk_gfault *f, const char *name)
{
    const char *names[MK_M_COUNT + 1], *sugg;
    char q[SNIP + 4];
    for (int m = 0; m < MK_M_COUNT; m++)
        names[m] = mk_metrics[m].name;
    names[MK_M_COUNT] = NULL;
    if ((sugg = mk_did_you_mean(name, names)))
        return bad(f, "spec.fault.set: unknown metric '%s'; did you mean '%s'?", snip(name, q),
                   sugg);
    return bad(f, "spec.fault.set: unknown metric '%s' (see mokka inject --help)", snip(name, q));
}

/* One value of spec.fault.set, in its metric's unit. The schema takes
 * strings and whole numbers (x-kubernetes-int-or-string), and so does this. */
static int read_pin(mk_gfault *f, int m, const json_t *v)
{
    char text[32], q[SNIP + 4];
    const char *s = json_string_value(v), *why;
    if (json_is_integer(v)) {
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
        s = text;
    }
    if (!s)
        return bad(f, "spec.fault.set.%s: must be a string or a whole number, not %s",
                   mk_metrics[m].name, type_name(v));
    mk_gf_pin *p = &f->pins[f->npins];
    p->metric = m;
    if (mk_parse_quantity(mk_metrics[m].unit, s, &p->value, &why))
        return bad(f, "spec.fault.set.%s: '%s': %s", mk_metrics[m].name, snip(s, q), why);
    f->npins++;
    return OK;
}

static int read_pins(mk_gfault *f, const json_t *set)
{
    const char *k;
    json_t *v;
    if (!json_is_object(set))
        return bad(f, "spec.fault.set: must be an object of metrics and values, like "
                   "{temperature: \"90\"}");
    if (json_object_size(set) == 0)
        return bad(f, "spec.fault.set: empty; give metrics and values, like {temperature: \"90\"}");
    if (json_object_size(set) > MK_GF_MAX_PINS)
        return bad(f, "spec.fault.set: %zu metrics; at most %d", json_object_size(set),
                   MK_GF_MAX_PINS);
    json_object_foreach((json_t *)set, k, v)
        if (mk_metric_by_name(k) < 0)
            return unknown_metric(f, k);
    /* Keys are known and distinct now: at most one pin per metric. */
    f->kind = MK_GF_SET;
    if (!(f->pins = calloc(json_object_size(set), sizeof *f->pins)))
        return NOMEM;
    for (int m = 0; m < MK_M_COUNT; m++) {
        const json_t *val = json_object_get(set, mk_metrics[m].name);
        int rc = val ? read_pin(f, m, val) : OK;
        if (rc)
            return rc;
    }
    return OK;
}

/* The index of s in names (NULL-terminated), or -1. */
static int name_index(const char *s, const char *const *names)
{
    for (int i = 0; s && names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    return -1;
}

/* One of names, by its exact spelling (the CRD's enum), into *out. */
static int read_fabric_name(mk_gfault *f, const json_t *v, const char *key,
                            const char *const *names, int *out)
{
    char q[SNIP + 4];
    const char *s = json_string_value(v), *sugg;
    if (!s)
        return bad(f, "spec.fault.fabric.%s: must be a string, not %s", key, type_name(v));
    if ((*out = name_index(s, names)) >= 0)
        return OK;
    if ((sugg = mk_did_you_mean(s, names)))
        return bad(f, "spec.fault.fabric.%s: unknown value '%s'; did you mean '%s'?", key,
                   snip(s, q), sugg);
    return bad(f, "spec.fault.fabric.%s: unknown value '%s' (see mokka inject --help)", key,
               snip(s, q));
}

static int read_fabric_health(mk_gfault *f, const json_t *v)
{
    size_t i;
    json_t *item;
    int bit;
    if (!json_is_array(v))
        return bad(f, "spec.fault.fabric.health: must be a list of conditions (empty: none)");
    json_array_foreach(v, i, item) {
        char key[32];
        snprintf(key, sizeof key, "health[%zu]", i);
        if (read_fabric_name(f, item, key, mk_fabric_health_names, &bit))
            return BAD;
        f->fabric.health |= 1u << bit;
    }
    return OK;
}

/* spec.fault.fabric: what is left out is completed, success, healthy. */
static int read_fabric(mk_gfault *f, const json_t *fab)
{
    const char *k;
    json_t *v;
    char q[SNIP + 4];
    int i;
    if (!json_is_object(fab))
        return bad(f, "spec.fault.fabric: must be an object of state, status and health");
    if (json_object_size(fab) == 0)
        return bad(f, "spec.fault.fabric: empty; give state, status or health");
    json_object_foreach((json_t *)fab, k, v)
        if (strcmp(k, "state") && strcmp(k, "status") && strcmp(k, "health"))
            return bad(f, "spec.fault.fabric: unknown key '%s'; give state, status or health",
                       snip(k, q));
    f->kind = MK_GF_FABRIC;
    f->fabric = (mk_gf_fabric){ .state = MK_FABRIC_COMPLETED };
    if ((v = json_object_get(fab, "state"))) {
        /* notSupported is no state a fabric can be put in. */
        if (read_fabric_name(f, v, "state", mk_fabric_state_names + 1, &i))
            return BAD;
        f->fabric.state = i + 1;
    }
    if ((v = json_object_get(fab, "status"))) {
        if (read_fabric_name(f, v, "status", mk_nvml_return_names, &i))
            return BAD;
        f->fabric.status = mk_nvml_return_values[i];
    }
    v = json_object_get(fab, "health");
    return v ? read_fabric_health(f, v) : OK;
}

static int read_fault(mk_gfault *f, const json_t *fault)
{
    static const char *const keys[] = { "xid", "ecc", "lost", "healthy", "set", "fabric" };
    const char *k, *first = NULL;
    json_t *v;
    char q[SNIP + 4];
    if (!fault || json_is_null(fault))
        return bad(f, "spec.fault: missing; give one of " FAULT_KEYS);
    if (!json_is_object(fault))
        return bad(f, "spec.fault: must be an object with one of " FAULT_KEYS);
    json_object_foreach((json_t *)fault, k, v) {
        size_t i = 0;
        while (i < sizeof keys / sizeof keys[0] && strcmp(k, keys[i]))
            i++;
        if (i == sizeof keys / sizeof keys[0])
            return bad(f, "spec.fault: unknown key '%s'; give one of " FAULT_KEYS, snip(k, q));
        if (first)
            return bad(f, "spec.fault: has both %s and %s; give one", first, keys[i]);
        first = keys[i];
    }
    if (!first)
        return bad(f, "spec.fault: empty; give one of " FAULT_KEYS);
    v = json_object_get(fault, first);
    switch (first[0]) {
    case 'x': return read_xid(f, v);
    case 'e': return read_ecc(f, v);
    case 'l': return read_flag(f, v, "lost", MK_GF_LOST);
    case 'h': return read_flag(f, v, "healthy", MK_GF_HEALTHY);
    case 'f': return read_fabric(f, v);
    default: return read_pins(f, v);
    }
}

/* --- spec.duration ---------------------------------------------------------- */

static int read_duration(mk_gfault *f, const json_t *d)
{
    char q[SNIP + 4];
    long long ms;
    if (!d || json_is_null(d))
        return OK;
    if (!json_is_string(d))
        return bad(f, "spec.duration: must be a string like 5m, not %s", type_name(d));
    if (mk_duration_parse(json_string_value(d), &ms))
        return bad(f, "spec.duration: '%s' is not a duration like 500ms, 30s, 5m, 1h or 1m30s "
                   "(24h at most)", snip(json_string_value(d), q));
    if (ms == 0)
        return bad(f, "spec.duration: must be more than 0; leave it out for a fault that holds "
                   "until deleted");
    f->duration_ms = ms;
    /* Only the API server's copy has a creationTimestamp to count from. */
    if (f->created_ms)
        f->expires_ms = f->created_ms + ms;
    return OK;
}

/* --- the object ------------------------------------------------------------- */

static int read_object(const json_t *obj, mk_gfault *f)
{
    const char *unreadable = json_string_value(json_object_get(obj, UNREADABLE));
    if (!json_is_object(obj))
        return bad(f, "the object is not a JSON object");
    if (unreadable) {
        int rc = read_metadata(f, json_object_get(obj, "metadata"));
        f->invalid[0] = '\0';
        bad(f, "the object cannot be read: it %s", unreadable);
        mk_text_snip(f->invalid, sizeof f->invalid - 4, f->invalid, sizeof f->invalid);
        return rc == NOMEM ? NOMEM : BAD;
    }
    int rc = read_metadata(f, json_object_get(obj, "metadata"));
    if (rc == NOMEM)
        return rc;
    read_kind(f, obj);
    const json_t *spec = json_object_get(obj, "spec");
    if (!json_is_object(spec))
        return bad(f, spec ? "spec: must be an object" : "spec: missing");
    if (refuse_nul(f, spec, "spec"))
        return BAD;
    /* The nodes even when something before was bad: they say which agents
     * report the fault Rejected. */
    if ((rc = read_nodes(f, json_object_get(spec, "nodes"))) == NOMEM || f->invalid[0])
        return rc;
    if ((rc = read_gpus(f, json_object_get(spec, "gpus"))) ||
        (rc = read_fault(f, json_object_get(spec, "fault"))))
        return rc;
    return read_duration(f, json_object_get(spec, "duration"));
}

int mk_gfault_from_json(const json_t *obj, mk_gfault *out)
{
    memset(out, 0, sizeof *out);
    if (read_object(obj, out) != NOMEM)
        return 0;
    mk_gfault_free(out);
    return -1;
}

json_t *mk_gfault_unreadable(const json_t *picked, const char *why)
{
    json_t *md = json_object_get(picked, "metadata");
    return json_is_object(md) ? json_pack("{sOss}", "metadata", md, UNREADABLE, why)
                              : json_pack("{s{}ss}", "metadata", UNREADABLE, why);
}

void mk_gfault_free(mk_gfault *f)
{
    drop_nodes(f);
    for (size_t i = 0; i < f->nuuids; i++)
        free(f->uuids[i]);
    free(f->uuids);
    free(f->indexes);
    free(f->pins);
    free(f->name);
    free(f->uid);
    free(f->rv);
    memset(f, 0, sizeof *f);
}

/* --- in words --------------------------------------------------------------- */

/* "set temperature=90C,power=300W": mk_format_quantity's text without its
 * blank, which mk_parse_quantity reads back. */
static void describe_pins(const mk_gfault *f, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "set ");
    for (size_t i = 0; i < f->npins && at < len; i++) {
        char v[48], *o = v;
        mk_format_quantity(mk_metrics[f->pins[i].metric].unit, f->pins[i].value, v, sizeof v);
        for (const char *p = v; *p; p++)
            if (*p != ' ')
                *o++ = *p;
        *o = 0;
        at += (size_t)snprintf(buf + at, len - at, "%s%s=%s", i ? "," : "",
                               mk_metrics[f->pins[i].metric].name, v);
    }
}

/* "fabric state=inProgress,status=notReady,health=degradedBandwidth,routeRecovery" */
static void describe_fabric(const mk_gf_fabric *fab, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "fabric state=%s,status=%s,health=",
                                 mk_fabric_state_names[fab->state],
                                 mk_nvml_return_name(fab->status));
    if (!fab->health && at < len)
        snprintf(buf + at, len - at, "none");
    for (int b = 0, first = 1; b < MK_FABRIC_HEALTH_BITS && at < len; b++)
        if (fab->health & (1u << b)) {
            at += (size_t)snprintf(buf + at, len - at, "%s%s", first ? "" : ",",
                                   mk_fabric_health_names[b]);
            first = 0;
        }
}

void mk_gfault_describe(const mk_gfault *f, char *buf, size_t len)
{
    if (!len)
        return;
    if (f->invalid[0]) {
        snprintf(buf, len, "invalid");
        return;
    }
    switch (f->kind) {
    case MK_GF_XID: snprintf(buf, len, "xid %u", f->xid); break;
    case MK_GF_ECC_SINGLE: snprintf(buf, len, "ecc single"); break;
    case MK_GF_ECC_DOUBLE: snprintf(buf, len, "ecc double"); break;
    case MK_GF_LOST: snprintf(buf, len, "lost"); break;
    case MK_GF_HEALTHY: snprintf(buf, len, "healthy"); break;
    case MK_GF_SET: describe_pins(f, buf, len); break;
    case MK_GF_FABRIC: describe_fabric(&f->fabric, buf, len); break;
    }
}

static int by_age(const void *x, const void *y)
{
    const mk_gfault *a = x, *b = y;
    if (a->created_ms != b->created_ms)
        return a->created_ms < b->created_ms ? -1 : 1;
    return strcmp(a->name ? a->name : "", b->name ? b->name : "");
}

mk_gfault *mk_gfaults_read(const json_t *byname, size_t *n)
{
    const char *k;
    json_t *v;
    mk_gfault *g = calloc(json_object_size(byname) + 1, sizeof *g);
    *n = 0;
    if (!g)
        return NULL;
    json_object_foreach((json_t *)byname, k, v) {
        if (mk_gfault_from_json(v, &g[*n])) {
            mk_gfaults_free(g, *n);
            return NULL;
        }
        (*n)++;
    }
    qsort(g, *n, sizeof *g, by_age);
    return g;
}

void mk_gfaults_free(mk_gfault *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++)
        mk_gfault_free(&g[i]);
    free(g);
}

mk_nv_kv *mk_gfault_labels(const json_t *labels, size_t *n)
{
    const char *k;
    json_t *v;
    mk_nv_kv *kv = calloc(json_object_size(labels) + 1, sizeof *kv);
    *n = 0;
    if (!kv)
        return NULL;
    json_object_foreach((json_t *)labels, k, v)
        if (json_is_string(v))
            kv[(*n)++] = (mk_nv_kv){ (char *)k, (char *)json_string_value(v) };
    return kv;
}
