/* nvml_events.c - event sets: nvmlEventSetCreate/Free, RegisterEvents,
 * GetSupportedEventTypes and nvmlEventSetWait (v1 and v2).
 *
 * Faults live in the shared state file (state.h), one ring per GPU; an event
 * set remembers, per GPU, the mask registered and how far it has read. A wait
 * sleeps on the state file's futex word, so an injection from `mokka inject`
 * in another process wakes it at once. It holds no lock while sleeping, and
 * the set's own lock is never one that getters take. Waiting is also where
 * time-based health rules fire and the config file is looked at, because a
 * device plugin spends its life here. */
#include <stdlib.h>
#include "nvml_impl.h"

#define MK_EVENTS_SUPPORTED (nvmlEventTypeXidCriticalError | nvmlEventTypePState | \
                             nvmlEventTypeClock)
#define MK_EVENTS_ECC (nvmlEventTypeSingleBitEccError | nvmlEventTypeDoubleBitEccError)
#define MAX_SLEEP_NS 500000000ull

struct nvmlEventSet_st {
    pthread_mutex_t lock;
    size_t ngpus;
    unsigned long long *mask;   /* per GPU */
    uint64_t *seen;             /* per GPU: fault sequence read so far */
};

static pthread_mutex_t sets_lock = PTHREAD_MUTEX_INITIALIZER;
static nvmlEventSet_t sets[MK_MAX_EVENT_SETS];

static void sets_child(void)
{
    pthread_mutex_init(&sets_lock, NULL);
    for (size_t i = 0; i < MK_MAX_EVENT_SETS; i++)
        if (sets[i])
            pthread_mutex_init(&sets[i]->lock, NULL);
}

static void sets_atfork(void)
{
    pthread_atfork(NULL, NULL, sets_child);
}

/* A set handle is only trusted if it is one we handed out and did not free. */
static int set_valid(nvmlEventSet_t set)
{
    int ok = 0;
    if (!set)
        return 0;
    pthread_mutex_lock(&sets_lock);
    for (size_t i = 0; i < MK_MAX_EVENT_SETS && !ok; i++)
        ok = sets[i] == set;
    pthread_mutex_unlock(&sets_lock);
    return ok;
}

static unsigned long long supported_types(const mk_device *d)
{
    return MK_EVENTS_SUPPORTED | (d->ecc_enabled ? MK_EVENTS_ECC : 0);
}

MK_API nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    MK_ENTER(nvmlEventSetCreate);
    MK_NONNULL(set);
    pthread_once(&once, sets_atfork);
    struct nvmlEventSet_st *s = calloc(1, sizeof *s);
    if (!s)
        return NVML_ERROR_MEMORY;
    s->ngpus = mk_L.ngpus;
    s->mask = calloc(s->ngpus ? s->ngpus : 1, sizeof *s->mask);
    s->seen = calloc(s->ngpus ? s->ngpus : 1, sizeof *s->seen);
    pthread_mutex_init(&s->lock, NULL);
    int placed = 0;
    pthread_mutex_lock(&sets_lock);
    for (size_t i = 0; i < MK_MAX_EVENT_SETS && !placed && s->mask && s->seen; i++)
        if (!sets[i]) {
            sets[i] = s;
            placed = 1;
        }
    pthread_mutex_unlock(&sets_lock);
    if (!placed) {
        pthread_mutex_destroy(&s->lock);
        free(s->mask);
        free(s->seen);
        free(s);
        return NVML_ERROR_INSUFFICIENT_RESOURCES;
    }
    *set = s;
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    MK_ENTER(nvmlEventSetFree);
    int found = 0;
    pthread_mutex_lock(&sets_lock);
    for (size_t i = 0; i < MK_MAX_EVENT_SETS && !found; i++)
        if (set && sets[i] == set) {
            sets[i] = NULL;
            found = 1;
        }
    pthread_mutex_unlock(&sets_lock);
    if (!found)
        return NVML_ERROR_INVALID_ARGUMENT;
    pthread_mutex_destroy(&set->lock);
    free(set->mask);
    free(set->seen);
    free(set);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceGetSupportedEventTypes);
    MK_GPU(device, &r);
    MK_NONNULL(eventTypes);
    *eventTypes = supported_types(r.d);
    return NVML_SUCCESS;
}

MK_API nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes,
                                             nvmlEventSet_t set)
{
    mk_ref r;
    MK_ENTER(nvmlDeviceRegisterEvents);
    MK_GPU(device, &r);
    if (!set_valid(set) || r.gpu >= set->ngpus)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (eventTypes & ~supported_types(r.d))
        MK_UNSUPPORTED(nvmlDeviceRegisterEvents);
    pthread_mutex_lock(&set->lock);
    if (!set->mask[r.gpu]) {
        /* Events from now on; but a GPU that is broken already (a rule that
         * fired at start, a fault injected before the client looked) reports
         * the fault that broke it, so that a plugin started late still sees it. */
        mk_state_dev *sd = &mk_L.st.dev[r.gpu];
        uint64_t from = atomic_load(&sd->fault_seq);
        if (atomic_load(&sd->health) != MK_FAULT_NONE) {
            uint64_t start = atomic_load(&sd->fault_start_seq);
            from = start < from ? start : from;
        }
        set->seen[r.gpu] = from;
    }
    set->mask[r.gpu] |= eventTypes;
    pthread_mutex_unlock(&set->lock);
    return NVML_SUCCESS;
}

static unsigned long long event_type(uint32_t kind)
{
    switch (kind) {
    case MK_EV_ECC_SBE: return nvmlEventTypeSingleBitEccError;
    case MK_EV_ECC_DBE: return nvmlEventTypeDoubleBitEccError;
    default: return nvmlEventTypeXidCriticalError;
    }
}

/* Takes the next registered event off the set into *out; 1 if there was one. */
static int next_event(nvmlEventSet_t set, nvmlEventData_t *out, int with_instances)
{
    const mk_universe *u = mk_universe_now();
    /* A set kept across nvmlShutdown may know more GPUs than there are now. */
    size_t ngpus = set->ngpus < mk_L.ngpus ? set->ngpus : mk_L.ngpus;
    int got = 0;
    pthread_mutex_lock(&set->lock);
    for (size_t g = 0; g < ngpus && !got; g++) {
        if (!set->mask[g])
            continue;
        mk_state_dev *sd = &mk_L.st.dev[g];
        uint64_t last = atomic_load_explicit(&sd->fault_seq, memory_order_acquire);
        while (set->seen[g] < last && !got) {
            uint64_t c = set->seen[g] + 1;
            if (last - c >= MK_FAULT_RING)
                c = last - MK_FAULT_RING + 1; /* the ring moved on: older faults are gone */
            mk_fault_rec *rec = &sd->ring[c % MK_FAULT_RING];
            if (atomic_load_explicit(&rec->seq, memory_order_acquire) != c)
                break; /* still being written; its writer wakes us when done */
            uint32_t kind = atomic_load_explicit(&rec->kind, memory_order_relaxed);
            uint32_t xid = atomic_load_explicit(&rec->xid, memory_order_relaxed);
            int32_t mig = atomic_load_explicit(&rec->mig, memory_order_relaxed);
            atomic_thread_fence(memory_order_acquire);
            if (atomic_load_explicit(&rec->seq, memory_order_acquire) != c)
                continue; /* overwritten while read: take the next one */
            set->seen[g] = c;
            unsigned long long type = event_type(kind);
            if (!(set->mask[g] & type))
                continue;
            out->device = mk_gpu_handle((unsigned)g);
            out->eventType = type;
            out->eventData = kind == MK_EV_XID ? xid : 0;
            if (with_instances) {
                const mk_device *d = &u->dev[g];
                int has = mig >= 0 && (size_t)mig < d->nmig;
                out->gpuInstanceId = has ? d->mig[mig].gi_id : 0xFFFFFFFFu;
                out->computeInstanceId = has ? d->mig[mig].ci_id : 0xFFFFFFFFu;
            }
            got = 1;
        }
    }
    pthread_mutex_unlock(&set->lock);
    return got;
}

static nvmlReturn_t wait_event(nvmlEventSet_t set, nvmlEventData_t *data, unsigned timeoutms,
                               int with_instances)
{
    if (!set_valid(set) || !data)
        return NVML_ERROR_INVALID_ARGUMENT;
    uint64_t deadline = mk_now_mono_ns() + (uint64_t)timeoutms * 1000000ull;
    for (;;) {
        uint32_t seen = atomic_load(&mk_L.st.hdr->wake);
        if (next_event(set, data, with_instances))
            return NVML_SUCCESS;
        mk_maintenance();
        uint64_t next_rule = mk_live_tick(&mk_L.live, mk_universe_now());
        if (next_event(set, data, with_instances))
            return NVML_SUCCESS;
        uint64_t now = mk_now_mono_ns();
        if (now >= deadline)
            return NVML_ERROR_TIMEOUT;
        uint64_t sleep = deadline - now;
        if (next_rule > now && next_rule - now < sleep)
            sleep = next_rule - now;
        if (sleep > MAX_SLEEP_NS)
            sleep = MAX_SLEEP_NS; /* to sample rules and the config file now and then */
        mk_state_wait(&mk_L.st, seen, sleep);
    }
}

MK_API nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    MK_ENTER(nvmlEventSetWait_v2);
    return wait_event(set, data, timeoutms, 1);
}

/* The first version's callers may pass the event data without the MIG
 * instance ids, so they are not written. */
MK_API nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    MK_ENTER(nvmlEventSetWait);
    return wait_event(set, data, timeoutms, 0);
}
