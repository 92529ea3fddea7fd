/* dp_alloc.c - a plugin's answers to GetPreferredAllocation and Allocate,
 * read into plain data (ids, mk_nv_alloc) for the kubelet, one container
 * each, as the kubelet's device manager asks for them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "deviceplugin.h"

static int strv_copy(char ***dst, size_t *ndst, char *const *src, size_t n)
{
    *ndst = 0;
    *dst = n ? calloc(n, sizeof **dst) : NULL;
    if (n && !*dst)
        return -1;
    for (size_t i = 0; i < n; i++, (*ndst)++)
        if (!((*dst)[i] = strdup(src[i])))
            return -1;
    return 0;
}

int mk_dp_unpack_preferred(const uint8_t *msg, size_t len, char ***ids, size_t *n,
                           char *err, size_t errlen)
{
    *ids = NULL;
    *n = 0;
    V1beta1__PreferredAllocationResponse *r =
        v1beta1__preferred_allocation_response__unpack(NULL, len, msg);
    int rc = -1;
    if (!r)
        snprintf(err, errlen, "malformed PreferredAllocationResponse");
    else if (r->n_container_responses != 1)
        snprintf(err, errlen, "answered %zu containers for 1", r->n_container_responses);
    else if ((rc = strv_copy(ids, n, r->container_responses[0]->deviceids,
                             r->container_responses[0]->n_deviceids)))
        snprintf(err, errlen, "out of memory");
    if (r)
        v1beta1__preferred_allocation_response__free_unpacked(r, NULL);
    if (rc) {
        for (size_t i = 0; i < *n; i++)
            free((*ids)[i]);
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return rc;
}

/* Entry *n of v (room for cap); protobuf-c gives "" for absent strings. */
static int kv_add(mk_nv_kv **v, size_t *n, size_t cap, const char *key, const char *value)
{
    if (!*v && !(*v = calloc(cap, sizeof **v)))
        return -1;
    mk_nv_kv *e = &(*v)[(*n)++];
    e->key = strdup(key ? key : "");
    e->value = strdup(value ? value : "");
    return e->key && e->value ? 0 : -1;
}

static int alloc_from(const V1beta1__ContainerAllocateResponse *r, mk_nv_alloc *a)
{
    int bad = 0;
    for (size_t i = 0; i < r->n_envs; i++)
        bad |= kv_add(&a->envs, &a->nenvs, r->n_envs, r->envs[i]->key, r->envs[i]->value);
    for (size_t i = 0; i < r->n_mounts; i++)
        bad |= kv_add(&a->mounts, &a->nmounts, r->n_mounts, r->mounts[i]->container_path,
                      r->mounts[i]->host_path);
    for (size_t i = 0; i < r->n_devices; i++)
        bad |= kv_add(&a->devices, &a->ndevices, r->n_devices, r->devices[i]->container_path,
                      r->devices[i]->host_path);
    for (size_t i = 0; i < r->n_annotations; i++)
        bad |= kv_add(&a->annotations, &a->nannotations, r->n_annotations,
                      r->annotations[i]->key, r->annotations[i]->value);
    if (r->n_cdi_devices && !(a->cdi = calloc(r->n_cdi_devices, sizeof *a->cdi)))
        return -1;
    for (size_t i = 0; i < r->n_cdi_devices; i++)
        bad |= !(a->cdi[a->ncdi++] = strdup(r->cdi_devices[i]->name));
    return bad ? -1 : 0;
}

int mk_dp_unpack_allocation(const uint8_t *msg, size_t len, char *const *ids, size_t nids,
                            mk_nv_alloc *out, char *err, size_t errlen)
{
    V1beta1__AllocateResponse *r = v1beta1__allocate_response__unpack(NULL, len, msg);
    int rc = -1;
    if (!r)
        snprintf(err, errlen, "malformed AllocateResponse");
    else if (r->n_container_responses != 1)
        snprintf(err, errlen, "answered %zu containers for 1", r->n_container_responses);
    else if (strv_copy(&out->ids, &out->nids, ids, nids) ||
             alloc_from(r->container_responses[0], out))
        snprintf(err, errlen, "out of memory");
    else
        rc = 0;
    if (r)
        v1beta1__allocate_response__free_unpacked(r, NULL);
    return rc;
}
