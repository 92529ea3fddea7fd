/* bench_events.c - the event path: from an XID injected by another process
 * to nvmlEventSetWait_v2 returning in a thread that waits for it, as a
 * device plugin's health checker does.
 *
 * The injector is a child process that writes the fault into the shared
 * state file with mk_state_raise (what `mokka inject` does) and sends the
 * CLOCK_MONOTONIC time it did so back through a pipe; the waiting thread
 * takes the time when its wait returns. Before each injection the waiter
 * asks for it and the injector lets ~1 ms pass, so that the waiter is
 * asleep in the futex and the wake-up is measured, not a ready event. */
#include <pthread.h>
#include "bench.h"
#include "state.h"

#define INJECTIONS 200
#define SETTLE_NS 1000000ull
#define XID 79

typedef struct pipes {
    int ask[2];     /* waiter -> injector: inject now */
    int told[2];    /* injector -> waiter: the time it injected */
} pipes;

/* --- the injector ------------------------------------------------------------------ */

static void read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len) {
        ssize_t r = read(fd, p, len);
        if (r <= 0)
            bench_die("the other side of the event bench went away");
        p += r;
        len -= (size_t)r;
    }
}

static void write_all(int fd, const void *buf, size_t len)
{
    if (write(fd, buf, len) != (ssize_t)len)
        bench_die("cannot write to the other side of the event bench: %s", strerror(errno));
}

static int injector(pipes *k, const char *state_path)
{
    mk_state st;
    char err[256], c;
    read_all(k->ask[0], &c, 1); /* the first ask comes once the library made the file */
    if (mk_state_open_existing(&st, state_path, err, sizeof err) != 0)
        bench_die("%s", err);
    for (;;) {
        bench_sleep_ns(SETTLE_NS);
        uint64_t t0 = mk_now_mono_ns();
        mk_state_raise(&st, 0, MK_FAULT_XID, XID, -1);
        write_all(k->told[1], &t0, sizeof t0);
        if (read(k->ask[0], &c, 1) != 1)
            break; /* the waiter is done */
    }
    mk_state_close(&st);
    return 0;
}

/* --- the waiter --------------------------------------------------------------------- */

typedef struct waiter {
    bench_nvml *n;
    nvmlEventSet_t set;
    pipes *k;
    double us[INJECTIONS];
} waiter;

static void *wait_events(void *arg)
{
    waiter *w = arg;
    for (int i = 0; i < INJECTIONS; i++) {
        nvmlEventData_t e;
        uint64_t t0;
        write_all(w->k->ask[1], "i", 1);
        nvmlReturn_t rc = w->n->nvmlEventSetWait_v2(w->set, &e, 5000);
        uint64_t t1 = bench_now_ns();
        if (rc != NVML_SUCCESS || e.eventData != XID)
            bench_die("injection %d: nvmlEventSetWait_v2 answered %d, event data %llu", i, (int)rc,
                      (unsigned long long)e.eventData);
        read_all(w->k->told[0], &t0, sizeof t0);
        w->us[i] = (double)(t1 - t0) / 1e3;
    }
    return NULL;
}

int main(void)
{
    static waiter w;
    bench_nvml n;
    pipes k;
    char state_path[512];
    if (bench_peer()) {
        bench_row_na("events.xid-to-wait", "us", "-", "(needs Mokka's state file)");
        return 0;
    }
    const char *dir = bench_tmpdir();
    snprintf(state_path, sizeof state_path, "%s/state", dir);
    setenv("MOKKA_STATE_DIR", dir, 1);
    unsetenv("MOCK_CONFIG_PATH"); /* the built-in 8 GPUs */
    if (pipe(k.ask) != 0 || pipe(k.told) != 0)
        bench_die("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0)
        bench_die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(k.ask[1]);
        close(k.told[0]);
        _exit(injector(&k, state_path));
    }
    close(k.ask[0]);
    close(k.told[1]);

    bench_load(&n);
    bench_init(&n);
    if (n.nvmlEventSetCreate(&w.set) != NVML_SUCCESS ||
        n.nvmlDeviceRegisterEvents(bench_device(&n, 0), nvmlEventTypeXidCriticalError, w.set) != NVML_SUCCESS)
        bench_die("cannot register for XID events on GPU 0");
    w.n = &n;
    w.k = &k;
    pthread_t th;
    if (pthread_create(&th, NULL, wait_events, &w) != 0)
        bench_die("cannot start the waiting thread");
    pthread_join(th, NULL);
    close(k.ask[1]); /* tells the injector to stop */
    waitpid(pid, NULL, 0);

    char note[96];
    snprintf(note, sizeof note, "mk_state_raise in another process to the wait returning, %d XIDs",
             INJECTIONS);
    double median = bench_median(w.us, INJECTIONS);
    bench_row("events.xid-to-wait.median", median, 1, "us", "-", note);
    bench_row("events.xid-to-wait.p99", bench_percentile(w.us, INJECTIONS, 99), 1, "us", "-", "");
    bench_row("events.xid-to-wait.max", bench_percentile(w.us, INJECTIONS, 100), 1, "us", "-", "");
    n.nvmlEventSetFree(w.set);
    n.nvmlShutdown();
    return 0;
}
