/* universe_json.h - a universe as a JSON tree for `mokka render`: every
 * device with every resolved field, in a fixed order, with values written in
 * config syntax where the config has a key for them (memory: 40960MiB,
 * power: 400W, temperature: 35-45, utilization: -1), plus what the loader
 * derives (UUIDs for the node, bus ids, MIG ids and caps minors, NVLink
 * peers per link). yamlout.h prints the same tree as YAML. */
#ifndef MOKKA_UNIVERSE_JSON_H
#define MOKKA_UNIVERSE_JSON_H

#include <jansson.h>
#include "universe.h"

json_t *mk_universe_json(const mk_universe *u);
/* The built-in GPU profiles: name, GPU name, architecture, memory and MIG
 * profiles. NULL (with a message on stderr) if one does not load. */
json_t *mk_profiles_json(void);

#endif
