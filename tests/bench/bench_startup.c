/* bench_startup.c - what a client waits for before its first answer: dlopen
 * of the library, nvmlInit_v2 (which loads the config) and the enumeration
 * of every GPU (count; handle, name, UUID and PCI info of each), for 8 and
 * 256 GPUs, and 256 GPUs with four MIG devices each.
 *
 * Each sample is a fresh process (this program run again with --child), so
 * that nothing is warm but the page cache; the rows are medians. */
#include "bench.h"

#define RUNS 21

typedef struct phases {
    double dlopen_ms, init_ms, enum_ms;
} phases;

/* --- the child: one start-up, timed ---------------------------------------------- */

static void enumerate(bench_nvml *n)
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

static int child(void)
{
    bench_nvml n;
    uint64_t t0 = bench_now_ns();
    bench_load(&n);
    uint64_t t1 = bench_now_ns();
    bench_init(&n);
    uint64_t t2 = bench_now_ns();
    enumerate(&n);
    uint64_t t3 = bench_now_ns();
    printf("%llu %llu %llu\n", (unsigned long long)(t1 - t0), (unsigned long long)(t2 - t1),
           (unsigned long long)(t3 - t2));
    return 0;
}

/* --- the parent: RUNS children per config --------------------------------------- */

static phases run_child(const char *config)
{
    char buf[128];
    unsigned long long a, b, c;
    bench_run_child("MOCK_CONFIG_PATH", config, buf, sizeof buf);
    if (sscanf(buf, "%llu %llu %llu", &a, &b, &c) != 3)
        bench_die("a start-up printed '%s'", buf);
    return (phases){ a / 1e6, b / 1e6, c / 1e6 };
}

/* Rows for one config: total, and each phase; the total's target is given. */
static void bench_config(const char *label, const char *config, const char *total_target,
                         const char *init_row, const char *init_target)
{
    double total[RUNS], dl[RUNS], init[RUNS], en[RUNS];
    char name[128], note[96];
    for (int i = 0; i < RUNS; i++) {
        phases p = run_child(config);
        dl[i] = p.dlopen_ms;
        init[i] = p.init_ms;
        en[i] = p.enum_ms;
        total[i] = p.dlopen_ms + p.init_ms + p.enum_ms;
    }
    snprintf(note, sizeof note, "dlopen+init+enumeration, median of %d processes", RUNS);
    snprintf(name, sizeof name, "startup.%s.total", label);
    bench_row(name, bench_median(total, RUNS), 3, "ms", total_target, note);
    snprintf(name, sizeof name, "startup.%s.dlopen", label);
    bench_row(name, bench_median(dl, RUNS), 3, "ms", "-", "");
    snprintf(name, sizeof name, "startup.%s.init", label);
    bench_row(name, bench_median(init, RUNS), 3, "ms", "-", "nvmlInit_v2");
    snprintf(name, sizeof name, "startup.%s.enumerate", label);
    bench_row(name, bench_median(en, RUNS), 3, "ms", "-", "count, handle, name, UUID, PCI info");
    if (init_row)
        bench_row(init_row, bench_median(init, RUNS), 3, "ms", init_target,
                  "nvmlInit_v2: parse, profiles, MIG layout, handles");
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
