/* doctor_lib.c - doctor's first layer: the libnvidia-ml.so.1 that mokka
 * hands to programs (present, the bundled bytes, SONAME, every NVML name
 * exported) and the config programs will read. */
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "doctor.h"
#include "elfinfo.h"
#include "fntable.h"
#include "bundle/bundle.h"

/* Every function lib/nvml/exports.list names, compiled in. */
#define MK_FN_NAME(name) #name,
static const char *const nvml_names[] = { MK_FN_LIST(MK_FN_NAME) };
#undef MK_FN_NAME
#define NNAMES (sizeof nvml_names / sizeof nvml_names[0])

static void check_elf(mk_doctor *d, const char *file)
{
    mk_elf e;
    char err[1024];
    if (mk_elf_open(file, &e, err, sizeof err) != 0) {
        mk_dr_fail(d, "rebuild mokka (make), or remove the file so that mokka writes it again",
                   "%s", err);
        return;
    }
    if (e.soname && strcmp(e.soname, MK_LIB_SONAME) == 0)
        mk_dr_pass(d, "its SONAME is %s", MK_LIB_SONAME);
    else
        mk_dr_fail(d, "the loader matches dlopen(\"" MK_LIB_SONAME "\") by SONAME: rebuild "
                   "the library with -Wl,-soname," MK_LIB_SONAME,
                   "its SONAME is %s%s%s, not " MK_LIB_SONAME, e.soname ? "'" : "",
                   e.soname ? e.soname : "missing", e.soname ? "'" : "");
    size_t missing = 0;
    const char *first = NULL;
    for (size_t i = 0; i < NNAMES; i++)
        if (!mk_elf_exports(&e, nvml_names[i]) && missing++ == 0)
            first = nvml_names[i];
    if (missing == 0)
        mk_dr_pass(d, "it exports all %zu NVML functions of lib/nvml/exports.list", NNAMES);
    else
        mk_dr_fail(d, "a program calling a missing name fails to load or to resolve it: "
                   "rebuild the library from this source tree",
                   "it lacks %zu of the %zu NVML functions of lib/nvml/exports.list (%s%s)",
                   missing, NNAMES, first, missing > 1 ? ", ..." : "");
    mk_elf_close(&e);
}

static void check_config(mk_doctor *d, const char *config)
{
    size_t ngpus;
    char *errors;
    if (mk_config_check(config, &ngpus, &errors) == 0) {
        if (config)
            mk_dr_pass(d, "config %s loads (%zu GPUs)", config, ngpus);
        else
            mk_dr_pass(d, "no config given: the built-in default universe loads (%zu GPUs)",
                       ngpus);
        return;
    }
    size_t more = 0;
    for (const char *p = errors ? strchr(errors, '\n') : NULL; p && p[1]; p = strchr(p + 1, '\n'))
        more++;
    if (errors)
        errors[strcspn(errors, "\n")] = 0;
    char fix[600];
    snprintf(fix, sizeof fix, "`mokka lint %s` lists every problem", config ? config : "");
    char rest[64] = "";
    if (more)
        snprintf(rest, sizeof rest, " (and %zu more)", more);
    mk_dr_fail(d, fix, "config does not load: %s%s", errors ? errors : "(out of memory)", rest);
    free(errors);
}

void mk_doctor_library(mk_doctor *d, const char *config)
{
    char dir[4096], file[4200], err[1024];
    mk_dr_section(d, "library");
    if (mk_lib_path(dir, sizeof dir, file, sizeof file, err, sizeof err) != 0) {
        mk_dr_fail(d, "make $XDG_CACHE_HOME or ~/.cache writable, or use `mokka extract-lib DIR` "
                   "and point LD_LIBRARY_PATH at DIR", "%s", err);
    } else if (mk_lib_identify(file) != MK_LIB_THIS) {
        mk_dr_fail(d, "remove the file; mokka writes it again on its next run",
                   "%s does not hold the library bundled in this mokka", file);
    } else {
        mk_dr_pass(d, "%s holds the bundled library (hash %016llx)", file,
                   (unsigned long long)mk_lib_hash());
        check_elf(d, file);
    }
    if (!config || !*config)
        config = getenv("MOCK_CONFIG_PATH");
    if (!config || !*config)
        config = getenv("MOKKA_CONFIG");
    check_config(d, config && *config ? config : NULL);
}
