/* kube_pod.h - Kubernetes Pod objects (JSON) as the pods of a node view:
 * where each is bound, its phase and what the scheduler counts it as
 * requesting; and the list path of the pods a fleet check watches. */
#ifndef MOKKA_KUBE_POD_H
#define MOKKA_KUBE_POD_H

#include <jansson.h>
#include <stddef.h>
#include "nodeview/nodeview.h"

/* Fill *out from a Pod: namespace and name, spec.nodeName, status.phase,
 * the requests as the scheduler adds them up, and, for a pod not yet
 * scheduled, its labels and why the scheduler could not place it. 0, or -1
 * with err when the object is not a Pod with a name or memory runs out. */
int mk_kpod_from_json(const json_t *pod, mk_nv_pod *out, char *err, size_t errlen);

/* Whether two views of a pod say the same (a status update that changes
 * nothing counted is not a change). */
int mk_kpod_equal(const mk_nv_pod *a, const mk_nv_pod *b);

/* "/api/v1/pods[?fieldSelector=spec.nodeName%3DNODE]", malloc'd (NULL when
 * out of memory): every pod of the cluster, or those bound to one node. */
char *mk_kpods_path(const char *node);

#endif
