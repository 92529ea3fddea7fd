/* bench.h - what the benchmark programs share: loading the NVML library by
 * path as a real client does (dlopen, never linked), clocks, medians, temp
 * files, and the one output format tests/bench/run.sh turns into the table.
 *
 * Each bench program prints rows as tab-separated fields:
 *   row <TAB> name <TAB> value <TAB> unit <TAB> target <TAB> note
 * The value is a number or "n/a"; the target is "<N", "=N" or "-".
 *
 * The environment chooses what is measured:
 *   MOKKA_BENCH_LIB   the library (default $MOKKA_BUILD/lib/libnvidia-ml.so.1)
 *   MOKKA_BENCH_PEER  set when the library is another mock (e.g. "gomock"):
 *                     its rows are prefixed with that name, and the parts
 *                     that need Mokka's config format or state file are left out. */
#ifndef MOKKA_BENCH_H
#define MOKKA_BENCH_H

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "abi/nvml_abi.h"

/* The NVML functions the benchmarks call. */
#define BENCH_FNS(X) \
    X(nvmlInit_v2) X(nvmlShutdown) X(nvmlDeviceGetCount_v2) X(nvmlDeviceGetHandleByIndex_v2) \
    X(nvmlDeviceGetName) X(nvmlDeviceGetUUID) X(nvmlDeviceGetPciInfo_v3) \
    X(nvmlDeviceGetMemoryInfo) X(nvmlDeviceGetTemperature) X(nvmlEventSetCreate) \
    X(nvmlEventSetFree) X(nvmlDeviceRegisterEvents) X(nvmlEventSetWait_v2)

typedef struct bench_nvml {
    void *dl;
#define BENCH_FN_FIELD(f) __typeof__(&f) f;
    BENCH_FNS(BENCH_FN_FIELD)
#undef BENCH_FN_FIELD
} bench_nvml;

/* Exits with status 3 and a message: the environment is not what a bench needs. */
static inline void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(3);
}

static inline const char *bench_peer(void)
{
    const char *p = getenv("MOKKA_BENCH_PEER");
    return p && *p ? p : NULL;
}

static inline const char *bench_lib_path(void)
{
    static char path[4096];
    const char *lib = getenv("MOKKA_BENCH_LIB");
    const char *build = getenv("MOKKA_BUILD");
    if (lib && *lib)
        return lib;
    snprintf(path, sizeof path, "%s/lib/libnvidia-ml.so.1", build && *build ? build : ".");
    return path;
}

/* dlopen + dlsym of every function in BENCH_FNS; a missing one stays NULL. */
static inline void bench_load(bench_nvml *n)
{
    const char *path = bench_lib_path();
    memset(n, 0, sizeof *n);
    n->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!n->dl)
        bench_die("cannot load %s: %s", path, dlerror());
#define BENCH_FN_SYM(f) *(void **)&n->f = dlsym(n->dl, #f);
    BENCH_FNS(BENCH_FN_SYM)
#undef BENCH_FN_SYM
    if (!n->nvmlInit_v2 || !n->nvmlDeviceGetCount_v2 || !n->nvmlDeviceGetHandleByIndex_v2)
        bench_die("%s does not export the NVML init and enumeration functions", path);
}

static inline void bench_init(bench_nvml *n)
{
    nvmlReturn_t rc = n->nvmlInit_v2();
    if (rc != NVML_SUCCESS)
        bench_die("nvmlInit_v2 of %s answered %d", bench_lib_path(), (int)rc);
}

static inline nvmlDevice_t bench_device(bench_nvml *n, unsigned i)
{
    nvmlDevice_t d;
    if (n->nvmlDeviceGetHandleByIndex_v2(i, &d) != NVML_SUCCESS)
        bench_die("no GPU %u in %s", i, bench_lib_path());
    return d;
}

/* What a client does at start: count the GPUs, then each one's handle,
 * name, UUID and PCI info. */
static inline void bench_enumerate(bench_nvml *n)
{
    unsigned count;
    if (n->nvmlDeviceGetCount_v2(&count) != NVML_SUCCESS)
        bench_die("nvmlDeviceGetCount_v2 failed");
    for (unsigned i = 0; i < count; i++) {
        char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        nvmlPciInfo_t pci;
        nvmlDevice_t d = bench_device(n, i);
        if (n->nvmlDeviceGetName(d, name, sizeof name) != NVML_SUCCESS ||
            n->nvmlDeviceGetUUID(d, uuid, sizeof uuid) != NVML_SUCCESS ||
            n->nvmlDeviceGetPciInfo_v3(d, &pci) != NVML_SUCCESS)
            bench_die("GPU %u: name, UUID or PCI info failed", i);
    }
}

static inline uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void bench_sleep_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p-th percentile (0..100, nearest rank) of n samples; sorts them. */
static inline double bench_percentile(double *v, size_t n, double p)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, bench_cmp_double);
    size_t k = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
    return v[k < n ? k : n - 1];
}

static inline double bench_median(double *v, size_t n)
{
    return bench_percentile(v, n, 50);
}

/* One row of the table (see the top of this file). */
static inline void bench_row(const char *name, double value, int decimals, const char *unit,
                             const char *target, const char *note)
{
    const char *peer = bench_peer();
    printf("row\t%s%s%s\t%.*f\t%s\t%s\t%s\n", peer ? peer : "", peer ? ":" : "", name, decimals,
           value, unit, target ? target : "-", note ? note : "");
    fflush(stdout);
}

static inline void bench_row_na(const char *name, const char *unit, const char *target,
                                const char *why)
{
    const char *peer = bench_peer();
    printf("row\t%s%s%s\tn/a\t%s\t%s\t%s\n", peer ? peer : "", peer ? ":" : "", name, unit,
           target ? target : "-", why);
    fflush(stdout);
}

/* Runs this program again as "PROG --child" in a fresh process, with
 * env_name=env_value added when env_value is given, and returns what it
 * printed (up to len - 1 bytes) in out; exits when the child fails. */
static inline void bench_run_child(const char *env_name, const char *env_value, char *out, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0)
        bench_die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        bench_die("fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        if (env_value)
            setenv(env_name, env_value, 1);
        execl("/proc/self/exe", "bench-child", "--child", (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t r;
    while (got < len - 1 && (r = read(fd[0], out + got, len - 1 - got)) > 0)
        got += (size_t)r;
    out[got] = 0;
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        bench_die("a measuring process failed%s%s", env_value ? " with " : "",
                  env_value ? env_value : "");
}

/* Runs `runs` fresh children (bench_run_child) that each print ncols
 * numbers, into cols[c][run]. */
#define BENCH_MAX_RUNS 64
static inline void bench_collect(int runs, int ncols, double cols[][BENCH_MAX_RUNS],
                                 const char *env_name, const char *env_value)
{
    char buf[256];
    for (int r = 0; r < runs && r < BENCH_MAX_RUNS; r++) {
        char *p = buf, *end;
        bench_run_child(env_name, env_value, buf, sizeof buf);
        for (int c = 0; c < ncols; c++, p = end) {
            cols[c][r] = strtod(p, &end);
            if (end == p)
                bench_die("a measuring process printed '%s', not %d numbers", buf, ncols);
        }
    }
}

/* A private directory for the configs and state files a bench writes (no
 * subdirectories); it is removed with its files when the process that made
 * it exits, also through bench_die. */
static char bench_dir[256];
static pid_t bench_dir_owner;

static inline void bench_remove_dir(void)
{
    char p[600];
    DIR *d = getpid() == bench_dir_owner ? opendir(bench_dir) : NULL;
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            snprintf(p, sizeof p, "%s/%s", bench_dir, e->d_name);
            unlink(p);
        }
    closedir(d);
    rmdir(bench_dir);
}

static inline const char *bench_tmpdir(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(bench_dir, sizeof bench_dir, "%s/mokka-bench.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(bench_dir))
        bench_die("cannot create a directory under %s: %s", t && *t ? t : "/tmp", strerror(errno));
    bench_dir_owner = getpid();
    atexit(bench_remove_dir);
    return bench_dir;
}

/* Writes a whole file at once: to a temporary name, then renamed over the
 * old one, so a reader never sees it half written. */
static inline void bench_write(const char *path, const char *text)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0)
        bench_die("cannot write %s: %s", path, strerror(errno));
}

#endif
