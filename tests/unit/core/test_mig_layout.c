/* test_mig_layout.c - MIG in a config: layouts that fit (whatever order
 * they are written in), layouts that do not (too many slices, overlapping
 * placements, too many of one profile, an unknown profile), MIG on a GPU
 * without it, the ways to switch MIG on, a GPU's own MIG profile table and
 * its errors, and the ids, UUIDs and caps minors of the MIG devices. */
#include "config_check.h"
#include "ids.h"

#define MiB (1ull << 20)
#define A100 "GPU 0 (NVIDIA A100-SXM4-40GB)"

static mk_universe *layout(const char *instances)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, "profile: a100-sxm4-40gb\ndevices:\n  - mig: {instances: %s}\n",
             instances);
    return LOAD_CLEAN(yaml);
}

/* The layout's MIG devices have these profiles, starts and GI ids. */
static void layout_is(const char *instances, const char *const *names, const unsigned *starts,
                      const unsigned *gi_ids, size_t n)
{
    mk_universe *u = layout(instances);
    const mk_device *g = &u->dev[0];
    ck_assert_int_eq(g->mig_enabled, 1);
    ck_assert_uint_eq(g->nmig, n);
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_eq(g->migp[g->mig[i].profile].name, names[i]);
        ck_assert_msg(g->mig[i].start == starts[i] && g->mig[i].gi_id == gi_ids[i],
                      "%s: instance %zu (%s) at slot %u with GI id %u, want slot %u, GI id %u",
                      instances, i, names[i], g->mig[i].start, g->mig[i].gi_id, starts[i],
                      gi_ids[i]);
        ck_assert_uint_eq(g->mig[i].ci_id, 0);
    }
    mk_universe_free(u);
}

START_TEST(layouts_that_fit)
{
    {
        const char *n[] = { "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb" };
        const unsigned s[] = { 0, 1, 2, 3, 4, 5, 6 }, gi[] = { 7, 8, 9, 10, 11, 12, 13 };
        layout_is("[1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb]", n, s, gi, 7);
    }
    {
        const char *n[] = { "1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb" };
        const unsigned s[] = { 0, 1, 2, 4 }, gi[] = { 7, 8, 4, 2 };
        layout_is("[1g.5gb, 1g.5gb, 2g.10gb, 3g.20gb]", n, s, gi, 4);
    }
    {
        const char *n[] = { "7g.40gb" };
        const unsigned s[] = { 0 }, gi[] = { 0 };
        layout_is("[7g.40gb]", n, s, gi, 1);
    }
    {
        const char *n[] = { "4g.20gb", "3g.20gb" };
        const unsigned s[] = { 0, 4 }, gi[] = { 1, 2 };
        layout_is("[4g.20gb, 3g.20gb]", n, s, gi, 2);
    }
    {
        const char *n[] = { "1g.10gb", "1g.10gb", "1g.10gb", "1g.10gb" };
        const unsigned s[] = { 0, 2, 4, 6 }, gi[] = { 3, 4, 5, 6 };
        layout_is("[1g.10gb, 1g.10gb, 1g.10gb, 1g.10gb]", n, s, gi, 4);
    }
}
END_TEST

/* Layouts that first-fit in the written order would refuse: the written
 * order is kept, the starts move. */
START_TEST(layouts_that_fit_only_rearranged)
{
    {
        const char *n[] = { "3g.20gb", "4g.20gb" };
        const unsigned s[] = { 4, 0 }, gi[] = { 2, 1 };
        layout_is("[3g.20gb, 4g.20gb]", n, s, gi, 2);
    }
    {
        const char *n[] = { "1g.5gb", "4g.20gb" };
        const unsigned s[] = { 4, 0 }, gi[] = { 11, 1 };
        layout_is("[1g.5gb, 4g.20gb]", n, s, gi, 2);
    }
    {
        const char *n[] = { "1g.5gb", "2g.10gb", "2g.10gb", "2g.10gb" };
        const unsigned s[] = { 6, 0, 2, 4 }, gi[] = { 13, 3, 4, 5 };
        layout_is("[1g.5gb, 2g.10gb, 2g.10gb, 2g.10gb]", n, s, gi, 4);
    }
    {
        const char *n[] = { "1g.5gb", "1g.5gb", "1g.5gb", "4g.20gb" };
        const unsigned s[] = { 4, 5, 6, 0 }, gi[] = { 11, 12, 13, 1 };
        layout_is("[1g.5gb, 1g.5gb, 1g.5gb, 4g.20gb]", n, s, gi, 4);
    }
}
END_TEST

START_TEST(profile_names_in_layouts)
{
    const char *n[] = { "1g.5gb", "2g.10gb", "1g.5gb+me" };
    const unsigned s[] = { 0, 2, 1 }, gi[] = { 7, 4, 8 };
    layout_is("[\"MIG 1g.5gb\", 2G.10GB, 1g.5gb+me]", n, s, gi, 3);
}
END_TEST

#define MIGDEV(mig) "profile: a100-sxm4-40gb\ndevices:\n  - mig: " mig "\n"
#define MIGCOL 10   /* column of the value of `  - mig: ` */

START_TEST(layouts_that_do_not_fit)
{
    EXPECT_ONLY(MIGDEV("{instances: [4g.20gb, 4g.20gb]}"),
                "t.yaml:3:32: error: MIG instance 4g.20gb does not fit " A100
                ": it takes at most 1 of 4g.20gb");
    EXPECT_ONLY(MIGDEV("{instances: [1g.5gb+me, 1g.5gb+me]}"),
                "t.yaml:3:34: error: MIG instance 1g.5gb+me does not fit " A100
                ": it takes at most 1 of 1g.5gb+me");
    EXPECT_ONLY(MIGDEV("{instances: [1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, 1g.5gb, "
                       "1g.5gb]}"),
                "t.yaml:3:79: error: MIG instance 1g.5gb does not fit " A100
                ": it takes at most 7 of 1g.5gb");
    EXPECT_ONLY(MIGDEV("{instances: [7g.40gb, 1g.5gb]}"),
                "t.yaml:3:32: error: MIG instance 1g.5gb does not fit " A100
                ": with it the instances need 8 of its 7 compute slices");
    EXPECT_ONLY(MIGDEV("{instances: [2g.10gb, 2g.10gb, 2g.10gb, 1g.5gb, 1g.5gb]}"),
                "t.yaml:3:58: error: MIG instance 1g.5gb does not fit " A100
                ": with it the instances need 8 of its 7 compute slices");
    EXPECT_ONLY(MIGDEV("{instances: [3g.20gb, 3g.20gb, 1g.5gb]}"),
                "t.yaml:3:41: error: MIG instance 1g.5gb does not fit " A100
                ": every start it allows overlaps the instances before it, however they are "
                "placed");
    EXPECT_ONLY(MIGDEV("{instances: [1g.10gb, 1g.10gb, 1g.10gb, 3g.20gb]}"),
                "t.yaml:3:50: error: MIG instance 3g.20gb does not fit " A100
                ": every start it allows overlaps the instances before it, however they are "
                "placed");
    EXPECT_ONLY(MIGDEV("{instances: [2g.10gb, 1g.6gb]}"),
                "t.yaml:3:32: error: " A100 " has no MIG profile '1g.6gb' (it has: 1g.5gb, "
                "1g.5gb+me, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb)");
    EXPECT_ONLY(MIGDEV("{instances: [[1g.5gb]]}"),
                "t.yaml:3:23: error: MIG instance: expected a string, got a list");
}
END_TEST

START_TEST(mig_switches)
{
    static const char *const on[] = {
        "    mig: {mode: enabled, instances: [3g.20gb]}\n",
        "    migEnabled: true\n    mig: {instances: [3g.20gb]}\n",
        "    mig: {instances: [3g.20gb]}\n",
        NULL,
    };
    for (int i = 0; on[i]; i++) {
        char yaml[512];
        snprintf(yaml, sizeof yaml, "profile: a100-sxm4-40gb\ndevices:\n  - index: 0\n%s", on[i]);
        mk_universe *u = LOAD_CLEAN(yaml);
        ck_assert_int_eq(u->dev[0].mig_enabled, 1);
        ck_assert_uint_eq(u->dev[0].nmig, 1);
        mk_universe_free(u);
    }
    /* defaults: give every GPU the layout; a device may switch it off. */
    mk_universe *u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 3\n"
                                "defaults: {mig: {instances: [3g.20gb, 3g.20gb]}}\n"
                                "devices:\n  - {index: 1, mig: {mode: disabled, instances: []}}\n");
    ck_assert_uint_eq(u->dev[0].nmig, 2);
    ck_assert_int_eq(u->dev[1].mig_enabled, 0);
    ck_assert_uint_eq(u->dev[1].nmig, 0);
    ck_assert_uint_eq(u->dev[2].nmig, 2);
    ck_assert_str_ne(u->dev[0].mig[0].uuid, u->dev[2].mig[0].uuid);
    mk_universe_free(u);
    /* MIG off: MIG-capable, no MIG devices. */
    u = LOAD_CLEAN("profile: a100-sxm4-40gb\ndevices:\n  - {migEnabled: false}\n");
    ck_assert_int_eq(u->dev[0].mig_enabled, 0);
    ck_assert_uint_eq(u->dev[0].mig_slices, 7);
    ck_assert_uint_eq(u->dev[0].nmig, 0);
    mk_universe_free(u);
}
END_TEST

START_TEST(mig_switch_errors)
{
    EXPECT_ONLY("profile: t4\ndevices:\n  - {migEnabled: true}\n",
                "t.yaml:3:5: error: GPU 0 (Tesla T4) does not support MIG (its profile has no "
                "migSlices)");
    EXPECT_ONLY("profile: t4\ndevices:\n  - {mig: {instances: [1g.5gb]}}\n",
                "t.yaml:3:5: error: GPU 0 (Tesla T4) does not support MIG (its profile has no "
                "migSlices)");
    EXPECT_DIAG("profile: t4\ncount: 2\ndefaults: {migEnabled: true}\n",
                "t.yaml:2:8: error: GPU 0 (Tesla T4) does not support MIG (its profile has no "
                "migSlices)");
    EXPECT_ONLY("profile: t4\ndevices:\n  - {migSlices: 7, migProfiles: [], mig: {instances: "
                "[1g.5gb]}}\n",
                "t.yaml:3:54: error: GPU 0 (Tesla T4) does not support MIG");
    EXPECT_ONLY(MIGDEV("{mode: disabled, instances: [1g.5gb]}"),
                "t.yaml:3:38: error: GPU 0: MIG instances given but MIG mode is disabled");
    EXPECT_ONLY(MIGDEV("{mode: enabled}"),
                "t.yaml:3:5: warning: GPU 0: MIG is enabled but no instances are configured, so "
                "it offers no MIG devices (add mig: {instances: [...]})");
    EXPECT_ONLY(MIGDEV("5"),
                "t.yaml:3:10: error: mig: expected a map like {mode: enabled, instances: "
                "[1g.5gb]}");
    EXPECT_ONLY(MIGDEV("{mode: on}"),
                "t.yaml:3:17: error: mig.mode: unknown value 'on' (one of: enabled, disabled)");
    EXPECT_ONLY(MIGDEV("{instances: 1g.5gb}"),
                "t.yaml:3:22: error: mig.instances: expected a list of profile names like "
                "[1g.5gb, 3g.20gb]");
    EXPECT_DIAG(MIGDEV("{instance: [1g.5gb]}"),
                "t.yaml:3:11: error: unknown key 'instance' in mig; did you mean 'instances'?");
    EXPECT_ONLY("profile: a100-sxm4-40gb\ndevices:\n  - {migEnabled: sure}\n",
                "t.yaml:3:18: error: migEnabled: expected true or false, got 'sure'");
}
END_TEST

#define PROFILES(rows) "profile: t4\ndevices:\n  - migSlices: 4\n    migProfiles: " rows "\n"

START_TEST(custom_profile_table)
{
    mk_universe *u = LOAD_CLEAN(PROFILES(
        "[{name: 1g.4gb, nvmlProfile: 0, id: 19, slices: 1, memory: 4GiB, instances: 4,\n"
        "       sms: 10, placements: [0, 1, 2, 3]},\n"
        "      {name: 2g.8gb, nvmlProfile: 1, id: 14, slices: 2, memorySlices: 2,\n"
        "       memory: 8GiB, placements: [0, 2]}]\n"
        "    mig: {instances: [1g.4gb, 2g.8gb, 1g.4gb]}"));
    const mk_device *g = &u->dev[0];
    ck_assert_uint_eq(g->nmigp, 2);
    ck_assert_uint_eq(g->migp[0].placement_size, 1);   /* memory slices, else slices */
    ck_assert_uint_eq(g->migp[1].placement_size, 2);
    ck_assert_uint_eq(g->migp[1].max_instances, 2);    /* one per placement, unless given */
    ck_assert_uint_eq(g->nmig, 3);
    ck_assert_uint_eq(g->mig[0].start, 0);
    ck_assert_uint_eq(g->mig[1].start, 2);
    ck_assert_uint_eq(g->mig[2].start, 1);
    ck_assert_uint_eq(g->mig[1].memory, 8ull << 30);
    mk_universe_free(u);
}
END_TEST

static void profile_error(const char *rows, const char *want)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, PROFILES("%s"), rows);
    EXPECT_ONLY(yaml, want);
}

START_TEST(custom_profile_errors)
{
    /* Rows start at line 4, column 18. */
    profile_error("{name: x}", "t.yaml:4:18: error: migProfiles: expected a list of MIG profiles");
    profile_error("[5]", "t.yaml:4:19: error: migProfiles: expected a map per profile");
    profile_error("[{slices: 1, placements: [0]}]",
                  "t.yaml:4:19: error: MIG profile: name is required");
    profile_error("[{name: [x], slices: 1, placements: [0]}]",
                  "t.yaml:4:26: error: name: expected a string, got a list");
    profile_error("[{name: x, placements: [0]}]",
                  "t.yaml:4:19: error: MIG profile 'x': slices is required");
    profile_error("[{name: x, slices: 1}]",
                  "t.yaml:4:19: error: MIG profile 'x': placements is required");
    profile_error("[{name: x, slices: 9, placements: [0]}]",
                  "t.yaml:4:37: error: slices: 9 is out of range (1 to 8)");
    profile_error("[{name: x, slices: 1, placements: [7], placementSize: 2}]",
                  "t.yaml:4:19: error: MIG profile 'x': placement 7 + size 2 runs past slot 8");
    profile_error("[{name: x, slices: 1, placements: 0}]",
                  "t.yaml:4:52: error: placements: expected a list of up to 8 start slots");
    profile_error("[{name: x, slices: 1, placements: [0, 1, 2, 3, 4, 5, 6, 7, 0]}]",
                  "t.yaml:4:52: error: placements: expected a list of up to 8 start slots");
    profile_error("[{name: x, slices: 1, placements: [8]}]",
                  "t.yaml:4:53: error: placement: 8 is out of range (0 to 7)");
    profile_error("[{name: x, slices: 1, placements: [0], memory: big}]",
                  "t.yaml:4:65: error: memory: expected a size like 4864MiB");
    profile_error("[{name: x, slices: 1, placements: [0], colour: red}]",
                  "t.yaml:4:57: error: unknown key 'colour' in a MIG profile");
    profile_error("[{name: x, slices: 1, placements: [0], decoder: 1}]",
                  "t.yaml:4:57: error: unknown key 'decoder' in a MIG profile; did you mean "
                  "'decoders'?");
    char rows[2048] = "[";
    for (int i = 0; i < 25; i++)
        snprintf(rows + strlen(rows), sizeof rows - strlen(rows),
                 "%s{name: p%d, slices: 1, placements: [0]}", i ? ", " : "", i);
    strcat(rows, "]");
    profile_error(rows, "t.yaml:4:18: error: migProfiles: at most 24 profiles");
}
END_TEST

START_TEST(mig_identities)
{
    mk_universe *u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 2\n"
                                "devices:\n  - {index: 1, minorNumber: 5, mig: {instances: "
                                "[1g.5gb, 2g.10gb, 3g.20gb]}}\n");
    const mk_device *g = &u->dev[1];
    for (size_t j = 0; j < g->nmig; j++) {
        const mk_mig_dev *m = &g->mig[j];
        char want[MK_UUID_LEN];
        mk_derive_mig_uuid(g->uuid, m->gi_id, m->ci_id, want, sizeof want);
        ck_assert_str_eq(m->uuid, want);
        ck_assert(mk_uuid_is_canonical(m->uuid, "MIG-"));
        ck_assert_uint_eq(m->gi_minor, 3 + 5 * 135 + m->gi_id * 9);
        ck_assert_uint_eq(m->ci_minor, m->gi_minor + 1 + m->ci_id);
        ck_assert_uint_eq(m->memory, g->migp[m->profile].memory);
        for (size_t k = 0; k < j; k++)
            ck_assert_str_ne(m->uuid, g->mig[k].uuid);
    }
    ck_assert_uint_eq(g->mig[0].memory, 4864 * MiB);
    mk_universe_free(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mig_layout");
    TCase *tc = tcase_create("mig_layout");
    tcase_add_test(tc, layouts_that_fit);
    tcase_add_test(tc, layouts_that_fit_only_rearranged);
    tcase_add_test(tc, profile_names_in_layouts);
    tcase_add_test(tc, layouts_that_do_not_fit);
    tcase_add_test(tc, mig_switches);
    tcase_add_test(tc, mig_switch_errors);
    tcase_add_test(tc, custom_profile_table);
    tcase_add_test(tc, custom_profile_errors);
    tcase_add_test(tc, mig_identities);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
