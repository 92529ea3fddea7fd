/* report-sample.c - runs a suite file through the real engine and writers
 * against an in-memory node view (tests/unit/fake_nodesrc.h), so the
 * end-to-end tests can check the JUnit XML and JSON that CI will read, and
 * lint the shipped suites.
 *
 *   report-sample --lint SUITE...             load only; diagnostics on stderr, exit 2 on errors
 *   report-sample [--nodes N] SUITE JUNIT JSON
 *
 * The view has N nodes (node-1..N) of 8 healthy GPUs GPU-0..7 on
 * nvidia.com/gpu; ${gpus} and ${uuid.I} are set; an injected fault makes
 * its GPU unhealthy 100ms later on every node, "healthy: true" heals it.
 * Exit status: mk_report_exit_code's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../unit/suite/fake_nodesrc.h"
#include "util/util.h"
#include "report/report.h"
#include "suite/suite.h"

static unsigned pending_gpu;
static int pending_healthy;

static void apply(fake *f)
{
    for (size_t n = 0; n < f->view.n; n++)
        if (pending_gpu < f->view.node[n].res[0].ndev)
            fake_set_health(f, n, pending_gpu, pending_healthy);
}

static void on_inject(fake *f, const mk_inject *inj)
{
    pending_gpu = inj->gpu;
    pending_healthy = inj->kind == MK_INJECT_HEALTHY;
    f->change = apply;
    f->change_after_ms = f->waited_ms + 100;
}

static int lint(int argc, char **argv)
{
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        mk_diags d;
        mk_diags_init(&d);
        mk_suite *s = mk_suite_load(argv[i], &d);
        for (size_t j = 0; j < d.n; j++) {
            char line[1024];
            mk_diag_format(&d.v[j], line, sizeof line);
            fprintf(stderr, "%s\n", line);
        }
        bad |= !s;
        mk_suite_free(s);
        mk_diags_free(&d);
    }
    return bad ? MK_EXIT_USAGE : MK_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--lint") == 0)
        return lint(argc - 2, argv + 2);
    int nodes = 1;
    if (argc > 2 && strcmp(argv[1], "--nodes") == 0) {
        nodes = atoi(argv[2]);
        argc -= 2;
        argv += 2;
    }
    if (argc != 4 || nodes < 1) {
        fprintf(stderr, "usage: report-sample [--nodes N] SUITE JUNIT JSON\n"
                        "       report-sample --lint SUITE...\n");
        return MK_EXIT_USAGE;
    }
    mk_diags d;
    mk_diags_init(&d);
    mk_suite *s = mk_suite_load(argv[1], &d);
    if (!s) {
        char line[1024];
        mk_diag_format(mk_diags_first_error(&d), line, sizeof line);
        fprintf(stderr, "%s\n", line);
        mk_diags_free(&d);
        return MK_EXIT_USAGE;
    }

    static fake f;
    fake_init(&f);
    for (int i = 1; i <= nodes; i++) {
        char name[32];
        snprintf(name, sizeof name, "node-%d", i);
        fake_add_node(&f, name, "nvidia.com/gpu", 8);
    }
    static char names[8][16], values[8][16];
    mk_suite_var vars[9] = {{"gpus", "8"}};
    for (int i = 0; i < 8; i++) {
        snprintf(names[i], sizeof names[i], "uuid.%d", i);
        snprintf(values[i], sizeof values[i], "GPU-%d", i);
        vars[i + 1] = (mk_suite_var){names[i], values[i]};
    }
    f.env.vars = vars;
    f.env.nvars = 9;
    f.on_inject = on_inject;
    f.env.progress = mk_suite_progress_stderr;

    mk_report rep;
    mk_report_init(&rep);
    mk_suite_run(s, &f.env, &rep);
    char err[512];
    int rc = mk_report_exit_code(&rep);
    if (mk_report_save(&rep, argv[2], mk_junit_write, err, sizeof err) != 0 ||
        mk_report_save(&rep, argv[3], mk_report_json_write, err, sizeof err) != 0) {
        fprintf(stderr, "report-sample: %s\n", err);
        rc = MK_EXIT_ENV;
    }
    mk_summary_write(&rep, stderr);
    mk_report_free(&rep);
    mk_suite_free(s);
    mk_diags_free(&d);
    fake_free(&f);
    return rc;
}
