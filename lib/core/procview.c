/* procview.c - the container's view of the processes attached to a live
 * state (see procview.h): which of them run with NVIDIA_VISIBLE_DEVICES
 * (or the variables of Mokka's CDI devices) narrowing what the library
 * shows them, and which GPUs they see. Read from each process's
 * environment at its start, as the library read it. */
#include <stdlib.h>
#include <string.h>
#include "procview.h"
#include "visible.h"

/* The view of one process, when restricted; 0 when it is not (or gone). */
static int restricted_view(const mk_view *v, pid_t pid, mk_procview *out)
{
    mk_procenv env;
    if (mk_procenv_read(pid, &env) != 0)
        return 0;
    char **list = mk_procenv_list(&env), *spec = NULL;
    int got = list ? mk_visible_env_spec(list, &spec) : -1;
    free(list);
    mk_procenv_free(&env);
    if (got < 0)
        return 0;
    mk_visible vis;
    char unknown[8];
    int restricted = 0;
    memset(out, 0, sizeof *out);
    if (spec && v->u && mk_visible_parse(v->u, spec, &vis, unknown, sizeof unknown) == 0) {
        restricted = vis.restricted;
        out->n = vis.n;
        out->gpus = calloc(vis.n ? vis.n : 1, sizeof *out->gpus);
        if (out->gpus)
            memcpy(out->gpus, vis.gpu, vis.n * sizeof *vis.gpu);
        mk_visible_free(&vis);
    } else {   /* no universe to read it against: the text alone */
        restricted = mk_visible_restricted(spec);
    }
    if (restricted) {   /* spec is set: unset is every GPU */
        out->pid = pid;
        out->spec = spec;
    } else {
        free(out->gpus);
        free(spec);
    }
    return restricted;
}

size_t mk_view_procviews(const mk_view *v, mk_procview **out)
{
    int pids[MK_STATE_PIDS];
    unsigned alive = mk_view_alive(v, pids, MK_STATE_PIDS);
    size_t n = 0;
    *out = calloc(MK_STATE_PIDS, sizeof **out);
    if (!*out)
        return 0;
    for (unsigned i = 0; i < alive && i < MK_STATE_PIDS; i++)
        n += restricted_view(v, (pid_t)pids[i], &(*out)[n]);
    return n;
}

void mk_procviews_free(mk_procview *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(p[i].spec);
        free(p[i].gpus);
    }
    free(p);
}
