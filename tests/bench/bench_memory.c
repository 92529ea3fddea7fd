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

/* --- the child: one measurement -------------------------------------------------- */

static int child(void)
{
    bench_nvml n;
    rss r0 = read_rss();
    int t0 = threads();
    bench_load(&n);
    bench_init(&n);
    bench_enumerate(&n);
    rss r1 = read_rss();
    int t1 = threads();
    printf("%ld %ld %ld %d\n", r1.total - r0.total, r1.anon - r0.anon, r1.file - r0.file, t1 - t0);
    n.nvmlShutdown();
    return 0;
}

/* --- the parent ------------------------------------------------------------------- */

static void bench_memory(const char *label, const char *state_dir)
{
    enum { TOTAL, ANON, FILE_BACKED, THREADS };
    double v[4][BENCH_MAX_RUNS];
    char name[64], note[128];
    bench_collect(RUNS, 4, v, "MOKKA_STATE_DIR", state_dir);
    snprintf(name, sizeof name, "memory.rss-added.%s", label);
    snprintf(note, sizeof note, "VmRSS, dlopen to 8 GPUs enumerated: +%.0f anon, +%.0f file-backed; "
             "median of %d", bench_median(v[ANON], RUNS), bench_median(v[FILE_BACKED], RUNS), RUNS);
    bench_row(name, bench_median(v[TOTAL], RUNS), 0, "KiB", "<1024", note);
    snprintf(name, sizeof name, "memory.threads-started.%s", label);
    bench_row(name, bench_percentile(v[THREADS], RUNS, 100), 0, "threads", "=0",
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
