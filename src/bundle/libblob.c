/* libblob.c - the embedded library, its hash, and identifying library files
 * (see bundle.h). */
#include <pthread.h>
#include "ids.h"
#include "util/util.h"
#include "bundle.h"

extern const unsigned char mk_libblob[], mk_libblob_end[];

const unsigned char *mk_lib_bytes(size_t *len)
{
    *len = (size_t)(mk_libblob_end - mk_libblob);
    return mk_libblob;
}

uint64_t mk_hash_bytes(const void *p, size_t len)
{
    const unsigned char *b = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return mk_mix64(h ^ len);
}

static uint64_t lib_hash;
static void compute_lib_hash(void)
{
    size_t len;
    const unsigned char *p = mk_lib_bytes(&len);
    lib_hash = mk_hash_bytes(p, len);
}

uint64_t mk_lib_hash(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, compute_lib_hash);
    return lib_hash;
}

mk_lib_kind mk_lib_identify(const char *path)
{
    size_t len;
    const unsigned char *blob = mk_lib_bytes(&len);
    if (mk_file_equals(path, blob, len))
        return MK_LIB_THIS;
    int marked = mk_lib_marked(path);
    return marked < 0 ? MK_LIB_UNREADABLE : marked ? MK_LIB_MOKKA : MK_LIB_FOREIGN;
}
