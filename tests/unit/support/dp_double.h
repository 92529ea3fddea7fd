/* dp_double.h - a device plugin written inside the tests with the gRPC
 * layer: devices the test controls, a Register call with any version or
 * name, and counters of what the kubelet asked it. */
#ifndef MOKKA_DP_DOUBLE_H
#define MOKKA_DP_DOUBLE_H

#include <stddef.h>

typedef struct mk_dpd mk_dpd;

typedef struct mk_dpd_opts {
    const char *resource;    /* default "example.com/gpu" */
    const char *endpoint;    /* socket name in the kubelet's dir; default "double.sock" */
    int preferred;           /* advertise GetPreferredAllocation */
    int pre_start;           /* ask for PreStartContainer */
} mk_dpd_opts;

/* Serves DevicePlugin on <dir>/<endpoint>. Aborts the test on failure. */
mk_dpd *mk_dpd_start(const char *dir, const mk_dpd_opts *opts);
/* Adds a device (numa -1: no topology) and sends the new list. */
void mk_dpd_add(mk_dpd *p, const char *id, int healthy, int numa);
/* Changes a device's health and sends the new list. */
void mk_dpd_set_health(mk_dpd *p, const char *id, int healthy);
/* Calls Register on <dir>/kubelet.sock; version NULL means "v1beta1" and
 * resource NULL the plugin's own. Returns the gRPC code, message in err. */
int mk_dpd_register(mk_dpd *p, const char *version, const char *resource,
                    char *err, size_t errlen);
/* A Register request as any plugin could send it, to <dir>/kubelet.sock. */
int mk_dpd_register_any(const char *dir, const char *version, const char *resource,
                        const char *endpoint, char *err, size_t errlen);
/* ListAndWatch streams open on the plugin. */
size_t mk_dpd_streams(mk_dpd *p);
/* How many times a method was called: "Allocate", "PreStartContainer",
 * "GetPreferredAllocation", "GetDevicePluginOptions", "ListAndWatch". */
int mk_dpd_calls(mk_dpd *p, const char *method);
/* Stops serving (the kubelet's stream ends) and frees the plugin. */
void mk_dpd_stop(mk_dpd *p);

#endif
