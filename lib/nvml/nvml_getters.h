/* nvml_getters.h - what the telemetry getters share beyond nvml_impl.h:
 * reading a live metric, GPU-or-MIG handles of a GPU that is not lost,
 * NVML's convention for functions that fill a caller's array, and the model
 * of what ECC errors do to memory. */
#ifndef MOKKA_NVML_GETTERS_H
#define MOKKA_NVML_GETTERS_H

#include "nvml_impl.h"

/* Reads live metric m of r's GPU into *out; a GPU without that sensor makes
 * the calling function answer NOT_SUPPORTED, counted against `name`. */
#define MK_METRIC(name, r, m, out) \
    do { if (mk_metric_get((r), (m), (out))) MK_UNSUPPORTED(name); } while (0)

/* A live value as the unsigned int most getters answer (never negative). */
static inline unsigned mk_uint(int64_t v)
{
    return v < 0 ? 0 : (unsigned)v;
}

/* Any device handle, GPU or MIG, of a GPU that is not lost: for what the
 * driver also reports per MIG device (memory, processes). */
static inline nvmlReturn_t mk_any_live(nvmlDevice_t h, mk_ref *r)
{
    nvmlReturn_t rc = mk_any(h, r);
    if (rc == NVML_SUCCESS && mk_gpu_lost(r->gpu))
        return NVML_ERROR_GPU_IS_LOST;
    return rc;
}
#define MK_ANY_LIVE(h, r) do { nvmlReturn_t rc_ = mk_any_live((h), (r)); if (rc_) return rc_; } while (0)

/* NVML's list convention. The caller's array has room for *count entries
 * (none when it is NULL); the function fills min(room, n) of them, sets
 * *count to n, and answers INSUFFICIENT_SIZE when n did not fit, so that a
 * first call with a NULL array asks how many there are. None at all is
 * SUCCESS with 0. */
static inline unsigned mk_list_room(const unsigned int *count, const void *array)
{
    return array ? *count : 0;
}

static inline nvmlReturn_t mk_list_done(unsigned int *count, unsigned room, unsigned n)
{
    *count = n;
    return n > room ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}

/* Microseconds since 1970, the unit of NVML's sample timestamps. */
static inline long long mk_now_us(void)
{
    return (long long)(mk_now_real_ns() / 1000);
}

/* --- memory health: what double-bit ECC errors do to a GPU's memory ----------- */

/* GPUs from Ampere on replace a failing DRAM row with a spare one (row
 * remapping); older GPUs retire the page instead. Every double-bit error
 * costs one: the model puts them all in one bank with MK_SPARE_ROWS spare
 * rows, so that a GPU that keeps failing runs out and reports a remapping
 * failure. Either repair is pending until the GPU is reset. */
#define MK_SPARE_ROWS 8u

static inline int mk_remaps_rows(const mk_device *d)
{
    return d->arch >= NVML_DEVICE_ARCH_AMPERE;
}

/* Rows remapped for uncorrectable errors, whether a remapping waits for a
 * reset, and whether one failed. */
static inline void mk_remapped_rows(uint64_t dbe, unsigned *unc, unsigned *pending, unsigned *failed)
{
    *unc = dbe < MK_SPARE_ROWS ? (unsigned)dbe : MK_SPARE_ROWS;
    *pending = dbe > 0;
    *failed = dbe > MK_SPARE_ROWS;
}

/* Pages retired for double-bit errors (the driver keeps at most 64). */
static inline unsigned mk_retired_pages(uint64_t dbe)
{
    return dbe < 64 ? (unsigned)dbe : 64;
}

/* The running processes of one list (nvml_processes.c): visit is called
 * for each with its position in the list and the GPU and compute instance
 * ids it runs in; answers how many there are. */
typedef enum { MK_PROCS_COMPUTE, MK_PROCS_GRAPHICS, MK_PROCS_MPS } mk_proc_list;
typedef void mk_process_visit(void *ctx, unsigned k, const mk_process *p, unsigned gi, unsigned ci);
unsigned mk_processes_each(const mk_ref *r, mk_proc_list which, mk_process_visit *visit, void *ctx);

#endif
