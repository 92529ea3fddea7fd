/* kube_http.h - requests to the API server over libcurl: TLS and
 * credentials from the target, retries with exponential backoff and jitter
 * on connection errors, 5xx and 429 (honouring Retry-After), one credential
 * refresh on 401, answers bounded in size, server text scrubbed of secrets,
 * and a stop switch that interrupts transfers and waits at once from any
 * thread.
 *
 * One thread at a time makes requests; mk_khttp_stop may come from another. */
#ifndef MOKKA_KUBE_HTTP_H
#define MOKKA_KUBE_HTTP_H

#include <stddef.h>
#include "kube_log.h"
#include "kubeconfig.h"

/* The most a 200 answer's body may hold, decoded (a gzip answer counts as
 * it inflates): a LIST page of 500 nodes of 130 KB each. */
#define MK_KHTTP_ANSWER_MAX (64u << 20)

typedef struct mk_khttp mk_khttp;

typedef struct mk_kget {
    const char *path;        /* "/api/v1/nodes?..." */
    int watch;               /* counted as a watch, else as a list (GET) or a write */
    const char *method;      /* NULL: GET; "POST", "PUT", "PATCH", "DELETE" */
    const char *body;        /* sent with the method, or NULL */
    size_t body_len;
    const char *content_type;/* of the body; NULL: application/json */
    long timeout_s;          /* limit for one transfer; 0: none */
    long long deadline_ms;   /* no transfer, retry wait or plugin run goes past this
                                mk_kmono_ms(); 0: none */
    size_t max_body;         /* a 200 answer whose decoded body passes this many bytes
                                is refused (MK_KHTTP_FAIL); 0: no bound (a watch) */
    /* Receives the body of a 2xx answer piece by piece; returns 0 to go on,
     * -1 to end the transfer (mk_khttp_get then still returns 0). */
    int (*sink)(void *ctx, const char *data, size_t len);
    void *ctx;
} mk_kget;

/* mk_khttp_get's results besides 0 (an answer, with its HTTP status). */
enum {
    MK_KHTTP_FAIL = -1,      /* cannot work (TLS, credentials) or gave up at the deadline */
    MK_KHTTP_BROKEN = -2,    /* a 200 answer broke off; the caller decides what next */
    MK_KHTTP_STOPPED = -3    /* mk_khttp_stop was called */
};

typedef struct mk_khttp_counts {
    unsigned long lists, watches, writes, retries, credential_loads;
} mk_khttp_counts;

/* `t` must outlive the client. (Its owner warns when TLS is not verified:
 * once for all its connections.) */
mk_khttp *mk_khttp_new(const mk_ktarget *t, const mk_klog *log, char *err, size_t errlen);
void mk_khttp_free(mk_khttp *h);

/* One request. Transient failures are retried until req->deadline_ms
 * (writes too: a create that was in fact done answers 409 the second time,
 * which the caller reads as done); 401 is retried once with fresh
 * credentials. Other answers (200, 201, 410, 403, ...) return 0 with
 * *status set; for those that are not 2xx, err holds the API server's
 * message (scrubbed). */
int mk_khttp_get(mk_khttp *h, const mk_kget *req, long *status, char *err, size_t errlen);

/* The Status reason of the last answer that was not 2xx ("NotFound",
 * "AlreadyExists", "Conflict", "Invalid"), or "". */
const char *mk_khttp_reason(const mk_khttp *h);

/* Wait the next backoff delay (after a broken stream). Returns 0, or
 * MK_KHTTP_FAIL when deadline_ms (0: none) would come first (err, which must
 * not be `why`, says why and that), or MK_KHTTP_STOPPED. These steps are
 * the caller's: they grow across answers, 200s included (a stream that
 * breaks at once after each 200 backs off all the same), until
 * mk_khttp_backoff_reset says the work went well. */
int mk_khttp_backoff(mk_khttp *h, long long deadline_ms, const char *why, char *err, size_t errlen);
void mk_khttp_backoff_reset(mk_khttp *h);

/* Take every credential value out of text the server wrote before it goes
 * into a message (mk_kauth_scrub): `text` is NUL-terminated in `size` bytes. */
void mk_khttp_scrub(const mk_khttp *h, char *text, size_t size);

/* "LIST /api/v1/nodes", "WATCH /api/v1/nodes", "PUT /apis/...": a request
 * in messages, without its query (selectors, continue tokens). */
void mk_khttp_what(const mk_kget *req, char *buf, size_t len);

/* Interrupt any transfer or wait, now and for good. Thread-safe. */
void mk_khttp_stop(mk_khttp *h);

void mk_khttp_counts_get(const mk_khttp *h, mk_khttp_counts *out);

/* "https://host:6443 as user 'u' (token (redacted))": where and who, no secrets. */
void mk_khttp_describe(const mk_khttp *h, char *buf, size_t len);

/* Monotonic milliseconds, the clock of deadlines. */
long long mk_kmono_ms(void);

#endif
