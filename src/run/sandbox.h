/* sandbox.h - the GPU-node sandbox: a private mount namespace in which the
 * paths a device plugin reads show Mokka's own files.
 *
 *   /var/lib/kubelet/device-plugins  the run's kubelet directory (the built-in
 *                                    kubelet listens there, the plugin
 *                                    creates its sockets there)
 *   /sys/bus/pci/devices/<bus>/      numa_node, vendor, device, class,
 *                                    subsystem ids of the configured GPUs
 *   /proc/driver/nvidia-caps/        mig-minors for the MIG devices
 *   /proc/driver/nvidia/version      the emulated driver's version line
 *   /dev/nvidia*, /dev/nvidia-caps/  device nodes for the configured minors
 *
 * The files are built on the host under the run directory (which the host
 * sees and cleans up); the namespace is entered in the child process just
 * before it runs the plugin, so the host's mounts never change and two runs
 * can go side by side. As root a plain mount namespace is used, otherwise a
 * user namespace when the kernel allows one. A path that does not exist on
 * the host (no /var/lib/kubelet on a CI runner) is made visible by shadowing
 * its nearest existing parent with a tmpfs that mirrors the parent's entries
 * by bind mounts. */
#ifndef MOKKA_SANDBOX_H
#define MOKKA_SANDBOX_H

#include <stddef.h>
#include "universe.h"

#define MK_KUBELET_DIR "/var/lib/kubelet/device-plugins"

typedef struct mk_sandbox {
    char run_dir[4096];     /* host directory holding the trees below */
    char kubelet_dir[4200]; /* run_dir/kubelet: where the built-in kubelet listens */
    int enabled;            /* 0: --no-sandbox, the plugin sees the real paths */
} mk_sandbox;

/* Whether this process can make a mount namespace (as root, or through a
 * user namespace). 1 yes; 0 no, with the reason in why. Forks a short-lived
 * child to try, so the caller's namespaces are untouched. */
int mk_sandbox_available(char *why, size_t len);

/* Writes the trees for universe u under run_dir (host side, before any
 * fork). With enabled == 0 only the kubelet directory is the real one. */
int mk_sandbox_prepare(mk_sandbox *sb, const char *run_dir, const mk_universe *u, int enabled,
                       char *err, size_t errlen);

/* In the child, before exec: enters the namespace and mounts the trees.
 * Returns 0, or -1 with err (the child then reports and exits). */
int mk_sandbox_enter(const mk_sandbox *sb, char *err, size_t errlen);

#endif
