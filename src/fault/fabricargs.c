/* fabricargs.c - the --fabric-* option values of `mokka inject`
 * (fabricargs.h): one reading for the local and the cluster form, so that
 * both take the same names and say the same about a wrong one. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "fabric.h"
#include "fabricargs.h"
#include "util/util.h"
#include "ytree.h"

/* One of names (camelCase, case-insensitive) into *out: its value in vals,
 * or its index without vals; else a usage error. */
static int parse_name(const char *opt, const char *arg, const char *const *names,
                      const unsigned *vals, int *out)
{
    for (size_t i = 0; names[i]; i++)
        if (strcasecmp(arg, names[i]) == 0) {
            *out = vals ? (int)vals[i] : (int)i;
            return 0;
        }
    const char *sugg = mk_did_you_mean(arg, names);
    if (sugg)
        return mk_usage_error("inject", "%s: unknown value '%s'; did you mean '%s'?", opt, arg,
                              sugg);
    return mk_usage_error("inject", "%s: unknown value '%s' (see --help)", opt, arg);
}

int mk_fabric_arg_state(const char *arg, int *out)
{
    /* notSupported is the hardware's to say, not a fault's. */
    int rc = parse_name("--fabric-state", arg, mk_fabric_state_names + 1, NULL, out);
    *out += rc == 0;
    return rc;
}

int mk_fabric_arg_status(const char *arg, int *out)
{
    return parse_name("--fabric-status", arg, mk_nvml_return_names, mk_nvml_return_values, out);
}

/* "degradedBandwidth,routeRecovery" or "none" -> health bits. */
int mk_fabric_arg_health(const char *arg, int *out)
{
    char buf[256], *save = NULL;
    int bits = 0, bit;
    if (strcasecmp(arg, "none") == 0) {
        *out = 0;
        return 0;
    }
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int rc = parse_name("--fabric-health", t, mk_fabric_health_names, NULL, &bit);
        if (rc)
            return rc;
        bits |= 1 << bit;
    }
    *out = bits;
    return 0;
}
