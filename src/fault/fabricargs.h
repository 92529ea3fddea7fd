/* fabricargs.h - the values of `mokka inject`'s --fabric-state,
 * --fabric-status and --fabric-health, for a local universe and for
 * GPUFaults alike. */
#ifndef MOKKA_FABRICARGS_H
#define MOKKA_FABRICARGS_H

/* Each reads one option's value (names as fabric.h spells them, any case)
 * into *out: 0, or MK_EXIT_USAGE after saying what is wrong, naming the
 * option. */
int mk_fabric_arg_state(const char *arg, int *out);   /* MK_FABRIC_NOT_STARTED .. COMPLETED */
int mk_fabric_arg_status(const char *arg, int *out);  /* an NVML return code */
int mk_fabric_arg_health(const char *arg, int *out);  /* MK_FABRIC_* bits; "none": 0 */

#endif
