/* statepids.c - the attached processes of a state file (see stateview.h).
 * The header is read with pread, not mapped through the core's
 * mk_state_open_existing: closing that detaches the caller's pid, which
 * would detach a program that looks at its own state file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "state.h"
#include "stateview.h"

int mk_state_live_pids(const char *path, pid_t *pids, int max, char *err, size_t errlen)
{
    mk_state_hdr h;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    ssize_t n = pread(fd, &h, sizeof h, 0);
    close(fd);
    if (n != (ssize_t)sizeof h || h.magic != MK_STATE_MAGIC || h.version != MK_STATE_VERSION ||
        h.hdr_size != sizeof h) {
        snprintf(err, errlen, "%s is not a Mokka state file (or it is from another version)",
                 path);
        return -1;
    }
    int live = 0;
    for (int i = 0; i < MK_STATE_PIDS; i++) {
        pid_t p = atomic_load(&h.pids[i]);
        if (mk_pid_alive(p) && live < max)
            pids[live++] = p;
    }
    return live;
}
