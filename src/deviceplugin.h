/* deviceplugin.h - the kubelet device-plugin API, v1beta1: its constants,
 * gRPC method paths, and packing its protobuf-c messages for the gRPC layer
 * (rpc.h). The messages are in src/proto/deviceplugin.proto. */
#ifndef MOKKA_DEVICEPLUGIN_H
#define MOKKA_DEVICEPLUGIN_H

#include "deviceplugin.pb-c.h"
#include "rpc.h"

#define MK_DP_VERSION        "v1beta1"
#define MK_DP_HEALTHY        "Healthy"
#define MK_DP_UNHEALTHY      "Unhealthy"
#define MK_DP_KUBELET_SOCKET "kubelet.sock"

#define MK_DP_REGISTER       "/v1beta1.Registration/Register"
#define MK_DP_GET_OPTIONS    "/v1beta1.DevicePlugin/GetDevicePluginOptions"
#define MK_DP_LIST_AND_WATCH "/v1beta1.DevicePlugin/ListAndWatch"
#define MK_DP_GET_PREFERRED  "/v1beta1.DevicePlugin/GetPreferredAllocation"
#define MK_DP_ALLOCATE       "/v1beta1.DevicePlugin/Allocate"
#define MK_DP_PRE_START      "/v1beta1.DevicePlugin/PreStartContainer"

/* Packs a message into out (malloc'd). 0, or -1 if out of memory. */
int mk_dp_pack(const void *msg, mk_rpc_buf *out);

#endif
