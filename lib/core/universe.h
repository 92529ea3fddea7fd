/* universe.h - the virtual GPU universe: the immutable snapshot that a config
 * compiles to, shared by libnvidia-ml.so.1 and the mokka CLI.
 *
 * Units everywhere: memory in bytes, power in milliwatts, energy in
 * millijoules, temperature in degrees C, clocks in MHz, shares in percent.
 * Enumerations use NVML's own numeric values, so the NVML layer passes them
 * through unchanged. Values that change at run time are described here by an
 * mk_lv (live value spec); their current values live in state.h. */
#ifndef MOKKA_UNIVERSE_H
#define MOKKA_UNIVERSE_H

#include <stddef.h>
#include <stdint.h>
#include "diag.h"

#define MK_NAME_LEN   96
#define MK_UUID_LEN   96
#define MK_SHORT_LEN  32
/* The driver version is also the GSP firmware version, which NVML returns in
 * NVML_GSP_FIRMWARE_VERSION_BUF_SIZE (64) bytes; the NVML version fits
 * NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE (80). Both with their NUL. */
#define MK_DRIVER_VERSION_LEN 64
#define MK_NVML_VERSION_LEN   80
#define MK_MAX_NVLINKS 18     /* NVML_NVLINK_MAX_LINKS */
#define MK_MAX_NVSWITCHES 18  /* a GB200 NVL72 rack: 9 switch trays of 2 */
#define MK_MAX_MIG_PROFILES 24
#define MK_MAX_PLACEMENTS 8

/* The live metrics of a device (the slots of the shared state file). */
typedef enum {
    MK_M_TEMP,          /* GPU temperature, C */
    MK_M_TEMP_MEM,      /* memory temperature, C */
    MK_M_POWER,         /* power draw, mW */
    MK_M_UTIL_GPU,      /* % */
    MK_M_UTIL_MEM,      /* % */
    MK_M_UTIL_ENC,      /* % */
    MK_M_UTIL_DEC,      /* % */
    MK_M_MEM_USED,      /* bytes */
    MK_M_FAN,           /* % */
    MK_M_CLK_GRAPHICS,  /* MHz */
    MK_M_CLK_SM,        /* MHz */
    MK_M_CLK_MEM,       /* MHz */
    MK_M_CLK_VIDEO,     /* MHz */
    MK_M_COUNT
} mk_metric;

/* How a live value behaves. */
typedef enum {
    MK_LV_FIXED,   /* always lo */
    MK_LV_RANGE,   /* a fresh value in [lo, hi] at each read */
    MK_LV_DRIFT,   /* previous value +/- up to step, kept in [lo, hi]; starts at start */
    MK_LV_FOLLOW,  /* derived from utilisation: lo at 0 %, hi at 100 % */
    MK_LV_NA       /* the device has no such sensor: NOT_SUPPORTED */
} mk_lv_kind;

typedef struct mk_lv {
    mk_lv_kind kind;
    int64_t lo, hi, step, start;
} mk_lv;

/* What a health fault looks like to NVML clients. */
typedef enum {
    MK_FAULT_NONE = 0,
    MK_FAULT_XID,   /* XID critical error event; queries keep working */
    MK_FAULT_ECC,   /* double-bit ECC event and rising ECC counters */
    MK_FAULT_LOST   /* XID event, then NVML_ERROR_GPU_IS_LOST from every query */
} mk_fault_mode;

typedef struct mk_health_rules {
    double after_seconds;      /* < 0: off */
    int on_memory_exceed;      /* percent of total; < 0: off */
    int on_temperature;        /* C; < 0: off */
    unsigned xid;              /* XID reported by a rule-triggered fault */
    mk_fault_mode mode;
} mk_health_rules;

/* One row of a GPU's MIG profile table (GPU-instance profile). */
typedef struct mk_mig_profile {
    char name[MK_SHORT_LEN];   /* "1g.5gb", "1g.5gb+me" */
    unsigned nvml_profile;     /* NVML_GPU_INSTANCE_PROFILE_* */
    unsigned id;               /* profile id reported by nvml (info.id) */
    unsigned slices;           /* compute slices */
    unsigned mem_slices;       /* memory slices */
    uint64_t memory;           /* bytes */
    unsigned max_instances;
    unsigned sms;
    unsigned copy_engines, decoders, encoders, jpegs, ofas;
    unsigned nplacements;
    unsigned placements[MK_MAX_PLACEMENTS]; /* allowed start slots */
    unsigned placement_size;                /* slots one instance occupies */
} mk_mig_profile;

/* One MIG device: a GPU instance with one compute instance spanning it. */
typedef struct mk_mig_dev {
    unsigned profile;          /* index into the parent's migp[] */
    unsigned gi_id, ci_id;
    unsigned start;            /* placement start slot */
    char uuid[MK_UUID_LEN];    /* "MIG-..." */
    uint64_t memory;           /* bytes */
    unsigned gi_minor, ci_minor; /* nvidia-caps minors for access files */
} mk_mig_dev;

/* A GPU's NVLink fabric identity and health, what nvmlDeviceGetGpuFabricInfo
 * answers (config key `fabric:`, lib/core/config_fabric.c; the live state can
 * override state, status and health, lib/core/fabric.h). */
typedef struct mk_fabric {
    int state;                 /* NVML_GPU_FABRIC_STATE_*: 0 not supported .. 3 completed */
    int status;                /* nvmlReturn_t: NVML_SUCCESS or why registration failed */
    unsigned clique;           /* clique id (partition id before NVML 12.3) */
    unsigned health;           /* MK_FABRIC_* conditions that hold (fabric.h) */
    unsigned char cluster[16]; /* cluster UUID, all zero: none */
    /* loader-internal: what the config said, resolved by mk_config_fabric */
    int given_state, given_status; /* -1: not given */
    int cluster_auto;          /* clusterUuid: auto (derived from the rack) */
    char rack[MK_NAME_LEN];    /* the rack that auto derives from; "": from the node name */
    int line, col;             /* where `fabric:` was last given; 0: nowhere */
} mk_fabric;

typedef struct mk_process {
    unsigned pid;
    char name[MK_NAME_LEN];
    uint64_t used_memory;      /* bytes */
    int graphics;              /* listed as a graphics process too */
} mk_process;

typedef struct mk_device {
    unsigned index;
    int line, col;             /* where the device is described: its entry, else count: */
    char profile[MK_SHORT_LEN];

    /* identity */
    char name[MK_NAME_LEN];
    char uuid[MK_UUID_LEN];
    char serial[MK_SHORT_LEN];
    char board_part[MK_SHORT_LEN];
    unsigned board_id;
    char vbios[MK_SHORT_LEN];
    char inforom_image[MK_SHORT_LEN];
    char inforom_oem[MK_SHORT_LEN], inforom_ecc[MK_SHORT_LEN], inforom_pwr[MK_SHORT_LEN];
    unsigned brand;            /* NVML_BRAND_* */
    unsigned arch;             /* NVML_DEVICE_ARCH_* */
    int cc_major, cc_minor;
    unsigned sm_count;
    unsigned minor;            /* /dev/nvidiaN */

    /* PCI */
    char bus_id[MK_SHORT_LEN];         /* "00000000:07:00.0" (NVML form) */
    char bus_id_legacy[MK_SHORT_LEN];  /* "0000:07:00.0" */
    unsigned pci_domain, pci_bus, pci_dev, pci_func;
    uint32_t pci_device_id;    /* 0x20B010DE */
    uint32_t pci_subsys_id;
    int numa_node;             /* -1: none (-2 while loading: not given) */
    unsigned pcie_max_gen, pcie_gen, pcie_max_width, pcie_width;

    /* memory */
    uint64_t mem_total, mem_reserved, bar1_total;

    /* thermal, C */
    int temp_shutdown, temp_slowdown, temp_mem_max, temp_gpu_max, temp_target;

    /* power, mW */
    unsigned power_default_limit, power_min_limit, power_max_limit, power_limit;
    unsigned power_idle;       /* draw at 0 % utilisation, for `power: follow` */

    /* clocks, MHz */
    unsigned clk_max_graphics, clk_max_sm, clk_max_mem, clk_max_video;
    unsigned clk_app_graphics, clk_app_mem;

    /* modes */
    unsigned pstate;           /* 0..15 */
    int ecc_enabled;
    int persistence;
    unsigned compute_mode;     /* NVML_COMPUTEMODE_* */
    unsigned fans;             /* 0: no fan (fan speed NOT_SUPPORTED) */

    mk_lv lv[MK_M_COUNT];
    mk_health_rules health;

    /* MIG */
    unsigned mig_slices, mig_mem_slices;  /* 0: not MIG capable */
    size_t nmigp;
    mk_mig_profile migp[MK_MAX_MIG_PROFILES];
    int mig_enabled;
    size_t nmig;
    mk_mig_dev *mig;
    const struct mk_ynode *mig_request; /* loader-internal: the instances list */

    /* NVLink */
    unsigned nvlink_version;
    unsigned nvlinks;                     /* links present */
    int nvlink_peer[MK_MAX_NVLINKS];      /* peer device index, or -1 */
    unsigned nvlink_peer_link[MK_MAX_NVLINKS]; /* the peer's link number */
    int nvlink_switched;       /* the links go to NVSwitches (topology.nvlink: nvswitch):
                                * every GPU of the universe is a peer over all of them */
    unsigned char nvlink_switch[MK_MAX_NVLINKS]; /* switched: the NVSwitch a link reaches */
    unsigned nvlink_switches;  /* NVSwitches of the board it is built for (profile); 0: none */
    uint32_t nvlink_switch_pci_id; /* their PCI device id (profile) */

    size_t nprocs;
    mk_process *procs;

    mk_fabric fabric;          /* multi-node NVLink identity (GB200 NVL72) */
} mk_device;

/* An NVSwitch of the fabric: a PCI device of its own on the host, which
 * NVML names as the remote end of every GPU link that reaches it. */
typedef struct mk_nvswitch {
    unsigned pci_domain, pci_bus;
    char bus_id[MK_SHORT_LEN], bus_id_legacy[MK_SHORT_LEN];
    uint32_t pci_device_id;
} mk_nvswitch;

#define MK_GENERIC_MACHINE "Mokka Virtual GPU Node"
#define MK_DEBUG_LISTEN "127.0.0.1:8080"

typedef struct mk_universe {
    char *config_path;         /* NULL: built-in default universe */
    char node[256];            /* node name used for uuid: auto */
    char driver_version[MK_DRIVER_VERSION_LEN];
    char nvml_version[MK_NVML_VERSION_LEN];
    int cuda_version;          /* 12020 for 12.2 */
    uint64_t seed;
    int has_seed;
    unsigned numa_nodes;       /* NUMA nodes of the host */
    unsigned cpus;             /* CPUs of the host, spread over numa_nodes */
    char machine[128];         /* DMI product name: `machine:`, else derived (config_node.c) */
    int debug;                 /* `debug: true`: serve /metrics on debug_listen */
    char debug_listen[128];    /* HOST:PORT, default MK_DEBUG_LISTEN */
    size_t ndev;
    mk_device *dev;
    size_t nswitch;            /* NVSwitches of the fabric (topology.nvlink: nvswitch) */
    mk_nvswitch sw[MK_MAX_NVSWITCHES];
} mk_universe;

/* nodename.c: the node's name into out: `given` when set and not empty,
 * else $MOKKA_NODE_NAME, else $NODE_NAME (what NVIDIA's manifests set
 * from spec.nodeName), else the host name ("localhost" without one).
 * Returns where it came from: NULL (given), "MOKKA_NODE_NAME",
 * "NODE_NAME" or "the host name". */
const char *mk_node_name(char *out, size_t len, const char *given);

/* Load a config file (NULL: the built-in default universe, 8 x
 * A100-SXM4-40GB). node_name: as mk_node_name takes it.
 * Returns NULL when an error was added to d. */
mk_universe *mk_universe_load(const char *path, const char *node_name, mk_diags *d);
/* The same from a buffer, for tests; `name` is used in diagnostics. */
mk_universe *mk_universe_load_mem(const char *name, const char *yaml, size_t len,
                                  const char *node_name, mk_diags *d);
void mk_universe_free(mk_universe *u);

/* Whether b may replace a in a running process (hot reload): same devices,
 * UUIDs, bus ids and MIG layout. On a difference writes why and returns 0. */
int mk_universe_same_identity(const mk_universe *a, const mk_universe *b,
                              char *why, size_t len);

/* Whether link l of d is up: wired to a peer GPU or to an NVSwitch. */
static inline int mk_nvlink_up(const mk_device *d, unsigned l)
{
    return l < d->nvlinks && (d->nvlink_peer[l] >= 0 || d->nvlink_switched);
}

/* How many of a's NVLinks reach b: the links wired to b, or on a switch
 * fabric all of a's (as nvidia-smi's topo -m counts them: row a, column b
 * shows NV<a's links to the fabric>). 0: no NVLink path. */
unsigned mk_nvlinks_between(const mk_device *a, const mk_device *b);

/* Where two GPUs meet in the host's PCIe tree, in NVML's
 * nvmlGpuTopologyLevel_t values (nvmlDeviceGetTopologyCommonAncestor). The
 * tree is modelled on a DGX board: GPUs 2k and 2k+1 of one NUMA node share a
 * PCIe switch, other GPUs of one NUMA node meet at the node, the rest at the
 * system level. */
typedef enum {
    MK_TOPO_INTERNAL = 0,      /* the same GPU */
    MK_TOPO_SINGLE = 10,       /* one PCIe switch */
    MK_TOPO_MULTIPLE = 20,     /* several PCIe switches */
    MK_TOPO_HOSTBRIDGE = 30,   /* one host bridge */
    MK_TOPO_NODE = 40,         /* one NUMA node */
    MK_TOPO_SYSTEM = 50        /* across NUMA nodes */
} mk_topo_level;

mk_topo_level mk_topology_level(const mk_device *a, const mk_device *b);

/* Names for enum values, for render/smi and diagnostics. */
const char *mk_metric_name(mk_metric m);
const char *mk_arch_name(unsigned arch);
/* Config names of NVML's brand and compute-mode values, indexed by value and
 * NULL-terminated (the loader offers them as choices; render prints them). */
extern const char *const mk_brand_names[];
extern const char *const mk_compute_mode_names[];
const char *mk_brand_name(unsigned brand);
const char *mk_compute_mode_name(unsigned mode);
const char *mk_fault_mode_name(mk_fault_mode m);

#endif
