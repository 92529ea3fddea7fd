/* lint_strict.h - `mokka lint --strict`: warnings for legal but suspicious
 * values that only show once the whole universe is compiled (profile,
 * defaults and device entry merged): temperatures above the shutdown
 * threshold, health rules that can never fire, power above the enforced
 * limit, ranges without a seed. What a single value shows on its own (a
 * size without a unit, a non-hex UUID, MIG without instances) the loader
 * already warns about in strict mode. */
#ifndef MOKKA_LINT_STRICT_H
#define MOKKA_LINT_STRICT_H

#include "diag.h"
#include "universe.h"
#include "ytree.h"

/* Adds the warnings to d, positioned at the value responsible (the device
 * entry's key, else the defaults' key, else the device entry or profile);
 * one warning per position, naming every GPU it concerns. */
void mk_lint_strict(const mk_universe *u, const mk_ydoc *doc, mk_diags *d);

#endif
