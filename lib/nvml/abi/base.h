/* base.h - what every other ABI header builds on: the export marker,
 * struct versioning, return codes, opaque handles, buffer sizes, library
 * initialization and error strings. */
#ifndef MOKKA_NVML_ABI_BASE_H
#define MOKKA_NVML_ABI_BASE_H

/* Every NVML entry point carries this; the linker version script then
 * decides what is really exported. Prototypes using it stay on one line
 * (lib/nvml/gen_stubs.sh reads them). */
#define MK_API __attribute__((visibility("default")))

/* --- Header identity ------------------------------------------------------- */
/* These declarations follow the NVML 13.3 header. */
#define NVML_API_VERSION     13
#define NVML_API_VERSION_STR "13"
#define NVML_MCDM_SUPPORT

/* Version word of a versioned struct: sizeof in the low bits, the version
 * number in bits 24..31. nvmlFoo_v2 == NVML_STRUCT_VERSION(Foo, 2). */
#define NVML_STRUCT_VERSION(data, ver) \
    (unsigned int)(sizeof(nvml##data##_v##ver##_t) | ((unsigned int)(ver) << 24U))

#define NVML_VALUE_NOT_AVAILABLE (-1)

/* --- Return codes ---------------------------------------------------------- */
typedef enum nvmlReturn_enum {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_INSUFFICIENT_POWER = 8,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_IRQ_ISSUE = 11,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_CORRUPTED_INFOROM = 14,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_RESET_REQUIRED = 16,
    NVML_ERROR_OPERATING_SYSTEM = 17,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
    NVML_ERROR_IN_USE = 19,
    NVML_ERROR_MEMORY = 20,
    NVML_ERROR_NO_DATA = 21,
    NVML_ERROR_VGPU_ECC_NOT_SUPPORTED = 22,
    NVML_ERROR_INSUFFICIENT_RESOURCES = 23,
    NVML_ERROR_FREQ_NOT_SUPPORTED = 24,
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
    NVML_ERROR_DEPRECATED = 26,
    NVML_ERROR_NOT_READY = 27,
    NVML_ERROR_GPU_NOT_FOUND = 28,
    NVML_ERROR_INVALID_STATE = 29,
    NVML_ERROR_RESET_TYPE_NOT_SUPPORTED = 30,
    NVML_ERROR_UNKNOWN = 999
} nvmlReturn_t;

/* --- Shared small types ---------------------------------------------------- */
typedef enum nvmlEnableState_enum {
    NVML_FEATURE_DISABLED = 0,
    NVML_FEATURE_ENABLED = 1
} nvmlEnableState_t;

/* Flags taken by a few commands (e.g. nvmlDeviceSetPowerManagementLimit_v2). */
#define nvmlFlagDefault 0x00
#define nvmlFlagForce   0x01

/* --- Handles --------------------------------------------------------------- */
/* Opaque to callers; the library decides what they point at. */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;
typedef struct nvmlUnit_st *nvmlUnit_t;
typedef struct nvmlEventSet_st *nvmlEventSet_t;
typedef struct nvmlSystemEventSet_st *nvmlSystemEventSet_t;
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;
/* vGPU types and instances are plain ids, not pointers. */
typedef unsigned int nvmlVgpuTypeId_t;
typedef unsigned int nvmlVgpuInstance_t;

/* --- Buffer sizes ---------------------------------------------------------- */
/* Sizes, including the terminating NUL, of the strings NVML hands out. */
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE      32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE   16
#define NVML_DEVICE_INFOROM_VERSION_BUFFER_SIZE 16
#define NVML_DEVICE_UUID_BUFFER_SIZE            80
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE         96
#define NVML_DEVICE_PART_NUMBER_BUFFER_SIZE     80
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE  80
#define NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE    80
#define NVML_DEVICE_NAME_BUFFER_SIZE            64
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE         96
#define NVML_DEVICE_SERIAL_BUFFER_SIZE          30
#define NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE   32
#define NVML_DEVICE_HOSTNAME_BUFFER_SIZE        64
#define NVML_PERF_MODES_BUFFER_SIZE             2048
#define NVML_GSP_FIRMWARE_VERSION_BUF_SIZE      0x40
#define NVML_GRID_LICENSE_BUFFER_SIZE           128
#define NVML_VGPU_NAME_BUFFER_SIZE              64

/* --- Initialization and shutdown ------------------------------------------- */
#define NVML_INIT_FLAG_NO_GPUS    (1 << 0)
#define NVML_INIT_FLAG_NO_ATTACH  (1 << 1)
#define NVML_INIT_FLAG_FORCE_INIT (1 << 2)

/* nvmlInit is the pre-v2 entry point; both stay exported. */
MK_API nvmlReturn_t nvmlInit(void);
MK_API nvmlReturn_t nvmlInit_v2(void);
MK_API nvmlReturn_t nvmlInitWithFlags(unsigned int flags);
MK_API nvmlReturn_t nvmlShutdown(void);

/* --- Error strings --------------------------------------------------------- */
MK_API const char *nvmlErrorString(nvmlReturn_t result);

/* --- Internal -------------------------------------------------------------- */
/* Undocumented; used by NVIDIA's own tools. Not in any public header: the
 * shape (table out-pointer, 16-byte table id in) is assumed to match
 * cuGetExportTable. */
MK_API nvmlReturn_t nvmlInternalGetExportTable(const void **ppExportTable, const void *pExportTableId);

#endif
