/* kube_http.c - requests to the API server over libcurl, with the
 * retry policy of a polite client: exponential backoff with jitter on
 * connection errors, 5xx and 429 (Retry-After wins when the server sends
 * one), a single retry with fresh credentials on 401, and a deadline that
 * every wait keeps. Answers are bounded as they arrive (MK_KHTTP_ANSWER_MAX
 * for a 200, ERROR_BODY_MAX for the rest), and whatever the server or
 * libcurl says is scrubbed of secrets before it goes into a message. A path
 * goes out as given, never folded; one with a dot segment is refused.
 *
 * Transfers run through a multi handle so that mk_khttp_stop can wake a
 * transfer or a backoff wait at once (curl_multi_wakeup) from another thread,
 * and so that connections are kept alive between a list and its watch. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <curl/curl.h>
#include <jansson.h>
#include "kube_auth.h"
#include "kube_http.h"
#include "kube_name.h"

#define CONNECT_TIMEOUT_MS 10000
#define BACKOFF_FIRST_MS 200
#define BACKOFF_MAX_MS 30000
/* Of an answer that is not 200, what we keep for its Status message; the
 * transfer ends there. */
#define ERROR_BODY_MAX 65536

struct mk_khttp {
    const mk_ktarget *t;
    mk_klog log;
    mk_kauth *auth;
    CURL *easy;
    CURLM *multi;
    atomic_int stop;
    char *base;                  /* scheme://host:port/prefix that URLs start with */
    char *host_header;           /* "Host: ..." when tls-server-name renames the URL's host */
    struct curl_slist *connect_to;
    long long backoff_ms;        /* the last retry step; 0 after a success */
    long long stream_backoff_ms; /* the last mk_khttp_backoff step; 0 after its reset */
    uint64_t rng;
    atomic_ulong lists, watches, writes, retries;
    /* The transfer in progress. */
    const mk_kget *req;
    int sink_ended;              /* we ended it (sink, bound): not a broken transfer */
    int too_big;                 /* a 200 answer passed req->max_body */
    size_t got;                  /* bytes of a 200 answer's body so far, decoded */
    char *body;                  /* a non-200 answer's body, for its message */
    size_t blen;
    char reason[64];             /* its Status reason ("AlreadyExists"), or "" */
    char curl_err[CURL_ERROR_SIZE];
};

long long mk_kmono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* --- setting up --------------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* With tls-server-name, the URL names that host (so that SNI and certificate
 * verification use it) and CONNECT_TO sends the connection to the server's
 * real address; the Host header keeps the real name, as client-go sends it. */
static int set_base(mk_khttp *h, char *err, size_t errlen)
{
    const mk_ktarget *t = h->t;
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL, *path = NULL;
    int rc = -1;

    if (!u || curl_url_set(u, CURLUPART_URL, t->server, 0) ||
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) ||
        curl_url_get(u, CURLUPART_PATH, &path, 0)) {
        snprintf(err, errlen, "%s: cluster '%s': server '%s' is not a URL", t->source,
                 t->cluster ? t->cluster : "", t->server);
        goto out;
    }
    if (strcmp(scheme, "https") && strcmp(scheme, "http")) {
        snprintf(err, errlen, "%s: cluster '%s': server '%s' is neither https nor http", t->source,
                 t->cluster ? t->cluster : "", t->server);
        goto out;
    }
    size_t pl = strlen(path);
    while (pl && path[pl - 1] == '/')
        path[--pl] = '\0';
    const char *name = t->tls_server_name ? t->tls_server_name : host;
    if (asprintf(&h->base, "%s://%s:%s%s", scheme, name, port, path) < 0) {
        h->base = NULL;
        goto oom;
    }
    if (t->tls_server_name) {
        char *ct = NULL;
        if (asprintf(&ct, "%s:%s:%s:%s", name, port, host, port) < 0 ||
            asprintf(&h->host_header, "Host: %s:%s", host, port) < 0) {
            free(ct);
            goto oom;
        }
        h->connect_to = curl_slist_append(NULL, ct);
        free(ct);
        if (!h->connect_to)
            goto oom;
    }
    rc = 0;
    goto out;
oom:
    snprintf(err, errlen, "out of memory");
out:
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_free(path);
    curl_url_cleanup(u);
    return rc;
}

static size_t on_data(char *p, size_t size, size_t n, void *ud);

static int blob(CURL *e, CURLoption opt, const mk_kblob *b)
{
    struct curl_blob cb = { .data = b->data, .len = b->len, .flags = CURL_BLOB_COPY };
    return curl_easy_setopt(e, opt, &cb) != CURLE_OK;
}

/* Everything that is the same for every request. */
static int set_options(mk_khttp *h, char *err, size_t errlen)
{
    const mk_ktarget *t = h->t;
    CURL *e = h->easy;
    int bad = 0;

    bad |= curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_ERRORBUFFER, h->curl_err) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_WRITEDATA, h) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L) != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "") != CURLE_OK;
    bad |= curl_easy_setopt(e, CURLOPT_USERAGENT, "mokka/" MOKKA_VERSION) != CURLE_OK;
    /* The path goes out as built and checked (mk_kpath_clean), as kubectl
     * sends it: libcurl would fold "../" and reach another object. */
    bad |= curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L) != CURLE_OK;
    if (h->connect_to)
        bad |= curl_easy_setopt(e, CURLOPT_CONNECT_TO, h->connect_to) != CURLE_OK;
    if (t->proxy_url)
        bad |= curl_easy_setopt(e, CURLOPT_PROXY, t->proxy_url) != CURLE_OK;
    if (t->insecure) {
        bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L) != CURLE_OK;
        bad |= curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L) != CURLE_OK;
    }
    if (t->ca_file)
        bad |= curl_easy_setopt(e, CURLOPT_CAINFO, t->ca_file) != CURLE_OK;
    if (t->ca_data.data)
        bad |= blob(e, CURLOPT_CAINFO_BLOB, &t->ca_data);
    if (t->cert_file)
        bad |= curl_easy_setopt(e, CURLOPT_SSLCERT, t->cert_file) != CURLE_OK;
    if (t->key_file)
        bad |= curl_easy_setopt(e, CURLOPT_SSLKEY, t->key_file) != CURLE_OK;
    if (t->username) {
        bad |= curl_easy_setopt(e, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC) != CURLE_OK;
        bad |= curl_easy_setopt(e, CURLOPT_USERNAME, t->username) != CURLE_OK;
        bad |= curl_easy_setopt(e, CURLOPT_PASSWORD, t->password ? t->password : "") != CURLE_OK;
    }
    if (bad)
        snprintf(err, errlen, "%s: libcurl %s lacks a feature this kubeconfig needs "
                 "(in-memory certificates, proxies or TLS)", t->source, curl_version_info(CURLVERSION_NOW)->version);
    return bad ? -1 : 0;
}

mk_khttp *mk_khttp_new(const mk_ktarget *t, const mk_klog *log, char *err, size_t errlen)
{
    pthread_once(&curl_once, curl_init);
    mk_khttp *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    h->t = t;
    h->log = *log;
    atomic_init(&h->stop, 0);
    h->rng = (uint64_t)mk_kmono_ms() * 0x9E3779B97F4A7C15ULL ^ (uint64_t)getpid() ^ (uintptr_t)h;
    h->auth = mk_kauth_new(t, &h->stop, log);
    h->easy = curl_easy_init();
    h->multi = curl_multi_init();
    if (!h->auth || !h->easy || !h->multi) {
        snprintf(err, errlen, "out of memory");
        mk_khttp_free(h);
        return NULL;
    }
    if (set_base(h, err, errlen) || set_options(h, err, errlen)) {
        mk_khttp_free(h);
        return NULL;
    }
    return h;
}

void mk_khttp_free(mk_khttp *h)
{
    if (!h)
        return;
    if (h->easy)
        curl_easy_cleanup(h->easy);
    if (h->multi)
        curl_multi_cleanup(h->multi);
    curl_slist_free_all(h->connect_to);
    mk_kauth_free(h->auth);
    free(h->base);
    free(h->host_header);
    free(h->body);
    free(h);
}

/* --- one transfer -------------------------------------------------------------- */

/* libcurl hands over the body as it decodes it (after inflating gzip), so
 * the bounds count what the client would hold, not what the wire carried. */
static size_t on_data(char *p, size_t size, size_t n, void *ud)
{
    mk_khttp *h = ud;
    size_t len = size * n;
    long code = 0;
    if (atomic_load(&h->stop))
        return CURL_WRITEFUNC_ERROR;
    curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &code);
    if (code >= 200 && code < 300) {
        h->got += len;
        if (h->req->max_body && h->got > h->req->max_body) {
            h->too_big = h->sink_ended = 1;
            return CURL_WRITEFUNC_ERROR;
        }
        if (h->req->sink(h->req->ctx, p, len) == 0)
            return len;
        h->sink_ended = 1;
        return CURL_WRITEFUNC_ERROR;
    }
    /* Keep the start of an error answer, its Status message, and end the
     * transfer there: the rest cannot say more. */
    size_t keep = ERROR_BODY_MAX - h->blen;
    if (keep > len)
        keep = len;
    char *nb = realloc(h->body, h->blen + keep + 1);
    if (nb) {
        memcpy(nb + h->blen, p, keep);
        h->blen += keep;
        nb[h->blen] = '\0';
        h->body = nb;
    }
    if (h->blen < ERROR_BODY_MAX)
        return len;
    h->sink_ended = 1;
    return CURL_WRITEFUNC_ERROR;
}

/* Run the transfer on the multi handle, waking for mk_khttp_stop. */
static CURLcode perform(mk_khttp *h)
{
    CURLcode res = CURLE_ABORTED_BY_CALLBACK;   /* stopped */
    int running = 1;
    curl_multi_add_handle(h->multi, h->easy);
    while (!atomic_load(&h->stop)) {
        if (curl_multi_perform(h->multi, &running) != CURLM_OK) {
            res = CURLE_FAILED_INIT;
            break;
        }
        if (!running) {
            int left;
            CURLMsg *m = curl_multi_info_read(h->multi, &left);
            res = m && m->msg == CURLMSG_DONE ? m->data.result : CURLE_RECV_ERROR;
            break;
        }
        curl_multi_poll(h->multi, NULL, 0, 1000, NULL);
    }
    curl_multi_remove_handle(h->multi, h->easy);
    return res;
}

static CURLcode transfer(mk_khttp *h, const mk_kget *req, const mk_kcred *cred, char *url)
{
    struct curl_slist *hdr = curl_slist_append(NULL, "Accept: application/json");
    char *bearer = NULL, *ctype = NULL;
    CURL *e = h->easy;
    long limit = req->timeout_s * 1000L, connect = CONNECT_TIMEOUT_MS;

    if (cred->token && asprintf(&bearer, "Authorization: Bearer %s", cred->token) > 0)
        hdr = curl_slist_append(hdr, bearer);
    if (h->host_header)
        hdr = curl_slist_append(hdr, h->host_header);
    if (req->body && asprintf(&ctype, "Content-Type: %s",
                              req->content_type ? req->content_type : "application/json") > 0)
        hdr = curl_slist_append(hdr, ctype);
    if (req->deadline_ms) {
        long left = (long)(req->deadline_ms - mk_kmono_ms());
        if (left < 1)
            left = 1;
        if (!limit || left < limit)
            limit = left;
        if (left < connect)
            connect = left;
    }
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdr);
    if (req->body) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)req->body_len);
    }
    /* After POSTFIELDS, which makes the request a POST. */
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, limit);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, connect);
    if (cred->cert)
        blob(e, CURLOPT_SSLCERT_BLOB, cred->cert);
    if (cred->key)
        blob(e, CURLOPT_SSLKEY_BLOB, cred->key);
    h->req = req;
    h->sink_ended = h->too_big = 0;
    h->got = h->blen = 0;
    h->curl_err[0] = '\0';
    h->reason[0] = '\0';
    CURLcode res = perform(h);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, NULL);
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    curl_slist_free_all(hdr);
    free(bearer);
    free(ctype);
    return res;
}

/* --- retry policy ---------------------------------------------------------------- */

static uint64_t rnd(mk_khttp *h)
{
    h->rng ^= h->rng << 13;
    h->rng ^= h->rng >> 7;
    h->rng ^= h->rng << 17;
    return h->rng;
}

/* Exponential steps with equal jitter (half fixed, half random), so that
 * clients restarted together do not come back together. */
static long long next_backoff(mk_khttp *h, long long *step_ms)
{
    *step_ms = *step_ms ? *step_ms * 2 : BACKOFF_FIRST_MS;
    if (*step_ms > BACKOFF_MAX_MS)
        *step_ms = BACKOFF_MAX_MS;
    return *step_ms / 2 + (long long)(rnd(h) % (uint64_t)(*step_ms / 2 + 1));
}

/* Sleep, waking early for mk_khttp_stop; -1 when stopped. */
static int nap(mk_khttp *h, long long ms)
{
    long long end = mk_kmono_ms() + ms;
    for (long long now; !atomic_load(&h->stop) && (now = mk_kmono_ms()) < end;)
        curl_multi_poll(h->multi, NULL, 0, (int)(end - now < 1000 ? end - now : 1000), NULL);
    return atomic_load(&h->stop) ? -1 : 0;
}

/* Wait before retrying: the server's Retry-After if it sent one, else the
 * next backoff step. Returns 0 to retry, else MK_KHTTP_FAIL (the deadline
 * would come first; err says why) or MK_KHTTP_STOPPED. A wait that would
 * end at the deadline gives up at once: a try in what is left could only
 * time out, and its "timed out" would hide the reason we waited for. */
static int retry_wait(mk_khttp *h, long long *step_ms, long long deadline_ms,
                      long long retry_after_ms, const char *why, char *err, size_t errlen)
{
    long long d = retry_after_ms > 0 ? retry_after_ms : next_backoff(h, step_ms);
    if (deadline_ms && d >= deadline_ms - mk_kmono_ms()) {
        snprintf(err, errlen, "%s (gave up: the deadline came first)", why);
        return MK_KHTTP_FAIL;
    }
    mk_klogf(&h->log, 0, "%s; retrying in %.2f s", why, d / 1000.0);
    atomic_fetch_add(&h->retries, 1);
    return nap(h, d) ? MK_KHTTP_STOPPED : 0;
}

int mk_khttp_backoff(mk_khttp *h, long long deadline_ms, const char *why, char *err, size_t errlen)
{
    return retry_wait(h, &h->stream_backoff_ms, deadline_ms, 0, why, err, errlen);
}

void mk_khttp_backoff_reset(mk_khttp *h)
{
    h->stream_backoff_ms = 0;
}

/* Problems no retry can fix: TLS setup and verification, bad URLs. */
static int curl_fatal(CURLcode c)
{
    switch (c) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_NOT_BUILT_IN:
        return 1;
    default:
        return 0;
    }
}

static const char *method(const mk_kget *req)
{
    return req->method ? req->method : "GET";
}

static const char *reason(long code)
{
    switch (code) {
    case 409: return "Conflict";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
    }
}

/* "GET https://host/api/v1/nodes: 403 Forbidden: <the Status object's message>",
 * the message scrubbed whole, before formatting could cut a secret short. */
static void answer_error(mk_khttp *h, const mk_kget *req, const char *url, long code, char *err,
                         size_t errlen)
{
    json_t *st = h->body ? json_loadb(h->body, h->blen, 0, NULL) : NULL;
    const char *msg = json_string_value(json_object_get(st, "message"));
    const char *why = json_string_value(json_object_get(st, "reason"));
    snprintf(h->reason, sizeof h->reason, "%s", why ? why : "");
    char *copy = msg ? strdup(msg) : NULL;
    if (copy)
        mk_khttp_scrub(h, copy, strlen(copy) + 1);
    snprintf(err, errlen, "%s %s: %ld %s%s%s", method(req), url, code, reason(code),
             copy ? ": " : "", copy ? copy : "");
    free(copy);
    json_decref(st);
}

int mk_khttp_get(mk_khttp *h, const mk_kget *req, long *status, char *err, size_t errlen)
{
    char *url = NULL, why[CURL_ERROR_SIZE + 512] = "";
    int refreshed = 0, rc;

    if (!mk_kpath_clean(req->path)) {
        char what[512];
        mk_khttp_what(req, what, sizeof what);
        snprintf(err, errlen, "refused to send %s: a '.' or '..' segment or a '#' would make it "
                 "reach another path", what);
        return MK_KHTTP_FAIL;
    }
    if (asprintf(&url, "%s%s", h->base, req->path) < 0) {
        snprintf(err, errlen, "out of memory");
        return MK_KHTTP_FAIL;
    }
    for (;;) {
        mk_kcred cred;
        long code = 0;
        curl_off_t retry_after = 0;

        if (atomic_load(&h->stop)) {
            rc = MK_KHTTP_STOPPED;
            break;
        }
        if (mk_kauth_get(h->auth, req->deadline_ms, &cred, err, errlen)) {
            rc = MK_KHTTP_FAIL;
            break;
        }
        atomic_fetch_add(req->watch ? &h->watches : req->method ? &h->writes : &h->lists, 1);
        CURLcode res = transfer(h, req, &cred, url);
        if (atomic_load(&h->stop)) {
            rc = MK_KHTTP_STOPPED;
            break;
        }
        curl_easy_getinfo(h->easy, CURLINFO_RESPONSE_CODE, &code);
        if (h->too_big) {
            char what[512];
            mk_khttp_what(req, what, sizeof what);
            snprintf(err, errlen, "the API server's answer to %s is over %zu MiB (the limit for one answer)",
                     what, req->max_body >> 20);
            rc = MK_KHTTP_FAIL;
            break;
        }
        if (res == CURLE_OPERATION_TIMEDOUT && why[0] && req->deadline_ms &&
            mk_kmono_ms() >= req->deadline_ms) {
            /* A retry cut short by the deadline can only say "timed out";
             * the reason it was retried for is the one to report. */
            snprintf(err, errlen, "%s (gave up: the deadline came first)", why);
            rc = MK_KHTTP_FAIL;
            break;
        }
        if (res != CURLE_OK && !h->sink_ended) {
            /* libcurl's own buffer says more than its error code's text. */
            snprintf(why, sizeof why, "%s %s: %s", method(req), url,
                     h->curl_err[0] ? h->curl_err : curl_easy_strerror(res));
            mk_khttp_scrub(h, why, sizeof why);
            if (code >= 200 && code < 300) {
                snprintf(err, errlen, "%s", why);
                rc = MK_KHTTP_BROKEN;
                break;
            }
            if (curl_fatal(res)) {
                snprintf(err, errlen, "%s", why);
                rc = MK_KHTTP_FAIL;
                break;
            }
            if ((rc = retry_wait(h, &h->backoff_ms, req->deadline_ms, 0, why, err, errlen)))
                break;
            continue;
        }
        mk_klogf(&h->log, 0, "%s %s: %ld", method(req), req->path, code);
        if (code == 401 && !refreshed && mk_kauth_rejected(h->auth)) {
            /* A rotated token or an expired plugin credential: fetch a new
             * one and try again, once. */
            refreshed = 1;
            atomic_fetch_add(&h->retries, 1);
            continue;
        }
        if (code == 429 || code >= 500) {
            curl_easy_getinfo(h->easy, CURLINFO_RETRY_AFTER, &retry_after);
            answer_error(h, req, url, code, why, sizeof why);
            if ((rc = retry_wait(h, &h->backoff_ms, req->deadline_ms, (long long)retry_after * 1000, why,
                                  err, errlen)))
                break;
            continue;
        }
        *status = code;
        if (code >= 200 && code < 300)
            h->backoff_ms = 0;
        else
            answer_error(h, req, url, code, err, errlen);
        if (code == 401) {
            char auth[1024];
            size_t n = strlen(err);
            mk_kauth_describe(h->auth, auth, sizeof auth);
            snprintf(err + n, errlen - n, " (the API server rejected the credentials: %s)", auth);
        }
        rc = 0;
        break;
    }
    free(url);
    return rc;
}

const char *mk_khttp_reason(const mk_khttp *h)
{
    return h->reason;
}

void mk_khttp_scrub(const mk_khttp *h, char *text, size_t size)
{
    mk_kauth_scrub(h->auth, text, size);
}

void mk_khttp_what(const mk_kget *req, char *buf, size_t len)
{
    snprintf(buf, len, "%s %.*s", req->watch ? "WATCH" : req->method ? req->method : "LIST",
             (int)strcspn(req->path, "?"), req->path);
}

void mk_khttp_stop(mk_khttp *h)
{
    atomic_store(&h->stop, 1);
    curl_multi_wakeup(h->multi);
}

void mk_khttp_counts_get(const mk_khttp *h, mk_khttp_counts *out)
{
    out->lists = atomic_load(&h->lists);
    out->watches = atomic_load(&h->watches);
    out->writes = atomic_load(&h->writes);
    out->retries = atomic_load(&h->retries);
    out->credential_loads = mk_kauth_loads(h->auth);
}

void mk_khttp_describe(const mk_khttp *h, char *buf, size_t len)
{
    const mk_ktarget *t = h->t;
    char auth[1024];
    mk_kauth_describe(h->auth, auth, sizeof auth);
    if (t->context)
        snprintf(buf, len, "%s (%s, context '%s', user '%s': %s)", t->server, t->source, t->context,
                 t->user ? t->user : "", auth);
    else
        snprintf(buf, len, "%s (%s: %s)", t->server, t->source, auth);
}
