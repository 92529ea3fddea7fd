/* statepids.c - the attached processes of a state file (see statepids.h). */
#include <errno.h>
#include <signal.h>
#include "state.h"
#include "statepids.h"

int mk_pid_alive(pid_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

int mk_state_live_pids(const char *path, pid_t *pids, int max, char *err, size_t errlen)
{
    mk_state st;
    if (mk_state_open_existing(&st, path, err, errlen) != 0)
        return -1;
    int n = 0;
    for (int i = 0; i < MK_STATE_PIDS; i++) {
        pid_t p = atomic_load(&st.hdr->pids[i]);
        if (mk_pid_alive(p) && n < max)
            pids[n++] = p;
    }
    mk_state_close(&st);
    return n;
}
