/* gfbuild.c - a GPUFault object from what the CLI and the suites ask for.
 *
 * This file reads only the command-line syntax (GPU lists and ranges,
 * METRIC=VALUE) and puts the object together; the object is then read back
 * by mk_gfault_from_json, whose complaints become the answer with the field
 * named as its option ("spec.duration: ..." -> "--for: ..."). So the
 * builder can never make an object the agents would reject, and there is
 * one set of checks, not two that drift apart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fabric.h"
#include "gpufault.h"
#include "util/util.h"

#define SNIP 48
#define PREFIX_GPUS 30     /* bytes of the GPUs in a generated name's prefix */

static int nomem(char *err, size_t errlen)
{
    return mk_errf(err, errlen, "out of memory");
}

/* s, cut and cleaned for quoting in err, into q[SNIP + 4]. */
static const char *snip(const char *s, char *q)
{
    mk_text_snip(s, SNIP, q, SNIP + 4);
    return q;
}

/* A JSON string of text from the command line. Not checked for UTF-8 here:
 * every string field the read-back accepts is ASCII, so text that is not
 * never leaves this file. NULL only when out of memory. */
static json_t *text(const char *s)
{
    return json_string_nocheck(s);
}

/* --- --gpu ------------------------------------------------------------------ */

/* "N" or "N-M" with 1 to 4 digits each; 0 and the bounds, or -1. */
static int index_range(const char *s, long *lo, long *hi)
{
    size_t a = strspn(s, "0123456789"), b = 0;
    if (a == 0 || a > 4 || (s[a] && s[a] != '-'))
        return -1;
    *lo = *hi = strtol(s, NULL, 10);
    if (!s[a])
        return 0;
    b = strspn(s + a + 1, "0123456789");
    if (b == 0 || b > 4 || s[a + 1 + b])
        return -1;
    *hi = strtol(s + a + 1, NULL, 10);
    return 0;
}

/* A UUID's part of a generated name: 'u' and the first eight letters and
 * digits after "GPU-", in lower case. */
static void uuid_prefix(mk_sb *pre, const char *uuid)
{
    int n = 0;
    mk_sb_puts(pre, "u");
    for (const char *p = uuid + 4; *p && n < 8; p++)
        if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')) {
            mk_sb_printf(pre, "%c", *p | 0x20);   /* lower case; digits have the bit */
            n++;
        }
}

/* Appends what one --gpu item names to gpus, and its part of a generated
 * name to pre (indexes and ranges as written). */
static int gpu_item(const char *item, json_t *gpus, mk_sb *pre, char *err, size_t errlen)
{
    char q[SNIP + 4];
    long lo, hi;
    if (strcmp(item, "all") == 0 || strncmp(item, "GPU-", 4) == 0) {
        if (json_array_append_new(gpus, text(item)))
            return nomem(err, errlen);
        if (item[0] == 'a')
            mk_sb_puts(pre, "all");
        else
            uuid_prefix(pre, item);
        return 0;
    }
    if (index_range(item, &lo, &hi))
        return mk_errf(err, errlen, "--gpu takes an index, a range, a GPU UUID or all, not '%s'",
                    snip(item, q));
    if (lo > hi)
        return mk_errf(err, errlen, "--gpu: '%s' is not a range: %ld is more than %ld", item, lo, hi);
    if (hi >= MK_GF_MAX_GPUS)
        return mk_errf(err, errlen, "--gpu: '%s': GPU indexes are 0-%d", item, MK_GF_MAX_GPUS - 1);
    if (hi - lo + 1 > MK_GF_MAX_GPUS - (long)json_array_size(gpus))
        return mk_errf(err, errlen, "--gpu: more than %d GPUs", MK_GF_MAX_GPUS);
    for (long i = lo; i <= hi; i++)
        if (json_array_append_new(gpus, json_integer(i)))
            return nomem(err, errlen);
    mk_sb_puts(pre, item);
    return 0;
}

/* "0,2-3,GPU-..." into gpus; pre gets the GPUs' part of a generated name. */
static int gpu_list(const char *s, json_t *gpus, mk_sb *pre, char *err, size_t errlen)
{
    if (!s || !*s)
        return mk_errf(err, errlen, "give --gpu: an index, a range, a GPU UUID or all");
    char *copy = strdup(s);
    if (!copy)
        return nomem(err, errlen);
    int rc = 0;
    mk_sb_puts(pre, "gpu");
    /* strtok_r would skip an empty item ("0,,1"), which is a typo to report. */
    for (char *item = copy, *next; item && !rc; item = next) {
        next = strchr(item, ',');
        if (next)
            *next++ = 0;
        if (item != copy)
            mk_sb_puts(pre, ".");
        rc = gpu_item(item, gpus, pre, err, errlen);
    }
    free(copy);
    return rc;
}

/* --- the fault -------------------------------------------------------------- */

static int set_pins(const mk_gfault_req *r, json_t *set, char *err, size_t errlen)
{
    char q[SNIP + 4];
    if (!r->nsets)
        return mk_errf(err, errlen, "give --set METRIC=VALUE, like temperature=90");
    for (size_t i = 0; i < r->nsets; i++) {
        const char *eq = strchr(r->sets[i], '=');
        if (!eq || eq == r->sets[i])
            return mk_errf(err, errlen, "--set takes METRIC=VALUE, like temperature=90, not '%s'",
                        snip(r->sets[i], q));
        char *name = strndup(r->sets[i], (size_t)(eq - r->sets[i]));
        if (!name)
            return nomem(err, errlen);
        int rc = 0;
        if (json_object_get(set, name))
            rc = mk_errf(err, errlen, "--set %s given twice", snip(name, q));
        else if (json_object_set_new_nocheck(set, name, text(eq + 1)))
            rc = nomem(err, errlen);
        free(name);
        if (rc)
            return rc;
    }
    return 0;
}

/* {state, status, health} with what was given; names as the CRD spells them. */
static json_t *fabric_value(const mk_gfault_req *r)
{
    json_t *v = json_object(), *health = r->fhealth >= 0 ? json_array() : NULL;
    int bad = !v || (r->fhealth >= 0 && !health);
    if (!bad && r->fstate >= 0)
        bad = json_object_set_new(v, "state", json_string(mk_fabric_state_names[r->fstate]));
    if (!bad && r->fstatus >= 0)
        bad = json_object_set_new(v, "status", json_string(mk_nvml_return_name((unsigned)r->fstatus)));
    for (int b = 0; !bad && health && b < MK_FABRIC_HEALTH_BITS; b++)
        if (r->fhealth & (1 << b))
            bad = json_array_append_new(health, json_string(mk_fabric_health_names[b]));
    if (!bad && health)
        bad = json_object_set(v, "health", health);
    json_decref(health);
    if (bad) {
        json_decref(v);
        return NULL;
    }
    return v;
}

/* spec.fault's one key, and its value into *v (NULL when out of memory). */
static const char *fault_value(const mk_gfault_req *r, json_t **v)
{
    switch (r->kind) {
    case MK_GF_XID: *v = json_integer(r->xid); return "xid";
    case MK_GF_ECC_SINGLE: *v = json_string("single"); return "ecc";
    case MK_GF_ECC_DOUBLE: *v = json_string("double"); return "ecc";
    case MK_GF_LOST: *v = json_true(); return "lost";
    case MK_GF_HEALTHY: *v = json_true(); return "healthy";
    case MK_GF_FABRIC: *v = fabric_value(r); return "fabric";
    case MK_GF_SET: break;
    }
    *v = json_object();
    return "set";
}

static json_t *fault_json(const mk_gfault_req *r, char *err, size_t errlen)
{
    if (r->kind != MK_GF_SET && r->nsets) {
        mk_errf(err, errlen, "--set is a fault of its own: give it without --xid, --ecc, --lost, "
             "--healthy or --fabric-*");
        return NULL;
    }
    json_t *v, *f = json_object();
    const char *key = fault_value(r, &v);
    int rc = !f || !v ? nomem(err, errlen) : r->kind == MK_GF_SET ? set_pins(r, v, err, errlen) : 0;
    if (!rc && json_object_set(f, key, v))
        rc = nomem(err, errlen);
    json_decref(v);
    if (rc) {
        json_decref(f);
        return NULL;
    }
    return f;
}

/* "xid79", "ecc-double", "set": the fault's part of a generated name. */
static void fault_prefix(const mk_gfault_req *r, mk_sb *pre)
{
    switch (r->kind) {
    case MK_GF_XID: mk_sb_printf(pre, "xid%u", r->xid); break;
    case MK_GF_ECC_SINGLE: mk_sb_puts(pre, "ecc-single"); break;
    case MK_GF_ECC_DOUBLE: mk_sb_puts(pre, "ecc-double"); break;
    case MK_GF_LOST: mk_sb_puts(pre, "lost"); break;
    case MK_GF_HEALTHY: mk_sb_puts(pre, "healthy"); break;
    case MK_GF_SET: mk_sb_puts(pre, "set"); break;
    case MK_GF_FABRIC: mk_sb_puts(pre, "fabric"); break;
    }
}

/* --- the object ------------------------------------------------------------- */

static int put_nodes(const mk_gfault_req *r, json_t *spec, char *err, size_t errlen)
{
    if (!r->nnodes && !r->selector)
        return 0;
    json_t *nodes = json_object(), *names = r->nnodes ? json_array() : NULL;
    int bad = !nodes || (r->nnodes && !names) || json_object_set(spec, "nodes", nodes);
    for (size_t i = 0; i < r->nnodes && !bad; i++)
        bad = json_array_append_new(names, text(r->nodes[i]));
    if (!bad && names)
        bad = json_object_set(nodes, "names", names);
    if (!bad && r->selector)
        bad = json_object_set_new(nodes, "selector", mk_ksel_to_json(r->selector));
    json_decref(names);
    json_decref(nodes);
    return bad ? nomem(err, errlen) : 0;
}

/* The GPUs' part of a generated name cut to PREFIX_GPUS after "gpu", at
 * an item's end where one is ("0.1.2", not "0.1.2.1" for "0.1.2.13"), and
 * never on a separator, so that the name stays a DNS subdomain. */
static void cut_gpus(mk_sb *pre)
{
    size_t max = 3 + PREFIX_GPUS, at = max;
    if (pre->len <= max)
        return;
    while (at > 3 && pre->s[at] != '.')
        at--;
    pre->len = at > 3 ? at : max;
    while (pre->s[pre->len - 1] == '.' || pre->s[pre->len - 1] == '-')
        pre->len--;
    pre->s[pre->len] = 0;
}

static int put_metadata(const mk_gfault_req *r, mk_sb *pre, json_t *obj, char *err, size_t errlen)
{
    json_t *md = json_object();
    int bad = !md || json_object_set(obj, "metadata", md);
    if (!bad && r->name) {
        bad = json_object_set_new(md, "name", text(r->name));
    } else if (!bad) {
        cut_gpus(pre);
        mk_sb_puts(pre, "-");
        fault_prefix(r, pre);
        mk_sb_puts(pre, "-");
        bad = json_object_set_new(md, "generateName", json_string(pre->s));
    }
    json_decref(md);
    return bad ? nomem(err, errlen) : 0;
}

/* Say what the read-back found wrong with the option the field came from. */
static void as_option(const char *invalid, char *err, size_t errlen)
{
    static const struct { const char *field, *opt; } opts[] = {
        { "spec.fault.set.", "--set " }, { "spec.fault.set", "--set" },
        { "spec.fault.xid", "--xid" }, { "spec.fault.fabric.state", "--fabric-state" },
        { "spec.fault.fabric.status", "--fabric-status" },
        { "spec.fault.fabric.health", "--fabric-health" }, { "spec.nodes.names", "--node" },
        { "spec.nodes.selector.", "--selector: " }, { "spec.gpus", "--gpu" },
        { "spec.duration", "--for" }, { "metadata.name", "--name" },
    };
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        size_t n = strlen(opts[i].field);
        if (strncmp(invalid, opts[i].field, n) != 0)
            continue;
        const char *rest = invalid + n;
        if (*rest == '[')
            rest += strcspn(rest, "]") + 1;
        snprintf(err, errlen, "%s%s", opts[i].opt, rest);
        return;
    }
    snprintf(err, errlen, "%s", invalid);
}

static int check(const json_t *obj, char *err, size_t errlen)
{
    mk_gfault f;
    if (mk_gfault_from_json(obj, &f))
        return nomem(err, errlen);
    int rc = f.invalid[0] ? -1 : 0;
    if (rc)
        as_option(f.invalid, err, errlen);
    mk_gfault_free(&f);
    return rc;
}

static int assemble(const mk_gfault_req *r, json_t *obj, mk_sb *pre, char *err, size_t errlen)
{
    json_t *spec = json_object(), *gpus = json_array(), *fault = NULL;
    int rc = !spec || !gpus ? nomem(err, errlen) : gpu_list(r->gpus, gpus, pre, err, errlen);
    if (!rc && !(fault = fault_json(r, err, errlen)))
        rc = -1;
    /* In the order kubectl shows and the CRD describes them. */
    if (!rc && (json_object_set_new(obj, "apiVersion", json_string(MK_GF_API_VERSION)) ||
                json_object_set_new(obj, "kind", json_string(MK_GF_KIND))))
        rc = nomem(err, errlen);
    if (!rc)
        rc = put_metadata(r, pre, obj, err, errlen);
    if (!rc)
        rc = put_nodes(r, spec, err, errlen);
    if (!rc && (json_object_set(spec, "gpus", gpus) || json_object_set(spec, "fault", fault) ||
                (r->duration && json_object_set_new(spec, "duration", text(r->duration))) ||
                json_object_set(obj, "spec", spec)))
        rc = nomem(err, errlen);
    json_decref(fault);
    json_decref(gpus);
    json_decref(spec);
    return rc;
}

json_t *mk_gfault_build(const mk_gfault_req *r, char *err, size_t errlen)
{
    mk_sb pre = MK_SB_INIT;
    json_t *obj = json_object();
    int rc = obj ? assemble(r, obj, &pre, err, errlen) : nomem(err, errlen);
    if (!rc)
        rc = check(obj, err, errlen);
    mk_sb_free(&pre);
    if (rc) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}
