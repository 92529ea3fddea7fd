/* stateread.c - readings of a live state (see expose.h), for the CLI and
 * the library's debug server alike; none of them writes to the state. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "expose.h"
#include "live.h"

unsigned mk_view_alive(const mk_view *v, int *pids, unsigned max)
{
    unsigned n = 0;
    for (int i = 0; i < MK_STATE_PIDS; i++) {
        int32_t p = atomic_load(&v->st.hdr->pids[i]);
        if (mk_pid_alive(p)) {
            if (n < max)
                pids[n] = p;
            n++;
        }
    }
    return n;
}

unsigned mk_view_attached(const mk_view *v)
{
    unsigned n = 0;
    for (int i = 0; i < MK_STATE_PIDS; i++)
        n += atomic_load(&v->st.hdr->pids[i]) > 0;
    return n;
}

int mk_view_pinned(const mk_view *v, unsigned i, mk_metric m)
{
    return (atomic_load(&v->st.dev[i].pinned_mask) >> m) & 1;
}

int mk_view_value(const mk_view *v, unsigned i, mk_metric m, int64_t *out)
{
    if (v->u && v->u->dev[i].lv[m].kind == MK_LV_NA && !mk_view_pinned(v, i, m))
        return -1;
    *out = atomic_load(&v->st.dev[i].value[m]);
    return 0;
}

uint64_t mk_view_energy(const mk_view *v, unsigned i)
{
    mk_state_dev *sd = &v->st.dev[i];
    uint64_t mj = atomic_load(&sd->energy_mj), then = atomic_load(&sd->energy_ns);
    int64_t mw = atomic_load(&sd->value[MK_M_POWER]);
    uint64_t now = mk_now_mono_ns();
    /* What the library's integration would add if it ran now. */
    if (now > then && mw > 0)
        mj += (uint64_t)mw * (now - then) / 1000000000ull;
    return mj;
}

void mk_view_ecc(const mk_view *v, unsigned i, uint64_t *sbe, uint64_t *dbe)
{
    mk_live L = { .st = (mk_state *)&v->st };
    mk_live_ecc(&L, i, sbe, dbe);
}

void mk_view_health(const mk_view *v, unsigned i, char *buf, size_t len)
{
    mk_fault_mode h = (mk_fault_mode)atomic_load(&v->st.dev[i].health);
    if (h == MK_FAULT_XID)
        snprintf(buf, len, "xid %u", (unsigned)atomic_load(&v->st.dev[i].last_xid));
    else if (h == MK_FAULT_NONE)
        snprintf(buf, len, "healthy");
    else
        snprintf(buf, len, "%s", mk_fault_mode_name(h));
}

static int cmp_calls(const void *a, const void *b)
{
    const mk_call_row *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return strcmp(x->name, y->name);
}

mk_call_row *mk_view_calls(const mk_view *v, size_t *n)
{
    unsigned nfn = v->st.hdr->nfn;
    mk_call_row *rows = calloc(nfn ? nfn : 1, sizeof *rows);
    *n = 0;
    if (!rows)
        return NULL;
    for (unsigned f = 0; f < nfn; f++) {
        uint64_t uns, calls = mk_state_calls(&v->st, f, &uns);
        if (calls || uns)
            rows[(*n)++] = (mk_call_row){ v->st.names[f], calls, uns };
    }
    if (*n > 1)
        qsort(rows, *n, sizeof *rows, cmp_calls);
    return rows;
}
