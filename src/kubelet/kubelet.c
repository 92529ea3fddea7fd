/* kubelet.c - the built-in kubelet's lifecycle and its Registration
 * service: guarding and serving <dir>/kubelet.sock, checking Register
 * requests as the kubelet does, and filling the resource table through
 * kubelet_plugin.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "deviceplugin/deviceplugin.h"
#include "kubelet_impl.h"

/* The checks the kubelet makes before it talks to a plugin. */
static int check_request(const V1beta1__RegisterRequest *r, char *msg, size_t msglen)
{
    char why[256];
    if (strcmp(r->version, MK_DP_VERSION) != 0) {
        snprintf(msg, msglen, "requested API version \"%s\" is not supported by kubelet. "
                 "Supported versions are [\"%s\"]", r->version, MK_DP_VERSION);
        return -1;
    }
    if (mk_extended_resource_name_check(r->resource_name, why, sizeof why)) {
        snprintf(msg, msglen, "the ResourceName \"%s\" is invalid: %s", r->resource_name, why);
        return -1;
    }
    if (!*r->endpoint) {
        snprintf(msg, msglen, "the device plugin for %s sent no endpoint", r->resource_name);
        return -1;
    }
    return 0;
}

/* Register: like the kubelet, answer only once the plugin has been dialled
 * back and has told its options, so a plugin that cannot be reached learns
 * it from its Register call. Runs on the server's thread, which serialises
 * registrations. */
static int on_register(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                       char *msg, size_t msglen)
{
    mk_kubelet *k = ctx;
    V1beta1__RegisterRequest *r = v1beta1__register_request__unpack(NULL, len, req);
    if (!r) {
        snprintf(msg, msglen, "malformed RegisterRequest");
        mk_kl_emit(k, MK_KL_REJECTED, NULL, NULL, 0, 0, msg);
        return MK_RPC_INVALID_ARGUMENT;
    }
    int code = MK_RPC_OK;
    mk_kl_conn *conn = NULL;
    if (check_request(r, msg, msglen)) {
        code = MK_RPC_INVALID_ARGUMENT;
    } else if (!(conn = mk_kl_connect(k, r->resource_name, r->endpoint, msg, msglen))) {
        code = MK_RPC_UNAVAILABLE;
    } else if (mk_kl_install(k, conn, msg, msglen)) {
        code = MK_RPC_UNAVAILABLE;
    }
    if (code == MK_RPC_OK) {
        V1beta1__Empty empty = V1BETA1__EMPTY__INIT;
        if (mk_dp_pack(&empty, resp)) {
            snprintf(msg, msglen, "out of memory");
            code = MK_RPC_INTERNAL;
        }
    } else {
        mk_kl_emit(k, MK_KL_REJECTED, *r->resource_name ? r->resource_name : NULL,
                   *r->endpoint ? r->endpoint : NULL, 0, 0, msg);
    }
    v1beta1__register_request__free_unpacked(r, NULL);
    return code;
}

static const mk_rpc_method registration[] = {
    { MK_DP_REGISTER, on_register, NULL },
};

static int mkdir_p(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Makes room for our socket: a stale one goes, anything alive or not a
 * socket stays and we refuse. */
static int claim_socket(const char *sock, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(sock, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", sock, strerror(errno));
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a socket; not touching it", sock);
        return -1;
    }
    switch (mk_unix_socket_live(sock)) {
    case 1:
        snprintf(err, errlen, "a server is answering on %s (is a kubelet running?); "
                 "refusing to take it over", sock);
        return -1;
    case -1:
        snprintf(err, errlen, "cannot tell whether %s is in use: %s", sock, strerror(errno));
        return -1;
    }
    if (unlink(sock) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "cannot remove the stale socket %s: %s", sock, strerror(errno));
        return -1;
    }
    return 0;
}

static void kubelet_free(mk_kubelet *k)
{
    for (size_t i = 0; i < k->nres; i++) {
        free(k->res[i].name);
        mk_dp_free_devices(k->res[i].dev, k->res[i].ndev);
    }
    free(k->res);
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->mu);
    free(k->dir);
    free(k->sock);
    free(k->node_name);
    free(k);
}

static mk_kubelet *kubelet_new(const char *dir, const mk_kubelet_opts *opts)
{
    mk_kubelet *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    if (opts)
        k->opts = *opts;
    if (k->opts.dial_timeout_ms <= 0)
        k->opts.dial_timeout_ms = 10000;
    if (k->opts.call_timeout_ms <= 0)
        k->opts.call_timeout_ms = 10000;
    if (k->opts.prestart_timeout_ms <= 0)
        k->opts.prestart_timeout_ms = 30000;
    pthread_mutex_init(&k->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&k->cv, &ca);
    pthread_condattr_destroy(&ca);
    k->dir = strdup(dir);
    k->node_name = strdup(k->opts.node_name ? k->opts.node_name : "mokka-node");
    k->opts.node_name = k->node_name;
    if (k->dir && asprintf(&k->sock, "%s/%s", dir, MK_DP_KUBELET_SOCKET) < 0)
        k->sock = NULL;
    if (!k->dir || !k->node_name || !k->sock) {
        kubelet_free(k);
        return NULL;
    }
    mk_kl_nodesrc_init(k);
    return k;
}

mk_kubelet *mk_kubelet_start(const char *dir, const mk_kubelet_opts *opts, char *err, size_t errlen)
{
    if (dir[0] != '/') {
        snprintf(err, errlen, "%s: the device-plugin directory must be an absolute path", dir);
        return NULL;
    }
    mk_kubelet *k = kubelet_new(dir, opts);
    if (!k) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    char addr[4200];
    if (strlen(k->sock) >= sizeof ((struct sockaddr_un *)0)->sun_path) {
        snprintf(err, errlen, "%s: path too long for a Unix socket", k->sock);
    } else if (mkdir_p(dir) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", dir, strerror(errno));
    } else if (claim_socket(k->sock, err, errlen) == 0) {
        snprintf(addr, sizeof addr, "unix:%s", k->sock);
        k->srv = mk_rpc_server_start(addr, registration, 1, k, err, errlen);
    }
    if (!k->srv) {
        kubelet_free(k);
        return NULL;
    }
    return k;
}

void mk_kubelet_stop(mk_kubelet *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&k->mu);
    k->stopping = 1;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);

    /* No Register after this; one in progress has finished. */
    mk_rpc_server_stop(k->srv);
    mk_kl_close_stale(k);
    for (size_t i = 0; i < k->nres; i++) {
        pthread_mutex_lock(&k->mu);
        mk_kl_conn *c = k->res[i].conn;
        k->res[i].conn = NULL;
        pthread_mutex_unlock(&k->mu);
        if (c)
            mk_kl_close(c);
    }
    /* Calls in progress through the node source: waiters woke up above,
     * calls to plugins end within their deadlines. */
    pthread_mutex_lock(&k->mu);
    while (k->users)
        pthread_cond_wait(&k->cv, &k->mu);
    pthread_mutex_unlock(&k->mu);
    kubelet_free(k);
}

const char *mk_kubelet_socket(const mk_kubelet *k)
{
    return k->sock;
}
