/* container_runtime_main.c - mokka-container-runtime: `mokka container-runtime` as a program
 * of its own, for the nodes' containerd to run. mokka links libcurl, gRPC
 * and more that a node does not have; this links jansson and libyaml in
 * and needs only the C library, so that it runs from a hostPath copy on
 * any node. */
#include "cmd/cmds.h"

int main(int argc, char **argv)
{
    argv[0] = (char *)"container-runtime";
    return cmd_container_runtime(argc, argv);
}
