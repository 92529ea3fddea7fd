/* nvml_dl.h - what the tests of the NVML library share: the built
 * libnvidia-ml.so.1 (from $MOKKA_BUILD, else the build this test binary
 * belongs to) opened with dlopen, its functions under their NVML names in
 * `nv`, configs written to a fresh directory and named where the library
 * looks, faults injected through the state file as `mokka inject` does,
 * and child processes whose stderr is kept. */
#ifndef MOKKA_NVML_DL_H
#define MOKKA_NVML_DL_H

#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "abi/nvml_abi.h"
#include "state.h"
#include "support/testutil.h"

#define NVML_FUNCS(X) \
    X(nvmlInit) X(nvmlInit_v2) X(nvmlInitWithFlags) X(nvmlShutdown) X(nvmlErrorString) \
    X(nvmlSystemGetDriverVersion) X(nvmlSystemGetNVMLVersion) \
    X(nvmlSystemGetCudaDriverVersion_v2) X(nvmlDeviceGetGspFirmwareVersion) \
    X(nvmlDeviceGetCount_v2) X(nvmlDeviceGetHandleByIndex_v2) X(nvmlDeviceGetHandleByUUID) \
    X(nvmlDeviceGetHandleByPciBusId_v2) X(nvmlDeviceGetIndex) X(nvmlDeviceGetName) \
    X(nvmlDeviceGetUUID) X(nvmlDeviceGetSerial) X(nvmlDeviceGetMinorNumber) \
    X(nvmlDeviceGetPciInfo_v3) X(nvmlDeviceGetCudaComputeCapability) \
    X(nvmlDeviceGetMemoryInfo) X(nvmlDeviceGetMemoryInfo_v2) X(nvmlDeviceGetBAR1MemoryInfo) \
    X(nvmlDeviceGetTopologyCommonAncestor) X(nvmlDeviceGetNvLinkState) \
    X(nvmlDeviceGetNvLinkRemotePciInfo_v2) \
    X(nvmlEventSetCreate) X(nvmlEventSetFree) X(nvmlDeviceGetSupportedEventTypes) \
    X(nvmlDeviceRegisterEvents) X(nvmlEventSetWait) X(nvmlEventSetWait_v2) \
    X(nvmlDeviceGetMigMode) X(nvmlDeviceGetMaxMigDeviceCount) \
    X(nvmlDeviceGetMigDeviceHandleByIndex) X(nvmlDeviceIsMigDeviceHandle) \
    X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle) X(nvmlDeviceGetAttributes_v2) \
    X(nvmlDeviceGetGpuInstanceId) X(nvmlDeviceGetComputeInstanceId) \
    X(nvmlDeviceGetGpuInstanceById) X(nvmlGpuInstanceGetComputeInstanceById) \
    X(nvmlGpuInstanceGetInfo) X(nvmlComputeInstanceGetInfo_v2) \
    X(nvmlDeviceGetGpuInstanceProfileInfo) X(nvmlGpuInstanceGetComputeInstanceProfileInfo) \
    X(nvmlDeviceGetTemperature) X(nvmlInternalGetExportTable) \
    X(nvmlDeviceGetGpuFabricInfo) X(nvmlDeviceGetGpuFabricInfoV)

static struct {
#define NV_MEMBER(name) __typeof__(name) *name;
    NVML_FUNCS(NV_MEMBER)
#undef NV_MEMBER
} nv;

static void *nv_lib;

/* The library path: $MOKKA_BUILD/lib/..., else O/lib/... for a test binary
 * at O/build/tests/test_x. */
static inline void nv_lib_path(char *out, size_t len)
{
    const char *b = getenv("MOKKA_BUILD");
    if (b && *b) {
        snprintf(out, len, "%s/lib/libnvidia-ml.so.1", b);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    ck_assert_int_gt(n, 0);
    exe[n] = 0;
    for (int up = 0; up < 3; up++)
        *strrchr(exe, '/') = 0;
    snprintf(out, len, "%s/lib/libnvidia-ml.so.1", exe);
}

/* Opens the library with a clean environment: no config, no state
 * directory, a fixed node name. */
static inline void nv_open(void)
{
    unsetenv("MOCK_CONFIG_PATH");
    unsetenv("MOKKA_CONFIG");
    unsetenv("MOKKA_STATE_DIR");
    setenv("MOKKA_NODE_NAME", "test-node", 1);
    if (nv_lib)
        return;
    char path[PATH_MAX + 64];
    nv_lib_path(path, sizeof path);
    nv_lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(nv_lib != NULL, "dlopen %s: %s", path, dlerror());
#define NV_SYM(name) \
    *(void **)&nv.name = dlsym(nv_lib, #name); \
    ck_assert_msg(nv.name != NULL, "%s does not export %s", path, #name);
    NVML_FUNCS(NV_SYM)
#undef NV_SYM
}

#define NV_OK(call) do { \
        nvmlReturn_t rc_ = (call); \
        ck_assert_msg(rc_ == NVML_SUCCESS, "%s: %s (%d)", #call, nv.nvmlErrorString(rc_), rc_); \
    } while (0)
#define NV_RC(want, call) do { \
        nvmlReturn_t rc_ = (call); \
        ck_assert_msg(rc_ == (want), "%s: %s (%d), want %s", #call, nv.nvmlErrorString(rc_), \
                      rc_, nv.nvmlErrorString(want)); \
    } while (0)

/* Writes a config into a new directory and names it in MOCK_CONFIG_PATH;
 * returns its path (valid until the next call). */
static inline const char *nv_config(const char *yaml)
{
    static char path[4400];
    snprintf(path, sizeof path, "%s/config.yaml", mk_test_tmpdir("config"));
    mk_test_write(path, yaml);
    setenv("MOCK_CONFIG_PATH", path, 1);
    return path;
}

/* Makes a new state directory and names it in MOKKA_STATE_DIR; returns the
 * state file's path (valid until the next call). */
static inline const char *nv_state_dir(void)
{
    static char dir[4400], file[4500];
    snprintf(dir, sizeof dir, "%s", mk_test_tmpdir("state"));
    setenv("MOKKA_STATE_DIR", dir, 1);
    snprintf(file, sizeof file, "%s/state", dir);
    return file;
}

/* The usual start: the library opened, `yaml` as its config, a state
 * directory, nvmlInit_v2. Returns the state file's path. */
static inline const char *nv_start(const char *yaml)
{
    nv_open();
    nv_config(yaml);
    const char *state = nv_state_dir();
    NV_OK(nv.nvmlInit_v2());
    return state;
}

/* What `mokka inject` does: map the state file and raise a fault. */
static inline void nv_inject(const char *state_file, unsigned gpu, mk_fault_mode mode,
                             unsigned xid, int mig)
{
    mk_state st;
    char err[512];
    ck_assert_msg(mk_state_open_existing(&st, state_file, err, sizeof err) == 0, "%s", err);
    mk_state_raise(&st, gpu, mode, xid, mig);
    mk_state_close(&st);
}

static inline nvmlDevice_t nv_gpu(unsigned i)
{
    nvmlDevice_t h = NULL;
    NV_OK(nv.nvmlDeviceGetHandleByIndex_v2(i, &h));
    return h;
}

/* A new event set with XID events of GPU `gpu` registered. */
static inline nvmlEventSet_t nv_xid_set(unsigned gpu)
{
    nvmlEventSet_t set;
    NV_OK(nv.nvmlEventSetCreate(&set));
    NV_OK(nv.nvmlDeviceRegisterEvents(nv_gpu(gpu), nvmlEventTypeXidCriticalError, set));
    return set;
}

/* A thread blocked in nvmlEventSetWait_v2 (nvmlEventSetWait with v1). */
typedef struct {
    nvmlEventSet_t set;
    unsigned timeout_ms;
    int v1;
    nvmlReturn_t rc;
    nvmlEventData_t e;
    double returned;          /* mk_test_now_ms() */
    pthread_t th;
} nv_waiter;

static inline void *nv_waiter_run(void *arg)
{
    nv_waiter *w = arg;
    w->rc = w->v1 ? nv.nvmlEventSetWait(w->set, &w->e, w->timeout_ms)
                  : nv.nvmlEventSetWait_v2(w->set, &w->e, w->timeout_ms);
    w->returned = mk_test_now_ms();
    return NULL;
}

static inline void nv_waiter_start(nv_waiter *w, nvmlEventSet_t set, unsigned timeout_ms)
{
    memset(w, 0, sizeof *w);
    w->set = set;
    w->timeout_ms = timeout_ms;
    ck_assert_int_eq(pthread_create(&w->th, NULL, nv_waiter_run, w), 0);
}

static inline void nv_waiter_join(nv_waiter *w)
{
    ck_assert_int_eq(pthread_join(w->th, NULL), 0);
}

/* Runs fn(arg) in a child process whose stderr goes to `err`; returns the
 * child's exit status (fn's return value). */
static inline int t_child_stderr(int (*fn)(void *), void *arg, char *err, size_t errlen)
{
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pid_t pid = mk_test_fork();
    if (pid == 0) {
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        _exit(fn(arg));
    }
    close(p[1]);
    size_t used = 0;
    ssize_t n;
    while (used + 1 < errlen && (n = read(p[0], err + used, errlen - 1 - used)) > 0)
        used += (size_t)n;
    err[used] = 0;
    close(p[0]);
    return mk_test_wait(pid);
}

static inline int t_count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

#endif
