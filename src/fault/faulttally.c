/* faulttally.c - a GPUFault's progress across the nodes it selects, from
 * the agents' GPUFaultReports (status.agent.running, status.faults[]). */
#include <string.h>
#include "faulttally.h"

static const json_t *status_of(const json_t *report)
{
    return json_object_get(report, "status");
}

static int agent_running(const json_t *report)
{
    return json_is_true(json_object_get(json_object_get(status_of(report), "agent"), "running"));
}

static const json_t *entry_for(const json_t *report, const char *uid)
{
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(status_of(report), "faults"), i, e) {
        const char *u = json_string_value(json_object_get(e, "uid"));
        if (u && uid && strcmp(u, uid) == 0)
            return e;
    }
    return NULL;
}

static mk_gft_phase phase_of(const json_t *entry)
{
    const char *p = json_string_value(json_object_get(entry, "phase"));
    if (!p)
        return MK_GFT_NONE;
    if (strcmp(p, "Applied") == 0)
        return MK_GFT_APPLIED;
    if (strcmp(p, "Rejected") == 0)
        return MK_GFT_REJECTED;
    if (strcmp(p, "Cleared") == 0 || strcmp(p, "Expired") == 0)
        return MK_GFT_DONE;
    return MK_GFT_NONE;
}

void mk_gft_read(const json_t *report, const char *node, const char *uid, mk_gft_node *out)
{
    const json_t *e = report ? entry_for(report, uid) : NULL;
    const char *reason = json_string_value(json_object_get(e, "reason"));
    *out = (mk_gft_node){
        .name = node,
        .running = report && agent_running(report),
        .phase = e ? phase_of(e) : MK_GFT_NONE,
        .reason = reason ? reason : "",
    };
    if (!out->running)
        out->phase = MK_GFT_NONE;
}

void mk_gft_count(const char *const *names, size_t n, const json_t *reports, const char *uid,
                  mk_gft *out, mk_gft_node *nodes)
{
    *out = (mk_gft){ .selected = n };
    for (size_t i = 0; i < n; i++) {
        mk_gft_node one;
        mk_gft_read(json_object_get(reports, names[i]), names[i], uid, &one);
        if (nodes)
            nodes[i] = one;
        if (!one.running) {
            out->noagent++;
            continue;
        }
        out->counted++;
        if (one.phase == MK_GFT_APPLIED)
            out->applied++;
        else if (one.phase == MK_GFT_REJECTED)
            out->rejected++;
        else
            out->pending++;
    }
}

int mk_gft_answered(const mk_gft *t)
{
    return t->counted > 0 && t->pending == 0;
}

size_t mk_gft_in_phase(const json_t *reports, const char *uid, mk_gft_phase phase)
{
    const char *node;
    json_t *r;
    size_t n = 0;
    json_object_foreach((json_t *)reports, node, r) {
        mk_gft_node one;
        mk_gft_read(r, node, uid, &one);
        n += one.running && one.phase == phase;
    }
    return n;
}

static int wanted(const mk_gft_node *x, mk_gft_phase phase, int noagent)
{
    if (noagent)
        return !x->running;
    return x->running && x->phase == phase;
}

void mk_gft_names(const mk_gft_node *nodes, size_t n, mk_gft_phase phase, int noagent,
                  size_t cap, mk_sb *out)
{
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < n; i++) {
        if (!wanted(&nodes[i], phase, noagent))
            continue;
        if (shown == cap) {
            more++;
            continue;
        }
        mk_sb_printf(out, "%s%s", shown ? ", " : "", nodes[i].name);
        shown++;
    }
    if (more)
        mk_sb_printf(out, " and %zu more", more);
}
