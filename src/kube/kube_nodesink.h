/* kube_nodesink.h - a watch of Node objects (kube_watch.h) feeding a store
 * of node views (kube_store.h). */
#ifndef MOKKA_KUBE_NODESINK_H
#define MOKKA_KUBE_NODESINK_H

#include "kube_store.h"
#include "kube_watch.h"

typedef struct mk_knodesink mk_knodesink;

/* A sink that puts what the watch says into `store`; fills *out for
 * mk_kwatch_start. NULL when out of memory. Free it after the watch. */
mk_knodesink *mk_knodesink_new(mk_kstore *store, mk_kwatch_sink *out);
void mk_knodesink_free(mk_knodesink *s);

#endif
