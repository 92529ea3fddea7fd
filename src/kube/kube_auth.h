/* kube_auth.h - the credentials a request carries: a bearer token (fixed, or
 * read from a file that rotates), or what an exec credential plugin returns;
 * client certificates from inline data or a plugin. (Basic auth and
 * certificate files need no state: kube_http.c takes them from the target.)
 *
 * One thread at a time uses an mk_kauth (the watch thread, or the opener
 * before it starts). Secrets never appear in errors or descriptions, and
 * mk_kauth_scrub takes them out of text that others wrote (the API server's
 * messages, libcurl's errors, a plugin's stderr). */
#ifndef MOKKA_KUBE_AUTH_H
#define MOKKA_KUBE_AUTH_H

#include <stdatomic.h>
#include <stddef.h>
#include "kube_exec.h"
#include "kube_log.h"
#include "kubeconfig.h"

typedef struct mk_kauth mk_kauth;

/* What to send with the next request; valid until the next call. */
typedef struct mk_kcred {
    const char *token;           /* bearer token, or NULL */
    const mk_kblob *cert, *key;  /* client certificate and key (PEM) from inline
                                    data or a plugin, or NULL */
} mk_kcred;

/* `t` must outlive the mk_kauth. A plugin still running when *stop becomes
 * nonzero is killed. What a plugin prints on stderr goes to `log` as
 * warnings once it ended, scrubbed (its new credential included). */
mk_kauth *mk_kauth_new(const mk_ktarget *t, const atomic_int *stop, const mk_klog *log);
void mk_kauth_free(mk_kauth *a);

/* Credentials for the next request: reads the token file when it was last
 * read a minute ago or more, runs the plugin when its credential expired (a
 * plugin still running at deadline_ms, a mk_kmono_ms() time, is killed; 0:
 * no deadline but the plugin's own minute). Returns 0, or -1 with err. */
int mk_kauth_get(mk_kauth *a, long long deadline_ms, mk_kcred *out, char *err, size_t errlen);

/* The API server answered 401. Returns 1 when fresh credentials may help
 * (token file re-read, plugin re-run on the next mk_kauth_get), else 0. */
int mk_kauth_rejected(mk_kauth *a);

/* Replace every credential value this client knows in the NUL-terminated
 * `text` (a buffer of `size` bytes) with "(redacted)": the token, the token
 * file's and the plugin's tokens (this one and the one before), the plugin's
 * and the kubeconfig's client key (PEM lines), the basic-auth password and
 * its "user:password" in base64 (what an Authorization: Basic header shows).
 * Apply it to any text from the server or a plugin that goes into a message. */
void mk_kauth_scrub(const mk_kauth *a, char *text, size_t size);

/* "client certificate, token from /x (redacted)": how we authenticate. */
void mk_kauth_describe(const mk_kauth *a, char *buf, size_t len);

/* How many times the plugin ran or the token file was read. */
unsigned long mk_kauth_loads(const mk_kauth *a);

#endif
