/* faultargs.h - the command line of `mokka inject --cluster` into an
 * mk_gfcli. */
#ifndef MOKKA_FAULTARGS_H
#define MOKKA_FAULTARGS_H

#include "faultcli.h"

/* What mk_gfcli_parse returns besides 0 and MK_EXIT_USAGE. */
#define MK_GFCLI_HELP (-2)

/* 1 when argv asks for cluster faults: --cluster, --kubeconfig, --context,
 * --list or --clear. */
int mk_gfcli_wanted(int argc, char **argv);

/* Parses argv (argv[0] the command); 0, MK_EXIT_USAGE after saying why, or
 * MK_GFCLI_HELP for --help. Free with mk_gfcli_free. */
int mk_gfcli_parse(int argc, char **argv, mk_gfcli *o);
void mk_gfcli_free(mk_gfcli *o);

#endif
