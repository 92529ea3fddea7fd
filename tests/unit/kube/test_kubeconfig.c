/* test_kubeconfig.c - finding, merging and reading kubeconfigs, the
 * in-cluster fallback, and every error message (kubeconfig.c). */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kube/kubeconfig.h"
#include "support/testutil.h"

static char dir[256];
static mk_ktarget t;
static char err[2048];

static void setup(void)
{
    snprintf(dir, sizeof dir, "%s", mk_test_tmpdir("kubeconfig"));
    unsetenv("KUBECONFIG");
    unsetenv("KUBERNETES_SERVICE_HOST");
    unsetenv("KUBERNETES_SERVICE_PORT");
    unsetenv("MOKKA_SA_DIR");
    setenv("HOME", dir, 1);
    memset(&t, 0, sizeof t);
    err[0] = '\0';
}

static void teardown(void)
{
    mk_ktarget_free(&t);
}

/* Write dir/name (making its directory); returns the path (one of a few
 * static buffers, enough for a test). */
static const char *put(const char *name, const char *content)
{
    static char paths[8][512];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, 512, "%s/%s", dir, name);
    char *slash = strrchr(p, '/');
    *slash = '\0';
    mkdir(p, 0700);
    *slash = '/';
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    fclose(f);
    return p;
}

static const char *in_dir(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static int load(const char *path, const char *context)
{
    return mk_kubeconfig_load(path, context, &t, err, sizeof err);
}

#define ck_err_has(frag) ck_assert_msg(strstr(err, frag), "error '%s' lacks '%s'", err, frag)

static const char kc_main[] =
    "apiVersion: v1\n"
    "kind: Config\n"
    "current-context: kind-ci\n"
    "clusters:\n"
    "- name: kind-ci\n"
    "  cluster:\n"
    "    server: https://127.0.0.1:6443/\n"
    "    certificate-authority: certs/ca.crt\n"
    "    tls-server-name: kubernetes.default.svc\n"
    "    proxy-url: http://proxy.example:3128\n"
    "- name: other\n"
    "  cluster:\n"
    "    server: https://10.0.0.1:6443\n"
    "    insecure-skip-tls-verify: true\n"
    "contexts:\n"
    "- name: kind-ci\n"
    "  context: {cluster: kind-ci, user: admin, namespace: gpu}\n"
    "- name: other\n"
    "  context:\n"
    "    cluster: other\n"
    "users:\n"
    "- name: admin\n"
    "  user:\n"
    "    token: s3cr3t-token-value\n";

/* --- choosing and reading ------------------------------------------------------------ */

START_TEST(current_context_is_used)
{
    put("certs/ca.crt", "CA");
    const char *p = put("config", kc_main);
    ck_assert_int_eq(load(p, NULL), 0);
    ck_assert_str_eq(t.context, "kind-ci");
    ck_assert_str_eq(t.cluster, "kind-ci");
    ck_assert_str_eq(t.user, "admin");
    ck_assert_str_eq(t.server, "https://127.0.0.1:6443/");
    ck_assert_str_eq(t.ca_file, in_dir("certs/ca.crt"));   /* relative to the file */
    ck_assert_str_eq(t.tls_server_name, "kubernetes.default.svc");
    ck_assert_str_eq(t.proxy_url, "http://proxy.example:3128");
    ck_assert_str_eq(t.token, "s3cr3t-token-value");
    ck_assert_int_eq(t.insecure, 0);
    ck_assert_ptr_null(t.exec);
    ck_assert_ptr_nonnull(strstr(t.source, p));
}
END_TEST

START_TEST(context_flag_overrides)
{
    put("certs/ca.crt", "CA");
    ck_assert_int_eq(load(put("config", kc_main), "other"), 0);
    ck_assert_str_eq(t.context, "other");
    ck_assert_str_eq(t.server, "https://10.0.0.1:6443");
    ck_assert_int_eq(t.insecure, 1);
    ck_assert_ptr_null(t.user);           /* no user: no credentials */
    ck_assert_ptr_null(t.token);
}
END_TEST

START_TEST(home_kube_config_is_the_default)
{
    put(".kube/config", kc_main);
    put(".kube/certs/ca.crt", "CA");
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_str_eq(t.ca_file, in_dir(".kube/certs/ca.crt"));
}
END_TEST

START_TEST(json_kubeconfig_is_yaml_too)
{
    const char *p = put("kc.json",
        "{\"apiVersion\":\"v1\",\"current-context\":\"c\","
        "\"clusters\":[{\"name\":\"k\",\"cluster\":{\"server\":\"https://h:1\"}}],"
        "\"contexts\":[{\"name\":\"c\",\"context\":{\"cluster\":\"k\",\"user\":\"u\"}}],"
        "\"users\":[{\"name\":\"u\",\"user\":{\"username\":\"bob\",\"password\":\"pw\"}}]}");
    ck_assert_int_eq(load(p, NULL), 0);
    ck_assert_str_eq(t.username, "bob");
    ck_assert_str_eq(t.password, "pw");
}
END_TEST

START_TEST(empty_strings_are_unset)
{
    const char *p = put("config",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1', certificate-authority: '', proxy-url: ~}}]\n"
        "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
        "users: [{name: u, user: {token: '', tokenFile: null}}]\n");
    ck_assert_int_eq(load(p, NULL), 0);
    ck_assert_ptr_null(t.ca_file);
    ck_assert_ptr_null(t.proxy_url);
    ck_assert_ptr_null(t.token);
    ck_assert_ptr_null(t.token_file);
}
END_TEST

START_TEST(inline_data_is_decoded)
{
    /* "-----BEGIN CERTIFICATE-----\n" and friends, base64 with a line break. */
    const char *p = put("config",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1', certificate-authority-data: 'Q0EgUEVN'}}]\n"
        "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
        "users:\n"
        "- name: u\n"
        "  user:\n"
        "    client-certificate-data: \"Q0VS\\nVA==\"\n"
        "    client-key-data: S0VZIQ==\n");
    ck_assert_int_eq(load(p, NULL), 0);
    ck_assert_uint_eq(t.ca_data.len, 6);
    ck_assert_int_eq(memcmp(t.ca_data.data, "CA PEM", 6), 0);
    ck_assert_uint_eq(t.cert_data.len, 4);
    ck_assert_int_eq(memcmp(t.cert_data.data, "CERT", 4), 0);
    ck_assert_uint_eq(t.key_data.len, 4);
    ck_assert_int_eq(memcmp(t.key_data.data, "KEY!", 4), 0);
}
END_TEST

START_TEST(cert_and_token_files_resolve_relative)
{
    put("sub/client.crt", "C");
    put("sub/client.key", "K");
    put("sub/token", "T");
    const char *p = put("sub/config",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
        "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
        "users: [{name: u, user: {client-certificate: client.crt, client-key: ./client.key, tokenFile: token}}]\n");
    ck_assert_int_eq(load(p, NULL), 0);
    ck_assert_str_eq(t.cert_file, in_dir("sub/client.crt"));
    ck_assert_str_eq(t.key_file, in_dir("sub/./client.key"));
    ck_assert_str_eq(t.token_file, in_dir("sub/token"));
}
END_TEST

START_TEST(exec_plugin_is_read)
{
    const char *p = put("config",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
        "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
        "users:\n"
        "- name: u\n"
        "  user:\n"
        "    exec:\n"
        "      apiVersion: client.authentication.k8s.io/v1\n"
        "      command: bin/get-token\n"
        "      args: [--cluster, ci]\n"
        "      env: [{name: REGION, value: eu}, {name: EMPTY}]\n"
        "      installHint: install get-token\n"
        "      interactiveMode: Never\n"
        "      provideClusterInfo: true\n");
    ck_assert_int_eq(load(p, NULL), 0);
    ck_assert_ptr_nonnull(t.exec);
    ck_assert_str_eq(t.exec->command, in_dir("bin/get-token"));
    ck_assert_uint_eq(t.exec->nargs, 2);
    ck_assert_str_eq(t.exec->args[1], "ci");
    ck_assert_uint_eq(t.exec->nenv, 2);
    ck_assert_str_eq(t.exec->env[0], "REGION=eu");
    ck_assert_str_eq(t.exec->env[1], "EMPTY=");
    ck_assert_str_eq(t.exec->install_hint, "install get-token");
    ck_assert_int_eq(t.exec->provide_cluster_info, 1);
}
END_TEST

START_TEST(exec_bare_command_uses_path)
{
    const char *p = put("config",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
        "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
        "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}}}]\n");
    ck_assert_int_eq(load(p, NULL), 0);
    ck_assert_str_eq(t.exec->command, "aws");
}
END_TEST

/* --- merging $KUBECONFIG ------------------------------------------------------------- */

static const char kc_a[] =
    "clusters:\n"
    "- name: shared\n"
    "  cluster: {server: 'https://from-a:1'}\n"
    "contexts:\n"
    "- name: ctx\n"
    "  context: {cluster: shared, user: only-in-b}\n";

static const char kc_b[] =
    "current-context: ctx\n"
    "clusters:\n"
    "- name: shared\n"
    "  cluster: {server: 'https://from-b:1'}\n"
    "contexts:\n"
    "- name: ctx\n"
    "  context: {cluster: nowhere, user: nobody}\n"
    "users:\n"
    "- name: only-in-b\n"
    "  user: {username: ann, password: pw}\n";

START_TEST(merge_first_definition_wins)
{
    char env[1200];
    snprintf(env, sizeof env, "%s:%s", put("a", kc_a), put("b", kc_b));
    setenv("KUBECONFIG", env, 1);
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_str_eq(t.context, "ctx");              /* current-context from b, the first to set it */
    ck_assert_str_eq(t.server, "https://from-a:1");  /* cluster and context from a */
    ck_assert_str_eq(t.username, "ann");             /* user from b */
}
END_TEST

START_TEST(merge_current_context_from_first_file)
{
    char env[1200];
    const char *a = put("a",
        "current-context: mine\n"
        "clusters: [{name: k, cluster: {server: 'https://a:1'}}]\n"
        "contexts: [{name: mine, context: {cluster: k}}]\n");
    snprintf(env, sizeof env, "%s:%s", a, put("b", kc_b));
    setenv("KUBECONFIG", env, 1);
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_str_eq(t.context, "mine");
}
END_TEST

START_TEST(merge_skips_missing_files_and_empty_entries)
{
    char env[1200];
    put("certs/ca.crt", "CA");
    snprintf(env, sizeof env, "%s/missing::%s", dir, put("config", kc_main));
    setenv("KUBECONFIG", env, 1);
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_str_eq(t.context, "kind-ci");
}
END_TEST

START_TEST(merge_error_names_the_context_file)
{
    char env[1200];
    const char *a = put("a", kc_a);
    snprintf(env, sizeof env, "%s:%s", a, put("c",
        "current-context: ctx\n"
        "clusters: [{name: shared, cluster: {server: 'https://c:1'}}]\n"));
    setenv("KUBECONFIG", env, 1);
    ck_assert_int_eq(load(NULL, NULL), -1);
    char want[1024];
    snprintf(want, sizeof want, "kubeconfig %s: context 'ctx' names user 'only-in-b', which no file defines", a);
    ck_assert_str_eq(err, want);
}
END_TEST

/* --- in-cluster ---------------------------------------------------------------------- */

START_TEST(in_cluster_service_account)
{
    put("sa/token", "tok\n");
    put("sa/ca.crt", "CA");
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    setenv("MOKKA_SA_DIR", in_dir("sa"), 1);
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_str_eq(t.server, "https://10.96.0.1:443");
    ck_assert_str_eq(t.token_file, in_dir("sa/token"));
    ck_assert_str_eq(t.ca_file, in_dir("sa/ca.crt"));
    ck_assert_ptr_null(t.context);
    ck_assert_ptr_nonnull(strstr(t.source, "in-cluster"));
}
END_TEST

START_TEST(in_cluster_ipv6)
{
    put("sa/token", "tok");
    put("sa/ca.crt", "CA");
    setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "6443", 1);
    setenv("MOKKA_SA_DIR", in_dir("sa"), 1);
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_str_eq(t.server, "https://[fd00::1]:6443");
}
END_TEST

START_TEST(in_cluster_without_token)
{
    put("sa/ca.crt", "CA");
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    setenv("MOKKA_SA_DIR", in_dir("sa"), 1);
    ck_assert_int_eq(load(NULL, NULL), -1);
    ck_err_has("in-cluster config: ");
    ck_err_has("sa/token: No such file or directory");
}
END_TEST

START_TEST(a_kubeconfig_wins_over_in_cluster)
{
    put(".kube/config", kc_main);
    put(".kube/certs/ca.crt", "CA");
    setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1", 1);
    setenv("KUBERNETES_SERVICE_PORT", "443", 1);
    ck_assert_int_eq(load(NULL, NULL), 0);
    ck_assert_str_eq(t.context, "kind-ci");
}
END_TEST

/* --- errors -------------------------------------------------------------------------- */

START_TEST(err_nothing_found)
{
    ck_assert_int_eq(load(NULL, NULL), -1);
    ck_err_has("no cluster to talk to: --kubeconfig not given, $KUBECONFIG unset, ");
    ck_err_has("/.kube/config not found, and not running in a cluster (KUBERNETES_SERVICE_HOST unset)");
}
END_TEST

START_TEST(err_kubeconfig_env_all_missing)
{
    setenv("KUBECONFIG", "/nonexistent/a:/nonexistent/b", 1);
    ck_assert_int_eq(load(NULL, NULL), -1);
    ck_err_has("none of $KUBECONFIG (/nonexistent/a:/nonexistent/b) exists");
}
END_TEST

START_TEST(err_context_without_kubeconfig)
{
    ck_assert_int_eq(load(NULL, "prod"), -1);
    ck_err_has("--context 'prod' given, but no kubeconfig was found");
}
END_TEST

START_TEST(err_explicit_file_missing)
{
    ck_assert_int_eq(load("/nonexistent/kc", NULL), -1);
    ck_assert_str_eq(err, "kubeconfig /nonexistent/kc: No such file or directory");
}
END_TEST

START_TEST(err_yaml_syntax)
{
    const char *p = put("config", "clusters:\n- name: a\n  cluster: [unclosed\n");
    ck_assert_int_eq(load(p, NULL), -1);
    char want[600];
    snprintf(want, sizeof want, "kubeconfig %s:4:1: ", p);
    ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "error '%s'", err);
}
END_TEST

/* A kubeconfig goes through the loader configs use, with its limits: half a
 * megabyte nested 125,000 deep (which kept `mokka assert --timeout 5s`
 * loading it for minutes) stops at the 257th level, named with its place. */
START_TEST(err_deep_nesting_stops_early)
{
    size_t depth = 125000;
    char *text = malloc(depth * 5 + 64);
    ck_assert_ptr_nonnull(text);
    size_t n = (size_t)sprintf(text, "apiVersion: v1\nclusters: ");
    for (size_t i = 0; i < depth; i++, n += 4)
        memcpy(text + n, "{a: ", 4);
    memset(text + n, '}', depth);
    text[n + depth] = '\0';
    const char *p = put("config", text);
    free(text);
    ck_assert_int_eq(load(p, NULL), -1);
    char want[600];
    /* The top-level map is the first level, clusters' value the second. */
    snprintf(want, sizeof want, "kubeconfig %s:2:1031: nested deeper than 256 levels (the limit)", p);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(err_limits_and_duplicates)
{
    const char *p = put("config", "current-context: a\nclusters: []\ncurrent-context: b\n");
    char want[600];
    ck_assert_int_eq(load(p, NULL), -1);
    snprintf(want, sizeof want, "kubeconfig %s:3:1: duplicate key 'current-context' (first at line 1)", p);
    ck_assert_str_eq(err, want);

    p = put("config", "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
            "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n");
    ck_assert_int_eq(load(p, NULL), -1);
    snprintf(want, sizeof want, "kubeconfig %s:6:36: alias *e expands the document past 1000000 nodes (the limit)", p);
    ck_assert_str_eq(err, want);

    p = put("config", "");
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(ftruncate(fileno(f), (16 << 20) + 1), 0);
    fclose(f);
    ck_assert_int_eq(load(p, NULL), -1);
    snprintf(want, sizeof want, "kubeconfig %s: larger than 16 MiB, the most a YAML file may be", p);
    ck_assert_str_eq(err, want);
}
END_TEST

/* A table of broken kubeconfigs and the message each must produce. The
 * file's own path precedes each message; %s in `want` stands for it. */
static const struct {
    const char *yaml;
    const char *context;
    const char *want;
} broken[] = {
    { "kind: Config\n", NULL,
      "kubeconfig %s: no current-context is set and no --context was given" },
    { "- a list\n", NULL,
      "kubeconfig %s:1: top level: a kubeconfig is a mapping (apiVersion, clusters, users, contexts)" },
    { "clusters: {a: b}\n", NULL, "kubeconfig %s:1: clusters: must be a list" },
    { "users:\n- user: {}\n", NULL, "kubeconfig %s:2: users: an entry has no name" },
    { "contexts:\n- just-a-string\n", NULL,
      "kubeconfig %s:2: contexts: each entry must be a mapping with a name" },
    { "current-context: [x]\n", NULL, "kubeconfig %s:1: top level: current-context must be a string" },
    { "contexts: [{name: c, context: {cluster: k}}]\n", "missing", "kubeconfig %s: no context named 'missing'" },
    { "current-context: gone\n", NULL,
      "kubeconfig %s: current-context 'gone' names a context which no file defines" },
    { "current-context: c\ncontexts: [{name: c}]\n", NULL,
      "kubeconfig %s:2: context 'c': has no 'context' mapping" },
    { "current-context: c\ncontexts: [{name: c, context: {user: u}}]\n", NULL,
      "kubeconfig %s: context 'c' names no cluster" },
    { "current-context: kind-ci\ncontexts: [{name: kind-ci, context: {cluster: kind, user: admin}}]\n", NULL,
      "kubeconfig %s: context 'kind-ci' names cluster 'kind', which no file defines" },
    { "current-context: kind-ci\n"
      "clusters: [{name: kind, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: kind-ci, context: {cluster: kind, user: admin}}]\n", NULL,
      "kubeconfig %s: context 'kind-ci' names user 'admin', which no file defines" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {insecure-skip-tls-verify: true}}]\n"
      "contexts: [{name: c, context: {cluster: k}}]\n", NULL,
      "kubeconfig %s: cluster 'k' has no server" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: [a]}}]\n"
      "contexts: [{name: c, context: {cluster: k}}]\n", NULL,
      "kubeconfig %s:2: cluster 'k': server must be a string" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1', insecure-skip-tls-verify: maybe}}]\n"
      "contexts: [{name: c, context: {cluster: k}}]\n", NULL,
      "kubeconfig %s:2: cluster 'k': insecure-skip-tls-verify must be true or false, not 'maybe'" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1', insecure-skip-tls-verify: true,"
      " certificate-authority-data: Q0E=}}]\n"
      "contexts: [{name: c, context: {cluster: k}}]\n", NULL,
      "kubeconfig %s: cluster 'k': certificate-authority and insecure-skip-tls-verify are both set; "
      "only one is allowed" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1', certificate-authority-data: 'not base64!'}}]\n"
      "contexts: [{name: c, context: {cluster: k}}]\n", NULL,
      "kubeconfig %s:2: cluster 'k': certificate-authority-data is not valid base64" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: [1]}]\n", NULL,
      "kubeconfig %s:4: user 'u': 'user' must be a mapping" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]\n", NULL,
      "kubeconfig %s: user 'u': a client certificate needs a client key and the other way round" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {client-key-data: 'S0VZ!'}}]\n", NULL,
      "kubeconfig %s:4: user 'u': client-key-data is not valid base64" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {token: top-secret-1, username: bob, password: top-secret-2}}]\n", NULL,
      "kubeconfig %s: user 'u': a token and username/password are both set; only one is allowed" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {username: bob, exec: {command: x}}}]\n", NULL,
      "kubeconfig %s: user 'u': an exec plugin and username/password are both set; only one is allowed" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {auth-provider: {name: gcp}}}]\n", NULL,
      "kubeconfig %s:4: user 'u': auth-provider 'gcp' is not supported (kubectl dropped its built-in "
      "providers too); use an exec credential plugin" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1}}}]\n", NULL,
      "kubeconfig %s:4: user 'u': exec has no command" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1alpha1, command: x}}}]\n", NULL,
      "kubeconfig %s:4: user 'u': exec apiVersion 'client.authentication.k8s.io/v1alpha1' is not supported "
      "(use client.authentication.k8s.io/v1 or v1beta1)" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: x}}}]\n", NULL,
      "kubeconfig %s:4: user 'u': exec interactiveMode must be set for apiVersion "
      "client.authentication.k8s.io/v1 (Never or IfAvailable)" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: x,"
      " interactiveMode: Always}}}]\n", NULL,
      "kubeconfig %s:4: user 'u': exec interactiveMode is Always, but mokka runs plugins without a "
      "terminal (use Never or IfAvailable)" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: x,"
      " args: x}}}]\n", NULL,
      "kubeconfig %s:4: user 'u': exec args must be a list of strings" },
    { "current-context: c\n"
      "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
      "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
      "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: x,"
      " env: [{value: v}]}}}]\n", NULL,
      "kubeconfig %s:4: user 'u': exec env entries need a name" },
};

START_TEST(err_table)
{
    const char *p = put("config", broken[_i].yaml);
    char want[2048];
    ck_assert_int_eq(load(p, broken[_i].context), -1);
    snprintf(want, sizeof want, broken[_i].want, p);
    ck_assert_str_eq(err, want);
    ck_assert_ptr_null(strstr(err, "top-secret"));
}
END_TEST

START_TEST(err_unreadable_file_names_path)
{
    const char *p = put("config",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1', certificate-authority: ca/missing.crt}}]\n"
        "contexts: [{name: c, context: {cluster: k}}]\n");
    ck_assert_int_eq(load(p, NULL), -1);
    char want[1024];
    snprintf(want, sizeof want, "kubeconfig %s: cluster 'k': certificate-authority %s/ca/missing.crt: "
             "No such file or directory", p, dir);
    ck_assert_str_eq(err, want);
}
END_TEST

START_TEST(err_file_and_data_both)
{
    put("c.crt", "C");
    const char *p = put("config",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1'}}]\n"
        "contexts: [{name: c, context: {cluster: k, user: u}}]\n"
        "users: [{name: u, user: {client-certificate: c.crt, client-certificate-data: Q0VSVA==,"
        " client-key-data: S0VZIQ==}}]\n");
    ck_assert_int_eq(load(p, NULL), -1);
    ck_err_has("user 'u': both a file and inline data are set for the client certificate or key");
}
END_TEST

START_TEST(unused_broken_entries_do_not_matter)
{
    /* client-go validates only the context in use; so do we. */
    const char *p = put("config",
        "current-context: c\n"
        "clusters: [{name: k, cluster: {server: 'https://h:1'}}, {name: bad, cluster: {server: [x]}}]\n"
        "contexts: [{name: c, context: {cluster: k}}, {name: d, context: {cluster: nowhere}}]\n"
        "users: [{name: other, user: {auth-provider: {name: oidc}}}]\n");
    ck_assert_int_eq(load(p, NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kubeconfig");
    TCase *tc = tcase_create("load");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, current_context_is_used);
    tcase_add_test(tc, context_flag_overrides);
    tcase_add_test(tc, home_kube_config_is_the_default);
    tcase_add_test(tc, json_kubeconfig_is_yaml_too);
    tcase_add_test(tc, empty_strings_are_unset);
    tcase_add_test(tc, inline_data_is_decoded);
    tcase_add_test(tc, cert_and_token_files_resolve_relative);
    tcase_add_test(tc, exec_plugin_is_read);
    tcase_add_test(tc, exec_bare_command_uses_path);
    tcase_add_test(tc, merge_first_definition_wins);
    tcase_add_test(tc, merge_current_context_from_first_file);
    tcase_add_test(tc, merge_skips_missing_files_and_empty_entries);
    tcase_add_test(tc, merge_error_names_the_context_file);
    tcase_add_test(tc, in_cluster_service_account);
    tcase_add_test(tc, in_cluster_ipv6);
    tcase_add_test(tc, in_cluster_without_token);
    tcase_add_test(tc, a_kubeconfig_wins_over_in_cluster);
    tcase_add_test(tc, err_nothing_found);
    tcase_add_test(tc, err_kubeconfig_env_all_missing);
    tcase_add_test(tc, err_context_without_kubeconfig);
    tcase_add_test(tc, err_explicit_file_missing);
    tcase_add_test(tc, err_yaml_syntax);
    tcase_add_test(tc, err_deep_nesting_stops_early);
    tcase_add_test(tc, err_limits_and_duplicates);
    tcase_add_loop_test(tc, err_table, 0, (int)(sizeof broken / sizeof broken[0]));
    tcase_add_test(tc, err_unreadable_file_names_path);
    tcase_add_test(tc, err_file_and_data_both);
    tcase_add_test(tc, unused_broken_entries_do_not_matter);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
