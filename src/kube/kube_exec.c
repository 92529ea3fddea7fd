/* kube_exec.c - exec credential plugins (kube_exec.h): run as client-go
 * runs them (the kubeconfig's command, args and env, KUBERNETES_EXEC_INFO,
 * stdin from /dev/null, stdout read as the credential, stderr kept to be
 * relayed), and their ExecCredential read. Each runs in a process group of
 * its own, killed whole when the plugin is given up (its time ran out,
 * mokka stops, it printed too much), and under mokka's tree guard
 * (treeguard.c): what it leaves running dies with mokka. */
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
#include "kube_exec.h"
#include "kube_scrub.h"
#include "kube_time.h"
#include "util/util.h"

extern char **environ;

/* How long a plugin may take, and how much it may print. */
#define PLUGIN_TIMEOUT_MS 60000
#define PLUGIN_MAX_OUTPUT (1 << 20)

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* --- running ------------------------------------------------------------------- */

int mk_kbase64(const mk_kblob *b, char **out)
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
        if (c && t->ca_data.data && mk_kbase64(&t->ca_data, &ca) == 0)
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
 * entries, KUBERNETES_EXEC_INFO and the tree guard's mark. */
static char **plugin_env(const mk_ktarget *t, char *info)
{
    size_t n = 0, k = 0;
    const char *mark = mk_tree_mark();
    while (environ[n])
        n++;
    char **env = calloc(n + t->exec->nenv + 3, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strcspn(environ[i], "=");
        int overridden = strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21) == 0 ||
                         (mark && strncmp(environ[i], "MOKKA_TREE=", 11) == 0);
        for (size_t j = 0; j < t->exec->nenv && !overridden; j++)
            overridden = strncmp(environ[i], t->exec->env[j], nl + 1) == 0;
        if (!overridden)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < t->exec->nenv; j++)
        env[k++] = t->exec->env[j];
    env[k++] = info;
    if (mark)
        env[k] = (char *)mark;
    return env;
}

static const char *user_name(const mk_ktarget *t)
{
    return t->user ? t->user : "";
}

/* The plugin's stderr pipe and where what it says goes. */
typedef struct plugin_stderr {
    int fd;                  /* -1 once closed */
    mk_kexec_stderr *out;
} plugin_stderr;

/* Reads what is there, keeping up to MK_KEXEC_STDERR_MAX. */
static void read_stderr(plugin_stderr *e)
{
    char sink[4096];
    size_t room = MK_KEXEC_STDERR_MAX - e->out->len;
    ssize_t got = read(e->fd, room ? e->out->text + e->out->len : sink, room ? room : sizeof sink);
    if (got > 0 && room)
        e->out->len += (size_t)got;
    else if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
        close(e->fd);
        e->fd = -1;
    }
}

/* Read the plugin's stdout until it closes, mokka stops or time runs out
 * (the plugin's minute, or the caller's deadline when that comes first);
 * its stderr on the way. */
static int read_plugin(const mk_ktarget *t, const atomic_int *stop, long long deadline_ms, int fd,
                       plugin_stderr *e, char **out, size_t *len, char *err, size_t errlen)
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
        if (stop && atomic_load(stop)) {
            snprintf(err, errlen, "stopped while exec plugin '%s' was running", t->exec->command);
            break;
        }
        if (mono_ms() >= deadline) {
            snprintf(err, errlen, "exec plugin '%s' (user '%s') did not finish within %.1f s%s",
                     t->exec->command, user_name(t), (deadline - started) / 1000.0,
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
                         t->exec->command, PLUGIN_MAX_OUTPUT);
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
            snprintf(err, errlen, "exec plugin '%s': %s", t->exec->command, strerror(errno));
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

int mk_kexec_run(const mk_ktarget *t, const atomic_int *stop, long long deadline_ms,
                 char **out, size_t *len, mk_kexec_stderr *se, char *err, size_t errlen)
{
    const mk_kexec *x = t->exec;
    char *info = NULL, *info_json = exec_info(t);
    char **argv = calloc(x->nargs + 2, sizeof *argv);
    char **envp = NULL;
    int fds[2] = { -1, -1 }, efds[2] = { -1, -1 }, rc = -1;
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    plugin_stderr e = { .fd = -1, .out = se };

    se->len = 0;
    se->text[0] = '\0';

    mk_tree_guard();
    if (!info_json || !argv || asprintf(&info, "KUBERNETES_EXEC_INFO=%s", info_json) < 0)
        info = NULL;
    if (!info || !(envp = plugin_env(t, info))) {
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
    /* A group of its own: what it started goes with it when it is given up. */
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    int sp = posix_spawnp(&pid, x->command, &fa, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    close(efds[1]);
    fds[1] = efds[1] = -1;
    if (sp) {
        snprintf(err, errlen, "exec plugin '%s' (user '%s') could not be run: %s%s%s", x->command,
                 user_name(t), strerror(sp), x->install_hint ? ". " : "",
                 x->install_hint ? x->install_hint : "");
        goto out;
    }
    e.fd = efds[0];
    efds[0] = -1;
    rc = read_plugin(t, stop, deadline_ms, fds[0], &e, out, len, err, errlen);
    if (rc)
        kill(-pid, SIGKILL);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    drain_stderr(&e);
    se->text[se->len] = '\0';
    if (rc == 0 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
        snprintf(err, errlen, "exec plugin '%s' (user '%s') %s %d", x->command, user_name(t),
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

/* --- the ExecCredential ------------------------------------------------------- */

void mk_kexec_cred_free(mk_kexec_cred *c)
{
    free(c->token);
    free(c->cert.data);
    free(c->key.data);
    memset(c, 0, sizeof *c);
}

int mk_krfc3339(const char *s, time_t *out)
{
    long long ms;
    if (mk_ktime_ms(s, &ms))
        return -1;
    *out = (time_t)(ms / 1000);
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
    if (rc) {
        /* The quoted kind, apiVersion or expiry is the plugin's text. */
        mk_ksecrets sec = { .n = 0 };
        mk_ksecrets_add(&sec, token);
        mk_ksecrets_add_pem(&sec, key, key ? strlen(key) : 0);
        mk_kscrub(err, errlen, &sec);
    }
    json_decref(root);
    if (rc)
        mk_kexec_cred_free(out);
    return rc;
}
