/* smi_table.c - `mokka smi` with no view option: the smi document in
 * nvidia-smi's table layout (the 535 driver's column positions): a GPU
 * table, a MIG device table when there are MIG devices, and the processes. */
#include <string.h>
#include "smi.h"

#define RULE "+---------------------------------------------------------------------------------------+\n"
#define GPU_RULE "+-----------------------------------------+----------------------+----------------------+\n"
#define MIG_RULE "+------------------+--------------------------------+-----------+-----------------------+\n"

/* An integer with its unit, "N/A", or "ERR!". */
static const char *num(char *buf, size_t len, json_t *o, const char *path, const char *unit)
{
    long long v;
    int r = mk_smi_int(o, path, &v);
    if (r > 0)
        snprintf(buf, len, "%lld%s", v, unit);
    else
        snprintf(buf, len, "%s", r < 0 ? "ERR!" : "N/A");
    return buf;
}

/* "used / total" memory in nvidia-smi's %5lluMiB form. */
static const char *usage(char *buf, size_t len, json_t *mem)
{
    long long used, total;
    if (mk_smi_int(mem, "used_mib", &used) > 0 && mk_smi_int(mem, "total_mib", &total) > 0)
        snprintf(buf, len, "%5lldMiB / %5lldMiB", used, total);
    else
        snprintf(buf, len, "%s", mk_smi_str(mem, "total_mib"));
    return buf;
}

static const char *on_off(json_t *o, const char *path)
{
    const char *s = mk_smi_str(o, path);
    return strcmp(s, "Enabled") == 0 ? "On" : strcmp(s, "Disabled") == 0 ? "Off" : s;
}

static const char *short_compute_mode(json_t *g)
{
    const char *s = mk_smi_str(g, "compute_mode");
    if (strcmp(s, "Exclusive_Process") == 0)
        return "E. Process";
    if (strcmp(s, "Exclusive_Thread") == 0)
        return "E. Thread";
    return s;
}

/* Volatile uncorrected ECC errors, "Off" when ECC is disabled; a GPU in
 * MIG mode counts per MIG device, and nvidia-smi shows "On" in its place. */
static const char *ecc(char *buf, size_t len, json_t *g)
{
    if (strcmp(mk_smi_str(g, "ecc_mode.current"), "Disabled") == 0)
        return "Off";
    if (strcmp(mk_smi_str(g, "mig_mode.current"), "Enabled") == 0)
        return "On";
    return num(buf, len, g, "ecc_errors.volatile.uncorrectable", "");
}

static void gpu_rows(json_t *g, FILE *f)
{
    char name[40], fan[16], temp[16], pu[16], pl[16], mem[48], util[16], eccb[32];
    const char *n = mk_smi_str(g, "product_name");
    if (json_is_string(json_object_get(g, "error")))
        n = json_string_value(json_object_get(g, "error"));
    /* Long names are cut with "...", as nvidia-smi does. */
    if (strlen(n) > 27)
        snprintf(name, sizeof name, "%.24s...", n);
    else
        snprintf(name, sizeof name, "%s", n);
    fprintf(f, "| %3lld  %-31s%-4s| %-16s%4s | %20s |\n",
            (long long)json_integer_value(json_object_get(g, "index")), name,
            on_off(g, "persistence_mode"), mk_smi_str(g, "pci.bus_id"),
            on_off(g, "display_active"), ecc(eccb, sizeof eccb, g));
    fprintf(f, "|%4s  %4s %5s             %4s / %4s | %20s |%8s%13s |\n",
            num(fan, sizeof fan, g, "fan_speed_pct", "%"),
            num(temp, sizeof temp, g, "temperature.gpu_current_temp_c", "C"),
            mk_smi_str(g, "performance_state"),
            num(pu, sizeof pu, g, "gpu_power_readings.power_draw_w", "W"),
            num(pl, sizeof pl, g, "gpu_power_readings.current_power_limit_w", "W"),
            usage(mem, sizeof mem, mk_smi_at(g, "fb_memory_usage")),
            num(util, sizeof util, g, "utilization.gpu_pct", "%"), short_compute_mode(g));
    fprintf(f, "|%41s|%22s|           %10s |\n", "", "", mk_smi_str(g, "mig_mode.current"));
    fputs(GPU_RULE, f);
}

static void header(json_t *doc, FILE *f)
{
    fprintf(f, "%s\n", mk_smi_str(doc, "timestamp"));
    fputs(RULE, f);
    /* nvidia-smi names its own version here, which is the driver's. */
    fprintf(f, "| NVIDIA-SMI %-10s             Driver Version: %-10s   CUDA Version: %-9s|\n",
            mk_smi_str(doc, "driver_version"), mk_smi_str(doc, "driver_version"),
            mk_smi_str(doc, "cuda_version"));
    fputs("|-----------------------------------------+----------------------+----------------------+\n"
          "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
          "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
          "|                                         |                      |               MIG M. |\n"
          "|=========================================+======================+======================|\n",
          f);
}

static void mig_table(json_t *gpus, FILE *f)
{
    size_t i, j, total = 0;
    json_t *g, *m;
    json_array_foreach(gpus, i, g)
        total += json_array_size(json_object_get(g, "mig_devices"));
    if (total == 0)
        return;
    fputs("\n" RULE
          "| MIG devices:                                                                          |\n"
          MIG_RULE
          "| GPU  GI  CI  MIG |                   Memory-Usage |        Vol|      Shared           |\n"
          "|      ID  ID  Dev |                     BAR1-Usage | SM     Unc| CE ENC DEC OFA JPG    |\n"
          "|                  |                                |        ECC|                       |\n"
          "|==================+================================+===========+=======================|\n",
          f);
    json_array_foreach(gpus, i, g) {
        json_array_foreach(json_object_get(g, "mig_devices"), j, m) {
            char gi[16], ci[16], mem[48], bar1[48], sm[16], unc[16], ce[16], enc[16], dec[16],
                ofa[16], jpg[16];
            fprintf(f, "|%3lld%5s%4s%4lld  |           %19s  |%3s   %4s |%3s %3s  %3s  %3s  %3s |\n",
                    (long long)json_integer_value(json_object_get(g, "index")),
                    num(gi, sizeof gi, m, "gpu_instance_id", ""),
                    num(ci, sizeof ci, m, "compute_instance_id", ""),
                    (long long)json_integer_value(json_object_get(m, "index")),
                    usage(mem, sizeof mem, mk_smi_at(m, "fb_memory_usage")),
                    num(sm, sizeof sm, m, "device_attributes.shared.multiprocessor_count", ""),
                    num(unc, sizeof unc, m, "ecc_errors.volatile.uncorrectable", ""),
                    num(ce, sizeof ce, m, "device_attributes.shared.copy_engine_count", ""),
                    num(enc, sizeof enc, m, "device_attributes.shared.encoder_count", ""),
                    num(dec, sizeof dec, m, "device_attributes.shared.decoder_count", ""),
                    num(ofa, sizeof ofa, m, "device_attributes.shared.ofa_count", ""),
                    num(jpg, sizeof jpg, m, "device_attributes.shared.jpg_count", ""));
            fprintf(f, "|%18s|           %19s  |%11s|%23s|\n", "",
                    usage(bar1, sizeof bar1, mk_smi_at(m, "bar1_memory_usage")), "", "");
            fputs(MIG_RULE, f);
        }
    }
}

static void process_table(json_t *gpus, FILE *f)
{
    size_t i, j, shown = 0, unknown = 0;
    json_t *g, *p;
    fprintf(f, "%89s\n", ""); /* nvidia-smi's separator line is 89 spaces */
    fputs(RULE
          "| Processes:                                                                            |\n"
          "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
          "|        ID   ID                                                             Usage      |\n"
          "|=======================================================================================|\n",
          f);
    json_array_foreach(gpus, i, g) {
        json_t *procs = json_object_get(g, "processes");
        unknown += !json_is_array(procs);
        json_array_foreach(procs, j, p) {
            char gi[16], ci[16], pid[16], mem[32];
            fprintf(f, "|%5lld%6s%5s%10s%7s   %-37.37s%13s |\n",
                    (long long)json_integer_value(json_object_get(g, "index")),
                    num(gi, sizeof gi, p, "gpu_instance_id", ""),
                    num(ci, sizeof ci, p, "compute_instance_id", ""),
                    num(pid, sizeof pid, p, "pid", ""), mk_smi_str(p, "type"),
                    mk_smi_str(p, "name"), num(mem, sizeof mem, p, "used_memory_mib", "MiB"));
            shown++;
        }
    }
    if (shown == 0)
        fprintf(f, "|  %-85s|\n", unknown ? "Process information is N/A (NVML does not report it)"
                                          : "No running processes found");
    fputs(RULE, f);
}

void mk_smi_print_table(json_t *doc, FILE *f)
{
    json_t *gpus = json_object_get(doc, "gpus");
    if (json_array_size(gpus) == 0) {
        fputs("No devices were found\n", f);
        return;
    }
    size_t i;
    json_t *g;
    /* nvidia-smi prints no table when a GPU has no handle, only why. */
    json_array_foreach(gpus, i, g) {
        json_t *err = json_object_get(g, "error");
        if (json_is_string(err)) {
            mk_smi_print_handle_error(f, "GPU", json_integer_value(json_object_get(g, "index")),
                                      json_string_value(err));
            return;
        }
    }
    header(doc, f);
    json_array_foreach(gpus, i, g)
        gpu_rows(g, f);
    mig_table(gpus, f);
    process_table(gpus, f);
}
