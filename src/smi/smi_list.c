/* smi_list.c - `mokka smi -L`: one line per GPU and per MIG device, as
 * nvidia-smi -L prints them. */
#include <string.h>
#include "smi.h"

void mk_smi_print_handle_error(FILE *f, const char *gpu, long long index, const char *why)
{
    fprintf(f, "Unable to determine the device handle for %s%lld: %s%s\n\n\n", gpu, index, why,
            strcmp(why, "GPU is lost") == 0 ? ".  Reboot the system to recover this GPU" : "");
}

void mk_smi_print_list(json_t *doc, FILE *f)
{
    size_t i, j;
    json_t *g, *m;
    json_array_foreach(json_object_get(doc, "gpus"), i, g) {
        long long index = json_integer_value(json_object_get(g, "index"));
        json_t *err = json_object_get(g, "error");
        if (json_is_string(err)) {
            mk_smi_print_handle_error(f, "gpu ", index, json_string_value(err));
            continue;
        }
        fprintf(f, "GPU %lld: %s (UUID: %s)\n", index, mk_smi_str(g, "product_name"),
                mk_smi_str(g, "uuid"));
        json_array_foreach(json_object_get(g, "mig_devices"), j, m) {
            char label[64];
            snprintf(label, sizeof label, "MIG %s", mk_smi_str(m, "profile"));
            fprintf(f, "  %-15s Device %2lld: (UUID: %s)\n", label,
                    (long long)json_integer_value(json_object_get(m, "index")),
                    mk_smi_str(m, "uuid"));
        }
    }
}
