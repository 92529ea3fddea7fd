/* faultsuite.c - suite injects with nodes: as GPUFaults: each made with
 * generateName mokka-suite-, the run's label and a duration, then waited
 * for (one watch of the reports serves the whole run), and every one
 * deleted when the run ends. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "faultconn.h"
#include "faultlist.h"
#include "faultsuite.h"
#include "faultwait.h"
#include "util/util.h"

struct mk_gfsuite {
    char *kubeconfig, *context;
    long long ttl_ms;
    volatile sig_atomic_t *cancel;
    char run_id[64];
    int open;
    mk_gfconn conn;
    mk_gfwait *wait;
    char **made;             /* names of the faults made */
    size_t nmade;
};

static void kube_log(void *ctx, int warning, const char *msg)
{
    (void)ctx;
    if (warning)
        mk_err("assert", "warning: %s", msg);
}

mk_gfsuite *mk_gfsuite_new(const char *kubeconfig, const char *context, long long ttl_ms,
                           volatile sig_atomic_t *cancel)
{
    mk_gfsuite *s = mk_xcalloc(1, sizeof *s);
    s->kubeconfig = mk_xstrdup(kubeconfig);
    s->context = mk_xstrdup(context);
    s->ttl_ms = ttl_ms;
    s->cancel = cancel;
    snprintf(s->run_id, sizeof s->run_id, "%llx-%x", (unsigned long long)time(NULL),
             (unsigned)getpid());
    return s;
}

static int connect_once(mk_gfsuite *s, char *err, size_t errlen)
{
    mk_klog log = { .fn = kube_log };
    if (s->open)
        return 0;
    if (mk_gfconn_open(&s->conn, s->kubeconfig, s->context, &log, err, errlen))
        return -1;
    s->open = 1;
    return 0;
}

static mk_gf_kind kind_of(const mk_inject *inj)
{
    switch (inj->kind) {
    case MK_INJECT_XID: return MK_GF_XID;
    case MK_INJECT_ECC_DOUBLE: return MK_GF_ECC_DOUBLE;
    case MK_INJECT_ECC_SINGLE: return MK_GF_ECC_SINGLE;
    case MK_INJECT_LOST: return MK_GF_LOST;
    default: return MK_GF_HEALTHY;
    }
}

/* The object for inj, with the run's name prefix and label. */
static json_t *build(const mk_gfsuite *s, const mk_inject *inj, char *err, size_t errlen)
{
    char gpus[16], ttl[32];
    mk_ksel sel = { 0 };
    snprintf(gpus, sizeof gpus, "%u", inj->gpu);
    mk_duration_format(s->ttl_ms, ttl, sizeof ttl);
    if (inj->selector && mk_ksel_parse(inj->selector, &sel, err, errlen) != 0)
        return NULL;
    mk_gfault_req r = { .nodes = (const char *const *)inj->names, .nnodes = inj->nnames,
                        .selector = inj->selector ? &sel : NULL, .gpus = gpus,
                        .kind = kind_of(inj), .xid = inj->xid, .duration = ttl };
    json_t *obj = mk_gfault_build(&r, err, errlen);
    mk_ksel_free(&sel);
    if (!obj)
        return NULL;
    json_t *meta = json_object_get(obj, "metadata");
    json_object_set_new(meta, "generateName", json_string("mokka-suite-"));
    json_t *labels = json_object_get(meta, "labels");
    if (!json_is_object(labels)) {
        labels = json_object();
        json_object_set_new(meta, "labels", labels);
    }
    json_object_set_new(labels, MK_GF_SUITE_LABEL, json_string(s->run_id));
    return obj;
}

static int follow(mk_gfsuite *s, const mk_gfault *f, long long t0, long long wait_ms, char *err,
                  size_t errlen)
{
    char **names;
    size_t n;
    if (!s->wait && !(s->wait = mk_gfwait_start(&s->conn.target, &s->conn.log, 0, err, errlen)))
        return -1;
    if (mk_gfconn_selected(&s->conn, f, &names, &n, err, errlen))
        return -1;
    mk_gfwait_req r = { .name = f->name, .uid = f->uid, .nodes = (const char *const *)names,
                        .nnodes = n, .start_ms = t0, .limit_ms = wait_ms,
                        .cancel = s->cancel, .progress = 1 };
    mk_sb msg = MK_SB_INIT;
    mk_gfw_outcome o = mk_gfwait_run(s->wait, &r, &msg);
    if (o == MK_GFW_DONE)
        mk_info("assert", "%s", mk_sb_str(&msg));
    else
        snprintf(err, errlen, "%s", mk_sb_str(&msg));
    mk_sb_free(&msg);
    mk_gfl_names_free(names, n);
    return o == MK_GFW_DONE ? 0 : -1;
}

int mk_gfsuite_inject(mk_gfsuite *s, const mk_inject *inj, long long wait_ms, char *err,
                      size_t errlen)
{
    if (connect_once(s, err, errlen))
        return -1;
    json_t *obj = build(s, inj, err, errlen);
    if (!obj)
        return -1;
    mk_gfault f;
    long long t0 = mk_now_ms();
    int rc = mk_gfconn_create(&s->conn, obj, "GPUFault mokka-suite-...", &f, err, errlen);
    json_decref(obj);
    if (rc)
        return -1;
    s->made = mk_xrealloc(s->made, (s->nmade + 1) * sizeof *s->made);
    s->made[s->nmade++] = mk_xstrdup(f.name);
    rc = follow(s, &f, t0, wait_ms, err, errlen);
    mk_gfault_free(&f);
    return rc;
}

size_t mk_gfsuite_cleanup(mk_gfsuite *s)
{
    size_t bad = 0;
    char err[2048];
    for (size_t i = 0; i < s->nmade; i++) {
        int rc = mk_gfconn_delete(&s->conn, s->made[i], err, sizeof err);
        if (rc == 0) {
            mk_info("assert", "GPUFault %s deleted", s->made[i]);
        } else if (rc != MK_EXIT_USAGE) {  /* already gone (cleared by hand) is fine */
            mk_err("assert", "%s", err);
            bad++;
        }
        free(s->made[i]);
    }
    free(s->made);
    s->made = NULL;
    s->nmade = 0;
    return bad;
}

void mk_gfsuite_free(mk_gfsuite *s)
{
    if (!s)
        return;
    mk_gfsuite_cleanup(s);
    mk_gfwait_free(s->wait);
    if (s->open)
        mk_gfconn_close(&s->conn);
    free(s->kubeconfig);
    free(s->context);
    free(s);
}
