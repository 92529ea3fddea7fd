/* test_suite_fleet.c - the fleet expectations: the arithmetic of a fleet
 * (suite_fleet.c: used as the scheduler counts, free per node, partly used,
 * stranded, largest fit, pods by phase and per node, unscheduled pods,
 * selectors), and the runner with `fleet:` (one result per case, every
 * comparison form, failures naming the numbers and the worst nodes,
 * `within:` passing when a pod finishes, capabilities, lint errors). */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "util/util.h"
#include "fake_nodesrc.h"
#include "report/report.h"
#include "suite/suite.h"
#include "suite/suite_fleet.h"
#include "support/testutil.h"

static fake f;
static mk_report rep;
static const mk_suite_var vars[] = {{"n", "1"}};

static void ready(mk_nv_node *n, const char *status)
{
    n->conditions = calloc(1, sizeof *n->conditions);
    n->nconditions = 1;
    n->conditions[0] = (mk_nv_condition){strdup("Ready"), strdup(status), strdup("KubeletReady"),
                                         NULL};
}

static void add_pod(const char *ns, const char *name, const char *node, mk_nv_phase ph,
                    long long gpus)
{
    f.view.pod = realloc(f.view.pod, (f.view.npods + 1) * sizeof *f.view.pod);
    mk_nv_pod *p = &f.view.pod[f.view.npods++];
    memset(p, 0, sizeof *p);
    p->ns = strdup(ns);
    p->name = strdup(name);
    p->node = node ? strdup(node) : NULL;
    p->phase = ph;
    if (gpus) {
        p->req = calloc(1, sizeof *p->req);
        p->nreq = 1;
        p->req[0] = (mk_nv_qty){strdup("nvidia.com/gpu"), gpus};
    }
}

/* n0: 8 GPUs, 3 used by pods (plus a finished pod of 8);
 * n1: 8 GPUs, 8 used by one pod; n2: 8 GPUs, none used, not Ready;
 * n3: 4 of 8 allocatable, 1 used; cpu-0: no GPUs (label pool=cpu);
 * one pod Pending without a node. */
static void setup(void)
{
    fake_init(&f);
    f.env.caps = MK_ENV_NODE_OBJECTS | MK_ENV_PODS;
    f.src.kind = "API server";
    f.view.has_pods = 1;
    f.env.vars = vars;
    f.env.nvars = 1;
    const char *names[] = {"n0", "n1", "n2", "n3"};
    for (int i = 0; i < 4; i++) {
        mk_nv_node *n = fake_add_node(&f, names[i], "nvidia.com/gpu", 8);
        ready(n, i == 2 ? "False" : "True");
        fake_kv(&n->labels, &n->nlabels, "pool", "gpu");
    }
    f.view.node[3].res[0].allocatable = 4;
    mk_nv_node *cpu = fake_add_node(&f, "cpu-0", NULL, 0);
    ready(cpu, "True");
    fake_kv(&cpu->labels, &cpu->nlabels, "pool", "cpu");
    add_pod("a", "p1", "n0", MK_NV_POD_RUNNING, 2);
    add_pod("a", "p2", "n0", MK_NV_POD_PENDING, 1);
    add_pod("a", "done", "n0", MK_NV_POD_SUCCEEDED, 8);
    add_pod("b", "big", "n1", MK_NV_POD_RUNNING, 8);
    add_pod("b", "small", "n3", MK_NV_POD_RUNNING, 1);
    add_pod("b", "cpu-only", "cpu-0", MK_NV_POD_RUNNING, 0);
    add_pod("b", "waits", NULL, MK_NV_POD_PENDING, 16);
    mk_report_init(&rep);
}

static void teardown(void)
{
    mk_report_free(&rep);
    fake_free(&f);
}

/* --- arithmetic ------------------------------------------------------------------ */

START_TEST(test_fleet_numbers)
{
    mk_fsum fl;
    ck_assert_int_eq(mk_fsum_compute(&fl, &f.view, NULL, "nvidia.com/gpu"), 0);
    ck_assert_uint_eq(fl.n, 5);
    ck_assert_str_eq(fl.node[0].node->name, "cpu-0");   /* by name */
    ck_assert_uint_eq(fl.ready, 4);
    ck_assert_uint_eq(fl.advertising, 4);
    ck_assert_int_eq(fl.allocatable, 28);
    ck_assert_int_eq(fl.used, 12);            /* 2 + 1 (pending counts) + 8 + 1; done does not */
    ck_assert_int_eq(fl.free, 5 + 0 + 8 + 3);
    ck_assert_uint_eq(fl.partly_used, 2);     /* n0 3/8, n3 1/4 */
    ck_assert_int_eq(fl.largest_fit, 8);
    ck_assert_int_eq(mk_fsum_stranded(&fl, 8), 5 + 3);
    ck_assert_int_eq(mk_fsum_stranded(&fl, 4), 3);
    ck_assert_int_eq(mk_fsum_stranded(&fl, 1), 0);
    ck_assert_uint_eq(fl.placed, 6);
    ck_assert_uint_eq(fl.phase[MK_NV_POD_RUNNING], 4);
    ck_assert_uint_eq(fl.phase[MK_NV_POD_PENDING], 1);
    ck_assert_uint_eq(fl.phase[MK_NV_POD_SUCCEEDED], 1);
    ck_assert_uint_eq(fl.pods_min, 0);        /* n2 */
    ck_assert_uint_eq(fl.pods_max, 2);        /* n0: done does not count */
    long long n0 = mk_fsum_find(&fl, "n0");
    ck_assert_int_eq(fl.node[n0].used, 3);
    ck_assert_int_eq(fl.node[n0].free, 5);
    ck_assert_int_eq(mk_fsum_find(&fl, "nope"), -1);
    mk_fsum_free(&fl);

    /* overcommitted (allocatable fell under what is bound): free is 0, not negative */
    f.view.node[1].res[0].allocatable = 6;
    ck_assert_int_eq(mk_fsum_compute(&fl, &f.view, NULL, "nvidia.com/gpu"), 0);
    ck_assert_int_eq(fl.node[mk_fsum_find(&fl, "n1")].free, 0);
    ck_assert_int_eq(fl.free, 16);
    mk_fsum_free(&fl);
}
END_TEST

START_TEST(test_fleet_selector_and_unscheduled)
{
    mk_ksel sel = {0};
    char err[128];
    ck_assert_int_eq(mk_ksel_parse("pool=gpu", &sel, err, sizeof err), 0);
    mk_fsum fl;
    ck_assert_int_eq(mk_fsum_compute(&fl, &f.view, &sel, "nvidia.com/gpu"), 0);
    ck_assert_uint_eq(fl.n, 4);
    ck_assert_uint_eq(fl.placed, 5);          /* not cpu-only on cpu-0 */
    mk_fsum_free(&fl);
    mk_ksel_free(&sel);

    const mk_nv_pod *waits = &f.view.pod[6];
    ck_assert(mk_fsum_pod_unscheduled(waits, NULL, NULL));
    ck_assert(mk_fsum_pod_unscheduled(waits, "b", NULL));
    ck_assert(!mk_fsum_pod_unscheduled(waits, "a", NULL));
    ck_assert(!mk_fsum_pod_unscheduled(&f.view.pod[1], NULL, NULL));   /* pending, bound */
    ck_assert_int_eq(mk_ksel_parse("app=x", &sel, err, sizeof err), 0);
    ck_assert(!mk_fsum_pod_unscheduled(waits, NULL, &sel));
    mk_ksel_free(&sel);
}
END_TEST

/* --- the runner ------------------------------------------------------------------- */

static int run(const char *yaml)
{
    mk_diags d;
    mk_diags_init(&d);
    mk_suite *s = mk_suite_load_mem("t.yaml", yaml, strlen(yaml), &d);
    if (!s) {
        char line[512];
        mk_diag_format(mk_diags_first_error(&d), line, sizeof line);
        ck_abort_msg("suite does not load: %s", line);
    }
    int rc = mk_suite_run(s, &f.env, &rep);
    mk_suite_free(s);
    mk_diags_free(&d);
    return rc;
}

static const mk_rcase *result(size_t i)
{
    ck_assert_uint_gt(rep.suites[0]->n, i);
    return rep.suites[0]->cases[i];
}

START_TEST(test_fleet_case_passes_once)
{
    ck_assert_int_eq(run("cases:\n"
                         "  - name: fleet\n"
                         "    expect:\n"
                         "      fleet:\n"
                         "        nodes: 5\n"
                         "        ready: \">=4\"\n"
                         "        advertising: 4\n"
                         "        allocatable: 28\n"
                         "        used: 12\n"
                         "        free: \"<20\"\n"
                         "        partly-used: \"!=0\"\n"
                         "        stranded: [{request: 8, count: 8}, {request: 4, count: 3}]\n"
                         "        largest-fit: \">=8\"\n"
                         "        pods: {running: 4, pending: 1, succeeded: 1, failed: 0, all: 6}\n"
                         "        pods-per-node: {min: 0, max: \"<=2\"}\n"
                         "        unscheduled: {count: 1, namespace: b}\n"
                         "  - name: the gpu pool\n"
                         "    expect:\n"
                         "      fleet: {selector: {pool: gpu}, nodes: 4, pods: 5}\n"
                         "  - name: by count alone\n"
                         "    expect: {fleet: {pods: 6, unscheduled: \"${n}\"}}\n"), MK_EXIT_OK);
    ck_assert_uint_eq(rep.suites[0]->n, 3);   /* one result per case, not per node */
    ck_assert_str_eq(result(0)->node, "fleet");
}
END_TEST

START_TEST(test_fleet_failure_names_the_worst_nodes)
{
    ck_assert_int_eq(run("cases:\n"
                         "  - name: packed\n"
                         "    expect:\n"
                         "      fleet: {partly-used: 0, ready: 4, pods-per-node: {max: 1}}\n"),
                     MK_EXIT_FAIL);
    const mk_rcase *r = result(0);
    ck_assert_str_eq(r->message, "fleet: 2 nodes partly used (nvidia.com/gpu), expected 0 "
                     "(5 nodes) (and 1 more)");
    ck_assert_ptr_nonnull(strstr(r->detail, "the worst nodes:\n    n0: 3 of 8 used\n    n3: 1 of 4 used"));
    ck_assert_ptr_nonnull(strstr(r->detail, "actual:   the most pods on a node: 2"));
    ck_assert_ptr_nonnull(strstr(r->detail, "n0: 2 pods"));
    ck_assert_ptr_nonnull(strstr(r->detail, "fleet: 5 nodes (4 Ready), nvidia.com/gpu 28 "
                                            "allocatable, 12 used, 16 free"));
    mk_report_free(&rep);

    ck_assert_int_eq(run("cases:\n  - name: r\n    expect: {fleet: {ready: 5}}\n"), MK_EXIT_FAIL);
    ck_assert_ptr_nonnull(strstr(result(0)->detail, "n2: Ready False KubeletReady"));
    mk_report_free(&rep);

    ck_assert_int_eq(run("cases:\n  - name: u\n    expect: {fleet: {unscheduled: 0}}\n"),
                     MK_EXIT_FAIL);
    ck_assert_str_eq(result(0)->message, "fleet: 1 pod not scheduled, expected 0 (5 nodes)");
    ck_assert_ptr_nonnull(strstr(result(0)->detail, "b/waits: not scheduled yet"));
    mk_report_free(&rep);

    ck_assert_int_eq(run("cases:\n  - name: s\n    expect: {fleet: {largest-fit: \">=9\"}}\n"),
                     MK_EXIT_FAIL);
    ck_assert_str_eq(result(0)->message, "fleet: 8 the largest request of nvidia.com/gpu that "
                     "fits, expected >= 9 (5 nodes)");
    ck_assert_ptr_nonnull(strstr(result(0)->detail, "n2: 8 of 8 free"));
}
END_TEST

static void finish_big(fake *fk)
{
    fk->view.pod[3].phase = MK_NV_POD_SUCCEEDED;
}

START_TEST(test_fleet_within_passes_when_a_pod_finishes)
{
    f.change = finish_big;
    f.change_after_ms = 300;
    ck_assert_int_eq(run("cases:\n"
                         "  - name: n1 frees up\n"
                         "    within: 5s\n"
                         "    expect: {fleet: {used: 4, partly-used: 2, pods: {succeeded: 2}}}\n"),
                     MK_EXIT_OK);
    ck_assert_int_eq(result(0)->status, MK_ST_PASS);
    ck_assert_int_ge(f.snapshots, 2);
}
END_TEST

/* A MIG resource is one more resource: its own allocatable, requests, free. */
START_TEST(test_fleet_mig_resource)
{
    mk_nv_node *n0 = &f.view.node[0];
    n0->res = realloc(n0->res, 2 * sizeof *n0->res);
    memset(&n0->res[1], 0, sizeof n0->res[1]);
    n0->res[1].name = strdup("nvidia.com/mig-1g.5gb");
    n0->res[1].capacity = n0->res[1].allocatable = 7;
    n0->nres = 2;
    add_pod("c", "mig", "n0", MK_NV_POD_RUNNING, 0);
    mk_nv_pod *p = &f.view.pod[f.view.npods - 1];
    p->req = calloc(1, sizeof *p->req);
    p->nreq = 1;
    p->req[0] = (mk_nv_qty){strdup("nvidia.com/mig-1g.5gb"), 2};
    ck_assert_int_eq(run("cases:\n"
                         "  - name: mig\n"
                         "    expect:\n"
                         "      resource: nvidia.com/mig-1g.5gb\n"
                         "      fleet: {advertising: 1, allocatable: 7, used: 2, free: 5,\n"
                         "              partly-used: 1, largest-fit: 5, stranded: {request: 6, count: 5}}\n"),
                     MK_EXIT_OK);
}
END_TEST

START_TEST(test_fleet_needs_pods)
{
    f.env.caps = MK_ENV_DEVICE_LIST;
    f.src.kind = "built-in kubelet";
    run("cases:\n  - name: f\n    expect: {fleet: {nodes: 1}}\n");
    ck_assert_int_eq(result(0)->status, MK_ST_ERROR);
    ck_assert_str_eq(result(0)->message, "fleet needs the Node object from the API server, which "
                     "the built-in kubelet does not have (check it with mokka assert)");
    mk_report_free(&rep);

    f.env.caps = MK_ENV_NODE_OBJECTS;
    f.src.kind = "API server";
    run("cases:\n  - name: f\n    expect: {fleet: {nodes: 1}}\n");
    ck_assert_str_eq(result(0)->message, "fleet needs the Nodes and Pods of the API server, which "
                     "the API server does not have (check it with mokka assert)");
}
END_TEST

static const char *lint(const char *yaml)
{
    static char line[512];
    mk_diags d;
    mk_diags_init(&d);
    mk_suite *s = mk_suite_load_mem("t.yaml", yaml, strlen(yaml), &d);
    ck_assert_ptr_null(s);
    mk_diag_format(mk_diags_first_error(&d), line, sizeof line);
    mk_diags_free(&d);
    return line;
}

START_TEST(test_fleet_lint)
{
    ck_assert_str_eq(lint("cases:\n  - name: m\n    expect: {capacity: 8, fleet: {nodes: 1}}\n"),
                     "t.yaml:3:14: error: capacity is checked on each node and fleet on all of "
                     "them at once: put them in cases of their own");
    ck_assert_str_eq(lint("cases:\n  - name: m\n    expect: {fleet: {selector: {pool: a}}}\n"),
                     "t.yaml:3:21: error: fleet names no number to check (such as nodes, ready, "
                     "used, free, partly-used, pods or unscheduled)");
    ck_assert_ptr_nonnull(strstr(lint("cases:\n  - name: m\n    expect: {fleet: {stranded: {count: 1}}}\n"),
                                 "fleet stranded needs request"));
    ck_assert_ptr_nonnull(strstr(lint("cases:\n  - name: m\n    expect: {fleet: {pods: {runing: 1}}}\n"),
                                 "runing"));
    ck_assert_ptr_nonnull(strstr(lint("cases:\n  - name: m\n    expect: {fleet: {used: lots}}\n"),
                                 "fleet used must be a count or a comparison"));
    ck_assert_ptr_nonnull(strstr(lint("cases:\n  - name: m\n    expect: {fleet: {selector: \"a in (\", nodes: 1}}\n"),
                                 "fleet selector 'a in ('"));
    ck_assert_ptr_nonnull(strstr(lint("cases:\n  - name: m\n    expect: {fleet: {pods-per-node: {}}}\n"),
                                 "needs min or max"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("suite_fleet");
    TCase *tc = tcase_create("fleet");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, test_fleet_numbers);
    tcase_add_test(tc, test_fleet_selector_and_unscheduled);
    tcase_add_test(tc, test_fleet_case_passes_once);
    tcase_add_test(tc, test_fleet_failure_names_the_worst_nodes);
    tcase_add_test(tc, test_fleet_within_passes_when_a_pod_finishes);
    tcase_add_test(tc, test_fleet_mig_resource);
    tcase_add_test(tc, test_fleet_needs_pods);
    tcase_add_test(tc, test_fleet_lint);
    suite_add_tcase(s, tc);
    return mk_test_run(s);
}
