/* fabric.c - names, UUIDs, health mask and live override of a GPU's NVLink
 * fabric (see fabric.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "fabric.h"
#include "ids.h"

const char *const mk_fabric_state_names[] = {
    "notSupported", "notStarted", "inProgress", "completed", NULL
};

const char *const mk_fabric_health_names[] = {
    "degradedBandwidth", "routeRecovery", "routeUnhealthy", "accessTimeoutRecovery", NULL
};

const char *const mk_nvml_return_names[] = {
    "success", "uninitialized", "invalidArgument", "notSupported", "noPermission",
    "alreadyInitialized", "notFound", "insufficientSize", "insufficientPower", "driverNotLoaded",
    "timeout", "irqIssue", "libraryNotFound", "functionNotFound", "corruptedInforom",
    "gpuIsLost", "resetRequired", "operatingSystem", "libRmVersionMismatch", "inUse", "memory",
    "noData", "vgpuEccNotSupported", "insufficientResources", "freqNotSupported",
    "argumentVersionMismatch", "deprecated", "notReady", "gpuNotFound", "invalidState",
    "unknown", NULL
};
/* NVML_SUCCESS .. NVML_ERROR_INVALID_STATE are 0..29; NVML_ERROR_UNKNOWN is 999. */
const unsigned mk_nvml_return_values[] = {
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
    25, 26, 27, 28, 29, 999
};

const char *mk_nvml_return_name(unsigned rc)
{
    for (size_t i = 0; mk_nvml_return_names[i]; i++)
        if (mk_nvml_return_values[i] == rc)
            return mk_nvml_return_names[i];
    return "unknown";
}

int mk_cluster_uuid_parse(const char *s, unsigned char out[16])
{
    static const int groups[] = { 8, 4, 4, 4, 12 };
    unsigned char b[16];
    int nib = 0;
    for (int g = 0; g < 5; g++) {
        for (int i = 0; i < groups[g]; i++, s++, nib++) {
            if (!isxdigit((unsigned char)*s))
                return -1;
            int v = isdigit((unsigned char)*s) ? *s - '0' : (tolower((unsigned char)*s) - 'a' + 10);
            b[nib / 2] = (unsigned char)(nib % 2 ? (b[nib / 2] | v) : v << 4);
        }
        if (g < 4 && *s++ != '-')
            return -1;
    }
    if (*s)
        return -1;
    memcpy(out, b, 16);
    return 0;
}

void mk_cluster_uuid_format(const unsigned char u[16], char *out, size_t len)
{
    snprintf(out, len, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
             u[13], u[14], u[15]);
}

int mk_cluster_uuid_zero(const unsigned char u[16])
{
    for (int i = 0; i < 16; i++)
        if (u[i])
            return 0;
    return 1;
}

void mk_fabric_rack_of_node(const char *node, char *out, size_t len)
{
    size_t label = strcspn(node, ".");
    const char *dash = memrchr(node, '-', label);
    size_t n = dash && dash > node ? (size_t)(dash - node) : label;
    snprintf(out, len, "%.*s", (int)n, node);
}

void mk_fabric_derive_cluster(const char *rack, unsigned char out[16])
{
    uint64_t hi = mk_hash_str(rack, 0x666162726963ull /* "fabric" */);
    uint64_t lo = mk_mix64(hi ^ 0x3c3c3c3c3c3c3c3cull);
    for (int i = 0; i < 8; i++) {
        out[i] = (unsigned char)(hi >> (56 - 8 * i));
        out[8 + i] = (unsigned char)(lo >> (56 - 8 * i));
    }
    out[6] = (unsigned char)((out[6] & 0x0f) | 0x40);  /* version 4 */
    out[8] = (unsigned char)((out[8] & 0x3f) | 0x80);  /* RFC 4122 variant: never all zero */
}

/* Each condition is a 2-bit field of the mask: 1 it holds, 2 it does not
 * (0 would be "not supported"), at shifts 0, 2, 4, 6. */
unsigned mk_fabric_health_mask(unsigned health)
{
    unsigned mask = 0;
    for (int b = 0; b < MK_FABRIC_HEALTH_BITS; b++)
        mask |= (health & (1u << b) ? 1u : 2u) << (2 * b);
    return mask;
}

/* NVML_GPU_FABRIC_HEALTH_SUMMARY_*: an unhealthy route makes the GPU
 * unhealthy; the other conditions leave it working with less bandwidth. */
unsigned mk_fabric_health_summary(unsigned health)
{
    if (health & MK_FABRIC_ROUTE_UNHEALTHY)
        return 2;   /* UNHEALTHY */
    return health ? 3 /* LIMITED_CAPACITY */ : 1 /* HEALTHY */;
}

/* bit 63: set; bits 0-7 state, 8-23 status, 24-31 health. */
#define LIVE_SET (1ull << 63)

uint64_t mk_fabric_pack(const mk_fabric *f)
{
    return LIVE_SET | ((uint64_t)f->state & 0xff) | ((uint64_t)f->status & 0xffff) << 8 |
           ((uint64_t)f->health & 0xff) << 24;
}

mk_fabric mk_fabric_now(const mk_device *d, uint64_t live)
{
    mk_fabric f = d->fabric;
    if (live & LIVE_SET) {
        f.state = (int)(live & 0xff);
        f.status = (int)((live >> 8) & 0xffff);
        f.health = (unsigned)((live >> 24) & 0xff);
    }
    return f;
}
