/* smi_query.c - `mokka smi -q`: the smi document as nvidia-smi -q lays it
 * out, "Label : value" with the colon in column 42, nested by four spaces.
 * It walks the document in order, so whatever --json holds is shown here. */
#include <string.h>
#include "smi.h"

#define COLON_COL 42

/* nvidia-smi's label for each key; NULL hides the key (it is in --json for
 * scripts, but nvidia-smi -q does not show it). extra: further indent. */
static const struct label {
    const char *key, *label;
    int extra;
} labels[] = {
    { "timestamp", "Timestamp", 0 },
    { "driver_version", "Driver Version", 0 },
    { "cuda_version", "CUDA Version", 0 },
    { "nvml_version", "NVML Version", 0 },
    { "attached_gpus", "Attached GPUs", 0 },
    { "index", NULL, 0 },
    { "error", "Error", 0 },
    { "product_name", "Product Name", 0 },
    { "product_brand", "Product Brand", 0 },
    { "product_architecture", "Product Architecture", 0 },
    { "display_mode", "Display Mode", 0 },
    { "display_active", "Display Active", 0 },
    { "persistence_mode", "Persistence Mode", 0 },
    { "mig_mode", "MIG Mode", 0 },
    { "current", "Current", 0 },
    { "pending", "Pending", 0 },
    { "mig_devices", "MIG Devices", 0 },
    { "profile", "Profile", 0 },
    { "serial_number", "Serial Number", 0 },
    { "uuid", "GPU UUID", 0 },
    { "minor_number", "Minor Number", 0 },
    { "vbios_version", "VBIOS Version", 0 },
    { "multigpu_board", "MultiGPU Board", 0 },
    { "board_id", "Board ID", 0 },
    { "board_part_number", "Board Part Number", 0 },
    { "inforom_version", "Inforom Version", 0 },
    { "image_version", "Image Version", 0 },
    { "oem_object", "OEM Object", 0 },
    { "ecc_object", "ECC Object", 0 },
    { "power_management_object", "Power Management Object", 0 },
    { "pci", "PCI", 0 },
    { "bus", "Bus", 0 },
    { "device", "Device", 0 },
    { "domain", "Domain", 0 },
    { "device_id", "Device Id", 0 },
    { "bus_id", "Bus Id", 0 },
    { "sub_system_id", "Sub System Id", 0 },
    { "gpu_link_info", "GPU Link Info", 0 },
    { "pcie_generation", "PCIe Generation", 0 },
    { "max", "Max", 0 },
    { "link_width", "Link Width", 0 },
    { "max_lanes", "Max", 0 },
    { "current_lanes", "Current", 0 },
    { "fan_speed_pct", "Fan Speed", 0 },
    { "performance_state", "Performance State", 0 },
    { "fb_memory_usage", "FB Memory Usage", 0 },
    { "bar1_memory_usage", "BAR1 Memory Usage", 0 },
    { "total_mib", "Total", 0 },
    { "reserved_mib", "Reserved", 0 },
    { "used_mib", "Used", 0 },
    { "free_mib", "Free", 0 },
    { "compute_mode", "Compute Mode", 0 },
    { "utilization", "Utilization", 0 },
    { "gpu_pct", "Gpu", 0 },
    { "memory_pct", "Memory", 0 },
    { "encoder_pct", "Encoder", 0 },
    { "decoder_pct", "Decoder", 0 },
    { "ecc_mode", "ECC Mode", 0 },
    { "ecc_errors", "ECC Errors", 0 },
    { "volatile", "Volatile", 0 },
    { "aggregate", "Aggregate", 0 },
    { "correctable", "Correctable", 0 },
    { "uncorrectable", "Uncorrectable", 0 },
    { "temperature", "Temperature", 0 },
    { "gpu_current_temp_c", "GPU Current Temp", 0 },
    { "gpu_shutdown_temp_c", "GPU Shutdown Temp", 0 },
    { "gpu_slowdown_temp_c", "GPU Slowdown Temp", 0 },
    { "gpu_max_operating_temp_c", "GPU Max Operating Temp", 0 },
    { "memory_max_operating_temp_c", "Memory Max Operating Temp", 0 },
    { "gpu_power_readings", "GPU Power Readings", 0 },
    { "power_draw_w", "Power Draw", 0 },
    { "current_power_limit_w", "Current Power Limit", 0 },
    { "requested_power_limit_w", "Requested Power Limit", 0 },
    { "default_power_limit_w", "Default Power Limit", 0 },
    { "min_power_limit_w", "Min Power Limit", 0 },
    { "max_power_limit_w", "Max Power Limit", 0 },
    { "clocks", "Clocks", 0 },
    { "applications_clocks", "Applications Clocks", 0 },
    { "default_applications_clocks", "Default Applications Clocks", 0 },
    { "max_clocks", "Max Clocks", 0 },
    { "graphics_mhz", "Graphics", 0 },
    { "sm_mhz", "SM", 0 },
    { "memory_mhz", "Memory", 0 },
    { "video_mhz", "Video", 0 },
    { "fabric", "Fabric", 0 },
    { "state", "State", 0 },
    { "status", "Status", 0 },
    { "clique_id", "CliqueId", 0 },
    { "cluster_uuid", "ClusterUUID", 0 },
    { "health", "Health", 0 },
    { "bandwidth", "Bandwidth", 0 },
    { "route_recovery_in_progress", "Route Recovery in progress", 0 },
    { "route_unhealthy", "Route Unhealthy", 0 },
    { "access_timeout_recovery", "Access Timeout Recovery", 0 },
    { "processes", "Processes", 0 },
    { "gpu_instance_id", "GPU Instance ID", 0 },
    { "compute_instance_id", "Compute Instance ID", 0 },
    { "pid", "Process ID", 0 },
    { "type", "Type", 1 },
    { "name", "Name", 1 },
    { "used_memory_mib", "Used GPU Memory", 1 },
    { "device_attributes", "Device Attributes", 0 },
    { "shared", "Shared", 0 },
    { "multiprocessor_count", "Multiprocessor count", 0 },
    { "copy_engine_count", "Copy Engine count", 0 },
    { "encoder_count", "Encoder count", 0 },
    { "decoder_count", "Decoder count", 0 },
    { "ofa_count", "OFA count", 0 },
    { "jpg_count", "JPG count", 0 },
};

/* Header line for each element of an array, by the array's key. */
static const char *item_label(const char *array_key)
{
    return strcmp(array_key, "mig_devices") == 0 ? "MIG Device" : NULL;
}

static const struct label *find_label(const char *key)
{
    static const struct label unknown = { NULL, NULL, 0 };
    for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
        if (strcmp(labels[i].key, key) == 0)
            return &labels[i];
    return &unknown;
}

/* The unit a key's suffix names, as nvidia-smi writes it after a value. */
static const char *unit_of(const char *key)
{
    static const struct { const char *suffix, *unit; } units[] = {
        { "_mib", " MiB" }, { "_mhz", " MHz" }, { "_c", " C" }, { "_w", " W" },
        { "_pct", " %" }, { "_lanes", "x" },
    };
    size_t kl = strlen(key);
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        size_t sl = strlen(units[i].suffix);
        if (kl > sl && strcmp(key + kl - sl, units[i].suffix) == 0)
            return units[i].unit;
    }
    return "";
}

static int is_error(json_t *v)
{
    return json_is_object(v) && json_object_size(v) == 1 &&
           json_is_string(json_object_get(v, "error"));
}

static void key_line(FILE *f, int indent, const char *label, const char *value)
{
    int n = fprintf(f, "%*s%s", indent * 4, "", label);
    if (value)
        fprintf(f, "%*s: %s", n < COLON_COL ? COLON_COL - n : 1, "", value);
    fputc('\n', f);
}

static void print_value(FILE *f, int indent, const char *key, const char *label, json_t *v)
{
    char buf[512];
    if (json_is_string(v))
        snprintf(buf, sizeof buf, "%s", json_string_value(v));
    else if (json_is_integer(v))
        snprintf(buf, sizeof buf, "%lld%s", (long long)json_integer_value(v), unit_of(key));
    else if (json_is_real(v))
        snprintf(buf, sizeof buf, "%.2f%s", json_real_value(v), unit_of(key));
    else if (is_error(v))
        snprintf(buf, sizeof buf, "%s", json_string_value(json_object_get(v, "error")));
    else
        snprintf(buf, sizeof buf, "N/A");
    key_line(f, indent, label, buf);
}

static void print_object(FILE *f, int indent, json_t *o);

static void print_array(FILE *f, int indent, const char *key, const char *label, json_t *a)
{
    if (json_array_size(a) == 0) {
        key_line(f, indent, label, "None");
        return;
    }
    key_line(f, indent, label, NULL);
    const char *item = item_label(key);
    size_t i;
    json_t *e;
    json_array_foreach(a, i, e) {
        if (item)
            key_line(f, indent + 1, item, NULL);
        print_object(f, indent + 1 + (item != NULL), e);
    }
}

static void print_object(FILE *f, int indent, json_t *o)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        const struct label *l = find_label(key);
        const char *label = l->key ? l->label : key;
        if (!label)
            continue;
        int in = indent + l->extra;
        if (json_is_array(v))
            print_array(f, in, key, label, v);
        else if (json_is_object(v) && !is_error(v)) {
            key_line(f, in, label, NULL);
            print_object(f, in + 1, v);
        } else
            print_value(f, in, key, label, v);
    }
}

void mk_smi_print_query(json_t *doc, FILE *f)
{
    fputs("\n==============NVSMI LOG==============\n\n", f);
    static const char *const head[] = { "timestamp", "driver_version", "cuda_version",
                                        "nvml_version" };
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        print_value(f, 0, head[i], find_label(head[i])->label, json_object_get(doc, head[i]));
    fputc('\n', f);
    print_value(f, 0, "attached_gpus", "Attached GPUs", json_object_get(doc, "attached_gpus"));
    size_t i;
    json_t *g;
    json_array_foreach(json_object_get(doc, "gpus"), i, g) {
        json_t *bus = mk_smi_at(g, "pci.bus_id");
        if (json_is_string(bus))
            fprintf(f, "GPU %s\n", json_string_value(bus));
        else
            fprintf(f, "GPU %lld\n", (long long)json_integer_value(json_object_get(g, "index")));
        print_object(f, 1, g);
        fputc('\n', f);
    }
}
