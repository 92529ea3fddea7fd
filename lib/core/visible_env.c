/* visible_env.c - where a process's view comes from (visible.h): its
 * NVIDIA_VISIBLE_DEVICES, and the MOKKA_VISIBLE_GPU_<index> variables that
 * the devices of Mokka's CDI spec set, joined into the one spec that
 * mk_visible_parse reads.
 *
 * A CDI runtime merges the edits of every device a container asks for, and
 * of two devices setting the same variable only the last one stays; so
 * each device sets a variable of its own, and the view is the union of
 * them all. Read once at the first nvmlInit, never on the hot path. No
 * allocation can abort: the library uses this inside its host process. */
#include <stdlib.h>
#include <string.h>
#include "visible.h"

typedef struct cdi_var {
    unsigned long index;   /* <index> of the name; ULONG_MAX: not a number */
    const char *value;
} cdi_var;

/* MOKKA_VISIBLE_GPU_<index>=VALUE: 1 with its index and value. */
static int read_cdi_var(const char *entry, cdi_var *out)
{
    size_t pl = strlen(MK_VISIBLE_GPU_ENV);
    if (strncmp(entry, MK_VISIBLE_GPU_ENV, pl) != 0)
        return 0;
    const char *name = entry + pl, *eq = strchr(name, '=');
    if (!eq || eq == name)
        return 0;
    out->value = eq + 1;
    out->index = 0;
    for (const char *p = name; p < eq; p++) {
        if (*p < '0' || *p > '9' || out->index > 1000000) {
            out->index = (unsigned long)-1;
            break;
        }
        out->index = out->index * 10 + (unsigned long)(*p - '0');
    }
    return 1;
}

/* The CDI variables of env, by index (a real node numbers the device
 * nodes a container has by bus id, whatever order they were asked for
 * in); the environment's order among equals. *n of them, malloc'd. */
static cdi_var *cdi_vars(char *const *env, size_t *n, int *oom)
{
    size_t cap = 0;
    for (size_t i = 0; env[i]; i++)
        cap += strncmp(env[i], MK_VISIBLE_GPU_ENV, strlen(MK_VISIBLE_GPU_ENV)) == 0;
    *n = 0;
    *oom = 0;
    if (!cap)
        return NULL;
    cdi_var *v = malloc(cap * sizeof *v);
    if (!v) {
        *oom = 1;
        return NULL;
    }
    for (size_t i = 0; env[i]; i++) {
        cdi_var c;
        if (!read_cdi_var(env[i], &c))
            continue;
        size_t k = *n;   /* insertion: stable, and a handful at most */
        while (k > 0 && v[k - 1].index > c.index) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = c;
        (*n)++;
    }
    return v;
}

static const char *env_value(char *const *env, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; env[i]; i++)
        if (strncmp(env[i], name, nl) == 0 && env[i][nl] == '=')
            return env[i] + nl + 1;
    return NULL;
}

/* spec, then every value that names GPUs, comma-separated: "all" when one
 * of them is "all", "void" when none names any. */
static char *join(const char *spec, const cdi_var *v, size_t n)
{
    size_t len = sizeof "void";
    int all = spec && !mk_visible_restricted(spec);
    if (spec)
        len += strlen(spec) + 1;
    for (size_t i = 0; i < n; i++) {
        all |= !mk_visible_restricted(v[i].value);
        len += strlen(v[i].value) + 1;
    }
    char *out = malloc(len);
    if (!out)
        return NULL;
    out[0] = 0;
    if (all)
        return strcpy(out, "all");
    if (spec && !mk_visible_none(spec))
        strcat(out, spec);
    for (size_t i = 0; i < n; i++)
        if (!mk_visible_none(v[i].value))
            strcat(strcat(out, out[0] ? "," : ""), v[i].value);
    return out[0] ? out : strcpy(out, "void");
}

int mk_visible_env_spec(char *const *env, char **spec)
{
    static char *const empty[] = { NULL };
    size_t n;
    int oom;
    if (!env)   /* clearenv() leaves environ NULL */
        env = empty;
    const char *nvd = env_value(env, MK_VISIBLE_ENV);
    cdi_var *v = cdi_vars(env, &n, &oom);
    *spec = NULL;
    if (oom)
        return -1;
    if (!n) {
        free(v);   /* only names that merely start like one */
        if (nvd && !(*spec = strdup(nvd)))
            return -1;
        return 0;
    }
    *spec = join(nvd, v, n);
    free(v);
    return *spec ? 1 : -1;
}
