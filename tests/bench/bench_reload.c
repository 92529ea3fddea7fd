/* bench_reload.c - hot reload: the time from a config file being replaced
 * to a getter called in a loop serving the new value.
 *
 * The library looks at the file's mtime and size every 256 calls of a
 * thread, at most every 500 ms, so the expected answer is 0..500 ms plus the
 * parse; the writes come at moments unrelated to that period (a random
 * 0..600 ms after the previous reload was seen), so the samples cover it.
 * The value is GPU 0's memoryUsed, read through nvmlDeviceGetMemoryInfo. */
#include "bench.h"

#define RELOADS 8

static const char config_fmt[] =
    "version: 1.0\n"
    "profile: a100-sxm4-40gb\n"
    "count: 8\n"
    "defaults:\n"
    "  memoryUsed: %uMiB\n";

static void write_config(const char *path, unsigned mib)
{
    char text[256];
    snprintf(text, sizeof text, config_fmt, mib);
    bench_write(path, text);
}

/* Used bytes as GetMemoryInfo reports them: the driver's reserve plus the
 * configured use. */
static unsigned long long used(bench_nvml *n, nvmlDevice_t d)
{
    nvmlMemory_t m;
    if (n->nvmlDeviceGetMemoryInfo(d, &m) != NVML_SUCCESS)
        bench_die("nvmlDeviceGetMemoryInfo failed");
    return m.used;
}

int main(void)
{
    bench_nvml n;
    char path[512];
    double ms[RELOADS];
    if (bench_peer()) {
        bench_row_na("reload.write-to-served", "ms", "-", "(needs Mokka's config format)");
        return 0;
    }
    snprintf(path, sizeof path, "%s/gpus.yaml", bench_tmpdir());
    write_config(path, 1000);
    setenv("MOCK_CONFIG_PATH", path, 1);
    bench_load(&n);
    bench_init(&n);
    nvmlDevice_t d = bench_device(&n, 0);
    unsigned long long before = used(&n, d);
    srand((unsigned)bench_now_ns());
    for (int i = 0; i < RELOADS; i++) {
        /* Keep the getter busy until the write, as a polling client does. */
        uint64_t at = bench_now_ns() + (uint64_t)(rand() % 600) * 1000000ull;
        while (bench_now_ns() < at)
            used(&n, d);
        write_config(path, i % 2 ? 1000 : 20000); /* the size changes too */
        uint64_t t0 = bench_now_ns();
        uint64_t give_up = t0 + 5000000000ull;
        unsigned long long now;
        while ((now = used(&n, d)) == before)
            if (bench_now_ns() > give_up)
                bench_die("the config change was not served after 5 s");
        ms[i] = (double)(bench_now_ns() - t0) / 1e6;
        before = now;
    }
    char note[96];
    snprintf(note, sizeof note, "file renamed into place to GetMemoryInfo serving it, %d reloads",
             RELOADS);
    bench_row("reload.write-to-served.median", bench_median(ms, RELOADS), 1, "ms", "-", note);
    bench_row("reload.write-to-served.max", bench_percentile(ms, RELOADS, 100), 1, "ms", "-",
              "expected: up to the 500 ms check period + 256 calls + the parse");
    n.nvmlShutdown();
    return 0;
}
