/* test_kubelet_plugins.c - the built-in kubelet with real device-plugin
 * processes: the stand-in (build/tests/fake-device-plugin) and, when given,
 * NVIDIA's k8s-device-plugin.
 *
 * The stand-in's command line and early failures are always tested.
 * Serving GPUs needs the mock NVML: MOKKA_TEST_LIB, or else the build's
 * lib/libnvidia-ml.so.1 (faults are injected through its config file). The
 * NVML installed on this machine is never loaded: as root it creates
 * /dev/nvidiactl. NVIDIA's plugin also needs MOKKA_DEVICE_PLUGIN=/path/to/
 * nvidia-device-plugin, root (it always puts its socket in
 * /var/lib/kubelet/device-plugins, given to it in a private mount
 * namespace) and an unsanitized mock. Tests whose needs are not met pass
 * after printing why they were skipped. */
#include <check.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kubelet/kubelet.h"
#include "support/kl_events.h"
#include "support/testproc.h"
#include "support/testutil.h"

#define GPU "nvidia.com/gpu"
#define NVIDIA_DIR "/var/lib/kubelet/device-plugins"

static char standin_bin[PATH_MAX + 64], build_lib[PATH_MAX + 64];
static const char *dir, *logfile;
static char lib_env[PATH_MAX + 32], config_env[PATH_MAX + 32];
static mk_kubelet *k;
static mk_kl_events *events;
static pid_t plugin = -1;
static mk_nv_nodes view;   /* the kubelet's view, refreshed by allocatable() */

/* The build under test: $MOKKA_BUILD, or the one this test belongs to
 * (<build>/build/tests/). Gives the stand-in and the mock library. */
static void find_build(void)
{
    char top[PATH_MAX];
    const char *build = getenv("MOKKA_BUILD");
    if (build && *build) {
        snprintf(top, sizeof top, "%s", build);
    } else {
        ssize_t n = readlink("/proc/self/exe", top, sizeof top - 1);
        ck_assert_int_gt(n, 0);
        top[n] = 0;
        for (int up = 0; up < 3; up++)
            *strrchr(top, '/') = 0;
    }
    snprintf(standin_bin, sizeof standin_bin, "%s/build/tests/fake-device-plugin", top);
    snprintf(build_lib, sizeof build_lib, "%s/lib/libnvidia-ml.so.1", top);
}

static void setup(void)
{
    find_build();
    ck_assert_msg(access(standin_bin, X_OK) == 0, "%s is not built", standin_bin);
    dir = mk_test_tmpdir("plugins");
    logfile = mk_test_path(dir, "plugin.log");
}

static void teardown(void)
{
    if (plugin > 0)
        mk_test_reap(plugin, SIGKILL, 2000);
    plugin = -1;
    mk_kubelet_stop(k);
    k = NULL;
    mk_nv_nodes_free(&view);
    mk_kl_events_free(events);
    events = NULL;
    mk_test_rmtree(dir);
}

/* --- what a test needs ------------------------------------------------------ */

/* The mock NVML for the plugins: a directory holding libnvidia-ml.so.1 ->
 * $MOKKA_TEST_LIB or the build's library, put on LD_LIBRARY_PATH (not
 * LD_PRELOAD, which sanitizer builds refuse). NULL, or why not. */
static const char *need_mock(void)
{
    const char *lib = getenv("MOKKA_TEST_LIB");
    char real[PATH_MAX];
    if (!lib || !*lib)
        lib = build_lib;
    if (!realpath(lib, real))
        return "no mock NVML: neither MOKKA_TEST_LIB nor the build's lib/libnvidia-ml.so.1";
    ck_assert_int_eq(symlink(real, mk_test_path(dir, "libnvidia-ml.so.1")), 0);
    snprintf(lib_env, sizeof lib_env, "LD_LIBRARY_PATH=%s", dir);
    return NULL;
}

/* The mock's configuration for the plugins to come (MOCK_CONFIG_PATH). */
static void use_config(const char *yaml)
{
    const char *path = mk_test_path(dir, "mock.yaml");
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(yaml, f);
    ck_assert_int_eq(fclose(f), 0);
    snprintf(config_env, sizeof config_env, "MOCK_CONFIG_PATH=%s", path);
}

static const char two_gpus[] =
    "version: 1.0\n"
    "profile: a100-sxm4-40gb\n"
    "count: 2\n"
    "defaults:\n"
    "  uuid: auto\n";

/* One second in: GPU 0 a double-bit ECC error (reported with XID 48), GPU
 * 1 XID 79 (fallen off the bus), GPU 2 XID 13 (an application error,
 * which plugins ignore). */
static const char three_gpus_two_fail[] =
    "version: 1.0\n"
    "profile: a100-sxm4-40gb\n"
    "count: 3\n"
    "defaults:\n"
    "  uuid: auto\n"
    "devices:\n"
    "  - index: 0\n"
    "    unhealthy_after_seconds: 1\n"
    "    mode: ecc\n"
    "  - index: 1\n"
    "    unhealthy_after_seconds: 1\n"
    "    xid: 79\n"
    "    mode: xid\n"
    "  - index: 2\n"
    "    unhealthy_after_seconds: 1\n"
    "    xid: 13\n"
    "    mode: xid\n";

/* Can this process make a private mount namespace? Tried in a child. */
static int can_unshare_mounts(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(unshare(CLONE_NEWNS) == 0 ? 0 : 1);
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

static const char *need_nvidia(void)
{
    const char *bin = getenv("MOKKA_DEVICE_PLUGIN");
    const char *lib = getenv("MOKKA_TEST_LIB");
    if (!bin || !*bin)
        return "MOKKA_DEVICE_PLUGIN does not name NVIDIA's nvidia-device-plugin";
    ck_assert_msg(access(bin, X_OK) == 0, "MOKKA_DEVICE_PLUGIN=%s is not executable", bin);
    if (!can_unshare_mounts())
        return "it needs a private mount namespace (run as root)";
    if (MK_TEST_SANITIZED && (!lib || !*lib))
        return "the build's NVML is sanitized and NVIDIA's plugin is not "
               "(MOKKA_TEST_LIB may name a plain build's)";
    return need_mock();
}

#define SKIP_UNLESS(why_not, test)                                  \
    do {                                                            \
        const char *why_ = (why_not);                               \
        if (why_) {                                                 \
            printf("skipped %s: %s\n", test, why_);                 \
            return;                                                 \
        }                                                           \
    } while (0)

/* --- the kubelet and the plugin ---------------------------------------------- */

static void start_kubelet(void)
{
    k = mk_kl_events_start_kubelet(dir, &events);
}

static pid_t spawn_standin(void)
{
    char sock[PATH_MAX];
    snprintf(sock, sizeof sock, "%s/kubelet.sock", dir);
    char *argv[] = { standin_bin, "--kubelet-socket", sock, NULL };
    char *env[] = { lib_env, config_env, NULL };
    return mk_test_spawn(argv, env, logfile, NULL, NULL);
}

/* In NVIDIA's plugin's child: our directory at NVIDIA_DIR, seen by it
 * alone (a tmpfs over /var/lib in a private mount namespace). System calls
 * only: the child of a threaded process. */
static int enter_sandbox(void *arg)
{
    return unshare(CLONE_NEWNS) ||
           mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
           mount("mokka-test", "/var/lib", "tmpfs", 0, "mode=0755") ||
           mkdir("/var/lib/kubelet", 0755) || mkdir(NVIDIA_DIR, 0755) ||
           mount(arg, NVIDIA_DIR, NULL, MS_BIND, NULL) ? -1 : 0;
}

static pid_t spawn_nvidia(void)
{
    char *argv[] = { getenv("MOKKA_DEVICE_PLUGIN"), NULL };
    char *env[] = { lib_env, config_env, NULL };
    return mk_test_spawn(argv, env, logfile, enter_sandbox, (void *)dir);
}

/* Allocatable GPUs now, or -1 before the plugin registered. */
static long long allocatable(void)
{
    char err[256];
    mk_nv_nodes_free(&view);
    mk_nodesrc *src = mk_kubelet_nodesrc(k);
    if (src->snapshot(src, &view, err, sizeof err))
        return -1;
    const mk_nv_resource *r = mk_nv_find_resource(&view.node[0], GPU);
    return r ? r->allocatable : -1;
}

static int gpus_up(void *arg)
{
    return allocatable() > 0;
}

static int gpus_gone(void *arg)
{
    return allocatable() == 0;
}

/* The GPU resource once some GPU is allocatable. */
static const mk_nv_resource *wait_gpus(void)
{
    ck_assert_msg(mk_test_wait_for(gpus_up, NULL, 20000), "no GPUs registered; plugin log:\n%s",
                  mk_test_tail(logfile));
    return mk_nv_find_resource(&view.node[0], GPU);
}

static int log_has_arg(void *text)
{
    return strstr(mk_test_slurp(logfile), text) != NULL;
}

/* Waits for the plugin to log `text` (it may see the kubelet act on its
 * registration before it logs it). */
static int log_has(const char *text)
{
    return mk_test_wait_for(log_has_arg, (void *)text, MK_TEST_PATIENCE_MS);
}

/* --- the checks both plugins must pass ----------------------------------------- */

/* Advertised as NVIDIA's plugin does; Allocate gives exactly
 * NVIDIA_VISIBLE_DEVICES; a preferred allocation comes from the offer. */
static void check_serves(const char *who, pid_t (*spawn)(void))
{
    use_config(two_gpus);
    start_kubelet();
    double t0 = mk_test_now_ms();
    plugin = spawn();
    const mk_nv_resource *r = wait_gpus();
    printf("%s: %zu GPUs visible %.0f ms after start\n", who, r->ndev, mk_test_now_ms() - t0);
    ck_assert_int_eq(r->allocatable, r->capacity);
    ck_assert_str_eq(r->endpoint, "nvidia-gpu.sock");
    ck_assert_int_eq(r->get_preferred_allocation, 1);
    ck_assert_int_eq(r->pre_start_required, 0);
    for (size_t i = 0; i < r->ndev; i++)
        ck_assert_msg(strncmp(r->dev[i].id, "GPU-", 4) == 0, "device id %s", r->dev[i].id);

    mk_nodesrc *src = mk_kubelet_nodesrc(k);
    char *ids[] = { r->dev[0].id }, err[512];
    mk_nv_alloc a;
    ck_assert_msg(src->allocate(src, GPU, ids, 1, &a, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(a.nenvs, 1);
    ck_assert_str_eq(a.envs[0].key, "NVIDIA_VISIBLE_DEVICES");
    ck_assert_str_eq(a.envs[0].value, r->dev[0].id);
    ck_assert_uint_eq(a.nmounts + a.ndevices + a.nannotations + a.ncdi, 0);
    mk_nv_alloc_free(&a);

    char **offer = calloc(r->ndev, sizeof *offer), **pick;
    for (size_t i = 0; i < r->ndev; i++)
        offer[i] = r->dev[i].id;
    size_t n;
    ck_assert_msg(src->preferred(src, GPU, offer, r->ndev, NULL, 0, 1, &pick, &n, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_uint_eq(n, 1);
    int offered = 0;
    for (size_t i = 0; i < r->ndev; i++)
        offered |= strcmp(pick[0], offer[i]) == 0;
    ck_assert_msg(offered, "preferred %s was not offered", pick[0]);
    free(pick[0]);
    free(pick);
    free(offer);
    ck_assert(log_has("Registered device plugin for 'nvidia.com/gpu' with Kubelet"));
}

/* SIGTERM: it stops serving (socket removed) and exits 0; the kubelet sees
 * the stream end and nothing is allocatable. The stand-in's health loop
 * may finish its 5 s wait first. */
static void check_sigterm(void)
{
    int status = mk_test_reap(plugin, SIGTERM, 10000);
    plugin = -1;
    ck_assert_msg(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "status %d; log:\n%s", status, mk_test_tail(logfile));
    struct stat st;
    ck_assert_int_ne(stat(mk_test_path(dir, "nvidia-gpu.sock"), &st), 0);
    ck_assert(mk_kl_events_wait(events, "STREAM_ENDED " GPU, MK_TEST_PATIENCE_MS));
    ck_assert(mk_test_wait_for(gpus_gone, NULL, MK_TEST_PATIENCE_MS));
}

/* A new kubelet.sock (kubelet restart): the plugin registers again. */
static void check_kubelet_restart(pid_t (*spawn)(void))
{
    use_config(two_gpus);
    start_kubelet();
    plugin = spawn();
    wait_gpus();
    mk_kubelet_stop(k);
    k = NULL;
    start_kubelet();
    wait_gpus();
    ck_assert_msg(log_has("kubelet.sock created, restarting."), "%s", mk_test_tail(logfile));
    ck_assert_int_eq(mk_kl_events_count(events, "REGISTERED " GPU " nvidia-gpu.sock"), 2);
}

static int one_allocatable(void *arg)
{
    return allocatable() == 1;
}

/* XID 79 and a double-bit ECC error take their GPUs out; XID 13 does not. */
static void check_health(pid_t (*spawn)(void))
{
    use_config(three_gpus_two_fail);
    start_kubelet();
    plugin = spawn();
    const mk_nv_resource *r = wait_gpus();
    ck_assert_int_eq(r->capacity, 3);
    ck_assert_msg(mk_test_wait_for(one_allocatable, NULL, 15000),
                  "allocatable never became 1 of 3; log:\n%s", mk_test_tail(logfile));
    /* The XID 13 came with the others; nothing more may follow. */
    char err[256];
    mk_nodesrc *src = mk_kubelet_nodesrc(k);
    ck_assert_int_eq(src->wait_change(src, view.version, 2000, err, sizeof err), 0);
    ck_assert_int_eq(allocatable(), 1);
    ck_assert_msg(log_has("Xid=79") && log_has("marking device as unhealthy") &&
                  log_has("Skipping event"), "%s", mk_test_tail(logfile));
}

/* --- the stand-in ----------------------------------------------------------------- */

/* Runs the stand-in to completion; returns its exit code. */
static int run_standin(char *const argv[])
{
    pid_t pid = mk_test_spawn(argv, NULL, logfile, NULL, NULL);
    int status = mk_test_reap(pid, 0, 10000);
    ck_assert_msg(status != -1 && WIFEXITED(status), "plugin did not exit; log:\n%s",
                  mk_test_tail(logfile));
    return WEXITSTATUS(status);
}

START_TEST(standin_command_line)
{
    char *help[] = { standin_bin, "--help", NULL };
    ck_assert_int_eq(run_standin(help), 0);
    ck_assert_msg(strstr(mk_test_slurp(logfile), "--kubelet-socket PATH"), "%s", mk_test_tail(logfile));
    char *bogus[] = { standin_bin, "--bogus", NULL };
    ck_assert_int_eq(run_standin(bogus), 2);
    char *relative[] = { standin_bin, "--kubelet-socket", "kubelet.sock", NULL };
    ck_assert_int_eq(run_standin(relative), 2);
    ck_assert(strstr(mk_test_slurp(logfile), "--kubelet-socket must be an absolute path"));
    char *badbool[] = { standin_bin, "--fail-on-init-error=maybe", NULL };
    ck_assert_int_eq(run_standin(badbool), 2);
}
END_TEST

START_TEST(standin_needs_the_kubelet_dir_before_nvml)
{
    char sock[PATH_MAX];
    snprintf(sock, sizeof sock, "%s/absent/kubelet.sock", dir);
    char *argv[] = { standin_bin, "--kubelet-socket", sock, NULL };
    ck_assert_int_eq(run_standin(argv), 1);
    const char *log = mk_test_slurp(logfile);
    ck_assert_msg(strstr(log, "failed to create FS watcher for") &&
                  strstr(log, "No such file or directory"), "%s", mk_test_tail(logfile));
    /* Lines look like klog's: level, date, time, pid, source. */
    ck_assert_msg(log[0] == 'I' && log[5] == ' ' && log[8] == ':' && log[14] == '.' &&
                  strstr(log, " fake-device-plugin] "), "%s", mk_test_tail(logfile));
}
END_TEST

START_TEST(standin_serves_and_stops)
{
    SKIP_UNLESS(need_mock(), "standin_serves_and_stops");
    check_serves("stand-in plugin", spawn_standin);
    check_sigterm();
}
END_TEST

START_TEST(standin_health_from_nvml_events)
{
    SKIP_UNLESS(need_mock(), "standin_health_from_nvml_events");
    check_health(spawn_standin);
}
END_TEST

START_TEST(standin_follows_kubelet_restart)
{
    SKIP_UNLESS(need_mock(), "standin_follows_kubelet_restart");
    check_kubelet_restart(spawn_standin);
}
END_TEST

/* --- NVIDIA's plugin ------------------------------------------------------------- */

START_TEST(nvidia_serves_and_stops)
{
    SKIP_UNLESS(need_nvidia(), "nvidia_serves_and_stops");
    check_serves("NVIDIA device plugin", spawn_nvidia);
    check_sigterm();
}
END_TEST

START_TEST(nvidia_health_from_nvml_events)
{
    SKIP_UNLESS(need_nvidia(), "nvidia_health_from_nvml_events");
    check_health(spawn_nvidia);
}
END_TEST

START_TEST(nvidia_follows_kubelet_restart)
{
    SKIP_UNLESS(need_nvidia(), "nvidia_follows_kubelet_restart");
    check_kubelet_restart(spawn_nvidia);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("kubelet_plugins");
    TCase *standin = mk_test_case(s, "standin", setup, teardown, 60);
    tcase_add_test(standin, standin_command_line);
    tcase_add_test(standin, standin_needs_the_kubelet_dir_before_nvml);
    tcase_add_test(standin, standin_serves_and_stops);
    tcase_add_test(standin, standin_health_from_nvml_events);
    tcase_add_test(standin, standin_follows_kubelet_restart);
    TCase *nvidia = mk_test_case(s, "nvidia", setup, teardown, 60);
    tcase_add_test(nvidia, nvidia_serves_and_stops);
    tcase_add_test(nvidia, nvidia_health_from_nvml_events);
    tcase_add_test(nvidia, nvidia_follows_kubelet_restart);
    return mk_test_run(s);
}
