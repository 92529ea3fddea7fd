/* nvmodel_int.h - what the files of src/nvmodel/ share among themselves. */
#ifndef MOKKA_NVMODEL_INT_H
#define MOKKA_NVMODEL_INT_H

#include <stddef.h>
#include "universe.h"

/* go-gpuallocator's best-effort policy (besteffort.c) on whole GPUs: `size`
 * of gpus[n] (universe indexes, in the order the request lists them, no
 * GPU twice) including every one of must[nmust] (universe indexes), written
 * to out[size] as positions in gpus[], in the policy's order. 0, or -1 with
 * err where the plugin answers no devices or fails. */
int mk_besteffort(const mk_universe *u, const unsigned *gpus, size_t n, const unsigned *must,
                  size_t nmust, size_t size, size_t *out, char *err, size_t errlen);

#endif
