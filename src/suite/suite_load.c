/* suite_load.c - a suite file into an mk_suite, checking everything a run
 * would trip over (keys, types, value forms, regexes, variable syntax) and
 * collecting every problem with its file:line:col, for `mokka lint`.
 * What only the environment knows (variable values, metric names, GPU
 * indexes beyond the config) is checked when the case runs. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "kube/kube.h"
#include "suite_int.h"
#include "util/util.h"

static const char *kind_name(const mk_ynode *n)
{
    return n->kind == MK_Y_MAP ? "a map" : n->kind == MK_Y_SEQ ? "a list" : "a value";
}

/* Map, or list of maps: calls `one` for each map. Empty lists are errors. */
static int each_map(const mk_ynode *n, const char *what, const char *example,
                    int (*one)(const mk_ynode *m, mk_case *c, mk_diags *d), mk_case *c,
                    mk_diags *d)
{
    if (n->kind == MK_Y_MAP)
        return one(n, c, d);
    if (n->kind != MK_Y_SEQ) {
        mk_yerr(d, n, "%s must be a map such as %s (or a list of them), not %s", what, example,
                kind_name(n));
        return -1;
    }
    if (!n->n) {
        mk_yerr(d, n, "%s is an empty list", what);
        return -1;
    }
    int bad = 0;
    for (size_t i = 0; i < n->n; i++) {
        if (n->vals[i]->kind != MK_Y_MAP) {
            mk_yerr(d, n->vals[i], "each %s must be a map such as %s, not %s", what, example,
                    kind_name(n->vals[i]));
            bad = 1;
            continue;
        }
        bad |= one(n->vals[i], c, d) != 0;
    }
    return bad ? -1 : 0;
}

static int read_gpu(const mk_ynode *m, const char *what, unsigned *gpu, mk_diags *d)
{
    const mk_ynode *n = mk_yget(m, "gpu");
    long long v;
    if (!n) {
        mk_yerr(d, m, "%s needs 'gpu' (the GPU's index in the config)", what);
        return -1;
    }
    char label[32];
    snprintf(label, sizeof label, "%s gpu", what);
    if (mk_yint(n, label, 0, 1023, &v, d) != 0)
        return -1;
    *gpu = (unsigned)v;
    return 0;
}

/* --- inject ------------------------------------------------------------------ */

/* A fault flag (lost, healthy) must be true: false would silently do nothing. */
static int read_true(const mk_ynode *n, const char *key, const char *instead, mk_diags *d)
{
    int v;
    char label[32];
    snprintf(label, sizeof label, "inject %s", key);
    if (mk_ybool(n, label, &v, d) != 0)
        return -1;
    if (!v) {
        mk_yerr(d, n, "inject %s: false does nothing; %s", key, instead);
        return -1;
    }
    return 0;
}

static int read_ecc(const mk_ynode *n, mk_inject_kind *kind, mk_diags *d)
{
    static const char *const kinds[] = {"double", "single", NULL};
    if (n->kind != MK_Y_SCALAR) {
        mk_yerr(d, n, "inject ecc must be double or single, not %s", kind_name(n));
        return -1;
    }
    if (strcmp(n->str, "double") == 0 || strcmp(n->str, "single") == 0) {
        *kind = n->str[0] == 'd' ? MK_INJECT_ECC_DOUBLE : MK_INJECT_ECC_SINGLE;
        return 0;
    }
    const char *near = mk_did_you_mean(n->str, kinds);
    mk_yerr(d, n, "inject ecc must be double or single, not '%s'%s%s%s", n->str,
            near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    return -1;
}

static int read_names(const mk_ynode *n, mk_inject *inj, mk_diags *d)
{
    if (n->kind != MK_Y_SEQ || !n->n) {
        mk_yerr(d, n, "inject nodes names must be a list of node names, not %s",
                n->kind == MK_Y_SEQ ? "an empty list" : kind_name(n));
        return -1;
    }
    int bad = 0;
    for (size_t i = 0; i < n->n; i++) {
        const mk_ynode *v = n->vals[i];
        if (v->kind != MK_Y_SCALAR || !mk_kname_ok(v->str)) {
            mk_yerr(d, v, "inject nodes names: %s%s%s is not a node name", v->kind == MK_Y_SCALAR
                    ? "'" : "", v->kind == MK_Y_SCALAR ? v->str : kind_name(v),
                    v->kind == MK_Y_SCALAR ? "'" : "");
            bad = 1;
            continue;
        }
        inj->names = mk_xrealloc(inj->names, (inj->nnames + 1) * sizeof *inj->names);
        inj->names[inj->nnames++] = mk_xstrdup(v->str);
    }
    return bad ? -1 : 0;
}

/* selector: a map (matchLabels) or kubectl's string form, kept as the string. */
static int read_selector(const mk_ynode *n, mk_inject *inj, mk_diags *d)
{
    return mk_ysel(n, "inject nodes selector", &inj->selector, d);
}

/* nodes: all, or {names: [...], selector: ...} (both: names AND selector). */
static int read_nodes(const mk_ynode *n, mk_inject *inj, mk_diags *d)
{
    static const char *const keys[] = {"names", "selector", NULL};
    inj->cluster = 1;
    if (n->kind == MK_Y_SCALAR && strcmp(n->str, "all") == 0)
        return 0;
    if (n->kind != MK_Y_MAP) {
        mk_yerr(d, n, "inject nodes must be all or a map such as {selector: {mokka.io/pool: a}} "
                "or {names: [gpu-node-1]}, not %s%s%s", n->kind == MK_Y_SCALAR ? "'" : "",
                n->kind == MK_Y_SCALAR ? n->str : kind_name(n), n->kind == MK_Y_SCALAR ? "'" : "");
        return -1;
    }
    int bad = mk_ycheck_keys(n, "inject nodes", keys, d) != 0;
    const mk_ynode *v;
    if ((v = mk_yget(n, "names")))
        bad |= read_names(v, inj, d) != 0;
    if ((v = mk_yget(n, "selector")))
        bad |= read_selector(v, inj, d) != 0;
    if (!bad && !inj->nnames && !inj->selector) {
        mk_yerr(d, n, "inject nodes: give names, selector or both (or nodes: all)");
        bad = 1;
    }
    return bad ? -1 : 0;
}

static void inject_free(mk_inject *inj)
{
    for (size_t i = 0; i < inj->nnames; i++)
        free(inj->names[i]);
    free(inj->names);
    free(inj->selector);
}

static int parse_inject(const mk_ynode *m, mk_case *c, mk_diags *d)
{
    static const char *const keys[] = {"gpu", "xid", "ecc", "lost", "healthy", "nodes", NULL};
    static const char *const faults[] = {"xid", "ecc", "lost", "healthy", NULL};
    int bad = mk_ycheck_keys(m, "inject", keys, d) != 0;
    mk_inject inj = { .kind = MK_INJECT_XID };
    bad |= read_gpu(m, "inject", &inj.gpu, d) != 0;
    const mk_ynode *nodes = mk_yget(m, "nodes");
    if (nodes)
        bad |= read_nodes(nodes, &inj, d) != 0;

    const mk_ynode *fault = NULL, *fkey = NULL;
    for (size_t i = 0; i < m->n; i++) {
        size_t f = 0;
        while (faults[f] && strcmp(faults[f], m->keys[i]->str) != 0)
            f++;
        if (!faults[f])
            continue;
        if (fkey) {
            mk_yerr(d, m->keys[i], "inject takes one fault, not both '%s' and '%s' "
                    "(use a list of injects)", fkey->str, m->keys[i]->str);
            inject_free(&inj);
            return -1;
        }
        fkey = m->keys[i];
        fault = m->vals[i];
    }
    if (!fkey) {
        if (!bad)
            mk_yerr(d, m, "inject needs a fault: xid, ecc, lost or healthy");
        inject_free(&inj);
        return -1;
    }
    long long xid;
    if (strcmp(fkey->str, "xid") == 0) {
        if (mk_yint(fault, "inject xid", 1, 65535, &xid, d) == 0)
            inj.xid = (unsigned)xid;
        else
            bad = 1;
    } else if (strcmp(fkey->str, "ecc") == 0) {
        bad |= read_ecc(fault, &inj.kind, d) != 0;
    } else if (strcmp(fkey->str, "lost") == 0) {
        inj.kind = MK_INJECT_LOST;
        bad |= read_true(fault, "lost", "leave it out", d) != 0;
    } else {
        inj.kind = MK_INJECT_HEALTHY;
        bad |= read_true(fault, "healthy", "to make a GPU unhealthy inject xid, ecc or lost",
                         d) != 0;
    }
    if (bad) {
        inject_free(&inj);
        return -1;
    }
    c->inj = mk_xrealloc(c->inj, (c->ninj + 1) * sizeof *c->inj);
    c->inj[c->ninj++] = inj;
    return 0;
}

/* --- set ------------------------------------------------------------------------ */

/* Metric names and values are the config's; the environment checks them
 * (it owns the config's parser), so here only their shape is. */
static int parse_set(const mk_ynode *m, mk_case *c, mk_diags *d)
{
    unsigned gpu = 0;
    int bad = read_gpu(m, "set", &gpu, d) != 0;
    size_t nmetrics = 0;
    for (size_t i = 0; i < m->n; i++) {
        const mk_ynode *v = m->vals[i];
        if (strcmp(m->keys[i]->str, "gpu") == 0)
            continue;
        nmetrics++;
        if (v->kind != MK_Y_SCALAR || !*v->str) {
            mk_yerr(d, v, "set %s needs a value such as 90, 300W or 30GiB, not %s",
                    m->keys[i]->str, v->kind == MK_Y_SCALAR ? "an empty one" : kind_name(v));
            bad = 1;
            continue;
        }
        if (bad)
            continue;
        c->set = mk_xrealloc(c->set, (c->nset + 1) * sizeof *c->set);
        c->set[c->nset].gpu = gpu;
        c->set[c->nset].metric = mk_xstrdup(m->keys[i]->str);
        c->set[c->nset].value = mk_xstrdup(v->str);
        c->nset++;
    }
    if (!nmetrics) {
        mk_yerr(d, m, "set needs a metric besides gpu, for example temperature: 90");
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* --- cases ------------------------------------------------------------------------ */

/* skip: a reason, or true/false. */
static int parse_skip(const mk_ynode *n, mk_case *c, mk_diags *d)
{
    static const char *const yes[] = {"true", "yes", "on"}, *const no[] = {"false", "no", "off"};
    if (n->kind != MK_Y_SCALAR || !*n->str) {
        mk_yerr(d, n, "skip must be a reason (or true), not %s",
                n->kind == MK_Y_SCALAR ? "empty" : kind_name(n));
        return -1;
    }
    for (size_t i = 0; i < 3; i++) {
        if (strcasecmp(n->str, no[i]) == 0)
            return 0;
        if (strcasecmp(n->str, yes[i]) == 0) {
            c->skip = mk_xstrdup("skipped in the suite");
            return 0;
        }
    }
    c->skip = mk_xstrdup(n->str);
    return 0;
}

/* restart-plugin: true (every plugin), false, or the name of one. */
static int parse_restart(mk_case *c, const mk_ynode *n, mk_diags *d)
{
    const char *s;
    mk_diags quiet;
    mk_diags_init(&quiet);
    int is_bool = n->kind == MK_Y_SCALAR && !n->quoted &&
                  mk_ybool(n, "restart-plugin", &c->restart, &quiet) == 0;
    mk_diags_free(&quiet);
    if (is_bool)
        return 0;
    if (mk_ystr(n, "restart-plugin", &s, d) != 0)
        return -1;
    if (!*s) {
        mk_yerr(d, n, "restart-plugin is true (every plugin) or the name of a plugin, not empty");
        return -1;
    }
    c->restart = 1;
    c->restart_name = mk_xstrdup(s);
    return 0;
}

static void case_free(mk_case *c)
{
    free(c->name);
    free(c->restart_name);
    free(c->skip);
    for (size_t i = 0; i < c->ninj; i++)
        inject_free(&c->inj[i]);
    free(c->inj);
    for (size_t i = 0; i < c->nset; i++) {
        free(c->set[i].metric);
        free(c->set[i].value);
    }
    free(c->set);
    mk_exec_free(c->exec, c->nexec);
    mk_expect_free(c->x, c->nx);
}

/* exit, stdout and stderr check the case's last exec: one is needed. */
static int check_exec_expectations(const mk_case *c, const mk_ynode *expect, mk_diags *d)
{
    int bad = 0;
    for (size_t i = 0; i < c->nx && !c->nexec; i++)
        if (c->x[i].kind->flags & MK_XK_EXEC) {
            mk_diag_add(d, MK_DIAG_ERROR, expect->file, c->x[i].line, c->x[i].col,
                        "%s checks the case's exec, and this case has none (add exec: "
                        "{command: [...]})", c->x[i].kind->key);
            bad = 1;
        }
    return bad ? -1 : 0;
}

/* A fleet expectation is checked once for all the nodes, the others on
 * each node: a case has one kind or the other. */
static int check_fleet_apart(const mk_case *c, const mk_ynode *expect, mk_diags *d)
{
    size_t fleet = 0;
    for (size_t i = 0; i < c->nx; i++)
        fleet += (c->x[i].kind->flags & MK_XK_FLEET) != 0;
    if (!fleet || fleet == c->nx)
        return 0;
    for (size_t i = 0; i < c->nx; i++)
        if (!(c->x[i].kind->flags & MK_XK_FLEET)) {
            mk_diag_add(d, MK_DIAG_ERROR, expect->file, c->x[i].line, c->x[i].col,
                        "%s is checked on each node and fleet on all of them at once: put "
                        "them in cases of their own", c->x[i].kind->key);
            return -1;
        }
    return 0;
}

static int parse_case(const mk_ynode *m, mk_case *c, long long timeout_ms, mk_diags *d)
{
    static const char *const keys[] = {"name", "skip", "inject", "set", "restart-plugin",
                                       "wait", "exec", "expect", "within", NULL};
    if (m->kind != MK_Y_MAP) {
        mk_yerr(d, m, "each case must be a map with a name, not %s", kind_name(m));
        return -1;
    }
    int bad = mk_ycheck_keys(m, "case", keys, d) != 0;
    c->line = m->line;
    const mk_ynode *n = mk_yget(m, "name");
    const char *name = NULL;
    if (!n) {
        mk_yerr(d, m, "case has no name");
        bad = 1;
    } else if (mk_ystr(n, "case name", &name, d) != 0) {
        bad = 1;
    } else if (!*name) {
        mk_yerr(d, n, "case name is empty");
        bad = 1;
    }
    c->name = mk_xstrdup(name);

    if ((n = mk_yget(m, "skip")))
        bad |= parse_skip(n, c, d) != 0;
    if ((n = mk_yget(m, "inject")))
        bad |= each_map(n, "inject", "{gpu: 3, xid: 79}", parse_inject, c, d) != 0;
    if ((n = mk_yget(m, "set")))
        bad |= each_map(n, "set", "{gpu: 3, temperature: 90}", parse_set, c, d) != 0;
    if ((n = mk_yget(m, "restart-plugin")))
        bad |= parse_restart(c, n, d) != 0;
    if ((n = mk_yget(m, "wait")))
        bad |= mk_ydur(n, "wait", &c->wait_ms, d) != 0;
    if ((n = mk_yget(m, "exec")))
        bad |= mk_exec_parse(n, &c->exec, &c->nexec, d) != 0;
    if ((n = mk_yget(m, "expect")))
        bad |= mk_expect_parse(n, &c->x, &c->nx, d) != 0 || check_exec_expectations(c, n, d) != 0 ||
               check_fleet_apart(c, n, d) != 0;
    const mk_ynode *within = mk_yget(m, "within");
    c->within_ms = timeout_ms;
    if (within) {
        bad |= mk_ydur(within, "within", &c->within_ms, d) != 0;
        if (!mk_yget(m, "expect")) {
            mk_yerr(d, within, "within needs an expect to wait for");
            bad = 1;
        }
    }
    if (!bad && !c->ninj && !c->nset && !c->restart && !mk_yget(m, "wait") && !c->nexec &&
        !c->nx) {
        mk_yerr(d, m, "case '%s' does nothing: give it an expect, or an action "
                "(inject, set, restart-plugin, wait, exec)", c->name);
        bad = 1;
    }
    return bad ? -1 : 0;
}

/* --- the suite ------------------------------------------------------------------------ */

/* "fixtures/suites/smoke.yaml" -> "smoke" */
static char *default_name(const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    return len ? mk_xstrndup(base, len) : mk_xstrdup("suite");
}

/* JUnit readers merge cases with the same name, so names must be unique. */
static int check_unique_name(const mk_ynode *list, size_t i, mk_diags *d)
{
    const mk_ynode *name = mk_yget(list->vals[i], "name");
    if (!name || name->kind != MK_Y_SCALAR)
        return 0;
    for (size_t j = 0; j < i; j++) {
        const mk_ynode *other = mk_yget(list->vals[j], "name");
        if (other && other->kind == MK_Y_SCALAR && strcmp(other->str, name->str) == 0) {
            mk_yerr(d, name, "duplicate case name '%s' (first at %d:%d)", name->str,
                    other->line, other->col);
            return -1;
        }
    }
    return 0;
}

static int parse_cases(mk_suite *s, const mk_ynode *list, long long timeout_ms, mk_diags *d)
{
    int bad = 0;
    s->cases = mk_xcalloc(list->n, sizeof *s->cases);
    for (size_t i = 0; i < list->n; i++) {
        bad |= check_unique_name(list, i, d) != 0;
        bad |= parse_case(list->vals[i], &s->cases[s->n++], timeout_ms, d) != 0;
    }
    return bad ? -1 : 0;
}

static mk_suite *from_doc(const mk_ydoc *doc, const char *file, mk_diags *d)
{
    static const char *const keys[] = {"suite", "timeout", "cases", NULL};
    const mk_ynode *root = doc->root, *n;
    if (!root) {
        mk_diag_add(d, MK_DIAG_ERROR, file, 0, 0, "the suite is empty (it needs a 'cases' list)");
        return NULL;
    }
    if (root->kind != MK_Y_MAP) {
        mk_yerr(d, root, "a suite must be a map with 'cases', not %s", kind_name(root));
        return NULL;
    }
    mk_suite *s = mk_xcalloc(1, sizeof *s);
    s->file = mk_xstrdup(file);
    int bad = mk_ycheck_keys(root, "the suite", keys, d) != 0;
    const char *name = NULL;
    if ((n = mk_yget(root, "suite")) && mk_ystr(n, "suite", &name, d) != 0) {
        bad = 1;
    } else if (n && !*name) {
        mk_yerr(d, n, "suite name is empty");
        bad = 1;
    }
    s->name = name && *name ? mk_xstrdup(name) : default_name(file);

    long long timeout_ms = 0;
    if ((n = mk_yget(root, "timeout")))
        bad |= mk_ydur(n, "timeout", &timeout_ms, d) != 0;

    const mk_ynode *cases = mk_yget(root, "cases");
    if (!cases) {
        mk_yerr(d, root, "the suite has no 'cases' list");
        bad = 1;
    } else if (cases->kind != MK_Y_SEQ) {
        mk_yerr(d, cases, "cases must be a list of cases, not %s", kind_name(cases));
        bad = 1;
    } else if (!cases->n) {
        mk_yerr(d, cases, "cases is an empty list");
        bad = 1;
    } else {
        bad |= parse_cases(s, cases, timeout_ms, d) != 0;
    }
    if (bad) {
        mk_suite_free(s);
        return NULL;
    }
    return s;
}

/* Whether a goes after b in file order; a line without a place (the count
 * of problems not shown, diag.h) goes last. */
static int after(const mk_diag *a, const mk_diag *b)
{
    if (a->line != b->line)
        return !a->line || (b->line && a->line > b->line);
    return a->col > b->col;
}

/* The loader visits keys in a fixed order, not the file's; lint output
 * reads best in file order. A stable insertion sort of what it added (at
 * most MK_DIAGS_PER_FILE and one). */
static void sort_diags(mk_diags *d, size_t from)
{
    for (size_t i = from + 1; i < d->n; i++) {
        mk_diag g = d->v[i];
        size_t j = i;
        while (j > from && after(&d->v[j - 1], &g)) {
            d->v[j] = d->v[j - 1];
            j--;
        }
        d->v[j] = g;
    }
}

static mk_suite *load(mk_ydoc *doc, const char *file, size_t first_diag, mk_diags *d)
{
    if (!doc)
        return NULL;
    mk_suite *s = from_doc(doc, file, d);
    mk_yfree(doc);
    sort_diags(d, first_diag);
    return s;
}

mk_suite *mk_suite_load_mem(const char *name, const char *yaml, size_t len, mk_diags *d)
{
    size_t first = d->n;
    return load(mk_yload_mem(name, yaml, len, d), name, first, d);
}

mk_suite *mk_suite_load(const char *path, mk_diags *d)
{
    size_t first = d->n;
    return load(mk_yload_file(path, d), path, first, d);
}

void mk_suite_free(mk_suite *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        case_free(&s->cases[i]);
    free(s->cases);
    free(s->name);
    free(s->file);
    free(s);
}

const char *mk_suite_name(const mk_suite *s)
{
    return s->name;
}

size_t mk_suite_ncases(const mk_suite *s)
{
    return s->n;
}

unsigned mk_suite_fleet_needs(const mk_suite *s)
{
    unsigned needs = 0;
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->cases[i].nx; j++)
            needs |= mk_fsum_needs(&s->cases[i].x[j]);
    return needs;
}
