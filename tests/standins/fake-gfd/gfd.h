/* gfd.h - the stand-in gpu-feature-discovery's shared parts. It plays
 * NVIDIA's gpu-feature-discovery for Mokka's tests: it loads
 * libnvidia-ml.so.1 with dlopen as GFD does, reads the GPUs through NVML and
 * the machine from /sys/class/dmi/id/product_name, and writes GFD's labels
 * (`key=value` lines) to its output file on an interval.
 *
 * Files: main.c (flags, the relabel loop, signals, the crash modes),
 * nvml.c (loading NVML), labels.c (NVML and sysfs -> labels). */
#ifndef MOKKA_FGFD_H
#define MOKKA_FGFD_H

#include <stddef.h>
#include "abi/nvml_abi.h"

/* The NVML entry points used, resolved with dlsym. */
typedef struct fg_nvml {
    void *lib;
    __typeof__(nvmlInit_v2) *Init_v2;
    __typeof__(nvmlShutdown) *Shutdown;
    __typeof__(nvmlErrorString) *ErrorString;
    __typeof__(nvmlSystemGetDriverVersion) *SystemGetDriverVersion;
    __typeof__(nvmlSystemGetCudaDriverVersion) *SystemGetCudaDriverVersion;
    __typeof__(nvmlDeviceGetCount_v2) *DeviceGetCount_v2;
    __typeof__(nvmlDeviceGetHandleByIndex_v2) *DeviceGetHandleByIndex_v2;
    __typeof__(nvmlDeviceGetName) *DeviceGetName;
    __typeof__(nvmlDeviceGetMemoryInfo) *DeviceGetMemoryInfo;
    __typeof__(nvmlDeviceGetCudaComputeCapability) *DeviceGetCudaComputeCapability;
    __typeof__(nvmlDeviceGetPciInfo_v3) *DeviceGetPciInfo_v3;
    __typeof__(nvmlDeviceGetMigMode) *DeviceGetMigMode;
    __typeof__(nvmlDeviceGetMaxMigDeviceCount) *DeviceGetMaxMigDeviceCount;
    __typeof__(nvmlDeviceGetMigDeviceHandleByIndex) *DeviceGetMigDeviceHandleByIndex;
    __typeof__(nvmlDeviceGetAttributes_v2) *DeviceGetAttributes_v2;
    __typeof__(nvmlDeviceGetGpuFabricInfo) *DeviceGetGpuFabricInfo;
} fg_nvml;

/* A growing text of label lines. */
typedef struct fg_labels {
    char *text;
    size_t len, cap;
} fg_labels;

typedef struct fg_opts {
    const char *output_file;
    const char *machine_file;
    const char *mig_strategy;    /* none, single, mixed */
    int no_timestamp;
} fg_opts;

/* main.c: klog-like lines on stderr: "I1201 00:01:02.123456  42 fake-gfd] msg" */
void fg_log(char level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* nvml.c: dlopen libnvidia-ml.so.1 and resolve; -1 with err. */
int fg_nvml_load(fg_nvml *n, char *err, size_t errlen);

/* labels.c: every label for this node, after nvmlInit; -1 with err. */
int fg_labels_make(const fg_nvml *n, const fg_opts *o, fg_labels *out, char *err, size_t errlen);
void fg_labels_free(fg_labels *l);

#endif
