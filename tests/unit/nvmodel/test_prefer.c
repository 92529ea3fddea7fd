/* test_prefer.c - the models of NVIDIA's device plugin v0.17.4 in
 * src/nvmodel/: the devices it lists under each MIG strategy and the
 * universes it refuses under single (pdevs.c), and its answers to
 * GetPreferredAllocation (prefer.c, besteffort.c): PCIe placement on NVSwitch
 * boards, NVLink counts on direct wiring, the order of the request, size 1,
 * what it answers nothing to, the nil-device crash, Go's shared append
 * arrays past six sets, and MIG devices' distributed policy. The expected
 * answers of whole GPUs are the real plugin's (test_prefer_model.py asks it
 * the same and many more). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/testutil.h"
#include "nvmodel/nvmodel.h"

static mk_universe *load(const char *yaml)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load_mem("t.yaml", yaml, strlen(yaml), "node-a", &d);
    ck_assert_msg(u && d.errors == 0, "the universe does not load:\n%s", yaml);
    mk_diags_free(&d);
    return u;
}

static mk_universe *load_file(const char *rel)
{
    const char *src = getenv("MOKKA_SRC");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", src && *src ? src : ".", rel);
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load(path, "node-a", &d);
    ck_assert_msg(u && d.errors == 0, "%s does not load", rel);
    mk_diags_free(&d);
    return u;
}

static const char pcie_pairs[] =
    "version: 1.0\nprofile: h100-pcie-80gb\ncount: 8\n"
    "defaults: {nvlink: {version: 4, links: 12}}\n"
    "topology:\n"
    "  nvlink: [[0, 1, 4], [1, 2, 2], [2, 3, 4], [3, 0, 1], [4, 5, 6], [6, 7, 3], [5, 6, 1],"
    " [0, 4, 1]]\n"
    "  numaNodes: 2\n";

static const char pcie_16[] =
    "version: 1.0\nprofile: a10\ncount: 16\ntopology: {nvlink: none, numaNodes: 2}\n";

/* A request on whole GPUs, by GPU index (the list under "none" is the GPUs
 * in order); -1 ends each list. Returns what mk_pdevs_prefer returned, the
 * answer in out[] as GPU indexes. */
typedef struct ask {
    int avail[20], must[4];
    size_t size;
} ask;

static int prefer(const mk_universe *u, const mk_pdev *devs, size_t ndevs, ask a, size_t *out,
                  char *err, size_t errlen)
{
    size_t av[20], mu[4], na = 0, nm = 0;
    while (a.avail[na] >= 0 && na < 20)
        av[na] = (size_t)a.avail[na], na++;
    while (a.must[nm] >= 0 && nm < 4)
        mu[nm] = (size_t)a.must[nm], nm++;
    err[0] = 0;
    return mk_pdevs_prefer(u, devs, ndevs, av, na, mu, nm, a.size, out, err, errlen);
}

/* The answer as a set of GPU indexes equals want[] (-1 ended). */
static void answers(const mk_universe *u, ask a, const int *want)
{
    mk_pdev *devs;
    size_t ndevs, out[20];
    char err[256];
    ck_assert_int_eq(mk_pdevs_list(u, NULL, &devs, &ndevs, err, sizeof err), 0);
    ck_assert_msg(prefer(u, devs, ndevs, a, out, err, sizeof err) == 0, "%s", err);
    size_t n = 0;
    while (want[n] >= 0)
        n++;
    ck_assert_uint_eq(n, a.size);
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        for (size_t j = 0; j < n; j++)
            found |= devs[out[j]].gpu == (unsigned)want[i];
        ck_assert_msg(found, "GPU %d is not in the answer", want[i]);
    }
    free(devs);
}

/* mk_pdevs_prefer fails saying `why`. */
static void refuses(const mk_universe *u, ask a, const char *why)
{
    mk_pdev *devs;
    size_t ndevs, out[20];
    char err[256];
    ck_assert_int_eq(mk_pdevs_list(u, NULL, &devs, &ndevs, err, sizeof err), 0);
    ck_assert_int_eq(prefer(u, devs, ndevs, a, out, err, sizeof err), -1);
    ck_assert_msg(strstr(err, why) != NULL, "'%s' does not say '%s'", err, why);
    free(devs);
}

#define END (-1)

START_TEST(test_list_under_each_strategy)
{
    mk_universe *u = load_file("fixtures/configs/mig-mixed.yaml");
    mk_pdev *p;
    size_t n;
    char err[256];
    ck_assert_int_eq(mk_pdevs_list(u, NULL, &p, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 2);                     /* none: MIG mode or not, GPUs whole */
    ck_assert_str_eq(p[0].resource, MK_GPU_RESOURCE);
    ck_assert_str_eq(p[0].id, u->dev[0].uuid);
    ck_assert_int_eq(p[0].mig, -1);
    free(p);

    ck_assert_int_eq(mk_pdevs_list(u, "mixed", &p, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 5);                     /* GPU 0's four MIG devices, GPU 1 whole */
    const char *res[] = { "nvidia.com/mig-1g.5gb", "nvidia.com/mig-1g.5gb",
                          "nvidia.com/mig-2g.10gb", "nvidia.com/mig-3g.20gb", MK_GPU_RESOURCE };
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(p[i].resource, res[i]);
    ck_assert_str_eq(p[1].id, u->dev[0].mig[1].uuid);
    ck_assert_uint_eq(p[1].gpu, 0);
    ck_assert_int_eq(p[1].mig, 1);
    ck_assert_uint_eq(p[4].gpu, 1);
    free(p);

    /* the plugin's refusals, in its words */
    ck_assert_int_eq(mk_pdevs_list(u, "single", &p, &n, err, sizeof err), -1);
    ck_assert_str_eq(err, "invalid MIG configuration: more than one MIG device type present "
                          "on node");
    ck_assert_int_eq(mk_pdevs_list(u, "bogus", &p, &n, err, sizeof err), -1);
    ck_assert_str_eq(err, "unknown MIG strategy: bogus");
    mk_universe_free(u);

    u = load("version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndevices:\n"
             "  - {index: 0, mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}}\n");
    ck_assert_int_eq(mk_pdevs_list(u, "single", &p, &n, err, sizeof err), -1);
    ck_assert_str_eq(err, "all devices on the node must be configured with the same "
                          "migEnabled value");
    mk_universe_free(u);

    u = load("version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndevices:\n"
             "  - {index: 0, mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}}\n"
             "  - {index: 1, mig: {mode: enabled}}\n");
    ck_assert_int_eq(mk_pdevs_list(u, "single", &p, &n, err, sizeof err), -1);
    ck_assert_str_eq(err, "invalid MIG configuration: at least one device with migEnabled=true "
                          "was not configured correctly: device 1 has no MIG devices configured");
    /* mixed only warns: the GPU without MIG devices lists nothing */
    ck_assert_int_eq(mk_pdevs_list(u, "mixed", &p, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 2);
    ck_assert_str_eq(p[1].resource, "nvidia.com/mig-3g.20gb");
    free(p);
    mk_universe_free(u);

    /* single with every GPU split alike: the MIG devices as nvidia.com/gpu */
    u = load("version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndefaults:\n"
             "  mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}\n");
    ck_assert_int_eq(mk_pdevs_list(u, "single", &p, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 4);
    ck_assert_str_eq(p[3].resource, MK_GPU_RESOURCE);
    ck_assert_str_eq(p[3].id, u->dev[1].mig[1].uuid);
    free(p);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_nvswitch_boards_place_by_pcie)
{
    /* every link ends at a switch: no NVLink between GPUs for the allocator */
    mk_universe *u = load_file("fixtures/configs/dgx-a100.yaml");
    answers(u, (ask){ { 0, 2, 4, 1, END }, { END }, 2 }, (int[]){ 0, 1, END });
    answers(u, (ask){ { 0, 1, 2, 3, 4, 5, 6, 7, END }, { 2, END }, 2 }, (int[]){ 2, 3, END });
    answers(u, (ask){ { 5, 0, 1, 4, 2, 3, END }, { END }, 4 }, (int[]){ 0, 1, 2, 3, END });
    answers(u, (ask){ { 3, 5, 6, 7, END }, { END }, 2 }, (int[]){ 6, 7, END });
    mk_universe_free(u);
}
END_TEST

START_TEST(test_nvlink_counts_and_order)
{
    mk_universe *u = load(pcie_pairs);
    /* 6 links between 4 and 5 outscore 4 between 0 and 1 */
    answers(u, (ask){ { 0, 1, 2, 3, 4, 5, 6, 7, END }, { END }, 2 }, (int[]){ 4, 5, END });
    answers(u, (ask){ { 0, 1, 2, 3, 4, 5, 6, 7, END }, { 3, END }, 2 }, (int[]){ 2, 3, END });
    answers(u, (ask){ { 7, 6, 5, 4, 3, 2, 1, 0, END }, { END }, 3 }, (int[]){ 5, 4, 0, END });
    /* the answer comes in the request's order */
    mk_pdev *devs;
    size_t ndevs, out[8];
    char err[256];
    ck_assert_int_eq(mk_pdevs_list(u, NULL, &devs, &ndevs, err, sizeof err), 0);
    ck_assert_int_eq(prefer(u, devs, ndevs, (ask){ { 5, 3, 4, END }, { END }, 2 }, out, err,
                            sizeof err), 0);
    ck_assert_uint_eq(out[0], 5);
    ck_assert_uint_eq(out[1], 4);
    /* size 1: the must-include GPU, else the first available */
    ck_assert_int_eq(prefer(u, devs, ndevs, (ask){ { 6, 2, END }, { END }, 1 }, out, err,
                            sizeof err), 0);
    ck_assert_uint_eq(out[0], 6);
    ck_assert_int_eq(prefer(u, devs, ndevs, (ask){ { 6, 2, END }, { 2, END }, 1 }, out, err,
                            sizeof err), 0);
    ck_assert_uint_eq(out[0], 2);
    /* size 0 asks for nothing */
    ck_assert_int_eq(prefer(u, devs, ndevs, (ask){ { 6, 2, END }, { END }, 0 }, out, err,
                            sizeof err), 0);
    free(devs);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_what_it_answers_nothing_to)
{
    mk_universe *u = load(pcie_pairs);
    refuses(u, (ask){ { 0, 1, END }, { END }, 3 }, "answers no devices: 3 asked for, 2 available");
    refuses(u, (ask){ { 0, 1, 2, END }, { 0, 1, END }, 1 }, "answers no devices");
    refuses(u, (ask){ { 0, 1, 2, END }, { 5, END }, 2 }, "GPU 5 is not available");
    refuses(u, (ask){ { 0, 1, 1, END }, { END }, 2 }, "available twice");
    refuses(u, (ask){ { 0, 1, 99, END }, { END }, 2 }, "not among the 8 listed");
    /* the padded set holds 6 and 7 (3 NVLinks) and beats 0, 2, 4: the plugin
     * takes a nil device's UUID and crashes */
    refuses(u, (ask){ { 0, 2, 4, 6, 7, END }, { END }, 3 }, "crashes");
    /* with 6 must-included the padded set cannot be picked; 0 and 4 (one
     * NVLink) fill it, and 2 goes with 6 and 7 */
    answers(u, (ask){ { 0, 2, 4, 6, 7, END }, { 6, END }, 3 }, (int[]){ 2, 6, 7, END });
    mk_universe_free(u);
}
END_TEST

START_TEST(test_shared_append_arrays)
{
    /* Eight sets of 2: the partition the plugin keeps shares its backing
     * array with later branches, so it picks from the last partition under
     * the kept one's first five sets: 10 with 15, not with its PCIe switch
     * partner 11 (as the real plugin does). */
    mk_universe *u = load(pcie_16);
    ask a = { { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, END }, { 10, END }, 2 };
    answers(u, a, (int[]){ 10, 15, END });
    ask b = { { 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, END }, { 0, END }, 2 };
    answers(u, b, (int[]){ 5, 0, END });
    /* seven sets with padding: the set left holding 10 is padded: a crash */
    ask c = { { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, END }, { 10, END }, 2 };
    refuses(u, c, "crashes");
    /* six sets share nothing */
    ask d = { { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, END }, { 10, END }, 2 };
    answers(u, d, (int[]){ 10, 11, END });
    mk_universe_free(u);
}
END_TEST

START_TEST(test_mig_devices_distributed)
{
    mk_universe *u = load("version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndefaults:\n"
                          "  mig: {mode: enabled, instances: [1g.5gb, 1g.5gb, 1g.5gb, 3g.20gb]}\n");
    mk_pdev *p;
    size_t n, out[4];
    char err[256];
    ck_assert_int_eq(mk_pdevs_list(u, "mixed", &p, &n, err, sizeof err), 0);
    ck_assert_uint_eq(n, 8);         /* 0-2, 4-6: mig-1g.5gb; 3, 7: mig-3g.20gb */
    /* must-include first, then candidates in the request's order (one of
     * the plugin's picks: it takes them in a Go map's order) */
    size_t av[] = { 6, 1, 5, 0 }, mu[] = { 5 };
    ck_assert_int_eq(mk_pdevs_prefer(u, p, n, av, 4, mu, 1, 3, out, err, sizeof err), 0);
    ck_assert_uint_eq(out[0], 5);
    ck_assert_uint_eq(out[1], 6);
    ck_assert_uint_eq(out[2], 1);
    /* topology plays no part, nor does a device of another resource */
    size_t av2[] = { 3, 2, 7 };
    ck_assert_int_eq(mk_pdevs_prefer(u, p, n, av2, 3, NULL, 0, 2, out, err, sizeof err), 0);
    ck_assert_uint_eq(out[0], 3);
    ck_assert_uint_eq(out[1], 7);
    ck_assert_int_eq(mk_pdevs_prefer(u, p, n, av2, 3, NULL, 0, 3, out, err, sizeof err), -1);
    ck_assert_str_eq(err, "not enough available devices to satisfy allocation");
    ck_assert_int_eq(mk_pdevs_prefer(u, p, n, av, 4, av, 3, 2, out, err, sizeof err), -1);
    free(p);
    mk_universe_free(u);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("prefer");
    TCase *tc = mk_test_case(s, "prefer", NULL, NULL, 60);
    tcase_add_test(tc, test_list_under_each_strategy);
    tcase_add_test(tc, test_nvswitch_boards_place_by_pcie);
    tcase_add_test(tc, test_nvlink_counts_and_order);
    tcase_add_test(tc, test_what_it_answers_nothing_to);
    tcase_add_test(tc, test_shared_append_arrays);
    tcase_add_test(tc, test_mig_devices_distributed);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
