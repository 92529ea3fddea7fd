/* labels.c - the labels gpu-feature-discovery writes, from NVML and sysfs:
 * driver and CUDA versions, the first GPU's product, memory, family and
 * compute capability, the GPU count, MIG capability and (strategy single
 * or mixed) the MIG devices, the GPU mode from the PCI class in sysfs (and,
 * as go-nvlib insists, its resource file; vgpu.present from config), and
 * the machine from the DMI product name. Values are sanitised as GFD does:
 * spaces become '-'. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gfd.h"

#define P "nvidia.com/"
#define MAX_MIG_PROFILES 32

static void add(fg_labels *l, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void add(fg_labels *l, const char *key, const char *fmt, ...)
{
    char value[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    for (char *c = value; *c; c++)
        if (*c == ' ')
            *c = '-';
    size_t need = strlen(P) + strlen(key) + strlen(value) + 3;
    if (l->len + need > l->cap) {
        size_t cap = (l->cap + need) * 2;
        char *t = realloc(l->text, cap);
        if (!t)
            return;
        l->text = t;
        l->cap = cap;
    }
    l->len += (size_t)snprintf(l->text + l->len, l->cap - l->len, "%s%s=%s\n", P, key, value);
}

void fg_labels_free(fg_labels *l)
{
    free(l->text);
    memset(l, 0, sizeof *l);
}

/* GFD's getArchFamily. */
static const char *family(int major, int minor)
{
    switch (major) {
    case 3: return "kepler";
    case 5: return "maxwell";
    case 6: return "pascal";
    case 7: return minor < 5 ? "volta" : "turing";
    case 8: return minor < 9 ? "ampere" : "ada-lovelace";
    case 9: return "hopper";
    case 10: return "blackwell";
    default: return "undefined";
    }
}

/* "NVIDIA DGX A100" from the DMI file, trimmed; "unknown" without one. */
static void machine(const char *path, char *out, size_t len)
{
    FILE *f = fopen(path, "re");
    snprintf(out, len, "unknown");
    if (!f) {
        fg_log('W', "cannot read the machine type from %s", path);
        return;
    }
    if (fgets(out, (int)len, f)) {
        size_t n = strlen(out);
        while (n && isspace((unsigned char)out[n - 1]))
            out[--n] = 0;
    }
    fclose(f);
}

/* The GPU's directory in sysfs: NVML's bus id with a 4-digit domain, in
 * lower case, as go-nvlib's nvpci reads it. */
static void sysfs_dir(const char *bus_id, char *out, size_t len)
{
    char id[32];
    snprintf(id, sizeof id, "%s", strncmp(bus_id, "0000", 4) == 0 && strlen(bus_id) > 12
                                       ? bus_id + 4 : bus_id);
    for (char *c = id; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    snprintf(out, len, "/sys/bus/pci/devices/%s", id);
}

/* What go-nvlib insists on before GFD labels anything: `resource`, each
 * line "start end flags"; without it the real GFD exits with this error. */
static int pci_resource_ok(const char *dir, char *err, size_t errlen)
{
    char path[160], line[256];
    unsigned long long a, b, c;
    snprintf(path, sizeof path, "%s/resource", dir);
    FILE *f = fopen(path, "re");
    if (!f) {
        snprintf(err, errlen, "error creating labeler: unable to read PCI resource file for %s: "
                 "open %s: %s", strrchr(dir, '/') + 1, path, strerror(errno));
        return -1;
    }
    int ok = 1;
    while (ok && fgets(line, sizeof line, f))
        ok = sscanf(line, "%llx %llx %llx", &a, &b, &c) == 3;
    fclose(f);
    if (!ok)
        snprintf(err, errlen, "error creating labeler: bad PCI resource file %s", path);
    return ok ? 0 : -1;
}

/* vgpu.present from the 256-byte config space (no capability list, so no
 * vGPU); an error line and no label without it, as the real GFD logs. */
static void vgpu_label(const char *dir, fg_labels *l)
{
    char path[160];
    unsigned char cfg[256];
    snprintf(path, sizeof path, "%s/config", dir);
    FILE *f = fopen(path, "re");
    size_t n = f ? fread(cfg, 1, sizeof cfg, f) : 0;
    if (f)
        fclose(f);
    if (n < sizeof cfg) {
        fg_log('E', "unable to get vGPU devices: unable to read PCI configuration space for %s",
               path);
        return;
    }
    add(l, "vgpu.present", "%s", (cfg[0x06] & 0x10) ? "true" : "false");
}

/* compute or graphics from the PCI class in sysfs. */
static const char *gpu_mode(const char *dir)
{
    char path[160];
    unsigned cls = 0;
    snprintf(path, sizeof path, "%s/class", dir);
    FILE *f = fopen(path, "re");
    if (!f || fscanf(f, "%x", &cls) != 1) {
        if (f)
            fclose(f);
        fg_log('W', "no PCI class in sysfs (%s)", path);
        return "unknown";
    }
    fclose(f);
    return (cls >> 8) == 0x0302 ? "compute" : (cls >> 8) == 0x0300 ? "graphics" : "unknown";
}

typedef struct {
    char name[32];          /* "1g.5gb" */
    unsigned count, mem_mib, sms, slices;
} mig_profile;

/* The MIG devices of every MIG-enabled GPU, grouped by profile. */
static size_t mig_profiles(const fg_nvml *n, unsigned gpus, mig_profile *out, size_t max)
{
    size_t np = 0;
    for (unsigned i = 0; i < gpus; i++) {
        nvmlDevice_t d;
        unsigned cur = 0, pend = 0, nmig = 0;
        if (n->DeviceGetHandleByIndex_v2(i, &d) != NVML_SUCCESS ||
            n->DeviceGetMigMode(d, &cur, &pend) != NVML_SUCCESS || cur != NVML_DEVICE_MIG_ENABLE ||
            n->DeviceGetMaxMigDeviceCount(d, &nmig) != NVML_SUCCESS)
            continue;
        for (unsigned j = 0; j < nmig; j++) {
            nvmlDevice_t m;
            nvmlDeviceAttributes_t a;
            if (n->DeviceGetMigDeviceHandleByIndex(d, j, &m) != NVML_SUCCESS ||
                n->DeviceGetAttributes_v2(m, &a) != NVML_SUCCESS)
                continue;
            char name[32];
            snprintf(name, sizeof name, "%ug.%llugb", a.gpuInstanceSliceCount,
                     (a.memorySizeMB + 1023) / 1024);
            size_t k = 0;
            while (k < np && strcmp(out[k].name, name) != 0)
                k++;
            if (k == np) {
                if (np == max)
                    continue;
                out[np++] = (mig_profile){ "", 0, (unsigned)a.memorySizeMB,
                                           a.multiprocessorCount, a.gpuInstanceSliceCount };
                snprintf(out[k].name, sizeof out[k].name, "%s", name);
            }
            out[k].count++;
        }
    }
    return np;
}

static void mig_labels(const fg_nvml *n, const fg_opts *o, unsigned gpus, const char *product,
                       fg_labels *l)
{
    mig_profile p[MAX_MIG_PROFILES];
    size_t np = mig_profiles(n, gpus, p, MAX_MIG_PROFILES);
    char key[96];
    if (strcmp(o->mig_strategy, "single") == 0 && np == 1) {
        add(l, "gpu.product", "%s-MIG-%s", product, p[0].name);
        add(l, "gpu.count", "%u", p[0].count);
        add(l, "gpu.memory", "%u", p[0].mem_mib);
        add(l, "gpu.multiprocessors", "%u", p[0].sms);
        add(l, "gpu.slices.gi", "%u", p[0].slices);
        add(l, "gpu.slices.ci", "%u", p[0].slices);
    } else if (strcmp(o->mig_strategy, "mixed") == 0) {
        for (size_t i = 0; i < np; i++) {
#define MIG(field, fmt, v) \
    (snprintf(key, sizeof key, "mig-%.31s." field, p[i].name), add(l, key, fmt, v))
            MIG("count", "%u", p[i].count);
            MIG("memory", "%u", p[i].mem_mib);
            MIG("multiprocessors", "%u", p[i].sms);
            MIG("slices.gi", "%u", p[i].slices);
            MIG("slices.ci", "%u", p[i].slices);
#undef MIG
        }
    }
}

static void version_labels(const fg_nvml *n, fg_labels *l)
{
    char drv[96] = "";
    int cuda = 0;
    unsigned maj = 0, min = 0;
    char rev[32] = "";
    if (n->SystemGetDriverVersion(drv, sizeof drv) == NVML_SUCCESS &&
        sscanf(drv, "%u.%u.%31s", &maj, &min, rev) >= 2) {
        add(l, "cuda.driver.major", "%u", maj);
        add(l, "cuda.driver.minor", "%u", min);
        add(l, "cuda.driver.rev", "%s", rev);
        add(l, "cuda.driver-version.full", "%s", drv);
        add(l, "cuda.driver-version.major", "%u", maj);
        add(l, "cuda.driver-version.minor", "%u", min);
        add(l, "cuda.driver-version.revision", "%s", rev);
    }
    if (n->SystemGetCudaDriverVersion(&cuda) == NVML_SUCCESS) {
        add(l, "cuda.runtime.major", "%d", cuda / 1000);
        add(l, "cuda.runtime.minor", "%d", cuda % 1000 / 10);
        add(l, "cuda.runtime-version.full", "%d.%d", cuda / 1000, cuda % 1000 / 10);
        add(l, "cuda.runtime-version.major", "%d", cuda / 1000);
        add(l, "cuda.runtime-version.minor", "%d", cuda % 1000 / 10);
    }
}

/* nvidia.com/gpu.clique as GFD v0.17 makes it (internal/lm/imex.go, with
 * go-nvlib's IsFabricAttached): the GPUs whose fabric registration
 * completed with success and a non-zero cluster UUID must agree on one
 * cluster UUID and one clique id; the label is "<cluster UUID>.<clique id>".
 * A GPU without a fabric (NOT_SUPPORTED) is skipped; any other error fails
 * the labeling. */
static int clique_label(const fg_nvml *n, unsigned gpus, fg_labels *l, char *err, size_t errlen)
{
    unsigned char uuid[16];
    unsigned clique = 0, attached = 0;
    int mixed = 0;
    for (unsigned i = 0; i < gpus; i++) {
        nvmlDevice_t d;
        nvmlGpuFabricInfo_t f;
        static const unsigned char zero[16];
        if (n->DeviceGetHandleByIndex_v2(i, &d) != NVML_SUCCESS)
            continue;
        nvmlReturn_t r = n->DeviceGetGpuFabricInfo(d, &f);
        if (r == NVML_ERROR_NOT_SUPPORTED)
            continue;
        if (r != NVML_SUCCESS) {
            snprintf(err, errlen, "error checking imex capability: error getting GPU Fabric Info: %s",
                     n->ErrorString(r));
            return -1;
        }
        if (f.state != NVML_GPU_FABRIC_STATE_COMPLETED || memcmp(f.clusterUuid, zero, 16) == 0 ||
            f.status != NVML_SUCCESS)
            continue;
        if (attached++ == 0) {
            memcpy(uuid, f.clusterUuid, 16);
            clique = f.cliqueId;
        } else if (memcmp(uuid, f.clusterUuid, 16) != 0 || clique != f.cliqueId) {
            mixed = 1;
        }
    }
    if (mixed)
        fg_log('W', "Cluster UUIDs or clique IDs are non-unique");
    if (!attached || mixed)
        return 0;
    add(l, "gpu.clique", "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x.%u",
        uuid[0], uuid[1], uuid[2], uuid[3], uuid[4], uuid[5], uuid[6], uuid[7], uuid[8],
        uuid[9], uuid[10], uuid[11], uuid[12], uuid[13], uuid[14], uuid[15], clique);
    return 0;
}

int fg_labels_make(const fg_nvml *n, const fg_opts *o, fg_labels *l, char *err, size_t errlen)
{
    unsigned gpus = 0, whole = 0;
    nvmlReturn_t r = n->DeviceGetCount_v2(&gpus);
    if (r != NVML_SUCCESS) {
        snprintf(err, errlen, "error getting device count: %s", n->ErrorString(r));
        return -1;
    }
    if (!o->no_timestamp)
        add(l, "gfd.timestamp", "%lld", (long long)time(NULL));
    version_labels(n, l);
    char mach[256];
    machine(o->machine_file, mach, sizeof mach);
    add(l, "gpu.machine", "%s", mach);
    if (gpus == 0)
        return 0;
    int capable = 0;
    for (unsigned i = 0; i < gpus; i++) {
        nvmlDevice_t d;
        unsigned cur = 0, pend = 0;
        if (n->DeviceGetHandleByIndex_v2(i, &d) != NVML_SUCCESS)
            continue;
        int mig = n->DeviceGetMigMode(d, &cur, &pend) == NVML_SUCCESS;
        capable |= mig;
        whole += !(mig && cur == NVML_DEVICE_MIG_ENABLE);
    }
    nvmlDevice_t d;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "";
    nvmlMemory_t mem = { 0 };
    nvmlPciInfo_t pci;
    int major = 0, minor = 0;
    if ((r = n->DeviceGetHandleByIndex_v2(0, &d)) != NVML_SUCCESS ||
        (r = n->DeviceGetName(d, name, sizeof name)) != NVML_SUCCESS ||
        (r = n->DeviceGetMemoryInfo(d, &mem)) != NVML_SUCCESS ||
        (r = n->DeviceGetCudaComputeCapability(d, &major, &minor)) != NVML_SUCCESS ||
        (r = n->DeviceGetPciInfo_v3(d, &pci)) != NVML_SUCCESS) {
        snprintf(err, errlen, "error getting GPU 0: %s", n->ErrorString(r));
        return -1;
    }
    add(l, "gpu.compute.major", "%d", major);
    add(l, "gpu.compute.minor", "%d", minor);
    add(l, "gpu.family", "%s", family(major, minor));
    char dir[128];
    sysfs_dir(pci.busId, dir, sizeof dir);
    if (pci_resource_ok(dir, err, errlen) != 0)
        return -1;
    add(l, "gpu.mode", "%s", gpu_mode(dir));
    vgpu_label(dir, l);
    add(l, "gpu.replicas", "1");
    add(l, "gpu.sharing-strategy", "none");
    if (clique_label(n, gpus, l, err, errlen) != 0)
        return -1;
    add(l, "mig.capable", "%s", capable ? "true" : "false");
    add(l, "mps.capable", "false");
    if (strcmp(o->mig_strategy, "none") != 0)
        add(l, "mig.strategy", "%s", o->mig_strategy);
    size_t before = l->len;
    if (strcmp(o->mig_strategy, "none") != 0 && whole < gpus)
        mig_labels(n, o, gpus, name, l);
    /* Strategy single: the MIG devices stand for the GPUs (when mig_labels
     * gave gpu.* already, these are not repeated). */
    if (!(l->len > before && strcmp(o->mig_strategy, "single") == 0)) {
        add(l, "gpu.product", "%s", name);
        add(l, "gpu.count", "%u", gpus); /* mixed: MIG-enabled GPUs of the name count too */
        add(l, "gpu.memory", "%llu", (unsigned long long)(mem.total >> 20));
    }
    return l->text ? 0 : (snprintf(err, errlen, "out of memory"), -1);
}
