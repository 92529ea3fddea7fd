/* kubeconfig.h - which API server to talk to and with what credentials:
 * kubeconfig files found and merged the way kubectl (client-go) does it, or
 * the in-cluster service account. The result, mk_ktarget, is plain data that
 * kube_auth.c and kube_http.c turn into requests. */
#ifndef MOKKA_KUBECONFIG_H
#define MOKKA_KUBECONFIG_H

#include <stddef.h>

/* Bytes decoded from a kubeconfig's *-data field (PEM). */
typedef struct mk_kblob {
    unsigned char *data;
    size_t len;
} mk_kblob;

/* An exec credential plugin (users[].user.exec). */
typedef struct mk_kexec {
    char *api_version;        /* client.authentication.k8s.io/v1 or /v1beta1 */
    char *command;            /* made absolute when relative and containing '/' */
    char **args;
    size_t nargs;
    char **env;               /* "NAME=value", added to mokka's environment */
    size_t nenv;
    char *install_hint;       /* shown when the command cannot be run */
    int provide_cluster_info; /* pass the cluster in KUBERNETES_EXEC_INFO */
} mk_kexec;

typedef struct mk_ktarget {
    char *source;        /* "kubeconfig /a/b" or "in-cluster config (dir)": for messages */
    char *context;       /* names as the kubeconfig spells them; NULL in-cluster */
    char *cluster;
    char *user;
    /* The cluster. Paths are absolute. */
    char *server;        /* https://host:port[/prefix] */
    char *ca_file;       /* certificate-authority */
    mk_kblob ca_data;    /* certificate-authority-data */
    int insecure;        /* insecure-skip-tls-verify */
    char *tls_server_name;
    char *proxy_url;
    /* The user: at most one of token/token_file, username/password, exec. */
    char *cert_file, *key_file;     /* client-certificate, client-key */
    mk_kblob cert_data, key_data;   /* client-certificate-data, client-key-data */
    char *token;
    char *token_file;    /* tokenFile, or the service account's token */
    char *username, *password;
    mk_kexec *exec;
} mk_ktarget;

/* Find, load and merge kubeconfigs and pick the context:
 *   path       --kubeconfig, else $KUBECONFIG (a ':' list), else ~/.kube/config,
 *              else the in-cluster service account (KUBERNETES_SERVICE_HOST,
 *              KUBERNETES_SERVICE_PORT, $MOKKA_SA_DIR or
 *              /var/run/secrets/kubernetes.io/serviceaccount);
 *   context    --context, else current-context.
 * Returns 0, or -1 with an error naming the file and the object at fault.
 * Secrets never appear in errors. */
int mk_kubeconfig_load(const char *path, const char *context, mk_ktarget *out,
                       char *err, size_t errlen);
void mk_ktarget_free(mk_ktarget *t);

#endif
