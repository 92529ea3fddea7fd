/* test_config_fabric.c - the `fabric:` key (lib/core/config_fabric.c) and
 * the fabric helpers (lib/core/fabric.c): defaults by GPU, the per-rack
 * cluster UUID, lint errors with their positions, NVML's health mask, and
 * the live override. */
#include <check.h>
#include "config_check.h"
#include "config_int.h"
#include "fabric.h"

#define GB200 "version: 1.0\nprofile: gb200\ncount: 4\ntopology: {nvlink: none}\n"

START_TEST(test_defaults)
{
    /* No fabric: key and no NVSwitches (until topology.nvlink: nvswitch): none. */
    mk_universe *u = LOAD_CLEAN(GB200);
    ck_assert_int_eq(u->dev[0].fabric.state, MK_FABRIC_NOT_SUPPORTED);
    mk_universe_free(u);
    /* A fabric: key gives a completed registration with the rest as an HGX H100's. */
    u = LOAD_CLEAN(GB200 "defaults:\n  fabric: {cliqueId: 7}\n");
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_fabric *f = &u->dev[i].fabric;
        ck_assert_int_eq(f->state, MK_FABRIC_COMPLETED);
        ck_assert_int_eq(f->status, 0);
        ck_assert_uint_eq(f->clique, 7);
        ck_assert_uint_eq(f->health, 0);
        ck_assert(mk_cluster_uuid_zero(f->cluster));
    }
    mk_universe_free(u);
}
END_TEST

/* The default of a GPU that the NVSwitch topology marks (config_topology.c):
 * a fabric on Hopper and newer only. */
static int switched_state(const char *profile)
{
    char yaml[256];
    mk_diags d;
    snprintf(yaml, sizeof yaml, "version: 1.0\nprofile: %s\ncount: 1\n", profile);
    mk_universe *u = LOAD_CLEAN(yaml);
    u->dev[0].nvlink_switched = 1;
    mk_diags_init(&d);
    mk_config_fabric(u, &d);
    ck_assert_uint_eq(d.n, 0);
    int state = u->dev[0].fabric.state;
    ck_assert_int_eq(u->dev[0].fabric.status, 0);
    ck_assert(mk_cluster_uuid_zero(u->dev[0].fabric.cluster));
    mk_universe_free(u);
    mk_diags_free(&d);
    return state;
}

START_TEST(test_switched_default)
{
    ck_assert_int_eq(switched_state("h100-sxm5-80gb"), MK_FABRIC_COMPLETED);
    ck_assert_int_eq(switched_state("b200"), MK_FABRIC_COMPLETED);
    ck_assert_int_eq(switched_state("a100-sxm4-80gb"), MK_FABRIC_NOT_SUPPORTED);
}
END_TEST

static void cluster_of(const char *node, const char *extra, char *out, size_t len)
{
    char yaml[512];
    mk_diags d;
    snprintf(yaml, sizeof yaml, GB200 "defaults:\n  fabric: {clusterUuid: auto%s}\n", extra);
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load_mem("t.yaml", yaml, strlen(yaml), node, &d);
    ck_assert_msg(u != NULL, "%s", t_diag_text(&d));
    mk_cluster_uuid_format(u->dev[0].fabric.cluster, out, len);
    for (size_t i = 1; i < u->ndev; i++) {
        char other[40];
        mk_cluster_uuid_format(u->dev[i].fabric.cluster, other, sizeof other);
        ck_assert_str_eq(other, out);
    }
    mk_universe_free(u);
    mk_diags_free(&d);
}

START_TEST(test_cluster_per_rack)
{
    char a[40], b[40], c[40], e[40];
    cluster_of("gb200-r07-tray01", "", a, sizeof a);
    cluster_of("gb200-r07-tray18.lab.example", "", b, sizeof b);
    cluster_of("gb200-r08-tray01", "", c, sizeof c);
    cluster_of("anything", ", rack: gb200-r07", e, sizeof e);
    ck_assert_str_eq(a, b);      /* trays of one rack share it */
    ck_assert_str_ne(a, c);      /* other racks do not */
    ck_assert_str_eq(a, e);      /* a named rack is the same rack */
    ck_assert_int_eq(a[14], '4'); /* version 4 form */
    char rack[64];
    mk_fabric_rack_of_node("gb200-r07-tray03.lab", rack, sizeof rack);
    ck_assert_str_eq(rack, "gb200-r07");
    mk_fabric_rack_of_node("tray3", rack, sizeof rack);
    ck_assert_str_eq(rack, "tray3");
}
END_TEST

START_TEST(test_given_values)
{
    mk_universe *u = LOAD_CLEAN(GB200 "devices:\n  - index: 2\n    fabric:\n"
                                "      clusterUuid: 8C4BA2E1-0F9D-4B3A-9E51-7D20C6A1F3B8\n"
                                "      state: inProgress\n      status: notReady\n"
                                "      health: [degradedBandwidth, routeUnhealthy]\n");
    const mk_fabric *f = &u->dev[2].fabric;
    char s[40];
    mk_cluster_uuid_format(f->cluster, s, sizeof s);
    ck_assert_str_eq(s, "8c4ba2e1-0f9d-4b3a-9e51-7d20c6a1f3b8");
    ck_assert_int_eq(f->state, MK_FABRIC_IN_PROGRESS);
    ck_assert_int_eq(f->status, 27);  /* NVML_ERROR_NOT_READY */
    ck_assert_uint_eq(f->health, MK_FABRIC_DEGRADED_BW | MK_FABRIC_ROUTE_UNHEALTHY);
    ck_assert_int_eq(u->dev[1].fabric.state, MK_FABRIC_NOT_SUPPORTED);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_errors)
{
    EXPECT_ONLY(GB200 "defaults:\n  fabric: {cliqueId: 32768}\n",
                "t.yaml:6:22: error: fabric.cliqueId: 32768 is out of range (0 to 32767)");
    EXPECT_ONLY(GB200 "defaults:\n  fabric: {clusterUuid: 8c4ba2e1-0f9d-4b3a-9e51}\n",
                "t.yaml:6:25: error: fabric.clusterUuid: '8c4ba2e1-0f9d-4b3a-9e51' is not a UUID "
                "like 8c4ba2e1-0f9d-4b3a-9e51-7d20c6a1f3b8 (32 hex digits, 8-4-4-4-12) or auto");
    EXPECT_ONLY(GB200 "defaults:\n  fabric: {status: notRedy}\n",
                "t.yaml:6:20: error: fabric.status: unknown value 'notRedy'; did you mean 'notReady'?");
    EXPECT_ONLY("version: 1.0\nprofile: a100-sxm4-80gb\ncount: 8\ndefaults:\n  fabric: {cliqueId: 1}\n",
                "t.yaml:5:11: error: GPU 0 (NVIDIA A100-SXM4-80GB): fabric: given, but only Hopper "
                "and newer GPUs report an NVLink fabric (this one is ampere; NVML answers "
                "NOT_SUPPORTED)");
    EXPECT_ONLY("version: 1.0\nprofile: h100-pcie-80gb\ncount: 1\ndefaults:\n  fabric: {cliqueId: 1}\n",
                "t.yaml:5:11: error: GPU 0 (NVIDIA H100 PCIe): fabric: given, but the GPU has no "
                "NVLink (nvlink.links is 0)");
    EXPECT_ONLY("version: 1.0\nprofile: gb200\ncount: 2\ndefaults:\n  fabric: {cliqueId: 1}\n"
                "topology: {nvlink: all}\n",
                "t.yaml:5:11: warning: GPU 0: fabric: given, but its NVLinks go straight to other "
                "GPUs (topology.nvlink), not to NVSwitches: a real driver reports no fabric there "
                "(give topology: {nvlink: nvswitch}, or nvlink: none)");
    EXPECT_ONLY(GB200 "defaults:\n  fabric: {rack: r1}\n",
                "t.yaml:6:11: warning: GPU 0: fabric.rack has no effect without clusterUuid: auto");
    /* Saying there is none is always right. */
    mk_universe *u = LOAD_CLEAN("version: 1.0\nprofile: a100-sxm4-80gb\ncount: 1\n"
                                "defaults:\n  fabric: {state: notSupported}\n");
    mk_universe_free(u);
}
END_TEST

START_TEST(test_health_and_live)
{
    ck_assert_uint_eq(mk_fabric_health_mask(0), 0xAA);   /* every condition: false */
    ck_assert_uint_eq(mk_fabric_health_mask(MK_FABRIC_DEGRADED_BW), 0xA9);
    ck_assert_uint_eq(mk_fabric_health_summary(0), 1);
    ck_assert_uint_eq(mk_fabric_health_summary(MK_FABRIC_DEGRADED_BW), 3);
    ck_assert_uint_eq(mk_fabric_health_summary(MK_FABRIC_ROUTE_UNHEALTHY | 1), 2);
    mk_universe *u = LOAD_CLEAN(GB200 "defaults:\n  fabric: {cliqueId: 9}\n");
    mk_fabric now = mk_fabric_now(&u->dev[0], 0);
    ck_assert_int_eq(now.state, MK_FABRIC_COMPLETED);
    mk_fabric set = now;
    set.state = MK_FABRIC_IN_PROGRESS;
    set.status = 27;
    set.health = MK_FABRIC_DEGRADED_BW;
    now = mk_fabric_now(&u->dev[0], mk_fabric_pack(&set));
    ck_assert_int_eq(now.state, MK_FABRIC_IN_PROGRESS);
    ck_assert_int_eq(now.status, 27);
    ck_assert_uint_eq(now.health, MK_FABRIC_DEGRADED_BW);
    ck_assert_uint_eq(now.clique, 9);
    set.status = 999;   /* NVML_ERROR_UNKNOWN fits too */
    ck_assert_int_eq(mk_fabric_now(&u->dev[0], mk_fabric_pack(&set)).status, 999);
    mk_universe_free(u);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("config_fabric");
    TCase *tc = tcase_create("fabric");
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_switched_default);
    tcase_add_test(tc, test_cluster_per_rack);
    tcase_add_test(tc, test_given_values);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_health_and_live);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
