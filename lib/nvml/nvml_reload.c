/* nvml_reload.c - the hot reload of the config file, and the maintenance
 * that the calls clients make anyway run every 256 calls (nvml_impl.h's
 * mk_enter): due time rules, and a new snapshot when the file changed. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "nvml_impl.h"

/* Whether the file changed. Time stamps tick only every few milliseconds,
 * so a file replaced within one tick by one of the same size is told apart
 * by its inode (editors and `mokka` replace files whole) or change time. */
static int config_changed(const struct stat *a, const struct stat *b)
{
    return a->st_ino != b->st_ino || a->st_dev != b->st_dev || a->st_size != b->st_size ||
           a->st_mtim.tv_sec != b->st_mtim.tv_sec || a->st_mtim.tv_nsec != b->st_mtim.tv_nsec ||
           a->st_ctim.tv_sec != b->st_ctim.tv_sec || a->st_ctim.tv_nsec != b->st_ctim.tv_nsec;
}

/* Frees snapshots retired long enough ago. A call holds a snapshot for the
 * duration of one NVML call, and an event wait takes a fresh one at least
 * every 500 ms, so ten seconds is a wide margin; without it a config
 * rewritten all day would keep every version in memory. */
#define RETIRE_GRACE_NS 10000000000ull

static void free_retired(uint64_t now)
{
    size_t kept = 0;
    for (size_t i = 0; i < mk_L.nretired; i++) {
        if (now - mk_L.retired[i].at_ns > RETIRE_GRACE_NS)
            mk_universe_free(mk_L.retired[i].u);
        else
            mk_L.retired[kept++] = mk_L.retired[i];
    }
    mk_L.nretired = kept;
}

/* Called with the lock held, when the file's mtime or size changed. */
static void reload(void)
{
    mk_diags d;
    char why[256];
    mk_diags_init(&d);
    mk_universe *old = atomic_load(&mk_L.u);
    mk_universe *nu = mk_universe_load(mk_L.config_path, old->node, &d);
    if (!nu) {
        mk_config_report("config reload refused, the running GPUs are unchanged", &d);
    } else if (!mk_universe_same_identity(old, nu, why, sizeof why)) {
        fprintf(stderr, "mokka: config reload of %s refused: %s (identity changes need a "
                "restart); the running GPUs are unchanged\n", mk_L.config_path, why);
        mk_universe_free(nu);
    } else {
        free_retired(mk_now_mono_ns());
        struct mk_retired *r = realloc(mk_L.retired, (mk_L.nretired + 1) * sizeof *r);
        if (!r) {
            mk_universe_free(nu);
        } else {
            mk_L.retired = r;
            mk_L.retired[mk_L.nretired++] = (struct mk_retired){ old, mk_now_mono_ns() };
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
        !atomic_compare_exchange_strong(&mk_L.next_reload_check_ns, &due, now + MK_RELOAD_PERIOD_NS))
        return;
    if (pthread_mutex_trylock(&mk_L.lock) != 0)
        return; /* init, shutdown or another reload is busy: look again later */
    if (atomic_load(&mk_L.refs) > 0)
        mk_live_tick(&mk_L.live, mk_universe_now());
    if (atomic_load(&mk_L.refs) > 0 && mk_L.config_path) {
        struct stat sb;
        mk_config_stat(mk_L.config_path, &sb);
        if (config_changed(&sb, &mk_L.config_stat)) {
            mk_L.config_stat = sb;
            if (sb.st_ino)
                reload();
        }
    }
    pthread_mutex_unlock(&mk_L.lock);
}
