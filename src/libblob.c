/* libblob.c - the embedded library, its hash, and identifying library files
 * (see libblob.h). */
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ids.h"
#include "fsutil.h"
#include "libblob.h"

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

/* Every build of the library reads this variable and carries its name; the
 * NVIDIA driver has no reason to. */
static const char marker[] = "MOKKA_STATE_DIR";

mk_lib_kind mk_lib_identify(const char *path)
{
    size_t len;
    const unsigned char *blob = mk_lib_bytes(&len);
    if (mk_file_equals(path, blob, len))
        return MK_LIB_THIS;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return MK_LIB_UNREADABLE;
    struct stat sb;
    mk_lib_kind kind = MK_LIB_UNREADABLE;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            kind = memmem(p, (size_t)sb.st_size, marker, sizeof marker - 1) ? MK_LIB_MOKKA
                                                                             : MK_LIB_FOREIGN;
            munmap(p, (size_t)sb.st_size);
        }
    }
    close(fd);
    return kind;
}
