/* live.h - producing live values and firing health rules.
 *
 * A getter asks mk_live_read for a metric; the value comes from the device's
 * mk_lv spec (fixed, range, drift, follow), or from a value pinned through
 * the state file, and is published to the state file for `mokka stats`.
 * Ranges are counter-based: the n-th read of a metric on a device is a pure
 * function of (seed, device, metric, n), so a `seed:` makes every sequence
 * reproducible. Reading temperature or memory used also checks the rules that
 * watch them; time rules are checked by mk_live_tick from event waits. */
#ifndef MOKKA_LIVE_H
#define MOKKA_LIVE_H

#include <stdatomic.h>
#include <stdint.h>
#include "state.h"
#include "universe.h"

typedef struct mk_live {
    mk_state *st;
    uint64_t seed;
    size_t ndev;
    _Atomic uint64_t *draws;    /* [ndev][MK_M_COUNT] reads so far, this process */
} mk_live;

int mk_live_init(mk_live *L, mk_state *st, const mk_universe *u);
void mk_live_free(mk_live *L);

/* 0 and *out, or -1 when the device has no such sensor (NOT_SUPPORTED). */
int mk_live_read(mk_live *L, const mk_universe *u, unsigned dev, mk_metric m, int64_t *out);
/* Total energy since the universe started, in mJ: power integrated over time. */
uint64_t mk_live_energy(mk_live *L, const mk_universe *u, unsigned dev);
/* Volatile ECC counts: single-bit counts keep rising once per second after
 * an ECC fault. */
void mk_live_ecc(mk_live *L, unsigned dev, uint64_t *sbe, uint64_t *dbe);

/* Fires due time rules, samples the temperature and memory rules of devices
 * that have them, and returns the time (CLOCK_MONOTONIC ns) of the next
 * time rule, or UINT64_MAX. */
uint64_t mk_live_tick(mk_live *L, const mk_universe *u);

/* Forgets which rules fired on devices whose rules changed (config reload). */
void mk_live_rules_changed(mk_live *L, const mk_universe *old_u, const mk_universe *new_u);

#endif
