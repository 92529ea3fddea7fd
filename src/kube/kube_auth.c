/* kube_auth.c - credentials for API requests: fixed tokens, token files
 * re-read as they rotate (the service account token is one), and exec
 * credential plugins (client.authentication.k8s.io v1 and v1beta1), run the
 * way client-go runs them and cached until they expire or a 401 says so;
 * and which secrets mk_kauth_scrub takes out of text. */
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
#include "kube_scrub.h"

extern char **environ;

/* client-go re-reads token files once a minute (kubelet rotates projected
 * service account tokens well before they expire). */
#define TOKEN_REREAD_S 60
/* How long a plugin may take, and how much it may print. */
#define PLUGIN_TIMEOUT_MS 60000
#define PLUGIN_MAX_OUTPUT (1 << 20)
#define PLUGIN_MAX_STDERR 16384    /* relayed; the rest is read and dropped */
/* Lines of a PEM key shorter than this are not taken for secrets: the last
 * line of its base64 can be a few bytes that would match anywhere. */
#define PEM_LINE_MIN 16
/* Secrets mk_kauth_scrub knows at most: the tokens and the password, and
 * the lines of two keys (a 16384-bit RSA key has about 200). */
#define MAX_SECRETS 512

struct mk_kauth {
    const mk_ktarget *t;
    const atomic_int *stop;
    mk_klog log;
    char *file_token;       /* last read from t->token_file */
    char *prev_token;       /* the file's or the plugin's token before the current
                               one: a late message may still quote it */
    char *basic_b64;        /* base64("username:password"), as Basic auth sends it */
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

static int b64_encode(const mk_kblob *b, char **out);

mk_kauth *mk_kauth_new(const mk_ktarget *t, const atomic_int *stop, const mk_klog *log)
{
    mk_kauth *a = calloc(1, sizeof *a);
    char *pair = NULL;
    if (!a)
        return NULL;
    a->t = t;
    a->stop = stop;
    if (log)
        a->log = *log;
    atomic_init(&a->loads, 0);
    if (t->username) {
        int n = asprintf(&pair, "%s:%s", t->username, t->password ? t->password : "");
        mk_kblob b = { .data = (unsigned char *)pair, .len = n > 0 ? (size_t)n : 0 };
        int bad = n < 0 || b64_encode(&b, &a->basic_b64);
        if (n >= 0)
            free(pair);
        if (bad) {
            mk_kauth_free(a);
            return NULL;
        }
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
    free(a->prev_token);
    free(a->basic_b64);
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
    if (a->file_token && strcmp(a->file_token, tok)) {
        free(a->prev_token);
        a->prev_token = a->file_token;
    } else {
        free(a->file_token);
    }
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

/* What a plugin prints on stderr, kept to relay it once the plugin ended. */
typedef struct plugin_stderr {
    int fd;                  /* -1 once closed */
    char buf[PLUGIN_MAX_STDERR + 1];
    size_t len;
} plugin_stderr;

/* Reads what is there; the part past PLUGIN_MAX_STDERR is dropped, so that
 * a chatty plugin never blocks on a full pipe. */
static void read_stderr(plugin_stderr *e)
{
    char sink[4096];
    size_t room = PLUGIN_MAX_STDERR - e->len;
    ssize_t got = read(e->fd, room ? e->buf + e->len : sink, room ? room : sizeof sink);
    if (got > 0 && room)
        e->len += (size_t)got;
    else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        close(e->fd);
        e->fd = -1;
    }
}

/* Read the plugin's stdout until it closes, mokka stops or time runs out
 * (the plugin's minute, or the caller's deadline when that comes first);
 * its stderr on the way. */
static int read_plugin(mk_kauth *a, long long deadline_ms, int fd, plugin_stderr *e, char **out,
                       size_t *len, char *err, size_t errlen)
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
        struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = e->fd, .events = POLLIN } };
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
        int r = poll(p, 2, 100);
        if (r == 0 || (r < 0 && errno == EINTR))
            continue;
        if (p[1].revents)
            read_stderr(e);
        if (!p[0].revents)
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

/* What is left in the stderr pipe once the plugin exited. Not up to its
 * end: a process the plugin left behind may hold the pipe open. */
static void drain_stderr(plugin_stderr *e)
{
    while (e->fd >= 0) {
        struct pollfd p = { .fd = e->fd, .events = POLLIN };
        if (poll(&p, 1, 0) <= 0)
            break;
        read_stderr(e);
    }
    if (e->fd >= 0)
        close(e->fd);
    e->fd = -1;
}

/* Run the plugin with stdin from /dev/null, stdout and stderr into pipes. */
static int spawn_plugin(mk_kauth *a, long long deadline_ms, plugin_stderr *e, char **out,
                        size_t *len, char *err, size_t errlen)
{
    const mk_kexec *x = a->t->exec;
    char *info = NULL, *info_json = exec_info(a->t);
    char **argv = calloc(x->nargs + 2, sizeof *argv);
    char **envp = NULL;
    int fds[2] = { -1, -1 }, efds[2] = { -1, -1 }, rc = -1;
    pid_t pid;
    posix_spawn_file_actions_t fa;

    if (!info_json || !argv || asprintf(&info, "KUBERNETES_EXEC_INFO=%s", info_json) < 0)
        info = NULL;
    if (!info || !(envp = plugin_env(a->t, info))) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    if (pipe2(fds, O_CLOEXEC) != 0 || pipe2(efds, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot run exec plugin '%s': %s", x->command, strerror(errno));
        goto out;
    }
    argv[0] = x->command;
    for (size_t i = 0; i < x->nargs; i++)
        argv[i + 1] = x->args[i];
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, efds[1], 2);
    int sp = posix_spawnp(&pid, x->command, &fa, NULL, argv, envp);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    close(efds[1]);
    fds[1] = efds[1] = -1;
    if (sp) {
        snprintf(err, errlen, "exec plugin '%s' (user '%s') could not be run: %s%s%s", x->command,
                 user_name(a->t), strerror(sp), x->install_hint ? ". " : "",
                 x->install_hint ? x->install_hint : "");
        goto out;
    }
    e->fd = efds[0];
    efds[0] = -1;
    rc = read_plugin(a, deadline_ms, fds[0], e, out, len, err, errlen);
    if (rc)
        kill(pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    drain_stderr(e);
    if (rc == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        snprintf(err, errlen, "exec plugin '%s' (user '%s') %s %d", x->command, user_name(a->t),
                 WIFEXITED(st) ? "exited with status" : "was killed by signal",
                 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
        free(*out);
        rc = -1;
    }
out:
    for (int i = 0; i < 2; i++) {
        if (fds[i] >= 0)
            close(fds[i]);
        if (efds[i] >= 0)
            close(efds[i]);
    }
    free(envp);
    free(argv);
    free(info);
    free(info_json);
    return rc;
}

/* The plugin's stderr as warnings, a line each, with every secret known by
 * now (its new credential too) scrubbed: kubectl shows it, and a plugin
 * that fails says why there. */
static void relay_stderr(mk_kauth *a, plugin_stderr *e)
{
    e->buf[e->len] = '\0';
    mk_kauth_scrub(a, e->buf, sizeof e->buf);
    for (char *line = e->buf, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (*line)
            mk_klogf(&a->log, 1, "exec plugin '%s': %s", a->t->exec->command, line);
    }
}

static int run_plugin(mk_kauth *a, long long deadline_ms, char *err, size_t errlen)
{
    char *out;
    size_t len;
    mk_kexec_cred c;
    plugin_stderr *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    e->fd = -1;
    int rc = spawn_plugin(a, deadline_ms, e, &out, &len, err, errlen);
    if (rc == 0) {
        rc = mk_kexec_parse(out, len, a->t->exec->api_version, a->t->exec->command, &c, err, errlen);
        free(out);
    }
    if (rc == 0) {
        free(a->prev_token);
        a->prev_token = a->cred.token;
        a->cred.token = NULL;
        mk_kexec_cred_free(&a->cred);
        a->cred = c;
        a->have_cred = 1;
        atomic_fetch_add(&a->loads, 1);
    }
    relay_stderr(a, e);
    free(e);
    return rc ? -1 : 0;
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

/* --- secrets in text ------------------------------------------------------------- */

static size_t add_secret(mk_ksecret *sec, size_t n, const char *s, size_t len)
{
    if (s && len && n < MAX_SECRETS)
        sec[n++] = (mk_ksecret){ .s = s, .len = len };
    return n;
}

static size_t add_str(mk_ksecret *sec, size_t n, const char *s)
{
    return add_secret(sec, n, s, s ? strlen(s) : 0);
}

/* A PEM key: the whole text, and each line of its base64 (a message would
 * rather quote a line than the key), not the BEGIN and END lines. */
static size_t add_pem(mk_ksecret *sec, size_t n, const char *pem, size_t len)
{
    n = add_secret(sec, n, pem, len);
    for (size_t i = 0; pem && i < len;) {
        const char *line = pem + i, *nl = memchr(line, '\n', len - i);
        size_t ll = nl ? (size_t)(nl - line) : len - i;
        i += ll + 1;
        if (ll && line[ll - 1] == '\r')
            ll--;
        if (ll >= PEM_LINE_MIN && strncmp(line, "-----", 5))
            n = add_secret(sec, n, line, ll);
    }
    return n;
}

void mk_kauth_scrub(const mk_kauth *a, char *text, size_t size)
{
    const mk_ktarget *t = a->t;
    mk_ksecret sec[MAX_SECRETS];
    size_t n = 0;
    n = add_str(sec, n, t->token);
    n = add_str(sec, n, t->password);
    n = add_str(sec, n, a->basic_b64);
    n = add_str(sec, n, a->file_token);
    n = add_str(sec, n, a->prev_token);
    n = add_str(sec, n, a->cred.token);
    n = add_pem(sec, n, (const char *)a->cred.key.data, a->cred.key.len);
    n = add_pem(sec, n, (const char *)t->key_data.data, t->key_data.len);
    mk_kscrub(text, size, sec, n);
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
    if (rc) {
        /* The quoted kind, apiVersion or expiry is the plugin's text. */
        mk_ksecret sec[MAX_SECRETS];
        size_t n = add_pem(sec, add_str(sec, 0, token), key, key ? strlen(key) : 0);
        mk_kscrub(err, errlen, sec, n);
    }
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
