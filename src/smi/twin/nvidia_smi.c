/* nvidia_smi.c - the nvidia-smi twin: `mokka smi`'s views as a program of
 * their own, for containers (mokka container-runtime mounts it as
 * /usr/bin/nvidia-smi where the image has no nvidia-smi). mokka itself
 * links libcurl, gRPC and more that an image does not have; this links
 * jansson statically and needs only the C library and the
 * libnvidia-ml.so.1 the container's loader finds (Mokka's, mounted beside
 * its libc). It takes nvidia-smi's own spelling of the options it shares
 * with `mokka smi`. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "smi/smi.h"

static const char usage[] =
    "Mokka's nvidia-smi twin: the GPUs Mokka's libnvidia-ml.so.1 shows.\n"
    "\n"
    "Usage: nvidia-smi [-L | -q] [-i ID[,ID...]]\n"
    "  -L, --list-gpus      one line per GPU and MIG device, with UUIDs\n"
    "  -q, --query          the detailed report of every GPU\n"
    "  -i, --id=ID          only these GPUs: index, UUID or PCI bus id\n"
    "  -h, --help           this help\n"
    "Without options: the nvidia-smi table. Other nvidia-smi options are not\n"
    "part of the twin; an image's own nvidia-smi reads Mokka's library too.\n";

/* What NVIDIA's nvidia-smi says, and its exit code, when NVML cannot be
 * reached: what scripts and users already know to look for. */
static int no_nvml(const char *why)
{
    printf("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
           "Make sure that the latest NVIDIA driver is installed and running.\n\n");
    fprintf(stderr, "nvidia-smi (Mokka's twin): %s\n", why);
    return 9;
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        { "list-gpus", no_argument, 0, 'L' }, { "query", no_argument, 0, 'q' },
        { "id", required_argument, 0, 'i' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 }
    };
    int c, view = 0;
    const char *ids = NULL;
    while ((c = getopt_long(argc, argv, "Lqi:h", opts, NULL)) != -1) {
        switch (c) {
        case 'L':
        case 'q': view = c; break;
        case 'i': ids = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "nvidia-smi (Mokka's twin): unexpected argument '%s'\n%s", argv[optind],
                usage);
        return 2;
    }
    mk_nvml n;
    char err[1024];
    if (mk_nvml_open(&n, "libnvidia-ml.so.1", err, sizeof err) != 0)
        return no_nvml(err);
    unsigned *sel = NULL;
    int nsel = 0;
    if (ids) {
        sel = calloc(MK_SMI_MAX_GPUS, sizeof *sel);
        nsel = sel ? mk_smi_select(&n, ids, sel, err, sizeof err) : -1;
        if (nsel < 0) {
            fprintf(stderr, "nvidia-smi (Mokka's twin): %s\n", sel ? err : "out of memory");
            free(sel);
            mk_nvml_close(&n);
            return 2;
        }
    }
    json_t *doc = mk_smi_gather(&n, sel, nsel);
    free(sel);
    mk_nvml_close(&n);
    if (view == 'L')
        mk_smi_print_list(doc, stdout);
    else if (view == 'q')
        mk_smi_print_query(doc, stdout);
    else
        mk_smi_print_table(doc, stdout);
    json_decref(doc);
    return 0;
}
