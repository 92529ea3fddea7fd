/* kube_node.h - Kubernetes Node objects (JSON) as node views, and the
 * quantity strings they carry. */
#ifndef MOKKA_KUBE_NODE_H
#define MOKKA_KUBE_NODE_H

#include <jansson.h>
#include <stddef.h>
#include "nodeview/nodeview.h"

/* Parse a Kubernetes quantity ("8", "1k", "1Ki", "500m", "1.5", "2e3") into
 * its value rounded up to an integer, as Quantity.Value() does. Returns 0
 * when the value is integral, 1 when it had a fraction that was rounded up
 * (cpu "500m" -> 1), -1 when `s` is not a quantity or does not fit. */
int mk_kquantity(const char *s, long long *out);

/* Fill *out from a Node: metadata.name, labels and annotations,
 * status.capacity and status.allocatable (every resource; ndev 0),
 * status.conditions and spec.taints. Returns 0, or -1 with err when the
 * object is not a Node with a name or memory runs out. */
int mk_knode_from_json(const json_t *node, mk_nv_node *out, char *err, size_t errlen);

/* Whether two views of a node say the same (heartbeat-only updates don't
 * count as changes: timestamps are not part of the view). */
int mk_knode_equal(const mk_nv_node *a, const mk_nv_node *b);

#endif
