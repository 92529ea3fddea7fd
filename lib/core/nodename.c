/* nodename.c - the one name of the node the virtual GPUs are on: what
 * `uuid: auto` derives UUIDs and serials from, what `mokka run` looks up
 * in the API server and names in its GPUFault report. The library and
 * every command take it from here, so that a plugin, `mokka render` and
 * the node agent on one node agree on its GPUs' UUIDs. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "universe.h"

const char *mk_node_name(char *out, size_t len, const char *given)
{
    /* NODE_NAME is what NVIDIA's own manifests set from spec.nodeName; a
     * pod's host name is the pod's, not the node's. */
    static const char *const vars[] = { "MOKKA_NODE_NAME", "NODE_NAME" };
    if (given && *given) {
        snprintf(out, len, "%s", given);
        return NULL;
    }
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            snprintf(out, len, "%s", v);
            return vars[i];
        }
    }
    if (gethostname(out, len) != 0 || !*out)
        snprintf(out, len, "localhost");
    out[len - 1] = 0;
    return "the host name";
}
