/* kube_auth.c - credentials for API requests: fixed tokens, token files
 * re-read as they rotate (the service account token is one), and exec
 * credential plugins (client.authentication.k8s.io v1 and v1beta1), run the
 * way client-go runs them and cached until they expire or a 401 says so. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kube_auth.h"

extern char **environ;

/* client-go re-reads token files once a minute (kubelet rotates projected
 * service account tokens well before they expire). */
#define TOKEN_REREAD_S 60
/* How long a plugin may take, and how much it may print. */
#define PLUGIN_TIMEOUT_MS 60000
#define PLUGIN_MAX_OUTPUT (1 << 20)

struct mk_kauth {
    const mk_ktarget *t;
    const atomic_int *stop;
    char *file_token;       /* last read from t->token_file */
    time_t file_read_at;    /* monotonic seconds */
    mk_kexec_cred cred;     /* the plugin's last answer */
    int have_cred;
    int stale;              /* a 401 asked for fresh credentials */
    atomic_ulong loads;     /* read by statistics from other threads */
};

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static time_t mono_s(void)
{
    return (time_t)(mono_ms() / 1000);
}

mk_kauth *mk_kauth_new(const mk_ktarget *t, const atomic_int *stop)
{
    mk_kauth *a = calloc(1, sizeof *a);
    if (a) {
        a->t = t;
        a->stop = stop;
        atomic_init(&a->loads, 0);
    }
    return a;
}

void mk_kexec_cred_free(mk_kexec_cred *c)
{
    free(c->token);
    free(c->cert.data);
    free(c->key.data);
    memset(c, 0, sizeof *c);
}

void mk_kauth_free(mk_kauth *a)
{
    if (!a)
        return;
    free(a->file_token);
    mk_kexec_cred_free(&a->cred);
    free(a);
}

unsigned long mk_kauth_loads(const mk_kauth *a)
{
    return atomic_load(&a->loads);
}

/* --- token files ------------------------------------------------------------- */

static int read_token_file(mk_kauth *a, char *err, size_t errlen)
{
    char buf[16384];
    const char *path = a->t->token_file;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "token file %s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    int bad = ferror(f) || !feof(f);
    fclose(f);
    if (bad) {
        snprintf(err, errlen, "token file %s: unreadable or larger than %zu bytes", path, sizeof buf - 1);
        return -1;
    }
    buf[n] = '\0';
    /* Trim surrounding whitespace, as client-go does. */
    char *s = buf + strspn(buf, " \t\r\n");
    while (n && strchr(" \t\r\n", buf[n - 1]) && buf + n > s)
        buf[--n] = '\0';
    if (!*s) {
        snprintf(err, errlen, "token file %s is empty", path);
        return -1;
    }
    char *tok = strdup(s);
    if (!tok) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    free(a->file_token);
    a->file_token = tok;
    a->file_read_at = mono_s();
    atomic_fetch_add(&a->loads, 1);
    return 0;
}

/* A failed periodic re-read keeps the token we have (the file may be in the
 * middle of being replaced); a re-read a 401 asked for must succeed. */
static int token_from_file(mk_kauth *a, char *err, size_t errlen)
{
    int due = !a->file_token || a->stale || mono_s() - a->file_read_at >= TOKEN_REREAD_S;
    if (!due)
        return 0;
    if (read_token_file(a, err, errlen) == 0)
        return 0;
    if (a->file_token && !a->stale) {
        a->file_read_at = mono_s();
        return 0;
    }
    return -1;
}

/* --- exec plugins ----------------------------------------------------------------- */

static int b64_encode(const mk_kblob *b, char **out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = malloc((b->len + 2) / 3 * 4 + 1), *p = o;
    if (!o)
        return -1;
    for (size_t i = 0; i < b->len; i += 3) {
        unsigned v = (unsigned)b->data[i] << 16;
        if (i + 1 < b->len) v |= (unsigned)b->data[i + 1] << 8;
        if (i + 2 < b->len) v |= b->data[i + 2];
        *p++ = tab[v >> 18 & 63];
        *p++ = tab[v >> 12 & 63];
        *p++ = i + 1 < b->len ? tab[v >> 6 & 63] : '=';
        *p++ = i + 2 < b->len ? tab[v & 63] : '=';
    }
    *p = '\0';
    *out = o;
    return 0;
}

/* KUBERNETES_EXEC_INFO as client-go sets it: an ExecCredential whose spec
 * says we are not interactive and, when asked, describes the cluster. */
static char *exec_info(const mk_ktarget *t)
{
    json_t *spec = json_pack("{s:b}", "interactive", 0);
    if (spec && t->exec->provide_cluster_info) {
        json_t *c = json_pack("{s:s, s:b}", "server", t->server, "insecure-skip-tls-verify", t->insecure);
        char *ca = NULL;
        if (c && t->tls_server_name)
            json_object_set_new(c, "tls-server-name", json_string(t->tls_server_name));
        if (c && t->proxy_url)
            json_object_set_new(c, "proxy-url", json_string(t->proxy_url));
        if (c && t->ca_data.data && b64_encode(&t->ca_data, &ca) == 0)
            json_object_set_new(c, "certificate-authority-data", json_string(ca));
        free(ca);
        json_object_set_new(spec, "cluster", c);
    }
    json_t *info = json_pack("{s:s, s:s, s:o}", "kind", "ExecCredential",
                             "apiVersion", t->exec->api_version, "spec", spec);
    char *s = json_dumps(info, JSON_COMPACT);
    json_decref(info);
    return s;
}

/* mokka's environment, less the names the kubeconfig sets, plus its env
 * entries and KUBERNETES_EXEC_INFO. */
static char **plugin_env(const mk_ktarget *t, char *info)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + t->exec->nenv + 2, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strcspn(environ[i], "=");
        int overridden = strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21) == 0;
        for (size_t j = 0; j < t->exec->nenv && !overridden; j++)
            overridden = strncmp(environ[i], t->exec->env[j], nl + 1) == 0;
        if (!overridden)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < t->exec->nenv; j++)
        env[k++] = t->exec->env[j];
    env[k] = info;
    return env;
}

static const char *user_name(const mk_ktarget *t)
{
    return t->user ? t->user : "";
}

/* Read the plugin's stdout until it closes, mokka stops or time runs out
 * (the plugin's minute, or the caller's deadline when that comes first). */
static int read_plugin(mk_kauth *a, long long deadline_ms, int fd, char **out, size_t *len,
                       char *err, size_t errlen)
{
    size_t cap = 4096;
    long long started = mono_ms(), deadline = started + PLUGIN_TIMEOUT_MS;
    int cut_by_caller = deadline_ms > 0 && deadline_ms < deadline;
    char *buf = malloc(cap);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (cut_by_caller)
        deadline = deadline_ms;
    *len = 0;
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        if (a->stop && atomic_load(a->stop)) {
            snprintf(err, errlen, "stopped while exec plugin '%s' was running", a->t->exec->command);
            break;
        }
        if (mono_ms() >= deadline) {
            snprintf(err, errlen, "exec plugin '%s' (user '%s') did not finish within %.1f s%s",
                     a->t->exec->command, user_name(a->t), (deadline - started) / 1000.0,
                     cut_by_caller ? ", the time left before the deadline" : "");
            break;
        }
        /* Short polls, so that a stop request is noticed quickly. */
        int r = poll(&p, 1, 100);
        if (r == 0 || (r < 0 && errno == EINTR))
            continue;
        if (*len + 4096 > cap) {
            char *nb = cap >= PLUGIN_MAX_OUTPUT ? NULL : realloc(buf, cap *= 2);
            if (!nb) {
                snprintf(err, errlen, "exec plugin '%s' printed more than %d bytes",
                         a->t->exec->command, PLUGIN_MAX_OUTPUT);
                break;
            }
            buf = nb;
        }
        ssize_t got = read(fd, buf + *len, cap - *len);
        if (got == 0) {
            *out = buf;
            return 0;
        }
        if (got < 0 && errno != EINTR) {
            snprintf(err, errlen, "exec plugin '%s': %s", a->t->exec->command, strerror(errno));
            break;
        }
        *len += got > 0 ? (size_t)got : 0;
    }
    free(buf);
    return -1;
}

/* Run the plugin with stdin from /dev/null and stdout into a pipe; stderr is
 * mokka's, as with kubectl, so that its messages reach the user. */
static int spawn_plugin(mk_kauth *a, long long deadline_ms, char **out, size_t *len, char *err,
                        size_t errlen)
{
    const mk_kexec *x = a->t->exec;
    char *info = NULL, *info_json = exec_info(a->t);
    char **argv = calloc(x->nargs + 2, sizeof *argv);
    char **envp = NULL;
    int fds[2] = { -1, -1 }, rc = -1;
    pid_t pid;
    posix_spawn_file_actions_t fa;

    if (!info_json || !argv || asprintf(&info, "KUBERNETES_EXEC_INFO=%s", info_json) < 0)
        info = NULL;
    if (!info || !(envp = plugin_env(a->t, info))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot run exec plugin '%s': %s", x->command, strerror(errno));
        goto out;
    }
    argv[0] = x->command;
    for (size_t i = 0; i < x->nargs; i++)
        argv[i + 1] = x->args[i];
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    int e = posix_spawnp(&pid, x->command, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (e) {
        snprintf(err, errlen, "exec plugin '%s' (user '%s') could not be run: %s%s%s", x->command,
                 user_name(a->t), strerror(e), x->install_hint ? ". " : "",
                 x->install_hint ? x->install_hint : "");
        goto out;
    }
    rc = read_plugin(a, deadline_ms, fds[0], out, len, err, errlen);
    if (rc)
        kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (rc == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        snprintf(err, errlen, "exec plugin '%s' (user '%s') %s %d", x->command, user_name(a->t),
                 WIFEXITED(st) ? "exited with status" : "was killed by signal",
                 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        free(*out);
        rc = -1;
    }
out:
    if (fds[0] >= 0)
        close(fds[0]);
    free(envp);
    free(argv);
    free(info);
    free(info_json);
    return rc;
}

static int run_plugin(mk_kauth *a, long long deadline_ms, char *err, size_t errlen)
{
    char *out;
    size_t len;
    mk_kexec_cred c;
    if (spawn_plugin(a, deadline_ms, &out, &len, err, errlen))
        return -1;
    int rc = mk_kexec_parse(out, len, a->t->exec->api_version, a->t->exec->command, &c, err, errlen);
    free(out);
    if (rc)
        return -1;
    mk_kexec_cred_free(&a->cred);
    a->cred = c;
    a->have_cred = 1;
    atomic_fetch_add(&a->loads, 1);
    return 0;
}

int mk_krfc3339(const char *s, time_t *out)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    const char *p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    if (!p)
        return -1;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            ;
    long off = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if ((*p == '+' || *p == '-') && p[1] && p[2] && p[3] == ':' && p[4] && p[5]) {
        int h, m;
        if (sscanf(p + 1, "%2d:%2d", &h, &m) != 2)
            return -1;
        off = (h * 60L + m) * 60 * (*p == '-' ? -1 : 1);
        p += 6;
    } else {
        return -1;
    }
    if (*p)
        return -1;
    *out = timegm(&tm) - off;
    return 0;
}

static const char *jstr(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static int dup_blob(const char *s, mk_kblob *b)
{
    if (!s)
        return 0;
    b->len = strlen(s);
    b->data = (unsigned char *)strdup(s);
    return b->data ? 0 : -1;
}

int mk_kexec_parse(const char *json, size_t len, const char *api_version, const char *cmd,
                   mk_kexec_cred *out, char *err, size_t errlen)
{
    json_error_t je;
    json_t *root = json_loadb(json, len, 0, &je);
    const json_t *st;
    const char *kind, *api, *token, *cert, *key, *exp;
    int rc = -1;

    memset(out, 0, sizeof *out);
    /* Only positions: jansson's message would quote the output. */
    if (!root) {
        snprintf(err, errlen, "exec plugin '%s' printed something that is not JSON (line %d, column %d)",
                 cmd, je.line, je.column);
        return -1;
    }
    kind = jstr(root, "kind");
    api = jstr(root, "apiVersion");
    st = json_object_get(root, "status");
    token = jstr(st, "token");
    cert = jstr(st, "clientCertificateData");
    key = jstr(st, "clientKeyData");
    exp = jstr(st, "expirationTimestamp");
    if (!kind || strcmp(kind, "ExecCredential"))
        snprintf(err, errlen, "exec plugin '%s' returned kind '%s', not ExecCredential", cmd, kind ? kind : "");
    else if (!api || strcmp(api, api_version))
        snprintf(err, errlen, "exec plugin '%s' returned apiVersion '%s', but the kubeconfig asks for '%s'",
                 cmd, api ? api : "", api_version);
    else if (!json_is_object(st))
        snprintf(err, errlen, "exec plugin '%s' returned no status", cmd);
    else if (!cert != !key)
        snprintf(err, errlen, "exec plugin '%s' returned a client certificate without its key, "
                 "or a key without its certificate", cmd);
    else if (!(token && *token) && !cert)
        snprintf(err, errlen, "exec plugin '%s' returned neither a token nor a client certificate and key", cmd);
    else if (exp && mk_krfc3339(exp, &out->expiry))
        snprintf(err, errlen, "exec plugin '%s' returned expirationTimestamp '%s', which is not RFC 3339",
                 cmd, exp);
    else if ((token && *token && !(out->token = strdup(token))) || dup_blob(cert, &out->cert) ||
             dup_blob(key, &out->key))
        snprintf(err, errlen, "out of memory");
    else
        rc = 0;
    json_decref(root);
    if (rc)
        mk_kexec_cred_free(out);
    return rc;
}

/* --- the credentials of a request ----------------------------------------------- */

static int plugin_cred(mk_kauth *a, long long deadline_ms, char *err, size_t errlen)
{
    int expired = a->have_cred && a->cred.expiry && time(NULL) >= a->cred.expiry;
    if (a->have_cred && !a->stale && !expired)
        return 0;
    return run_plugin(a, deadline_ms, err, errlen);
}

int mk_kauth_get(mk_kauth *a, long long deadline_ms, mk_kcred *out, char *err, size_t errlen)
{
    const mk_ktarget *t = a->t;
    memset(out, 0, sizeof *out);
    if (t->exec) {
        if (plugin_cred(a, deadline_ms, err, errlen))
            return -1;
        out->token = a->cred.token;
        if (a->cred.cert.data) {
            out->cert = &a->cred.cert;
            out->key = &a->cred.key;
        }
    } else if (t->token_file) {
        if (token_from_file(a, err, errlen))
            return -1;
        out->token = a->file_token;
    } else {
        out->token = t->token;
    }
    if (!out->cert && t->cert_data.data)
        out->cert = &t->cert_data;
    if (!out->key && t->key_data.data)
        out->key = &t->key_data;
    a->stale = 0;
    return 0;
}

int mk_kauth_rejected(mk_kauth *a)
{
    a->stale = 1;
    return a->t->exec || a->t->token_file;
}

void mk_kauth_describe(const mk_kauth *a, char *buf, size_t len)
{
    const mk_ktarget *t = a->t;
    char cert[600] = "", cred[600] = "", basic[300] = "";
    if (t->cert_file)
        snprintf(cert, sizeof cert, "client certificate %s", t->cert_file);
    else if (t->cert_data.data)
        snprintf(cert, sizeof cert, "client certificate (inline)");
    if (t->exec)
        snprintf(cred, sizeof cred, "exec plugin %s", t->exec->command);
    else if (t->token_file)
        snprintf(cred, sizeof cred, "token from %s (redacted)", t->token_file);
    else if (t->token)
        snprintf(cred, sizeof cred, "token (redacted)");
    if (t->username)
        snprintf(basic, sizeof basic, "basic auth as '%s' (password redacted)", t->username);
    if (!*cert && !*cred && !*basic)
        snprintf(buf, len, "no credentials");
    else
        snprintf(buf, len, "%s%s%s%s%s", cert, *cert && *cred ? ", " : "", cred,
                 (*cert || *cred) && *basic ? ", " : "", basic);
}
