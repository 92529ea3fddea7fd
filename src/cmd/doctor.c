/* doctor.c - `mokka doctor` (placeholder until implemented). */
#include "cli.h"
#include "cmds.h"

const char cmd_doctor_summary[] = "doctor (not implemented yet)";
const char cmd_doctor_help[] = "Usage: mokka doctor\n";

int cmd_doctor(int argc, char **argv)
{
    (void)argc;
    mk_err(argv[0], "not implemented yet");
    return MK_EXIT_ENV;
}
