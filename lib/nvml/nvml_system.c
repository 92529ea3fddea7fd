/* nvml_system.c - system-wide queries: driver, NVML and CUDA versions, and
 * process names. */
#include <stdio.h>
#include "nvml_impl.h"

/* The config loader refuses versions longer than these buffers hold. */
_Static_assert(MK_DRIVER_VERSION_LEN <= NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE &&
               MK_DRIVER_VERSION_LEN <= NVML_GSP_FIRMWARE_VERSION_BUF_SIZE,
               "driver versions fit NVML's buffers");
_Static_assert(MK_NVML_VERSION_LEN <= NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE,
               "NVML versions fit NVML's buffer");

MK_API nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    MK_ENTER(nvmlSystemGetDriverVersion);
    return mk_copy_str(version, length, mk_universe_now()->driver_version);
}

MK_API nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
    MK_ENTER(nvmlSystemGetNVMLVersion);
    return mk_copy_str(version, length, mk_universe_now()->nvml_version);
}

MK_API nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
    MK_ENTER(nvmlSystemGetCudaDriverVersion);
    MK_NONNULL(cudaDriverVersion);
    *cudaDriverVersion = mk_universe_now()->cuda_version;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    MK_ENTER(nvmlSystemGetCudaDriverVersion_v2);
    MK_NONNULL(cudaDriverVersion);
    *cudaDriverVersion = mk_universe_now()->cuda_version;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlSystemGetDriverBranch(nvmlSystemDriverBranchInfo_t *branchInfo, unsigned int length)
{
    MK_ENTER(nvmlSystemGetDriverBranch);
    MK_NONNULL(branchInfo);
    if (branchInfo->version != nvmlSystemDriverBranchInfo_v1)
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    char branch[32];
    unsigned major = 0;
    sscanf(mk_universe_now()->driver_version, "%u", &major);
    snprintf(branch, sizeof branch, "r%u_00", major);
    return mk_copy_str(branchInfo->branch, length < sizeof branchInfo->branch ? length
                                                                             : sizeof branchInfo->branch, branch);
}

/* A configured process's name; otherwise the name of a live process, which
 * is what the driver reports for the PIDs it lists. */
MK_API nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    MK_ENTER(nvmlSystemGetProcessName);
    MK_NONNULL(name);
    const mk_universe *u = mk_universe_now();
    for (size_t i = 0; i < u->ndev; i++)
        for (size_t j = 0; j < u->dev[i].nprocs; j++)
            if (u->dev[i].procs[j].pid == pid && u->dev[i].procs[j].name[0])
                return mk_copy_str(name, length, u->dev[i].procs[j].name);
    char path[64], comm[256];
    snprintf(path, sizeof path, "/proc/%u/comm", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return NVML_ERROR_NOT_FOUND;
    if (!fgets(comm, sizeof comm, f)) {
        fclose(f);
        return NVML_ERROR_NOT_FOUND;
    }
    fclose(f);
    comm[strcspn(comm, "\n")] = 0;
    return mk_copy_str(name, length, comm);
}

MK_API nvmlReturn_t nvmlSystemGetHicVersion(unsigned int *hwbcCount, nvmlHwbcEntry_t *hwbcEntries)
{
    MK_ENTER(nvmlSystemGetHicVersion);
    MK_NONNULL(hwbcCount);
    (void)hwbcEntries;
    *hwbcCount = 0; /* no host interface cards on an HGX-style board */
    return NVML_SUCCESS;
}
