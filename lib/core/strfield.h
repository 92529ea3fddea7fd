/* strfield.h - copying NUL-terminated strings into fixed-size fields (NVML
 * structs, the state file), truncating like snprintf("%s") would but without
 * its cost: PCI info is read in tight loops by topology code, and the state
 * file's hundreds of names are written on every nvmlInit. */
#ifndef MOKKA_STRFIELD_H
#define MOKKA_STRFIELD_H

#include <string.h>

static inline void mk_copy_field(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = 0;
}

#endif
