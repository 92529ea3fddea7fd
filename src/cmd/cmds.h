/* cmds.h - the subcommands, one file each in src/cmd/. Each defines
 * cmd_NAME (argv[0] is the command name), a one-line summary and its help. */
#ifndef MOKKA_CMDS_H
#define MOKKA_CMDS_H

#define DECLARE_CMD(f) \
    int cmd_##f(int argc, char **argv); \
    extern const char cmd_##f##_summary[]; \
    extern const char cmd_##f##_help[];

DECLARE_CMD(run)
DECLARE_CMD(assert)
DECLARE_CMD(exec)
DECLARE_CMD(smi)
DECLARE_CMD(lint)
DECLARE_CMD(render)
DECLARE_CMD(stats)
DECLARE_CMD(metrics)
DECLARE_CMD(inject)
DECLARE_CMD(agent)
DECLARE_CMD(fleet)
DECLARE_CMD(container_runtime)
DECLARE_CMD(cdi)
DECLARE_CMD(doctor)
DECLARE_CMD(lib_path)
DECLARE_CMD(extract_lib)
DECLARE_CMD(version)
DECLARE_CMD(help)

#endif
