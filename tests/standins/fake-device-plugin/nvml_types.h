/* nvml_types.h - the few NVML types, constants and entry points the
 * stand-in device plugin uses, declared here from NVML's documented ABI
 * (it loads the library with dlopen, as NVIDIA's plugin does, so it needs
 * no NVML header). */
#ifndef MOKKA_FDP_NVML_TYPES_H
#define MOKKA_FDP_NVML_TYPES_H

typedef int nvmlReturn_t;
enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_UNKNOWN = 999
};

typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3. */
typedef struct {
    char busIdLegacy[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    char busId[32];               /* "00000000:3B:00.0" */
} nvmlPciInfo_t;

typedef struct {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;  /* the XID for XID events */
    unsigned int gpuInstanceId, computeInstanceId;
} nvmlEventData_t;

#define nvmlEventTypeSingleBitEccError 0x0000000000000001ULL
#define nvmlEventTypeDoubleBitEccError 0x0000000000000002ULL
#define nvmlEventTypeXidCriticalError  0x0000000000000008ULL

#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96

/* The entry points, resolved with dlsym. */
typedef struct mk_nvml {
    void *lib;
    nvmlReturn_t (*Init_v2)(void);
    nvmlReturn_t (*Shutdown)(void);
    const char *(*ErrorString)(nvmlReturn_t);
    nvmlReturn_t (*DeviceGetCount_v2)(unsigned int *);
    nvmlReturn_t (*DeviceGetHandleByIndex_v2)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*DeviceGetUUID)(nvmlDevice_t, char *, unsigned int);
    nvmlReturn_t (*DeviceGetPciInfo_v3)(nvmlDevice_t, nvmlPciInfo_t *);
    nvmlReturn_t (*DeviceGetSupportedEventTypes)(nvmlDevice_t, unsigned long long *);
    nvmlReturn_t (*DeviceRegisterEvents)(nvmlDevice_t, unsigned long long, nvmlEventSet_t);
    nvmlReturn_t (*EventSetCreate)(nvmlEventSet_t *);
    nvmlReturn_t (*EventSetWait_v2)(nvmlEventSet_t, nvmlEventData_t *, unsigned int);
    nvmlReturn_t (*EventSetFree)(nvmlEventSet_t);
} mk_nvml;

#endif
