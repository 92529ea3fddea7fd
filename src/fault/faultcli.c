/* faultcli.c - `mokka inject --cluster`: creates a GPUFault (and waits for
 * the agents to apply it), deletes GPUFaults (and waits for them to be
 * cleared), and lists them with how far each got. Every refusal of the API
 * server is told with the object at fault and what to do. */
#include <stdlib.h>
#include <string.h>
#include "faultapi.h"
#include "faultcli.h"
#include "faultconn.h"
#include "faultlist.h"
#include "faulttally.h"
#include "faultwait.h"
#include "report/report.h"
#include "util/util.h"

/* --- describing a fault --------------------------------------------------------- */

/* "3", "0,2", "all", "GPU-abc". */
static void gpus_text(const mk_gfault *f, mk_sb *b)
{
    if (f->all_gpus) {
        mk_sb_puts(b, "all");
        return;
    }
    for (size_t i = 0; i < f->nindexes; i++)
        mk_sb_printf(b, "%s%ld", i ? "," : "", f->indexes[i]);
    for (size_t i = 0; i < f->nuuids; i++)
        mk_sb_printf(b, "%s%s", i || f->nindexes ? "," : "", f->uuids[i]);
}

/* "gpu-1,gpu-2 with pool=a", "pool=a", "all". */
static void nodes_text(const mk_gfault *f, mk_sb *b)
{
    char *sel = f->has_selector ? mk_ksel_to_string(&f->sel) : NULL;
    for (size_t i = 0; i < f->nnames; i++)
        mk_sb_printf(b, "%s%s", i ? "," : "", f->names[i]);
    if (sel && *sel)
        mk_sb_printf(b, "%s%s", f->nnames ? " with " : "", sel);
    else if (!f->nnames)
        mk_sb_puts(b, "all");
    free(sel);
}

/* "xid 79 on GPU 3 of nodes pool=a". */
static void fault_sentence(const mk_gfault *f, mk_sb *b)
{
    char what[512];
    mk_sb gpus = MK_SB_INIT, nodes = MK_SB_INIT;
    mk_gfault_describe(f, what, sizeof what);
    gpus_text(f, &gpus);
    nodes_text(f, &nodes);
    int many = f->nindexes + f->nuuids > 1;
    mk_sb_printf(b, "%s on %s%s of %s%s", what, f->all_gpus ? "all GPUs" : many ? "GPUs " : "GPU ",
                 f->all_gpus ? "" : mk_sb_str(&gpus),
                 strcmp(mk_sb_str(&nodes), "all") == 0 ? "every node" :
                 f->nnames == 1 && !f->has_selector ? "node " : "nodes ",
                 strcmp(mk_sb_str(&nodes), "all") == 0 ? "" : mk_sb_str(&nodes));
    mk_sb_free(&gpus);
    mk_sb_free(&nodes);
}

/* --- wait ---------------------------------------------------------------------- */

/* Under --wait, the whole command (its requests as well as the wait on the
 * reports) takes no longer than the wait: a silent API server is reported
 * when the wait is over, not after each request's own 30 s. */
static void wait_budget(mk_gfconn *c, long long wait_ms)
{
    char d[32], what[48];
    mk_duration_format(wait_ms, d, sizeof d);
    snprintf(what, sizeof what, "--wait %s", d);
    mk_gfconn_budget(c, wait_ms, what);
}

static int outcome_code(mk_gfw_outcome o)
{
    return o == MK_GFW_DONE ? MK_EXIT_OK : o == MK_GFW_REJECTED ? MK_EXIT_USAGE : MK_EXIT_ENV;
}

/* Follows the reports for f (created or deleted at start_ms). */
static int wait_for(mk_gfconn *c, const mk_gfault *f, int clear, long long start_ms,
                    long long limit_ms)
{
    char err[2048];
    char **names = NULL;
    size_t n = 0;
    if (!clear && mk_gfconn_selected(c, f, &names, &n, err, sizeof err)) {
        mk_err("inject", "GPUFault %s: %s", f->name, err);
        return MK_EXIT_ENV;
    }
    mk_gfwait *w = mk_gfwait_start(&c->target, &c->log, mk_gfconn_deadline(c), err, sizeof err);
    if (!w) {
        mk_gfconn_timed_out(c, err, sizeof err);
        mk_err("inject", "GPUFault %s: cannot follow the GPUFaultReports: %s", f->name, err);
        mk_gfl_names_free(names, n);
        return MK_EXIT_ENV;
    }
    mk_gfwait_req r = { .name = f->name, .uid = f->uid, .nodes = (const char *const *)names,
                        .nnodes = n, .clear = clear, .start_ms = start_ms, .limit_ms = limit_ms,
                        .cancel = &mk_cancel, .progress = 1 };
    mk_sb msg = MK_SB_INIT;
    mk_cancel_start((double)limit_ms / 1000 + 60);
    mk_gfw_outcome o = mk_gfwait_run(w, &r, &msg);
    mk_cancel_stop();
    if (o == MK_GFW_DONE)
        printf("%s\n", mk_sb_str(&msg));
    else
        mk_err("inject", "%s", mk_sb_str(&msg));
    mk_sb_free(&msg);
    mk_gfwait_free(w);
    mk_gfl_names_free(names, n);
    return outcome_code(o);
}

/* --- create ----------------------------------------------------------------------- */

/* POSTs body, the object built from o (before any request, so that bad
 * arguments are usage errors whatever the cluster). */
static int create(mk_gfconn *c, const mk_gfcli *o, const json_t *body)
{
    char err[2048], what[600];
    const char *gen = json_string_value(json_object_get(json_object_get(body, "metadata"),
                                                        "generateName"));
    snprintf(what, sizeof what, "GPUFault %s%s", o->req.name ? o->req.name : gen,
             o->req.name ? "" : "...");
    long long t0 = mk_now_ms();
    mk_gfault f;
    if (o->wait_ms)
        wait_budget(c, o->wait_ms);
    int rc = mk_gfconn_create(c, body, what, &f, err, sizeof err);
    if (rc) {
        mk_err("inject", "%s", err);
        return rc;
    }
    mk_sb s = MK_SB_INIT;
    fault_sentence(&f, &s);
    printf("GPUFault %s created: %s (resourceVersion %s)\n", f.name ? f.name : "?", mk_sb_str(&s),
           f.rv ? f.rv : "?");
    fflush(stdout);
    mk_sb_free(&s);
    rc = o->wait_ms ? wait_for(c, &f, 0, t0, o->wait_ms) : 0;
    mk_gfault_free(&f);
    return rc;
}

/* --- clear ------------------------------------------------------------------------ */

static int clear_one(mk_gfconn *c, const char *name, long long wait_ms)
{
    char err[2048];
    mk_gfault f;
    long long t0 = mk_now_ms();
    if (wait_ms)
        wait_budget(c, wait_ms);
    /* The uid first: the reports name the fault by it. */
    int rc = mk_gfconn_get(c, name, &f, err, sizeof err);
    if (rc) {
        mk_err("inject", "%s", err);
        return rc;
    }
    if ((rc = mk_gfconn_delete(c, name, err, sizeof err)) != 0) {
        mk_err("inject", "%s", err);
    } else {
        printf("GPUFault %s deleted\n", name);
        fflush(stdout);
        rc = wait_ms ? wait_for(c, &f, 1, t0, wait_ms) : 0;
    }
    mk_gfault_free(&f);
    return rc;
}

static int clear(mk_gfconn *c, const mk_gfcli *o)
{
    int worst = 0;
    for (size_t i = 0; i < o->nclear; i++) {
        int rc = clear_one(c, o->clear[i], o->wait_ms);
        if (rc > worst)
            worst = rc;
    }
    return worst;
}

/* --- list ------------------------------------------------------------------------- */

/* The three LISTs of --list together (GPUFaults, reports, nodes). */
#define LIST_MS 30000
#define LIST_WHAT "30 s"

typedef struct row {
    char *cell[7];
} row;

static const char *const headers[7] = {"NAME", "FAULT", "GPUS", "NODES", "APPLIED", "EXPIRES",
                                       "AGE"};

static void age_text(long long ms, char *buf, size_t len)
{
    mk_duration_format(ms < 0 ? 0 : ms / 1000 * 1000, buf, len);
}

/* One that cannot be read is listed as invalid, with why. */
static void put_fault(void *ctx, json_t *obj, const char *bad)
{
    if (bad)
        json_array_append_new(ctx, mk_gfault_unreadable(obj, bad));
    else
        json_array_append(ctx, obj);
}

/* One fault's cells and, for JSON, its object. */
static void fill_row(const mk_gfault *f, const mk_gfl_nodes *ns, const json_t *reports,
                     long long now, row *r, json_t *js)
{
    char what[512], t[64];
    char **names;
    size_t n;
    mk_gft tally;
    mk_sb gpus = MK_SB_INIT, nodes = MK_SB_INIT, applied = MK_SB_INIT;
    mk_gfault_describe(f, what, sizeof what);
    gpus_text(f, &gpus);
    nodes_text(f, &nodes);
    mk_gfl_selected(ns, f, &names, &n);
    mk_gft_count((const char *const *)names, n, reports, f->uid, &tally, NULL);
    mk_gfl_names_free(names, n);
    mk_sb_printf(&applied, "%zu/%zu", tally.applied, tally.counted);
    if (tally.rejected)
        mk_sb_printf(&applied, " (%zu rejected)", tally.rejected);
    if (!f->expires_ms)
        snprintf(t, sizeof t, "-");
    else if (f->expires_ms <= now)
        snprintf(t, sizeof t, "expired");
    else {
        char d[32];
        age_text(f->expires_ms - now, d, sizeof d);
        snprintf(t, sizeof t, "in %s", d);
    }
    char age[32] = "-";
    if (f->created_ms)
        age_text(now - f->created_ms, age, sizeof age);
    r->cell[0] = mk_xstrdup(f->name ? f->name : "?");
    r->cell[1] = mk_xstrdup(what);
    r->cell[2] = mk_sb_take(&gpus);
    r->cell[3] = mk_sb_take(&nodes);
    r->cell[4] = mk_sb_take(&applied);
    r->cell[5] = mk_xstrdup(t);
    r->cell[6] = mk_xstrdup(age);
    for (int i = 2; i <= 4; i++)
        if (!r->cell[i])
            r->cell[i] = mk_xstrdup("");
    json_object_set_new(js, "name", json_string(r->cell[0]));
    json_object_set_new(js, "fault", json_string(r->cell[1]));
    json_object_set_new(js, "gpus", json_string(r->cell[2]));
    json_object_set_new(js, "nodes", json_string(r->cell[3]));
    json_object_set_new(js, "selected", json_integer((json_int_t)tally.selected));
    json_object_set_new(js, "agents", json_integer((json_int_t)tally.counted));
    json_object_set_new(js, "applied", json_integer((json_int_t)tally.applied));
    json_object_set_new(js, "rejected", json_integer((json_int_t)tally.rejected));
    json_object_set_new(js, "expires", json_string(t));
    json_object_set_new(js, "age", json_string(age));
}

static void print_table(row *rows, size_t n)
{
    int w[7];
    for (int j = 0; j < 7; j++) {
        w[j] = (int)strlen(headers[j]);
        for (size_t i = 0; i < n; i++)
            if ((int)strlen(rows[i].cell[j]) > w[j])
                w[j] = (int)strlen(rows[i].cell[j]);
    }
    for (int j = 0; j < 7; j++)
        printf("%-*s%s", j < 6 ? w[j] : 0, headers[j], j < 6 ? "   " : "\n");
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 7; j++)
            printf("%-*s%s", j < 6 ? w[j] : 0, rows[i].cell[j], j < 6 ? "   " : "\n");
}

static int list(mk_gfconn *c, const mk_gfcli *o)
{
    char err[2048];
    long status;
    json_t *faults = json_array(), *reports = NULL;
    mk_gfl_nodes ns = { 0 };
    mk_gfconn_budget(c, LIST_MS, LIST_WHAT);
    int rc = mk_gfl_list(c->h, MK_GF_PATH, mk_gfconn_deadline(c), put_fault, faults, &status, err,
                         sizeof err);
    if (rc != 0) {
        mk_gfconn_timed_out(c, err, sizeof err);
        mk_err("inject", "cannot list GPUFaults: %s", err);
        json_decref(faults);
        return MK_EXIT_ENV;
    }
    if (status != 200) {
        char why[2048];
        json_decref(faults);
        rc = mk_gfconn_refused(c, "list", "GPUFaults", status, mk_khttp_reason(c->h), err, why,
                               sizeof why);
        mk_err("inject", "%s", why);
        return rc;
    }
    if (mk_gfl_reports(c->h, mk_gfconn_deadline(c), &reports, err, sizeof err) ||
        mk_gfl_nodes_list(c->h, NULL, mk_gfconn_deadline(c), &ns, err, sizeof err)) {
        mk_gfconn_timed_out(c, err, sizeof err);
        mk_err("inject", "%s", err);
        json_decref(faults);
        json_decref(reports);
        return MK_EXIT_ENV;
    }
    size_t n = json_array_size(faults);
    row *rows = mk_xcalloc(n + 1, sizeof *rows);
    json_t *out = json_array();
    long long now = (long long)time(NULL) * 1000;
    for (size_t i = 0; i < n; i++) {
        mk_gfault f;
        json_t *js = json_object();
        if (mk_gfault_from_json(json_array_get(faults, i), &f) != 0) {
            mk_err("inject", "out of memory");
            exit(MK_EXIT_ENV);
        }
        fill_row(&f, &ns, reports, now, &rows[i], js);
        json_array_append_new(out, js);
        mk_gfault_free(&f);
    }
    if (o->json) {
        json_dumpf(out, stdout, JSON_INDENT(2));
        putchar('\n');
    } else if (n) {
        print_table(rows, n);
    } else {
        mk_info("inject", "no GPUFaults");
    }
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 7; j++)
            free(rows[i].cell[j]);
    free(rows);
    json_decref(out);
    json_decref(faults);
    json_decref(reports);
    mk_gfl_nodes_free(&ns);
    return 0;
}

int mk_gfcli_run(const mk_gfcli *o)
{
    mk_gfconn c;
    char err[2048];
    mk_klog log = { .fn = mk_log_as, .ctx = (void *)"inject" };
    json_t *body = NULL;
    if (o->action == MK_GFCLI_CREATE && !(body = mk_gfault_build(&o->req, err, sizeof err)))
        return mk_usage_error("inject", "%s", err);
    if (mk_gfconn_open(&c, o->kubeconfig, o->context, &log, err, sizeof err)) {
        mk_err("inject", "%s", err);
        json_decref(body);
        return MK_EXIT_ENV;
    }
    int rc;
    switch (o->action) {
    case MK_GFCLI_CREATE: rc = create(&c, o, body); break;
    case MK_GFCLI_CLEAR: rc = clear(&c, o); break;
    default: rc = list(&c, o); break;
    }
    mk_gfconn_close(&c);
    json_decref(body);
    return rc;
}
