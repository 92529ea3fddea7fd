/* libmark.c - recognising a Mokka library file by its mark (see
 * libmark.h). */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "bundle.h"

/* Every build of the library reads this variable and carries its name; the
 * NVIDIA driver has no reason to. */
static const char mark[] = "MOKKA_STATE_DIR";

int mk_lib_marked(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat sb;
    int marked = -1;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            marked = memmem(p, (size_t)sb.st_size, mark, sizeof mark - 1) != NULL;
            munmap(p, (size_t)sb.st_size);
        }
    }
    close(fd);
    return marked;
}
