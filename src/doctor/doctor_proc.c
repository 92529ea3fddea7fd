/* doctor_proc.c - doctor's second layer: one running process. Which
 * libnvidia-ml.so.1 /proc/PID/maps shows (Mokka's, the real driver's, none),
 * why, in the words of the two classic failures ("Healthy but nvidia-smi
 * fails in the container", "LD_PRELOAD had no effect"), and what its
 * environment and state file say. Files are read as the process sees them,
 * through /proc/PID/root. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "config/config.h"
#include "doctor.h"
#include "elfinfo.h"
#include "bundle/bundle.h"
#include "stateview/stateview.h"
#include "state.h"

#define HEALTHY_BUT "Healthy but nvidia-smi fails in the container"
#define NO_EFFECT "LD_PRELOAD had no effect"
#define FIX_START "start it with `mokka exec`, or give it LD_PRELOAD=$(mokka lib-path) (in a " \
                  "container: mount the directory `mokka extract-lib DIR` wrote and set " \
                  "LD_LIBRARY_PATH to it)"
#define FIX_PERM "run doctor as the process's user or as root"

typedef struct proc {
    pid_t pid;
    char mokka[4096];       /* a mapped Mokka library, "" when none */
    mk_lib_kind mokka_kind;
    char foreign[4096];     /* a mapped libnvidia-ml.so* that is not Mokka's */
    mk_procenv env;
    int env_ok;
    char route[600];        /* how its environment leads to Mokka's library, "" when not */
} proc;

static void read_comm(pid_t pid, char *out, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    FILE *f = fopen(path, "re");
    out[0] = 0;
    if (f) {
        if (fgets(out, (int)len, f))
            out[strcspn(out, "\n")] = 0;
        fclose(f);
    }
}

/* Fills mokka/foreign from /proc/PID/maps; -1 with errno when unreadable. */
static int read_maps(proc *p)
{
    char path[64], line[4400];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)p->pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        int off = 0;
        line[strcspn(line, "\n")] = 0;
        if (sscanf(line, "%*s %*s %*s %*s %*s %n", &off) < 0 || off == 0 || line[off] != '/')
            continue;
        const char *file = line + off, *base = strrchr(file, '/') + 1;
        if (strncmp(base, "libnvidia-ml.so", 15) != 0)
            continue;
        char seen[4400];
        mk_proc_path(p->pid, file, seen, sizeof seen);
        mk_lib_kind k = mk_lib_identify(seen);
        if ((k == MK_LIB_THIS || k == MK_LIB_MOKKA) && !p->mokka[0]) {
            snprintf(p->mokka, sizeof p->mokka, "%s", file);
            p->mokka_kind = k;
        } else if (k == MK_LIB_FOREIGN && !p->foreign[0]) {
            snprintf(p->foreign, sizeof p->foreign, "%s", file);
        }
    }
    int e = ferror(f) ? errno : 0;
    fclose(f);
    errno = e;
    return e ? -1 : 0;
}

/* The parent process, when its environment leads to Mokka's library but
 * this process's does not: something stripped LD_PRELOAD in between. */
static pid_t stripped_by_parent(const proc *p)
{
    char path[64], line[256];
    pid_t ppid = 0;
    snprintf(path, sizeof path, "/proc/%d/status", (int)p->pid);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "PPid: %d", &ppid) == 1)
            break;
    if (f)
        fclose(f);
    mk_procenv penv;
    if (ppid <= 1 || p->route[0] || mk_procenv_read(ppid, &penv) != 0)
        return 0;
    char how[600];
    int hit = mk_procenv_mokka_lib(ppid, &penv, how, sizeof how);
    mk_procenv_free(&penv);
    return hit ? ppid : 0;
}

/* Whether the loader ran the process in secure-execution mode (AT_SECURE:
 * a setuid/setgid program run by someone else, or file capabilities), where
 * it ignores LD_PRELOAD and LD_LIBRARY_PATH. */
static int secure_exec(pid_t pid)
{
    char path[64];
    unsigned long kv[2];
    int secure = 0;
    snprintf(path, sizeof path, "/proc/%d/auxv", (int)pid);
    FILE *f = fopen(path, "re");
    while (f && fread(kv, sizeof kv, 1, f) == 1 && kv[0] != AT_NULL)
        if (kv[0] == AT_SECURE)
            secure = kv[1] != 0;
    if (f)
        fclose(f);
    return secure;
}

static int is_static(const char *exe)
{
    mk_elf e;
    char err[512];
    if (mk_elf_open(exe, &e, err, sizeof err) != 0)
        return 0;
    int st = e.interp == NULL;
    mk_elf_close(&e);
    return st;
}

/* The library file the process's route names ("LD_PRELOAD=<file>" or
 * "LD_LIBRARY_PATH entry <dir>"), as the process sees it. */
static void route_file(const proc *p, char *out, size_t len)
{
    char file[4400];
    const char *pre = "LD_PRELOAD=", *dir = "LD_LIBRARY_PATH entry ";
    if (strncmp(p->route, pre, strlen(pre)) == 0)
        snprintf(file, sizeof file, "%s", p->route + strlen(pre));
    else
        snprintf(file, sizeof file, "%s/" MK_LIB_SONAME, p->route + strlen(dir));
    mk_proc_path(p->pid, file, out, len);
}

/* When the program and the library its environment names are built for
 * different machines (the loader skips such a library), says which in why. */
static int arch_mismatch(const proc *p, const char *exe, char *why, size_t len)
{
    char lib[4400], err[512], b1[32], b2[32];
    mk_elf pe, le;
    if (!p->route[0] || mk_elf_open(exe, &pe, err, sizeof err) != 0)
        return 0;
    route_file(p, lib, sizeof lib);
    int differ = 0;
    if (mk_elf_open(lib, &le, err, sizeof err) == 0) {
        differ = pe.machine != le.machine;
        if (differ)
            snprintf(why, len, "the program is built for %s, the library its %s names for %s",
                     mk_elf_machine_name(pe.machine, b1, sizeof b1), p->route,
                     mk_elf_machine_name(le.machine, b2, sizeof b2));
        mk_elf_close(&le);
    }
    mk_elf_close(&pe);
    return differ;
}

/* Why the loader did not put Mokka's library in the process, although its
 * environment (or its parent's) asked for it. */
static void no_effect(mk_doctor *d, const proc *p, pid_t parent)
{
    char exe[64], fix[4400], why[4400];
    snprintf(exe, sizeof exe, "/proc/%d/exe", (int)p->pid);
    if (arch_mismatch(p, exe, why, sizeof why)) {
        mk_dr_fail(d, "give it Mokka's library built for the program's architecture: the "
                   "libnvidia-ml.so.1 of the release archive for that architecture, or what "
                   "`mokka extract-lib DIR` writes when that architecture's mokka runs it",
                   NO_EFFECT ": architecture mismatch: %s; the loader skips a library built "
                   "for another machine (\"wrong ELF class\" or \"cannot be preloaded\")", why);
    } else if (parent) {
        char comm[64];
        read_comm(parent, comm, sizeof comm);
        mk_dr_fail(d, "keep the variable across the wrapper (sudo --preserve-env=LD_PRELOAD, "
                   "no env -i), or start the program itself with `mokka exec`",
                   NO_EFFECT ": its parent %d (%s) has it, this process does not: a wrapper "
                   "(sudo, env -i, a container runtime) stripped it", (int)parent, comm);
    } else if (secure_exec(p->pid)) {
        mk_dr_fail(d, "run a copy without the setuid/setgid bit or file capabilities, or run "
                   "it as its owner", NO_EFFECT ": the program runs in secure-execution mode "
                   "(setuid/setgid or file capabilities), where the loader ignores LD_PRELOAD "
                   "and LD_LIBRARY_PATH");
    } else if (is_static(exe)) {
        mk_dr_fail(d, "use a dynamically linked build of the program",
                   NO_EFFECT ": the program is statically linked; no dynamic loader reads "
                   "LD_PRELOAD, and it cannot load NVML at all");
    } else if (p->foreign[0]) {
        snprintf(fix, sizeof fix, "load NVML by name (dlopen(\"libnvidia-ml.so.1\")), or make "
                 "%s Mokka's library in the container (`mokka extract-lib DIR`, mounted there)",
                 p->foreign);
        mk_dr_fail(d, fix, NO_EFFECT ": the program dlopen()s the driver library by absolute "
                   "path (%s), past LD_PRELOAD and LD_LIBRARY_PATH", p->foreign);
    } else {
        mk_dr_fail(d, "check that the path exists inside the process's root (its container), "
                   "and look for \"ld.so: object ... cannot be preloaded\" on its stderr",
                   NO_EFFECT ": %s, yet no libnvidia-ml.so.1 is mapped", p->route);
    }
}

static void check_mapping(mk_doctor *d, proc *p)
{
    if (read_maps(p) != 0) {
        mk_dr_warn(d, FIX_PERM, "cannot read /proc/%d/maps: %s", (int)p->pid, strerror(errno));
        return;
    }
    if (p->mokka[0] && !p->foreign[0]) {
        if (p->mokka_kind == MK_LIB_THIS)
            mk_dr_pass(d, "Mokka's libnvidia-ml.so.1 is mapped (%s)", p->mokka);
        else
            mk_dr_warn(d, "restart the program under this mokka to serve this build's library",
                       "a Mokka libnvidia-ml.so.1 from another build is mapped (%s)", p->mokka);
        return;
    }
    if (p->mokka[0]) {
        char fix[4400];
        snprintf(fix, sizeof fix, "load NVML by name (dlopen(\"libnvidia-ml.so.1\")), or make %s "
                 "Mokka's library (`mokka extract-lib DIR`, mounted there)", p->foreign);
        mk_dr_fail(d, fix, NO_EFFECT " for part of the program: Mokka's library (%s) and the "
                   "real NVIDIA driver library (%s) are both mapped; calls through a handle "
                   "from dlopen(\"%s\") reach the driver", p->mokka, p->foreign, p->foreign);
        return;
    }
    int preload = strncmp(p->route, "LD_PRELOAD", 10) == 0;
    pid_t parent = stripped_by_parent(p);
    if (p->foreign[0]) {
        mk_dr_fail(d, p->route[0] || parent ? "see the next line" : FIX_START,
                   HEALTHY_BUT ": the real NVIDIA driver library is mapped (%s), not Mokka's",
                   p->foreign);
    } else if (p->route[0] && !preload) {
        mk_dr_warn(d, NULL, "no libnvidia-ml.so.1 is mapped yet: the program has not loaded "
                   "NVML (its %s leads dlopen to Mokka's library when it does)", p->route);
        return;
    } else if (!p->route[0] && !parent) {
        mk_dr_fail(d, FIX_START, HEALTHY_BUT ": no libnvidia-ml.so.1 is mapped, and nothing in "
                   "its environment leads to Mokka's");
        return;
    }
    if (p->route[0] || parent)
        no_effect(d, p, parent);
}

static void check_config(mk_doctor *d, const proc *p)
{
    const char *cfg = mk_procenv_get(&p->env, "MOCK_CONFIG_PATH");
    if (!cfg || !*cfg)
        cfg = mk_procenv_get(&p->env, "MOKKA_CONFIG");
    if (!cfg || !*cfg) {
        mk_dr_warn(d, NULL, "no MOCK_CONFIG_PATH: it serves the built-in default universe");
        return;
    }
    char path[4400], *errors;
    size_t ngpus;
    mk_proc_path(p->pid, cfg, path, sizeof path);
    if (mk_config_check(path, &ngpus, &errors) == 0) {
        mk_dr_pass(d, "MOCK_CONFIG_PATH=%s loads (%zu GPUs)", cfg, ngpus);
        return;
    }
    if (errors)
        errors[strcspn(errors, "\n")] = 0;
    mk_dr_fail(d, "`mokka lint` on the file lists every problem; nvmlInit fails until it loads",
               "MOCK_CONFIG_PATH=%s does not load: %s", cfg, errors ? errors : "?");
    free(errors);
}

static void check_state(mk_doctor *d, const proc *p)
{
    const char *dir = mk_procenv_get(&p->env, "MOKKA_STATE_DIR");
    if (!dir || !*dir) {
        mk_dr_warn(d, "start it with `mokka exec` to give it one",
                   "no MOKKA_STATE_DIR: its live state is private; mokka stats, metrics and "
                   "inject cannot reach it");
        return;
    }
    char sdir[4400], state[4500], err[600];
    pid_t pids[MK_STATE_PIDS];
    mk_proc_path(p->pid, dir, sdir, sizeof sdir);
    snprintf(state, sizeof state, "%s/state", sdir);
    if (access(state, F_OK) != 0) {
        mk_dr_warn(d, NULL, "MOKKA_STATE_DIR=%s has no state file yet: the program has not "
                   "called nvmlInit", dir);
        return;
    }
    int n = mk_state_live_pids(state, pids, MK_STATE_PIDS, err, sizeof err);
    if (n < 0) {
        mk_dr_fail(d, "remove the file; the library makes a new one at its next nvmlInit",
                   "MOKKA_STATE_DIR=%s: %s", dir, err);
        return;
    }
    for (int i = 0; i < n; i++)
        if (pids[i] == p->pid) {
            mk_dr_pass(d, "the state file %s/state lists process %d as attached", dir,
                       (int)p->pid);
            return;
        }
    mk_dr_warn(d, NULL, "the state file %s/state does not list process %d: it has not called "
               "nvmlInit, has shut NVML down, or fell back to private state", dir, (int)p->pid);
}

void mk_doctor_process(mk_doctor *d, pid_t pid)
{
    proc p;
    char comm[64], dir[64];
    memset(&p, 0, sizeof p);
    p.pid = pid;
    snprintf(dir, sizeof dir, "/proc/%d", (int)pid);
    read_comm(pid, comm, sizeof comm);
    mk_dr_section(d, "process %d%s%s%s", (int)pid, comm[0] ? " (" : "", comm, comm[0] ? ")" : "");
    if (access(dir, F_OK) != 0) {
        mk_dr_fail(d, "check the pid (ps -p PID)", "no process %d", (int)pid);
        return;
    }
    p.env_ok = mk_procenv_read(pid, &p.env) == 0;
    int env_errno = errno;
    if (p.env_ok)
        mk_procenv_mokka_lib(pid, &p.env, p.route, sizeof p.route);
    check_mapping(d, &p);
    if (!p.env_ok) {
        mk_dr_warn(d, FIX_PERM, "cannot read /proc/%d/environ: %s", (int)pid, strerror(env_errno));
        return;
    }
    if (p.route[0])
        mk_dr_pass(d, "its environment leads to Mokka's library: %s", p.route);
    else
        mk_dr_fail(d, FIX_START, "neither LD_PRELOAD nor LD_LIBRARY_PATH in its environment "
                   "leads to Mokka's library");
    if (p.route[0] || p.mokka[0]) { /* the rest only matters on the mock */
        check_config(d, &p);
        check_state(d, &p);
    }
    mk_procenv_free(&p.env);
}
