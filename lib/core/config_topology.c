/* config_topology.c - where the GPUs sit: PCI bus ids, NUMA nodes, minors,
 * and the NVLink wiring between them.
 *
 * Defaults copy a DGX/HGX board (the eight bus ids of a DGX A100, half the
 * GPUs on each NUMA node). GPUs built for a switch board (their profile
 * names its NVSwitches) sit on an NVSwitch fabric; others are wired to each
 * other. Direct wiring is always symmetric: when GPU a's link i reaches GPU
 * b's link j, b's link j reaches a's link i, because the device plugin's
 * allocator panics on one-sided topology. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "config_int.h"

static const unsigned dgx_buses[8] = { 0x07, 0x0F, 0x47, 0x4E, 0x87, 0x90, 0xB7, 0xBD };

/* NVML's two forms of a bus id: "00000000:07:00.0" and "0000:07:00.0". */
static void format_pci(char *full, char *legacy, unsigned dom, unsigned bus, unsigned devn,
                       unsigned fn)
{
    snprintf(full, MK_SHORT_LEN, "%08X:%02X:%02X.%X", dom, bus, devn, fn);
    snprintf(legacy, MK_SHORT_LEN, "%04X:%02X:%02X.%X", dom & 0xffff, bus, devn, fn);
}

static void format_bus_id(mk_device *dev)
{
    format_pci(dev->bus_id, dev->bus_id_legacy, dev->pci_domain, dev->pci_bus, dev->pci_dev,
               dev->pci_func);
}

static int hex_field(const char *s, size_t len, unsigned *out)
{
    unsigned v = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        int x = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (x < 0)
            return -1;
        v = v * 16 + (unsigned)x;
    }
    *out = v;
    return 0;
}

/* "0000:07:00.0" or "00000000:07:00.0" (hex domain:bus:device.function). */
int mk_parse_bus_id(const char *s, mk_device *dev)
{
    size_t len = strlen(s);
    size_t dl = len == 12 ? 4 : len == 16 ? 8 : 0;
    unsigned dom, bus, devn, fn;
    if (!dl || s[dl] != ':' || s[dl + 3] != ':' || s[dl + 6] != '.' ||
        hex_field(s, dl, &dom) || hex_field(s + dl + 1, 2, &bus) ||
        hex_field(s + dl + 4, 2, &devn) || hex_field(s + dl + 7, 1, &fn) ||
        devn > 0x1f || fn > 7)
        return -1;
    dev->pci_domain = dom;
    dev->pci_bus = bus;
    dev->pci_dev = devn;
    dev->pci_func = fn;
    format_bus_id(dev);
    return 0;
}

static int bus_taken(const mk_universe *u, unsigned dom, unsigned bus)
{
    for (size_t i = 0; i < u->ndev; i++)
        if (u->dev[i].bus_id[0] && u->dev[i].pci_domain == dom && u->dev[i].pci_bus == bus)
            return 1;
    for (size_t k = 0; k < u->nswitch; k++)
        if (u->sw[k].pci_domain == dom && u->sw[k].pci_bus == bus)
            return 1;
    return 0;
}

static void default_bus_ids(mk_universe *u)
{
    unsigned next = 0;
    for (size_t i = 0; i < u->ndev; i++) {
        mk_device *dev = &u->dev[i];
        if (dev->bus_id[0])
            continue;
        unsigned dom = 0, bus;
        if (u->ndev <= 8 && !bus_taken(u, 0, dgx_buses[i])) {
            bus = dgx_buses[i];
        } else {
            do {
                dom = next / 60;
                bus = 0x04 + (next % 60) * 4;
                next++;
            } while (bus_taken(u, dom, bus));
        }
        dev->pci_domain = dom;
        dev->pci_bus = bus;
        dev->pci_dev = 0;
        dev->pci_func = 0;
        format_bus_id(dev);
    }
}

/* The fields no two GPUs may share. */
typedef enum { ID_BUS, ID_UUID, ID_MINOR } id_field;

/* One GPU's value of such a field, as text, for sorting. */
typedef struct {
    const char *key;
    unsigned i;            /* index in u->dev */
} ident;

static int cmp_ident(const void *a, const void *b)
{
    const ident *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* A value held by n > 1 GPUs (v in index order) is reported once, at the
 * second holder: the first found it free. Many holders (a `defaults:` line
 * for every GPU) are named by the first few and a count. */
static void report_shared(const mk_universe *u, const ident *v, size_t n, id_field f,
                          mk_diags *d)
{
    static const char *const names[] = { "pciBusID", "uuid", "minorNumber" };
    const mk_device *a = &u->dev[v[0].i], *b = &u->dev[v[1].i];
    char value[MK_UUID_LEN], list[128] = "";
    snprintf(value, sizeof value, "%s", f == ID_BUS ? a->bus_id_legacy : a->uuid);
    if (f == ID_MINOR)
        snprintf(value, sizeof value, "%u", a->minor);
    if (n > 2) {
        size_t len = 0, named = n < 8 ? n : 8;
        len += (size_t)snprintf(list, sizeof list, "; %zu GPUs share it (GPUs", n);
        for (size_t k = 0; k < named; k++)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s %u", k ? "," : "",
                                    u->dev[v[k].i].index);
        if (n > named)
            len += (size_t)snprintf(list + len, sizeof list - len, " and %zu more", n - named);
        snprintf(list + len, sizeof list - len, ")");
    }
    mk_diag_add(d, MK_DIAG_ERROR, u->config_path, b->line, b->col,
                "GPU %u: %s %s is already used by GPU %u%s", b->index, names[f], value,
                a->index, list);
}

/* Sorting makes this n log n: 4096 GPUs that all share one value cost one
 * line, not 8 million. */
static void check_field(const mk_universe *u, ident *v, id_field f, mk_diags *d)
{
    size_t n = u->ndev;
    qsort(v, n, sizeof *v, cmp_ident);
    for (size_t g = 0, e; g < n; g = e) {
        for (e = g + 1; e < n && strcmp(v[e].key, v[g].key) == 0; e++)
            ;
        if (e - g > 1)
            report_shared(u, v + g, e - g, f, d);
    }
}

static void check_unique(const mk_universe *u, mk_diags *d)
{
    size_t n = u->ndev ? u->ndev : 1;
    ident *v = calloc(n, sizeof *v);
    char (*minors)[16] = calloc(n, sizeof *minors);
    if (!v || !minors) {
        mk_diag_add(d, MK_DIAG_ERROR, u->config_path, 0, 0, "out of memory");
        free(v);
        free(minors);
        return;
    }
    /* Bus ids are compared in the one form format_bus_id() writes. */
    for (unsigned i = 0; i < u->ndev; i++)
        v[i] = (ident){ u->dev[i].bus_id, i };
    check_field(u, v, ID_BUS, d);
    for (unsigned i = 0; i < u->ndev; i++)
        v[i] = (ident){ u->dev[i].uuid, i };
    check_field(u, v, ID_UUID, d);
    for (unsigned i = 0; i < u->ndev; i++) {
        snprintf(minors[i], sizeof minors[i], "%u", u->dev[i].minor);
        v[i] = (ident){ minors[i], i };
    }
    check_field(u, v, ID_MINOR, d);
    free(v);
    free(minors);
}

/* Connects GPUs a and b with `links` links, on each side's next free links. */
static int connect(mk_universe *u, unsigned a, unsigned b, unsigned links)
{
    mk_device *da = &u->dev[a], *db = &u->dev[b];
    for (unsigned k = 0; k < links; k++) {
        int la = -1, lb = -1;
        for (unsigned i = 0; i < da->nvlinks && la < 0; i++)
            if (da->nvlink_peer[i] < 0)
                la = (int)i;
        for (unsigned i = 0; i < db->nvlinks && lb < 0; i++)
            if (db->nvlink_peer[i] < 0)
                lb = (int)i;
        if (la < 0 || lb < 0)
            return -1;
        da->nvlink_peer[la] = (int)b;
        da->nvlink_peer_link[la] = (unsigned)lb;
        db->nvlink_peer[lb] = (int)a;
        db->nvlink_peer_link[lb] = (unsigned)la;
    }
    return 0;
}

/* --- an NVSwitch fabric ----------------------------------------------------------- */

/* How many switches the fabric has: topology.nvswitches, else the most any
 * GPU's profile names (a DGX A100 board has 6, an HGX H100 4). */
static unsigned fabric_switches(const mk_universe *u, const mk_ynode *topo, mk_diags *d)
{
    const mk_ynode *n = topo ? mk_yget(topo, "nvswitches") : NULL;
    long long v;
    if (n)
        return mk_yint(n, "topology.nvswitches", 1, MK_MAX_NVSWITCHES, &v, d) ? 0 : (unsigned)v;
    unsigned most = 0;
    for (size_t i = 0; i < u->ndev; i++)
        if (u->dev[i].nvlinks && u->dev[i].nvlink_switches > most)
            most = u->dev[i].nvlink_switches;
    return most;
}

/* The switches get free bus ids of their own (from bus 0xC4 up: past a DGX
 * board's GPUs), and the PCI device id the GPUs' profile gives them. */
static void add_switches(mk_universe *u, unsigned n)
{
    uint32_t id = 0;
    for (size_t i = 0; i < u->ndev && !id; i++)
        id = u->dev[i].nvlink_switch_pci_id;
    unsigned bus = 0xC4, dom = 0;
    u->nswitch = 0;
    while (u->nswitch < n) {
        while (bus_taken(u, dom, bus)) {
            if (++bus > 0xFF) {
                bus = 0x01;
                dom++;
            }
        }
        mk_nvswitch *sw = &u->sw[u->nswitch++];
        sw->pci_domain = dom;
        sw->pci_bus = bus;
        sw->pci_device_id = id;
        format_pci(sw->bus_id, sw->bus_id_legacy, dom, bus, 0, 0);
    }
}

/* Every link of every GPU goes to a switch, the GPU's links spread evenly
 * over the switches in order (12 links on 6 switches: 2 each, as on a DGX
 * A100), each on the switch's next free port. No link reaches a GPU
 * directly, so NVIDIA's allocator, which counts links whose far end is the
 * other GPU's bus id, sees none: placement falls back to PCIe, as on the
 * real boards. */
static void wire_switched(mk_universe *u, const mk_ynode *nv, const mk_ynode *topo,
                          mk_diags *d)
{
    unsigned n = fabric_switches(u, topo, d), ports[MK_MAX_NVSWITCHES] = { 0 };
    if (n == 0) {
        if (!topo || !mk_yget(topo, "nvswitches"))
            mk_yerr(d, nv, "topology.nvlink: nvswitch, but no GPU's profile says how many "
                    "NVSwitches its board has (nvlink.switches): give topology.nvswitches");
        return;
    }
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_device *dev = &u->dev[i];
        if (dev->nvlinks && dev->nvlinks < n) {
            mk_yerr(d, topo && mk_yget(topo, "nvswitches") ? mk_yget(topo, "nvswitches") : nv,
                    "topology.nvlink: nvswitch: %u NVSwitches, but GPU %u has %u NVLinks, one "
                    "for each switch at least", n, dev->index, dev->nvlinks);
            return;
        }
    }
    add_switches(u, n);
    for (size_t i = 0; i < u->ndev; i++) {
        mk_device *dev = &u->dev[i];
        dev->nvlink_switched = dev->nvlinks > 0;
        for (unsigned l = 0; l < dev->nvlinks; l++) {
            unsigned sw = l * n / dev->nvlinks;
            dev->nvlink_switch[l] = (unsigned char)sw;
            dev->nvlink_peer_link[l] = ports[sw]++;
        }
    }
}

/* Without topology.nvlink, GPUs built for a switch board (every linked
 * GPU's profile names its switches) sit on a fabric; others link directly. */
static int fabric_by_profile(const mk_universe *u)
{
    int linked = 0;
    for (size_t i = 0; i < u->ndev; i++) {
        if (!u->dev[i].nvlinks)
            continue;
        if (!u->dev[i].nvlink_switches)
            return 0;
        linked = 1;
    }
    return linked;
}

/* --- direct links ------------------------------------------------------------------ */

static void wire_all(mk_universe *u)
{
    unsigned minlinks = MK_MAX_NVLINKS;
    size_t n = u->ndev;
    for (size_t i = 0; i < n; i++)
        if (u->dev[i].nvlinks < minlinks)
            minlinks = u->dev[i].nvlinks;
    if (n < 2 || minlinks == 0)
        return;
    unsigned per_pair = minlinks / (unsigned)(n - 1);
    if (per_pair == 0)
        return; /* more GPUs than links: no direct wiring can reach them all */
    for (unsigned a = 0; a < n; a++)
        for (unsigned b = a + 1; b < n; b++)
            connect(u, a, b, per_pair);
}

static void wire_pairs(mk_universe *u, const mk_ynode *list, mk_diags *d)
{
    for (size_t i = 0; i < list->n; i++) {
        const mk_ynode *p = list->vals[i];
        long long a, b, links = 1;
        if (p->kind != MK_Y_SEQ || (p->n != 2 && p->n != 3)) {
            mk_yerr(d, p, "topology.nvlink: expected pairs like [0, 1] or [0, 1, LINKS]");
            continue;
        }
        if (mk_yint(p->vals[0], "GPU index", 0, (long long)u->ndev - 1, &a, d) ||
            mk_yint(p->vals[1], "GPU index", 0, (long long)u->ndev - 1, &b, d) ||
            (p->n == 3 && mk_yint(p->vals[2], "links", 1, MK_MAX_NVLINKS, &links, d)))
            continue;
        if (a == b) {
            mk_yerr(d, p, "topology.nvlink: GPU %lld cannot link to itself", a);
            continue;
        }
        if (connect(u, (unsigned)a, (unsigned)b, (unsigned)links) != 0)
            mk_yerr(d, p, "topology.nvlink: not enough free links on GPU %lld or %lld "
                    "(each has the links its profile's nvlink.links says)", a, b);
    }
}

void mk_config_topology(mk_universe *u, const mk_ynode *topo, mk_diags *d)
{
    static const char *const keys[] = { "nvlink", "nvswitches", "numaNodes", "cpus", NULL };
    long long v;
    const mk_ynode *n;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    u->numa_nodes = u->ndev >= 2 ? 2 : 1;
    u->cpus = cpus > 0 ? (unsigned)cpus : 1;
    if (topo) {
        mk_ycheck_keys(topo, "topology", keys, d);
        if ((n = mk_yget(topo, "numaNodes")) && mk_yint(n, "numaNodes", 1, 64, &v, d) == 0)
            u->numa_nodes = (unsigned)v;
        if ((n = mk_yget(topo, "cpus")) && mk_yint(n, "cpus", 1, 4096, &v, d) == 0)
            u->cpus = (unsigned)v;
    }
    default_bus_ids(u);
    for (size_t i = 0; i < u->ndev; i++) {
        mk_device *dev = &u->dev[i];
        if (dev->numa_node == -2)
            dev->numa_node = (int)(i * u->numa_nodes / u->ndev);
        if (dev->numa_node >= (int)u->numa_nodes)
            mk_diag_add(d, MK_DIAG_ERROR, u->config_path, dev->line, dev->col,
                        "GPU %u: numaNode %d, but the host has %u NUMA nodes (topology.numaNodes)",
                        dev->index, dev->numa_node, u->numa_nodes);
        for (unsigned l = 0; l < MK_MAX_NVLINKS; l++)
            dev->nvlink_peer[l] = -1;
    }
    check_unique(u, d);

    n = topo ? mk_yget(topo, "nvlink") : NULL;
    int scalar = n && n->kind == MK_Y_SCALAR;
    int fabric = (!n && fabric_by_profile(u)) || (scalar && strcasecmp(n->str, "nvswitch") == 0);
    if (fabric)
        wire_switched(u, n ? n : topo, topo, d);
    else if (!n || (scalar && strcasecmp(n->str, "all") == 0))
        wire_all(u);
    else if (n->kind == MK_Y_SEQ)
        wire_pairs(u, n, d);
    else if (!(scalar && strcasecmp(n->str, "none") == 0))
        mk_yerr(d, n, "topology.nvlink: expected nvswitch, all, none or a list of pairs like "
                "[[0, 1], [2, 3]]");
    if (!fabric && topo && (n = mk_yget(topo, "nvswitches")))
        mk_yerr(d, n, "topology.nvswitches: only for topology.nvlink: nvswitch");
}
