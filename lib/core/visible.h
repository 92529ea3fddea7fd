/* visible.h - the container's view: which GPUs and MIG devices of a
 * universe one process sees, from NVIDIA_VISIBLE_DEVICES as the NVIDIA
 * container runtime reads it. The universe never changes; the view is a
 * filter from visible index to universe index that the library applies
 * where it hands out handles, and that the CLI uses to say what a process
 * sees.
 *
 * The forms (comma-separated, spaces around entries ignored):
 *   unset, "all"            every GPU (not restricted)
 *   "none", "void", ""      no GPU (nvmlInit still succeeds); the runtime
 *                           treats an empty value as void
 *   3                       GPU index 3 of the universe
 *   GPU-<uuid>              that GPU (case-insensitive)
 *   MIG-<uuid>, 3:1         that MIG device (3:1 is MIG device 1 of GPU 3):
 *                           its parent GPU is shown in MIG mode with only
 *                           the MIG devices named under it, as a container
 *                           given one MIG device sees it on a real node
 * Visible GPUs are numbered from 0 in the order first named; a GPU named
 * twice (or whole and by a MIG device) appears once, with all its MIG
 * devices when it is named whole. Entries naming nothing in the universe
 * are left out and listed, for one stderr line (the real runtime refuses
 * to start such a container). */
#ifndef MOKKA_VISIBLE_H
#define MOKKA_VISIBLE_H

#include <stddef.h>
#include "universe.h"

#define MK_VISIBLE_ENV "NVIDIA_VISIBLE_DEVICES"
/* The variables the devices of Mokka's CDI spec set, one a GPU:
 * MOKKA_VISIBLE_GPU_<index>=<uuid> (see visible_env.c). */
#define MK_VISIBLE_GPU_ENV "MOKKA_VISIBLE_GPU_"

typedef struct mk_visible {
    int restricted;          /* 0: unset or "all" */
    size_t n;                /* visible GPUs */
    unsigned *gpu;           /* [n] universe index of visible GPU i */
    int *pos;                /* [ndev] visible index of universe GPU i, -1: hidden */
    size_t *mig_base;        /* [ndev] first MIG device of GPU i in `mig` */
    unsigned char *mig;      /* [all MIG devices] 1: shown */
    size_t nmig_total;
} mk_visible;

/* The view of universe u through spec (NULL: the variable is unset).
 * Entries that name nothing go, comma-separated and quoted, into unknown
 * ("" when none). 0, or -1 when out of memory (*v is then empty). */
int mk_visible_parse(const mk_universe *u, const char *spec, mk_visible *v, char *unknown,
                     size_t len);
void mk_visible_free(mk_visible *v);
/* Whether spec (NULL: unset) narrows the view: anything but unset or "all". */
int mk_visible_restricted(const char *spec);
/* Whether spec names no GPU at all: "none", "void" or empty. */
int mk_visible_none(const char *spec);

/* visible_env.c: the spec of an environment (NULL-terminated NAME=VALUE
 * entries, as environ; NULL: none): NVIDIA_VISIBLE_DEVICES's value as it
 * is when no MOKKA_VISIBLE_GPU_* is set (*spec NULL when it is unset too:
 * every GPU); else the union of the GPUs all of them name, those of the
 * CDI variables by their <index> after those of NVIDIA_VISIBLE_DEVICES
 * ("all" when one says all, "void" when none names a GPU). Returns 0, 1
 * when CDI variables were joined in, -1 when out of memory; *spec is
 * malloc'd. */
int mk_visible_env_spec(char *const *env, char **spec);

/* Whether MIG device j of universe GPU gpu is shown (its GPU visible). */
static inline int mk_visible_mig(const mk_visible *v, unsigned gpu, size_t j)
{
    return v->pos[gpu] >= 0 && v->mig[v->mig_base[gpu] + j];
}

/* How many MIG devices of universe GPU gpu are shown. */
size_t mk_visible_nmig(const mk_visible *v, const mk_universe *u, unsigned gpu);

#endif
