/* nvml_init.c - nvmlInit*, nvmlShutdown and the library context: loading the
 * universe, attaching the live state, device handles, fork safety, and the
 * hot reload of the config file.
 *
 * Nothing runs at load time (no constructor, no thread): a host may dlopen
 * and dlclose the library several times before it calls anything. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "nvml_impl.h"

mk_lib mk_L = { .lock = PTHREAD_MUTEX_INITIALIZER };
_Atomic unsigned mk_next_slot;
__thread unsigned mk_tls_slot __attribute__((tls_model("initial-exec")));
__thread unsigned mk_tls_calls __attribute__((tls_model("initial-exec")));

#define RELOAD_PERIOD_NS 500000000ull

static const char *config_path_from_env(void)
{
    const char *p = getenv("MOCK_CONFIG_PATH");
    if (!p || !*p)
        p = getenv("MOKKA_CONFIG");
    return p && *p ? p : NULL;
}

/* One stderr line for a config problem, with the first error's position. */
static void report_config(const char *what, const mk_diags *d)
{
    const mk_diag *g = mk_diags_first_error(d);
    char line[1024];
    if (!g) {
        fprintf(stderr, "mokka: %s\n", what);
        return;
    }
    mk_diag_format(g, line, sizeof line);
    if (d->errors > 1)
        fprintf(stderr, "mokka: %s: %s (and %zu more; run `mokka lint` on the file)\n", what,
                line, d->errors - 1);
    else
        fprintf(stderr, "mokka: %s: %s\n", what, line);
}

static void stat_config(int64_t *mtime_ns, off_t *size)
{
    struct stat sb;
    *mtime_ns = -1;
    *size = -1;
    if (mk_L.config_path && stat(mk_L.config_path, &sb) == 0) {
        *mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec;
        *size = sb.st_size;
    }
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
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    mk_diags d;
    char err[512];
    const char *path = config_path_from_env();
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load(path, NULL, &d);
    if (!u) {
        char what[600];
        snprintf(what, sizeof what, "cannot load the GPU config %s", path ? path : "(built-in)");
        report_config(what, &d);
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
    if (mk_live_init(&mk_L.live, &mk_L.st, u) != 0 || build_handles(u) != 0) {
        mk_live_free(&mk_L.live);
        mk_state_close(&mk_L.st);
        mk_universe_free(u);
        return NVML_ERROR_MEMORY;
    }
    free(mk_L.config_path);
    mk_L.config_path = path ? strdup(path) : NULL;
    stat_config(&mk_L.config_mtime_ns, &mk_L.config_size);
    atomic_store(&mk_L.next_reload_check_ns, mk_now_mono_ns() + RELOAD_PERIOD_NS);
    atomic_store_explicit(&mk_L.u, u, memory_order_release);
    mk_live_tick(&mk_L.live, u); /* rules already due (unhealthy_after_seconds: 0) fire now */
    pthread_once(&once, register_atfork);
    return NVML_SUCCESS;
}

static void last_shutdown(void)
{
    mk_universe *u = atomic_exchange(&mk_L.u, NULL);
    mk_live_free(&mk_L.live);
    mk_state_close(&mk_L.st);
    mk_universe_free(u);
    for (size_t i = 0; i < mk_L.nretired; i++)
        mk_universe_free(mk_L.retired[i]);
    free(mk_L.retired);
    mk_L.retired = NULL;
    mk_L.nretired = 0;
    free(mk_L.config_path);
    mk_L.config_path = NULL;
}

static nvmlReturn_t init(void)
{
    nvmlReturn_t rc = NVML_SUCCESS;
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

nvmlReturn_t mk_stub(mk_fn fn)
{
    if (!atomic_load_explicit(&mk_L.refs, memory_order_acquire))
        return NVML_ERROR_UNINITIALIZED;
    mk_state_count(&mk_L.st, mk_slot(), fn, 1);
    return NVML_ERROR_NOT_SUPPORTED;
}

/* --- hot reload ----------------------------------------------------------------- */

/* Called with the lock held, when the file's mtime or size changed. */
static void reload(void)
{
    mk_diags d;
    char why[256];
    mk_diags_init(&d);
    mk_universe *old = atomic_load(&mk_L.u);
    mk_universe *nu = mk_universe_load(mk_L.config_path, old->node, &d);
    if (!nu) {
        report_config("config reload refused, the running GPUs are unchanged", &d);
    } else if (!mk_universe_same_identity(old, nu, why, sizeof why)) {
        fprintf(stderr, "mokka: config reload of %s refused: %s (identity changes need a "
                "restart); the running GPUs are unchanged\n", mk_L.config_path, why);
        mk_universe_free(nu);
    } else {
        mk_universe **r = realloc(mk_L.retired, (mk_L.nretired + 1) * sizeof *r);
        if (!r) {
            mk_universe_free(nu);
        } else {
            mk_L.retired = r;
            mk_L.retired[mk_L.nretired++] = old;
            nu->seed = old->seed; /* a reload continues the sequences, it does not restart them */
            nu->has_seed = old->has_seed;
            for (size_t i = 0; i < nu->ndev; i++)
                for (int m = 0; m < MK_M_COUNT; m++)
                    if (nu->dev[i].lv[m].kind == MK_LV_FIXED)
                        atomic_store(&mk_L.st.dev[i].value[m], nu->dev[i].lv[m].lo);
            mk_live_rules_changed(&mk_L.live, old, nu);
            atomic_store_explicit(&mk_L.u, nu, memory_order_release);
            atomic_fetch_add(&mk_L.st.hdr->reloads, 1);
            mk_state_wake(&mk_L.st);
        }
    }
    mk_diags_free(&d);
}

/* Also fires due time rules, for clients that never wait for events. */
void mk_maintenance(void)
{
    uint64_t now = mk_now_mono_ns();
    uint64_t due = atomic_load_explicit(&mk_L.next_reload_check_ns, memory_order_relaxed);
    if (now < due ||
        !atomic_compare_exchange_strong(&mk_L.next_reload_check_ns, &due, now + RELOAD_PERIOD_NS))
        return;
    if (pthread_mutex_trylock(&mk_L.lock) != 0)
        return; /* init, shutdown or another reload is busy: look again later */
    if (atomic_load(&mk_L.refs) > 0)
        mk_live_tick(&mk_L.live, mk_universe_now());
    if (atomic_load(&mk_L.refs) > 0 && mk_L.config_path) {
        int64_t mtime;
        off_t size;
        stat_config(&mtime, &size);
        if (mtime != mk_L.config_mtime_ns || size != mk_L.config_size) {
            mk_L.config_mtime_ns = mtime;
            mk_L.config_size = size;
            if (mtime >= 0)
                reload();
        }
    }
    pthread_mutex_unlock(&mk_L.lock);
}
