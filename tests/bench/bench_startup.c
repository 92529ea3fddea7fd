/* bench_startup.c - what a client waits for before its first answer: dlopen
 * of the library, nvmlInit_v2 (which loads the config) and the enumeration
 * of every GPU (count; handle, name, UUID and PCI info of each), for 8 and
 * 256 GPUs, and 256 GPUs with four MIG devices each.
 *
 * Each sample is a fresh process (this program run again with --child), so
 * that nothing is warm but the page cache; the rows are medians. Wall time
 * is what a client waits; the process's CPU time is given beside it because
 * on a busy machine a start-up of a few ms is preempted, and CPU time is
 * then the better estimate of what it takes on an idle one. */
#include "bench.h"

#define RUNS 21

/* --- the child: one start-up, timed ---------------------------------------------- */

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Prints, in ms: dlopen, init and enumeration wall times, then the CPU
 * time of all three and of init. */
static int child(void)
{
    bench_nvml n;
    double c0 = cpu_ms();
    uint64_t t0 = bench_now_ns();
    bench_load(&n);
    uint64_t t1 = bench_now_ns();
    double c1 = cpu_ms();
    bench_init(&n);
    double c2 = cpu_ms();
    uint64_t t2 = bench_now_ns();
    bench_enumerate(&n);
    uint64_t t3 = bench_now_ns();
    double c3 = cpu_ms();
    printf("%.6f %.6f %.6f %.6f %.6f\n", (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6,
           c3 - c0, c2 - c1);
    return 0;
}

/* --- the parent: RUNS children per config --------------------------------------- */

/* Rows for one config: total (wall and CPU) and each phase; the targets of
 * the total and, when init_row names one, of nvmlInit_v2 alone. */
static void bench_config(const char *label, const char *config, const char *total_target,
                         const char *init_row, const char *init_target)
{
    enum { DLOPEN, INIT, ENUM, CPU, INIT_CPU, TOTAL };
    double ms[6][BENCH_MAX_RUNS];
    char name[128], note[96];
    bench_collect(RUNS, 5, ms, "MOCK_CONFIG_PATH", config);
    for (int i = 0; i < RUNS; i++)
        ms[TOTAL][i] = ms[DLOPEN][i] + ms[INIT][i] + ms[ENUM][i];
    snprintf(note, sizeof note, "dlopen+init+enumeration, median of %d processes", RUNS);
    snprintf(name, sizeof name, "startup.%s.total", label);
    bench_row(name, bench_median(ms[TOTAL], RUNS), 3, "ms", total_target, note);
    snprintf(name, sizeof name, "startup.%s.total-cpu", label);
    bench_row(name, bench_median(ms[CPU], RUNS), 3, "ms", total_target, "the same in CPU time");
    snprintf(name, sizeof name, "startup.%s.dlopen", label);
    bench_row(name, bench_median(ms[DLOPEN], RUNS), 3, "ms", "-", "");
    snprintf(name, sizeof name, "startup.%s.init", label);
    bench_row(name, bench_median(ms[INIT], RUNS), 3, "ms", "-", "nvmlInit_v2");
    snprintf(name, sizeof name, "startup.%s.enumerate", label);
    bench_row(name, bench_median(ms[ENUM], RUNS), 3, "ms", "-", "count, handle, name, UUID, PCI info");
    if (!init_row)
        return;
    bench_row(init_row, bench_median(ms[INIT], RUNS), 3, "ms", init_target,
              "nvmlInit_v2: parse, profiles, MIG layout, handles");
    snprintf(name, sizeof name, "%s-cpu", init_row);
    bench_row(name, bench_median(ms[INIT_CPU], RUNS), 3, "ms", init_target, "the same in CPU time");
}

static const char cfg8[] = "version: 1.0\nprofile: a100-sxm4-40gb\ncount: 8\n";
static const char cfg256[] = "version: 1.0\nprofile: a100-sxm4-40gb\ncount: 256\n";
static const char cfg256mig[] =
    "version: 1.0\n"
    "profile: a100-sxm4-40gb\n"
    "count: 256\n"
    "defaults:\n"
    "  mig: {mode: enabled, instances: [1g.5gb, 1g.5gb, 2g.10gb, 3g.20gb]}\n";

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--child") == 0)
        return child();
    if (bench_peer()) {
        bench_config("8gpu", NULL, "<1", NULL, NULL); /* a peer's own default: 8 GPUs */
        return 0;
    }
    static const char *const files[] = { "8.yaml", "256.yaml", "256mig.yaml" };
    const char *texts[] = { cfg8, cfg256, cfg256mig };
    const char *dir = bench_tmpdir();
    char path[3][512];
    for (int i = 0; i < 3; i++) {
        snprintf(path[i], sizeof path[i], "%s/%s", dir, files[i]);
        bench_write(path[i], texts[i]);
    }
    bench_config("8gpu", path[0], "<1", NULL, NULL);
    bench_config("256gpu", path[1], "-", NULL, NULL);
    bench_config("256gpu-mig", path[2], "-", "config-load.256gpu-mig", "<5");
    return 0;
}
