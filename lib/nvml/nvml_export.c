/* nvml_export.c - nvmlInternalGetExportTable: the private table of entry
 * points that NVIDIA's own nvidia-smi asks the library for before it does
 * anything else. Without it nvidia-smi stops at once with "Mismatch in
 * versions between nvidia-smi and NVML".
 *
 * The table is undocumented. What is here was learnt from facts, never from
 * NVIDIA's code:
 *   - the real 535.261.03 library (Debian's libnvidia-ml1): its
 *     nvmlInternalGetExportTable(table **out, const guid *id) clears *out,
 *     compares the 16-byte id with the three it knows and answers
 *     INVALID_ARGUMENT (2) for any other id, or a NULL argument. A table
 *     starts with its own size in bytes; the one nvidia-smi asks for is 1960
 *     bytes: the size word and 244 function slots (objdump and readelf -r of
 *     the .data.rel.ro entries);
 *   - the real nvidia-smi 535.261.03: it asks for one id only (the first
 *     below), reads slot N only when the size word is larger than N * 8
 *     (`cmpq $N*8,(%rax); jbe skip` before every call), and treats a
 *     NOT_SUPPORTED answer as N/A;
 *   - running that nvidia-smi on this library with every slot logging its
 *     arguments (MOKKA_TRACE_EXPORT=1 prints them), for every layout, and
 *     diffing its output with a slot answering NOT_SUPPORTED against the
 *     same slot answering SUCCESS. NVIDIA's mock NVML (k8s-test-infra)
 *     published the process-entry layout and slots 81 and 213-215, 230 for
 *     its 580 build; the 535 table has them at the same places.
 *
 * A slot not listed in `known` answers NOT_SUPPORTED and is counted, so that
 * `mokka stats` shows it under nvmlInternalGetExportTable. An nvidia-smi of a
 * newer driver line that needs a slot past the end of this table sees the
 * short size word and fails with its own message, as it would on an older
 * driver. */
#include <stdio.h>
#include <stdlib.h>
#include "nvml_getters.h"

/* The id nvidia-smi asks for (6c3efec4-8fc9-4e6c-a327-ee696e12f7c4), as the
 * 16 bytes it passes: the first three fields little-endian. */
static const unsigned char smi_table_id[16] = {
    0xc4, 0xfe, 0x3e, 0x6c, 0xc9, 0x8f, 0x6c, 0x4e,
    0xa3, 0x27, 0xee, 0x69, 0x6e, 0x12, 0xf7, 0xc4,
};

#define MK_EXPORT_SLOTS 245 /* the size word and slots 1..244, as in 535.261.03 */

/* One entry of the private process lists (slots 213-215): the numbers of
 * nvmlProcessDetail_v1_t, then the name inline. 4128 bytes a entry. */
typedef struct {
    uint32_t pid;
    uint32_t pad;
    uint64_t used_memory;         /* bytes */
    uint32_t gpu_instance_id;     /* 0xFFFFFFFF outside MIG */
    uint32_t compute_instance_id;
    uint64_t cc_protected_memory;
    char name[4096];
} mk_smi_process;

typedef nvmlReturn_t (*slot_fn)(uintptr_t, uintptr_t, uintptr_t);

static int trace_slots; /* MOKKA_TRACE_EXPORT, read when the table is handed out */

/* --- the slots nvidia-smi 535 reads, by number ---------------------------------- */

/* The shape of most device slots: a GPU handle and an unsigned to fill. */
static nvmlReturn_t gpu_uint(uintptr_t dev, uintptr_t out, unsigned (*value)(const mk_ref *))
{
    mk_ref r;
    MK_GPU((nvmlDevice_t)dev, &r);
    MK_NONNULL((void *)out);
    *(unsigned *)out = value(&r);
    return NVML_SUCCESS;
}

/* 23: the PCIe path between two devices named by their PCI bus id strings
 * (topo -m, for every pair of rows: GPUs and NICs), in nvidia-smi's own
 * numbering, the index of its label table: 0 PIX, 1 PXB, 2 PHB, 3 NODE,
 * 4 SYS (5 and up are NV1, NV2 ..., which nvidia-smi works out itself from
 * the NVLink calls). A failure makes topo -m print "Failed to run topology
 * matrix"; an NVML level (50 for SYS) prints "Unknown". */
static nvmlReturn_t pci_path(uintptr_t a, uintptr_t b, uintptr_t out)
{
    nvmlDevice_t da, db;
    nvmlGpuTopologyLevel_t level;
    if (!a || !b || !out)
        return NVML_ERROR_INVALID_ARGUMENT;
    nvmlReturn_t rc = nvmlDeviceGetHandleByPciBusId_v2((const char *)a, &da);
    if (rc == NVML_SUCCESS)
        rc = nvmlDeviceGetHandleByPciBusId_v2((const char *)b, &db);
    if (rc == NVML_SUCCESS)
        rc = nvmlDeviceGetTopologyCommonAncestor(da, db, &level);
    if (rc == NVML_SUCCESS) /* INTERNAL 0, SINGLE 10 ... SYSTEM 50 */
        *(unsigned *)out = level < NVML_TOPOLOGY_SINGLE ? 0 : (unsigned)level / 10 - 1;
    return rc;
}

/* 26: nvidia-smi hands over its log sink (a format, "stdout", a stream) at
 * start and for each GPU it opens. The library has no log to route. */
static nvmlReturn_t log_sink(uintptr_t fmt, uintptr_t stream_name, uintptr_t stream)
{
    (void)fmt, (void)stream_name, (void)stream;
    return NVML_SUCCESS;
}

/* 72: whether nvidia-smi may show a GPU in dmon, pmon and topo -m: a device
 * handle and an unsigned flag. Answering NOT_SUPPORTED makes dmon and pmon
 * print "Not supported on the device(s)"; a 0 flag skips the GPU. */
static unsigned yes(const mk_ref *r)
{
    (void)r;
    return 1;
}

static nvmlReturn_t monitored(uintptr_t dev, uintptr_t out, uintptr_t unused)
{
    (void)unused;
    return gpu_uint(dev, out, yes);
}

/* 81: a device handle by index, with flags (nvidia-smi passes 0x22). On an
 * error nvidia-smi falls back to nvmlDeviceGetHandleByIndex_v2, so both
 * roads lead to the same answer, including GPU_IS_LOST. */
static nvmlReturn_t handle_by_index(uintptr_t index, uintptr_t out, uintptr_t flags)
{
    (void)flags;
    return nvmlDeviceGetHandleByIndex_v2((unsigned)index, (nvmlDevice_t *)out);
}

/* 213, 214, 215: the running compute, MPS and graphics processes of a GPU
 * (nvidia-smi types a process on lists 213 and 214 "M+C", 213 and 215 "C+G"):
 * handle, in/out count (the room, then how many), array of mk_smi_process.
 * nvidia-smi's table, -q and --query-compute-apps read these, never the
 * public nvmlDeviceGet*RunningProcesses. */
struct smi_list {
    unsigned room;
    mk_smi_process *out;
};

static void put_smi(void *ctx, unsigned k, const mk_process *p, unsigned gi, unsigned ci)
{
    struct smi_list *l = ctx;
    if (k >= l->room)
        return;
    mk_smi_process *e = &l->out[k];
    memset(e, 0, sizeof *e);
    e->pid = p->pid;
    e->used_memory = p->used_memory;
    e->gpu_instance_id = gi;
    e->compute_instance_id = ci;
    mk_copy_field(e->name, sizeof e->name, p->name);
}

static nvmlReturn_t process_list(mk_proc_list which, uintptr_t dev, uintptr_t count, uintptr_t out)
{
    mk_ref r;
    MK_ANY_LIVE((nvmlDevice_t)dev, &r);
    MK_NONNULL((void *)count);
    struct smi_list l = { out ? *(unsigned *)count : 0, (mk_smi_process *)out };
    unsigned n = mk_processes_each(&r, which, put_smi, &l);
    *(unsigned *)count = n;
    return n > l.room ? NVML_ERROR_INSUFFICIENT_SIZE : NVML_SUCCESS;
}

static nvmlReturn_t compute_processes(uintptr_t dev, uintptr_t count, uintptr_t out)
{
    return process_list(MK_PROCS_COMPUTE, dev, count, out);
}

static nvmlReturn_t graphics_processes(uintptr_t dev, uintptr_t count, uintptr_t out)
{
    return process_list(MK_PROCS_GRAPHICS, dev, count, out);
}

static nvmlReturn_t mps_processes(uintptr_t dev, uintptr_t count, uintptr_t out)
{
    return process_list(MK_PROCS_MPS, dev, count, out);
}

/* 108: the enforced power limit in milliwatts (--query-gpu
 * enforced.power.limit): a handle and an unsigned. Its function in the real
 * library sits next to nvmlDeviceGetEnforcedPowerLimit's name. */
static nvmlReturn_t enforced_power_limit(uintptr_t dev, uintptr_t out, uintptr_t unused)
{
    (void)unused;
    return nvmlDeviceGetEnforcedPowerLimit((nvmlDevice_t)dev, (unsigned *)out);
}

/* 230: the PCIe generation the host side of the link supports ("Host Max"
 * in -q, pcie.link.gen.hostmax): a handle and an unsigned. Found between
 * nvmlDeviceGetGpuMaxPcieLinkGeneration and nvmlDeviceGetMaxPcieLinkWidth
 * in the -q call sequence. The universe's slot is as fast as the GPU. */
static unsigned host_gen(const mk_ref *r)
{
    return r->d->pcie_max_gen;
}

static nvmlReturn_t host_max_pcie_gen(uintptr_t dev, uintptr_t out, uintptr_t unused)
{
    (void)unused;
    return gpu_uint(dev, out, host_gen);
}

/* 242: the addressing mode ("Addressing Mode" in -q): 0 is None, what a
 * discrete GPU on an x86 host without HMM or ATS reports. */
static unsigned none(const mk_ref *r)
{
    (void)r;
    return 0;
}

static nvmlReturn_t addressing_mode(uintptr_t dev, uintptr_t out, uintptr_t unused)
{
    (void)unused;
    return gpu_uint(dev, out, none);
}

/* Slots seen in use and left NOT_SUPPORTED, each N/A on the GPUs Mokka
 * models: 165 IBMNPU relaxed ordering (POWER hosts only), 209 graphics
 * voltage, 232 deferred memory clock, 240 T.Limit temperatures, 241 GPU NUMA
 * id (coherent Grace systems), 243 sparse operation mode, 145 per-process
 * utilisation samples of pmon; 226, 231 and 237 change nothing -q shows. */
static const slot_fn known[MK_EXPORT_SLOTS] = {
    [23] = pci_path,
    [26] = log_sink,
    [72] = monitored,
    [81] = handle_by_index,
    [108] = enforced_power_limit,
    [213] = compute_processes,
    [214] = mps_processes,
    [215] = graphics_processes,
    [230] = host_max_pcie_gen,
    [242] = addressing_mode,
};

/* --- the table ------------------------------------------------------------------ */

/* Each slot has a function of its own, so that a call says which slot it
 * came through. The x86-64 and AArch64 calling conventions pass the first
 * integer and pointer arguments in the same registers whatever the callee
 * declares, so three uintptr_t read what the caller passed. */
static nvmlReturn_t slot_call(unsigned slot, uintptr_t a0, uintptr_t a1, uintptr_t a2)
{
    if (!mk_enter(MK_FN_nvmlInternalGetExportTable))
        return NVML_ERROR_UNINITIALIZED;
    if (trace_slots)
        fprintf(stderr, "mokka: export slot %u (%#lx, %#lx, %#lx)\n", slot,
                (unsigned long)a0, (unsigned long)a1, (unsigned long)a2);
    if (known[slot])
        return known[slot](a0, a1, a2);
    return mk_unsupported(MK_FN_nvmlInternalGetExportTable);
}

#define SLOT(n) \
    static nvmlReturn_t slot_##n(uintptr_t a0, uintptr_t a1, uintptr_t a2) \
    { return slot_call(n, a0, a1, a2); }
#define TEN(M, t) M(t##0) M(t##1) M(t##2) M(t##3) M(t##4) M(t##5) M(t##6) M(t##7) M(t##8) M(t##9)
#define SLOTS_1_TO_244(M) \
    M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) \
    TEN(M, 1) TEN(M, 2) TEN(M, 3) TEN(M, 4) TEN(M, 5) TEN(M, 6) TEN(M, 7) TEN(M, 8) \
    TEN(M, 9) TEN(M, 10) TEN(M, 11) TEN(M, 12) TEN(M, 13) TEN(M, 14) TEN(M, 15) TEN(M, 16) \
    TEN(M, 17) TEN(M, 18) TEN(M, 19) TEN(M, 20) TEN(M, 21) TEN(M, 22) TEN(M, 23) \
    M(240) M(241) M(242) M(243) M(244)
SLOTS_1_TO_244(SLOT)

#define ADDRESS(n) (const void *)slot_##n,
static const void *const smi_table[MK_EXPORT_SLOTS] = {
    (const void *)(uintptr_t)(MK_EXPORT_SLOTS * sizeof(void *)),
    SLOTS_1_TO_244(ADDRESS)
};

MK_API nvmlReturn_t nvmlInternalGetExportTable(const void **ppExportTable, const void *pExportTableId)
{
    if (!ppExportTable || !pExportTableId)
        return NVML_ERROR_INVALID_ARGUMENT;
    *ppExportTable = NULL;
    if (memcmp(pExportTableId, smi_table_id, sizeof smi_table_id) != 0)
        return NVML_ERROR_INVALID_ARGUMENT; /* what the real library answers */
    trace_slots = getenv("MOKKA_TRACE_EXPORT") != NULL;
    *ppExportTable = smi_table;
    return NVML_SUCCESS;
}
