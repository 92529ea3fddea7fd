/* test_gfd_labels.c - gpu-feature-discovery v0.17.4's labels computed from
 * a universe (src/nvmodel/gfd_labels.c, gfd_resources.c, migname.c): the
 * whole label set of the default DGX A100; MIG mixed under the three
 * strategies (single refused as GFD refuses it: an INVALID product); an
 * H100 that the single strategy fits; a PCIe card on a named machine; the
 * NVLink clique of a GB200 tray (and none when the GPUs disagree); driver
 * versions; GFD's sanitising and go-nvlib's MIG names. The e2e test
 * test_gfd_model.py checks the same against the real GFD. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "support/testutil.h"
#include "nvmodel/nvmodel.h"
#include "nvmodel/nvmodel_int.h"

static const char *src_dir(void)
{
    const char *s = getenv("MOKKA_SRC");
    return s && *s ? s : ".";
}

static mk_universe *load(const char *yaml)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load_mem("t.yaml", yaml, strlen(yaml), "node-a", &d);
    ck_assert_msg(u != NULL, "t.yaml does not load");
    mk_diags_free(&d);
    return u;
}

/* A fixture config (NULL: the built-in default universe). */
static mk_universe *load_fixture(const char *rel, const char *node)
{
    char path[4096];
    mk_diags d;
    snprintf(path, sizeof path, "%s/%s", src_dir(), rel ? rel : "");
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load(rel ? path : NULL, node, &d);
    ck_assert_msg(u != NULL, "%s does not load", path);
    mk_diags_free(&d);
    return u;
}

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The labels as GFD's file has them, sorted; frees them. */
static char *text_of(json_t *labels)
{
    static char buf[16384];
    const char *keys[512], *key;
    json_t *v;
    size_t n = 0, used = 0;
    ck_assert_ptr_nonnull(labels);
    json_object_foreach(labels, key, v) {
        ck_assert_uint_lt(n, 512);
        keys[n++] = key;
    }
    qsort(keys, n, sizeof *keys, by_key);
    buf[0] = 0;
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s=%s\n", keys[i],
                                 json_string_value(json_object_get(labels, keys[i])));
    json_decref(labels);
    return buf;
}

static json_t *labels_of(const mk_universe *u, const char *strategy)
{
    char err[512] = "";
    json_t *l = mk_gfd_labels(u, strategy, err, sizeof err);
    ck_assert_msg(l != NULL, "mk_gfd_labels: %s", err);
    return l;
}

static const char *label(json_t *l, const char *key)
{
    return json_string_value(json_object_get(l, key));
}

#define VERSIONS_535_12_2 \
    "nvidia.com/cuda.driver-version.full=535.261.03\n" \
    "nvidia.com/cuda.driver-version.major=535\n" \
    "nvidia.com/cuda.driver-version.minor=261\n" \
    "nvidia.com/cuda.driver-version.revision=03\n" \
    "nvidia.com/cuda.driver.major=535\n" \
    "nvidia.com/cuda.driver.minor=261\n" \
    "nvidia.com/cuda.driver.rev=03\n" \
    "nvidia.com/cuda.runtime-version.full=12.2\n" \
    "nvidia.com/cuda.runtime-version.major=12\n" \
    "nvidia.com/cuda.runtime-version.minor=2\n" \
    "nvidia.com/cuda.runtime.major=12\n" \
    "nvidia.com/cuda.runtime.minor=2\n"

START_TEST(test_default_universe)
{
    mk_universe *u = load_fixture(NULL, "node-a");
    ck_assert_str_eq(text_of(labels_of(u, NULL)),
                     VERSIONS_535_12_2
                     "nvidia.com/gpu.compute.major=8\n"
                     "nvidia.com/gpu.compute.minor=0\n"
                     "nvidia.com/gpu.count=8\n"
                     "nvidia.com/gpu.family=ampere\n"
                     "nvidia.com/gpu.machine=NVIDIA-DGX-A100\n"
                     "nvidia.com/gpu.memory=40960\n"
                     "nvidia.com/gpu.mode=compute\n"
                     "nvidia.com/gpu.product=NVIDIA-A100-SXM4-40GB\n"
                     "nvidia.com/gpu.replicas=1\n"
                     "nvidia.com/gpu.sharing-strategy=none\n"
                     "nvidia.com/mig.capable=true\n"
                     "nvidia.com/mps.capable=false\n"
                     "nvidia.com/vgpu.present=false\n");
    /* No MIG-enabled GPU: the strategies add only their own label. */
    json_t *l = labels_of(u, "single");
    ck_assert_str_eq(label(l, "nvidia.com/mig.strategy"), "single");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-40GB");
    ck_assert_uint_eq(json_object_size(l), 26);
    json_decref(l);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_mig_mixed)
{
    mk_universe *u = load_fixture("fixtures/configs/mig-mixed.yaml", "node-a");
    /* none: the MIG-enabled GPU counts among the GPUs of its model; the
     * whole one's labeler, merged last, gives replicas 1. */
    json_t *l = labels_of(u, "none");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.count"), "2");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.replicas"), "1");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.machine"), "Mokka-Virtual-GPU-Node");
    ck_assert_ptr_null(json_object_get(l, "nvidia.com/mig.strategy"));
    json_decref(l);

    /* single on a MIG-enabled GPU beside a whole one: invalid. */
    l = labels_of(u, "single");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.product"), "NVIDIA-A100-SXM4-40GB-MIG-INVALID");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.count"), "0");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.replicas"), "0");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.memory"), "0");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.sharing-strategy"), "");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.family"), "ampere");
    json_decref(l);

    const char *text = text_of(labels_of(u, "mixed"));
    ck_assert_ptr_nonnull(strstr(text,
                                 "nvidia.com/mig-1g.5gb.count=2\n"
                                 "nvidia.com/mig-1g.5gb.engines.copy=1\n"
                                 "nvidia.com/mig-1g.5gb.engines.decoder=0\n"
                                 "nvidia.com/mig-1g.5gb.engines.encoder=0\n"
                                 "nvidia.com/mig-1g.5gb.engines.jpeg=0\n"
                                 "nvidia.com/mig-1g.5gb.engines.ofa=0\n"
                                 "nvidia.com/mig-1g.5gb.memory=4864\n"
                                 "nvidia.com/mig-1g.5gb.multiprocessors=14\n"
                                 "nvidia.com/mig-1g.5gb.product=NVIDIA-A100-SXM4-40GB-MIG-1g.5gb\n"
                                 "nvidia.com/mig-1g.5gb.replicas=1\n"
                                 "nvidia.com/mig-1g.5gb.sharing-strategy=none\n"
                                 "nvidia.com/mig-1g.5gb.slices.ci=1\n"
                                 "nvidia.com/mig-1g.5gb.slices.gi=1\n"
                                 "nvidia.com/mig-2g.10gb.count=1\n"));
    ck_assert_ptr_nonnull(strstr(text, "nvidia.com/mig-3g.20gb.memory=19968\n"));
    ck_assert_ptr_nonnull(strstr(text, "nvidia.com/mig.strategy=mixed\n"));
    ck_assert_ptr_nonnull(strstr(text, "nvidia.com/gpu.count=2\n"));
    mk_universe_free(u);
}
END_TEST

#define H100_MIG "version: 1.0\nprofile: h100-sxm5-80gb\ncount: 2\n" \
    "defaults:\n  mig: {mode: enabled, instances: [1g.10gb, 1g.10gb, 1g.10gb]}\n"

START_TEST(test_single_fits)
{
    mk_universe *u = load(H100_MIG);
    json_t *l = labels_of(u, "single");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.count"), "6");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.replicas"), "1");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.memory"), "9984");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.slices.gi"), "1");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.family"), "hopper");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.compute.major"), "9");
    ck_assert_ptr_null(json_object_get(l, "nvidia.com/mig-1g.10gb.count"));
    json_decref(l);
    /* none: every GPU is MIG-enabled, so only the labeler without sharing. */
    l = labels_of(u, "none");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.replicas"), "0");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.memory"), "81559");
    json_decref(l);
    mk_universe_free(u);

    /* A MIG-enabled GPU without MIG devices makes single invalid too. */
    u = load("version: 1.0\nprofile: h100-sxm5-80gb\ncount: 2\n"
             "devices:\n  - {index: 0, mig: {mode: enabled, instances: []}}\n"
             "  - {index: 1, mig: {mode: enabled, instances: [1g.10gb]}}\n");
    l = labels_of(u, "single");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-MIG-INVALID");
    json_decref(l);
    /* ... and so do two MIG profiles. */
    mk_universe_free(u);
    u = load("version: 1.0\nprofile: h100-sxm5-80gb\ncount: 1\n"
             "devices:\n  - {index: 0, mig: {mode: enabled, instances: [1g.10gb, 1g.10gb+me]}}\n");
    l = labels_of(u, "single");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-MIG-INVALID");
    json_decref(l);
    l = labels_of(u, "mixed");
    ck_assert_str_eq(label(l, "nvidia.com/mig-1g.10gb.me.product"),
                     "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb.me");
    ck_assert_str_eq(label(l, "nvidia.com/mig-1g.10gb.count"), "1");
    json_decref(l);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_pcie_card_and_machine)
{
    mk_universe *u = load("version: 1.0\nprofile: l4\ncount: 2\ndriverVersion: \"550.54\"\n"
                          "cudaVersion: \"12.4\"\n"
                          "machine: \"  Acme GPU Box 9000 (rev. 2) / x_y  \"\n");
    json_t *l = labels_of(u, "mixed");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.machine"), "Acme-GPU-Box-9000-rev.-2-x_y");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.family"), "ada-lovelace");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.product"), "NVIDIA-L4");
    ck_assert_str_eq(label(l, "nvidia.com/mig.capable"), "false");
    ck_assert_str_eq(label(l, "nvidia.com/mig.strategy"), "mixed");
    ck_assert_str_eq(label(l, "nvidia.com/cuda.driver.rev"), "");
    ck_assert_str_eq(label(l, "nvidia.com/cuda.driver-version.full"), "550.54");
    ck_assert_str_eq(label(l, "nvidia.com/cuda.runtime-version.full"), "12.4");
    ck_assert_uint_eq(json_object_size(l), 26);
    json_decref(l);
    mk_universe_free(u);
}
END_TEST

#define TRAY "version: 1.0\nprofile: gb200\ncount: 4\ntopology: {nvlink: none}\n" \
    "defaults:\n  fabric: {clusterUuid: 8a5c3c8e-3b8f-4d0e-9c53-2b1e6f0a7d41, cliqueId: 32766}\n"

START_TEST(test_clique)
{
    /* The GPU whose registration is still in progress does not count. */
    mk_universe *u = load(TRAY "devices:\n  - {index: 3, fabric: {state: inProgress, "
                          "status: notReady}}\n");
    json_t *l = labels_of(u, NULL);
    ck_assert_str_eq(label(l, "nvidia.com/gpu.clique"),
                     "8a5c3c8e-3b8f-4d0e-9c53-2b1e6f0a7d41.32766");
    ck_assert_str_eq(label(l, "nvidia.com/gpu.family"), "blackwell");
    json_decref(l);
    mk_universe_free(u);
    /* Two cliques: no label. */
    u = load(TRAY "devices:\n  - {index: 2, fabric: {cliqueId: 1}}\n");
    l = labels_of(u, NULL);
    ck_assert_ptr_null(json_object_get(l, "nvidia.com/gpu.clique"));
    json_decref(l);
    mk_universe_free(u);
    /* No fabric: no label. */
    u = load("version: 1.0\nprofile: gb200\ncount: 1\ntopology: {nvlink: none}\n");
    l = labels_of(u, NULL);
    ck_assert_ptr_null(json_object_get(l, "nvidia.com/gpu.clique"));
    json_decref(l);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_errors_and_edges)
{
    char err[512];
    mk_universe *u = load("version: 1.0\nprofile: t4\ncount: 1\n");
    ck_assert_ptr_null(mk_gfd_labels(u, "some", err, sizeof err));
    ck_assert_str_eq(err, "unknown MIG strategy 'some' (none, single or mixed)");
    /* GFD stops on a driver version it cannot split. */
    snprintf(u->driver_version, sizeof u->driver_version, "535");
    ck_assert_ptr_null(mk_gfd_labels(u, NULL, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "Version \"535\" does not match format \"X.Y[.Z]\""));
    snprintf(u->driver_version, sizeof u->driver_version, "1.2.3.4");
    ck_assert_ptr_null(mk_gfd_labels(u, NULL, err, sizeof err));
    /* Without GPUs only the vGPU label is left. */
    size_t n = u->ndev;
    u->ndev = 0;
    ck_assert_str_eq(text_of(labels_of(u, "mixed")), "nvidia.com/vgpu.present=false\n");
    u->ndev = n;
    mk_universe_free(u);
}
END_TEST

START_TEST(test_sanitise)
{
    char out[64];
    mk_gfd_sanitise("NVIDIA A100-SXM4-80GB", out, sizeof out);
    ck_assert_str_eq(out, "NVIDIA-A100-SXM4-80GB");
    mk_gfd_sanitise("  a  (b) \t c_d.e - f  ", out, sizeof out);
    ck_assert_str_eq(out, "a-b-c_d.e---f");
    mk_gfd_sanitise("caf\xc3\xa9 + GPU", out, sizeof out);
    ck_assert_str_eq(out, "caf-GPU");
    mk_gfd_sanitise("", out, sizeof out);
    ck_assert_str_eq(out, "");
    mk_gfd_sanitise("abcdef", out, 4);
    ck_assert_str_eq(out, "abc");
}
END_TEST

START_TEST(test_mig_names)
{
    /* go-nvlib's names from profile ids and memory, not the profiles' own. */
    mk_universe *u = load("version: 1.0\nprofile: a100-sxm4-80gb\ncount: 1\n");
    const mk_device *d = &u->dev[0];
    char name[64], err[256];
    for (size_t i = 0; i < d->nmigp; i++) {
        ck_assert_int_eq(mk_nv_mig_name(d, &d->migp[i], name, sizeof name, err, sizeof err), 0);
        char want[64];
        snprintf(want, sizeof want, "%s", d->migp[i].name);
        for (char *s = want; *s; s++)
            if (*s == '+')
                *s = '.';
        ck_assert_str_eq(name, want);
    }
    mk_mig_profile p = d->migp[0];
    p.id = 999;
    ck_assert_int_eq(mk_nv_mig_name(d, &p, name, sizeof name, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "which go-nvlib does not know"));
    mk_universe_free(u);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("gfd_labels");
    TCase *tc = mk_test_case(s, "gfd_labels", NULL, NULL, 30);
    tcase_add_test(tc, test_default_universe);
    tcase_add_test(tc, test_mig_mixed);
    tcase_add_test(tc, test_single_fits);
    tcase_add_test(tc, test_pcie_card_and_machine);
    tcase_add_test(tc, test_clique);
    tcase_add_test(tc, test_errors_and_edges);
    tcase_add_test(tc, test_sanitise);
    tcase_add_test(tc, test_mig_names);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
