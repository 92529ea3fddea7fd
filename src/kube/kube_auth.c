/* kube_auth.c - credentials for API requests: fixed tokens, token files
 * re-read as they rotate (the service account token is one), and exec
 * credential plugins (kube_exec.c) cached until they expire or a 401 says
 * so; and which secrets mk_kauth_scrub takes out of text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kube_auth.h"
#include "kube_scrub.h"

/* client-go re-reads token files once a minute (kubelet rotates projected
 * service account tokens well before they expire). */
#define TOKEN_REREAD_S 60

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
        int bad = n < 0 || mk_kbase64(&b, &a->basic_b64);
        if (n >= 0)
            free(pair);
        if (bad) {
            mk_kauth_free(a);
            return NULL;
        }
    }
    return a;
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

/* The plugin's stderr as warnings, a line each, with every secret known by
 * now (its new credential too) scrubbed: kubectl shows it, and a plugin
 * that fails says why there. */
static void relay_stderr(mk_kauth *a, mk_kexec_stderr *e)
{
    mk_kauth_scrub(a, e->text, sizeof e->text);
    for (char *line = e->text, *next; line && *line; line = next) {
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
    mk_kexec_stderr *e = malloc(sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = mk_kexec_run(a->t, a->stop, deadline_ms, &out, &len, e, err, errlen);
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
/* --- secrets in text ------------------------------------------------------------- */

void mk_kauth_scrub(const mk_kauth *a, char *text, size_t size)
{
    const mk_ktarget *t = a->t;
    mk_ksecrets sec = { .n = 0 };
    mk_ksecrets_add(&sec, t->token);
    mk_ksecrets_add(&sec, t->password);
    mk_ksecrets_add(&sec, a->basic_b64);
    mk_ksecrets_add(&sec, a->file_token);
    mk_ksecrets_add(&sec, a->prev_token);
    mk_ksecrets_add(&sec, a->cred.token);
    mk_ksecrets_add_pem(&sec, (const char *)a->cred.key.data, a->cred.key.len);
    mk_ksecrets_add_pem(&sec, (const char *)t->key_data.data, t->key_data.len);
    mk_kscrub(text, size, &sec);
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
