/* config_int.h - what the config loader's files share (not for other users:
 * they call mk_universe_load in universe.h). */
#ifndef MOKKA_CONFIG_INT_H
#define MOKKA_CONFIG_INT_H

#include "universe.h"
#include "ytree.h"

/* config_device.c */
void mk_device_apply(mk_device *dev, const mk_ynode *map, const char *what, mk_diags *d);
size_t mk_device_keys(const char **out, size_t max);
/* A name out of names (case-insensitive) into *out: vals[i] is names[i]'s
 * value (NULL: the index is). An error with a suggestion otherwise: -1. */
int mk_config_enum(const mk_ynode *v, const char *key, const char *const *names,
                   const unsigned *vals, unsigned *out, mk_diags *d);

/* config_mig.c */
void mk_config_mig_profiles(mk_device *dev, const mk_ynode *v, mk_diags *d);
void mk_config_set_mig_request(mk_device *dev, const mk_ynode *instances);
/* Places the requested MIG instances on the GPU's slices; errors name the
 * instance that does not fit. */
void mk_config_mig_layout(mk_device *dev, mk_diags *d);

/* config_topology.c */
int mk_parse_bus_id(const char *s, mk_device *dev);
/* Default bus ids, NUMA nodes and minors for devices that name none; checks
 * uniqueness of bus ids, UUIDs and minors. */
void mk_config_topology(mk_universe *u, const mk_ynode *topo, mk_diags *d);

/* config_fabric.c: the `fabric:` key of a device, and the fabric each GPU
 * reports, settled once the topology says which GPUs sit on NVSwitches. */
void mk_config_fabric_key(mk_device *dev, const mk_ynode *v, mk_diags *d);
void mk_config_fabric(mk_universe *u, mk_diags *d);

/* config_node.c: machine:, debug:, debugListen: (after the devices, whose
 * profiles give the default machine). */
void mk_config_node(mk_universe *u, const mk_ynode *root, mk_diags *d);

#endif
