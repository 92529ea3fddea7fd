/* doctor.c - `mokka doctor`: why a program does or does not see the mock,
 * in three layers (the library, a process, the kubelet's sockets), one
 * PASS / FAIL / WARN line per check with the fix for each failure. */
#include <stdlib.h>
#include <unistd.h>
#include "cmds.h"
#include "commands.h"
#include "doctor/doctor.h"
#include "run/run.h"

const char cmd_doctor_summary[] = "check the library, a process on the mock and kubelet sockets";
const char cmd_doctor_help[] =
    "Usage: mokka doctor [--pid PID] [--config FILE] [--kubelet-dir DIR]\n"
    "\n"
    "Checks, one line each (PASS, FAIL with the fix, or WARN):\n"
    "  library  Mokka's libnvidia-ml.so.1 exists, is the bundled one, has the\n"
    "           SONAME libnvidia-ml.so.1 and exports every NVML function; the\n"
    "           config (--config, else $MOCK_CONFIG_PATH, else the built-in) loads\n"
    "  process  with --pid: which libnvidia-ml.so.1 /proc/PID/maps shows (Mokka's\n"
    "           or the real NVIDIA driver library) and, if not Mokka's, why:\n"
    "           \"Healthy but nvidia-smi fails in the container\" (nothing points\n"
    "           the process at the mock) or \"LD_PRELOAD had no effect\" (setuid\n"
    "           binary, variable stripped, static binary, dlopen by absolute\n"
    "           path); whether LD_PRELOAD or LD_LIBRARY_PATH leads to Mokka's\n"
    "           library, MOCK_CONFIG_PATH loads, and the state file in\n"
    "           MOKKA_STATE_DIR lists the process\n"
    "  sockets  kubelet.sock and the plugin sockets accept a connection, in\n"
    "           $MOKKA_KUBELET_DIR (default /var/lib/kubelet/device-plugins; a\n"
    "           warning when missing) and in DIR (a failure when missing)\n"
    "\n"
    "Options:\n"
    "  -p, --pid PID        also check this running process\n"
    "  -c, --config FILE    the config to check (default: $MOCK_CONFIG_PATH)\n"
    "  -k, --kubelet-dir DIR\n"
    "                       also check the device-plugin sockets in DIR\n"
    MK_HELP_COMMON
    "\n"
    "Examples:\n"
    "  mokka doctor\n"
    "  mokka doctor --pid $(pidof nvidia-device-plugin)\n"
    "\n"
    "Exit codes: 0 every check passed (warnings allowed), 1 a check failed, 2 usage\n"
    "error, 3 doctor itself cannot run (no /proc).\n";

int cmd_doctor(int argc, char **argv)
{
    static const struct option opts[] = {
        { "pid", required_argument, 0, 'p' },
        { "config", required_argument, 0, 'c' },
        { "kubelet-dir", required_argument, 0, 'k' },
        MK_COMMON_OPTS,
        { 0, 0, 0, 0 }
    };
    const mk_cmd *self = mk_find_command("doctor");
    const char *config = NULL, *kdir = NULL;
    long pid = 0;
    int c;
    while ((c = getopt_long(argc, argv, "p:c:k:h", opts, NULL)) != -1) {
        char *end;
        switch (c) {
        case 'p':
            pid = strtol(optarg, &end, 10);
            if (*optarg == 0 || *end || pid <= 0 || pid > 0x7fffffff)
                return mk_usage_error("doctor", "--pid takes a process id, not '%s'", optarg);
            break;
        case 'c': config = optarg; break;
        case 'k': kdir = optarg; break;
        default: {
            int rc = mk_common_opt(self, c, optarg);
            if (rc >= 0)
                return rc;
        }
        }
    }
    if (optind < argc)
        return mk_usage_error("doctor", "unexpected argument '%s'", argv[optind]);
    if (access("/proc/self/maps", R_OK) != 0) {
        mk_err("doctor", "cannot read /proc/self/maps: doctor needs /proc (mount -t proc proc "
               "/proc)");
        return MK_EXIT_ENV;
    }
    mk_doctor d = { stdout, 0, 0, 0 };
    mk_doctor_library(&d, config);
    if (pid)
        mk_doctor_process(&d, (pid_t)pid);
    mk_doctor_sockets(&d, mk_kubelet_dir(), 0);
    if (kdir)
        mk_doctor_sockets(&d, kdir, 1);
    printf("doctor: %d passed, %d failed, %d warnings\n", d.passed, d.failed, d.warned);
    return d.failed ? MK_EXIT_FAIL : MK_EXIT_OK;
}
