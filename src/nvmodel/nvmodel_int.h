/* nvmodel_int.h - what the files of src/nvmodel/ share (not for other
 * users: they include nvmodel.h). */
#ifndef MOKKA_NVMODEL_INT_H
#define MOKKA_NVMODEL_INT_H

#include <stddef.h>
#include <jansson.h>
#include "universe.h"

/* go-gpuallocator's best-effort policy (besteffort.c) on whole GPUs: `size`
 * of gpus[n] (universe indexes, in the order the request lists them, no
 * GPU twice) including every one of must[nmust] (universe indexes), written
 * to out[size] as positions in gpus[], in the policy's order. 0, or -1 with
 * err where the plugin answers no devices or fails. */
int mk_besteffort(const mk_universe *u, const unsigned *gpus, size_t n, const unsigned *must,
                  size_t nmust, size_t size, size_t *out, char *err, size_t errlen);

/* migname.c: the name NVIDIA's programs give a MIG device of profile p on
 * GPU d, as go-nvlib derives it from NVML's profile ids and memory sizes
 * ("1g.5gb", "1g.10gb.me", "1g.5gb-me": its "+" spelled "."), which is what
 * the resource nvidia.com/mig-NAME and GFD's labels are named after. 0, or
 * -1 with err for a profile id go-nvlib does not know (GFD then fails). */
int mk_nv_mig_name(const mk_device *d, const mk_mig_profile *p, char *out, size_t len,
                   char *err, size_t errlen);

/* gfd_resources.c: GFD's labels of the node's resources (nvidia.com/gpu.*
 * and, under the single and mixed MIG strategies, the MIG ones), set on
 * labels over what is there. 0, or -1 with err. */
int mk_gfd_resource_labels(const mk_universe *u, const char *strategy, json_t *labels,
                           char *err, size_t errlen);

/* gfd_text.c: GFD's sanitising of a name for a label value: only A-Z a-z 0-9 - _ . and
 * blanks kept, runs of blanks joined by one '-' ("NVIDIA A100-SXM4-80GB" ->
 * "NVIDIA-A100-SXM4-80GB"). */
void mk_gfd_sanitise(const char *in, char *out, size_t len);

/* Sets a label (over one of the same key, as GFD merges its labelers). */
void mk_gfd_set(json_t *labels, const char *key, const char *value);

#endif
