/* nvml_impl.h - what the NVML entry points share: the ABI declarations,
 * function ids for call counting, and the process-wide library context. */
#ifndef MOKKA_NVML_IMPL_H
#define MOKKA_NVML_IMPL_H

#include "abi/nvml_abi.h"
#include "fntable.h"

/* One id per exported NVML function (generated from exports.list). */
typedef enum {
#define MK_FN_ENUM(name) MK_FN_##name,
    MK_FN_LIST(MK_FN_ENUM)
#undef MK_FN_ENUM
    MK_FN__COUNT
} mk_fn;

extern const char *const mk_fn_names[MK_FN__COUNT];

/* The body of every function in stubs.list: counts the call and answers
 * NVML_ERROR_UNINITIALIZED before nvmlInit, NVML_ERROR_NOT_SUPPORTED after. */
nvmlReturn_t mk_stub(mk_fn fn);

#endif
