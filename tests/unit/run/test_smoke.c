/* test_smoke.c - the default suite of `mokka run` (src/run/smoke.c) fits
 * the universe and the plugin's MIG strategy: whole GPUs give
 * fixtures/suites/smoke.yaml's cases; MIG under mixed and single gives the
 * resources NVIDIA's plugin advertises, and a universe it refuses (single
 * with two MIG profiles) one case saying so; GPUs with health rules are not
 * expected healthy nor injected into; every suite it writes loads clean.
 * Also the plugin's MIG strategy read from its flags and --env. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "support/testutil.h"
#include "run/run.h"

static const char *src_dir(void)
{
    const char *s = getenv("MOKKA_SRC");
    return s && *s ? s : ".";
}

static mk_universe *load(const char *rel)
{
    char path[4096];
    mk_diags d;
    mk_diags_init(&d);
    if (rel)
        snprintf(path, sizeof path, "%s/%s", src_dir(), rel);
    mk_universe *u = mk_universe_load(rel ? path : NULL, "node-a", &d);
    ck_assert_msg(u && d.errors == 0, "%s does not load", rel ? rel : "the built-in universe");
    mk_diags_free(&d);
    return u;
}

static mk_universe *load_mem(const char *yaml)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_universe *u = mk_universe_load_mem("t.yaml", yaml, strlen(yaml), "node-a", &d);
    ck_assert(u && d.errors == 0);
    mk_diags_free(&d);
    return u;
}

/* The suite for u under strategy; it must load without a diagnostic. */
static char *smoke(const mk_universe *u, const char *strategy)
{
    char *text = mk_smoke_suite(u, strategy);
    ck_assert_ptr_nonnull(text);
    mk_diags d;
    mk_diags_init(&d);
    mk_suite *s = mk_suite_load_mem("smoke.yaml", text, strlen(text), &d);
    ck_assert_msg(s && d.n == 0, "the suite does not load clean:\n%s", text);
    ck_assert_uint_ge(mk_suite_ncases(s), 1);
    mk_suite_free(s);
    mk_diags_free(&d);
    return text;
}

#define ck_assert_has(text, part) \
    ck_assert_msg(strstr((text), (part)) != NULL, "no\n%s\nin\n%s", (part), (text))
#define ck_assert_lacks(text, part) \
    ck_assert_msg(strstr((text), (part)) == NULL, "\n%s\nin\n%s", (part), (text))

START_TEST(test_whole_gpus_are_smoke_yaml)
{
    char path[4096], want[8192];
    snprintf(path, sizeof path, "%s/fixtures/suites/smoke.yaml", src_dir());
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = 0;
    char line[512];
    while (fgets(line, sizeof line, f))        /* the file less its comment */
        if (line[0] != '#')
            n += (size_t)snprintf(want + n, sizeof want - n, "%s", line);
    fclose(f);

    const char *configs[] = { NULL, "fixtures/configs/dgx-a100.yaml", "fixtures/configs/seed.yaml",
                              "fixtures/configs/mig-mixed.yaml" };
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        mk_universe *u = load(configs[i]);
        /* none (the plugin's default) advertises MIG-enabled GPUs whole */
        char *text = smoke(u, i == 3 ? "none" : NULL);
        ck_assert_str_eq(text, want);
        free(text);
        mk_universe_free(u);
    }
}
END_TEST

START_TEST(test_mig_mixed)
{
    mk_universe *u = load("fixtures/configs/mig-mixed.yaml");
    char *text = smoke(u, "mixed");
    ck_assert_has(text, "  - name: every GPU and MIG device registered and healthy\n"
                        "    expect:\n"
                        "      - resource: nvidia.com/gpu\n"
                        "        capacity: 1\n"
                        "        allocatable: 1\n"
                        "        devices: 1\n"
                        "        unhealthy-count: 0\n"
                        "      - resource: nvidia.com/mig-1g.5gb\n"
                        "        capacity: 2\n"
                        "        allocatable: 2\n"
                        "        devices: 2\n"
                        "        unhealthy-count: 0\n"
                        "      - resource: nvidia.com/mig-2g.10gb\n"
                        "        capacity: 1\n");
    ck_assert_has(text, "      - resource: nvidia.com/mig-3g.20gb\n"
                        "        capacity: 1\n");
    /* the whole GPU 1 is the one an XID takes out, exactly */
    ck_assert_has(text, "  - name: XID 79 on GPU 1 takes exactly that GPU out\n"
                        "    inject: {gpu: 1, xid: 79}\n"
                        "    expect:\n"
                        "      - resource: nvidia.com/gpu\n"
                        "        allocatable: 0\n"
                        "        unhealthy: [\"${uuid.1}\"]\n"
                        "        unhealthy-count: 1\n"
                        "      - resource: nvidia.com/mig-1g.5gb\n"
                        "        allocatable: 2\n"
                        "        unhealthy-count: 0\n");
    ck_assert_lacks(text, "${gpus}");
    free(text);
    mk_universe_free(u);
}
END_TEST

static const char mig_single[] =
    "version: 1.0\n"
    "profile: a100-sxm4-40gb\n"
    "count: 2\n"
    "devices:\n"
    "  - index: 0\n"
    "    mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}\n"
    "  - index: 1\n"
    "    mig: {mode: enabled, instances: [3g.20gb, 3g.20gb]}\n";

START_TEST(test_mig_single_and_all_mig_mixed)
{
    mk_universe *u = load_mem(mig_single);
    char healthy[512];
    snprintf(healthy, sizeof healthy, "healthy: [\"%s\", \"%s\"]\n", u->dev[1].mig[0].uuid,
             u->dev[1].mig[1].uuid);

    char *text = smoke(u, "single");   /* the MIG devices as nvidia.com/gpu */
    ck_assert_has(text, "      resource: nvidia.com/gpu\n"
                        "      capacity: 4\n"
                        "      allocatable: 4\n");
    ck_assert_has(text, "  - name: allocating one GPU sets NVIDIA_VISIBLE_DEVICES to it\n");
    /* of GPU 0's devices at least one goes (NVIDIA's plugin tracks one per
     * parent); GPU 1's all stay */
    ck_assert_has(text, "  - name: XID 79 on GPU 0 takes out MIG devices of that GPU only\n"
                        "    inject: {gpu: 0, xid: 79}\n"
                        "    expect:\n"
                        "      unhealthy-count: \">=1\"\n");
    ck_assert_has(text, healthy);
    free(text);

    text = smoke(u, "mixed");
    ck_assert_has(text, "      resource: nvidia.com/mig-3g.20gb\n"
                        "      capacity: 4\n");
    ck_assert_has(text, "  - name: allocating one device of nvidia.com/mig-3g.20gb sets "
                        "NVIDIA_VISIBLE_DEVICES to it\n"
                        "    expect:\n"
                        "      resource: nvidia.com/mig-3g.20gb\n");
    ck_assert_lacks(text, "nvidia.com/gpu");
    ck_assert_has(text, healthy);
    free(text);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_refused_universe)
{
    /* two MIG profiles: NVIDIA's plugin exits under single, saying why */
    mk_universe *u = load("fixtures/configs/mig-mixed.yaml");
    char *text = smoke(u, "single");
    ck_assert_has(text, "  - name: \"NVIDIA's plugin serves nothing under MIG strategy single "
                        "here: invalid MIG configuration: more than one MIG device type present "
                        "on node\"\n"
                        "    expect:\n"
                        "      resource: nvidia.com/gpu\n"
                        "      capacity: 0\n");
    ck_assert_lacks(text, "inject");
    free(text);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_health_rules_are_left_out)
{
    /* GPUs 3, 5 and 6 turn unhealthy on their own */
    mk_universe *u = load("fixtures/configs/faults.yaml");
    char *text = smoke(u, NULL);
    ck_assert_has(text, "  - name: every GPU registered and those without health rules healthy\n"
                        "    expect:\n"
                        "      resource: nvidia.com/gpu\n"
                        "      capacity: ${gpus}\n"
                        "      devices: ${gpus}\n"
                        "      healthy: [\"${uuid.0}\", \"${uuid.1}\", \"${uuid.2}\", \"${uuid.4}\", "
                        "\"${uuid.7}\"]\n"
                        "    within: 30s\n");
    ck_assert_has(text, "    inject: {gpu: 0, xid: 79}\n"
                        "    expect:\n"
                        "      unhealthy: [\"${uuid.0}\"]\n"
                        "      healthy: [\"${uuid.1}\", \"${uuid.2}\", \"${uuid.4}\", \"${uuid.7}\"]\n");
    ck_assert_lacks(text, "unhealthy-count");
    ck_assert_lacks(text, "allocatable");
    free(text);
    mk_universe_free(u);

    /* the first GPU without rules is the one injected into; with none, no inject */
    u = load_mem("version: 1.0\ncount: 2\ndevices:\n"
                 "  - index: 0\n    unhealthy_on_temperature: 80\n");
    text = smoke(u, NULL);
    ck_assert_has(text, "    inject: {gpu: 1, xid: 79}\n");
    free(text);
    mk_universe_free(u);
    /* MIG devices of a GPU with rules, beside a whole GPU: only counted */
    u = load_mem("version: 1.0\nprofile: a100-sxm4-40gb\ncount: 2\ndevices:\n"
                 "  - index: 0\n    mig: {mode: enabled, instances: [7g.40gb]}\n"
                 "    unhealthy_on_temperature: 80\n");
    text = smoke(u, "mixed");
    ck_assert_has(text, "      - resource: nvidia.com/mig-7g.40gb\n"
                        "        capacity: 1\n"
                        "        devices: 1\n"
                        "    within: 30s\n");
    ck_assert_has(text, "    inject: {gpu: 1, xid: 79}\n"
                        "    expect:\n"
                        "      - resource: nvidia.com/gpu\n"
                        "        allocatable: 0\n"
                        "        unhealthy: [\"${uuid.1}\"]\n"
                        "        unhealthy-count: 1\n"
                        "    within: 30s\n");
    free(text);
    mk_universe_free(u);
    u = load_mem("version: 1.0\ncount: 1\ndevices:\n  - index: 0\n    unhealthy_after_seconds: 5\n");
    text = smoke(u, NULL);
    ck_assert_lacks(text, "inject");
    ck_assert_lacks(text, "healthy:");
    free(text);
    mk_universe_free(u);
}
END_TEST

START_TEST(test_every_config_and_strategy_loads)
{
    const char *configs[] = { "dgx-a100", "faults", "hgx-h100", "mig-mixed", "seed" };
    const char *strategies[] = { NULL, "none", "single", "mixed", "bogus" };
    for (size_t i = 0; i < sizeof configs / sizeof *configs; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "fixtures/configs/%s.yaml", configs[i]);
        mk_universe *u = load(rel);
        for (size_t j = 0; j < sizeof strategies / sizeof *strategies; j++)
            free(smoke(u, strategies[j]));
        mk_universe_free(u);
    }
}
END_TEST

START_TEST(test_mig_strategy_from_flags_and_env)
{
    char *flag_eq[] = { "nvidia-device-plugin", "--mig-strategy=mixed" };
    char *flag_sep[] = { "--fail-on-init-error=false", "--mig-strategy", "single" };
    char *flag_last[] = { "--mig-strategy" };
    char *env[] = { "A=1", "MIG_STRATEGY=single", NULL };
    char *no_env[] = { "MIG_STRATEGYX=1", NULL };
    ck_assert_str_eq(mk_plugin_mig_strategy(flag_eq, 2, NULL), "mixed");
    ck_assert_str_eq(mk_plugin_mig_strategy(flag_sep, 3, NULL), "single");
    ck_assert_ptr_null(mk_plugin_mig_strategy(flag_last, 1, NULL));
    ck_assert_str_eq(mk_plugin_mig_strategy(NULL, 0, env), "single");
    ck_assert_str_eq(mk_plugin_mig_strategy(flag_eq, 2, env), "mixed");   /* the flag wins */
    ck_assert_ptr_null(mk_plugin_mig_strategy(NULL, 0, no_env));
    ck_assert_ptr_null(mk_plugin_mig_strategy(NULL, 0, NULL));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("smoke");
    TCase *tc = mk_test_case(s, "smoke", NULL, NULL, 30);
    tcase_add_test(tc, test_whole_gpus_are_smoke_yaml);
    tcase_add_test(tc, test_mig_mixed);
    tcase_add_test(tc, test_mig_single_and_all_mig_mixed);
    tcase_add_test(tc, test_refused_universe);
    tcase_add_test(tc, test_health_rules_are_left_out);
    tcase_add_test(tc, test_every_config_and_strategy_loads);
    tcase_add_test(tc, test_mig_strategy_from_flags_and_env);
    return s;
}

int main(void)
{
    return mk_test_run(suite());
}
