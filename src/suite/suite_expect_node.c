/* suite_expect_node.c - expectations on the Node object itself, which only the
 * API server has: conditions, labels, annotations and taints. */
#include <stdlib.h>
#include <string.h>
#include "suite_int.h"
#include "util/util.h"

#define SHOWN_VALUE_MAX 200   /* annotations can be kilobytes of JSON */

/* --- condition ------------------------------------------------------------------ */

typedef struct cond_x {
    char *type;
    mk_match status, reason, message;   /* reason and message: ABSENT = not checked */
} cond_x;

static void free_cond(void *arg)
{
    cond_x *x = arg;
    free(x->type);
    mk_match_free(&x->status);
    mk_match_free(&x->reason);
    mk_match_free(&x->message);
    free(x);
}

static int parse_cond(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    static const char *const keys[] = {"type", "status", "reason", "message", NULL};
    if (mk_yneed_map(val, "condition", d) != 0)
        return -1;
    cond_x *cx = mk_xcalloc(1, sizeof *cx);
    const mk_ynode *n = mk_yget(val, "type");
    const char *type = NULL;
    int bad = mk_ycheck_keys(val, "condition", keys, d) != 0;
    if (!n) {
        mk_yerr(d, val, "condition needs 'type' (for example Ready)");
        bad = 1;
    } else if (mk_ystr(n, "condition type", &type, d) != 0) {
        bad = 1;
    } else if (!*type) {
        mk_yerr(d, n, "condition type is empty");
        bad = 1;
    }
    cx->type = mk_xstrdup(type);
    cx->status.kind = MK_MATCH_EXACT;
    cx->status.text = mk_xstrdup("True");
    if ((n = mk_yget(val, "status"))) {
        mk_match_free(&cx->status);
        bad |= mk_match_parse(n, "condition status", 0, &cx->status, d) != 0;
    }
    cx->reason.kind = cx->message.kind = MK_MATCH_ABSENT;
    if ((n = mk_yget(val, "reason")))
        bad |= mk_match_parse(n, "condition reason", 0, &cx->reason, d) != 0;
    if ((n = mk_yget(val, "message")))
        bad |= mk_match_parse(n, "condition message", 0, &cx->message, d) != 0;
    if (bad) {
        free_cond(cx);
        return -1;
    }
    x->arg = cx;
    return 0;
}

/* One field of a condition; MK_MATCH_ABSENT means "not asked about". */
static mk_xres check_field(mk_xctx *c, const char *type, const char *field,
                           const mk_match *want, const char *actual)
{
    char err[512], expect[256];
    if (want->kind == MK_MATCH_ABSENT)
        return MK_X_PASS;
    int m = mk_match_test(want, actual, c->vars, err, sizeof err);
    if (m < 0)
        return mk_x_error(c, "condition %s %s: %s", type, field, err);
    if (m)
        return MK_X_PASS;
    mk_match_describe(want, c->vars, expect, sizeof expect);
    char *shown = mk_text_line(actual ? actual : "", SHOWN_VALUE_MAX);
    mk_x_detail(c, "expected: condition %s %s %s", type, field, expect);
    mk_x_detail(c, "actual:   condition %s %s '%s'", type, field, shown);
    mk_x_fail(c, "node %s condition %s %s is '%s', expected %s", c->node->name, type, field,
              shown, expect);
    free(shown);
    return MK_X_FAIL;
}

static mk_xres check_cond(const mk_expect *x, mk_xctx *c)
{
    const cond_x *cx = x->arg;
    const mk_nv_condition *cond = mk_nv_condition_find(c->node, cx->type);
    if (!cond) {
        mk_x_detail(c, "node %s has %zu condition%s", c->node->name, c->node->nconditions,
                    c->node->nconditions == 1 ? "" : "s");
        return mk_x_fail(c, "node %s has no condition %s", c->node->name, cx->type);
    }
    mk_xres r[3] = {
        check_field(c, cx->type, "status", &cx->status, cond->status),
        check_field(c, cx->type, "reason", &cx->reason, cond->reason),
        check_field(c, cx->type, "message", &cx->message, cond->message),
    };
    mk_xres res = MK_X_PASS;
    for (int i = 0; i < 3; i++)
        if (r[i] > res)
            res = r[i];
    if (res == MK_X_FAIL) {
        char *reason = mk_text_line(cond->reason ? cond->reason : "", SHOWN_VALUE_MAX);
        char *message = mk_text_line(cond->message ? cond->message : "", SHOWN_VALUE_MAX);
        mk_x_detail(c, "condition %s: status %s, reason '%s', message '%s'", cx->type,
                    cond->status ? cond->status : "", reason, message);
        free(reason);
        free(message);
    }
    return res;
}

const mk_xkind mk_xk_condition = {"condition", MK_XK_NODE_OBJECT | MK_XK_LIST, parse_cond,
                                  check_cond, free_cond, NULL};

/* --- labels and annotations ------------------------------------------------------ */

typedef struct kv_getter {
    const char *what;
    const char *(*get)(const mk_nv_node *n, const char *key);
} kv_getter;

static const kv_getter labels = {"label", mk_nv_label};
static const kv_getter annotations = {"annotation", mk_nv_annotation};

static int parse_kv(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    mk_kvmatches *m = mk_xcalloc(1, sizeof *m);
    if (mk_kvm_parse(val, x->kind->key, 1, m, d) != 0) {
        free(m);
        return -1;
    }
    x->arg = m;
    return 0;
}

static void free_kv(void *arg)
{
    mk_kvm_free(arg);
    free(arg);
}

static mk_xres check_kv(const mk_expect *x, mk_xctx *c)
{
    const mk_kvmatches *m = x->arg;
    const kv_getter *g = x->kind->aux;
    mk_xres res = MK_X_PASS;
    for (size_t i = 0; i < m->n; i++) {
        const char *actual = g->get(c->node, m->v[i].key);
        char err[512], expect[256];
        int ok = mk_match_test(&m->v[i].m, actual, c->vars, err, sizeof err);
        if (ok < 0)
            return mk_x_error(c, "%s %s: %s", g->what, m->v[i].key, err);
        if (ok)
            continue;
        mk_match_describe(&m->v[i].m, c->vars, expect, sizeof expect);
        char *shown = actual ? mk_text_line(actual, SHOWN_VALUE_MAX) : NULL;
        if (shown)
            mk_x_fail(c, "node %s %s %s is '%s', expected %s", c->node->name, g->what,
                      m->v[i].key, shown, expect);
        else
            mk_x_fail(c, "node %s has no %s %s, expected %s", c->node->name, g->what,
                      m->v[i].key, expect);
        mk_x_detail(c, "expected: %s %s %s", g->what, m->v[i].key, expect);
        mk_x_detail(c, "actual:   %s %s %s%s%s", g->what, m->v[i].key, shown ? "'" : "",
                    shown ? shown : "absent", shown ? "'" : "");
        free(shown);
        res = MK_X_FAIL;
    }
    return res;
}

const mk_xkind mk_xk_label = {"label", MK_XK_LABELS, parse_kv, check_kv, free_kv, &labels};
const mk_xkind mk_xk_annotation = {"annotation", MK_XK_NODE_OBJECT, parse_kv, check_kv,
                                   free_kv, &annotations};

/* --- taints --------------------------------------------------------------------- */

typedef struct taint_x {
    char *key;
    mk_match value;              /* ABSENT: any value */
    char *effect;                /* NULL: any effect */
    int absent;                  /* the taint must not be there */
} taint_x;

static void free_taint(void *arg)
{
    taint_x *t = arg;
    free(t->key);
    mk_match_free(&t->value);
    free(t->effect);
    free(t);
}

static int parse_taint(mk_expect *x, const mk_ynode *val, mk_diags *d)
{
    static const char *const keys[] = {"key", "value", "effect", "absent", NULL};
    static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};
    if (mk_yneed_map(val, "taint", d) != 0)
        return -1;
    taint_x *t = mk_xcalloc(1, sizeof *t);
    t->value.kind = MK_MATCH_ABSENT;
    const mk_ynode *n = mk_yget(val, "key");
    const char *s = NULL;
    int bad = mk_ycheck_keys(val, "taint", keys, d) != 0;
    if (!n) {
        mk_yerr(d, val, "taint needs 'key'");
        bad = 1;
    } else if (mk_ystr(n, "taint key", &s, d) != 0) {
        bad = 1;
    } else if (!*s) {
        mk_yerr(d, n, "taint key is empty");
        bad = 1;
    }
    t->key = mk_xstrdup(s);
    if ((n = mk_yget(val, "value")))
        bad |= mk_match_parse(n, "taint value", 0, &t->value, d) != 0;
    if ((n = mk_yget(val, "effect")) && mk_ystr(n, "taint effect", &s, d) == 0) {
        size_t i = 0;
        while (effects[i] && strcmp(effects[i], s) != 0)
            i++;
        if (effects[i]) {
            t->effect = mk_xstrdup(s);
        } else {
            const char *near = mk_did_you_mean(s, effects);
            mk_yerr(d, n, "taint effect must be NoSchedule, PreferNoSchedule or NoExecute, "
                    "not '%s'%s%s%s", s, near ? " (did you mean '" : "", near ? near : "",
                    near ? "'?)" : "");
            bad = 1;
        }
    } else if (n) {
        bad = 1;
    }
    if ((n = mk_yget(val, "absent")))
        bad |= mk_ybool(n, "taint absent", &t->absent, d) != 0;
    if (!bad && t->absent && t->value.kind != MK_MATCH_ABSENT) {
        mk_yerr(d, mk_yget(val, "value"), "taint value cannot be checked on an absent taint");
        bad = 1;
    }
    if (bad) {
        free_taint(t);
        return -1;
    }
    x->arg = t;
    return 0;
}

static void taint_text(const mk_nv_taint *t, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s%s:%s", t->key, t->value && *t->value ? "=" : "",
             t->value ? t->value : "", t->effect ? t->effect : "");
}

static mk_xres check_taint(const mk_expect *x, mk_xctx *c)
{
    const taint_x *t = x->arg;
    const mk_nv_taint *found = NULL;
    for (size_t i = 0; i < c->node->ntaints && !found; i++) {
        const mk_nv_taint *nt = &c->node->taints[i];
        if (strcmp(nt->key, t->key) != 0 ||
            (t->effect && (!nt->effect || strcmp(t->effect, nt->effect) != 0)))
            continue;
        char err[512];
        int m = t->value.kind == MK_MATCH_ABSENT ? 1 :
                mk_match_test(&t->value, nt->value ? nt->value : "", c->vars, err, sizeof err);
        if (m < 0)
            return mk_x_error(c, "taint %s value: %s", t->key, err);
        if (m)
            found = nt;
    }
    char want[512], have[512];
    snprintf(want, sizeof want, "%s%s%s", t->key, t->effect ? ":" : "",
             t->effect ? t->effect : "");
    if (found && t->absent) {
        taint_text(found, have, sizeof have);
        mk_x_detail(c, "expected: no taint %s", want);
        mk_x_detail(c, "actual:   taint %s", have);
        return mk_x_fail(c, "node %s has taint %s, expected none", c->node->name, have);
    }
    if (!found && !t->absent) {
        mk_sb all = MK_SB_INIT;
        for (size_t i = 0; i < c->node->ntaints; i++) {
            taint_text(&c->node->taints[i], have, sizeof have);
            mk_sb_printf(&all, "%s%s", i ? ", " : "", have);
        }
        mk_x_detail(c, "expected: taint %s", want);
        mk_x_detail(c, "actual:   taints %s", c->node->ntaints ? mk_sb_str(&all) : "(none)");
        mk_sb_free(&all);
        return mk_x_fail(c, "node %s has no taint %s", c->node->name, want);
    }
    return MK_X_PASS;
}

const mk_xkind mk_xk_taint = {"taint", MK_XK_NODE_OBJECT | MK_XK_LIST, parse_taint,
                              check_taint, free_taint, NULL};
