/* ociedit.c - reading and editing an OCI runtime spec (a bundle's
 * config.json) for the runtime shim: does the container ask for GPUs,
 * where is its root filesystem, and the plan written in. */
#include <string.h>
#include "ctr.h"
#include "util/util.h"

/* process.env's value of name, or NULL. */
static const char *env_get(json_t *spec, const char *name)
{
    size_t i, n = strlen(name);
    json_t *e;
    json_array_foreach(json_object_get(json_object_get(spec, "process"), "env"), i, e) {
        const char *s = json_string_value(e);
        if (s && strncmp(s, name, n) == 0 && s[n] == '=')
            return s + n + 1;
    }
    return NULL;
}

int mk_ctr_wants_gpus(json_t *spec)
{
    const char *v = env_get(spec, "NVIDIA_VISIBLE_DEVICES");
    return v && *v && strcmp(v, "void") != 0 && strcmp(v, "none") != 0;
}

int mk_ctr_rootfs(json_t *spec, const char *bundle, char *out, size_t len, int *readonly,
                  char *err, size_t errlen)
{
    json_t *root = json_object_get(spec, "root");
    const char *path = json_string_value(json_object_get(root, "path"));
    if (!path || !*path)
        return mk_errf(err, errlen, "config.json has no root.path (the container's root "
                       "filesystem)");
    *readonly = json_is_true(json_object_get(root, "readonly"));
    int n = path[0] == '/' ? snprintf(out, len, "%s", path)
                           : snprintf(out, len, "%s/%s", bundle, path);
    if (n < 0 || (size_t)n >= len)
        return mk_errf(err, errlen, "root.path too long: %s", path);
    return 0;
}

/* Sets NAME=VALUE in process.env, replacing an entry of the same name. */
static void env_set(json_t *env, const char *entry)
{
    size_t i, n = strcspn(entry, "=");
    json_t *e;
    json_array_foreach(env, i, e) {
        const char *s = json_string_value(e);
        if (s && strncmp(s, entry, n) == 0 && s[n] == '=') {
            json_array_set_new(env, i, json_string(entry));
            return;
        }
    }
    json_array_append_new(env, json_string(entry));
}

/* The object under key, made when absent (or not of that type). */
static json_t *child(json_t *parent, const char *key, int array)
{
    json_t *c = json_object_get(parent, key);
    if (array ? json_is_array(c) : json_is_object(c))
        return c;
    c = array ? json_array() : json_object();
    json_object_set_new(parent, key, c);
    return c;
}

json_t *mk_ctr_mount_options(const mk_ctr_mount *m)
{
    return m->rw ? json_pack("[sss]", "rbind", "nosuid", "nodev")
                 : json_pack("[ssss]", "rbind", "ro", "nosuid", "nodev");
}

/* Whether mounts already has this bind (a spec edited before: a runtime
 * that runs the same bundle again). */
static int has_mount(json_t *mounts, const mk_ctr_mount *m)
{
    size_t i;
    json_t *e;
    json_array_foreach(mounts, i, e) {
        const char *dst = json_string_value(json_object_get(e, "destination"));
        const char *src = json_string_value(json_object_get(e, "source"));
        if (dst && src && strcmp(dst, m->dst) == 0 && strcmp(src, m->src) == 0)
            return 1;
    }
    return 0;
}

void mk_ctr_apply(json_t *spec, const mk_ctr_plan *p)
{
    json_t *mounts = child(spec, "mounts", 1);
    for (size_t i = 0; i < p->nmount; i++) {
        const mk_ctr_mount *m = &p->mount[i];
        if (has_mount(mounts, m))
            continue;
        json_array_append_new(mounts, json_pack("{s:s, s:s, s:s, s:o}", "destination", m->dst,
                                                "type", "bind", "source", m->src, "options",
                                                mk_ctr_mount_options(m)));
    }
    json_t *env = child(child(spec, "process", 0), "env", 1);
    for (size_t i = 0; i < p->nenv; i++)
        env_set(env, p->env[i]);
}
