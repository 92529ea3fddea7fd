/* statedir.h - where live-state directories live and how the CLI finds the
 * one a program on the mock is using.
 *
 * `mokka exec` and `mokka run` give every program they start a fresh state
 * directory through MOKKA_STATE_DIR: <base>/<command>-<pid>, where <base> is
 * $MOKKA_RUNTIME_DIR, else $XDG_RUNTIME_DIR/mokka, else /tmp/mokka-<uid>
 * (created 0700). The library creates <dir>/state in it (state.h). `mokka
 * stats|metrics|inject` find it by --state-dir DIR, by --pid PID (read from
 * /proc/PID/environ), or as the only live one under <base>. */
#ifndef MOKKA_STATEDIR_H
#define MOKKA_STATEDIR_H

#include <stddef.h>
#include <sys/types.h>

/* The base directory (created if missing). 0 or -1 with err. */
int mk_statedir_base(char *out, size_t len, char *err, size_t errlen);
/* Creates <base>/<tag>-<pid> for a new program; 0 or -1 with err. */
int mk_statedir_new(const char *tag, char *out, size_t len, char *err, size_t errlen);
/* Removes a state directory made by mk_statedir_new and everything in it
 * (`mokka run` keeps the sandbox's trees there). */
void mk_statedir_remove(const char *dir);

/* Finds the state file: --state-dir (dir != NULL), --pid (pid > 0), or the
 * only directory under the base whose state file has a live attached
 * process. Writes the state file's path; 0 or -1 with an error that says
 * what was looked at and what to pass instead. */
int mk_statedir_find(const char *dir, pid_t pid, char *path, size_t len, char *err, size_t errlen);

#endif
