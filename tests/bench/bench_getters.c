/* bench_getters.c - getter latency and throughput: median ns per call of
 * GetUUID, GetMemoryInfo, GetPciInfo_v3 and GetTemperature from one thread
 * and from two (each on its own GPU, then both on the same GPU), and the
 * same getters on a GPU with live values and health rules.
 *
 * A sample is a batch of calls timed with CLOCK_MONOTONIC around it (a
 * batch lasts ~100 us, so the clock read is noise); the median over hundreds
 * of samples hides preemption on a busy machine. With two threads, each on
 * a CPU of its own, samples run in rounds that start together (a spinning
 * barrier): a round's throughput is the calls of both threads over the time
 * from the first start to the last end, and the rate row is the 99th
 * percentile of the rounds. On a shared machine only some rounds find a CPU
 * for every thread, and those are the ones that say whether threads scale;
 * a round run on one CPU cannot beat one thread's rate, so a fast round is
 * no artefact (the one-thread rate is taken the same way). With no lock
 * shared on the read path the rate grows with the threads, up to the cores
 * there are; a lock or a contended cache line shows as a rate that does not.
 *
 *   bench_getters              the table rows
 *   bench_getters --icount N   N calls of each getter in its own function,
 *                              for `valgrind --tool=callgrind` (run.sh) */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include "bench.h"

#define SAMPLES 301
#define SAMPLE_NS 100000
#define RATE_PERCENTILE 99  /* rounds in which every thread had a CPU */
#define PLAIN_TARGET "<50"
#define RULES_TARGET "<100"
#define RULES_GPU 2

static bench_nvml N;

/* One batch of n calls; returns the OR of the return codes. */
typedef nvmlReturn_t (*batch_fn)(nvmlDevice_t d, unsigned n);

static nvmlReturn_t batch_uuid(nvmlDevice_t d, unsigned n)
{
    char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    nvmlReturn_t rc = NVML_SUCCESS;
    for (unsigned i = 0; i < n; i++)
        rc |= N.nvmlDeviceGetUUID(d, buf, sizeof buf);
    return rc;
}

static nvmlReturn_t batch_memory(nvmlDevice_t d, unsigned n)
{
    nvmlMemory_t m;
    nvmlReturn_t rc = NVML_SUCCESS;
    for (unsigned i = 0; i < n; i++)
        rc |= N.nvmlDeviceGetMemoryInfo(d, &m);
    return rc;
}

static nvmlReturn_t batch_pci(nvmlDevice_t d, unsigned n)
{
    nvmlPciInfo_t p;
    nvmlReturn_t rc = NVML_SUCCESS;
    for (unsigned i = 0; i < n; i++)
        rc |= N.nvmlDeviceGetPciInfo_v3(d, &p);
    return rc;
}

static nvmlReturn_t batch_temperature(nvmlDevice_t d, unsigned n)
{
    unsigned t;
    nvmlReturn_t rc = NVML_SUCCESS;
    for (unsigned i = 0; i < n; i++)
        rc |= N.nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &t);
    return rc;
}

typedef struct getter {
    const char *name;
    batch_fn batch;
    int on_rules_gpu;   /* also measured on the GPU with live values and rules */
} getter;

static const getter getters[] = {
    { "GetUUID", batch_uuid, 0 },
    { "GetMemoryInfo", batch_memory, 1 },
    { "GetPciInfo_v3", batch_pci, 0 },
    { "GetTemperature", batch_temperature, 1 },
};
#define NGETTERS (sizeof getters / sizeof getters[0])

/* GPU 2 reads a fresh temperature per call, drifts its utilisation and
 * watches temperature, memory and time rules that never fire during the
 * run; the other GPUs are the profile's fixed values. */
static const char config_text[] =
    "version: 1.0\n"
    "seed: 42\n"
    "profile: a100-sxm4-40gb\n"
    "count: 8\n"
    "devices:\n"
    "  - index: 2\n"
    "    temperature: 35-45\n"
    "    memoryUsed: 1000MiB-2000MiB\n"
    "    utilization: {gpu: -1, memory: -1}\n"
    "    unhealthy_on_temperature: 95\n"
    "    unhealthy_on_memory_exceed: 99\n"
    "    unhealthy_after_seconds: 86400\n";

/* --- timing --------------------------------------------------------------------- */

typedef struct job {
    batch_fn batch;
    nvmlDevice_t dev;
    unsigned per_sample;
    int nthreads, index;
    uint64_t t0[SAMPLES], t1[SAMPLES];
} job;

/* All threads leave together; spinning, as a sleeping barrier's wake-up
 * would skew the start of a round by tens of microseconds, but yielding now
 * and then so that a partner waiting for this CPU gets it. */
static _Atomic unsigned barrier_count, barrier_round;

static void barrier(int nthreads)
{
    unsigned round = atomic_load(&barrier_round);
    if (atomic_fetch_add(&barrier_count, 1) + 1 == (unsigned)nthreads) {
        atomic_store(&barrier_count, 0);
        atomic_fetch_add(&barrier_round, 1);
    } else {
        for (unsigned spins = 1; atomic_load(&barrier_round) == round; spins++)
            if (spins % 1024 == 0)
                sched_yield();
    }
}

/* Thread t runs on the t-th CPU this process may use, so that two threads
 * are not queued on one CPU while another is free. */
static void pin(int t)
{
    cpu_set_t allowed, one;
    int seen = 0;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &allowed) && seen++ == t) {
            CPU_ZERO(&one);
            CPU_SET(c, &one);
            pthread_setaffinity_np(pthread_self(), sizeof one, &one);
            return;
        }
}

static void *run_job(void *arg)
{
    job *j = arg;
    if (j->nthreads > 1)
        pin(j->index);
    for (int s = 0; s < SAMPLES; s++) {
        if (j->nthreads > 1)
            barrier(j->nthreads);
        j->t0[s] = bench_now_ns();
        j->batch(j->dev, j->per_sample);
        j->t1[s] = bench_now_ns();
    }
    return NULL;
}

/* Calls per sample so that a sample lasts about SAMPLE_NS. */
static unsigned calibrate(batch_fn batch, nvmlDevice_t dev)
{
    unsigned n = 16;
    batch(dev, 1000); /* warm the caches and the lazy symbol bindings */
    for (;;) {
        uint64_t t0 = bench_now_ns();
        batch(dev, n);
        if (bench_now_ns() - t0 >= SAMPLE_NS || n >= (1u << 24))
            return n;
        n *= 2;
    }
}

typedef struct result {
    double ns;        /* median ns per call over every thread's samples */
    double mcalls;    /* million calls per second, all threads: a fast round (p99) */
} result;

static result measure(batch_fn batch, const nvmlDevice_t *devs, int nthreads, unsigned per_sample)
{
    static job jobs[2];
    static double ns[2 * SAMPLES], rate[SAMPLES];
    pthread_t th[2];
    for (int t = 0; t < nthreads; t++) {
        jobs[t] = (job){ .batch = batch, .dev = devs[t], .per_sample = per_sample,
                         .nthreads = nthreads, .index = t };
        if (pthread_create(&th[t], NULL, run_job, &jobs[t]) != 0)
            bench_die("cannot start a thread");
    }
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    for (int s = 0; s < SAMPLES; s++) {
        uint64_t first = UINT64_MAX, last = 0;
        for (int t = 0; t < nthreads; t++) {
            ns[t * SAMPLES + s] = (double)(jobs[t].t1[s] - jobs[t].t0[s]) / per_sample;
            if (jobs[t].t0[s] < first)
                first = jobs[t].t0[s];
            if (jobs[t].t1[s] > last)
                last = jobs[t].t1[s];
        }
        rate[s] = (double)nthreads * per_sample / (double)(last - first) * 1e3; /* M/s */
    }
    return (result){ bench_median(ns, (size_t)nthreads * SAMPLES),
                     bench_percentile(rate, SAMPLES, RATE_PERCENTILE) };
}

/* --- rows ----------------------------------------------------------------------- */

/* Who calls: one thread on GPU 0; two threads on GPUs 0 and 1; two on GPU 0;
 * then one and two on the GPU with live values and rules. */
typedef struct mode {
    const char *suffix;
    unsigned gpu[2];
    int nthreads;
    int rules;
    const char *note;
} mode;

static const mode modes[] = {
    { "1t", { 0, 0 }, 1, 0, "median" },
    { "2t-own-gpu", { 0, 1 }, 2, 0, "median" },
    { "2t-same-gpu", { 0, 0 }, 2, 0, "median" },
    { "rules-gpu.1t", { RULES_GPU, RULES_GPU }, 1, 1, "median" },
    /* Every read of a live value takes the next number of the device's
     * sequence and publishes the value: two threads hammering one GPU's
     * live value contend for those two cache lines (no lock), which is the
     * price of one reproducible sequence per metric and device. */
    { "rules-gpu.2t-same-gpu", { RULES_GPU, RULES_GPU }, 2, 1,
      "median; both threads share the GPU's live sequence" },
};
#define NMODES (sizeof modes / sizeof modes[0])

/* The ns/call and Mcalls/s rows of one getter called one way; the rate of
 * two threads is also given as a multiple of one thread's (base_rate). */
static double measure_rows(const char *label, const char *target, const char *ns_note,
                           batch_fn batch, const nvmlDevice_t *devs, int nthreads,
                           double base_rate)
{
    char name[176], note[64] = "";
    result r = measure(batch, devs, nthreads, calibrate(batch, devs[0]));
    bench_row(label, r.ns, 1, "ns/call", target, ns_note);
    snprintf(name, sizeof name, "%s.rate", label);
    if (nthreads > 1 && base_rate > 0)
        snprintf(note, sizeof note, "p99 of rounds, x%.2f of 1 thread", r.mcalls / base_rate);
    bench_row(name, r.mcalls, 2, "Mcalls/s", "-", note[0] ? note : "p99 of rounds");
    return r.mcalls;
}

static void na_rows(const char *label, const char *target, nvmlReturn_t rc)
{
    char name[176], why[64];
    if (rc == NVML_ERROR_NOT_SUPPORTED)
        snprintf(why, sizeof why, "(not implemented in this build)");
    else
        snprintf(why, sizeof why, "(answers NVML error %d)", (int)rc);
    bench_row_na(label, "ns/call", target, why);
    snprintf(name, sizeof name, "%s.rate", label);
    bench_row_na(name, "Mcalls/s", "-", why);
}

static void bench_getter(const getter *g, int with_rules)
{
    double base_rate = 0;
    for (size_t i = 0; i < NMODES; i++) {
        const mode *m = &modes[i];
        if (m->rules && (!with_rules || !g->on_rules_gpu))
            continue;
        const char *target = m->rules ? RULES_TARGET : PLAIN_TARGET;
        nvmlDevice_t devs[2] = { bench_device(&N, m->gpu[0]), bench_device(&N, m->gpu[1]) };
        char label[160];
        snprintf(label, sizeof label, "getter.%s.%s", g->name, m->suffix);
        nvmlReturn_t rc = g->batch(devs[0], 1);
        if (rc != NVML_SUCCESS) {
            na_rows(label, target, rc);
            continue;
        }
        double rate = measure_rows(label, target, m->note, g->batch, devs, m->nthreads,
                                   base_rate);
        if (m->nthreads == 1)
            base_rate = rate;
    }
}

/* --- instruction counts ------------------------------------------------------------ */

/* One function per getter and GPU, so that callgrind's inclusive cost of
 * icount_FN is n calls of that getter plus a few loop instructions each.
 * Prints "icount <TAB> icount_FN <TAB> row name <TAB> return code" so that
 * run.sh can name the rows and report only the getters that answer. */
#define ICOUNT_FN(fn, label, batch, gpu) \
    __attribute__((noinline)) static void icount_##fn(unsigned n) \
    { \
        nvmlReturn_t rc = batch(bench_device(&N, gpu), n); \
        printf("icount\ticount_%s\t%s\t%d\n", #fn, label, (int)rc); \
    }
ICOUNT_FN(GetUUID, "GetUUID", batch_uuid, 0)
ICOUNT_FN(GetMemoryInfo, "GetMemoryInfo", batch_memory, 0)
ICOUNT_FN(GetPciInfo_v3, "GetPciInfo_v3", batch_pci, 0)
ICOUNT_FN(GetTemperature, "GetTemperature", batch_temperature, 0)
ICOUNT_FN(GetMemoryInfo_rules, "GetMemoryInfo.rules-gpu", batch_memory, RULES_GPU)
ICOUNT_FN(GetTemperature_rules, "GetTemperature.rules-gpu", batch_temperature, RULES_GPU)

static void icount(unsigned n, int with_rules)
{
    icount_GetUUID(n);
    icount_GetMemoryInfo(n);
    icount_GetPciInfo_v3(n);
    icount_GetTemperature(n);
    if (with_rules) {
        icount_GetMemoryInfo_rules(n);
        icount_GetTemperature_rules(n);
    }
}

int main(int argc, char **argv)
{
    char path[512];
    int with_rules = !bench_peer();
    if (with_rules) {
        snprintf(path, sizeof path, "%s/gpus.yaml", bench_tmpdir());
        bench_write(path, config_text);
        setenv("MOCK_CONFIG_PATH", path, 1);
    }
    bench_load(&N);
    bench_init(&N);
    if (argc == 3 && strcmp(argv[1], "--icount") == 0) {
        icount((unsigned)strtoul(argv[2], NULL, 10), with_rules);
    } else {
        for (size_t i = 0; i < NGETTERS; i++)
            bench_getter(&getters[i], with_rules);
    }
    N.nvmlShutdown();
    return 0;
}
