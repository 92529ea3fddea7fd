/* doctor.h - `mokka doctor`'s checks, one layer per file, and the report
 * they write: one line per check, PASS / FAIL / WARN, what was checked, and
 * on FAIL (or a WARN worth acting on) the fix. */
#ifndef MOKKA_DOCTOR_H
#define MOKKA_DOCTOR_H

#include <stdio.h>
#include <sys/types.h>

typedef struct mk_doctor {
    FILE *out;
    int passed, failed, warned;
} mk_doctor;

void mk_dr_section(mk_doctor *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mk_dr_pass(mk_doctor *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* fix may be NULL. */
void mk_dr_warn(mk_doctor *d, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void mk_dr_fail(mk_doctor *d, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* (1) Mokka's library file, its SONAME and exports, and the config. */
void mk_doctor_library(mk_doctor *d, const char *config);
/* (2) A running process: which libnvidia-ml.so.1 it maps and why, and its
 * environment and state file. */
void mk_doctor_process(mk_doctor *d, pid_t pid);
/* (3) The kubelet's device-plugin sockets in dir; a missing dir is only a
 * warning unless the user named it. */
void mk_doctor_sockets(mk_doctor *d, const char *dir, int named);

#endif
