/* bench_memory.c - what the library costs a process: the resident memory it
 * adds (VmRSS before dlopen against after init and the enumeration of 8
 * GPUs) and the threads it starts (entries of /proc/self/task; a library
 * that runs inside device plugins and exporters must start none).
 *
 * Each sample is a fresh process (this program run again with --child);
 * what the kernel maps around a fault varies a little from run to run, so
 * the rows are medians. Measured with the live state in private memory and
 * with MOKKA_STATE_DIR set (then it is a shared file). */
#include <dirent.h>
#include "bench.h"

#define RUNS 7

typedef struct rss {
    long total, anon, file; /* KiB: VmRSS, RssAnon, RssFile + RssShmem */
} rss;

static rss read_rss(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v;
    rss r = { -1, 0, 0 };
    if (!f)
        bench_die("cannot read /proc/self/status: %s", strerror(errno));
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "VmRSS: %ld kB", &v) == 1)
            r.total = v;
        else if (sscanf(line, "RssAnon: %ld kB", &v) == 1)
            r.anon = v;
        else if (sscanf(line, "RssFile: %ld kB", &v) == 1 || sscanf(line, "RssShmem: %ld kB", &v) == 1)
            r.file += v;
    }
    fclose(f);
    if (r.total < 0)
        bench_die("no VmRSS in /proc/self/status");
    return r;
}

static int threads(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (!d)
        bench_die("cannot list /proc/self/task: %s", strerror(errno));
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* What a device plugin does at start: every GPU's identity and memory. */
static void enumerate(bench_nvml *n)
{
    unsigned count;
    if (n->nvmlDeviceGetCount_v2(&count) != NVML_SUCCESS)
        bench_die("nvmlDeviceGetCount_v2 failed");
    for (unsigned i = 0; i < count; i++) {
        char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE], uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        nvmlPciInfo_t pci;
        nvmlMemory_t mem;
        nvmlDevice_t d = bench_device(n, i);
        n->nvmlDeviceGetName(d, name, sizeof name);
        n->nvmlDeviceGetUUID(d, uuid, sizeof uuid);
        n->nvmlDeviceGetPciInfo_v3(d, &pci);
        n->nvmlDeviceGetMemoryInfo(d, &mem);
    }
}

/* --- the child: one measurement -------------------------------------------------- */

static int child(void)
{
    bench_nvml n;
    rss r0 = read_rss();
    int t0 = threads();
    bench_load(&n);
    bench_init(&n);
    enumerate(&n);
    rss r1 = read_rss();
    int t1 = threads();
    printf("%ld %ld %ld %d\n", r1.total - r0.total, r1.anon - r0.anon, r1.file - r0.file, t1 - t0);
    n.nvmlShutdown();
    return 0;
}

/* --- the parent ------------------------------------------------------------------- */

typedef struct sample {
    double total, anon, file, threads;
} sample;

static sample run_child(const char *state_dir)
{
    char buf[128];
    long total, anon, file;
    int th;
    bench_run_child("MOKKA_STATE_DIR", state_dir, buf, sizeof buf);
    if (sscanf(buf, "%ld %ld %ld %d", &total, &anon, &file, &th) != 4)
        bench_die("a memory measurement printed '%s'", buf);
    return (sample){ (double)total, (double)anon, (double)file, th };
}

static void bench_memory(const char *label, const char *state_dir)
{
    double total[RUNS], anon[RUNS], file[RUNS], th[RUNS];
    char name[64], note[128];
    for (int i = 0; i < RUNS; i++) {
        sample s = run_child(state_dir);
        total[i] = s.total;
        anon[i] = s.anon;
        file[i] = s.file;
        th[i] = s.threads;
    }
    snprintf(name, sizeof name, "memory.rss-added.%s", label);
    snprintf(note, sizeof note, "VmRSS, dlopen to 8 GPUs enumerated: +%.0f anon, +%.0f file-backed; "
             "median of %d", bench_median(anon, RUNS), bench_median(file, RUNS), RUNS);
    bench_row(name, bench_median(total, RUNS), 0, "KiB", "<1024", note);
    snprintf(name, sizeof name, "memory.threads-started.%s", label);
    bench_row(name, bench_percentile(th, RUNS, 100), 0, "threads", "=0",
              "/proc/self/task entries added (the most of any run)");
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--child") == 0)
        return child();
    unsetenv("MOKKA_STATE_DIR");
    bench_memory("private", NULL);
    if (!bench_peer()) {
        const char *dir = bench_tmpdir();
        bench_memory("statedir", dir);
    }
    return 0;
}
