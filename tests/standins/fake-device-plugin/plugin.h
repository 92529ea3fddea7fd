/* plugin.h - the stand-in device plugin's shared state. It plays NVIDIA's
 * k8s-device-plugin for Mokka's tests: same NVML calls, same socket names,
 * same Register / ListAndWatch / Allocate contract, same log shape.
 *
 * Files: main.c (flags, the watch loop: signals, kubelet restarts),
 * gpus.c (loading NVML, listing GPUs), health.c (NVML events -> health),
 * service.c (the DevicePlugin service and Register), log.c (klog-like
 * lines on stderr). */
#ifndef MOKKA_FDP_PLUGIN_H
#define MOKKA_FDP_PLUGIN_H

#include <pthread.h>
#include <stddef.h>
#include "abi/nvml_abi.h"
#include "deviceplugin/deviceplugin.h"

/* The NVML entry points the plugin uses, resolved with dlsym from the
 * library it dlopens (so it links no NVML; the ABI header gives types). */
typedef struct mk_nvml {
    void *lib;
    __typeof__(nvmlInit_v2) *Init_v2;
    __typeof__(nvmlShutdown) *Shutdown;
    __typeof__(nvmlErrorString) *ErrorString;
    __typeof__(nvmlDeviceGetCount_v2) *DeviceGetCount_v2;
    __typeof__(nvmlDeviceGetHandleByIndex_v2) *DeviceGetHandleByIndex_v2;
    __typeof__(nvmlDeviceGetUUID) *DeviceGetUUID;
    __typeof__(nvmlDeviceGetPciInfo_v3) *DeviceGetPciInfo_v3;
    __typeof__(nvmlDeviceGetSupportedEventTypes) *DeviceGetSupportedEventTypes;
    __typeof__(nvmlDeviceRegisterEvents) *DeviceRegisterEvents;
    __typeof__(nvmlEventSetCreate) *EventSetCreate;
    __typeof__(nvmlEventSetWait_v2) *EventSetWait_v2;
    __typeof__(nvmlEventSetFree) *EventSetFree;
} mk_nvml;

typedef struct mk_gpu {
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    nvmlDevice_t handle;
    int numa;                /* -1 when unknown */
    int healthy;
    int lost;                /* a query answered GPU_IS_LOST when last listed */
} mk_gpu;

typedef struct mk_plugin {
    /* Flags. */
    const char *kubelet_socket;   /* <dir>/kubelet.sock */
    const char *resource;         /* "nvidia.com/gpu" */
    int fail_on_init_error;
    char dir[4096];               /* dirname of kubelet_socket */
    char endpoint[256];           /* "nvidia-gpu.sock" */
    char socket[4400];            /* <dir>/<endpoint> */

    mk_nvml nvml;
    size_t ngpu;
    mk_gpu *gpu;

    /* Guards gpu[].healthy and srv; held around every ListAndWatch send so
     * streams see states in order. */
    pthread_mutex_t mu;
    mk_rpc_server *srv;

    pthread_t health;
    int health_started;
    int stop;                     /* atomic: the health loop ends */
} mk_plugin;

/* log.c: "I1130 05:49:12.123456   42 fake-device-plugin] message" */
void mk_log(char level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* gpus.c */
/* dlopen libnvidia-ml.so.1 and nvmlInit_v2; -1 with a message in err. */
int mk_gpus_init_nvml(mk_plugin *p, char *err, size_t errlen);
/* Lists the GPUs (UUID, NUMA node, lost or not); -1 with err. */
int mk_gpus_list(mk_plugin *p, char *err, size_t errlen);
/* Every GPU healthy again unless it is lost now, as a plugin restarted
 * after a kubelet restart sees them. */
void mk_gpus_reset_health(mk_plugin *p);
void mk_gpus_shutdown(mk_plugin *p);
const char *mk_nvml_error(const mk_plugin *p, nvmlReturn_t r);

/* health.c */
int mk_health_start(mk_plugin *p);
void mk_health_stop(mk_plugin *p);
/* Marks a GPU unhealthy and tells the kubelet (takes p->mu). */
void mk_health_mark(mk_plugin *p, size_t i, const char *why);

/* service.c */
/* Serves DevicePlugin on p->socket and registers with the kubelet. */
int mk_service_start(mk_plugin *p, char *err, size_t errlen);
/* Stops serving and removes the socket. */
void mk_service_stop(mk_plugin *p);
/* Sends the device list on every ListAndWatch stream; p->mu held. */
void mk_service_send_locked(mk_plugin *p);

#endif
