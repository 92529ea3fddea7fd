/* mapguard.c - the SIGBUS guard of the library's own shared file mappings
 * (the live state, state.c).
 *
 * The hot path reads and writes the state file through a MAP_SHARED mapping:
 * plain loads, stores and atomics, no syscall. When someone truncates the
 * file while a process uses it, the kernel drops the pages past the new end
 * and the next access there is a SIGBUS: a host process (a device plugin,
 * an exporter, `mokka stats`) would die of Mokka's file. No user-space check
 * can close that window, so the guard catches the fault itself: when a
 * SIGBUS with BUS_ADRERR hits a registered mapping, the handler builds a
 * private anonymous copy at a new address (the snapshot taken at attach,
 * then whatever the file still holds, read with pread, which returns short
 * instead of faulting) and moves it over the mapping with one mremap, so
 * other threads see the old mapping or the copy, never a hole. The access
 * then runs again on the copy. One thread does the replacement; others that
 * fault meanwhile wait for it. It says so once on stderr (write(2): only
 * async-signal-safe calls in the handler).
 *
 * Every other SIGBUS belongs to the host, which owns its signals: Go's
 * runtime (NVIDIA's device plugin dlopens NVML after Go installed its
 * handlers, so ours runs first and must hand Go its own faults), Python's
 * faulthandler, ASan and TSan. So the handler chains to the action it
 * replaced, exactly as it was: an SA_SIGINFO handler gets (sig, info,
 * context), a plain one gets (sig); the default action is restored and the
 * fault runs again, so the process dies of SIGBUS (core dump and all) as it
 * would have without us. The guard is registered per mapping in a small
 * fixed table, published with atomics (no lock: the handler reads it).
 * The handler is the library's code: the library pins itself in memory
 * before installing it, since a host that dlcloses it (go-nvml does at
 * nvmlShutdown) would otherwise leave SIGBUS pointing at unmapped code. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>
#include "mapguard.h"

#define MAX_GUARDS 16
#define PATH_LEN 4096

enum { LIVE, REPLACING, REPLACED };

typedef struct guard {
    _Atomic int used;              /* slot claimed */
    _Atomic uintptr_t addr;        /* published last; 0: free */
    size_t len;
    int fd;                        /* our duplicate of the file's fd */
    dev_t dev;
    ino_t ino;
    const char *after;
    char path[PATH_LEN];
    unsigned char *snap;           /* private copy of the first snap_len bytes */
    size_t key_len;
    _Atomic size_t snap_len;       /* published after snap and key_len */
    _Atomic int phase;             /* LIVE -> REPLACING -> REPLACED */
} guard;

static guard guards[MAX_GUARDS];
static struct sigaction prev;      /* the action ours replaced */
/* NONE, DONE, CANNOT, or the pid of the process one of whose threads is
 * installing: a child forked meanwhile sees its parent's pid there, an
 * install no thread of its own will finish, and starts it over. */
enum { NONE = 0, DONE = -1, CANNOT = -2 };
static _Atomic int installed;

/* --- the handler (async-signal-safe from here to on_sigbus) ------------------- */

static guard *guard_of(uintptr_t a)
{
    for (int i = 0; i < MAX_GUARDS; i++) {
        uintptr_t base = atomic_load_explicit(&guards[i].addr, memory_order_acquire);
        if (base && a >= base && a - base < guards[i].len)
            return &guards[i];
    }
    return NULL;
}

/* The file's fd if it is still the file we mapped (a host may have closed
 * our duplicate and reused its number), else the path if it names that
 * file; -1 when neither does. *opened says whether to close it. */
static int file_fd(const guard *g, int *opened, off_t *size)
{
    struct stat sb;
    *opened = 0;
    if (fstat(g->fd, &sb) == 0 && sb.st_dev == g->dev && sb.st_ino == g->ino) {
        *size = sb.st_size;
        return g->fd;
    }
    int fd = open(g->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_dev == g->dev && sb.st_ino == g->ino) {
        *opened = 1;
        *size = sb.st_size;
        return fd;
    }
    if (fd >= 0)
        close(fd);
    return -1;
}

/* Reads what the file still holds into buf; the count read. */
static size_t read_file(int fd, unsigned char *buf, size_t len)
{
    size_t got = 0;
    while (fd >= 0 && got < len) {
        ssize_t n = pread(fd, buf + got, len - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

/* The copy's contents: the file's bytes while it still begins with the
 * snapshot's key (the same contents, perhaps newer), the snapshot where the
 * file ends or holds something else. */
static void fill(const guard *g, unsigned char *buf, int fd)
{
    size_t snap_len = atomic_load_explicit(&g->snap_len, memory_order_acquire);
    size_t got = read_file(fd, buf, g->len);
    int same = snap_len && got >= g->key_len && memcmp(buf, g->snap, g->key_len) == 0;
    if (!same && snap_len)
        got = 0; /* another file's bytes: the snapshot and zeros instead */
    if (got < snap_len)
        memcpy(buf + got, g->snap + got, snap_len - got);
    if (!same && snap_len < g->len)
        memset(buf + snap_len, 0, g->len - snap_len);
}

static char *put_str(char *p, char *end, const char *s)
{
    while (*s && p < end)
        *p++ = *s++;
    return p;
}

static char *put_num(char *p, char *end, unsigned long long v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) && n < (int)sizeof digits);
    while (n && p < end)
        *p++ = digits[--n];
    return p;
}

static void say(const guard *g, int fd, off_t size)
{
    char line[PATH_LEN + 512];
    char *p = line, *end = line + sizeof line - 1;
    p = put_str(p, end, "mokka: live state: ");
    p = put_str(p, end, g->path);
    if (fd < 0) {
        p = put_str(p, end, " was truncated or replaced while in use");
    } else if ((size_t)size < g->len) {
        p = put_str(p, end, " was truncated while in use (size now ");
        p = put_num(p, end, (unsigned long long)size);
        p = put_str(p, end, " bytes of ");
        p = put_num(p, end, (unsigned long long)g->len);
        p = put_str(p, end, ")");
    } else {
        p = put_str(p, end, " could not back its memory (file system full?)");
    }
    p = put_str(p, end, "; ");
    p = put_str(p, end, g->after);
    *p++ = '\n';
    for (const char *q = line; q < p;) {
        ssize_t n = write(STDERR_FILENO, q, (size_t)(p - q));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        q += n;
    }
}

/* Moves a private copy over the mapping in one step. */
static void replace(guard *g)
{
    void *old = (void *)atomic_load(&g->addr);
    int opened;
    off_t size = 0;
    int fd = file_fd(g, &opened, &size);
    void *fresh = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (fresh != MAP_FAILED) {
        fill(g, fresh, fd);
        if (mremap(fresh, g->len, g->len, MREMAP_MAYMOVE | MREMAP_FIXED, old) == MAP_FAILED) {
            munmap(fresh, g->len);
            fresh = MAP_FAILED;
        }
    }
    if (fresh == MAP_FAILED) /* no memory for a copy: zeros in place, still alive */
        mmap(old, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    say(g, fd, size);
    if (opened)
        close(fd);
}

static void recover(guard *g)
{
    int expect = LIVE;
    if (atomic_compare_exchange_strong(&g->phase, &expect, REPLACING)) {
        replace(g);
        atomic_store(&g->phase, REPLACED);
        return;
    }
    while (atomic_load(&g->phase) != REPLACED)
        sched_yield();
}

/* Not ours: what the replaced action would have done. */
static void chain(int sig, siginfo_t *si, void *ctx)
{
    if (prev.sa_flags & SA_SIGINFO) {
        prev.sa_sigaction(sig, si, ctx);
        return;
    }
    if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
        prev.sa_handler(sig);
        return;
    }
    int sent = si->si_code <= 0; /* kill(2), sigqueue(3): not a fault */
    if (prev.sa_handler == SIG_IGN && sent)
        return;
    /* SIG_DFL, or SIG_IGN (which cannot ignore a fault): the default
     * action, from the fault running again or the signal sent again. */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGBUS, &dfl, NULL);
    if (sent)
        kill(getpid(), SIGBUS); /* pending until the handler returns */
}

static void on_sigbus(int sig, siginfo_t *si, void *ctx)
{
    int saved = errno;
    guard *g = si && si->si_code == BUS_ADRERR ? guard_of((uintptr_t)si->si_addr) : NULL;
    if (g)
        recover(g);
    else
        chain(sig, si, ctx);
    errno = saved;
}

/* --- registering ------------------------------------------------------------- */

/* Keeps the object holding the handler loaded for good: 1 when it is
 * (the program itself always is). */
static int pin_self(void)
{
    Dl_info self, prog;
    if (!dladdr((void *)on_sigbus, &self) || !self.dli_fname)
        return 0;
    if (dladdr((void *)getauxval(AT_PHDR), &prog) && prog.dli_fbase == self.dli_fbase)
        return 1;
    return dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != NULL;
}

/* 1 once the handler is installed. */
static int install(void)
{
    int me = (int)getpid();
    for (;;) {
        int seen = atomic_load(&installed);
        if (seen == DONE || seen == CANNOT)
            return seen == DONE;
        if (seen > 0 && seen != me) { /* forked while the parent installed */
            atomic_compare_exchange_strong(&installed, &seen, NONE);
            continue;
        }
        int expect = NONE;
        if (seen == NONE && atomic_compare_exchange_strong(&installed, &expect, me))
            break;
        sched_yield(); /* another thread of this process is installing */
    }
    if (!pin_self()) {
        atomic_store(&installed, CANNOT); /* unguarded: better than a dangling handler */
        return 0;
    }
    struct sigaction sa, cur;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigaction(SIGBUS, NULL, &cur);
    /* Ours already, from a parent forked between its two sigaction calls:
     * prev, saved before, is the host's. */
    if (!((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_sigbus))
        prev = cur;
    /* The replaced handler runs from ours: block what it asked to block. */
    sa.sa_mask = prev.sa_mask;
    sigaction(SIGBUS, &sa, NULL);
    atomic_store(&installed, DONE);
    return 1;
}

int mk_mapguard_add(void *addr, size_t len, int fd, const char *path, const char *after)
{
    struct stat sb;
    if (!addr || !len || fstat(fd, &sb) != 0)
        return -1;
    for (int i = 0; i < MAX_GUARDS; i++) {
        guard *g = &guards[i];
        int expect = 0;
        if (!atomic_compare_exchange_strong(&g->used, &expect, 1))
            continue;
        g->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
        if (g->fd < 0) {
            atomic_store(&g->used, 0);
            return -1;
        }
        g->len = len;
        g->dev = sb.st_dev;
        g->ino = sb.st_ino;
        g->after = after;
        size_t n = strlen(path);
        n = n < PATH_LEN - 1 ? n : PATH_LEN - 1;
        memcpy(g->path, path, n);
        g->path[n] = 0;
        g->snap = NULL;
        g->key_len = 0;
        atomic_store(&g->snap_len, 0);
        atomic_store(&g->phase, LIVE);
        if (!install()) {
            close(g->fd);
            atomic_store(&g->used, 0);
            return -1;
        }
        atomic_store_explicit(&g->addr, (uintptr_t)addr, memory_order_release);
        return 0;
    }
    return -1;
}

static guard *find(const void *addr)
{
    for (int i = 0; i < MAX_GUARDS; i++)
        if (addr && atomic_load(&guards[i].addr) == (uintptr_t)addr)
            return &guards[i];
    return NULL;
}

void mk_mapguard_snapshot(void *addr, size_t snap_len, size_t key_len)
{
    guard *g = find(addr);
    if (!g || snap_len > g->len || key_len > snap_len || atomic_load(&g->snap_len))
        return;
    void *copy = mmap(NULL, snap_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (copy == MAP_FAILED)
        return;
    /* If the file shrinks while this copies, the guard rebuilds the mapping
     * from the file alone (no snapshot yet) and the copy goes on from that. */
    memcpy(copy, addr, snap_len);
    g->snap = copy;
    g->key_len = key_len;
    atomic_store_explicit(&g->snap_len, snap_len, memory_order_release);
}

void mk_mapguard_del(void *addr)
{
    guard *g = find(addr);
    if (!g)
        return;
    atomic_store(&g->addr, 0);
    size_t snap_len = atomic_load(&g->snap_len);
    if (snap_len)
        munmap(g->snap, snap_len);
    close(g->fd);
    atomic_store(&g->used, 0);
}

int mk_mapguard_private(const void *addr)
{
    guard *g = find(addr);
    return g && atomic_load(&g->phase) != LIVE;
}
