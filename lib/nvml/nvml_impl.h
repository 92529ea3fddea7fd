/* nvml_impl.h - what the NVML entry points share: the ABI declarations,
 * function ids for call counting, the process-wide library context, and the
 * handle checks every getter starts with.
 *
 * The hot path of a getter: count the call (a relaxed atomic add on this
 * thread's own counter row), check the handle (pointer range arithmetic, no
 * lock), read the immutable universe snapshot and, for live metrics, the
 * lock-free live state. Config reloads swap the snapshot pointer; an old
 * snapshot stays alive for a grace period far longer than any call that
 * read the pointer before the swap can take, so no getter reads freed
 * memory and no lock is needed to know it. */
#ifndef MOKKA_NVML_IMPL_H
#define MOKKA_NVML_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "abi/nvml_abi.h"
#include "fntable.h"
#include "live.h"
#include "strfield.h"
#include "state.h"
#include "universe.h"
#include "visible.h"

/* One id per exported NVML function (generated from exports.list). */
typedef enum {
#define MK_FN_ENUM(name) MK_FN_##name,
    MK_FN_LIST(MK_FN_ENUM)
#undef MK_FN_ENUM
    MK_FN__COUNT
} mk_fn;

extern const char *const mk_fn_names[MK_FN__COUNT];

/* Opaque NVML handles. Their addresses are stable from the first nvmlInit to
 * the end of the process (clients keep handles across init/shutdown pairs). */
struct nvmlDevice_st {
    uint32_t gpu;        /* device index */
    int32_t mig;         /* MIG device index on that GPU, -1 for the whole GPU */
};
struct nvmlGpuInstance_st {
    uint32_t gpu;
    uint32_t mig;
};
struct nvmlComputeInstance_st {
    uint32_t gpu;
    uint32_t mig;
};

#define MK_MAX_EVENT_SETS 256

typedef struct mk_lib {
    pthread_mutex_t lock;             /* init, shutdown, reload: never on the hot path */
    _Atomic int refs;                 /* nvmlInit reference count */
    mk_universe *_Atomic u;           /* current snapshot */
    struct mk_retired { mk_universe *u; uint64_t at_ns; } *retired;
    size_t nretired;                  /* snapshots replaced by reloads (see reload()) */
    mk_state st;
    mk_live live;
    /* handles: gpus[ndev], migs/gis/cis[total MIG devices], mig_base[gpu] = first index */
    struct nvmlDevice_st *gpus, *migs;
    struct nvmlGpuInstance_st *gis;
    struct nvmlComputeInstance_st *cis;
    size_t ngpus, nmigs, *mig_base;
    /* the container's view (NVIDIA_VISIBLE_DEVICES, read at the first init):
     * enumeration hands out only its GPUs and MIG devices, renumbered */
    mk_visible vis;
    /* hot reload */
    char *config_path;
    _Atomic uint64_t next_reload_check_ns;
    struct stat config_stat;          /* the file when last looked at (all 0: absent) */
} mk_lib;

extern mk_lib mk_L;

/* nvml_debug.c: with `debug: true` and no MOKKA_CLI, the one HTTP thread
 * serving /metrics (once per process); mk_L.lock held. */
void mk_debug_start_locked(const mk_universe *u);

/* --- entering a function ------------------------------------------------------ */

extern _Atomic unsigned mk_next_slot;
extern __thread unsigned mk_tls_slot __attribute__((tls_model("initial-exec")));
extern __thread unsigned mk_tls_calls __attribute__((tls_model("initial-exec")));

/* nvml_reload.c: due time rules, and a reload when the config file changed
 * (at most every MK_RELOAD_PERIOD_NS across threads). */
#define MK_RELOAD_PERIOD_NS 500000000ull
void mk_maintenance(void);

static inline unsigned mk_slot(void)
{
    unsigned s = mk_tls_slot;
    if (__builtin_expect(s == 0, 0)) {
        s = atomic_fetch_add_explicit(&mk_next_slot, 1, memory_order_relaxed) % MK_STATE_SLOTS + 1;
        mk_tls_slot = s;
    }
    return s - 1;
}

/* Counts a call; every 256 calls of a thread, looks whether the config file
 * changed (no more often than every 500 ms across threads). */
static inline int mk_enter(mk_fn fn)
{
    if (__builtin_expect(!atomic_load_explicit(&mk_L.refs, memory_order_acquire), 0))
        return 0;
    mk_state_count(&mk_L.st, mk_slot(), fn, 0);
    if (__builtin_expect((++mk_tls_calls & 255) == 0, 0))
        mk_maintenance();
    return 1;
}

#define MK_ENTER(name) \
    do { if (!mk_enter(MK_FN_##name)) return NVML_ERROR_UNINITIALIZED; } while (0)

/* Returns NOT_SUPPORTED and counts it, so users learn what they depend on. */
static inline nvmlReturn_t mk_unsupported(mk_fn fn)
{
    _Atomic uint64_t *row = mk_L.st.counters + (size_t)mk_slot() * 2 * mk_L.st.hdr->nfn;
    atomic_fetch_add_explicit(&row[mk_L.st.hdr->nfn + fn], 1, memory_order_relaxed);
    return NVML_ERROR_NOT_SUPPORTED;
}
#define MK_UNSUPPORTED(name) return mk_unsupported(MK_FN_##name)

/* The body of every function in stubs.list. */
nvmlReturn_t mk_stub(mk_fn fn);

/* The config file's stat (all 0 when absent or NULL), and one stderr line
 * for a config problem with the first error's position. */
void mk_config_stat(const char *path, struct stat *sb);
void mk_config_report(const char *what, const mk_diags *d);

/* --- handles ------------------------------------------------------------------ */

typedef struct mk_ref {
    const mk_universe *u;
    const mk_device *d;       /* the GPU (the parent, for a MIG device) */
    unsigned gpu;
    int mig;                  /* -1: whole GPU */
    const mk_mig_dev *m;      /* MIG device or NULL */
} mk_ref;

static inline const mk_universe *mk_universe_now(void)
{
    return atomic_load_explicit(&mk_L.u, memory_order_acquire);
}

static inline int mk_gpu_lost(unsigned gpu)
{
    return atomic_load_explicit(&mk_L.st.dev[gpu].health, memory_order_relaxed) == MK_FAULT_LOST;
}

/* Any device handle, GPU or MIG. */
static inline nvmlReturn_t mk_any(nvmlDevice_t h, mk_ref *r)
{
    uintptr_t p = (uintptr_t)h;
    const struct nvmlDevice_st *dev;
    if (p - (uintptr_t)mk_L.gpus < mk_L.ngpus * sizeof *mk_L.gpus)
        dev = &mk_L.gpus[(p - (uintptr_t)mk_L.gpus) / sizeof *mk_L.gpus];
    else if (p - (uintptr_t)mk_L.migs < mk_L.nmigs * sizeof *mk_L.migs)
        dev = &mk_L.migs[(p - (uintptr_t)mk_L.migs) / sizeof *mk_L.migs];
    else
        return NVML_ERROR_INVALID_ARGUMENT;
    if ((const void *)dev != (const void *)h)
        return NVML_ERROR_INVALID_ARGUMENT; /* points into the middle of a handle */
    r->u = mk_universe_now();
    r->gpu = dev->gpu;
    r->d = &r->u->dev[dev->gpu];
    r->mig = dev->mig;
    r->m = dev->mig >= 0 ? &r->d->mig[dev->mig] : NULL;
    return NVML_SUCCESS;
}

/* A whole-GPU handle; MIG device handles answer NOT_SUPPORTED, as on a real
 * driver for queries that only make sense for the physical GPU. */
static inline nvmlReturn_t mk_gpu(nvmlDevice_t h, mk_ref *r)
{
    nvmlReturn_t rc = mk_any(h, r);
    if (rc == NVML_SUCCESS && r->mig >= 0)
        return NVML_ERROR_NOT_SUPPORTED;
    return rc;
}

/* A GPU whose telemetry is read: a GPU lost by a `mode: lost` fault answers
 * GPU_IS_LOST. Identity (UUID, name, PCI info, minor) stays readable, as the
 * driver keeps it, so that clients can still tell which GPU was lost. */
static inline nvmlReturn_t mk_gpu_live(nvmlDevice_t h, mk_ref *r)
{
    nvmlReturn_t rc = mk_gpu(h, r);
    if (rc == NVML_SUCCESS && mk_gpu_lost(r->gpu))
        return NVML_ERROR_GPU_IS_LOST;
    return rc;
}

/* Resolve a handle or return its error. */
#define MK_GPU(h, r) do { nvmlReturn_t rc_ = mk_gpu((h), (r)); if (rc_) return rc_; } while (0)
#define MK_LIVE(h, r) do { nvmlReturn_t rc_ = mk_gpu_live((h), (r)); if (rc_) return rc_; } while (0)
#define MK_ANY(h, r) do { nvmlReturn_t rc_ = mk_any((h), (r)); if (rc_) return rc_; } while (0)
#define MK_NONNULL(p) do { if (!(p)) return NVML_ERROR_INVALID_ARGUMENT; } while (0)

/* Copies a string into a caller's buffer of `len` bytes: INSUFFICIENT_SIZE
 * when it does not fit, as NVML does. */
static inline nvmlReturn_t mk_copy_str(char *dst, unsigned len, const char *src)
{
    size_t n = strlen(src);
    if (!dst)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (n + 1 > len)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(dst, src, n + 1);
    return NVML_SUCCESS;
}

/* A live metric of a GPU, NOT_SUPPORTED when it has no such sensor. */
static inline nvmlReturn_t mk_metric_get(const mk_ref *r, mk_metric m, int64_t *v)
{
    return mk_live_read(&mk_L.live, r->u, r->gpu, m, v) == 0 ? NVML_SUCCESS
                                                            : NVML_ERROR_NOT_SUPPORTED;
}

/* Whether universe GPU i is in this process's view. */
static inline int mk_gpu_shown(unsigned i)
{
    return mk_L.vis.pos[i] >= 0;
}

/* Device handle for GPU i / MIG device j of GPU i (universe indexes). */
static inline nvmlDevice_t mk_gpu_handle(unsigned i)
{
    return &mk_L.gpus[i];
}
static inline nvmlDevice_t mk_mig_handle(unsigned gpu, unsigned j)
{
    return &mk_L.migs[mk_L.mig_base[gpu] + j];
}

#endif
