/* kubeconfig.c - finding, loading and merging kubeconfig files, and the
 * in-cluster service account as the fallback.
 *
 * Merging follows client-go: in the order of $KUBECONFIG, the first file to
 * define a cluster, user or context name wins, and current-context comes from
 * the first file that sets it. Every file's lists are checked for shape, but
 * only the chosen context, cluster and user are read in detail, so that a
 * broken entry nobody uses does not stop us (client-go validates only the
 * context in use as well). Relative paths resolve against the directory of
 * the file that holds them. Files are read by the loader configs and suites
 * go through (lib/core ytree.h), so the same limits on size, nesting and
 * aliases hold, and a duplicate key is an error rather than a silent pick. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kubeconfig.h"
#include "ytree.h"

#define SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

typedef struct kfile {
    char *path;
    char *dir;
    mk_ydoc *doc;
} kfile;

/* The loaded files, in merge order, and where errors go. */
typedef struct kset {
    kfile *f;
    size_t n;
    char *err;
    size_t errlen;
} kset;

static int fail(kset *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(kset *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, s->errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* "kubeconfig PATH:LINE: what: msg" for a problem at a YAML node. */
static int node_fail(kset *s, const kfile *f, const mk_ynode *n, const char *what,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int node_fail(kset *s, const kfile *f, const mk_ynode *n, const char *what,
                     const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fail(s, "kubeconfig %s:%d: %s: %s", f->path, n->line, what, msg);
}

static int oom(kset *s)
{
    return fail(s, "out of memory");
}

static int sdup(kset *s, char **dst, const char *src)
{
    if (!src)
        return 0;
    *dst = strdup(src);
    return *dst ? 0 : oom(s);
}

/* --- YAML access ------------------------------------------------------------ */

/* Go's YAML decoder leaves a field at its zero value for null and "", and
 * client-go treats "" as unset: so do we. */
static int yis_unset(const mk_ynode *n)
{
    if (!n)
        return 1;
    if (n->kind != MK_Y_SCALAR)
        return 0;
    const char *v = n->str;
    if (!*v)
        return 1;
    return !n->quoted &&
           (!strcmp(v, "~") || !strcmp(v, "null") || !strcmp(v, "Null") || !strcmp(v, "NULL"));
}

/* map[key] as a string; *out is NULL when unset. */
static int get_str(kset *s, kfile *f, const mk_ynode *map, const char *key,
                   const char *what, const char **out)
{
    const mk_ynode *n = mk_yget(map, key);
    *out = NULL;
    if (yis_unset(n))
        return 0;
    if (n->kind != MK_Y_SCALAR)
        return node_fail(s, f, n, what, "%s must be a string", key);
    if (strlen(n->str) != n->len)
        return node_fail(s, f, n, what, "%s contains a NUL byte", key);
    *out = n->str;
    return 0;
}

static int get_bool(kset *s, kfile *f, const mk_ynode *map, const char *key,
                    const char *what, int *out)
{
    static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "on", "On", NULL };
    static const char *const no[] = { "false", "False", "FALSE", "no", "No", "off", "Off", NULL };
    const char *v;
    *out = 0;
    if (get_str(s, f, map, key, what, &v))
        return -1;
    if (!v)
        return 0;
    for (int i = 0; yes[i]; i++)
        if (!strcmp(v, yes[i]))
            return *out = 1, 0;
    for (int i = 0; no[i]; i++)
        if (!strcmp(v, no[i]))
            return 0;
    return node_fail(s, f, mk_yget(map, key), what, "%s must be true or false, not '%s'", key, v);
}

/* --- loading files ------------------------------------------------------------ */

/* Each of clusters, users and contexts must be a list of maps with a name. */
static int check_shape(kset *s, kfile *f)
{
    static const char *const lists[] = { "clusters", "users", "contexts" };
    const mk_ynode *root = f->doc->root;
    if (!root)
        return 0;
    if (root->kind != MK_Y_MAP)
        return node_fail(s, f, root, "top level", "a kubeconfig is a mapping (apiVersion, clusters, users, contexts)");
    for (size_t l = 0; l < 3; l++) {
        const mk_ynode *seq = mk_yget(root, lists[l]);
        if (yis_unset(seq))
            continue;
        if (seq->kind != MK_Y_SEQ)
            return node_fail(s, f, seq, lists[l], "must be a list");
        for (size_t i = 0; i < seq->n; i++) {
            const mk_ynode *e = seq->vals[i];
            const char *name;
            if (e->kind != MK_Y_MAP)
                return node_fail(s, f, e, lists[l], "each entry must be a mapping with a name");
            if (get_str(s, f, e, "name", lists[l], &name))
                return -1;
            if (!name)
                return node_fail(s, f, e, lists[l], "an entry has no name");
        }
    }
    return 0;
}

/* Load one file. Returns 1 when loaded, 0 when it does not exist and
 * `optional` (entries of $KUBECONFIG may be missing, as with kubectl), -1 on
 * error. */
static int load_file(kset *s, const char *path, int optional)
{
    FILE *fp = fopen(path, "r");
    if (!fp) {
        if (optional && errno == ENOENT)
            return 0;
        return fail(s, "kubeconfig %s: %s", path, strerror(errno));
    }
    kfile *nf = realloc(s->f, (s->n + 1) * sizeof *s->f);
    if (!nf) {
        fclose(fp);
        return oom(s);
    }
    s->f = nf;
    kfile *f = &s->f[s->n];
    memset(f, 0, sizeof *f);
    if (sdup(s, &f->path, path) || sdup(s, &f->dir, path)) {
        free(f->path);
        free(f->dir);
        fclose(fp);
        return -1;
    }
    char *slash = strrchr(f->dir, '/');
    if (!slash)
        strcpy(f->dir, ".");
    else if (slash == f->dir)
        slash[1] = '\0';   /* a file in / */
    else
        *slash = '\0';

    mk_diags d;
    mk_diags_init(&d);
    f->doc = mk_yload_fp(path, fp, &d);
    fclose(fp);
    if (!f->doc) {
        const mk_diag *g = mk_diags_first_error(&d);
        const char *msg = g && g->msg ? g->msg : "out of memory";
        if (g && g->line)
            fail(s, "kubeconfig %s:%d:%d: %s", path, g->line, g->col, msg);
        else
            fail(s, "kubeconfig %s: %s", path, msg);
        mk_diags_free(&d);
        free(f->path);
        free(f->dir);
        return -1;
    }
    mk_diags_free(&d);
    s->n++;
    return check_shape(s, f) ? -1 : 1;
}

/* --kubeconfig, else $KUBECONFIG, else ~/.kube/config. Returns the number of
 * files loaded, or -1; `tried` describes where we looked for messages. */
static int load_files(kset *s, const char *path, char *tried, size_t triedlen)
{
    if (path)
        return load_file(s, path, 0);
    const char *env = getenv("KUBECONFIG");
    if (env && *env) {
        snprintf(tried, triedlen, "none of $KUBECONFIG (%s) exists", env);
        char *list = strdup(env), *save = NULL;
        if (!list)
            return oom(s);
        for (char *p = strtok_r(list, ":", &save); p; p = strtok_r(NULL, ":", &save))
            if (load_file(s, p, 1) < 0) {
                free(list);
                return -1;
            }
        free(list);
        return (int)s->n;
    }
    const char *home = getenv("HOME");
    if (!home || !*home) {
        snprintf(tried, triedlen, "--kubeconfig not given, $KUBECONFIG and $HOME unset");
        return 0;
    }
    char *def;
    if (asprintf(&def, "%s/.kube/config", home) < 0)
        return oom(s);
    snprintf(tried, triedlen, "--kubeconfig not given, $KUBECONFIG unset, %s not found", def);
    int rc = load_file(s, def, 1);
    free(def);
    return rc;
}

static void free_files(kset *s)
{
    for (size_t i = 0; i < s->n; i++) {
        mk_yfree(s->f[i].doc);
        free(s->f[i].path);
        free(s->f[i].dir);
    }
    free(s->f);
}

/* --- merging ------------------------------------------------------------------- */

/* The first entry of `list` (clusters, users, contexts) named `name` in any
 * file; *where is its file. */
static const mk_ynode *find_named(kset *s, const char *list, const char *name, kfile **where)
{
    for (size_t i = 0; i < s->n; i++) {
        kfile *f = &s->f[i];
        const mk_ynode *seq = mk_yget(f->doc->root, list);
        if (!seq || seq->kind != MK_Y_SEQ)
            continue;
        for (size_t j = 0; j < seq->n; j++) {
            const mk_ynode *e = seq->vals[j];
            if (strcmp(mk_yget(e, "name")->str, name) == 0) {
                *where = f;
                return e;
            }
        }
    }
    return NULL;
}

/* The current-context of the first file that sets one. */
static int current_context(kset *s, const char **name, kfile **where)
{
    *name = NULL;
    for (size_t i = 0; i < s->n; i++) {
        kfile *f = &s->f[i];
        if (get_str(s, f, f->doc->root, "current-context", "top level", name))
            return -1;
        if (*name) {
            *where = f;
            return 0;
        }
    }
    return 0;
}

static void file_list(const kset *s, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < s->n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", s->f[i].path);
}

/* --- reading the chosen cluster and user ------------------------------------ */

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Standard base64 with padding, line breaks ignored (as Go's decoder does). */
static int b64_decode(const char *in, mk_kblob *out)
{
    size_t n = strlen(in);
    unsigned char *o = malloc(n / 4 * 3 + 3);
    unsigned acc = 0;
    size_t len = 0, digits = 0, pad = 0;
    if (!o)
        return -1;
    for (const char *p = in; *p; p++) {
        if (*p == '\n' || *p == '\r')
            continue;
        int v = b64val((unsigned char)*p);
        if (*p == '=' && digits % 4 >= 2) {
            pad++;
            digits++;
            continue;
        }
        if (v < 0 || pad)
            goto bad;
        acc = acc << 6 | (unsigned)v;
        if (++digits % 4 == 0) {
            o[len++] = (unsigned char)(acc >> 16);
            o[len++] = (unsigned char)(acc >> 8);
            o[len++] = (unsigned char)acc;
            acc = 0;
        }
    }
    if (digits % 4 || !digits)
        goto bad;
    /* Each '=' stood for a missing 6 bits; drop the bytes they padded. */
    if (pad) {
        acc <<= 6 * pad;
        o[len++] = (unsigned char)(acc >> 16);
        if (pad == 1)
            o[len++] = (unsigned char)(acc >> 8);
    }
    out->data = o;
    out->len = len;
    return 0;
bad:
    free(o);
    return -1;
}

/* A path field made absolute against the file's directory; it must be readable. */
static int get_path(kset *s, kfile *f, const mk_ynode *map, const char *key,
                    const char *what, char **out)
{
    const char *v;
    if (get_str(s, f, map, key, what, &v))
        return -1;
    if (!v)
        return 0;
    int r = v[0] == '/' ? asprintf(out, "%s", v) : asprintf(out, "%s/%s", f->dir, v);
    if (r < 0) {
        *out = NULL;
        return oom(s);
    }
    if (access(*out, R_OK) != 0)
        return fail(s, "kubeconfig %s: %s: %s %s: %s", f->path, what, key, *out, strerror(errno));
    return 0;
}

static int get_data(kset *s, kfile *f, const mk_ynode *map, const char *key,
                    const char *what, mk_kblob *out)
{
    const char *v;
    if (get_str(s, f, map, key, what, &v))
        return -1;
    if (v && b64_decode(v, out))
        return node_fail(s, f, mk_yget(map, key), what, "%s is not valid base64", key);
    return 0;
}

static int read_cluster(kset *s, kfile *f, const mk_ynode *c, const char *what, mk_ktarget *t)
{
    const char *server, *sni, *proxy;
    if (get_str(s, f, c, "server", what, &server) ||
        get_path(s, f, c, "certificate-authority", what, &t->ca_file) ||
        get_data(s, f, c, "certificate-authority-data", what, &t->ca_data) ||
        get_bool(s, f, c, "insecure-skip-tls-verify", what, &t->insecure) ||
        get_str(s, f, c, "tls-server-name", what, &sni) ||
        get_str(s, f, c, "proxy-url", what, &proxy))
        return -1;
    if (!server)
        return fail(s, "kubeconfig %s: %s has no server", f->path, what);
    if (t->insecure && (t->ca_file || t->ca_data.data))
        return fail(s, "kubeconfig %s: %s: certificate-authority and insecure-skip-tls-verify "
                    "are both set; only one is allowed", f->path, what);
    return sdup(s, &t->server, server) || sdup(s, &t->tls_server_name, sni) ||
           sdup(s, &t->proxy_url, proxy);
}

static int read_exec(kset *s, kfile *f, const mk_ynode *e, const char *what, mk_ktarget *t)
{
    const char *api, *cmd, *hint, *mode;
    mk_kexec *x = t->exec = calloc(1, sizeof *x);
    if (!x)
        return oom(s);
    if (get_str(s, f, e, "apiVersion", what, &api) || get_str(s, f, e, "command", what, &cmd) ||
        get_str(s, f, e, "installHint", what, &hint) || get_str(s, f, e, "interactiveMode", what, &mode) ||
        get_bool(s, f, e, "provideClusterInfo", what, &x->provide_cluster_info))
        return -1;
    if (!cmd)
        return node_fail(s, f, e, what, "exec has no command");
    if (!api || (strcmp(api, "client.authentication.k8s.io/v1") && strcmp(api, "client.authentication.k8s.io/v1beta1")))
        return node_fail(s, f, e, what, "exec apiVersion '%s' is not supported "
                         "(use client.authentication.k8s.io/v1 or v1beta1)", api ? api : "");
    /* client-go insists on interactiveMode for v1; mokka never has a terminal
     * to offer the plugin, so "Always" cannot work. */
    if (!mode && !strcmp(api, "client.authentication.k8s.io/v1"))
        return node_fail(s, f, e, what, "exec interactiveMode must be set for apiVersion "
                         "client.authentication.k8s.io/v1 (Never or IfAvailable)");
    if (mode && !strcmp(mode, "Always"))
        return node_fail(s, f, e, what, "exec interactiveMode is Always, but mokka runs plugins "
                         "without a terminal (use Never or IfAvailable)");
    if (sdup(s, &x->api_version, api) || sdup(s, &x->install_hint, hint))
        return -1;
    /* As client-go: a command with a '/' is a path, relative to the file. */
    int r = strchr(cmd, '/') && cmd[0] != '/' ? asprintf(&x->command, "%s/%s", f->dir, cmd)
                                              : asprintf(&x->command, "%s", cmd);
    if (r < 0) {
        x->command = NULL;
        return oom(s);
    }

    const mk_ynode *args = mk_yget(e, "args"), *env = mk_yget(e, "env");
    if (!yis_unset(args)) {
        if (args->kind != MK_Y_SEQ)
            return node_fail(s, f, args, what, "exec args must be a list of strings");
        if (!(x->args = calloc(args->n + 1, sizeof *x->args)))
            return oom(s);
        for (size_t i = 0; i < args->n; i++) {
            const mk_ynode *a = args->vals[i];
            if (a->kind != MK_Y_SCALAR)
                return node_fail(s, f, a, what, "exec args must be a list of strings");
            if (sdup(s, &x->args[x->nargs++], a->str))
                return -1;
        }
    }
    if (!yis_unset(env)) {
        if (env->kind != MK_Y_SEQ)
            return node_fail(s, f, env, what, "exec env must be a list of {name, value}");
        if (!(x->env = calloc(env->n + 1, sizeof *x->env)))
            return oom(s);
        for (size_t i = 0; i < env->n; i++) {
            const mk_ynode *v = env->vals[i];
            const char *name, *value;
            if (get_str(s, f, v, "name", what, &name) || get_str(s, f, v, "value", what, &value))
                return -1;
            if (!name)
                return node_fail(s, f, v, what, "exec env entries need a name");
            if (asprintf(&x->env[x->nenv], "%s=%s", name, value ? value : "") < 0)
                return oom(s);
            x->nenv++;
        }
    }
    return 0;
}

static int read_user(kset *s, kfile *f, const mk_ynode *u, const char *what, mk_ktarget *t)
{
    const char *token, *user, *pass;
    if (get_path(s, f, u, "client-certificate", what, &t->cert_file) ||
        get_path(s, f, u, "client-key", what, &t->key_file) ||
        get_data(s, f, u, "client-certificate-data", what, &t->cert_data) ||
        get_data(s, f, u, "client-key-data", what, &t->key_data) ||
        get_str(s, f, u, "token", what, &token) ||
        get_path(s, f, u, "tokenFile", what, &t->token_file) ||
        get_str(s, f, u, "username", what, &user) ||
        get_str(s, f, u, "password", what, &pass))
        return -1;

    const mk_ynode *ap = mk_yget(u, "auth-provider");
    if (!yis_unset(ap)) {
        const char *name;
        if (get_str(s, f, ap, "name", what, &name))
            return -1;
        return node_fail(s, f, ap, what, "auth-provider '%s' is not supported (kubectl dropped "
                         "its built-in providers too); use an exec credential plugin",
                         name ? name : "");
    }
    if ((t->cert_file && t->cert_data.data) || (t->key_file && t->key_data.data))
        return fail(s, "kubeconfig %s: %s: both a file and inline data are set for the client "
                    "certificate or key; only one is allowed", f->path, what);
    if (!(t->cert_file || t->cert_data.data) != !(t->key_file || t->key_data.data))
        return fail(s, "kubeconfig %s: %s: a client certificate needs a client key and the other "
                    "way round", f->path, what);
    if ((token || t->token_file) && (user || pass))
        return fail(s, "kubeconfig %s: %s: a token and username/password are both set; only one "
                    "is allowed", f->path, what);
    const mk_ynode *exec = mk_yget(u, "exec");
    if (!yis_unset(exec)) {
        if (user || pass)
            return fail(s, "kubeconfig %s: %s: an exec plugin and username/password are both set; "
                        "only one is allowed", f->path, what);
        if (read_exec(s, f, exec, what, t))
            return -1;
    }
    return sdup(s, &t->token, token) || sdup(s, &t->username, user) || sdup(s, &t->password, pass);
}

/* Resolve the context and read its cluster and user. */
static int pick(kset *s, const char *context, mk_ktarget *t)
{
    char files[1024], what[320];
    kfile *cf = NULL, *f;
    const mk_ynode *entry;
    const char *name = context, *cluster, *user;

    file_list(s, files, sizeof files);
    if (!name && current_context(s, &name, &cf))
        return -1;
    if (!name)
        return fail(s, "kubeconfig %s: no current-context is set and no --context was given", files);
    if (!(entry = find_named(s, "contexts", name, &f))) {
        if (context)
            return fail(s, "kubeconfig %s: no context named '%s'", files, name);
        return fail(s, "kubeconfig %s: current-context '%s' names a context which no file defines",
                    cf->path, name);
    }
    snprintf(what, sizeof what, "context '%s'", name);
    const mk_ynode *ctx = mk_yget(entry, "context");
    if (!ctx || ctx->kind != MK_Y_MAP)
        return node_fail(s, f, entry, what, "has no 'context' mapping");
    if (get_str(s, f, ctx, "cluster", what, &cluster) || get_str(s, f, ctx, "user", what, &user))
        return -1;
    if (!cluster)
        return fail(s, "kubeconfig %s: context '%s' names no cluster", f->path, name);
    if (sdup(s, &t->context, name) || sdup(s, &t->cluster, cluster) || sdup(s, &t->user, user))
        return -1;
    if (asprintf(&t->source, "kubeconfig %s", f->path) < 0) {
        t->source = NULL;
        return oom(s);
    }

    kfile *ff;
    const mk_ynode *e;
    if (!(e = find_named(s, "clusters", cluster, &ff)))
        return fail(s, "kubeconfig %s: context '%s' names cluster '%s', which no file defines",
                    f->path, name, cluster);
    snprintf(what, sizeof what, "cluster '%s'", cluster);
    const mk_ynode *c = mk_yget(e, "cluster");
    if (!c || c->kind != MK_Y_MAP)
        return node_fail(s, ff, e, what, "has no 'cluster' mapping");
    if (read_cluster(s, ff, c, what, t))
        return -1;
    if (!user)
        return 0;
    if (!(e = find_named(s, "users", user, &ff)))
        return fail(s, "kubeconfig %s: context '%s' names user '%s', which no file defines",
                    f->path, name, user);
    snprintf(what, sizeof what, "user '%s'", user);
    const mk_ynode *u = mk_yget(e, "user");
    if (yis_unset(u))
        return 0;
    if (u->kind != MK_Y_MAP)
        return node_fail(s, ff, u, what, "'user' must be a mapping");
    return read_user(s, ff, u, what, t);
}

/* The service account a pod gets. Returns 1 when used, 0 when not in a
 * cluster, -1 on error. */
static int in_cluster(kset *s, mk_ktarget *t)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST"), *port = getenv("KUBERNETES_SERVICE_PORT");
    const char *dir = getenv("MOKKA_SA_DIR");
    if (!host || !*host || !port || !*port)
        return 0;
    if (!dir || !*dir)
        dir = SA_DIR;
    int v6 = strchr(host, ':') != NULL;
    if (asprintf(&t->server, "https://%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port) < 0 ||
        asprintf(&t->token_file, "%s/token", dir) < 0 || asprintf(&t->ca_file, "%s/ca.crt", dir) < 0 ||
        asprintf(&t->source, "in-cluster config (%s)", dir) < 0)
        return oom(s);
    if (access(t->token_file, R_OK) != 0)
        return fail(s, "in-cluster config: %s: %s", t->token_file, strerror(errno));
    if (access(t->ca_file, R_OK) != 0)
        return fail(s, "in-cluster config: %s: %s", t->ca_file, strerror(errno));
    return 1;
}

/* No kubeconfig found: the in-cluster service account, if we are in a pod. */
static int no_files(kset *s, const char *context, const char *tried, mk_ktarget *t)
{
    if (context)
        return fail(s, "--context '%s' given, but no kubeconfig was found: %s", context, tried);
    int rc = in_cluster(s, t);
    if (rc == 0)
        return fail(s, "no cluster to talk to: %s, and not running in a cluster "
                    "(KUBERNETES_SERVICE_HOST unset)", tried);
    return rc < 0 ? -1 : 0;
}

int mk_kubeconfig_load(const char *path, const char *context, mk_ktarget *out,
                       char *err, size_t errlen)
{
    kset s = { .err = err, .errlen = errlen };
    char tried[1024] = "";
    int rc;

    memset(out, 0, sizeof *out);
    err[0] = '\0';
    rc = load_files(&s, path, tried, sizeof tried);
    if (rc > 0)
        rc = pick(&s, context, out);
    else if (rc == 0)
        rc = no_files(&s, context, tried, out);
    free_files(&s);
    if (rc)
        mk_ktarget_free(out);
    return rc ? -1 : 0;
}

static void strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void mk_ktarget_free(mk_ktarget *t)
{
    free(t->source);
    free(t->context);
    free(t->cluster);
    free(t->user);
    free(t->server);
    free(t->ca_file);
    free(t->ca_data.data);
    free(t->tls_server_name);
    free(t->proxy_url);
    free(t->cert_file);
    free(t->key_file);
    free(t->cert_data.data);
    free(t->key_data.data);
    free(t->token);
    free(t->token_file);
    free(t->username);
    free(t->password);
    if (t->exec) {
        free(t->exec->api_version);
        free(t->exec->command);
        free(t->exec->install_hint);
        strv_free(t->exec->args, t->exec->nargs);
        strv_free(t->exec->env, t->exec->nenv);
        free(t->exec);
    }
    memset(t, 0, sizeof *t);
}
