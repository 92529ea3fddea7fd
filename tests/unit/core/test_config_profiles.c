/* test_config_profiles.c - GPU profiles and the layers on top of them: every
 * built-in profile loads without a single diagnostic, profile + count +
 * defaults + device entries layer in that order, a profile is inferred from
 * the GPU name, the seed config and the example configs load as written,
 * the built-in default universe, `uuid: auto`, and scale (256 and 4096
 * GPUs). */
#include <stdlib.h>
#include <unistd.h>
#include "config_check.h"
#include "ids.h"
#include "profiles.h"
#include "ytree.h"

#define GiB (1ull << 30)
#define MiB (1ull << 20)

static const char *src_dir(void)
{
    const char *s = getenv("MOKKA_SRC");
    return s && *s ? s : ".";
}

static mk_universe *load_file_clean(const char *rel, int strict, mk_diags *d)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", src_dir(), rel);
    mk_diags_init(d);
    d->strict = strict;
    return mk_universe_load(path, "node-a", d);
}

START_TEST(every_profile_loads_clean)
{
    unsigned nprofiles = 0;
    for (const mk_profile *p = mk_profiles; p->name; p++)
        nprofiles++;
    ck_assert_uint_ge(nprofiles, 12);
    for (const mk_profile *p = mk_profiles; p->name; p++) {
        char yaml[256];
        for (int count = 1; count <= 8; count += 7) {
            snprintf(yaml, sizeof yaml, "profile: %s\ncount: %d\n", p->name, count);
            mk_universe *u = LOAD_CLEAN(yaml);
            ck_assert_str_eq(u->dev[0].profile, p->name);
            ck_assert_msg(u->dev[0].mem_total > u->dev[0].mem_reserved, "%s", p->name);
            ck_assert_msg(u->dev[0].power_limit >= u->dev[0].power_min_limit, "%s", p->name);
            mk_universe_free(u);
        }
    }
}
END_TEST

/* Two trees hold the same values at the same positions. */
static void same_tree(const char *profile, const mk_ynode *a, const mk_ynode *b)
{
    ck_assert_msg(a->kind == b->kind && a->line == b->line && a->col == b->col &&
                      a->n == b->n && a->quoted == b->quoted,
                  "profile %s: the built-in copy differs from the file at %d:%d", profile,
                  b->line, b->col);
    if (a->kind == MK_Y_SCALAR)
        ck_assert_msg(strcmp(a->str, b->str) == 0, "profile %s:%d:%d: built in '%s', file '%s'",
                      profile, b->line, b->col, a->str, b->str);
    for (size_t i = 0; i < a->n; i++) {
        if (a->kind == MK_Y_MAP)
            same_tree(profile, a->keys[i], b->keys[i]);
        same_tree(profile, a->vals[i], b->vals[i]);
    }
}

/* The library carries the profiles parsed at build time: the same tree as
 * the files, with every line and column (which errors name), and each
 * profile knows its GPU name. */
START_TEST(built_in_profiles_match_their_files)
{
    for (const mk_profile *p = mk_profiles; p->name; p++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/fixtures/profiles/%s.yaml", src_dir(), p->name);
        mk_diags d;
        mk_diags_init(&d);
        mk_ydoc *file = mk_yload_file(path, &d);
        mk_ydoc *built_in = mk_yunpack(p->name, &p->tree, &d);
        ck_assert_msg(file && built_in, "profile %s does not load", p->name);
        same_tree(p->name, built_in->root, file->root);
        ck_assert_str_eq(p->gpu, mk_yget(file->root, "name")->str);
        mk_yfree(file);
        mk_yfree(built_in);
        mk_diags_free(&d);
    }
}
END_TEST

/* Without a config the library serves the DGX A100 fixture, carried parsed. */
START_TEST(built_in_default_is_the_dgx_fixture)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/fixtures/configs/dgx-a100.yaml", src_dir());
    mk_diags d;
    mk_diags_init(&d);
    mk_ydoc *file = mk_yload_file(path, &d);
    mk_ydoc *built_in = mk_yunpack("built-in default", &mk_default_config, &d);
    ck_assert_msg(file && built_in, "the DGX A100 fixture does not load");
    same_tree("dgx-a100", built_in->root, file->root);
    mk_yfree(file);
    mk_yfree(built_in);
    mk_diags_free(&d);
}
END_TEST

START_TEST(profile_names)
{
    ck_assert_ptr_nonnull(mk_profile_find("h100-sxm5-80gb"));
    ck_assert_ptr_nonnull(mk_profile_find("H100-SXM5-80GB"));
    ck_assert_ptr_null(mk_profile_find("h100"));
    EXPECT_ONLY("profile: a100-sxm4-40g\ncount: 2\n",
                "t.yaml:1:10: error: unknown profile 'a100-sxm4-40g'; did you mean "
                "'a100-sxm4-40gb'?");
    EXPECT_ONLY("profile: banana\ncount: 1\n",
                "t.yaml:1:10: error: unknown profile 'banana' (see fixtures/profiles or "
                "`mokka render --profiles`)");
    EXPECT_ONLY("profile: t4\ndevices:\n  - {profile: l4s}\n",
                "t.yaml:3:15: error: unknown profile 'l4s'; did you mean 'l4'?");
    /* Profile names are case-insensitive. */
    mk_universe *u = LOAD_CLEAN("profile: H100-SXM5-80GB\ncount: 1\n");
    ck_assert_str_eq(u->dev[0].profile, "h100-sxm5-80gb");
    mk_universe_free(u);
}
END_TEST

START_TEST(layers)
{
    /* profile < defaults < device entry; the device's profile beats the
     * defaults' profile, which beats the top-level one. */
    mk_universe *u = LOAD_CLEAN("profile: a100-sxm4-40gb\n"
                                "count: 4\n"
                                "defaults: {temperature: 50, ecc: false}\n"
                                "devices:\n"
                                "  - {index: 1, temperature: 60}\n"
                                "  - {index: 2, profile: h100-sxm5-80gb}\n"
                                "  - {index: 3, profile: h100-sxm5-80gb, memory: 79GiB, "
                                "ecc: true}\n"
                                "topology: {nvlink: none}\n");
    const mk_device *d = u->dev;
    ck_assert_str_eq(d[0].name, "NVIDIA A100-SXM4-40GB");
    ck_assert_uint_eq(d[0].mem_total, 40960 * MiB);
    ck_assert_int_eq(d[0].lv[MK_M_TEMP].lo, 50);
    ck_assert_int_eq(d[0].ecc_enabled, 0);
    ck_assert_int_eq(d[1].lv[MK_M_TEMP].lo, 60);
    ck_assert_str_eq(d[2].name, "NVIDIA H100 80GB HBM3");
    ck_assert_str_eq(d[2].profile, "h100-sxm5-80gb");
    ck_assert_uint_eq(d[2].mem_total, 81559 * MiB);
    ck_assert_int_eq(d[2].lv[MK_M_TEMP].lo, 50);      /* defaults still apply */
    ck_assert_uint_eq(d[3].mem_total, 79 * GiB);
    ck_assert_int_eq(d[3].ecc_enabled, 1);
    mk_universe_free(u);

    u = LOAD_CLEAN("profile: a100-sxm4-40gb\ncount: 2\ndefaults: {profile: l4}\n"
                   "devices:\n  - {index: 1, profile: t4}\n");
    ck_assert_str_eq(u->dev[0].name, "NVIDIA L4");
    ck_assert_str_eq(u->dev[1].name, "Tesla T4");
    mk_universe_free(u);
}
END_TEST

START_TEST(profile_inferred_from_name)
{
    mk_universe *u = LOAD_CLEAN("devices:\n"
                                "  - {name: NVIDIA H100 80GB HBM3}\n"
                                "  - {name: \"NVIDIA L40S\"}\n");
    ck_assert_str_eq(u->dev[0].profile, "h100-sxm5-80gb");
    ck_assert_uint_eq(u->dev[0].mem_total, 81559 * MiB);
    ck_assert_uint_eq(u->dev[0].mig_slices, 7);
    ck_assert_str_eq(u->dev[1].profile, "l40s");
    mk_universe_free(u);
    /* From defaults' name too. */
    u = LOAD_CLEAN("count: 2\ndefaults: {name: Tesla T4}\n");
    ck_assert_str_eq(u->dev[1].profile, "t4");
    mk_universe_free(u);
    /* No profile matches: generic values, and a warning in strict mode. */
    EXPECT_ONLY("devices:\n  - {name: Acme GPU 9000}\n",
                "t.yaml:2:5: warning: GPU 0: no profile, and no built-in profile is named 'Acme "
                "GPU 9000': generic values are used for everything the config does not set");
    EXPECT_ONLY("devices:\n  - {memory: 16GiB}\n",
                "t.yaml:2:5: warning: GPU 0: no profile and no name: generic values are used "
                "for everything the config does not set");
    /* Without strict, no warning at all. */
    mk_diags d;
    mk_diags_init(&d);
    static const char yaml[] = "devices:\n  - {name: Acme GPU 9000}\n";
    mk_universe *v = mk_universe_load_mem("t.yaml", yaml, sizeof yaml - 1, "n", &d);
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(d.n, 0);
    mk_universe_free(v);
    mk_diags_free(&d);
}
END_TEST

/* A name that is not a profile's full GPU name: the one profile its words
 * name, with a note; a family named alone: its default; several: an error
 * listing them. */
static const struct { const char *name, *profile, *note; } resolved[] = {
    { "NVIDIA A100", "a100-sxm4-40gb", "t.yaml:2:18: note: name 'NVIDIA A100' is not a profile's "
      "GPU name; it names profile a100-sxm4-40gb (NVIDIA A100-SXM4-40GB), the default of its "
      "family (give profile: for another)" },
    { "H100", "h100-sxm5-80gb", NULL },
    { "nvidia h100 sxm", "h100-sxm5-80gb", "t.yaml:2:18: note: name 'nvidia h100 sxm' is not a "
      "profile's GPU name; it names profile h100-sxm5-80gb (NVIDIA H100 80GB HBM3)" },
    { "H100 PCIe", "h100-pcie-80gb", NULL },
    { "A100 80GB", "a100-sxm4-80gb", NULL },
    { "A100-SXM4-40GB", "a100-sxm4-40gb", NULL },
    { "A10", "a10", NULL },        /* not the A100s: "A10" ends in a digit */
    { "RTX 6000", "rtx-6000-ada", NULL },
};

START_TEST(profile_resolved_from_name)
{
    char yaml[256];
    snprintf(yaml, sizeof yaml, "count: 2\ndefaults: {name: \"%s\"}\n", resolved[_i].name);
    mk_diags d;
    mk_universe *u = t_load(yaml, &d);
    ck_assert_msg(u != NULL, "%s", t_diag_text(&d));
    ck_assert_str_eq(u->dev[1].profile, resolved[_i].profile);
    ck_assert_str_eq(u->dev[1].name, resolved[_i].name);
    ck_assert_uint_eq(d.n, 1);   /* one note for both GPUs */
    ck_assert_int_eq(d.v[0].level, MK_DIAG_NOTE);
    ck_assert_uint_eq(d.errors + d.warnings, 0);
    if (resolved[_i].note)
        ck_assert_msg(t_has_diag(&d, resolved[_i].note), "%s", t_diag_text(&d));
    mk_universe_free(u);
    mk_diags_free(&d);
}
END_TEST

START_TEST(ambiguous_name)
{
    EXPECT_ONLY("devices:\n  - {name: A100 SXM4}\n",
                "t.yaml:2:12: error: name 'A100 SXM4' names 2 profiles: a100-sxm4-40gb (NVIDIA "
                "A100-SXM4-40GB), a100-sxm4-80gb (NVIDIA A100-SXM4-80GB); give profile: or the "
                "full GPU name");
    EXPECT_DIAG("count: 3\ndefaults: {name: NVIDIA 80GB}\n",
                "t.yaml:2:18: error: name 'NVIDIA 80GB' names 3 profiles: a100-sxm4-80gb (NVIDIA "
                "A100-SXM4-80GB), h100-pcie-80gb (NVIDIA H100 PCIe), h100-sxm5-80gb (NVIDIA H100 "
                "80GB HBM3); give profile: or the full GPU name");
    /* profile: decides; the name is then only the name. */
    mk_universe *u = LOAD_CLEAN("devices:\n  - {name: A100 SXM4, profile: a100-sxm4-80gb}\n");
    ck_assert_str_eq(u->dev[0].profile, "a100-sxm4-80gb");
    mk_universe_free(u);
}
END_TEST

/* fixtures/configs/seed.yaml: the config Mokka started from, loaded exactly
 * as written, non-hex UUIDs included. */
START_TEST(seed_config)
{
    mk_diags d;
    mk_universe *u = load_file_clean("fixtures/configs/seed.yaml", 0, &d);
    ck_assert_msg(u && d.n == 0, "%s", t_diag_text(&d));
    ck_assert_uint_eq(u->ndev, 2);
    const mk_device *a = &u->dev[0], *b = &u->dev[1];
    ck_assert_str_eq(a->name, "NVIDIA A100-SXM4-40GB");
    ck_assert_str_eq(a->uuid, "GPU-1a2b3c4d-5e6f-7g8h-9i0j-1k2l3m4n5o6p");
    ck_assert_str_eq(a->profile, "a100-sxm4-40gb");
    ck_assert_uint_eq(a->mem_total, 40960 * MiB);
    ck_assert_int_eq(a->lv[MK_M_TEMP].kind, MK_LV_FIXED);
    ck_assert_int_eq(a->lv[MK_M_TEMP].lo, 42);
    ck_assert_int_eq(a->lv[MK_M_POWER].lo, 210000);
    ck_assert_int_eq(a->lv[MK_M_UTIL_GPU].lo, 15);
    ck_assert_int_eq(a->lv[MK_M_UTIL_MEM].lo, 32);
    ck_assert_str_eq(b->name, "NVIDIA RTX 6000 Ada Generation");
    ck_assert_str_eq(b->uuid, "GPU-7p6o5n4m-3l2k-1j0i-9h8g-7f6e5d4c3b2a");
    ck_assert_str_eq(b->profile, "rtx-6000-ada");
    ck_assert_uint_eq(b->mem_total, 48 * GiB);
    ck_assert_int_eq(b->lv[MK_M_TEMP].lo, 38);
    ck_assert_int_eq(b->lv[MK_M_POWER].lo, 260000);
    ck_assert_int_eq(b->lv[MK_M_UTIL_GPU].lo, 0);
    ck_assert_int_eq(b->lv[MK_M_UTIL_MEM].lo, 0);
    mk_universe_free(u);
    mk_diags_free(&d);

    /* Strict mode warns about the non-hex UUIDs and the two sizes written
     * without a unit, and only about them. */
    u = load_file_clean("fixtures/configs/seed.yaml", 1, &d);
    ck_assert_ptr_nonnull(u);
    ck_assert_uint_eq(d.errors, 0);
    ck_assert_uint_eq(d.warnings, 4);
    char want[8192];
    snprintf(want, sizeof want, "%s/fixtures/configs/seed.yaml:3:5: warning: GPU 0: uuid "
             "'GPU-1a2b3c4d-5e6f-7g8h-9i0j-1k2l3m4n5o6p' is not of the form "
             "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex); programs that parse UUIDs may "
             "reject it", src_dir());
    ck_assert_msg(t_has_diag(&d, want), "%s", t_diag_text(&d));
    snprintf(want, sizeof want, "%s/fixtures/configs/seed.yaml:12:5: warning: GPU 1: uuid "
             "'GPU-7p6o5n4m-3l2k-1j0i-9h8g-7f6e5d4c3b2a' is not of the form "
             "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx (hex); programs that parse UUIDs may "
             "reject it", src_dir());
    ck_assert_msg(t_has_diag(&d, want), "%s", t_diag_text(&d));
    mk_universe_free(u);
    mk_diags_free(&d);
}
END_TEST

START_TEST(example_configs_load_clean)
{
    static const char *const files[] = { "dgx-a100.yaml", "faults.yaml", "hgx-h100.yaml",
                                         "mig-mixed.yaml", NULL };
    for (int i = 0; files[i]; i++) {
        char rel[256];
        mk_diags d;
        snprintf(rel, sizeof rel, "fixtures/configs/%s", files[i]);
        mk_universe *u = load_file_clean(rel, 1, &d);
        ck_assert_msg(u && d.n == 0, "%s:\n%s", rel, t_diag_text(&d));
        mk_universe_free(u);
        mk_diags_free(&d);
    }
}
END_TEST

START_TEST(default_universe)
{
    mk_diags d;
    mk_diags_init(&d);
    d.strict = 1;
    mk_universe *u = mk_universe_load(NULL, "node-a", &d);
    ck_assert_msg(u && d.n == 0, "%s", t_diag_text(&d));
    ck_assert_ptr_null(u->config_path);
    ck_assert_uint_eq(u->ndev, 8);
    ck_assert_uint_eq(u->numa_nodes, 2);
    static const char *const bus[] = { "00000000:07:00.0", "00000000:0F:00.0", "00000000:47:00.0",
                                       "00000000:4E:00.0", "00000000:87:00.0", "00000000:90:00.0",
                                       "00000000:B7:00.0", "00000000:BD:00.0" };
    for (unsigned i = 0; i < 8; i++) {
        ck_assert_str_eq(u->dev[i].name, "NVIDIA A100-SXM4-40GB");
        ck_assert_str_eq(u->dev[i].bus_id, bus[i]);
        ck_assert_int_eq(u->dev[i].numa_node, i < 4 ? 0 : 1);
        ck_assert_uint_eq(u->dev[i].minor, i);
        ck_assert(mk_uuid_is_canonical(u->dev[i].uuid, "GPU-"));
        /* a DGX A100's 12 NVLinks all go to its 6 NVSwitches */
        ck_assert(u->dev[i].nvlink_switched);
        ck_assert_uint_eq(u->dev[i].nvlinks, 12);
        ck_assert_uint_eq(u->nswitch, 6);
    }
    /* The same as the example it is documented to be. */
    mk_diags d2;
    mk_universe *v = load_file_clean("fixtures/configs/dgx-a100.yaml", 1, &d2);
    char why[256];
    ck_assert_msg(mk_universe_same_identity(u, v, why, sizeof why), "%s", why);
    mk_universe_free(v);
    mk_diags_free(&d2);
    mk_universe_free(u);
    mk_diags_free(&d);
}
END_TEST

static mk_universe *load_env_node(const char *yaml)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load_mem("t.yaml", yaml, strlen(yaml), NULL, &d);
    ck_assert_msg(u != NULL, "%s", t_diag_text(&d));
    mk_diags_free(&d);
    return u;
}

START_TEST(uuid_auto)
{
    static const char yaml[] = "profile: a100-sxm4-40gb\ncount: 4\ndefaults: {uuid: auto}\n"
                               "devices:\n  - {index: 2, uuid: GPU-2}\n";
    setenv("MOKKA_NODE_NAME", "node-1", 1);
    mk_universe *a = load_env_node(yaml), *a2 = load_env_node(yaml);
    setenv("MOKKA_NODE_NAME", "node-2", 1);
    mk_universe *b = load_env_node(yaml);
    for (unsigned i = 0; i < 4; i++) {
        if (i == 2) {
            ck_assert_str_eq(a->dev[i].uuid, "GPU-2");
            continue;
        }
        char want[MK_UUID_LEN];
        mk_derive_gpu_uuid("node-1", i, want, sizeof want);
        ck_assert_str_eq(a->dev[i].uuid, want);
        ck_assert(mk_uuid_is_canonical(a->dev[i].uuid, "GPU-"));
        ck_assert_str_eq(a->dev[i].uuid, a2->dev[i].uuid);      /* stable across loads */
        ck_assert_str_ne(a->dev[i].uuid, b->dev[i].uuid);       /* per node */
        for (unsigned j = 0; j < i; j++)
            ck_assert_str_ne(a->dev[i].uuid, a->dev[j].uuid);   /* per index */
        ck_assert_str_ne(a->dev[i].serial, b->dev[i].serial);
    }
    ck_assert_str_eq(a->node, "node-1");
    mk_universe_free(a);
    mk_universe_free(a2);
    mk_universe_free(b);

    /* Without MOKKA_NODE_NAME the host name is the node. */
    unsetenv("MOKKA_NODE_NAME");
    char host[256] = "";
    ck_assert_int_eq(gethostname(host, sizeof host), 0);
    mk_universe *h = load_env_node(yaml);
    char want[MK_UUID_LEN];
    mk_derive_gpu_uuid(host, 0, want, sizeof want);
    ck_assert_str_eq(h->dev[0].uuid, want);
    ck_assert_str_eq(h->node, host);
    mk_universe_free(h);
    /* A node name given by the caller beats the environment. */
    setenv("MOKKA_NODE_NAME", "node-1", 1);
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *g = mk_universe_load_mem("t.yaml", yaml, sizeof yaml - 1, "node-2", &d);
    mk_derive_gpu_uuid("node-2", 0, want, sizeof want);
    ck_assert_str_eq(g->dev[0].uuid, want);
    mk_universe_free(g);
    mk_diags_free(&d);
}
END_TEST

START_TEST(many_devices)
{
    mk_universe *u = LOAD_CLEAN("profile: h100-sxm5-80gb\ncount: 256\n");
    ck_assert_uint_eq(u->ndev, 256);
    for (size_t i = 0; i < u->ndev; i++)
        for (size_t j = 0; j < i; j++) {
            ck_assert_str_ne(u->dev[i].bus_id, u->dev[j].bus_id);
            ck_assert_str_ne(u->dev[i].uuid, u->dev[j].uuid);
        }
    mk_universe_free(u);
    u = LOAD_CLEAN("profile: l4\ncount: 4096\ntopology: {nvlink: none}\n");
    ck_assert_uint_eq(u->ndev, 4096);
    ck_assert_uint_eq(u->dev[4095].index, 4095);
    mk_universe_free(u);
    EXPECT_ONLY("profile: l4\ncount: 4097\n",
                "t.yaml:2:8: error: count: 4097 is out of range (1 to 4096)");
    /* A list of 4097 devices. */
    size_t cap = 4097 * 8 + 64, n = 0;
    char *yaml = malloc(cap);
    n += (size_t)snprintf(yaml + n, cap - n, "profile: l4\ndevices:\n");
    for (int i = 0; i < 4097; i++)
        n += (size_t)snprintf(yaml + n, cap - n, "  - {}\n");
    EXPECT_ONLY(yaml, "t.yaml:3:3: error: at most 4096 devices");
    free(yaml);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config_profiles");
    TCase *tc = tcase_create("config_profiles");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, every_profile_loads_clean);
    tcase_add_test(tc, built_in_profiles_match_their_files);
    tcase_add_test(tc, built_in_default_is_the_dgx_fixture);
    tcase_add_test(tc, profile_names);
    tcase_add_test(tc, layers);
    tcase_add_test(tc, profile_inferred_from_name);
    tcase_add_loop_test(tc, profile_resolved_from_name, 0,
                        (int)(sizeof resolved / sizeof resolved[0]));
    tcase_add_test(tc, ambiguous_name);
    tcase_add_test(tc, seed_config);
    tcase_add_test(tc, example_configs_load_clean);
    tcase_add_test(tc, default_universe);
    tcase_add_test(tc, uuid_auto);
    tcase_add_test(tc, many_devices);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
