/* nvml_lib.c - the process-wide library context that nvml_impl.h declares:
 * the context itself, the threads' counter slots, the body of every stub,
 * and the config helpers that init and reload share. It calls nothing in
 * nvml_init.c or nvml_reload.c. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "nvml_impl.h"

mk_lib mk_L = { .lock = PTHREAD_MUTEX_INITIALIZER };
_Atomic unsigned mk_next_slot;
__thread unsigned mk_tls_slot __attribute__((tls_model("initial-exec")));
__thread unsigned mk_tls_calls __attribute__((tls_model("initial-exec")));

nvmlReturn_t mk_stub(mk_fn fn)
{
    if (!atomic_load_explicit(&mk_L.refs, memory_order_acquire))
        return NVML_ERROR_UNINITIALIZED;
    mk_state_count(&mk_L.st, mk_slot(), fn, 1);
    return NVML_ERROR_NOT_SUPPORTED;
}

/* One stderr line for a config problem, with the first error's position. */
void mk_config_report(const char *what, const mk_diags *d)
{
    const mk_diag *g = mk_diags_first_error(d);
    char line[1024];
    if (!g) {
        fprintf(stderr, "mokka: %s\n", what);
        return;
    }
    mk_diag_format(g, line, sizeof line);
    if (d->errors > 1)
        fprintf(stderr, "mokka: %s: %s (and %zu more; run `mokka lint` on the file)\n", what,
                line, d->errors - 1);
    else
        fprintf(stderr, "mokka: %s: %s\n", what, line);
}

void mk_config_stat(const char *path, struct stat *sb)
{
    if (!path || stat(path, sb) != 0)
        memset(sb, 0, sizeof *sb);
}
