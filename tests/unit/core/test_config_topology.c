/* test_config_topology.c - where GPUs sit: PCI bus ids (format, defaults,
 * uniqueness), UUID and minor uniqueness, NUMA nodes, NVLink wiring (always
 * symmetric: for every link l of GPU a that reaches GPU b's link m, b's
 * link m reaches a's link l), NVSwitch fabrics (every link on a switch
 * port of its own), topology errors, and which changes a hot
 * reload may make (mk_universe_same_identity). */
#include "config_check.h"
#include "profiles.h"

/* Every link of every GPU points back at where it comes from. */
static void assert_symmetric(const mk_universe *u, const char *what)
{
    for (unsigned a = 0; a < u->ndev; a++) {
        const mk_device *da = &u->dev[a];
        for (unsigned l = 0; l < MK_MAX_NVLINKS; l++) {
            int b = da->nvlink_peer[l];
            if (l >= da->nvlinks) {
                ck_assert_msg(b < 0, "%s: GPU %u link %u is beyond its %u links", what, a, l,
                              da->nvlinks);
                continue;
            }
            if (b < 0)
                continue;
            unsigned m = da->nvlink_peer_link[l];
            ck_assert_msg((unsigned)b < u->ndev && (unsigned)b != a, "%s: GPU %u link %u -> %d",
                          what, a, l, b);
            const mk_device *db = &u->dev[b];
            ck_assert_msg(m < db->nvlinks && db->nvlink_peer[m] == (int)a &&
                          db->nvlink_peer_link[m] == l,
                          "%s: GPU %u link %u reaches GPU %d link %u, which reaches GPU %d link %u",
                          what, a, l, b, m, db->nvlink_peer[m], db->nvlink_peer_link[m]);
        }
    }
}

static unsigned links_between(const mk_universe *u, unsigned a, unsigned b)
{
    unsigned n = 0;
    for (unsigned l = 0; l < u->dev[a].nvlinks; l++)
        n += u->dev[a].nvlink_peer[l] == (int)b;
    return n;
}

START_TEST(nvlink_all_every_profile)
{
    for (const mk_profile *p = mk_profiles; p->name; p++)
        for (unsigned count = 1; count <= 9; count++) {
            char yaml[256], what[128];
            snprintf(yaml, sizeof yaml, "profile: %s\ncount: %u\ntopology: {nvlink: all}\n",
                     p->name, count);
            snprintf(what, sizeof what, "%s x %u", p->name, count);
            mk_universe *u = LOAD_CLEAN(yaml);
            assert_symmetric(u, what);
            unsigned links = u->dev[0].nvlinks;
            unsigned per_pair = count > 1 ? links / (count - 1) : 0;
            for (unsigned a = 0; a < count; a++)
                for (unsigned b = 0; b < count; b++)
                    ck_assert_msg(links_between(u, a, b) == (a == b ? 0 : per_pair),
                                  "%s: %u links between %u and %u, want %u", what,
                                  links_between(u, a, b), a, b, per_pair);
            mk_universe_free(u);
        }
}
END_TEST

START_TEST(nvlink_default_is_all)
{
    /* GPUs without a switch board in their profile are wired to each other. */
    mk_universe *u = LOAD_CLEAN("profile: h100-sxm5-80gb\ncount: 8\n"
                                "defaults: {nvlink: {switches: 0}}\n");
    assert_symmetric(u, "default");
    ck_assert_uint_eq(links_between(u, 0, 7), 2);   /* 18 links over 7 peers */
    ck_assert_uint_eq(u->nswitch, 0);
    mk_universe_free(u);
    /* A mixed set wires by the GPU with the fewest links; one without
     * NVLink leaves everyone unwired. */
    u = LOAD_CLEAN("profile: h100-sxm5-80gb\ncount: 3\ndefaults: {nvlink: {switches: 0}}\n"
                   "devices:\n  - {index: 2, profile: a100-sxm4-40gb, nvlink: {switches: 0}}\n");
    assert_symmetric(u, "mixed");
    ck_assert_uint_eq(links_between(u, 0, 2), 6);
    mk_universe_free(u);
    u = LOAD_CLEAN("profile: h100-sxm5-80gb\ncount: 3\ndefaults: {nvlink: {switches: 0}}\n"
                   "devices:\n  - {index: 2, profile: l4}\n");
    ck_assert_uint_eq(links_between(u, 0, 1), 0);
    mk_universe_free(u);
}
END_TEST

/* Every link of every switched GPU reaches a switch of the fabric, the
 * links spread evenly over the switches, no two links on one port. */
static void assert_fabric(const mk_universe *u, unsigned switches, const char *what)
{
    ck_assert_msg(u->nswitch == switches, "%s: %zu switches, want %u", what, u->nswitch,
                  switches);
    for (unsigned a = 0; a < u->ndev; a++) {
        const mk_device *d = &u->dev[a];
        ck_assert_msg(d->nvlink_switched == (d->nvlinks > 0), "%s: GPU %u", what, a);
        unsigned on[MK_MAX_NVSWITCHES] = { 0 };
        for (unsigned l = 0; l < d->nvlinks; l++) {
            ck_assert_int_eq(d->nvlink_peer[l], -1);
            ck_assert_uint_lt(d->nvlink_switch[l], switches);
            on[d->nvlink_switch[l]]++;
            for (unsigned b = 0; b < u->ndev; b++)
                for (unsigned m = 0; m < u->dev[b].nvlinks; m++)
                    ck_assert_msg(a == b && l == m ? 1 : u->dev[b].nvlink_switch[m] !=
                                  d->nvlink_switch[l] || u->dev[b].nvlink_peer_link[m] !=
                                  d->nvlink_peer_link[l], "%s: GPU %u link %u and GPU %u link "
                                  "%u share a switch port", what, a, l, b, m);
        }
        for (unsigned k = 0; k < switches && d->nvlinks; k++)
            ck_assert_msg(on[k] >= d->nvlinks / switches && on[k] <= d->nvlinks / switches + 1,
                          "%s: GPU %u has %u links on switch %u", what, a, on[k], k);
    }
    for (size_t k = 0; k < u->nswitch; k++)
        for (size_t i = 0; i < u->ndev; i++)
            ck_assert_msg(strcmp(u->sw[k].bus_id, u->dev[i].bus_id) != 0,
                          "%s: switch %zu has GPU %zu's bus id", what, k, i);
}

START_TEST(nvswitch_by_profile)
{
    static const struct { const char *profile; unsigned switches, links; uint32_t id; } t[] = {
        { "a100-sxm4-40gb", 6, 12, 0x1AF110DE }, { "a100-sxm4-80gb", 6, 12, 0x1AF110DE },
        { "h100-sxm5-80gb", 4, 18, 0x22A310DE }, { "h200-sxm-141gb", 4, 18, 0x22A310DE },
        { "b200", 2, 18, 0x22A310DE }, { "gb200", 18, 18, 0x22A310DE },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char yaml[128];
        snprintf(yaml, sizeof yaml, "profile: %s\ncount: 8\n", t[i].profile);
        mk_universe *u = LOAD_CLEAN(yaml);
        assert_fabric(u, t[i].switches, t[i].profile);
        ck_assert_uint_eq(u->dev[3].nvlinks, t[i].links);
        ck_assert_uint_eq(u->sw[0].pci_device_id, t[i].id);
        ck_assert_uint_eq(mk_nvlinks_between(&u->dev[0], &u->dev[7]), t[i].links);
        mk_universe_free(u);
    }
    /* A DGX A100: 2 links on each of the 6 switches; the switches on buses
     * of their own, clear of the GPUs'. */
    mk_universe *u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 8\ndevices:\n"
                                "  - {index: 0, pciBusID: '0000:C4:00.0'}\n");
    ck_assert_uint_eq(u->dev[1].nvlink_switch[0], 0);
    ck_assert_uint_eq(u->dev[1].nvlink_switch[1], 0);
    ck_assert_uint_eq(u->dev[1].nvlink_switch[11], 5);
    ck_assert_uint_eq(u->dev[1].nvlink_peer_link[0], 2);   /* GPU 0 took ports 0 and 1 */
    ck_assert_str_eq(u->sw[0].bus_id, "00000000:C5:00.0");
    ck_assert_str_eq(u->sw[5].bus_id_legacy, "0000:CA:00.0");
    mk_universe_free(u);
    /* PCIe GPUs and GPUs without NVLink stay off any fabric. */
    u = LOAD_CLEAN("profile: h100-pcie-80gb\ncount: 4\n");
    ck_assert_uint_eq(u->nswitch, 0);
    mk_universe_free(u);
    u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 3\ndevices:\n  - {index: 2, profile: l4}\n");
    assert_fabric(u, 6, "with an L4");
    ck_assert_uint_eq(mk_nvlinks_between(&u->dev[0], &u->dev[2]), 0);
    mk_universe_free(u);
}
END_TEST

START_TEST(nvswitch_explicit)
{
    /* nvswitch by name, with a switch count of its own; a GPU whose links
     * were cut shows fewer (nvidia-smi's row for it: NV6). */
    mk_universe *u = LOAD_CLEAN("profile: h100-sxm5-80gb\ncount: 4\n"
                                "devices:\n  - {index: 1, nvlink: {links: 6}}\n"
                                "topology: {nvlink: nvswitch, nvswitches: 3}\n");
    assert_fabric(u, 3, "explicit");
    ck_assert_uint_eq(mk_nvlinks_between(&u->dev[1], &u->dev[0]), 6);
    ck_assert_uint_eq(mk_nvlinks_between(&u->dev[0], &u->dev[1]), 18);
    mk_universe_free(u);
    /* nvlink: all keeps a switch board's GPUs wired to each other. */
    u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 4\ntopology: {nvlink: all}\n");
    ck_assert_uint_eq(u->nswitch, 0);
    ck_assert_uint_eq(links_between(u, 0, 3), 4);
    mk_universe_free(u);
}
END_TEST

START_TEST(nvswitch_errors)
{
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: nvswitch, nvswitches: 13}\n",
                "t.yaml:3:42: error: topology.nvlink: nvswitch: 13 NVSwitches, but GPU 0 has 12 "
                "NVLinks, one for each switch at least");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: nvswitch, nvswitches: 19}\n",
                "t.yaml:3:42: error: topology.nvswitches: 19 is out of range (1 to 18)");
    EXPECT_ONLY("profile: h100-pcie-80gb\ncount: 2\ndefaults: {nvlink: {version: 4, links: 6}}\n"
                "topology: {nvlink: nvswitch}\n",
                "t.yaml:4:20: error: topology.nvlink: nvswitch, but no GPU's profile says how "
                "many NVSwitches its board has (nvlink.switches): give topology.nvswitches");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: all, nvswitches: 6}\n",
                "t.yaml:3:37: error: topology.nvswitches: only for topology.nvlink: nvswitch");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ndefaults: {nvlink: {switches: 19}}\n",
                "t.yaml:3:31: error: switches: 19 is out of range (0 to 18)");
    /* no more links than the hardware has; fewer is a board with links down (a
     * profile without NVLink may gain bridges) */
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ndevices:\n  - {index: 1, nvlink: {links: 18}}\n",
                "t.yaml:4:32: error: nvlink.links: 18, but the profile a100-sxm4-40gb has 12 "
                "NVLinks");
}
END_TEST

START_TEST(nvlink_pairs)
{
    mk_universe *u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 4\n"
                                "topology: {nvlink: [[0, 1], [0, 1], [1, 2, 4], [3, 0, 10]]}\n");
    assert_symmetric(u, "pairs");
    ck_assert_uint_eq(links_between(u, 0, 1), 2);
    ck_assert_uint_eq(links_between(u, 1, 0), 2);
    ck_assert_uint_eq(links_between(u, 1, 2), 4);
    ck_assert_uint_eq(links_between(u, 2, 1), 4);
    ck_assert_uint_eq(links_between(u, 3, 0), 10);
    ck_assert_uint_eq(links_between(u, 2, 3), 0);
    mk_universe_free(u);
}
END_TEST

START_TEST(nvlink_none)
{
    mk_universe *u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 4\ntopology: {nvlink: none}\n");
    for (unsigned a = 0; a < 4; a++)
        for (unsigned l = 0; l < MK_MAX_NVLINKS; l++)
            ck_assert_int_eq(u->dev[a].nvlink_peer[l], -1);
    mk_universe_free(u);
}
END_TEST

START_TEST(nvlink_errors)
{
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 4\n"
                "topology: {nvlink: [[3, 0, 12], [3, 1]]}\n",
                "t.yaml:3:33: error: topology.nvlink: not enough free links on GPU 3 or 1 (each "
                "has the links its profile's nvlink.links says)");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: [[0, 1, 19]]}\n",
                "t.yaml:3:28: error: links: 19 is out of range (1 to 18)");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: [[0, 1], [1, 1]]}\n",
                "t.yaml:3:29: error: topology.nvlink: GPU 1 cannot link to itself");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: [[0, 2]]}\n",
                "t.yaml:3:25: error: GPU index: 2 is out of range (0 to 1)");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: [[0]]}\n",
                "t.yaml:3:21: error: topology.nvlink: expected pairs like [0, 1] or [0, 1, LINKS]");
    EXPECT_DIAG("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: [0, 1]}\n",
                "t.yaml:3:21: error: topology.nvlink: expected pairs like [0, 1] or [0, 1, LINKS]");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 2\ntopology: {nvlink: some}\n",
                "t.yaml:3:20: error: topology.nvlink: expected nvswitch, all, none or a list of "
                "pairs like [[0, 1], [2, 3]]");
    EXPECT_ONLY("profile: t4\ncount: 2\ntopology: {nvlink: [[0, 1]]}\n",
                "t.yaml:3:21: error: topology.nvlink: not enough free links on GPU 0 or 1 (each "
                "has the links its profile's nvlink.links says)");
}
END_TEST

START_TEST(topology_errors)
{
    EXPECT_ONLY("profile: t4\ncount: 2\ntopology: {numaNode: 2}\n",
                "t.yaml:3:12: error: unknown key 'numaNode' in topology; did you mean "
                "'numaNodes'?");
    EXPECT_ONLY("profile: t4\ncount: 2\ntopology: {numaNodes: 0}\n",
                "t.yaml:3:23: error: numaNodes: 0 is out of range (1 to 64)");
    EXPECT_ONLY("profile: t4\ncount: 2\ntopology: {cpus: 5000}\n",
                "t.yaml:3:18: error: cpus: 5000 is out of range (1 to 4096)");
}
END_TEST

START_TEST(bus_ids)
{
    /* Up to eight GPUs get a DGX's bus ids; more get a regular pattern;
     * ids a config names are never handed out again. */
    mk_universe *u = LOAD_CLEAN("profile: t4\ncount: 3\ndevices:\n"
                                "  - {index: 2, pciBusID: \"0000:07:00.0\"}\n");
    ck_assert_str_eq(u->dev[0].bus_id, "00000000:04:00.0");
    ck_assert_str_eq(u->dev[1].bus_id, "00000000:0F:00.0");
    ck_assert_str_eq(u->dev[2].bus_id, "00000000:07:00.0");
    mk_universe_free(u);
    u = LOAD_CLEAN("profile: t4\ncount: 200\n");
    ck_assert_str_eq(u->dev[0].bus_id, "00000000:04:00.0");
    ck_assert_str_eq(u->dev[59].bus_id, "00000000:F0:00.0");
    ck_assert_str_eq(u->dev[60].bus_id, "00000001:04:00.0");
    ck_assert_str_eq(u->dev[60].bus_id_legacy, "0001:04:00.0");
    mk_universe_free(u);
    /* Both widths of domain, either case. */
    u = LOAD_CLEAN("profile: t4\ndevices:\n  - {pciBusID: \"0000:af:00.1\"}\n"
                   "  - {pciBusID: \"0000ABCD:AF:00.1\"}\n");
    ck_assert_str_eq(u->dev[0].bus_id, "00000000:AF:00.1");
    ck_assert_str_eq(u->dev[1].bus_id, "0000ABCD:AF:00.1");
    ck_assert_str_eq(u->dev[1].bus_id_legacy, "ABCD:AF:00.1");
    mk_universe_free(u);
}
END_TEST

START_TEST(uniqueness)
{
    EXPECT_ONLY("profile: t4\ndevices:\n  - {pciBusID: \"0000:07:00.0\"}\n"
                "  - {pciBusID: \"0000:07:00.0\"}\n",
                "t.yaml:4:5: error: GPU 1: pciBusID 0000:07:00.0 is already used by GPU 0");
    EXPECT_ONLY("profile: t4\ndevices:\n  - {pciBusID: \"0000:3b:00.0\"}\n"
                "  - {pciBusID: \"00000000:3B:00.0\"}\n",
                "t.yaml:4:5: error: GPU 1: pciBusID 0000:3B:00.0 is already used by GPU 0");
    EXPECT_ONLY("profile: t4\ndevices:\n  - {uuid: GPU-11111111-2222-3333-4444-555555555555}\n"
                "  - {uuid: GPU-11111111-2222-3333-4444-555555555555}\n",
                "t.yaml:4:5: error: GPU 1: uuid GPU-11111111-2222-3333-4444-555555555555 is "
                "already used by GPU 0");
    EXPECT_ONLY("profile: t4\ndevices:\n  - {}\n  - {minorNumber: 0}\n",
                "t.yaml:4:5: error: GPU 1: minorNumber 0 is already used by GPU 0");
    /* A minor is the GPU's index unless given, so giving one GPU another's
     * index as its minor is a clash too. */
    EXPECT_ONLY("profile: t4\ndevices:\n  - {minorNumber: 1}\n  - {}\n",
                "t.yaml:4:5: error: GPU 1: minorNumber 1 is already used by GPU 0");
}
END_TEST

/* A value that many GPUs share is one error, at the second GPU, naming the
 * first few and how many more: 512 GPUs made 130,816 errors (one per pair),
 * each checked against all before it, which kept lint and nvmlInit busy for
 * minutes. */
START_TEST(uniqueness_of_many)
{
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 512\ndefaults: {minorNumber: 5}\n",
                "t.yaml:2:8: error: GPU 1: minorNumber 5 is already used by GPU 0; 512 GPUs share "
                "it (GPUs 0, 1, 2, 3, 4, 5, 6, 7 and 504 more)");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ncount: 300\n"
                "defaults: {uuid: GPU-00000000-0000-0000-0000-000000000001}\n",
                "t.yaml:2:8: error: GPU 1: uuid GPU-00000000-0000-0000-0000-000000000001 is already "
                "used by GPU 0; 300 GPUs share it (GPUs 0, 1, 2, 3, 4, 5, 6, 7 and 292 more)");
    /* Up to eight holders are all named; each shared value is one error. */
    EXPECT_ONLY("profile: t4\ndevices:\n  - {}\n  - {minorNumber: 0}\n  - {minorNumber: 0}\n",
                "t.yaml:4:5: error: GPU 1: minorNumber 0 is already used by GPU 0; 3 GPUs share it "
                "(GPUs 0, 1, 2)");
    mk_diags d;
    ck_assert_ptr_null(t_load("profile: t4\ncount: 4096\n"
                              "defaults: {minorNumber: 7, uuid: GPU-11111111-2222-3333-4444-555555555555}\n"
                              "devices:\n  - {index: 3, pciBusID: \"0000:04:00.0\"}\n"
                              "  - {index: 9, pciBusID: \"0000:04:00.0\"}\n", &d));
    ck_assert_msg(d.n == 3 && d.errors == 3, "%s", t_diag_text(&d));
    ck_assert(t_has_diag(&d, "t.yaml:6:5: error: GPU 9: pciBusID 0000:04:00.0 is already used by "
                             "GPU 3"));
    mk_diags_free(&d);
}
END_TEST

START_TEST(numa_nodes)
{
    mk_universe *u = LOAD_CLEAN("profile: t4\ncount: 6\ntopology: {numaNodes: 3}\n"
                                "devices:\n  - {index: 5, numaNode: -1}\n");
    static const int want[] = { 0, 0, 1, 1, 2, -1 };
    for (unsigned i = 0; i < 6; i++)
        ck_assert_int_eq(u->dev[i].numa_node, want[i]);
    mk_universe_free(u);
    u = LOAD_CLEAN("profile: t4\ncount: 1\n");
    ck_assert_int_eq(u->dev[0].numa_node, 0);
    ck_assert_uint_eq(u->numa_nodes, 1);
    mk_universe_free(u);
    EXPECT_ONLY("profile: t4\ncount: 2\ndevices:\n  - {index: 1, numaNode: 2}\n",
                "t.yaml:4:5: error: GPU 1: numaNode 2, but the host has 2 NUMA nodes "
                "(topology.numaNodes)");
}
END_TEST

static mk_universe *load(const char *yaml)
{
    return LOAD_CLEAN(yaml);
}

static void identity_differs(const char *a_yaml, const char *b_yaml, const char *why_want)
{
    mk_universe *a = load(a_yaml), *b = load(b_yaml);
    char why[512] = "";
    ck_assert_msg(!mk_universe_same_identity(a, b, why, sizeof why), "no change seen for\n%s",
                  b_yaml);
    ck_assert_str_eq(why, why_want);
    mk_universe_free(a);
    mk_universe_free(b);
}

START_TEST(same_identity)
{
    static const char base[] = "profile: a100-sxm4-40gb\ncount: 2\n"
                               "devices:\n  - {index: 0, mig: {instances: [3g.20gb, 3g.20gb]}}\n";
    /* Live values and rules may change. */
    mk_universe *a = load(base);
    mk_universe *b = load("profile: a100-sxm4-40gb\ncount: 2\ndefaults: {temperature: 50-60, "
                          "unhealthy_after_seconds: 3, power: follow}\n"
                          "devices:\n  - {index: 0, mig: {instances: [3g.20gb, 3g.20gb]}}\n");
    char why[512] = "";
    ck_assert_msg(mk_universe_same_identity(a, b, why, sizeof why), "%s", why);
    ck_assert_msg(mk_universe_same_identity(a, a, why, sizeof why), "%s", why);
    mk_universe_free(a);
    mk_universe_free(b);

    identity_differs(base, "profile: a100-sxm4-40gb\ncount: 3\n"
                     "devices:\n  - {index: 0, mig: {instances: [3g.20gb, 3g.20gb]}}\n",
                     "the GPU count changed from 2 to 3");
    a = load(base);
    char want[512];
    snprintf(want, sizeof want, "GPU 1's uuid changed from %s to "
             "GPU-11111111-2222-3333-4444-555555555555", a->dev[1].uuid);
    mk_universe_free(a);
    identity_differs(base, "profile: a100-sxm4-40gb\ncount: 2\n"
                     "devices:\n  - {index: 0, mig: {instances: [3g.20gb, 3g.20gb]}}\n"
                     "  - {index: 1, uuid: GPU-11111111-2222-3333-4444-555555555555}\n", want);
    identity_differs(base, "profile: a100-sxm4-40gb\ncount: 2\n"
                     "devices:\n  - {index: 0, mig: {instances: [3g.20gb, 3g.20gb]}}\n"
                     "  - {index: 1, pciBusID: \"0000:99:00.0\"}\n",
                     "GPU 1's pciBusID changed from 0000:0F:00.0 to 0000:99:00.0");
    identity_differs(base, "profile: a100-sxm4-40gb\ncount: 2\n"
                     "devices:\n  - {index: 0, mig: {instances: [3g.20gb, 3g.20gb]}}\n"
                     "  - {index: 1, minorNumber: 7}\n",
                     "GPU 1's minorNumber changed from 1 to 7");
    identity_differs(base, "profile: a100-sxm4-40gb\ncount: 2\n",
                     "GPU 0's MIG layout changed");
    identity_differs(base, "profile: a100-sxm4-40gb\ncount: 2\n"
                     "devices:\n  - {index: 0, mig: {instances: [3g.20gb]}}\n",
                     "GPU 0's MIG layout changed");
    identity_differs(base, "profile: a100-sxm4-40gb\ncount: 2\n"
                     "devices:\n  - {index: 0, mig: {instances: [4g.20gb, 3g.20gb]}}\n",
                     "GPU 0's MIG layout changed");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config_topology");
    TCase *tc = tcase_create("config_topology");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, nvlink_all_every_profile);
    tcase_add_test(tc, nvlink_default_is_all);
    tcase_add_test(tc, nvlink_pairs);
    tcase_add_test(tc, nvlink_none);
    tcase_add_test(tc, nvlink_errors);
    tcase_add_test(tc, nvswitch_by_profile);
    tcase_add_test(tc, nvswitch_explicit);
    tcase_add_test(tc, nvswitch_errors);
    tcase_add_test(tc, topology_errors);
    tcase_add_test(tc, bus_ids);
    tcase_add_test(tc, uniqueness);
    tcase_add_test(tc, uniqueness_of_many);
    tcase_add_test(tc, numa_nodes);
    tcase_add_test(tc, same_identity);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
