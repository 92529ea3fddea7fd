/* plugspec.c - which plugins `mokka run` supervises side by side: the
 * `plugins:` list of a run file (--plugins FILE) and --add-plugin
 * 'NAME=[VAR=VALUE...] COMMAND [ARG...]', each a name, a command line, an
 * environment of its own and a log. Names are checked here, once, for both
 * forms: a DNS label, and no two alike (the second names the first's
 * place). In a run file, ${VAR} in a command, an argument, an env value or
 * the log is the environment's VAR (unset: an error at its place), and
 * ${RUN_FILE_DIR} the run file's directory, so that one file serves every
 * CI job and finds the plugins' config files beside it. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
#include "ytree.h"
#include "util/util.h"

static char **strv_push(char **v, size_t *n, const char *s)
{
    return mk_xargv_push(v, n, mk_xstrdup(s));
}

int mk_plugin_name_check(const char *name, char *why, size_t len)
{
    size_t n = strlen(name);
    if (n == 0 || n > MK_PLUGIN_NAME_MAX) {
        snprintf(why, len, "a plugin name has 1 to %d characters", MK_PLUGIN_NAME_MAX);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (!islower((unsigned char)name[i]) && !isdigit((unsigned char)name[i]) && name[i] != '-') {
            snprintf(why, len, "'%s': a plugin name takes a-z, 0-9 and '-' (it names the "
                     "plugin's log file and its report cases)", name);
            return -1;
        }
    if (name[0] == '-' || name[n - 1] == '-') {
        snprintf(why, len, "'%s': a plugin name starts and ends with a letter or digit", name);
        return -1;
    }
    return 0;
}

/* A new spec at the end, its name checked against the others; NULL with
 * why when the name is taken or not a name. */
static mk_plugin_spec *add_spec(mk_plugin_specs *s, const char *name, const char *where,
                                char *why, size_t len)
{
    if (mk_plugin_name_check(name, why, len) != 0)
        return NULL;
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i].name, name) == 0) {
            snprintf(why, len, "two plugins are named '%s' (the first at %s): each plugin "
                     "needs a name of its own", name, s->v[i].where);
            return NULL;
        }
    s->v = mk_xrealloc(s->v, (s->n + 1) * sizeof *s->v);
    mk_plugin_spec *p = &s->v[s->n++];
    memset(p, 0, sizeof *p);
    p->name = mk_xstrdup(name);
    p->where = mk_xstrdup(where);
    return p;
}

static int env_word(const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq || eq == w)
        return 0;
    for (const char *c = w; c < eq; c++)
        if (!isalnum((unsigned char)*c) && *c != '_')
            return 0;
    return !isdigit((unsigned char)w[0]);
}

int mk_plugin_specs_add_arg(mk_plugin_specs *s, const char *arg, char *err, size_t errlen)
{
    const char *eq = strchr(arg, '=');
    char name[MK_PLUGIN_NAME_MAX + 2], why[512], where[128];
    if (!eq || (size_t)(eq - arg) > MK_PLUGIN_NAME_MAX) {
        snprintf(err, errlen, "--add-plugin takes NAME=COMMAND [ARG...], not '%s'", arg);
        return -1;
    }
    snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    snprintf(where, sizeof where, "--add-plugin %s", name);
    mk_plugin_spec *p = add_spec(s, name, where, why, sizeof why);
    if (!p) {
        snprintf(err, errlen, "--add-plugin: %s", why);
        return -1;
    }
    /* Words split at blanks, as a shell would without quotes; leading
     * VAR=VALUE words are the plugin's environment, as in `VAR=1 cmd`. */
    char *copy = mk_xstrdup(eq + 1), *save = NULL;
    for (char *w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
        if (!p->nargs && env_word(w))
            p->env = strv_push(p->env, &p->nenv, w);
        else
            p->args = strv_push(p->args, &p->nargs, w);
    }
    free(copy);
    if (!p->nargs) {
        snprintf(err, errlen, "--add-plugin %s: no command after the name", name);
        return -1;
    }
    return 0;
}

/* n's string with ${VAR} expanded (malloc'd), or NULL after an error. */
static char *expand(const mk_ynode *n, const char *what, const char *dir, mk_diags *d)
{
    const char *s;
    if (mk_ystr(n, what, &s, d) != 0)
        return NULL;
    mk_sb out = MK_SB_INIT;
    mk_sb_puts(&out, "");
    while (*s) {
        const char *open = strstr(s, "${"), *close = open ? strchr(open, '}') : NULL;
        if (!open || !close) {
            mk_sb_puts(&out, s);
            break;
        }
        mk_sb_printf(&out, "%.*s", (int)(open - s), s);
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(close - open - 2), open + 2);
        const char *v = strcmp(name, "RUN_FILE_DIR") == 0 ? dir : getenv(name);
        if (!v) {
            mk_yerr(d, n, "%s: ${%s} is not set in the environment", what, name);
            mk_sb_free(&out);
            return NULL;
        }
        mk_sb_puts(&out, v);
        s = close + 1;
    }
    return mk_sb_take(&out);
}

static int push_expanded(char ***v, size_t *nv, const mk_ynode *n, const char *what,
                         const char *dir, mk_diags *d)
{
    char *s = expand(n, what, dir, d);
    if (!s)
        return -1;
    *v = strv_push(*v, nv, s);
    free(s);
    return 0;
}

/* command: a program, or a list (program, then arguments); args: more. */
static int load_command(mk_plugin_spec *p, const mk_ynode *m, const char *dir, mk_diags *d)
{
    const mk_ynode *cmd = mk_yget(m, "command"), *args = mk_yget(m, "args");
    if (!cmd) {
        mk_yerr(d, m, "plugin '%s' has no command (the program, or a list: program, "
                "arguments)", p->name);
        return -1;
    }
    const mk_ynode *lists[2] = { cmd, args };
    for (int l = 0; l < 2; l++) {
        const mk_ynode *n = lists[l];
        if (!n)
            continue;
        if (n->kind == MK_Y_SCALAR) {
            if (push_expanded(&p->args, &p->nargs, n, l ? "args" : "command", dir, d) != 0)
                return -1;
            continue;
        }
        if (n->kind != MK_Y_SEQ) {
            mk_yerr(d, n, "%s of plugin '%s' is a string or a list of strings", l ? "args" : "command",
                    p->name);
            return -1;
        }
        for (size_t i = 0; i < n->n; i++)
            if (push_expanded(&p->args, &p->nargs, n->vals[i], l ? "args" : "command", dir, d))
                return -1;
    }
    if (!p->nargs || !*p->args[0]) {
        mk_yerr(d, cmd, "the command of plugin '%s' is empty", p->name);
        return -1;
    }
    return 0;
}

/* env: a map NAME: VALUE, or a list of NAME=VALUE. */
static int load_env(mk_plugin_spec *p, const mk_ynode *n, const char *dir, mk_diags *d)
{
    if (n->kind == MK_Y_MAP) {
        for (size_t i = 0; i < n->n; i++) {
            char *v = expand(n->vals[i], "env value", dir, d), *kv = NULL;
            if (!v)
                return -1;
            int rc = asprintf(&kv, "%s=%s", n->keys[i]->str, v);
            free(v);
            if (rc < 0)
                return -1;
            p->env = strv_push(p->env, &p->nenv, kv);
            free(kv);
        }
        return 0;
    }
    if (n->kind != MK_Y_SEQ) {
        mk_yerr(d, n, "env of plugin '%s' is a map NAME: VALUE or a list of NAME=VALUE", p->name);
        return -1;
    }
    for (size_t i = 0; i < n->n; i++) {
        char *v = expand(n->vals[i], "env", dir, d);
        if (!v)
            return -1;
        if (!env_word(v)) {
            mk_yerr(d, n->vals[i], "env of plugin '%s': '%s' is not NAME=VALUE", p->name, v);
            free(v);
            return -1;
        }
        p->env = strv_push(p->env, &p->nenv, v);
        free(v);
    }
    return 0;
}

static int load_one(mk_plugin_specs *s, const mk_ynode *m, const char *dir, mk_diags *d)
{
    static const char *const keys[] = { "name", "command", "args", "env", "log", NULL };
    const char *name;
    char where[4200], why[512];
    if (m->kind != MK_Y_MAP) {
        mk_yerr(d, m, "each entry of plugins is a map (name, command, args, env, log)");
        return -1;
    }
    int bad = mk_ycheck_keys(m, "plugin", keys, d) != 0;
    const mk_ynode *n = mk_yget(m, "name");
    if (!n) {
        mk_yerr(d, m, "a plugin needs a name (it names its log and its report cases)");
        return -1;
    }
    if (mk_ystr(n, "name", &name, d) != 0)
        return -1;
    snprintf(where, sizeof where, "%s:%d:%d", n->file, n->line, n->col);
    mk_plugin_spec *p = add_spec(s, name, where, why, sizeof why);
    if (!p) {
        mk_yerr(d, n, "%s", why);
        return -1;
    }
    p->file = mk_xstrdup(n->file);
    p->line = m->line;
    bad |= load_command(p, m, dir, d) != 0;
    if ((n = mk_yget(m, "env")))
        bad |= load_env(p, n, dir, d) != 0;
    if ((n = mk_yget(m, "log")) && !(p->log = expand(n, "log", dir, d)))
        bad = 1;
    return bad ? -1 : 0;
}

int mk_plugin_specs_load(mk_plugin_specs *s, const char *path, mk_diags *d)
{
    mk_ydoc *doc = mk_yload_file(path, d);
    if (!doc)
        return -1;
    static const char *const keys[] = { "plugins", NULL };
    const mk_ynode *root = doc->root, *list = root ? mk_yget(root, "plugins") : NULL;
    int bad = 0;
    if (!root || root->kind != MK_Y_MAP || !list) {
        mk_diag_add(d, MK_DIAG_ERROR, path, root ? root->line : 1, root ? root->col : 1,
                    "a run file holds `plugins:`, a list of plugins (name, command, args, env, log)");
        bad = 1;
    } else if (list->kind != MK_Y_SEQ || list->n == 0) {
        mk_yerr(d, list, "plugins is a list of at least one plugin");
        bad = 1;
    } else {
        char abs[4096], *slash;
        if (!realpath(path, abs))
            snprintf(abs, sizeof abs, "%s", path);
        if ((slash = strrchr(abs, '/')))
            *slash = 0;
        bad = mk_ycheck_keys(root, "run file", keys, d) != 0;
        for (size_t i = 0; i < list->n; i++)
            bad |= load_one(s, list->vals[i], slash ? (*abs ? abs : "/") : ".", d) != 0;
    }
    mk_yfree(doc);
    return bad ? -1 : 0;
}

void mk_plugin_specs_free(mk_plugin_specs *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->v[i].name);
        free(s->v[i].where);
        free(s->v[i].file);
        free(s->v[i].log);
        mk_argv_free(s->v[i].args);
        mk_argv_free(s->v[i].env);
    }
    free(s->v);
    memset(s, 0, sizeof *s);
}
