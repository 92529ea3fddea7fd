/* test_kube_auth.c - credentials (kube_auth.c): ExecCredential parsing,
 * running exec plugins (environment, caching, expiry, 401, the caller's
 * deadline, their stderr relayed), token files, that secrets never show in
 * errors or descriptions, and that mk_kauth_scrub takes every credential
 * value out of others' text. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kube/kube_auth.h"
#include "support/testutil.h"

#define V1 "client.authentication.k8s.io/v1"
#define V1B1 "client.authentication.k8s.io/v1beta1"

static char dir[256];
static char err[2048];
static atomic_int stop;

static void setup(void)
{
    snprintf(dir, sizeof dir, "%s", mk_test_tmpdir("kube-auth"));
    atomic_store(&stop, 0);
    err[0] = '\0';
}

static const char *path_of(const char *name)
{
    static char p[4][512];
    static int next;
    char *s = p[next++ % 4];
    snprintf(s, 512, "%s/%s", dir, name);
    return s;
}

static void put(const char *name, const char *content, int mode)
{
    const char *p = path_of(name);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    fclose(f);
    chmod(p, (mode_t)mode);
}

static char *slurp(const char *name)
{
    static char buf[8192];
    FILE *f = fopen(path_of(name), "r");
    if (!f)
        return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* --- ExecCredential ---------------------------------------------------------------- */

static int parse(const char *json, const char *api, mk_kexec_cred *c)
{
    return mk_kexec_parse(json, strlen(json), api, "get-token", c, err, sizeof err);
}

START_TEST(exec_parse_token_and_expiry)
{
    mk_kexec_cred c;
    ck_assert_int_eq(parse("{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":"
                           "{\"token\":\"abc\",\"expirationTimestamp\":\"2024-05-01T10:00:00Z\"}}", V1, &c), 0);
    ck_assert_str_eq(c.token, "abc");
    ck_assert_int_eq(c.expiry, 1714557600);
    ck_assert_ptr_null(c.cert.data);
    mk_kexec_cred_free(&c);
}
END_TEST

START_TEST(exec_parse_v1beta1_cert)
{
    mk_kexec_cred c;
    ck_assert_int_eq(parse("{\"apiVersion\":\"" V1B1 "\",\"kind\":\"ExecCredential\",\"status\":"
                           "{\"clientCertificateData\":\"CERT PEM\",\"clientKeyData\":\"KEY PEM\"}}", V1B1, &c), 0);
    ck_assert_ptr_null(c.token);
    ck_assert_uint_eq(c.cert.len, 8);
    ck_assert_int_eq(memcmp(c.cert.data, "CERT PEM", 8), 0);
    ck_assert_int_eq(memcmp(c.key.data, "KEY PEM", 7), 0);
    ck_assert_int_eq(c.expiry, 0);
    mk_kexec_cred_free(&c);
}
END_TEST

static const struct {
    const char *json;
    const char *want;
} bad_creds[] = {
    { "token: sekrit-value", "exec plugin 'get-token' printed something that is not JSON (line 1, column " },
    { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"sekrit-value\"}",
      "exec plugin 'get-token' printed something that is not JSON" },
    { "{\"apiVersion\":\"" V1 "\",\"kind\":\"Secret\",\"status\":{\"token\":\"sekrit-value\"}}",
      "exec plugin 'get-token' returned kind 'Secret', not ExecCredential" },
    { "{\"apiVersion\":\"" V1 "\",\"kind\":\"sekrit-value\",\"status\":{\"token\":\"sekrit-value\"}}",
      "exec plugin 'get-token' returned kind '(redacted)', not ExecCredential" },
    { "{\"apiVersion\":\"" V1B1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"sekrit-value\"}}",
      "exec plugin 'get-token' returned apiVersion '" V1B1 "', but the kubeconfig asks for '" V1 "'" },
    { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\"}", "exec plugin 'get-token' returned no status" },
    { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"clientCertificateData\":\"C\"}}",
      "exec plugin 'get-token' returned a client certificate without its key, or a key without its certificate" },
    { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"\"}}",
      "exec plugin 'get-token' returned neither a token nor a client certificate and key" },
    { "{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"sekrit-value\","
      "\"expirationTimestamp\":\"tomorrow\"}}",
      "exec plugin 'get-token' returned expirationTimestamp 'tomorrow', which is not RFC 3339" },
};

START_TEST(exec_parse_errors)
{
    mk_kexec_cred c;
    ck_assert_int_eq(parse(bad_creds[_i].json, V1, &c), -1);
    ck_assert_msg(strncmp(err, bad_creds[_i].want, strlen(bad_creds[_i].want)) == 0,
                  "error '%s', want '%s'", err, bad_creds[_i].want);
    ck_assert_ptr_null(strstr(err, "sekrit"));
    ck_assert_ptr_null(c.token);
}
END_TEST

static const struct {
    const char *in;
    long long want;    /* -1: invalid */
} times[] = {
    { "2024-05-01T10:00:00Z", 1714557600 },
    { "2024-05-01T10:00:00.123456Z", 1714557600 },
    { "2024-05-01T12:00:00+02:00", 1714557600 },
    { "2024-05-01T04:30:00-05:30", 1714557600 },
    { "2024-05-01t10:00:00z", -1 },
    { "2024-05-01T10:00:00", -1 },
    { "2024-05-01T10:00:00Zjunk", -1 },
    { "2024-05-01", -1 },
    { "", -1 },
};

START_TEST(rfc3339)
{
    time_t t = 0;
    int rc = mk_krfc3339(times[_i].in, &t);
    if (times[_i].want < 0) {
        ck_assert_msg(rc == -1, "'%s' accepted", times[_i].in);
    } else {
        ck_assert_msg(rc == 0, "'%s' rejected", times[_i].in);
        ck_assert_int_eq((long long)t, times[_i].want);
    }
}
END_TEST

/* --- running plugins ---------------------------------------------------------------- */

/* A plugin that counts its runs, records its arguments and environment, and
 * answers with token "tok-<run>" (and `extra` in status). */
static void write_plugin(const char *api, const char *extra)
{
    char script[2048];
    snprintf(script, sizeof script,
             "#!/bin/sh\n"
             "n=$(cat \"$DIR/count\" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \"$DIR/count\"\n"
             "printf '%%s\\n' \"$KUBERNETES_EXEC_INFO\" > \"$DIR/info\"\n"
             "printf '%%s|%%s|%%s\\n' \"$1\" \"$2\" \"$REGION\" > \"$DIR/args\"\n"
             "echo '{\"apiVersion\":\"%s\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"tok-'$n'\"%s}}'\n",
             api, extra);
    put("plugin", script, 0755);
}

typedef struct {
    mk_ktarget t;
    mk_kexec x;
    char *args[2];
    char *env[2];
    char envdir[600];
} plugin_target;

static void plugin_setup(plugin_target *p, const char *api)
{
    memset(p, 0, sizeof *p);
    snprintf(p->envdir, sizeof p->envdir, "DIR=%s", dir);
    p->args[0] = "--cluster";
    p->args[1] = "ci one";
    p->env[0] = p->envdir;
    p->env[1] = "REGION=eu-west";
    p->x.api_version = (char *)api;
    p->x.command = (char *)path_of("plugin");
    p->x.args = p->args;
    p->x.nargs = 2;
    p->x.env = p->env;
    p->x.nenv = 2;
    p->t.server = "https://10.0.0.1:6443";
    p->t.user = "ci";
    p->t.source = "kubeconfig /x";
    p->t.exec = &p->x;
}

START_TEST(plugin_runs_with_args_and_env_and_is_cached)
{
    plugin_target p;
    mk_kcred c;
    write_plugin(V1, "");
    plugin_setup(&p, V1);
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);

    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_str_eq(c.token, "tok-1");
    ck_assert_str_eq(slurp("args"), "--cluster|ci one|eu-west\n");
    ck_assert_str_eq(slurp("info"), "{\"kind\":\"ExecCredential\",\"apiVersion\":\"" V1 "\","
                                    "\"spec\":{\"interactive\":false}}\n");
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);    /* cached: no expiry */
    ck_assert_str_eq(c.token, "tok-1");
    ck_assert_str_eq(slurp("count"), "1\n");

    ck_assert_int_eq(mk_kauth_rejected(a), 1);                    /* a 401: run again */
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_str_eq(c.token, "tok-2");
    ck_assert_uint_eq(mk_kauth_loads(a), 2);
    mk_kauth_free(a);
}
END_TEST

START_TEST(plugin_reruns_when_expired)
{
    plugin_target p;
    mk_kcred c;
    write_plugin(V1B1, ",\"expirationTimestamp\":\"2000-01-01T00:00:00Z\"");
    plugin_setup(&p, V1B1);
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_str_eq(c.token, "tok-2");
    mk_kauth_free(a);
}
END_TEST

START_TEST(plugin_gets_cluster_info_when_asked)
{
    plugin_target p;
    mk_kcred c;
    unsigned char ca[] = "CA!";
    write_plugin(V1, "");
    plugin_setup(&p, V1);
    p.x.provide_cluster_info = 1;
    p.t.ca_data = (mk_kblob){ ca, 3 };
    p.t.tls_server_name = "kubernetes.default.svc";
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    const char *info = slurp("info");
    ck_assert_ptr_nonnull(strstr(info, "\"cluster\":{"));
    ck_assert_ptr_nonnull(strstr(info, "\"server\":\"https://10.0.0.1:6443\""));
    ck_assert_ptr_nonnull(strstr(info, "\"certificate-authority-data\":\"Q0Eh\""));
    ck_assert_ptr_nonnull(strstr(info, "\"tls-server-name\":\"kubernetes.default.svc\""));
    ck_assert_ptr_nonnull(strstr(info, "\"insecure-skip-tls-verify\":false"));
    mk_kauth_free(a);
}
END_TEST

START_TEST(plugin_certificate_is_used)
{
    plugin_target p;
    mk_kcred c;
    write_plugin(V1, ",\"clientCertificateData\":\"PLUGIN CERT\",\"clientKeyData\":\"PLUGIN KEY\"");
    plugin_setup(&p, V1);
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_ptr_nonnull(c.cert);
    ck_assert_int_eq(memcmp(c.cert->data, "PLUGIN CERT", 11), 0);
    ck_assert_int_eq(memcmp(c.key->data, "PLUGIN KEY", 10), 0);
    mk_kauth_free(a);
}
END_TEST

/* The warnings a plugin's stderr became, one line each. */
static char logged[4096];
static void log_line(void *ctx, int warning, const char *msg)
{
    size_t n = strlen(logged);
    snprintf(logged + n, sizeof logged - n, "%s%s\n", warning ? "warning: " : "", msg);
}
static const mk_klog test_log = { .fn = log_line };

START_TEST(plugin_failure_says_how)
{
    plugin_target p;
    mk_kcred c;
    char want[1024];
    put("plugin", "#!/bin/sh\necho 'plugin: cannot reach the identity provider' >&2\nexit 3\n", 0755);
    plugin_setup(&p, V1);
    logged[0] = '\0';
    mk_kauth *a = mk_kauth_new(&p.t, &stop, &test_log);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), -1);
    snprintf(want, sizeof want, "exec plugin '%s' (user 'ci') exited with status 3", path_of("plugin"));
    ck_assert_str_eq(err, want);
    snprintf(want, sizeof want, "warning: exec plugin '%s': plugin: cannot reach the identity provider\n",
             path_of("plugin"));
    ck_assert_str_eq(logged, want);
    mk_kauth_free(a);
}
END_TEST

/* What a plugin prints on stderr is relayed once it ended, with the token
 * it returned scrubbed; more than 16 KiB of it cannot block it. */
START_TEST(plugin_stderr_is_relayed_scrubbed)
{
    plugin_target p;
    mk_kcred c;
    char want[1024];
    put("plugin", "#!/bin/sh\n"
        "echo 'minted plugin-sekrit-77 for you' >&2\n"
        "head -c 200000 /dev/zero | tr '\\0' x >&2\n"
        "echo '{\"apiVersion\":\"" V1 "\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"plugin-sekrit-77\"}}'\n",
        0755);
    plugin_setup(&p, V1);
    logged[0] = '\0';
    mk_kauth *a = mk_kauth_new(&p.t, &stop, &test_log);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_str_eq(c.token, "plugin-sekrit-77");
    snprintf(want, sizeof want, "warning: exec plugin '%s': minted (redacted) for you\n", path_of("plugin"));
    ck_assert_msg(strncmp(logged, want, strlen(want)) == 0, "logged: %.200s", logged);
    ck_assert_ptr_null(strstr(logged, "sekrit"));
    mk_kauth_free(a);
}
END_TEST

/* A plugin still running at the caller's deadline is killed then, not
 * after its own minute. */
START_TEST(plugin_is_killed_at_the_deadline)
{
    plugin_target p;
    mk_kcred c;
    put("plugin", "#!/bin/sh\nexec sleep 30\n", 0755);
    plugin_setup(&p, V1);
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);
    double t0 = mk_test_now_ms();
    ck_assert_int_eq(mk_kauth_get(a, (long long)t0 + 300, &c, err, sizeof err), -1);
    ck_assert_double_lt(mk_test_now_ms() - t0, 10000);
    ck_assert_ptr_nonnull(strstr(err, "did not finish within 0.3 s, the time left before the deadline"));
    mk_kauth_free(a);
}
END_TEST

START_TEST(plugin_missing_shows_install_hint)
{
    plugin_target p;
    mk_kcred c;
    plugin_setup(&p, V1);
    p.x.command = "mokka-no-such-plugin";
    p.x.install_hint = "Install it with: apt install mokka-plugin";
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), -1);
    ck_assert_str_eq(err, "exec plugin 'mokka-no-such-plugin' (user 'ci') could not be run: No such file "
                          "or directory. Install it with: apt install mokka-plugin");
    mk_kauth_free(a);
}
END_TEST

START_TEST(plugin_output_is_never_quoted)
{
    plugin_target p;
    mk_kcred c;
    put("plugin", "#!/bin/sh\necho 'token=hunter2-sekrit'\n", 0755);
    plugin_setup(&p, V1);
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "not JSON"));
    ck_assert_ptr_null(strstr(err, "hunter2"));
    mk_kauth_free(a);
}
END_TEST

START_TEST(plugin_is_killed_on_stop)
{
    plugin_target p;
    mk_kcred c;
    put("plugin", "#!/bin/sh\nexec sleep 30\n", 0755);
    plugin_setup(&p, V1);
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);
    atomic_store(&stop, 1);
    time_t t0 = time(NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), -1);
    ck_assert_int_le(time(NULL) - t0, 2);
    ck_assert_ptr_nonnull(strstr(err, "stopped while exec plugin"));
    mk_kauth_free(a);
}
END_TEST

/* --- token files and fixed credentials --------------------------------------------- */

START_TEST(token_file_is_trimmed_and_reread_on_401)
{
    mk_ktarget t = { .token_file = (char *)path_of("token"), .source = "test" };
    mk_kcred c;
    put("token", "  first-token\n", 0600);
    mk_kauth *a = mk_kauth_new(&t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_str_eq(c.token, "first-token");

    put("token", "second-token\n", 0600);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_str_eq(c.token, "first-token");       /* at most once a minute... */
    ck_assert_int_eq(mk_kauth_rejected(a), 1);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_str_eq(c.token, "second-token");      /* ...and on a 401 */

    unlink(path_of("token"));
    ck_assert_int_eq(mk_kauth_rejected(a), 1);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "token file %s: No such file or directory", path_of("token"));
    ck_assert_str_eq(err, want);
    mk_kauth_free(a);
}
END_TEST

START_TEST(token_file_empty)
{
    mk_ktarget t = { .token_file = (char *)path_of("token"), .source = "test" };
    mk_kcred c;
    put("token", " \n", 0600);
    mk_kauth *a = mk_kauth_new(&t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "is empty"));
    mk_kauth_free(a);
}
END_TEST

START_TEST(fixed_credentials)
{
    unsigned char cert[] = "C", key[] = "K";
    mk_ktarget t = { .token = "fixed-secret", .cert_data = { cert, 1 }, .key_data = { key, 1 } };
    mk_kcred c;
    mk_kauth *a = mk_kauth_new(&t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    ck_assert_str_eq(c.token, "fixed-secret");
    ck_assert_ptr_eq(c.cert, &t.cert_data);
    ck_assert_ptr_eq(c.key, &t.key_data);
    ck_assert_int_eq(mk_kauth_rejected(a), 0);       /* nothing to refresh: a 401 is final */
    mk_kauth_free(a);
}
END_TEST

static const struct {
    mk_ktarget t;
    const char *want;
} described[] = {
    { { .token = "sekrit-1" }, "token (redacted)" },
    { { .token_file = "/var/run/token" }, "token from /var/run/token (redacted)" },
    { { .username = "bob", .password = "sekrit-2" }, "basic auth as 'bob' (password redacted)" },
    { { .cert_file = "/c.crt", .key_file = "/c.key" }, "client certificate /c.crt" },
    { { .cert_data = { (unsigned char *)"sekrit-3", 8 }, .key_data = { (unsigned char *)"sekrit-4", 8 },
        .token = "sekrit-5" }, "client certificate (inline), token (redacted)" },
    { { .token = NULL }, "no credentials" },
};

START_TEST(describe_redacts)
{
    char buf[512];
    mk_kauth *a = mk_kauth_new(&described[_i].t, &stop, NULL);
    mk_kauth_describe(a, buf, sizeof buf);
    ck_assert_str_eq(buf, described[_i].want);
    ck_assert_ptr_null(strstr(buf, "sekrit"));
    mk_kauth_free(a);
}
END_TEST

/* --- scrubbing -------------------------------------------------------------------- */

static const char key_pem[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgsekritKeyLineOne0\n"
    "hRANCAAQsekritKeyLineTwo00000000000000000000000000000000000000000\n"
    "-----END PRIVATE KEY-----\n";

START_TEST(scrub_fixed_credentials)
{
    mk_ktarget t = { .token = "sekrit-token", .username = "ann", .password = "pa55-sekrit",
                     .key_data = { (unsigned char *)key_pem, sizeof key_pem - 1 } };
    mk_kauth *a = mk_kauth_new(&t, &stop, NULL);
    char text[1024];
    /* base64("ann:pa55-sekrit") is what an Authorization: Basic header shows. */
    snprintf(text, sizeof text, "Bearer sekrit-token; Basic YW5uOnBhNTUtc2Vrcml0; pass pa55-sekrit; "
             "key line hRANCAAQsekritKeyLineTwo00000000000000000000000000000000000000000; "
             "cut off: Bearer sekrit-to");
    mk_kauth_scrub(a, text, sizeof text);
    ck_assert_str_eq(text, "Bearer (redacted); Basic (redacted); pass (redacted); key line (redacted); "
                           "cut off: Bearer (redacted)");
    mk_kauth_free(a);
}
END_TEST

/* A message about a request made before the token file rotated may still
 * quote the old token. */
START_TEST(scrub_rotated_tokens)
{
    mk_ktarget t = { .token_file = (char *)path_of("token"), .source = "test" };
    mk_kcred c;
    char text[256];
    put("token", "first-sekrit\n", 0600);
    mk_kauth *a = mk_kauth_new(&t, &stop, NULL);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    put("token", "second-sekrit\n", 0600);
    ck_assert_int_eq(mk_kauth_rejected(a), 1);
    ck_assert_int_eq(mk_kauth_get(a, 0, &c, err, sizeof err), 0);
    snprintf(text, sizeof text, "old first-sekrit, new second-sekrit");
    mk_kauth_scrub(a, text, sizeof text);
    ck_assert_str_eq(text, "old (redacted), new (redacted)");
    mk_kauth_free(a);
}
END_TEST

START_TEST(describe_exec)
{
    plugin_target p;
    char buf[512];
    plugin_setup(&p, V1);
    mk_kauth *a = mk_kauth_new(&p.t, &stop, NULL);
    mk_kauth_describe(a, buf, sizeof buf);
    char want[600];
    snprintf(want, sizeof want, "exec plugin %s", path_of("plugin"));
    ck_assert_str_eq(buf, want);
    mk_kauth_free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kube_auth");
    TCase *parse_tc = tcase_create("exec credential");
    tcase_add_test(parse_tc, exec_parse_token_and_expiry);
    tcase_add_test(parse_tc, exec_parse_v1beta1_cert);
    tcase_add_loop_test(parse_tc, exec_parse_errors, 0, (int)(sizeof bad_creds / sizeof bad_creds[0]));
    tcase_add_loop_test(parse_tc, rfc3339, 0, (int)(sizeof times / sizeof times[0]));
    suite_add_tcase(s, parse_tc);

    TCase *run = tcase_create("credentials");
    tcase_add_checked_fixture(run, setup, NULL);
    tcase_add_test(run, plugin_runs_with_args_and_env_and_is_cached);
    tcase_add_test(run, plugin_reruns_when_expired);
    tcase_add_test(run, plugin_gets_cluster_info_when_asked);
    tcase_add_test(run, plugin_certificate_is_used);
    tcase_add_test(run, plugin_failure_says_how);
    tcase_add_test(run, plugin_missing_shows_install_hint);
    tcase_add_test(run, plugin_output_is_never_quoted);
    tcase_add_test(run, plugin_is_killed_on_stop);
    tcase_add_test(run, plugin_stderr_is_relayed_scrubbed);
    tcase_add_test(run, plugin_is_killed_at_the_deadline);
    tcase_add_test(run, scrub_fixed_credentials);
    tcase_add_test(run, scrub_rotated_tokens);
    tcase_add_test(run, token_file_is_trimmed_and_reread_on_401);
    tcase_add_test(run, token_file_empty);
    tcase_add_test(run, fixed_credentials);
    tcase_add_loop_test(run, describe_redacts, 0, (int)(sizeof described / sizeof described[0]));
    tcase_add_test(run, describe_exec);
    suite_add_tcase(s, run);

    return mk_test_run(s);
}
