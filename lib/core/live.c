/* live.c - live values and health rules (see live.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ids.h"
#include "live.h"

int mk_live_init(mk_live *L, mk_state *st, const mk_universe *u)
{
    memset(L, 0, sizeof *L);
    L->st = st;
    L->ndev = u->ndev;
    L->seed = u->has_seed ? u->seed : mk_mix64(mk_now_real_ns() ^ ((uint64_t)getpid() << 32));
    L->draws = calloc(u->ndev * MK_M_COUNT, sizeof *L->draws);
    return L->draws ? 0 : -1;
}

void mk_live_free(mk_live *L)
{
    free(L->draws);
    L->draws = NULL;
}

static uint64_t draw(mk_live *L, unsigned dev, mk_metric m)
{
    uint64_t n = atomic_fetch_add_explicit(&L->draws[dev * MK_M_COUNT + m], 1, memory_order_relaxed);
    return mk_mix64(L->seed ^ mk_mix64(((uint64_t)dev << 40) ^ ((uint64_t)m << 32) ^ n));
}

static void fire(mk_live *L, const mk_device *d, unsigned dev, uint32_t rule)
{
    mk_state_dev *sd = &L->st->dev[dev];
    if (atomic_fetch_or(&sd->rules_fired, rule) & rule)
        return; /* another thread or process fired it first */
    mk_state_raise(L->st, dev, d->health.mode, d->health.xid, -1);
}

static void check_rules(mk_live *L, const mk_device *d, unsigned dev, mk_metric m, int64_t v)
{
    if (m == MK_M_TEMP && d->health.on_temperature >= 0 && v > d->health.on_temperature)
        fire(L, d, dev, MK_RULE_TEMP);
    if (m == MK_M_MEM_USED && d->health.on_memory_exceed >= 0) {
        uint64_t usable = d->mem_total - d->mem_reserved;
        if (usable && (uint64_t)v * 100 > usable * (uint64_t)d->health.on_memory_exceed)
            fire(L, d, dev, MK_RULE_MEM);
    }
}

/* The metric a `follow` value follows. */
static mk_metric source_of(mk_metric m)
{
    return m == MK_M_MEM_USED ? MK_M_UTIL_MEM : MK_M_UTIL_GPU;
}

int mk_live_read(mk_live *L, const mk_universe *u, unsigned dev, mk_metric m, int64_t *out)
{
    const mk_device *d = &u->dev[dev];
    const mk_lv *lv = &d->lv[m];
    mk_state_dev *sd = &L->st->dev[dev];
    int64_t v;
    if (atomic_load_explicit(&sd->pinned_mask, memory_order_relaxed) & (1u << m)) {
        v = atomic_load_explicit(&sd->pinned[m], memory_order_relaxed);
    } else {
        switch (lv->kind) {
        case MK_LV_FIXED:
            *out = lv->lo; /* nothing changes: nothing to publish */
            if (m == MK_M_TEMP || m == MK_M_MEM_USED)
                check_rules(L, d, dev, m, lv->lo);
            return 0;
        case MK_LV_NA:
            return -1;
        case MK_LV_RANGE:
            v = lv->lo + (int64_t)(draw(L, dev, m) % (uint64_t)(lv->hi - lv->lo + 1));
            break;
        case MK_LV_DRIFT: {
            int64_t old = atomic_load_explicit(&sd->value[m], memory_order_relaxed);
            do {
                int64_t step = (int64_t)(draw(L, dev, m) % (uint64_t)(2 * lv->step + 1)) - lv->step;
                v = old + step;
                if (v < lv->lo) v = lv->lo;
                if (v > lv->hi) v = lv->hi;
            } while (!atomic_compare_exchange_weak_explicit(&sd->value[m], &old, v,
                                                            memory_order_relaxed,
                                                            memory_order_relaxed));
            break;
        }
        case MK_LV_FOLLOW:
        default: {
            int64_t share;
            if (mk_live_read(L, u, dev, source_of(m), &share) != 0)
                share = 0;
            v = lv->lo + (lv->hi - lv->lo) * share / 100;
            break;
        }
        }
    }
    atomic_store_explicit(&sd->value[m], v, memory_order_relaxed);
    check_rules(L, d, dev, m, v);
    *out = v;
    return 0;
}

uint64_t mk_live_energy(mk_live *L, const mk_universe *u, unsigned dev)
{
    mk_state_dev *sd = &L->st->dev[dev];
    const mk_lv *p = &u->dev[dev].lv[MK_M_POWER];
    int pinned = atomic_load_explicit(&sd->pinned_mask, memory_order_relaxed) & (1u << MK_M_POWER);
    int64_t mw = p->kind == MK_LV_FIXED && !pinned ? p->lo : atomic_load(&sd->value[MK_M_POWER]);
    const uint64_t NS = 1000000000ull;
    uint64_t now = mk_now_mono_ns();
    uint64_t then = atomic_load(&sd->energy_ns);
    /* Integrate the current draw over the time since the last reading; the
     * CAS makes each interval count once even with several readers. Only
     * the time that whole millijoules account for is consumed: the rest
     * (under 1 mJ) carries over, so that frequent readers still see the
     * counter grow. Seconds and nanoseconds apart keep mW x ns in range. */
    while (now > then) {
        uint64_t dt = now - then, add = 0, upto = now;
        if (mw > 0) {
            uint64_t frac = (uint64_t)mw * (dt % NS);
            add = (uint64_t)mw * (dt / NS) + frac / NS;
            if (add == 0)
                break;
            upto = now - (frac % NS) / (uint64_t)mw;
        }
        if (atomic_compare_exchange_weak(&sd->energy_ns, &then, upto))
            return atomic_fetch_add(&sd->energy_mj, add) + add;
    }
    return atomic_load(&sd->energy_mj);
}

void mk_live_ecc(mk_live *L, unsigned dev, uint64_t *sbe, uint64_t *dbe)
{
    mk_state_dev *sd = &L->st->dev[dev];
    uint64_t since = atomic_load(&sd->ecc_since_ns);
    *sbe = atomic_load(&sd->ecc_sbe);
    *dbe = atomic_load(&sd->ecc_dbe);
    if (since) {
        uint64_t now = mk_now_mono_ns();
        *sbe += now > since ? (now - since) / 1000000000ull : 0;
    }
}

uint64_t mk_live_tick(mk_live *L, const mk_universe *u)
{
    uint64_t next = UINT64_MAX;
    uint64_t now = mk_now_mono_ns();
    uint64_t epoch = L->st->hdr->epoch_mono_ns;
    for (unsigned i = 0; i < u->ndev; i++) {
        const mk_device *d = &u->dev[i];
        uint32_t fired = atomic_load_explicit(&L->st->dev[i].rules_fired, memory_order_relaxed);
        if (d->health.after_seconds >= 0 && !(fired & MK_RULE_AFTER)) {
            uint64_t due = epoch + (uint64_t)(d->health.after_seconds * 1e9);
            if (now >= due)
                fire(L, d, i, MK_RULE_AFTER);
            else if (due < next)
                next = due;
        }
        int64_t v;
        if (d->health.on_temperature >= 0 && !(fired & MK_RULE_TEMP))
            mk_live_read(L, u, i, MK_M_TEMP, &v);
        if (d->health.on_memory_exceed >= 0 && !(fired & MK_RULE_MEM))
            mk_live_read(L, u, i, MK_M_MEM_USED, &v);
    }
    return next;
}

void mk_live_rules_changed(mk_live *L, const mk_universe *old_u, const mk_universe *new_u)
{
    for (unsigned i = 0; i < new_u->ndev && i < old_u->ndev; i++) {
        const mk_health_rules *a = &old_u->dev[i].health, *b = &new_u->dev[i].health;
        if (a->after_seconds != b->after_seconds || a->on_memory_exceed != b->on_memory_exceed ||
            a->on_temperature != b->on_temperature || a->xid != b->xid || a->mode != b->mode)
            atomic_store(&L->st->dev[i].rules_fired, 0);
    }
}
