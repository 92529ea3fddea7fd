/* nvml_init.c - nvmlInit*, nvmlShutdown: loading the universe, attaching the
 * live state, device handles, the process's view and fork safety. The context they fill is in
 * nvml_lib.c, the hot reload in nvml_reload.c.
 *
 * Nothing runs at load time (no constructor, no thread): a host may dlopen
 * and dlclose the library several times before it calls anything. The one
 * thread there can be is `debug: true`'s (nvml_debug.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nvml_impl.h"
#include "textesc.h"

static const char *config_path_from_env(void)
{
    const char *p = getenv("MOCK_CONFIG_PATH");
    if (!p || !*p)
        p = getenv("MOKKA_CONFIG");
    return p && *p ? p : NULL;
}

/* Device handles live until the process ends, and are reused when the next
 * init has the same shape, so a client's handles stay valid across cycles. */
static int build_handles(const mk_universe *u)
{
    size_t nmigs = 0;
    for (size_t i = 0; i < u->ndev; i++)
        nmigs += u->dev[i].nmig;
    if (mk_L.gpus && mk_L.ngpus == u->ndev && mk_L.nmigs == nmigs) {
        size_t k = 0;
        for (size_t i = 0; i < u->ndev; i++) {
            mk_L.mig_base[i] = k;
            k += u->dev[i].nmig;
        }
        return 0;
    }
    free(mk_L.gpus);
    free(mk_L.migs);
    free(mk_L.gis);
    free(mk_L.cis);
    free(mk_L.mig_base);
    mk_L.gpus = calloc(u->ndev, sizeof *mk_L.gpus);
    mk_L.mig_base = calloc(u->ndev, sizeof *mk_L.mig_base);
    mk_L.migs = calloc(nmigs ? nmigs : 1, sizeof *mk_L.migs);
    mk_L.gis = calloc(nmigs ? nmigs : 1, sizeof *mk_L.gis);
    mk_L.cis = calloc(nmigs ? nmigs : 1, sizeof *mk_L.cis);
    if (!mk_L.gpus || !mk_L.mig_base || !mk_L.migs || !mk_L.gis || !mk_L.cis)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < u->ndev; i++) {
        mk_L.gpus[i] = (struct nvmlDevice_st){ (uint32_t)i, -1 };
        mk_L.mig_base[i] = k;
        for (size_t j = 0; j < u->dev[i].nmig; j++, k++) {
            mk_L.migs[k] = (struct nvmlDevice_st){ (uint32_t)i, (int32_t)j };
            mk_L.gis[k] = (struct nvmlGpuInstance_st){ (uint32_t)i, (uint32_t)j };
            mk_L.cis[k] = (struct nvmlComputeInstance_st){ (uint32_t)i, (uint32_t)j };
        }
    }
    mk_L.ngpus = u->ndev;
    mk_L.nmigs = nmigs;
    return 0;
}

/* The container's view, read from the environment once per first init
 * (visible.h: NVIDIA_VISIBLE_DEVICES, and the variables of Mokka's CDI
 * devices); what it names that the universe lacks is one stderr line. */
static int build_view(const mk_universe *u)
{
    char unknown[512], shown[1024], *spec;
    int cdi = mk_visible_env_spec(environ, &spec);
    mk_visible_free(&mk_L.vis);
    if (cdi < 0 || mk_visible_parse(u, spec, &mk_L.vis, unknown, sizeof unknown) != 0) {
        free(spec);
        return -1;
    }
    if (unknown[0])   /* the value escaped: it is the container's, not ours (textesc.h) */
        fprintf(stderr, "mokka: %s%s=%s: no such GPU or MIG device in this universe: "
                "%s; left out (%zu GPU%s visible)\n", MK_VISIBLE_ENV,
                cdi ? " with " MK_VISIBLE_GPU_ENV "*" : "",
                mk_text_escape(spec, 200, shown, sizeof shown), unknown, mk_L.vis.n,
                mk_L.vis.n == 1 ? "" : "s");
    free(spec);
    return 0;
}

static void fork_prepare(void) { pthread_mutex_lock(&mk_L.lock); }
static void fork_parent(void) { pthread_mutex_unlock(&mk_L.lock); }
static void fork_child(void)
{
    /* Only the forking thread survives; the lock it held is re-made. */
    pthread_mutex_init(&mk_L.lock, NULL);
}

static void register_atfork(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static nvmlReturn_t first_init(void)
{
    mk_diags d;
    char err[512];
    const char *path = config_path_from_env();
    struct stat seen;
    mk_diags_init(&d);
    mk_config_stat(path, &seen);  /* before reading: a change while it is read is seen later */
    mk_universe *u = mk_universe_load(path, NULL, &d);
    if (!u) {
        char what[600];
        snprintf(what, sizeof what, "cannot load the GPU config %s", path ? path : "(built-in)");
        mk_config_report(what, &d);
        mk_diags_free(&d);
        return NVML_ERROR_UNKNOWN;
    }
    mk_diags_free(&d);
    const char *dir = getenv("MOKKA_STATE_DIR");
    if (mk_state_open(&mk_L.st, dir, u, (const char *const *)mk_fn_names, MK_FN__COUNT, err,
                      sizeof err) != 0) {
        fprintf(stderr, "mokka: live state: %s; using private memory (mokka stats and "
                "inject cannot reach this process)\n", err);
        if (mk_state_open(&mk_L.st, NULL, u, (const char *const *)mk_fn_names, MK_FN__COUNT, err,
                          sizeof err) != 0) {
            fprintf(stderr, "mokka: %s\n", err);
            mk_universe_free(u);
            return NVML_ERROR_MEMORY;
        }
    }
    if (mk_live_init(&mk_L.live, &mk_L.st, u) != 0 || build_handles(u) != 0 ||
        build_view(u) != 0) {
        mk_live_free(&mk_L.live);
        mk_state_close(&mk_L.st);
        mk_universe_free(u);
        return NVML_ERROR_MEMORY;
    }
    free(mk_L.config_path);
    mk_L.config_path = path ? strdup(path) : NULL;
    mk_L.config_stat = seen;
    atomic_store(&mk_L.next_reload_check_ns, mk_now_mono_ns() + MK_RELOAD_PERIOD_NS);
    atomic_store_explicit(&mk_L.u, u, memory_order_release);
    mk_live_tick(&mk_L.live, u); /* rules already due (unhealthy_after_seconds: 0) fire now */
    mk_debug_start_locked(u);
    return NVML_SUCCESS;
}

static void last_shutdown(void)
{
    mk_universe *u = atomic_exchange(&mk_L.u, NULL);
    mk_live_free(&mk_L.live);
    mk_state_close(&mk_L.st);
    mk_universe_free(u);
    for (size_t i = 0; i < mk_L.nretired; i++)
        mk_universe_free(mk_L.retired[i].u);
    free(mk_L.retired);
    mk_L.retired = NULL;
    mk_L.nretired = 0;
    free(mk_L.config_path);
    mk_L.config_path = NULL;
}

static nvmlReturn_t init(void)
{
    static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
    nvmlReturn_t rc = NVML_SUCCESS;
    /* Before the lock is ever taken: a fork() in another thread before the
     * handlers exist would give a child whose lock is held forever, and
     * registering them while holding the lock deadlocks with a fork() that
     * is running its handlers (it holds the C library's atfork lock and
     * waits for ours). */
    pthread_once(&atfork_once, register_atfork);
    pthread_mutex_lock(&mk_L.lock);
    int refs = atomic_load(&mk_L.refs);
    if (refs == 0)
        rc = first_init();
    if (rc == NVML_SUCCESS)
        atomic_store_explicit(&mk_L.refs, refs + 1, memory_order_release);
    pthread_mutex_unlock(&mk_L.lock);
    return rc;
}

MK_API nvmlReturn_t nvmlInit_v2(void)
{
    return init();
}

MK_API nvmlReturn_t nvmlInit(void)
{
    return init();
}

MK_API nvmlReturn_t nvmlInitWithFlags(unsigned int flags)
{
    (void)flags; /* NO_GPUS and NO_ATTACH change nothing for a virtual universe */
    return init();
}

MK_API nvmlReturn_t nvmlShutdown(void)
{
    nvmlReturn_t rc = NVML_SUCCESS;
    pthread_mutex_lock(&mk_L.lock);
    int refs = atomic_load(&mk_L.refs);
    if (refs == 0) {
        rc = NVML_ERROR_UNINITIALIZED;
    } else {
        atomic_store(&mk_L.refs, refs - 1);
        if (refs == 1)
            last_shutdown();
    }
    pthread_mutex_unlock(&mk_L.lock);
    return rc;
}
