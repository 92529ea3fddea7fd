/* deviceplugin.h - the kubelet device-plugin API, v1beta1: its constants,
 * gRPC method paths, packing its protobuf-c messages for the gRPC layer
 * (rpc.h), device lists both ways (for the kubelet and for plugins), and
 * the allocations plugins answer with.
 * The messages are in src/proto/deviceplugin.proto. */
#ifndef MOKKA_DEVICEPLUGIN_H
#define MOKKA_DEVICEPLUGIN_H

#include "deviceplugin.pb-c.h"
#include "nodeview/nodeview.h"
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

/* A ListAndWatchResponse listing `dev`: ID, health, and a TopologyInfo
 * with one NUMA node when numa >= 0. 0, or -1 if out of memory. */
int mk_dp_pack_devices(const mk_nv_device *dev, size_t n, mk_rpc_buf *out);
/* The devices of a ListAndWatchResponse (NUMA node: the first one listed,
 * else -1) into *dev (malloc'd, with its ids) and *n, the healthy ones
 * counted in *healthy. 0, or -1 with err: malformed, a NUMA node id that
 * is negative or beyond int, out of memory. */
int mk_dp_unpack_devices(const uint8_t *msg, size_t len, mk_nv_device **dev, size_t *n,
                         size_t *healthy, char *err, size_t errlen);
/* Frees what mk_dp_unpack_devices gave. */
void mk_dp_free_devices(mk_nv_device *dev, size_t n);

/* The device ids of a PreferredAllocationResponse for one container into
 * *ids (malloc'd, with the strings) and *n. 0, or -1 with err (malformed,
 * not one container, out of memory) and nothing to free. */
int mk_dp_unpack_preferred(const uint8_t *msg, size_t len, char ***ids, size_t *n,
                           char *err, size_t errlen);
/* What an AllocateResponse for one container that asked for `ids` gives
 * it (environment, mounts, device nodes, annotations, CDI devices) into
 * *out, with a copy of ids. 0, or -1 with err; *out then holds what was
 * read, for mk_nv_alloc_free. */
int mk_dp_unpack_allocation(const uint8_t *msg, size_t len, char *const *ids, size_t nids,
                            mk_nv_alloc *out, char *err, size_t errlen);

/* A plugin's Register call on its channel to the kubelet (opts may be
 * NULL). Returns the gRPC code, with "CODE: message" in err. */
int mk_dp_register(mk_rpc_channel *kubelet, const char *version, const char *resource,
                   const char *endpoint, V1beta1__DevicePluginOptions *opts,
                   int timeout_ms, char *err, size_t errlen);

#endif
