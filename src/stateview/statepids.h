/* statepids.h - which processes a live-state file says are attached, and
 * which of them are still alive. */
#ifndef MOKKA_STATEPIDS_H
#define MOKKA_STATEPIDS_H

#include <stddef.h>
#include <sys/types.h>

/* Fills pids (up to max) with the live processes attached to the state file
 * at path; returns how many, or -1 with err when it is not a readable Mokka
 * state file. */
int mk_state_live_pids(const char *path, pid_t *pids, int max, char *err, size_t errlen);
/* Whether process pid exists (kill(pid, 0) succeeds or is refused). */
int mk_pid_alive(pid_t pid);

#endif
