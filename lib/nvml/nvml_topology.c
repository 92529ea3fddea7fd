/* nvml_topology.c - where GPUs sit relative to each other and to the CPUs:
 * common PCIe ancestors, nearest GPUs, CPU and NUMA affinity, P2P status,
 * and NVLink (state, version, capabilities, remote PCI info).
 *
 * The PCIe tree is the universe's (mk_topology_level, universe.h). NVLink
 * wiring comes from the config (config_topology.c): each link reaches a peer
 * GPU (symmetric by construction: the device plugin's allocator panics on
 * one-sided links) or, on an NVSwitch fabric, a switch, through which every
 * GPU of the fabric is a peer. */
#include <stdio.h>
#include "nvml_impl.h"

/* The universe's levels are NVML's values (universe.h). */
static nvmlGpuTopologyLevel_t level(const mk_device *a, const mk_device *b)
{
    return (nvmlGpuTopologyLevel_t)mk_topology_level(a, b);
}

MK_API nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuTopologyLevel_t *pathInfo)
{
    mk_ref a, b;
    MK_ENTER(nvmlDeviceGetTopologyCommonAncestor);
    MK_GPU(device1, &a);
    MK_GPU(device2, &b);
    MK_NONNULL(pathInfo);
    *pathInfo = level(a.d, b.d);
    return NVML_SUCCESS;
}

/* Fills devices[] (up to *count) with the matches of `keep`, NVML style:
 * a NULL array asks for the count; too small an array is INSUFFICIENT_SIZE. */
static nvmlReturn_t list_gpus(const mk_universe *u, int (*keep)(const mk_device *, const void *),
                              const void *arg, unsigned int *count, nvmlDevice_t *devices)
{
    unsigned n = 0;
    MK_NONNULL(count);
    for (size_t k = 0; k < mk_L.vis.n; k++) {   /* the view's GPUs, in its order */
        unsigned i = mk_L.vis.gpu[k];
        if (!keep(&u->dev[i], arg))
            continue;
        if (devices && n < *count)
            devices[n] = mk_gpu_handle(i);
        n++;
    }
    if (devices && n > *count) {
        *count = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    *count = n;
    return NVML_SUCCESS;
}

typedef struct {
    const mk_device *self;
    nvmlGpuTopologyLevel_t max;
} nearest_arg;

static int is_near(const mk_device *d, const void *arg)
{
    const nearest_arg *a = arg;
    return d != a->self && level(a->self, d) <= a->max;
}

MK_API nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device, nvmlGpuTopologyLevel_t level_, unsigned int *count, nvmlDevice_t *deviceArray)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetTopologyNearestGpus);
    MK_GPU(device, &r);
    nearest_arg a = { r.d, level_ };
    return list_gpus(r.u, is_near, &a, count, deviceArray);
}

/* CPUs are spread evenly over the host's NUMA nodes. */
static int cpu_node(const mk_universe *u, unsigned cpu)
{
    return (int)((unsigned long long)cpu * u->numa_nodes / u->cpus);
}

static int near_cpu(const mk_device *d, const void *arg)
{
    const unsigned *cpu = arg;
    const mk_universe *u = mk_universe_now();
    return d->numa_node < 0 || d->numa_node == cpu_node(u, *cpu);
}

MK_API nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpuNumber, unsigned int *count, nvmlDevice_t *deviceArray)
{
    MK_ENTER(nvmlSystemGetTopologyGpuSet);
    const mk_universe *u = mk_universe_now();
    if (cpuNumber >= u->cpus)
        return NVML_ERROR_INVALID_ARGUMENT;
    return list_gpus(u, near_cpu, &cpuNumber, count, deviceArray);
}

static nvmlReturn_t cpu_affinity(nvmlDevice_t device, unsigned int size, unsigned long *set)
{
    mk_ref r;
    MK_GPU(device, &r);
    MK_NONNULL(set);
    const unsigned bits = sizeof *set * 8;
    memset(set, 0, size * sizeof *set);
    for (unsigned c = 0; c < r.u->cpus && c / bits < size; c++)
        if (r.d->numa_node < 0 || cpu_node(r.u, c) == r.d->numa_node)
            set[c / bits] |= 1ul << (c % bits);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device, unsigned int cpuSetSize, unsigned long *cpuSet)
{
    MK_ENTER(nvmlDeviceGetCpuAffinity);
    return cpu_affinity(device, cpuSetSize, cpuSet);
}

MK_API nvmlReturn_t nvmlDeviceGetCpuAffinityWithinScope(nvmlDevice_t device, unsigned int cpuSetSize, unsigned long *cpuSet, nvmlAffinityScope_t scope)
{
    MK_ENTER(nvmlDeviceGetCpuAffinityWithinScope);
    if (scope != NVML_AFFINITY_SCOPE_NODE && scope != NVML_AFFINITY_SCOPE_SOCKET)
        return NVML_ERROR_INVALID_ARGUMENT;
    return cpu_affinity(device, cpuSetSize, cpuSet);
}

MK_API nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t device, unsigned int nodeSetSize, unsigned long *nodeSet, nvmlAffinityScope_t scope)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetMemoryAffinity);
    MK_GPU(device, &r);
    MK_NONNULL(nodeSet);
    if (scope != NVML_AFFINITY_SCOPE_NODE && scope != NVML_AFFINITY_SCOPE_SOCKET)
        return NVML_ERROR_INVALID_ARGUMENT;
    const unsigned bits = sizeof *nodeSet * 8;
    memset(nodeSet, 0, nodeSetSize * sizeof *nodeSet);
    for (unsigned n = 0; n < r.u->numa_nodes && n / bits < nodeSetSize; n++)
        if (r.d->numa_node < 0 || (int)n == r.d->numa_node)
            nodeSet[n / bits] |= 1ul << (n % bits);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetNumaNodeId);
    MK_GPU(device, &r);
    MK_NONNULL(node);
    if (r.d->numa_node < 0)
        MK_UNSUPPORTED(nvmlDeviceGetNumaNodeId);
    *node = (unsigned)r.d->numa_node;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t *p2pStatus)
{
    mk_ref a, b;
    MK_ENTER(nvmlDeviceGetP2PStatus);
    MK_GPU(device1, &a);
    MK_GPU(device2, &b);
    MK_NONNULL(p2pStatus);
    if (p2pIndex == NVML_P2P_CAPS_INDEX_NVLINK)
        *p2pStatus = mk_nvlinks_between(a.d, b.d) ? NVML_P2P_STATUS_OK
                                                   : NVML_P2P_STATUS_NOT_SUPPORTED;
    else
        *p2pStatus = NVML_P2P_STATUS_OK;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceOnSameBoard(nvmlDevice_t device1, nvmlDevice_t device2, int *onSameBoard)
{
    mk_ref a, b;
    MK_ENTER(nvmlDeviceOnSameBoard);
    MK_GPU(device1, &a);
    MK_GPU(device2, &b);
    MK_NONNULL(onSameBoard);
    *onSameBoard = a.gpu == b.gpu;
    return NVML_SUCCESS;
}

/* --- NVLink --------------------------------------------------------------------- */

/* A link of a GPU with NVLink: INVALID_ARGUMENT past the NVML maximum,
 * NOT_SUPPORTED for a GPU without NVLink or a link it does not have. */
static nvmlReturn_t nvlink(nvmlDevice_t device, unsigned link, mk_ref *r)
{
    nvmlReturn_t rc = mk_gpu(device, r);
    if (rc)
        return rc;
    if (link >= NVML_NVLINK_MAX_LINKS)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (link >= r->d->nvlinks)
        return NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

#define MK_NVLINK(h, l, r, name) do { \
        nvmlReturn_t rc_ = nvlink((h), (l), (r)); \
        if (rc_ == NVML_ERROR_NOT_SUPPORTED) MK_UNSUPPORTED(name); \
        if (rc_) return rc_; \
    } while (0)

MK_API nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetNvLinkState);
    MK_NVLINK(device, link, &r, nvmlDeviceGetNvLinkState);
    MK_NONNULL(isActive);
    *isActive = mk_nvlink_up(r.d, link) && !mk_gpu_lost(r.gpu) ? NVML_FEATURE_ENABLED
                                                                : NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetNvLinkVersion);
    MK_NVLINK(device, link, &r, nvmlDeviceGetNvLinkVersion);
    MK_NONNULL(version);
    *version = r.d->nvlink_version;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device, unsigned int link, nvmlNvLinkCapability_t capability, unsigned int *capResult)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetNvLinkCapability);
    MK_NVLINK(device, link, &r, nvmlDeviceGetNvLinkCapability);
    MK_NONNULL(capResult);
    if ((unsigned)capability >= NVML_NVLINK_CAP_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    /* Peer-to-peer and its atomics over a connected link; no SLI bridge, no
     * system-memory access over NVLink (that needs a CPU with NVLink). */
    int up = mk_nvlink_up(r.d, link);
    switch (capability) {
    case NVML_NVLINK_CAP_P2P_SUPPORTED:
    case NVML_NVLINK_CAP_P2P_ATOMICS:
    case NVML_NVLINK_CAP_VALID:
        *capResult = (unsigned)up;
        break;
    default:
        *capResult = 0;
        break;
    }
    return NVML_SUCCESS;
}

static void put_pci(nvmlPciInfo_t *pci, int full, const char *bus_id, const char *legacy,
                    unsigned dom, unsigned bus, unsigned devn, uint32_t id, uint32_t subsys)
{
    mk_copy_field(pci->busIdLegacy, sizeof pci->busIdLegacy, legacy);
    pci->domain = dom;
    pci->bus = bus;
    pci->device = devn;
    pci->pciDeviceId = id;
    pci->pciSubSystemId = subsys;
    if (full)
        mk_copy_field(pci->busId, sizeof pci->busId, bus_id);
}

/* The far end of a link: the peer GPU, or the NVSwitch it reaches. */
static nvmlReturn_t remote_pci(nvmlDevice_t device, unsigned link, nvmlPciInfo_t *pci, int full)
{
    mk_ref r;
    nvmlReturn_t rc = nvlink(device, link, &r);
    if (rc)
        return rc;
    MK_NONNULL(pci);
    if (r.d->nvlink_switched) {
        const mk_nvswitch *sw = &r.u->sw[r.d->nvlink_switch[link]];
        put_pci(pci, full, sw->bus_id, sw->bus_id_legacy, sw->pci_domain, sw->pci_bus, 0,
                sw->pci_device_id, 0);
        return NVML_SUCCESS;
    }
    int peer = r.d->nvlink_peer[link];
    if (peer < 0)
        return NVML_ERROR_NOT_SUPPORTED; /* nothing at the other end */
    const mk_device *p = &r.u->dev[peer];
    put_pci(pci, full, p->bus_id, p->bus_id_legacy, p->pci_domain, p->pci_bus, p->pci_dev,
            p->pci_device_id, p->pci_subsys_id);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci)
{
    MK_ENTER(nvmlDeviceGetNvLinkRemotePciInfo_v2);
    nvmlReturn_t rc = remote_pci(device, link, pci, 1);
    if (rc == NVML_ERROR_NOT_SUPPORTED)
        MK_UNSUPPORTED(nvmlDeviceGetNvLinkRemotePciInfo_v2);
    return rc;
}

MK_API nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci)
{
    MK_ENTER(nvmlDeviceGetNvLinkRemotePciInfo);
    nvmlReturn_t rc = remote_pci(device, link, pci, 0);
    if (rc == NVML_ERROR_NOT_SUPPORTED)
        MK_UNSUPPORTED(nvmlDeviceGetNvLinkRemotePciInfo);
    return rc;
}

MK_API nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link, nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetNvLinkRemoteDeviceType);
    MK_NVLINK(device, link, &r, nvmlDeviceGetNvLinkRemoteDeviceType);
    MK_NONNULL(pNvLinkDeviceType);
    *pNvLinkDeviceType = r.d->nvlink_switched ? NVML_NVLINK_DEVICE_TYPE_SWITCH
                       : r.d->nvlink_peer[link] >= 0 ? NVML_NVLINK_DEVICE_TYPE_GPU
                                                     : NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, nvmlNvLinkErrorCounter_t counter, unsigned long long *counterValue)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetNvLinkErrorCounter);
    MK_NVLINK(device, link, &r, nvmlDeviceGetNvLinkErrorCounter);
    MK_NONNULL(counterValue);
    if ((unsigned)counter >= NVML_NVLINK_ERROR_COUNT)
        return NVML_ERROR_INVALID_ARGUMENT;
    *counterValue = 0;
    return NVML_SUCCESS;
}
