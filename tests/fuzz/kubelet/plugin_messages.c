/* plugin_messages.c (fuzz target "plugin_messages") - drives what the
 * built-in kubelet does with a device plugin's answers, without gRPC: a
 * ListAndWatchResponse through the kubelet's own stream callback
 * (mk_kl_on_list) into its resource table and out of its node source as a
 * snapshot; that device list packed again and read back, which must give
 * the same devices; and a PreferredAllocationResponse and an
 * AllocateResponse read as the kubelet reads them (deviceplugin/
 * dp_alloc.c), the allocation for the preferred devices.
 *
 * Input: two little-endian 16-bit lengths, then a ListAndWatchResponse and
 * an AllocateResponse of those lengths (cut short at the input's end), then
 * a PreferredAllocationResponse (the rest); tests/fuzz/seeds.py writes
 * seeds in that frame.
 *
 * fuzz-flags: -max_len=65536 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kubelet/kubelet_impl.h"

#define CHECK(cond) \
    do { if (!(cond)) { fprintf(stderr, "plugin_messages: %s fails\n", #cond); abort(); } } while (0)

/* One kubelet with one plugin registered, its stream never opened. */
static mk_kubelet k;
static mk_kl_conn conn;
static mk_kl_resource res;
static char resource[] = "example.com/gpu", endpoint[] = "fuzz.sock";

static void kubelet_init(void)
{
    pthread_mutex_init(&k.mu, NULL);
    pthread_cond_init(&k.cv, NULL);
    k.node_name = "fuzz-node";
    mk_kl_nodesrc_init(&k);
    conn = (mk_kl_conn){ .k = &k, .resource = resource, .endpoint = endpoint, .refs = 1 };
    res = (mk_kl_resource){ .name = resource, .conn = &conn };
    k.res = &res;
    k.nres = 1;
}

static void same_devices(const mk_nv_device *a, size_t na, const mk_nv_device *b, size_t nb)
{
    CHECK(na == nb);
    for (size_t i = 0; i < na; i++) {
        CHECK(strcmp(a[i].id, b[i].id) == 0);
        CHECK(a[i].healthy == b[i].healthy);
        CHECK(a[i].numa == b[i].numa);
    }
}

/* The list into the kubelet, and what its node source shows of it. */
static void list_and_watch(const uint8_t *msg, size_t len)
{
    mk_nv_device *dev;
    size_t n, healthy;
    char err[256];
    int ok = mk_dp_unpack_devices(msg, len, &dev, &n, &healthy, err, sizeof err) == 0;
    uint64_t before = k.version;
    mk_kl_on_list(&conn, msg, len);
    CHECK((k.version != before) == ok);

    mk_nv_nodes view;
    CHECK(k.src.snapshot(&k.src, &view, err, sizeof err) == 0);
    CHECK(view.n == 1 && view.node[0].nres == 1);
    const mk_nv_resource *r = mk_nv_find_resource(&view.node[0], resource);
    CHECK(r != NULL);
    if (ok) {
        CHECK(r->capacity == (long long)n && r->allocatable == (long long)healthy);
        same_devices(r->dev, r->ndev, dev, n);
        /* What a plugin would send for this list reads back the same. */
        mk_rpc_buf again;
        mk_nv_device *back;
        size_t nback, hback;
        CHECK(mk_dp_pack_devices(r->dev, r->ndev, &again) == 0);
        CHECK(mk_dp_unpack_devices(again.data, again.len, &back, &nback, &hback, err,
                                   sizeof err) == 0);
        same_devices(back, nback, dev, n);
        CHECK(hback == healthy);
        mk_dp_free_devices(back, nback);
        free(again.data);
        mk_dp_free_devices(dev, n);
    } else {
        CHECK(r->ndev == 0 && err[0]);
    }
    mk_nv_nodes_free(&view);

    /* Every input starts from a kubelet without devices. */
    mk_dp_free_devices(res.dev, res.ndev);
    res.dev = NULL;
    res.ndev = 0;
}

static void allocation(const uint8_t *alloc, size_t nalloc, const uint8_t *pref, size_t npref)
{
    char err[256], **ids;
    size_t nids;
    if (mk_dp_unpack_preferred(pref, npref, &ids, &nids, err, sizeof err) != 0) {
        CHECK(err[0] && !ids && !nids);
    }
    mk_nv_alloc a = { 0 };
    if (mk_dp_unpack_allocation(alloc, nalloc, ids, nids, &a, err, sizeof err) == 0) {
        CHECK(a.nids == nids);
        for (size_t i = 0; i < a.nenvs; i++)
            CHECK(a.envs[i].key && a.envs[i].value);
    } else {
        CHECK(err[0]);
    }
    mk_nv_alloc_free(&a);
    for (size_t i = 0; i < nids; i++)
        free(ids[i]);
    free(ids);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, kubelet_init);
    if (size < 4)
        return 0;
    size_t left = size - 4;
    size_t nlaw = (size_t)(data[0] | data[1] << 8), nalloc = (size_t)(data[2] | data[3] << 8);
    nlaw = nlaw < left ? nlaw : left;
    left -= nlaw;
    nalloc = nalloc < left ? nalloc : left;
    left -= nalloc;
    const uint8_t *law = data + 4, *alloc = law + nlaw, *pref = alloc + nalloc;
    list_and_watch(law, nlaw);
    allocation(alloc, nalloc, pref, left);
    return 0;
}
