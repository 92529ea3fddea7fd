/* state.c - the live-state file: layout, creation, attaching, faults and
 * wake-ups (see state.h for the model). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "ids.h"
#include "mapguard.h"
#include "state.h"
#include "strfield.h"

#define ALIGN64(x) (((x) + 63) & ~(uint64_t)63)

uint64_t mk_now_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t mk_now_real_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct {
    uint64_t off_dev, off_names, off_counters, size;
} layout;

static layout compute_layout(unsigned ndev, unsigned nfn)
{
    layout l;
    l.off_dev = ALIGN64(sizeof(mk_state_hdr));
    l.off_names = ALIGN64(l.off_dev + (uint64_t)ndev * sizeof(mk_state_dev));
    l.off_counters = ALIGN64(l.off_names + (uint64_t)nfn * MK_FN_NAME_LEN);
    l.size = ALIGN64(l.off_counters + (uint64_t)MK_STATE_SLOTS * 2 * nfn * sizeof(uint64_t));
    l.size = (l.size + 4095) & ~(uint64_t)4095;
    return l;
}

static void set_pointers(mk_state *st)
{
    char *base = (char *)st->hdr;
    st->dev = (mk_state_dev *)(base + st->hdr->off_dev);
    st->names = (char (*)[MK_FN_NAME_LEN])(base + st->hdr->off_names);
    st->counters = (_Atomic uint64_t *)(base + st->hdr->off_counters);
}

/* Starting values: what a getter would hand out first. */
static int64_t initial_value(const mk_universe *u, const mk_device *dev, int m)
{
    const mk_lv *lv = &dev->lv[m];
    switch (lv->kind) {
    case MK_LV_DRIFT:
        if (lv->start >= 0)
            return lv->start;
        return lv->lo + (int64_t)(mk_mix64(u->seed ^ ((uint64_t)dev->index << 8) ^ (uint64_t)m) %
                                  (uint64_t)(lv->hi - lv->lo + 1));
    case MK_LV_NA:
        return 0;
    default:
        return lv->lo;
    }
}

static void init_contents(mk_state *st, const mk_universe *u, const char *const *fn_names,
                          unsigned nfn, const layout *l)
{
    mk_state_hdr *h = st->hdr;
    memset(h, 0, sizeof *h);
    h->version = MK_STATE_VERSION;
    h->hdr_size = sizeof *h;
    h->file_size = l->size;
    h->ndev = (uint32_t)u->ndev;
    h->nfn = nfn;
    h->nslots = MK_STATE_SLOTS;
    h->dev_size = sizeof(mk_state_dev);
    h->off_dev = l->off_dev;
    h->off_names = l->off_names;
    h->off_counters = l->off_counters;
    h->epoch_mono_ns = mk_now_mono_ns();
    h->epoch_real_ns = mk_now_real_ns();
    mk_copy_field(h->config_path, sizeof h->config_path, u->config_path ? u->config_path : "");
    mk_copy_field(h->node, sizeof h->node, u->node);
    mk_copy_field(h->driver_version, sizeof h->driver_version, u->driver_version);
    set_pointers(st);
    for (size_t i = 0; i < u->ndev; i++) {
        const mk_device *dev = &u->dev[i];
        mk_state_dev *sd = &st->dev[i];
        memset(sd, 0, sizeof *sd);
        sd->index = dev->index;
        sd->nmig = (uint32_t)dev->nmig;
        mk_copy_field(sd->uuid, sizeof sd->uuid, dev->uuid);
        mk_copy_field(sd->name, sizeof sd->name, dev->name);
        mk_copy_field(sd->bus_id, sizeof sd->bus_id, dev->bus_id);
        for (int m = 0; m < MK_M_COUNT; m++)
            atomic_store_explicit(&sd->value[m], initial_value(u, dev, m), memory_order_relaxed);
        atomic_store_explicit(&sd->energy_ns, h->epoch_mono_ns, memory_order_relaxed);
    }
    for (unsigned f = 0; f < nfn; f++)
        mk_copy_field(st->names[f], MK_FN_NAME_LEN, fn_names[f]);
    /* Published last: a reader that sees the magic sees a complete file. */
    atomic_thread_fence(memory_order_release);
    h->magic = MK_STATE_MAGIC;
}

static int valid_header(const mk_state_hdr *h, size_t size)
{
    if (size < sizeof *h || h->magic != MK_STATE_MAGIC || h->version != MK_STATE_VERSION ||
        h->hdr_size != sizeof *h || h->dev_size != sizeof(mk_state_dev) || h->file_size > size)
        return 0;
    layout l = compute_layout(h->ndev, h->nfn);
    return l.size == h->file_size && l.off_dev == h->off_dev && l.off_names == h->off_names &&
           l.off_counters == h->off_counters;
}

static int same_universe(const mk_state *st, const mk_universe *u, const char *const *fn_names,
                         unsigned nfn)
{
    if (st->hdr->ndev != u->ndev || st->hdr->nfn != nfn)
        return 0;
    /* What a hot reload may not change (mk_universe_same_identity). */
    for (size_t i = 0; i < u->ndev; i++)
        if (strcmp(st->dev[i].uuid, u->dev[i].uuid) != 0 ||
            strcmp(st->dev[i].bus_id, u->dev[i].bus_id) != 0 || st->dev[i].nmig != u->dev[i].nmig)
            return 0;
    for (unsigned f = 0; f < nfn; f++)
        if (strcmp(st->names[f], fn_names[f]) != 0)
            return 0;
    return 1;
}

static void attach_pid(mk_state *st)
{
    int32_t me = (int32_t)getpid();
    for (int i = 0; i < MK_STATE_PIDS; i++) {
        int32_t p = atomic_load(&st->hdr->pids[i]);
        if (p == me)
            return;
        if (p == 0 || (kill(p, 0) != 0 && errno == ESRCH))
            if (atomic_compare_exchange_strong(&st->hdr->pids[i], &p, me))
                return;
    }
}

/* What a process does once its state file shrank under it (mapguard.h). */
static const char LIB_AFTER[] =
    "this process goes on from a private copy (mokka stats and inject no longer reach it)";
static const char CLI_AFTER[] =
    "this command goes on from a private copy (what it reads or writes from now on is not "
    "the live state)";

/* Maps the file shared, guarded: a process must not die of SIGBUS when
 * someone truncates the file while it runs (mapguard.c). */
static int map_file(mk_state *st, int fd, size_t size, const char *after, char *err,
                    size_t errlen)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "cannot map %s: %s", st->path, strerror(errno));
        return -1;
    }
    mk_mapguard_add(p, size, fd, st->path, after);
    st->hdr = p;
    st->size = size;
    st->shared = 1;
    return 0;
}

/* Once the header is known good: what the guard rebuilds the mapping from
 * if the file loses it (the header and the devices; the counters start
 * again from zero), and what identifies this file (the layout and the
 * epochs: a file made again has other epochs). */
static void keep_snapshot(mk_state *st)
{
    mk_mapguard_snapshot(st->hdr, st->hdr->off_counters, offsetof(mk_state_hdr, wake));
}

static void unmap(mk_state *st)
{
    if (st->shared)
        mk_mapguard_del(st->hdr);
    munmap(st->hdr, st->size);
    st->hdr = NULL;
}

enum { ABSENT, OURS, FOREIGN };

/* Maps an existing state file if it is one of ours: OURS (mapped), ABSENT,
 * FOREIGN (another program's file, or an older Mokka's), or -1 on error. */
static int try_existing(mk_state *st, const char *after, char *err, size_t errlen)
{
    int fd = open(st->path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return ABSENT;
        snprintf(err, errlen, "cannot open %s: %s", st->path, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 || (size_t)sb.st_size < sizeof(mk_state_hdr)) {
        close(fd);
        return FOREIGN;
    }
    int rc = map_file(st, fd, (size_t)sb.st_size, after, err, errlen);
    close(fd);
    if (rc)
        return -1;
    if (!valid_header(st->hdr, st->size)) {
        unmap(st);
        return FOREIGN;
    }
    set_pointers(st);
    keep_snapshot(st);
    return OURS;
}

/* Creates the file under a temporary name and publishes it with link()
 * (fails if another process won the race) or rename() (replacing). */
static int create_file(mk_state *st, const mk_universe *u, const char *const *fn_names,
                       unsigned nfn, int replace, char *err, size_t errlen)
{
    layout l = compute_layout((unsigned)u->ndev, nfn);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%d.%llx", st->path, (int)getpid(),
             (unsigned long long)mk_now_mono_ns());
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)l.size) != 0 || map_file(st, fd, l.size, LIB_AFTER, err, errlen) != 0) {
        if (!err[0])
            snprintf(err, errlen, "cannot size %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return -1;
    }
    close(fd);
    init_contents(st, u, fn_names, nfn, &l);
    keep_snapshot(st);
    int rc = replace ? rename(tmp, st->path) : link(tmp, st->path);
    int e = errno;
    if (!replace)
        unlink(tmp);
    if (rc != 0) {
        unmap(st);
        if (!replace && e == EEXIST)
            return 0; /* lost the race: attach to the winner's file */
        unlink(tmp);
        snprintf(err, errlen, "cannot publish %s: %s", st->path, strerror(e));
        return -1;
    }
    return 1;
}

static int open_private(mk_state *st, const mk_universe *u, const char *const *fn_names,
                        unsigned nfn, char *err, size_t errlen)
{
    layout l = compute_layout((unsigned)u->ndev, nfn);
    void *p = mmap(NULL, l.size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        snprintf(err, errlen, "cannot allocate live state: %s", strerror(errno));
        return -1;
    }
    st->hdr = p;
    st->size = l.size;
    st->shared = 0;
    init_contents(st, u, fn_names, nfn, &l);
    return 0;
}

int mk_pid_alive(int32_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* The first live process attached to the state, other than this one; 0
 * when none is. */
static int32_t live_holder(const mk_state *st)
{
    int32_t me = (int32_t)getpid();
    for (int i = 0; i < MK_STATE_PIDS; i++) {
        int32_t p = atomic_load(&st->hdr->pids[i]);
        if (p != me && mk_pid_alive(p))
            return p;
    }
    return 0;
}

/* A state of another universe that running processes use is theirs: the
 * file stays, and this process is told whose it is and what to do (one
 * universe per directory; replacing it would take the running programs
 * out of `mokka stats` and `inject` without a word). */
static void refuse_taken(const mk_state *st, int32_t holder, char *err, size_t errlen)
{
    const mk_state_hdr *h = st->hdr;
    char dir[4096];
    const char *slash = strrchr(st->path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - st->path) : 0, st->path);
    snprintf(err, errlen, "state directory %s is in use by pid %d with another universe "
             "(%u GPU%s, config %.300s%s%.200s); give this program a state directory of its "
             "own (MOKKA_STATE_DIR, mokka exec --state-dir) or stop pid %d first",
             dir, (int)holder, h->ndev, h->ndev == 1 ? "" : "s",
             h->config_path[0] ? h->config_path : "(built-in)", h->node[0] ? ", node " : "",
             h->node, (int)holder);
}

/* Attaches to st->path, first replacing a file that is not for u (unless
 * running processes use it: refuse_taken). */
static int settle(mk_state *st, const mk_universe *u, const char *const *fn_names, unsigned nfn,
                  char *err, size_t errlen)
{
    for (int attempt = 0; attempt < 5; attempt++) {
        int rc = try_existing(st, LIB_AFTER, err, errlen);
        if (rc < 0)
            return -1;
        if (rc == OURS && same_universe(st, u, fn_names, nfn)) {
            attach_pid(st);
            return 0;
        }
        if (rc == OURS) {
            int32_t holder = live_holder(st);
            if (holder) {
                refuse_taken(st, holder, err, errlen);
                unmap(st);
                return -1;
            }
            unmap(st);
        }
        rc = create_file(st, u, fn_names, nfn, rc != ABSENT, err, errlen);
        if (rc < 0)
            return -1;
        if (rc == 1) {
            attach_pid(st);
            return 0;
        }
    }
    return -1;
}

int mk_state_open(mk_state *st, const char *dir, const mk_universe *u,
                  const char *const *fn_names, unsigned nfn, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    err[0] = 0;
    if (!dir || !*dir)
        return open_private(st, u, fn_names, nfn, err, errlen);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create state directory %s: %s", dir, strerror(errno));
        return -1;
    }
    snprintf(st->path, sizeof st->path, "%s/state", dir);
    /* Processes starting together take turns (a lock on the directory), so
     * that two of them never both replace a file and end up apart. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0)
        while (flock(dfd, LOCK_EX) != 0 && errno == EINTR)
            ;
    int rc = settle(st, u, fn_names, nfn, err, errlen);
    if (rc != 0 && !err[0])
        snprintf(err, errlen, "cannot settle on a state file in %s (too much contention)", dir);
    if (dfd >= 0)
        close(dfd);
    return rc;
}

int mk_state_open_existing(mk_state *st, const char *path, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    snprintf(st->path, sizeof st->path, "%s", path);
    int rc = try_existing(st, CLI_AFTER, err, errlen);
    if (rc == ABSENT)
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(ENOENT));
    else if (rc == FOREIGN)
        snprintf(err, errlen, "%s is not a Mokka state file (or it is from another version)", path);
    return rc == OURS ? 0 : -1;
}

void mk_state_close(mk_state *st)
{
    if (!st->hdr)
        return;
    if (st->shared && !mk_state_detached(st)) {
        int32_t me = (int32_t)getpid();
        for (int i = 0; i < MK_STATE_PIDS; i++) {
            int32_t p = me;
            atomic_compare_exchange_strong(&st->hdr->pids[i], &p, 0);
        }
    }
    unmap(st);
}

int mk_state_detached(const mk_state *st)
{
    return st->shared && mk_mapguard_private(st->hdr);
}

uint64_t mk_state_calls(const mk_state *st, unsigned fn, uint64_t *unsupported)
{
    uint64_t calls = 0, uns = 0;
    unsigned nfn = st->hdr->nfn;
    for (unsigned s = 0; s < st->hdr->nslots; s++) {
        _Atomic uint64_t *row = st->counters + (size_t)s * 2 * nfn;
        calls += atomic_load_explicit(&row[fn], memory_order_relaxed);
        uns += atomic_load_explicit(&row[nfn + fn], memory_order_relaxed);
    }
    if (unsupported)
        *unsupported = uns;
    return calls;
}

/* --- faults and commands ----------------------------------------------------- */

static void push_event(mk_state_dev *sd, mk_event_kind kind, unsigned xid, int mig)
{
    uint64_t seq = atomic_fetch_add(&sd->fault_seq, 1) + 1;
    mk_fault_rec *r = &sd->ring[seq % MK_FAULT_RING];
    atomic_store_explicit(&r->seq, 0, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&r->kind, kind, memory_order_relaxed);
    atomic_store_explicit(&r->xid, xid, memory_order_relaxed);
    atomic_store_explicit(&r->mig, mig, memory_order_relaxed);
    atomic_store_explicit(&r->time_ns, mk_now_real_ns(), memory_order_relaxed);
    atomic_store_explicit(&r->seq, seq, memory_order_release);
}

static void set_health(mk_state_dev *sd, mk_fault_mode mode)
{
    uint32_t h = atomic_load(&sd->health);
    uint64_t before = atomic_load(&sd->fault_seq);
    /* A lost GPU stays lost; anything else takes the newest fault. */
    while (h != MK_FAULT_LOST && !atomic_compare_exchange_weak(&sd->health, &h, (uint32_t)mode))
        ;
    if (h == MK_FAULT_NONE)
        atomic_store(&sd->fault_start_seq, before); /* where this broken spell's events begin */
}

void mk_state_raise(mk_state *st, unsigned dev, mk_fault_mode mode, unsigned xid, int mig)
{
    mk_state_dev *sd = &st->dev[dev];
    if (mode == MK_FAULT_ECC) {
        mk_state_raise_ecc(st, dev, 1, mig);
        return;
    }
    set_health(sd, mode);
    atomic_store(&sd->last_xid, xid);
    atomic_fetch_add(&sd->xid_count, 1);
    push_event(sd, MK_EV_XID, xid, mig);
    mk_state_wake(st);
}

void mk_state_raise_ecc(mk_state *st, unsigned dev, int double_bit, int mig)
{
    mk_state_dev *sd = &st->dev[dev];
    if (double_bit) {
        /* A double-bit error makes the GPU unhealthy; the driver reports it
         * as a DBE event and as XID 48, which is what the device plugin
         * acts on. */
        set_health(sd, MK_FAULT_ECC);
        atomic_fetch_add(&sd->ecc_dbe, 1);
        uint64_t zero = 0;
        atomic_compare_exchange_strong(&sd->ecc_since_ns, &zero, mk_now_mono_ns());
        push_event(sd, MK_EV_ECC_DBE, 0, mig);
        atomic_store(&sd->last_xid, 48);
        atomic_fetch_add(&sd->xid_count, 1);
        push_event(sd, MK_EV_XID, 48, mig);
    } else {
        atomic_fetch_add(&sd->ecc_sbe, 1);
        push_event(sd, MK_EV_ECC_SBE, 0, mig);
    }
    mk_state_wake(st);
}

void mk_state_mark_healthy(mk_state *st, unsigned dev)
{
    mk_state_dev *sd = &st->dev[dev];
    atomic_store(&sd->health, MK_FAULT_NONE);
    atomic_store(&sd->ecc_since_ns, 0);
    /* Rules stay fired: a GPU marked healthy by hand is not broken again by
     * the rule that broke it (until the config changes). */
    atomic_store(&sd->rules_fired, MK_RULE_AFTER | MK_RULE_TEMP | MK_RULE_MEM);
    mk_state_wake(st);
}

void mk_state_hold(mk_state *st, unsigned dev, mk_fault_mode mode, unsigned xid)
{
    if (mode == MK_FAULT_NONE) {
        mk_state_mark_healthy(st, dev);
        return;
    }
    if (xid)
        atomic_store(&st->dev[dev].last_xid, xid);
    atomic_store(&st->dev[dev].health, (uint32_t)mode);
    mk_state_wake(st);
}

void mk_state_pin(mk_state *st, unsigned dev, mk_metric m, int64_t v)
{
    mk_state_dev *sd = &st->dev[dev];
    atomic_store(&sd->pinned[m], v);
    atomic_store(&sd->value[m], v);
    atomic_fetch_or(&sd->pinned_mask, 1u << m);
    mk_state_wake(st);
}

void mk_state_fabric(mk_state *st, unsigned dev, uint64_t word)
{
    atomic_store(&st->dev[dev].fabric, word);
    mk_state_wake(st);
}

void mk_state_unpin(mk_state *st, unsigned dev, mk_metric m)
{
    atomic_fetch_and(&st->dev[dev].pinned_mask, ~(1u << m));
    mk_state_wake(st);
}

void mk_state_wake(mk_state *st)
{
    atomic_fetch_add(&st->hdr->wake, 1);
    syscall(SYS_futex, &st->hdr->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void mk_state_wait(mk_state *st, uint32_t seen, uint64_t timeout_ns)
{
    struct timespec ts = { (time_t)(timeout_ns / 1000000000ull), (long)(timeout_ns % 1000000000ull) };
    /* Shared (not FUTEX_PRIVATE) so that other processes' wakes reach us. */
    syscall(SYS_futex, &st->hdr->wake, FUTEX_WAIT, seen, &ts, NULL, 0);
}
