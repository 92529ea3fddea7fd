/* dp_double.c - the tests' in-process device plugin (see dp_double.h).
 *
 * Allocate answers every field the API has: env DOUBLE_DEVICES=<ids>, one
 * mount, one device node per id, an annotation and a CDI device per id.
 * GetPreferredAllocation answers the must-include ids, then the available
 * ones from the end of the list, so a test can tell it was asked. */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deviceplugin/deviceplugin.h"
#include "dp_double.h"
#include "testutil.h"

#define MAXDEV 16

struct mk_dpd {
    char dir[4096], resource[256], endpoint[256];
    int preferred, pre_start;
    mk_rpc_server *srv;
    pthread_mutex_t mu;      /* devices and counters; held around sends */
    size_t ndev;
    struct { char id[64]; int healthy, numa; } dev[MAXDEV];
    int n_alloc, n_prestart, n_preferred, n_options, n_law;
};

/* The current list as a ListAndWatchResponse. */
static int pack_list_locked(mk_dpd *p, mk_rpc_buf *out)
{
    mk_nv_device dev[MAXDEV];
    for (size_t i = 0; i < p->ndev; i++)
        dev[i] = (mk_nv_device){ p->dev[i].id, p->dev[i].healthy, p->dev[i].numa };
    return mk_dp_pack_devices(dev, p->ndev, out);
}

static void send_list_locked(mk_dpd *p)
{
    mk_rpc_buf m;
    ck_assert_int_eq(pack_list_locked(p, &m), 0);
    mk_rpc_server_broadcast(p->srv, MK_DP_LIST_AND_WATCH, m.data, m.len);
    free(m.data);
}

static int options(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                   char *msg, size_t ml)
{
    mk_dpd *p = ctx;
    pthread_mutex_lock(&p->mu);
    p->n_options++;
    pthread_mutex_unlock(&p->mu);
    V1beta1__DevicePluginOptions o = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;
    o.pre_start_required = p->pre_start;
    o.get_preferred_allocation_available = p->preferred;
    return mk_dp_pack(&o, resp) ? MK_RPC_INTERNAL : MK_RPC_OK;
}

static int list_and_watch(void *ctx, mk_rpc_stream *st, const uint8_t *req, size_t len,
                          char *msg, size_t ml)
{
    mk_dpd *p = ctx;
    mk_rpc_buf m;
    pthread_mutex_lock(&p->mu);
    p->n_law++;
    int rc = pack_list_locked(p, &m) == 0 && mk_rpc_stream_send(st, m.data, m.len) == 0;
    pthread_mutex_unlock(&p->mu);
    free(m.data);
    return rc ? MK_RPC_OK : MK_RPC_INTERNAL;
}

static int preferred(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                     char *msg, size_t ml)
{
    mk_dpd *p = ctx;
    V1beta1__PreferredAllocationRequest *r =
        v1beta1__preferred_allocation_request__unpack(NULL, len, req);
    if (!r || r->n_container_requests != 1) {
        if (r)
            v1beta1__preferred_allocation_request__free_unpacked(r, NULL);
        return MK_RPC_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&p->mu);
    p->n_preferred++;
    pthread_mutex_unlock(&p->mu);
    const V1beta1__ContainerPreferredAllocationRequest *c = r->container_requests[0];
    char *ids[MAXDEV];
    size_t n = 0;
    for (size_t i = 0; i < c->n_must_include_deviceids && n < MAXDEV; i++)
        ids[n++] = c->must_include_deviceids[i];
    for (size_t i = c->n_available_deviceids; i-- > 0 && n < (size_t)c->allocation_size;) {
        int dup = 0;
        for (size_t j = 0; j < n; j++)
            dup |= strcmp(ids[j], c->available_deviceids[i]) == 0;
        if (!dup)
            ids[n++] = c->available_deviceids[i];
    }
    V1beta1__ContainerPreferredAllocationResponse cr =
        V1BETA1__CONTAINER_PREFERRED_ALLOCATION_RESPONSE__INIT;
    cr.n_deviceids = n;
    cr.deviceids = ids;
    V1beta1__ContainerPreferredAllocationResponse *crs[1] = { &cr };
    V1beta1__PreferredAllocationResponse out = V1BETA1__PREFERRED_ALLOCATION_RESPONSE__INIT;
    out.n_container_responses = 1;
    out.container_responses = crs;
    int rc = mk_dp_pack(&out, resp);
    v1beta1__preferred_allocation_request__free_unpacked(r, NULL);
    return rc ? MK_RPC_INTERNAL : MK_RPC_OK;
}

static int allocate(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                    char *msg, size_t ml)
{
    mk_dpd *p = ctx;
    V1beta1__AllocateRequest *r = v1beta1__allocate_request__unpack(NULL, len, req);
    if (!r || r->n_container_requests != 1 || r->container_requests[0]->n_devices_ids > MAXDEV) {
        if (r)
            v1beta1__allocate_request__free_unpacked(r, NULL);
        snprintf(msg, ml, "bad AllocateRequest");
        return MK_RPC_INVALID_ARGUMENT;
    }
    pthread_mutex_lock(&p->mu);
    p->n_alloc++;
    pthread_mutex_unlock(&p->mu);
    const V1beta1__ContainerAllocateRequest *c = r->container_requests[0];
    char joined[1024] = "", paths[MAXDEV][80], cdis[MAXDEV][100];
    V1beta1__DeviceSpec specs[MAXDEV], *specp[MAXDEV];
    V1beta1__CDIDevice cdi[MAXDEV], *cdip[MAXDEV];
    for (size_t i = 0; i < c->n_devices_ids; i++) {
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s",
                 i ? "," : "", c->devices_ids[i]);
        snprintf(paths[i], sizeof paths[i], "/dev/double%zu", i);
        snprintf(cdis[i], sizeof cdis[i], "example.com/gpu=%s", c->devices_ids[i]);
        v1beta1__device_spec__init(&specs[i]);
        specs[i].container_path = specs[i].host_path = paths[i];
        specs[i].permissions = "rw";
        specp[i] = &specs[i];
        v1beta1__cdidevice__init(&cdi[i]);
        cdi[i].name = cdis[i];
        cdip[i] = &cdi[i];
    }
    V1beta1__ContainerAllocateResponse__EnvsEntry env =
        V1BETA1__CONTAINER_ALLOCATE_RESPONSE__ENVS_ENTRY__INIT;
    env.key = "DOUBLE_DEVICES";
    env.value = joined;
    V1beta1__ContainerAllocateResponse__EnvsEntry *envp[1] = { &env };
    V1beta1__ContainerAllocateResponse__AnnotationsEntry ann =
        V1BETA1__CONTAINER_ALLOCATE_RESPONSE__ANNOTATIONS_ENTRY__INIT;
    ann.key = "double/allocated";
    ann.value = "yes";
    V1beta1__ContainerAllocateResponse__AnnotationsEntry *annp[1] = { &ann };
    V1beta1__Mount mount = V1BETA1__MOUNT__INIT;
    mount.container_path = "/usr/lib/double";
    mount.host_path = "/opt/double/lib";
    mount.read_only = 1;
    V1beta1__Mount *mountp[1] = { &mount };
    V1beta1__ContainerAllocateResponse cr = V1BETA1__CONTAINER_ALLOCATE_RESPONSE__INIT;
    cr.n_envs = 1;
    cr.envs = envp;
    cr.n_annotations = 1;
    cr.annotations = annp;
    cr.n_mounts = 1;
    cr.mounts = mountp;
    cr.n_devices = c->n_devices_ids;
    cr.devices = specp;
    cr.n_cdi_devices = c->n_devices_ids;
    cr.cdi_devices = cdip;
    V1beta1__ContainerAllocateResponse *crs[1] = { &cr };
    V1beta1__AllocateResponse out = V1BETA1__ALLOCATE_RESPONSE__INIT;
    out.n_container_responses = 1;
    out.container_responses = crs;
    int rc = mk_dp_pack(&out, resp);
    v1beta1__allocate_request__free_unpacked(r, NULL);
    return rc ? MK_RPC_INTERNAL : MK_RPC_OK;
}

static int pre_start(void *ctx, const uint8_t *req, size_t len, mk_rpc_buf *resp,
                     char *msg, size_t ml)
{
    mk_dpd *p = ctx;
    pthread_mutex_lock(&p->mu);
    p->n_prestart++;
    pthread_mutex_unlock(&p->mu);
    V1beta1__PreStartContainerResponse out = V1BETA1__PRE_START_CONTAINER_RESPONSE__INIT;
    return mk_dp_pack(&out, resp) ? MK_RPC_INTERNAL : MK_RPC_OK;
}

static const mk_rpc_method methods[] = {
    { MK_DP_GET_OPTIONS, options, NULL },
    { MK_DP_LIST_AND_WATCH, NULL, list_and_watch },
    { MK_DP_GET_PREFERRED, preferred, NULL },
    { MK_DP_ALLOCATE, allocate, NULL },
    { MK_DP_PRE_START, pre_start, NULL },
};

mk_dpd *mk_dpd_start(const char *dir, const mk_dpd_opts *opts)
{
    mk_dpd *p = calloc(1, sizeof *p);
    ck_assert_ptr_nonnull(p);
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    snprintf(p->resource, sizeof p->resource, "%s",
             opts && opts->resource ? opts->resource : "example.com/gpu");
    snprintf(p->endpoint, sizeof p->endpoint, "%s",
             opts && opts->endpoint ? opts->endpoint : "double.sock");
    p->preferred = opts && opts->preferred;
    p->pre_start = opts && opts->pre_start;
    pthread_mutex_init(&p->mu, NULL);
    char addr[4400], err[256];
    snprintf(addr, sizeof addr, "unix:%s/%s", dir, p->endpoint);
    p->srv = mk_rpc_server_start(addr, methods, sizeof methods / sizeof methods[0], p,
                                 err, sizeof err);
    ck_assert_msg(p->srv, "device plugin double: %s", err);
    return p;
}

void mk_dpd_add(mk_dpd *p, const char *id, int healthy, int numa)
{
    pthread_mutex_lock(&p->mu);
    ck_assert_uint_lt(p->ndev, MAXDEV);
    snprintf(p->dev[p->ndev].id, sizeof p->dev[p->ndev].id, "%s", id);
    p->dev[p->ndev].healthy = healthy;
    p->dev[p->ndev].numa = numa;
    p->ndev++;
    send_list_locked(p);
    pthread_mutex_unlock(&p->mu);
}

void mk_dpd_set_health(mk_dpd *p, const char *id, int healthy)
{
    pthread_mutex_lock(&p->mu);
    for (size_t i = 0; i < p->ndev; i++)
        if (strcmp(p->dev[i].id, id) == 0)
            p->dev[i].healthy = healthy;
    send_list_locked(p);
    pthread_mutex_unlock(&p->mu);
}

int mk_dpd_register_any(const char *dir, const char *version, const char *resource,
                        const char *endpoint, char *err, size_t errlen)
{
    char addr[4400];
    snprintf(addr, sizeof addr, "unix:%s/%s", dir, MK_DP_KUBELET_SOCKET);
    mk_rpc_channel *ch = mk_rpc_dial(addr, MK_TEST_PATIENCE_MS, err, errlen);
    if (!ch)
        return MK_RPC_UNAVAILABLE;
    int code = mk_dp_register(ch, version, resource, endpoint, NULL, 15000, err, errlen);
    mk_rpc_channel_close(ch);
    return code;
}

int mk_dpd_register(mk_dpd *p, const char *version, const char *resource,
                    char *err, size_t errlen)
{
    return mk_dpd_register_any(p->dir, version ? version : MK_DP_VERSION,
                               resource ? resource : p->resource, p->endpoint, err, errlen);
}

size_t mk_dpd_streams(mk_dpd *p)
{
    return mk_rpc_server_nstreams(p->srv, MK_DP_LIST_AND_WATCH);
}

int mk_dpd_calls(mk_dpd *p, const char *method)
{
    pthread_mutex_lock(&p->mu);
    int n = strcmp(method, "Allocate") == 0 ? p->n_alloc
          : strcmp(method, "PreStartContainer") == 0 ? p->n_prestart
          : strcmp(method, "GetPreferredAllocation") == 0 ? p->n_preferred
          : strcmp(method, "GetDevicePluginOptions") == 0 ? p->n_options
          : strcmp(method, "ListAndWatch") == 0 ? p->n_law : -1;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void mk_dpd_stop(mk_dpd *p)
{
    if (!p)
        return;
    mk_rpc_server_stop(p->srv);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
