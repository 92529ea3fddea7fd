/* health.c - GPU health from NVML events, as NVIDIA's plugin watches it:
 * one event set with XID-critical, single- and double-bit ECC events for
 * every GPU. NVIDIA's plugin waits 5 s at a time and so takes up to 5 s to
 * stop; the stand-in waits in short slices so that it stops within a
 * fraction of a second and a test run is not spent waiting for it. An XID outside the application XIDs
 * the plugin ignores (13, 31, 43, 45, 68, 109, plus those listed in
 * DP_DISABLE_HEALTHCHECKS), or a double-bit ECC error, marks its GPU
 * unhealthy; a failed wait (e.g. GPU_IS_LOST) marks all of them.
 * DP_DISABLE_HEALTHCHECKS=all (or containing "xids") turns checks off. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "plugin.h"

#define MAX_SKIPPED 64
#define WAIT_SLICE_MS 100   /* how long a stop may go unnoticed */

static unsigned long long skipped[MAX_SKIPPED] = { 13, 31, 43, 45, 68, 109 };
static size_t nskipped = 6;

static int is_skipped(unsigned long long xid)
{
    for (size_t i = 0; i < nskipped; i++)
        if (skipped[i] == xid)
            return 1;
    return 0;
}

/* DP_DISABLE_HEALTHCHECKS: 0 to run checks (with any extra XIDs to skip
 * added), 1 when they are off. */
static int read_disable_env(void)
{
    const char *env = getenv("DP_DISABLE_HEALTHCHECKS");
    if (!env || !*env)
        return 0;
    if (strcasecmp(env, "all") == 0 || strcasestr(env, "xids"))
        return 1;
    char copy[512];
    snprintf(copy, sizeof copy, "%s", env);
    for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        unsigned long long xid = strtoull(tok, &end, 10);
        while (*end == ' ')
            end++;
        if (end == tok || *end)
            mk_log('I', "Ignoring malformed Xid value %s", tok);
        else if (nskipped < MAX_SKIPPED)
            skipped[nskipped++] = xid;
    }
    return 0;
}

void mk_health_mark(mk_plugin *p, size_t i, const char *why)
{
    pthread_mutex_lock(&p->mu);
    if (p->gpu[i].healthy) {
        p->gpu[i].healthy = 0;
        mk_log('I', "%s", why);
        mk_log('I', "'%s' device marked unhealthy: %s", p->resource, p->gpu[i].uuid);
        mk_service_send_locked(p);
    }
    pthread_mutex_unlock(&p->mu);
}

static void mark_all(mk_plugin *p, const char *why)
{
    for (size_t i = 0; i < p->ngpu; i++)
        mk_health_mark(p, i, why);
}

/* Registers the events each GPU supports. A GPU that cannot tell is
 * unhealthy; one too old for events is only warned about. */
static void register_events(mk_plugin *p, nvmlEventSet_t set)
{
    const unsigned long long mask = nvmlEventTypeXidCriticalError |
                                    nvmlEventTypeDoubleBitEccError |
                                    nvmlEventTypeSingleBitEccError;
    char why[256];
    for (size_t i = 0; i < p->ngpu; i++) {
        unsigned long long supported = 0;
        nvmlReturn_t r = p->nvml.DeviceGetSupportedEventTypes(p->gpu[i].handle, &supported);
        if (r == NVML_SUCCESS)
            r = p->nvml.DeviceRegisterEvents(p->gpu[i].handle, mask & supported, set);
        if (r == NVML_ERROR_NOT_SUPPORTED) {
            mk_log('W', "Device %s is too old to support healthchecking.", p->gpu[i].uuid);
        } else if (r != NVML_SUCCESS) {
            snprintf(why, sizeof why, "unable to register events for %s: %s; marking it as unhealthy",
                     p->gpu[i].uuid, mk_nvml_error(p, r));
            mk_health_mark(p, i, why);
        }
    }
}

static void on_event(mk_plugin *p, const nvmlEventData_t *e)
{
    char why[256];
    int xid = e->eventType == nvmlEventTypeXidCriticalError;
    if (!xid && e->eventType != nvmlEventTypeDoubleBitEccError) {
        mk_log('I', "Skipping non-critical event: type 0x%llx data %llu", e->eventType, e->eventData);
        return;
    }
    if (xid && is_skipped(e->eventData)) {
        mk_log('I', "Skipping event: Xid=%llu", e->eventData);
        return;
    }
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    nvmlReturn_t r = p->nvml.DeviceGetUUID(e->device, uuid, sizeof uuid);
    if (r != NVML_SUCCESS) {
        snprintf(why, sizeof why, "Failed to determine uuid for event: %s; "
                 "Marking all devices as unhealthy.", mk_nvml_error(p, r));
        mark_all(p, why);
        return;
    }
    for (size_t i = 0; i < p->ngpu; i++)
        if (strcmp(p->gpu[i].uuid, uuid) == 0) {
            if (xid)
                snprintf(why, sizeof why, "XidCriticalError: Xid=%llu on Device=%s; "
                         "marking device as unhealthy.", e->eventData, uuid);
            else
                snprintf(why, sizeof why, "DoubleBitEccError on Device=%s; "
                         "marking device as unhealthy.", uuid);
            mk_health_mark(p, i, why);
            return;
        }
    mk_log('I', "Ignoring event for unexpected device: %s", uuid);
}

static void *health_loop(void *arg)
{
    mk_plugin *p = arg;
    nvmlEventSet_t set;
    nvmlReturn_t r = p->nvml.EventSetCreate(&set);
    if (r != NVML_SUCCESS) {
        mk_log('E', "Failed to start health check: failed to create event set: %s; "
               "continuing with health checks disabled", mk_nvml_error(p, r));
        return NULL;
    }
    register_events(p, set);
    while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
        nvmlEventData_t e;
        memset(&e, 0, sizeof e);
        r = p->nvml.EventSetWait_v2(set, &e, WAIT_SLICE_MS);
        if (r == NVML_ERROR_TIMEOUT)
            continue;
        if (r == NVML_SUCCESS) {
            on_event(p, &e);
            continue;
        }
        char why[256];
        snprintf(why, sizeof why, "Error waiting for event: %s; Marking all devices as unhealthy",
                 mk_nvml_error(p, r));
        mark_all(p, why);
        /* A wait that fails at once would otherwise spin. */
        struct timespec pause = { 0, WAIT_SLICE_MS * 1000000L };
        nanosleep(&pause, NULL);
    }
    p->nvml.EventSetFree(set);
    return NULL;
}

int mk_health_start(mk_plugin *p)
{
    if (read_disable_env()) {
        mk_log('I', "Health checks disabled by DP_DISABLE_HEALTHCHECKS");
        return 0;
    }
    __atomic_store_n(&p->stop, 0, __ATOMIC_RELEASE);
    if (pthread_create(&p->health, NULL, health_loop, p) != 0) {
        mk_log('E', "Failed to start health check thread; continuing with health checks disabled");
        return -1;
    }
    p->health_started = 1;
    return 0;
}

void mk_health_stop(mk_plugin *p)
{
    if (!p->health_started)
        return;
    /* The loop sees the flag after its current wait slice. */
    __atomic_store_n(&p->stop, 1, __ATOMIC_RELEASE);
    pthread_join(p->health, NULL);
    p->health_started = 0;
}
