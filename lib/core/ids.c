/* ids.c - derived GPU/MIG UUIDs and serial numbers (see ids.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "ids.h"

uint64_t mk_hash_str(const char *s, uint64_t salt)
{
    uint64_t h = 0xcbf29ce484222325ull ^ salt;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ull;
    }
    return mk_mix64(h);
}

static void format_uuid(const char *prefix, uint64_t hi, uint64_t lo, char *out, size_t len)
{
    snprintf(out, len, "%s%08x-%04x-%04x-%04x-%012llx", prefix,
             (unsigned)(hi >> 32), (unsigned)(hi >> 16) & 0xffff, (unsigned)hi & 0xffff,
             (unsigned)(lo >> 48), (unsigned long long)(lo & 0xffffffffffffull));
}

void mk_derive_gpu_uuid(const char *node, unsigned index, char *out, size_t len)
{
    uint64_t h = mk_hash_str(node, 0x6d6f6b6b61ull /* "mokka" */);
    uint64_t hi = mk_mix64(h ^ ((uint64_t)index << 1));
    uint64_t lo = mk_mix64(hi ^ 0x5555555555555555ull ^ index);
    format_uuid("GPU-", hi, lo, out, len);
}

void mk_derive_mig_uuid(const char *parent_uuid, unsigned gi, unsigned ci, char *out, size_t len)
{
    uint64_t h = mk_hash_str(parent_uuid, ((uint64_t)gi << 32) | ci);
    uint64_t lo = mk_mix64(h ^ 0xa5a5a5a5a5a5a5a5ull);
    format_uuid("MIG-", h, lo, out, len);
}

void mk_derive_serial(const char *node, unsigned index, char *out, size_t len)
{
    uint64_t h = mk_mix64(mk_hash_str(node, 0x73657269616cull /* "serial" */) + index);
    snprintf(out, len, "1%012llu", (unsigned long long)(h % 1000000000000ull));
}

int mk_uuid_is_canonical(const char *s, const char *prefix)
{
    size_t p = strlen(prefix);
    if (strncmp(s, prefix, p) != 0)
        return 0;
    s += p;
    static const int groups[] = { 8, 4, 4, 4, 12 };
    for (int g = 0; g < 5; g++) {
        for (int i = 0; i < groups[g]; i++, s++)
            if (!isxdigit((unsigned char)*s))
                return 0;
        if (g < 4 && *s++ != '-')
            return 0;
    }
    return *s == 0;
}
