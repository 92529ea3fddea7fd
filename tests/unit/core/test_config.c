/* test_config.c - the config loader's top level and device fields: every
 * top-level key, every device key (nested maps included), how devices are
 * listed (count:, devices:, indexes), and every error the loader reports
 * about them, each with its exact file:line:col. Live values and health
 * rules are in test_config_live.c, profiles in test_config_profiles.c,
 * topology in test_config_topology.c, MIG in test_mig_layout.c. */
#include "config_check.h"
#include "config_int.h"

#define MiB (1ull << 20)
#define GiB (1ull << 30)

START_TEST(top_level_keys)
{
    mk_universe *u = LOAD_CLEAN("version: 1.0\n"
                                "seed: 99\n"
                                "driverVersion: \"550.54.15\"\n"
                                "cudaVersion: \"12.4\"\n"
                                "nvmlVersion: \"12.550.54.15x\"\n"
                                "profile: a100-sxm4-40gb\n"
                                "count: 3\n"
                                "defaults: {temperature: 50}\n"
                                "devices:\n"
                                "  - {index: 1, temperature: 60}\n"
                                "topology: {nvlink: none, numaNodes: 3, cpus: 96}\n");
    ck_assert_uint_eq(u->seed, 99);
    ck_assert_int_eq(u->has_seed, 1);
    ck_assert_str_eq(u->driver_version, "550.54.15");
    ck_assert_int_eq(u->cuda_version, 12040);
    ck_assert_str_eq(u->nvml_version, "12.550.54.15x");
    ck_assert_uint_eq(u->ndev, 3);
    ck_assert_str_eq(u->dev[0].profile, "a100-sxm4-40gb");
    ck_assert_int_eq(u->dev[0].lv[MK_M_TEMP].lo, 50);
    ck_assert_int_eq(u->dev[1].lv[MK_M_TEMP].lo, 60);
    ck_assert_int_eq(u->dev[2].lv[MK_M_TEMP].lo, 50);
    ck_assert_uint_eq(u->numa_nodes, 3);
    ck_assert_uint_eq(u->cpus, 96);
    ck_assert_str_eq(u->node, "node-a");
    ck_assert_str_eq(u->config_path, "t.yaml");
    mk_universe_free(u);
}
END_TEST

START_TEST(top_level_defaults)
{
    mk_universe *u = LOAD_CLEAN("version: 1\nprofile: t4\ncount: 1\ncudaVersion: \"12\"\n");
    ck_assert_int_eq(u->has_seed, 0);
    ck_assert_str_eq(u->driver_version, "535.261.03");
    ck_assert_int_eq(u->cuda_version, 12000);
    ck_assert_str_eq(u->nvml_version, "12.535.261.03");  /* as the real library words it */
    ck_assert_uint_eq(u->numa_nodes, 1);
    mk_universe_free(u);
}
END_TEST

START_TEST(top_level_errors)
{
    EXPECT_ONLY("version: 2\nprofile: t4\ncount: 1\n",
                "t.yaml:1:10: error: version: this Mokka reads config version 1.0, not '2'");
    EXPECT_ONLY("version: [1]\nprofile: t4\ncount: 1\n",
                "t.yaml:1:10: error: version: this Mokka reads config version 1.0, not '?'");
    EXPECT_ONLY("cudaVersion: \"12.2.1\"\nprofile: t4\ncount: 1\n",
                "t.yaml:1:14: error: cudaVersion: expected MAJOR.MINOR like \"12.2\"");
    EXPECT_ONLY("cudaVersion: twelve\nprofile: t4\ncount: 1\n",
                "t.yaml:1:14: error: cudaVersion: expected MAJOR.MINOR like \"12.2\"");
    EXPECT_ONLY("seed: -1\nprofile: t4\ncount: 1\n",
                "t.yaml:1:7: error: seed: -1 is out of range (0 to 9223372036854775807)");
    EXPECT_ONLY("driverVersion: [535]\nprofile: t4\ncount: 1\n",
                "t.yaml:1:16: error: driverVersion: expected a string, got a list");
    EXPECT_ONLY("nvmlVersion: {a: 1}\nprofile: t4\ncount: 1\n",
                "t.yaml:1:14: error: nvmlVersion: expected a string, got a map");
    /* Versions are refused, not cut short, past what NVML returns: 63
     * characters for the driver (it is the GSP firmware version too, which
     * has 64 bytes), 79 for NVML; the longest that fit are kept whole. */
    char text[512], want[256];
    for (int driver = 0; driver < 2; driver++) {
        const char *key = driver ? "driverVersion" : "nvmlVersion";
        int room = driver ? 63 : 79;
        snprintf(text, sizeof text, "%s: '%0*d'\nprofile: t4\ncount: 1\n", key, room + 1, 5);
        snprintf(want, sizeof want, "t.yaml:1:%zu: error: %s: longer than %d characters",
                 strlen(key) + 3, key, room);
        EXPECT_ONLY(text, want);
        snprintf(text, sizeof text, "%s: '%0*d'\nprofile: t4\ncount: 1\n", key, room, 5);
        mk_universe *u = LOAD_CLEAN(text);
        ck_assert_uint_eq(strlen(driver ? u->driver_version : u->nvml_version), (size_t)room);
        mk_universe_free(u);
    }
    EXPECT_ONLY("profile: t4\ncount: 1\ndevice: []\n",
                "t.yaml:3:1: error: unknown key 'device' in the config; did you mean 'devices'?");
    EXPECT_ONLY("profile: t4\ncount: 1\ngpus: 3\n",
                "t.yaml:3:1: error: unknown key 'gpus' in the config");
    EXPECT_ONLY("profile: t4\ncount: 1\ntopology: all\n",
                "t.yaml:3:11: error: topology: expected a map");
    EXPECT_ONLY("- a\n- b\n",
                "t.yaml:1:1: error: expected a config map with `devices:` or `profile:` and `count:`");
    EXPECT_ONLY("just text\n",
                "t.yaml:1:1: error: expected a config map with `devices:` or `profile:` and `count:`");
    EXPECT_ONLY("",
                "t.yaml:1:1: error: expected a config map with `devices:` or `profile:` and `count:`");
    EXPECT_ONLY("# nothing here\n",
                "t.yaml:1:1: error: expected a config map with `devices:` or `profile:` and `count:`");
}
END_TEST

START_TEST(device_list_errors)
{
    EXPECT_ONLY("version: 1.0\n",
                "t.yaml:1:1: error: no devices: give `profile:` and `count:`, or a `devices:` list");
    EXPECT_ONLY("devices: []\n",
                "t.yaml:1:1: error: no devices: give `profile:` and `count:`, or a `devices:` list");
    EXPECT_DIAG("profile: t4\ndevices: {index: 0}\n",
                "t.yaml:2:10: error: devices: expected a list of devices");
    EXPECT_ONLY("profile: t4\ncount: 0\n",
                "t.yaml:2:8: error: count: 0 is out of range (1 to 4096)");
    EXPECT_ONLY("profile: t4\ncount: 4097\n",
                "t.yaml:2:8: error: count: 4097 is out of range (1 to 4096)");
    EXPECT_ONLY("profile: t4\ncount: many\n",
                "t.yaml:2:8: error: count: expected an integer, got 'many'");
    EXPECT_DIAG("profile: t4\ndevices:\n  - {index: 0}\n  - fast\n",
                "t.yaml:4:5: error: devices: expected a map per device");
    EXPECT_DIAG("profile: t4\ndevices:\n  - {index: 0}\n  - {index: 0}\n",
                "t.yaml:4:13: error: duplicate device index 0 (first at line 3)");
    EXPECT_DIAG("profile: t4\ndevices:\n  - {index: 1}\n  - {}\n",
                "t.yaml:4:5: error: duplicate device index 1 (first at line 3)");
    EXPECT_DIAG("profile: t4\ndevices:\n  - {index: 0}\n  - {index: 2}\n",
                "t.yaml:4:13: error: index: 2 is out of range (0 to 1)");
    EXPECT_ONLY("profile: t4\ncount: 3\ndevices:\n  - {index: 3}\n",
                "t.yaml:4:13: error: index: 3 is out of range (0 to 2)");
    EXPECT_ONLY("profile: t4\ncount: 3\ndevices:\n  - {index: x}\n",
                "t.yaml:4:13: error: index: expected an integer, got 'x'");
    /* An entry without index: is the index of its place in the list, which
     * must lie below count: too. */
    EXPECT_ONLY("profile: t4\ncount: 1\ndevices:\n  - {name: a}\n  - {name: b}\n",
                "t.yaml:5:5: error: devices: entry 2 would be GPU 1, but count: is 1 (give it "
                "an index: below 1, or raise count:)");
}
END_TEST

START_TEST(device_list_gaps)
{
    /* Without count:, a devices: list must number 0..n-1. With count:,
     * unlisted GPUs come from the profile and defaults. */
    mk_diags d;
    mk_universe *u = t_load("profile: t4\ndevices:\n  - {index: 1}\n  - {index: 1}\n", &d);
    ck_assert_ptr_null(u);
    ck_assert_msg(t_has_diag(&d, "t.yaml:4:13: error: duplicate device index 1 (first at line 3)"),
                  "%s", t_diag_text(&d));
    ck_assert_msg(t_has_diag(&d, "t.yaml:3:3: error: device indexes must run 0..1 without gaps: 0 "
                                 "is missing (or give count:)"), "%s", t_diag_text(&d));
    mk_diags_free(&d);
    u = LOAD_CLEAN("profile: t4\ncount: 4\ndevices:\n  - {index: 2, name: Odd}\n");
    ck_assert_str_eq(u->dev[2].name, "Odd");
    ck_assert_str_eq(u->dev[3].name, "Tesla T4");
    mk_universe_free(u);
    /* List order does not matter. */
    u = LOAD_CLEAN("profile: t4\ndevices:\n  - {index: 1, name: B}\n  - {index: 0, name: A}\n");
    ck_assert_str_eq(u->dev[0].name, "A");
    ck_assert_str_eq(u->dev[1].name, "B");
    ck_assert_int_eq(u->dev[0].line, 4);
    ck_assert_int_eq(u->dev[0].col, 5);
    mk_universe_free(u);
}
END_TEST

START_TEST(defaults_errors)
{
    EXPECT_ONLY("profile: t4\ncount: 1\ndefaults: [temperature]\n",
                "t.yaml:3:11: error: defaults: expected a map of device fields");
    EXPECT_ONLY("profile: t4\ncount: 1\ndefaults: {index: 0}\n",
                "t.yaml:3:19: error: defaults: index belongs to a device entry");
    EXPECT_ONLY("profile: t4\ncount: 1\ndefaults: {temprature: 40}\n",
                "t.yaml:3:12: error: unknown key 'temprature' in defaults; did you mean "
                "'temperature'?");
}
END_TEST

/* Every device key, set on one device away from its profile's value. */
static const char every_key[] =
    "profile: a100-sxm4-40gb\n"
    "devices:\n"
    "  - index: 0\n"
    "    profile: a100-sxm4-40gb\n"
    "    name: Custom GPU\n"
    "    brand: geforce_rtx\n"
    "    architecture: hopper\n"
    "    computeCapability: \"9.0\"\n"
    "    smCount: 132\n"
    "    uuid: GPU-00000000-1111-2222-3333-444444444444\n"
    "    serial: \"1650000000001\"\n"
    "    boardPartNumber: 699-X\n"
    "    boardId: 4096\n"
    "    vbiosVersion: 96.00.00.00.01\n"
    "    inforom: {image: I1, oem: O1, ecc: E1, power: P1}\n"
    "    minorNumber: 9\n"
    "    pciBusID: \"0000:3b:00.0\"\n"
    "    pciDeviceId: 0x233010DE\n"
    "    pciSubsystemId: 0x16C110DE\n"
    "    numaNode: 1\n"
    "    pcie: {maxGen: 5, gen: 3, maxWidth: 16, width: 8}\n"
    "    memory: 80GiB\n"
    "    memoryReserved: 1GiB\n"
    "    bar1Memory: 128GiB\n"
    "    memoryUsed: 2GiB\n"
    "    temperature: 41\n"
    "    memoryTemperature: 44\n"
    "    thresholds: {shutdown: 95, slowdown: 90, gpuMax: 88, memoryMax: 99, target: 80}\n"
    "    power: 150W\n"
    "    powerIdle: 70W\n"
    "    powerLimits: {default: 600W, min: 200W, max: 700W, enforced: 500W}\n"
    "    clocks: {graphics: 1000, sm: 1001, memory: 2600, video: 900}\n"
    "    maxClocks: {graphics: 1980, sm: 1981, memory: 2619, video: 1755}\n"
    "    applicationClocks: {graphics: 1755, memory: 2619}\n"
    "    utilization: {gpu: 11, memory: 12, encoder: 13, decoder: 14}\n"
    "    fans: 2\n"
    "    fanSpeed: 30\n"
    "    ecc: false\n"
    "    persistenceMode: off\n"
    "    computeMode: exclusive_process\n"
    "    pstate: P2\n"
    "    migEnabled: false\n"
    "    mig: {mode: disabled}\n"
    "    migSlices: 7\n"
    "    migMemorySlices: 8\n"
    "    migProfiles:\n"
    "      - {name: 7g.80gb, nvmlProfile: 4, id: 0, slices: 7, memorySlices: 8, memory: 80GiB,\n"
    "         instances: 1, sms: 132, copyEngines: 7, decoders: 7, encoders: 0, jpegs: 7,\n"
    "         ofas: 1, placements: [0], placementSize: 8}\n"
    "    nvlink: {version: 4, links: 10}\n"
    "    fabric: {clusterUuid: auto, rack: r1, cliqueId: 5, state: inProgress, status: notReady,\n"
    "             health: [routeRecovery]}\n"
    "    processes:\n"
    "      - {pid: 4242, name: train.py, usedMemory: 1GiB, type: both}\n"
    "    health: {}\n"
    "    unhealthy_after_seconds: 10m\n"
    "    xid: 48\n"
    "    unhealthy_on_memory_exceed: 95\n"
    "    unhealthy_on_temperature: 90\n"
    "    mode: lost\n"
    "topology: {numaNodes: 2}\n";

START_TEST(every_device_key)
{
    mk_universe *u = LOAD_CLEAN(every_key);
    const mk_device *g = &u->dev[0];
    ck_assert_str_eq(g->profile, "a100-sxm4-40gb");
    ck_assert_str_eq(g->name, "Custom GPU");
    ck_assert_uint_eq(g->brand, 15);
    ck_assert_uint_eq(g->arch, 9);
    ck_assert_int_eq(g->cc_major, 9);
    ck_assert_int_eq(g->cc_minor, 0);
    ck_assert_uint_eq(g->sm_count, 132);
    ck_assert_str_eq(g->uuid, "GPU-00000000-1111-2222-3333-444444444444");
    ck_assert_str_eq(g->serial, "1650000000001");
    ck_assert_str_eq(g->board_part, "699-X");
    ck_assert_uint_eq(g->board_id, 4096);
    ck_assert_str_eq(g->vbios, "96.00.00.00.01");
    ck_assert_str_eq(g->inforom_image, "I1");
    ck_assert_str_eq(g->inforom_oem, "O1");
    ck_assert_str_eq(g->inforom_ecc, "E1");
    ck_assert_str_eq(g->inforom_pwr, "P1");
    ck_assert_uint_eq(g->minor, 9);
    ck_assert_str_eq(g->bus_id, "00000000:3B:00.0");
    ck_assert_str_eq(g->bus_id_legacy, "0000:3B:00.0");
    ck_assert_uint_eq(g->pci_bus, 0x3b);
    ck_assert_uint_eq(g->pci_device_id, 0x233010DE);
    ck_assert_uint_eq(g->pci_subsys_id, 0x16C110DE);
    ck_assert_int_eq(g->numa_node, 1);
    ck_assert_uint_eq(g->pcie_max_gen, 5);
    ck_assert_uint_eq(g->pcie_gen, 3);
    ck_assert_uint_eq(g->pcie_max_width, 16);
    ck_assert_uint_eq(g->pcie_width, 8);
    ck_assert_uint_eq(g->mem_total, 80 * GiB);
    ck_assert_uint_eq(g->mem_reserved, 1 * GiB);
    ck_assert_uint_eq(g->bar1_total, 128 * GiB);
    ck_assert_int_eq(g->lv[MK_M_MEM_USED].lo, (int64_t)(2 * GiB));
    ck_assert_int_eq(g->lv[MK_M_TEMP].lo, 41);
    ck_assert_int_eq(g->lv[MK_M_TEMP_MEM].lo, 44);
    ck_assert_int_eq(g->temp_shutdown, 95);
    ck_assert_int_eq(g->temp_slowdown, 90);
    ck_assert_int_eq(g->temp_gpu_max, 88);
    ck_assert_int_eq(g->temp_mem_max, 99);
    ck_assert_int_eq(g->temp_target, 80);
    ck_assert_int_eq(g->lv[MK_M_POWER].lo, 150000);
    ck_assert_uint_eq(g->power_idle, 70000);
    ck_assert_uint_eq(g->power_default_limit, 600000);
    ck_assert_uint_eq(g->power_min_limit, 200000);
    ck_assert_uint_eq(g->power_max_limit, 700000);
    ck_assert_uint_eq(g->power_limit, 500000);
    ck_assert_int_eq(g->lv[MK_M_CLK_GRAPHICS].lo, 1000);
    ck_assert_int_eq(g->lv[MK_M_CLK_SM].lo, 1001);
    ck_assert_int_eq(g->lv[MK_M_CLK_MEM].lo, 2600);
    ck_assert_int_eq(g->lv[MK_M_CLK_VIDEO].lo, 900);
    ck_assert_uint_eq(g->clk_max_graphics, 1980);
    ck_assert_uint_eq(g->clk_max_sm, 1981);
    ck_assert_uint_eq(g->clk_max_mem, 2619);
    ck_assert_uint_eq(g->clk_max_video, 1755);
    ck_assert_uint_eq(g->clk_app_graphics, 1755);
    ck_assert_uint_eq(g->clk_app_mem, 2619);
    ck_assert_int_eq(g->lv[MK_M_UTIL_GPU].lo, 11);
    ck_assert_int_eq(g->lv[MK_M_UTIL_MEM].lo, 12);
    ck_assert_int_eq(g->lv[MK_M_UTIL_ENC].lo, 13);
    ck_assert_int_eq(g->lv[MK_M_UTIL_DEC].lo, 14);
    ck_assert_uint_eq(g->fans, 2);
    ck_assert_int_eq(g->lv[MK_M_FAN].kind, MK_LV_FIXED);
    ck_assert_int_eq(g->lv[MK_M_FAN].lo, 30);
    ck_assert_int_eq(g->ecc_enabled, 0);
    ck_assert_int_eq(g->persistence, 0);
    ck_assert_uint_eq(g->compute_mode, 3);
    ck_assert_uint_eq(g->pstate, 2);
    ck_assert_int_eq(g->mig_enabled, 0);
    ck_assert_uint_eq(g->mig_slices, 7);
    ck_assert_uint_eq(g->mig_mem_slices, 8);
    ck_assert_uint_eq(g->nmigp, 1);
    const mk_mig_profile *p = &g->migp[0];
    ck_assert_str_eq(p->name, "7g.80gb");
    ck_assert_uint_eq(p->nvml_profile, 4);
    ck_assert_uint_eq(p->id, 0);
    ck_assert_uint_eq(p->slices, 7);
    ck_assert_uint_eq(p->mem_slices, 8);
    ck_assert_uint_eq(p->memory, 80 * GiB);
    ck_assert_uint_eq(p->max_instances, 1);
    ck_assert_uint_eq(p->sms, 132);
    ck_assert_uint_eq(p->copy_engines, 7);
    ck_assert_uint_eq(p->decoders, 7);
    ck_assert_uint_eq(p->encoders, 0);
    ck_assert_uint_eq(p->jpegs, 7);
    ck_assert_uint_eq(p->ofas, 1);
    ck_assert_uint_eq(p->nplacements, 1);
    ck_assert_uint_eq(p->placements[0], 0);
    ck_assert_uint_eq(p->placement_size, 8);
    ck_assert_uint_eq(g->nvlink_version, 4);
    ck_assert_uint_eq(g->nvlinks, 10);
    ck_assert_int_eq(g->fabric.state, 2);
    ck_assert_int_eq(g->fabric.status, 27);
    ck_assert_uint_eq(g->fabric.clique, 5);
    ck_assert_uint_eq(g->fabric.health, 2);
    ck_assert_str_eq(g->fabric.rack, "r1");
    ck_assert_uint_eq(g->nprocs, 1);
    ck_assert_uint_eq(g->procs[0].pid, 4242);
    ck_assert_str_eq(g->procs[0].name, "train.py");
    ck_assert_uint_eq(g->procs[0].used_memory, GiB);
    ck_assert_int_eq(g->procs[0].graphics, 1);
    ck_assert_double_eq(g->health.after_seconds, 600);
    ck_assert_uint_eq(g->health.xid, 48);
    ck_assert_int_eq(g->health.on_memory_exceed, 95);
    ck_assert_int_eq(g->health.on_temperature, 90);
    ck_assert_int_eq(g->health.mode, MK_FAULT_LOST);
    mk_universe_free(u);
}
END_TEST

/* Every key the device table knows appears in every_key above, so a new
 * key cannot arrive untested. */
START_TEST(every_key_is_covered)
{
    const char *keys[128];
    size_t n = mk_device_keys(keys, 128);
    ck_assert_uint_gt(n, 50);
    for (size_t i = 0; i < n; i++) {
        char needle[96];
        snprintf(needle, sizeof needle, "\n    %s:", keys[i]);
        ck_assert_msg(strstr(every_key, needle) || strcmp(keys[i], "index") == 0,
                      "device key '%s' is not exercised by every_device_key", keys[i]);
    }
}
END_TEST

START_TEST(device_value_forms)
{
    mk_universe *u = LOAD_CLEAN("profile: t4\n"
                                "devices:\n"
                                "  - {index: 0, pstate: 12, brand: Tesla, computeMode: DEFAULT,\n"
                                "     pciBusID: \"00000001:AF:1f.7\", ecc: yes, boardId: 0,\n"
                                "     processes: [{pid: 7}, {pid: 8, type: graphics, name: x}]}\n");
    const mk_device *g = &u->dev[0];
    ck_assert_uint_eq(g->pstate, 12);
    ck_assert_uint_eq(g->brand, 2);
    ck_assert_uint_eq(g->compute_mode, 0);
    ck_assert_str_eq(g->bus_id, "00000001:AF:1F.7");
    ck_assert_str_eq(g->bus_id_legacy, "0001:AF:1F.7");
    ck_assert_uint_eq(g->pci_domain, 1);
    ck_assert_uint_eq(g->pci_dev, 0x1f);
    ck_assert_uint_eq(g->pci_func, 7);
    ck_assert_uint_eq(g->nprocs, 2);
    ck_assert_int_eq(g->procs[0].graphics, 0);
    ck_assert_uint_eq(g->procs[0].used_memory, 0);
    ck_assert_int_eq(g->procs[1].graphics, 1);
    ck_assert_str_eq(g->procs[1].name, "x");
    mk_universe_free(u);
}
END_TEST

#define DEV(fields) "profile: a100-sxm4-40gb\ndevices:\n  - {index: 0, " fields "}\n"
/* Column of the first character after "  - {index: 0, " on line 3. */
#define C0 16

static void dev_error(const char *fields_yaml, int col, const char *msg)
{
    char yaml[2048], want[2048];
    snprintf(yaml, sizeof yaml, DEV("%s"), fields_yaml);
    snprintf(want, sizeof want, "t.yaml:3:%d: error: %s", col, msg);
    EXPECT_ONLY(yaml, want);
}

START_TEST(device_field_errors)
{
    dev_error("name: [a]", C0 + 6, "name: expected a string, got a list");
    dev_error("brand: [a]", C0 + 7, "brand: expected a name");
    dev_error("brand: teslaa", C0 + 7, "brand: unknown value 'teslaa'; did you mean 'tesla'?");
    dev_error("architecture: hoper", C0 + 14,
              "architecture: unknown value 'hoper'; did you mean 'hopper'?");
    dev_error("computeMode: shared", C0 + 13,
              "computeMode: unknown value 'shared' (one of: default, exclusive_thread, "
              "prohibited, exclusive_process)");
    dev_error("computeCapability: 9", C0 + 19,
              "computeCapability: expected MAJOR.MINOR like \"9.0\"");
    dev_error("computeCapability: 9.0.1", C0 + 19,
              "computeCapability: expected MAJOR.MINOR like \"9.0\"");
    dev_error("smCount: -1", C0 + 9, "smCount: -1 is out of range (0 to 100000)");
    dev_error("smCount: many", C0 + 9, "smCount: expected an integer, got 'many'");
    dev_error("serial: 12345678901234567890123456789012", C0 + 8,
              "serial: longer than 31 characters");
    dev_error("minorNumber: 256", C0 + 13, "minorNumber: 256 is out of range (0 to 255)");
    dev_error("pciBusID: 07:00.0", C0 + 10,
              "pciBusID: '07:00.0' is not a PCI address like 0000:07:00.0 (hex "
              "domain:bus:device.function)");
    dev_error("pciBusID: 0000:07:20.0", C0 + 10,
              "pciBusID: '0000:07:20.0' is not a PCI address like 0000:07:00.0 (hex "
              "domain:bus:device.function)");
    dev_error("pciBusID: 0000:07:00.8", C0 + 10,
              "pciBusID: '0000:07:00.8' is not a PCI address like 0000:07:00.0 (hex "
              "domain:bus:device.function)");
    dev_error("pciBusID: 0000:0g:00.0", C0 + 10,
              "pciBusID: '0000:0g:00.0' is not a PCI address like 0000:07:00.0 (hex "
              "domain:bus:device.function)");
    dev_error("pciBusID: [1]", C0 + 10, "pciBusID: expected a string, got a list");
    dev_error("pciDeviceId: 0x1FFFFFFFF", C0 + 13,
              "pciDeviceId: 8589934591 is out of range (0 to 4294967295)");
    dev_error("pciSubsystemId: nope", C0 + 16,
              "pciSubsystemId: expected an integer, got 'nope'");
    dev_error("numaNode: -2", C0 + 10, "numaNode: -2 is out of range (-1 to 1023)");
    dev_error("pcie: 4", C0 + 6, "pcie: expected a map");
    dev_error("pcie: {gen: 7}", C0 + 12, "gen: 7 is out of range (0 to 6)");
    dev_error("pcie: {speed: 7}", C0 + 7, "unknown key 'speed' in pcie");
    dev_error("memory: lots", C0 + 8,
              "memory: expected a size like 40GB, 40GiB, 4864MiB or a bare number (MB from 1024 "
              "up, GB below)");
    dev_error("bar1Memory: [1]", C0 + 12,
              "bar1Memory: expected a size like 40GB, 40GiB, 4864MiB or a bare number (MB from "
              "1024 up, GB below)");
    dev_error("thresholds: {shutdown: 300}", C0 + 23, "shutdown: 300 is out of range (-50 to 200)");
    dev_error("thresholds: {slowdwn: 90}", C0 + 13,
              "unknown key 'slowdwn' in thresholds; did you mean 'slowdown'?");
    dev_error("powerIdle: hot", C0 + 11,
              "powerIdle: expected a power like 210, 210W, 0.21kW or 210000mW");
    dev_error("powerLimits: {max: 1MW}", C0 + 19,
              "max: expected a power like 210, 210W, 0.21kW or 210000mW");
    dev_error("maxClocks: {sm: 100001}", C0 + 16, "sm: 100001 is out of range (0 to 100000)");
    dev_error("applicationClocks: {sm: 1}", C0 + 20,
              "unknown key 'sm' in applicationClocks");
    dev_error("inforom: {vbios: x}", C0 + 10, "unknown key 'vbios' in inforom");
    dev_error("fans: 17", C0 + 6, "fans: 17 is out of range (0 to 16)");
    dev_error("ecc: maybe", C0 + 5, "ecc: expected true or false, got 'maybe'");
    dev_error("persistenceMode: [on]", C0 + 17,
              "persistenceMode: expected true or false, got a list");
    dev_error("pstate: P16", C0 + 8, "pstate: expected 0 to 15 or P0 to P15");
    dev_error("pstate: P", C0 + 8, "pstate: expected 0 to 15 or P0 to P15");
    dev_error("pstate: fast", C0 + 8, "pstate: expected 0 to 15 or P0 to P15");
    dev_error("migSlices: 9", C0 + 11, "migSlices: 9 is out of range (0 to 8)");
    dev_error("nvlink: {links: 19}", C0 + 16, "links: 19 is out of range (0 to 18)");
    dev_error("nvlink: 3", C0 + 8, "nvlink: expected a map");
    dev_error("profile: [a100-sxm4-40gb]", C0 + 9,
              "profile: expected a profile name like h100-sxm5-80gb");
    dev_error("temprature: 40", C0, "unknown key 'temprature' in device 0; did you mean "
              "'temperature'?");
    dev_error("colour: red", C0, "unknown key 'colour' in device 0");
}
END_TEST

START_TEST(process_errors)
{
    dev_error("processes: {pid: 1}", C0 + 11,
              "processes: expected a list of {pid, name, usedMemory}");
    dev_error("processes: [7]", C0 + 12, "processes: expected {pid, name, usedMemory}");
    dev_error("processes: [{name: x}]", C0 + 12, "processes: pid is required");
    dev_error("processes: [{pid: 0}]", C0 + 18, "pid: 0 is out of range (1 to 2147483647)");
    dev_error("processes: [{pid: 1, usedMemory: much}]", C0 + 33,
              "usedMemory: expected a size like 2GiB");
    dev_error("processes: [{pid: 1, type: gpu}]", C0 + 27,
              "type: unknown value 'gpu' (one of: compute, graphics, both)");
    dev_error("processes: [{pid: 1, user: me}]", C0 + 21,
              "unknown key 'user' in a process");
    dev_error("processes: [{pid: 1, name: [x]}]", C0 + 27,
              "name: expected a string, got a list");
}
END_TEST

START_TEST(device_level_checks)
{
    /* Checks made once all layers are applied name the device entry. */
    EXPECT_ONLY(DEV("powerLimits: {enforced: 500W}"),
                "t.yaml:3:5: error: GPU 0: powerLimits need min <= default <= max and min <= "
                "enforced <= max (got min 100 W, default 400 W, max 400 W, enforced 500 W)");
    EXPECT_ONLY(DEV("powerLimits: {min: 450W}"),
                "t.yaml:3:5: error: GPU 0: powerLimits need min <= default <= max and min <= "
                "enforced <= max (got min 450 W, default 400 W, max 400 W, enforced 400 W)");
    EXPECT_ONLY(DEV("memoryReserved: 50GiB"),
                "t.yaml:3:5: error: GPU 0: memoryReserved is larger than memory");
    EXPECT_ONLY(DEV("memoryUsed: 40GiB"),
                "t.yaml:3:5: error: GPU 0: memoryUsed can reach 40960 MiB, more than the 40340 "
                "MiB usable");
    /* GPUs that count: makes are placed at count:. */
    mk_diags d;
    ck_assert_ptr_null(t_load("profile: a100-sxm4-40gb\ncount: 2\n"
                              "defaults: {memoryReserved: 41GiB}\n", &d));
    ck_assert_msg(d.n == 2 &&
                  t_has_diag(&d, "t.yaml:2:8: error: GPU 0: memoryReserved is larger than memory") &&
                  t_has_diag(&d, "t.yaml:2:8: error: GPU 1: memoryReserved is larger than memory"),
                  "%s", t_diag_text(&d));
    mk_diags_free(&d);
    /* A mistake in defaults: is reported once, not once per GPU. */
    EXPECT_ONLY("profile: t4\ncount: 8\ndefaults: {fans: many}\n",
                "t.yaml:3:18: error: fans: expected an integer, got 'many'");
    EXPECT_DIAG("profile: [t4]\ncount: 2\n",
                "t.yaml:1:10: error: profile: expected a profile name like h100-sxm5-80gb");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_test(tc, top_level_keys);
    tcase_add_test(tc, top_level_defaults);
    tcase_add_test(tc, top_level_errors);
    tcase_add_test(tc, device_list_errors);
    tcase_add_test(tc, device_list_gaps);
    tcase_add_test(tc, defaults_errors);
    tcase_add_test(tc, every_device_key);
    tcase_add_test(tc, every_key_is_covered);
    tcase_add_test(tc, device_value_forms);
    tcase_add_test(tc, device_field_errors);
    tcase_add_test(tc, process_errors);
    tcase_add_test(tc, device_level_checks);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
