/* config_node.c - the top-level keys that describe the node around the
 * GPUs rather than the GPUs: `machine:` (the DMI product name a GPU node's
 * firmware reports, which gpu-feature-discovery turns into
 * nvidia.com/gpu.machine), `debug:` and `debugListen:` (serve the live
 * metrics over HTTP). */
#include <stdio.h>
#include <string.h>
#include "config_int.h"

/* Eight GPUs of one of these profiles make the DGX that has them. */
static const struct { const char *profile, *machine; } dgx[] = {
    { "a100-sxm4-40gb", "NVIDIA DGX A100" },
    { "a100-sxm4-80gb", "NVIDIA DGX A100" },
    { "h100-sxm5-80gb", "NVIDIA DGX H100" },
    { "h200-sxm-141gb", "NVIDIA DGX H200" },
    { "b200", "NVIDIA DGX B200" },
};

/* The machine a universe looks like: a DGX for eight GPUs of a DGX's
 * profile, else a generic name. */
static const char *default_machine(const mk_universe *u)
{
    if (u->ndev != 8)
        return MK_GENERIC_MACHINE;
    for (size_t i = 1; i < u->ndev; i++)
        if (strcmp(u->dev[i].profile, u->dev[0].profile) != 0)
            return MK_GENERIC_MACHINE;
    for (size_t i = 0; i < sizeof dgx / sizeof dgx[0]; i++)
        if (strcmp(u->dev[0].profile, dgx[i].profile) == 0)
            return dgx[i].machine;
    return MK_GENERIC_MACHINE;
}

/* A listen address HOST:PORT (HOST may be empty or [v6]); 0 when well formed. */
static int check_listen(const char *s)
{
    const char *colon = strrchr(s, ':');
    if (!colon || !colon[1] || strlen(colon + 1) > 5)
        return -1;
    int port = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        port = port * 10 + (*p - '0');
    }
    return port <= 65535 ? 0 : -1; /* 0: any free port (the server says which) */
}

static void string_key(const mk_ynode *n, const char *key, char *out, size_t size, mk_diags *d)
{
    const char *s;
    if (mk_ystr(n, key, &s, d) != 0)
        return;
    if (!*s)
        mk_yerr(d, n, "%s: must not be empty", key);
    else if (strlen(s) >= size)
        mk_yerr(d, n, "%s: longer than %zu characters", key, size - 1);
    else if (strpbrk(s, "\n\r"))
        mk_yerr(d, n, "%s: must be one line", key);
    else
        memcpy(out, s, strlen(s) + 1);
}

void mk_config_node(mk_universe *u, const mk_ynode *root, mk_diags *d)
{
    const mk_ynode *n;
    snprintf(u->machine, sizeof u->machine, "%s", default_machine(u));
    if ((n = mk_yget(root, "machine")))
        string_key(n, "machine", u->machine, sizeof u->machine, d);
    snprintf(u->debug_listen, sizeof u->debug_listen, "%s", MK_DEBUG_LISTEN);
    if ((n = mk_yget(root, "debug")))
        mk_ybool(n, "debug", &u->debug, d);
    if ((n = mk_yget(root, "debugListen"))) {
        string_key(n, "debugListen", u->debug_listen, sizeof u->debug_listen, d);
        if (check_listen(u->debug_listen) != 0)
            mk_yerr(d, n, "debugListen: expected HOST:PORT like 127.0.0.1:8080");
    }
}
