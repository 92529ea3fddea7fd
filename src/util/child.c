/* child.c - what a forked child does first so that it cannot outlive the
 * process that started it, and gives up mokka's signal handlers before it
 * runs a program (see util.h). A `kill -9` of `mokka run` once left the
 * device plugin serving with PPID 1, and `mokka stats` took that orphan for
 * the one live universe. PDEATHSIG reaches the child only: its own
 * children are treeguard.c's. */
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "util.h"

int mk_child_die_with(pid_t parent, int sig)
{
    if (prctl(PR_SET_PDEATHSIG, sig) != 0)
        return -1;
    /* The parent may have died between fork() and prctl(): the signal is
     * then never sent, and the child has already been handed to a
     * reaper. */
    return getppid() == parent ? 0 : -1;
}

void mk_child_default_signals(void)
{
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction sa;
        if (sig != SIGKILL && sig != SIGSTOP && sigaction(sig, NULL, &sa) == 0 &&
            sa.sa_handler != SIG_DFL)
            signal(sig, SIG_DFL);
    }
}
