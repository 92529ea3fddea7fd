/* encoder_fbc.h - video encoder and frame buffer capture (FBC) session
 * structs and the device queries that return them. */
#ifndef MOKKA_NVML_ABI_ENCODER_FBC_H
#define MOKKA_NVML_ABI_ENCODER_FBC_H

#include "base.h"

/* --- Encoder sessions ------------------------------------------------------ */

typedef enum nvmlEncoderQueryType_enum {
    NVML_ENCODER_QUERY_H264 = 0x00,
    NVML_ENCODER_QUERY_HEVC = 0x01,
    NVML_ENCODER_QUERY_AV1 = 0x02,
    NVML_ENCODER_QUERY_UNKNOWN = 0xFF
} nvmlEncoderType_t;

typedef struct nvmlEncoderSessionInfo_st {
    unsigned int sessionId;
    unsigned int pid;
    nvmlVgpuInstance_t vgpuInstance;
    nvmlEncoderType_t codecType;
    unsigned int hResolution;
    unsigned int vResolution;
    unsigned int averageFps;
    unsigned int averageLatency;
} nvmlEncoderSessionInfo_t;

/* --- Frame buffer capture sessions ----------------------------------------- */

typedef enum nvmlFBCSessionType_enum {
    NVML_FBC_SESSION_TYPE_UNKNOWN = 0,
    NVML_FBC_SESSION_TYPE_TOSYS = 1,
    NVML_FBC_SESSION_TYPE_CUDA = 2,
    NVML_FBC_SESSION_TYPE_VID = 3,
    NVML_FBC_SESSION_TYPE_HWENC = 4
} nvmlFBCSessionType_t;

typedef struct nvmlFBCStats_st {
    unsigned int sessionsCount;
    unsigned int averageFPS;
    unsigned int averageLatency;
} nvmlFBCStats_t;

#define NVML_NVFBC_SESSION_FLAG_DIFFMAP_ENABLED            0x00000001
#define NVML_NVFBC_SESSION_FLAG_CLASSIFICATIONMAP_ENABLED  0x00000002
#define NVML_NVFBC_SESSION_FLAG_CAPTURE_WITH_WAIT_NO_WAIT  0x00000004
#define NVML_NVFBC_SESSION_FLAG_CAPTURE_WITH_WAIT_INFINITE 0x00000008
#define NVML_NVFBC_SESSION_FLAG_CAPTURE_WITH_WAIT_TIMEOUT  0x00000010

typedef struct nvmlFBCSessionInfo_st {
    unsigned int sessionId;
    unsigned int pid;
    nvmlVgpuInstance_t vgpuInstance;
    unsigned int displayOrdinal;
    nvmlFBCSessionType_t sessionType;
    unsigned int sessionFlags;
    unsigned int hMaxResolution;
    unsigned int vMaxResolution;
    unsigned int hResolution;
    unsigned int vResolution;
    unsigned int averageFPS;
    unsigned int averageLatency;
} nvmlFBCSessionInfo_t;

/* --- Encoder and FBC queries ----------------------------------------------- */
MK_API nvmlReturn_t nvmlDeviceGetEncoderCapacity(nvmlDevice_t device, nvmlEncoderType_t encoderQueryType, unsigned int *encoderCapacity);
MK_API nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int *sessionCount, unsigned int *averageFps, unsigned int *averageLatency);
MK_API nvmlReturn_t nvmlDeviceGetEncoderSessions(nvmlDevice_t device, unsigned int *sessionCount, nvmlEncoderSessionInfo_t *sessionInfos);
MK_API nvmlReturn_t nvmlDeviceGetFBCStats(nvmlDevice_t device, nvmlFBCStats_t *fbcStats);
MK_API nvmlReturn_t nvmlDeviceGetFBCSessions(nvmlDevice_t device, unsigned int *sessionCount, nvmlFBCSessionInfo_t *sessionInfo);

#endif
