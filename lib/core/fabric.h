/* fabric.h - a GPU's NVLink fabric as NVML reports it: the names the config
 * and the CLI use for its states, statuses and health conditions, the
 * cluster UUID's text form and per-rack derivation, NVML's health mask, and
 * the live-state word through which `mokka inject` overrides state, status
 * and health of a running universe. */
#ifndef MOKKA_FABRIC_H
#define MOKKA_FABRIC_H

#include <stddef.h>
#include <stdint.h>
#include "universe.h"

/* NVML_GPU_FABRIC_STATE_* */
enum { MK_FABRIC_NOT_SUPPORTED, MK_FABRIC_NOT_STARTED, MK_FABRIC_IN_PROGRESS,
       MK_FABRIC_COMPLETED };

/* Health conditions (mk_fabric.health bits), in the order of NVML's mask. */
#define MK_FABRIC_DEGRADED_BW     1u   /* bandwidth degraded (links or switches down) */
#define MK_FABRIC_ROUTE_RECOVERY  2u   /* route recovery in progress */
#define MK_FABRIC_ROUTE_UNHEALTHY 4u   /* a route is unhealthy */
#define MK_FABRIC_ACCESS_TIMEOUT  8u   /* recovering from an access timeout */
#define MK_FABRIC_HEALTH_BITS     4

/* Config names by value (states) or bit (health), NULL-terminated. */
extern const char *const mk_fabric_state_names[];
extern const char *const mk_fabric_health_names[];
/* NVML return codes by config name: success, notReady, ... (NVML_ERROR_*
 * in camelCase), NULL-terminated, with their values. */
extern const char *const mk_nvml_return_names[];
extern const unsigned mk_nvml_return_values[];
/* The config name of an NVML return code ("unknown" for others). */
const char *mk_nvml_return_name(unsigned rc);

/* A UUID in its 8-4-4-4-12 hex form into 16 bytes: 0, or -1 when s is not one. */
int mk_cluster_uuid_parse(const char *s, unsigned char out[16]);
/* 16 bytes as 36 lowercase characters (as go's uuid.String() writes them). */
void mk_cluster_uuid_format(const unsigned char u[16], char *out, size_t len);
int mk_cluster_uuid_zero(const unsigned char u[16]);

/* The rack a node belongs to when the config does not say: the node name's
 * first DNS label without its last '-'-separated part, the tray's own
 * ("gb200-r07-tray03.lab" -> "gb200-r07"); a label without '-' is its own
 * rack. Every tray of one rack then derives the same cluster UUID. */
void mk_fabric_rack_of_node(const char *node, char *out, size_t len);
/* `clusterUuid: auto`: a UUID (random-looking, version 4 form) from the rack
 * name; never all zero. */
void mk_fabric_derive_cluster(const char *rack, unsigned char out[16]);

/* NVML's healthMask and healthSummary for the conditions that hold. */
unsigned mk_fabric_health_mask(unsigned health);
unsigned mk_fabric_health_summary(unsigned health);

/* The live override (mk_state_dev.fabric): 0 is none (the config's fabric);
 * otherwise state, status and health packed behind a set bit. */
uint64_t mk_fabric_pack(const mk_fabric *f);
/* The fabric a GPU reports now: its universe's, with the override over it. */
mk_fabric mk_fabric_now(const mk_device *d, uint64_t live);

#endif
