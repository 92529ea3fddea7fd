/* kube_exec.h - exec credential plugins (users[].user.exec,
 * client.authentication.k8s.io v1 and v1beta1): running one the way
 * client-go does, and reading the ExecCredential it prints. kube_auth.c
 * decides when to run it and keeps what it returned. */
#ifndef MOKKA_KUBE_EXEC_H
#define MOKKA_KUBE_EXEC_H

#include <stdatomic.h>
#include <stddef.h>
#include <time.h>
#include "kubeconfig.h"

/* Of what a plugin prints on stderr, what is kept; the rest is read and
 * dropped, so that a chatty plugin never blocks on a full pipe. */
#define MK_KEXEC_STDERR_MAX 16384

typedef struct mk_kexec_stderr {
    char text[MK_KEXEC_STDERR_MAX + 1];   /* NUL-terminated */
    size_t len;
} mk_kexec_stderr;

/* Run t->exec with its args and env, KUBERNETES_EXEC_INFO, stdin from
 * /dev/null. Returns 0 with its stdout in *out (malloc'd, *len bytes) once
 * it exited with status 0; else -1 with err (never quoting its output). It
 * is killed when *stop becomes nonzero, at deadline_ms (a mk_kmono_ms()
 * time; 0: none) or after a minute, whichever comes first. Its stderr is
 * in *e either way. */
int mk_kexec_run(const mk_ktarget *t, const atomic_int *stop, long long deadline_ms,
                 char **out, size_t *len, mk_kexec_stderr *e, char *err, size_t errlen);

typedef struct mk_kexec_cred {
    char *token;
    mk_kblob cert, key;    /* clientCertificateData, clientKeyData (PEM) */
    time_t expiry;         /* expirationTimestamp; 0: does not expire */
} mk_kexec_cred;

/* Parse a plugin's ExecCredential, which must carry `api_version`. Errors
 * quote no more of the output than its kind, apiVersion or expiry, with
 * the output's own token and key scrubbed from them. */
int mk_kexec_parse(const char *json, size_t len, const char *api_version, const char *cmd,
                   mk_kexec_cred *out, char *err, size_t errlen);
void mk_kexec_cred_free(mk_kexec_cred *c);

/* RFC 3339 ("2024-05-01T10:00:00Z", with fraction or offset) to time_t. */
int mk_krfc3339(const char *s, time_t *out);

/* Base64 of b, malloc'd (NUL-terminated); 0, or -1 out of memory. */
int mk_kbase64(const mk_kblob *b, char **out);

#endif
