/* state.h - the live state of a universe: current metric values, health and
 * faults, and per-function call counters, in one memory-mapped file.
 *
 * With MOKKA_STATE_DIR set, the file is MOKKA_STATE_DIR/state, shared by
 * every process on the mock that names that directory (a plugin and its
 * restarts, smi, exporters) and read or written by the mokka CLI (stats,
 * metrics, inject, suites). Without it, the same layout lives in private
 * memory. Writers never take a lock: values are atomics, faults go into a
 * per-device ring indexed by a sequence number, and a futex word in the file
 * wakes every process waiting for events (nvmlEventSetWait) when anything
 * happens. A file truncated under a process does not kill it: the mapping
 * turns into a private copy (mapguard.h). Call counters have one row per
 * thread slot so that threads do not fight over cache lines on the hot
 * path. */
#ifndef MOKKA_STATE_H
#define MOKKA_STATE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include "universe.h"

#define MK_STATE_MAGIC   0x31534b4b4f4dull   /* "MOKKS1" */
#define MK_STATE_VERSION 3   /* 3: mk_state_dev.fabric */
#define MK_STATE_SLOTS   64     /* counter rows; threads beyond share rows atomically */
#define MK_FAULT_RING    16
#define MK_FN_NAME_LEN   64
#define MK_STATE_PIDS    32

/* What a fault looks like as an NVML event. */
typedef enum {
    MK_EV_XID = 1,      /* nvmlEventTypeXidCriticalError */
    MK_EV_ECC_SBE = 2,  /* nvmlEventTypeSingleBitEccError */
    MK_EV_ECC_DBE = 3   /* nvmlEventTypeDoubleBitEccError */
} mk_event_kind;

/* A sequence lock per record: the writer zeroes seq, fills the fields and
 * stores seq last; a reader reads seq, the fields, and seq again. The fields
 * are atomics (relaxed) so that a read racing a rewrite is not a data race. */
typedef struct mk_fault_rec {
    _Atomic uint64_t seq;
    _Atomic uint32_t kind;  /* mk_event_kind */
    _Atomic uint32_t xid;
    _Atomic int32_t mig;    /* MIG device index on this GPU, -1 for the whole GPU */
    uint32_t pad;
    _Atomic uint64_t time_ns; /* CLOCK_REALTIME */
} mk_fault_rec;

/* Rules that already fired (bits), so each fires once per device. */
enum { MK_RULE_AFTER = 1, MK_RULE_TEMP = 2, MK_RULE_MEM = 4 };

typedef struct mk_state_dev {
    _Atomic int64_t value[MK_M_COUNT];      /* last value handed out */
    _Atomic int64_t pinned[MK_M_COUNT];     /* value set by `mokka inject --set` */
    _Atomic uint32_t pinned_mask;           /* bit per metric */
    _Atomic uint32_t health;                /* mk_fault_mode; MK_FAULT_NONE = healthy */
    _Atomic uint32_t last_xid;
    _Atomic uint32_t rules_fired;           /* MK_RULE_* */
    _Atomic uint64_t fault_seq;             /* faults raised so far */
    _Atomic uint64_t fault_start_seq;       /* fault_seq when the GPU last turned unhealthy */
    _Atomic uint64_t xid_count;
    _Atomic uint64_t ecc_sbe, ecc_dbe;      /* volatile ECC error counts */
    _Atomic uint64_t ecc_since_ns;          /* ECC fault time: SBE counts rise after it */
    _Atomic uint64_t energy_mj;             /* energy integrated up to energy_ns */
    _Atomic uint64_t energy_ns;             /* CLOCK_MONOTONIC */
    _Atomic uint64_t fabric;                /* NVLink fabric state, status and health set by
                                             * `mokka inject` (fabric.h); 0: the config's */
    mk_fault_rec ring[MK_FAULT_RING];
    uint32_t index;
    uint32_t nmig;
    char uuid[MK_UUID_LEN];
    char name[MK_NAME_LEN];
    char bus_id[MK_SHORT_LEN];
} __attribute__((aligned(64))) mk_state_dev;

typedef struct mk_state_hdr {
    uint64_t magic;
    uint32_t version;
    uint32_t hdr_size;
    uint64_t file_size;
    uint32_t ndev, nfn, nslots, dev_size;
    uint64_t off_dev, off_names, off_counters;
    uint64_t epoch_mono_ns;                 /* CLOCK_MONOTONIC when the universe started */
    uint64_t epoch_real_ns;                 /* CLOCK_REALTIME, same moment */
    _Atomic uint32_t wake;                  /* futex word, bumped on every fault and command */
    _Atomic uint32_t reloads;               /* config reloads applied */
    _Atomic int32_t pids[MK_STATE_PIDS];    /* processes attached (slots reused when dead) */
    char config_path[512];
    char node[256];
    char driver_version[MK_DRIVER_VERSION_LEN];
} mk_state_hdr;

typedef struct mk_state {
    mk_state_hdr *hdr;
    mk_state_dev *dev;          /* hdr->ndev entries */
    char (*names)[MK_FN_NAME_LEN];
    _Atomic uint64_t *counters; /* [slot][2][nfn]: calls, then NOT_SUPPORTED answers */
    size_t size;
    int shared;                 /* backed by a file in a state directory */
    char path[4096];
} mk_state;

/* Attaches to (or creates) the state for universe u: MOKKA_STATE_DIR/state
 * when dir is non-NULL, else private memory. fn_names has nfn names. A state
 * file made for another universe (other GPU count or UUIDs) is replaced,
 * unless a running process other than this one is attached to it: then it
 * is left alone and err names the directory, that process and what to do.
 * Returns 0, or -1 with a message in err. */
int mk_state_open(mk_state *st, const char *dir, const mk_universe *u,
                  const char *const *fn_names, unsigned nfn, char *err, size_t errlen);
/* Maps an existing state file for the CLI (read and write). */
int mk_state_open_existing(mk_state *st, const char *path, char *err, size_t errlen);
void mk_state_close(mk_state *st);
/* 1 once the state file shrank under this process (truncated while in
 * use): the guard (mapguard.h) replaced the mapping by a private copy, so
 * nothing this process reads or writes reaches other processes any more. */
int mk_state_detached(const mk_state *st);

/* Whether process pid exists (kill(pid, 0) succeeds or is refused). */
int mk_pid_alive(int32_t pid);

uint64_t mk_now_mono_ns(void);
uint64_t mk_now_real_ns(void);

/* Call counters (hot path): slot is the caller's thread slot. */
static inline void mk_state_count(mk_state *st, unsigned slot, unsigned fn, int unsupported)
{
    _Atomic uint64_t *row = st->counters + (size_t)slot * 2 * st->hdr->nfn;
    atomic_fetch_add_explicit(&row[fn], 1, memory_order_relaxed);
    if (unsupported)
        atomic_fetch_add_explicit(&row[st->hdr->nfn + fn], 1, memory_order_relaxed);
}
/* Sums over slots. */
uint64_t mk_state_calls(const mk_state *st, unsigned fn, uint64_t *unsupported);

/* Faults and commands: safe from any process, any thread. */
void mk_state_raise(mk_state *st, unsigned dev, mk_fault_mode mode, unsigned xid, int mig);
void mk_state_raise_ecc(mk_state *st, unsigned dev, int double_bit, int mig);
void mk_state_mark_healthy(mk_state *st, unsigned dev);
/* Sets the health to `mode` without an event: what a GPU shows when one of
 * the faults that broke it is cleared and another still holds (lost too:
 * a cleared lost GPU under an XID fault is back, unhealthy). `xid` is the
 * XID of the fault that holds, shown as the last one (what reset status
 * follows); 0 keeps the last one. NONE marks it healthy. */
void mk_state_hold(mk_state *st, unsigned dev, mk_fault_mode mode, unsigned xid);
void mk_state_pin(mk_state *st, unsigned dev, mk_metric m, int64_t v);
/* Sets the NVLink fabric override (mk_fabric_pack; 0: back to the config's). */
void mk_state_fabric(mk_state *st, unsigned dev, uint64_t word);
void mk_state_unpin(mk_state *st, unsigned dev, mk_metric m);
/* Wakes every process waiting on this state. */
void mk_state_wake(mk_state *st);
/* Waits until hdr->wake differs from `seen` or timeout_ns passes. */
void mk_state_wait(mk_state *st, uint32_t seen, uint64_t timeout_ns);

#endif
