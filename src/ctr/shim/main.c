/* main.c - mokka-container-runtime: `mokka container-runtime` as a program
 * of its own, for the nodes' containerd to run. mokka links libcurl, gRPC
 * and more that a node does not have; this links jansson and libyaml in
 * and needs only the C library, so that it runs from a hostPath copy on
 * any node. Its command table holds the one command. */
#include <string.h>
#include "commands.h"
#include "cmd/cmds.h"

const mk_cmd mk_commands[] = {
    { "container-runtime", cmd_container_runtime, cmd_container_runtime_summary,
      cmd_container_runtime_help },
    { 0, 0, 0, 0 }
};

const mk_cmd *mk_find_command(const char *name)
{
    return strcmp(name, mk_commands[0].name) == 0 ? &mk_commands[0] : NULL;
}

void mk_print_help(const mk_cmd *cmd, FILE *f)
{
    fputs(cmd->help, f);
}

int main(int argc, char **argv)
{
    argv[0] = (char *)"container-runtime";
    return cmd_container_runtime(argc, argv);
}
