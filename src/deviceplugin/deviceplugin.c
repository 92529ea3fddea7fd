/* deviceplugin.c - device-plugin API messages to and from gRPC layer
 * buffers: any message packed, ListAndWatch device lists both ways, and a
 * plugin's Register call. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deviceplugin.h"

int mk_dp_pack(const void *msg, mk_rpc_buf *out)
{
    const ProtobufCMessage *m = msg;
    size_t n = protobuf_c_message_get_packed_size(m);
    /* Empty messages pack to zero bytes; keep data non-NULL anyway. */
    out->data = malloc(n ? n : 1);
    if (!out->data) {
        out->len = 0;
        return -1;
    }
    out->len = protobuf_c_message_pack(m, out->data);
    return 0;
}

int mk_dp_pack_devices(const mk_nv_device *dev, size_t n, mk_rpc_buf *out)
{
    V1beta1__Device *d = calloc(n + 1, sizeof *d);
    V1beta1__Device **dp = calloc(n + 1, sizeof *dp);
    V1beta1__TopologyInfo *topo = calloc(n + 1, sizeof *topo);
    V1beta1__NUMANode *numa = calloc(n + 1, sizeof *numa);
    V1beta1__NUMANode **numap = calloc(n + 1, sizeof *numap);
    int rc = -1;
    if (d && dp && topo && numa && numap) {
        for (size_t i = 0; i < n; i++) {
            v1beta1__device__init(&d[i]);
            d[i].id = dev[i].id;
            d[i].health = dev[i].healthy ? MK_DP_HEALTHY : MK_DP_UNHEALTHY;
            if (dev[i].numa >= 0) {
                v1beta1__numanode__init(&numa[i]);
                numa[i].id = dev[i].numa;
                numap[i] = &numa[i];
                v1beta1__topology_info__init(&topo[i]);
                topo[i].n_nodes = 1;
                topo[i].nodes = &numap[i];
                d[i].topology = &topo[i];
            }
            dp[i] = &d[i];
        }
        V1beta1__ListAndWatchResponse r = V1BETA1__LIST_AND_WATCH_RESPONSE__INIT;
        r.n_devices = n;
        r.devices = dp;
        rc = mk_dp_pack(&r, out);
    }
    free(d);
    free(dp);
    free(topo);
    free(numa);
    free(numap);
    return rc;
}

void mk_dp_free_devices(mk_nv_device *dev, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(dev[i].id);
    free(dev);
}

int mk_dp_unpack_devices(const uint8_t *msg, size_t len, mk_nv_device **dev, size_t *n,
                         size_t *healthy, char *err, size_t errlen)
{
    *dev = NULL;
    *n = *healthy = 0;
    V1beta1__ListAndWatchResponse *r = v1beta1__list_and_watch_response__unpack(NULL, len, msg);
    if (!r) {
        snprintf(err, errlen, "malformed ListAndWatchResponse");
        return -1;
    }
    mk_nv_device *out = r->n_devices ? calloc(r->n_devices, sizeof *out) : NULL;
    size_t done = 0;
    int bad_numa = 0;
    if (out || !r->n_devices) {
        for (; done < r->n_devices; done++) {
            const V1beta1__Device *d = r->devices[done];
            const V1beta1__TopologyInfo *t = d->topology;
            int64_t numa = t && t->n_nodes ? t->nodes[0]->id : -1;
            /* NUMA node ids are small and never negative; one that is no
             * int is the plugin's bug, not a node to show as another. */
            if (t && t->n_nodes && (numa < 0 || numa > INT_MAX)) {
                snprintf(err, errlen, "device %.64s has NUMA node %lld, out of range",
                         d->id, (long long)numa);
                bad_numa = 1;
                break;
            }
            if (!(out[done].id = strdup(d->id)))
                break;
            out[done].healthy = strcmp(d->health, MK_DP_HEALTHY) == 0;
            out[done].numa = (int)numa;
            *healthy += (size_t)out[done].healthy;
        }
    }
    int complete = (out || !r->n_devices) && done == r->n_devices;
    v1beta1__list_and_watch_response__free_unpacked(r, NULL);
    if (!complete) {
        mk_dp_free_devices(out, done);
        *healthy = 0;
        if (!bad_numa)
            snprintf(err, errlen, "out of memory reading a device list");
        return -1;
    }
    *dev = out;
    *n = done;
    return 0;
}

int mk_dp_register(mk_rpc_channel *kubelet, const char *version, const char *resource,
                   const char *endpoint, V1beta1__DevicePluginOptions *opts,
                   int timeout_ms, char *err, size_t errlen)
{
    V1beta1__RegisterRequest r = V1BETA1__REGISTER_REQUEST__INIT;
    r.version = (char *)version;
    r.endpoint = (char *)endpoint;
    r.resource_name = (char *)resource;
    r.options = opts;
    mk_rpc_buf req, resp;
    if (mk_dp_pack(&r, &req)) {
        snprintf(err, errlen, "out of memory");
        return MK_RPC_INTERNAL;
    }
    int code = mk_rpc_call(kubelet, MK_DP_REGISTER, req.data, req.len, timeout_ms, &resp,
                           err, errlen);
    free(req.data);
    if (code == MK_RPC_OK)
        free(resp.data);
    return code;
}
