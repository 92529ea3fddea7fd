/* ids.h - stable derived identities: GPU and MIG UUIDs, serial numbers, and
 * the small deterministic hash and random streams behind them and behind
 * live values. No library is needed for this: the hash is not a security
 * boundary, only a way to spread a node name and an index over 128 bits. */
#ifndef MOKKA_IDS_H
#define MOKKA_IDS_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64 step: a good 64-bit mix, used as a counter-based generator. */
static inline uint64_t mk_mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* 64-bit hash of a string (FNV-1a, then mixed). */
uint64_t mk_hash_str(const char *s, uint64_t salt);

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from node name and index. */
void mk_derive_gpu_uuid(const char *node, unsigned index, char *out, size_t len);
/* "MIG-..." from the parent UUID and GPU/compute instance ids. */
void mk_derive_mig_uuid(const char *parent_uuid, unsigned gi, unsigned ci, char *out, size_t len);
/* 13-digit board serial from node name and index. */
void mk_derive_serial(const char *node, unsigned index, char *out, size_t len);

/* Whether s is "GPU-" followed by a canonical 8-4-4-4-12 hex UUID. */
int mk_uuid_is_canonical(const char *s, const char *prefix);

#endif
