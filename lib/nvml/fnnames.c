/* fnnames.c - the name of every exported NVML function, by mk_fn id. */
#include "nvml_impl.h"

const char *const mk_fn_names[MK_FN__COUNT] = {
#define MK_FN_NAME(name) #name,
    MK_FN_LIST(MK_FN_NAME)
#undef MK_FN_NAME
};
