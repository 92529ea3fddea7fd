/* nvml_processes.c - running processes (compute, graphics, MPS; every
 * struct version), per-process utilisation samples, and accounting.
 *
 * The processes are the device's configured `processes:` list: every one
 * runs compute work and those of type graphics or both also appear as
 * graphics processes; none is an MPS client. On a GPU in MIG mode they run
 * in its first MIG device, so they carry that device's GPU and compute
 * instance ids and its handle lists them; elsewhere the ids are 0xFFFFFFFF,
 * as on a GPU without MIG. */
#include "nvml_getters.h"

#define NO_INSTANCE 0xFFFFFFFFu

static int listed(const mk_ref *r, const mk_process *p, mk_proc_list which)
{
    if (which == MK_PROCS_MPS || (which == MK_PROCS_GRAPHICS && !p->graphics))
        return 0;
    return r->mig <= 0; /* the whole GPU, or its first MIG device */
}

unsigned mk_processes_each(const mk_ref *r, mk_proc_list which, mk_process_visit *visit, void *ctx)
{
    int in_mig = r->d->mig_enabled && r->d->nmig;
    unsigned gi = in_mig ? r->d->mig[0].gi_id : NO_INSTANCE;
    unsigned ci = in_mig ? r->d->mig[0].ci_id : NO_INSTANCE;
    unsigned n = 0;
    for (size_t i = 0; i < r->d->nprocs; i++)
        if (listed(r, &r->d->procs[i], which))
            visit(ctx, n++, &r->d->procs[i], gi, ci);
    return n;
}

struct public_list {
    unsigned room;
    nvmlProcessInfo_v1_t *v1;
    nvmlProcessInfo_v2_t *v2;
};

static void put_public(void *ctx, unsigned k, const mk_process *p, unsigned gi, unsigned ci)
{
    struct public_list *l = ctx;
    if (k >= l->room)
        return;
    if (l->v1)
        l->v1[k] = (nvmlProcessInfo_v1_t){ p->pid, p->used_memory };
    else
        l->v2[k] = (nvmlProcessInfo_v2_t){ p->pid, p->used_memory, gi, ci };
}

/* Fills v1 or v2 entries (the caller passes one array, the other NULL). */
static nvmlReturn_t processes(nvmlDevice_t device, mk_proc_list which, unsigned int *count,
                              nvmlProcessInfo_v1_t *v1, nvmlProcessInfo_v2_t *v2)
{
    mk_ref r;
    MK_ANY_LIVE(device, &r);
    MK_NONNULL(count);
    struct public_list l = { v1 ? mk_list_room(count, v1) : mk_list_room(count, v2), v1, v2 };
    unsigned n = mk_processes_each(&r, which, put_public, &l);
    return mk_list_done(count, l.room, n);
}

MK_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)
{
    MK_ENTER(nvmlDeviceGetComputeRunningProcesses);
    return processes(device, MK_PROCS_COMPUTE, infoCount, infos, NULL);
}

MK_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)
{
    MK_ENTER(nvmlDeviceGetComputeRunningProcesses_v2);
    return processes(device, MK_PROCS_COMPUTE, infoCount, NULL, infos);
}

MK_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos)
{
    MK_ENTER(nvmlDeviceGetComputeRunningProcesses_v3);
    return processes(device, MK_PROCS_COMPUTE, infoCount, NULL, infos);
}

MK_API nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)
{
    MK_ENTER(nvmlDeviceGetGraphicsRunningProcesses);
    return processes(device, MK_PROCS_GRAPHICS, infoCount, infos, NULL);
}

MK_API nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)
{
    MK_ENTER(nvmlDeviceGetGraphicsRunningProcesses_v2);
    return processes(device, MK_PROCS_GRAPHICS, infoCount, NULL, infos);
}

MK_API nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos)
{
    MK_ENTER(nvmlDeviceGetGraphicsRunningProcesses_v3);
    return processes(device, MK_PROCS_GRAPHICS, infoCount, NULL, infos);
}

MK_API nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)
{
    MK_ENTER(nvmlDeviceGetMPSComputeRunningProcesses);
    return processes(device, MK_PROCS_MPS, infoCount, infos, NULL);
}

MK_API nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)
{
    MK_ENTER(nvmlDeviceGetMPSComputeRunningProcesses_v2);
    return processes(device, MK_PROCS_MPS, infoCount, NULL, infos);
}

MK_API nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos)
{
    MK_ENTER(nvmlDeviceGetMPSComputeRunningProcesses_v3);
    return processes(device, MK_PROCS_MPS, infoCount, NULL, infos);
}

/* One sample per process, taken now, sharing the GPU's current utilisation
 * evenly; a GPU without processes has no samples (NOT_FOUND), and neither
 * has one asked only for samples newer than now. */
MK_API nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization, unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp)
{
    mk_ref r;
    int64_t sm = 0, mem = 0;
    MK_ENTER(nvmlDeviceGetProcessUtilization);
    MK_LIVE(device, &r);
    MK_NONNULL(processSamplesCount);
    unsigned long long now = (unsigned long long)mk_now_us();
    unsigned n = (unsigned)r.d->nprocs;
    if (!n || lastSeenTimeStamp >= now)
        return NVML_ERROR_NOT_FOUND;
    unsigned room = mk_list_room(processSamplesCount, utilization);
    if (room >= n) {
        mk_metric_get(&r, MK_M_UTIL_GPU, &sm);
        mk_metric_get(&r, MK_M_UTIL_MEM, &mem);
    }
    for (unsigned i = 0; i < n && i < room; i++)
        utilization[i] = (nvmlProcessUtilizationSample_t){
            r.d->procs[i].pid, now, mk_uint(sm) / n, mk_uint(mem) / n, 0, 0
        };
    return mk_list_done(processSamplesCount, room, n);
}

/* --- accounting ------------------------------------------------------------------- */

/* Accounting is off (as it is by default), so there are no accounted PIDs
 * or stats to read; those queries stay unsupported. */
MK_API nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetAccountingMode);
    MK_LIVE(device, &r);
    MK_NONNULL(mode);
    *mode = NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

/* The driver's default size of the accounting buffer, in processes. */
MK_API nvmlReturn_t nvmlDeviceGetAccountingBufferSize(nvmlDevice_t device, unsigned int *bufferSize)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetAccountingBufferSize);
    MK_LIVE(device, &r);
    MK_NONNULL(bufferSize);
    *bufferSize = 4000;
    return NVML_SUCCESS;
}
