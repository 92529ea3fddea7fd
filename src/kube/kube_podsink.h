/* kube_podsink.h - a watch of Pod objects (kube_watch.h) feeding the pods
 * of a store of node views (kube_store.h). */
#ifndef MOKKA_KUBE_PODSINK_H
#define MOKKA_KUBE_PODSINK_H

#include "kube_store.h"
#include "kube_watch.h"

typedef struct mk_kpodsink mk_kpodsink;

/* A sink that puts what the watch says into `store`'s pods; fills *out for
 * mk_kwatch_start. NULL when out of memory. Free it after the watch. */
mk_kpodsink *mk_kpodsink_new(mk_kstore *store, mk_kwatch_sink *out);
void mk_kpodsink_free(mk_kpodsink *s);

#endif
