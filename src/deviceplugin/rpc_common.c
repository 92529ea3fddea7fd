/* rpc_common.c - small pieces of the gRPC layer used by both sides:
 * addresses, the Unix-socket liveness probe, message limits, deadlines,
 * byte buffers and status text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/slice.h>
#include "rpc_impl.h"

const char *mk_rpc_code_name(int code)
{
    static const char *const names[] = {
        "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
        "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
        "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
        "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
    };
    if (code >= 0 && (size_t)code < sizeof names / sizeof names[0])
        return names[code];
    return "UNKNOWN";
}

const grpc_channel_args *mk_rpc_channel_args(void)
{
    static grpc_arg args[] = {
        { .type = GRPC_ARG_INTEGER, .key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
          .value.integer = MK_RPC_MAX_MESSAGE },
        { .type = GRPC_ARG_INTEGER, .key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH,
          .value.integer = MK_RPC_MAX_MESSAGE },
        /* Each channel its own connection, as each grpc.Dial of the
         * kubelet: gRPC core otherwise shares one connection among channels
         * to the same address, and a plugin that bound a socket path another
         * plugin had would be dialled over the other's old connection. */
        { .type = GRPC_ARG_INTEGER, .key = GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL,
          .value.integer = 1 },
    };
    static const grpc_channel_args set = { sizeof args / sizeof args[0], args };
    return &set;
}

const char *mk_rpc_unix_path(const char *addr)
{
    if (strncmp(addr, "unix:", 5) != 0 || addr[5] != '/')
        return NULL;
    return addr + 5;
}

int mk_unix_socket_live(const char *path)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(sa.sun_path, path);
    /* Non-blocking, so that a listener with a full backlog answers EAGAIN
     * (alive) instead of making us wait. */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    int rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(fd);
    if (rc == 0 || e == EAGAIN)
        return 1;
    errno = e;
    return e == ENOENT || e == ECONNREFUSED ? 0 : -1;
}

gpr_timespec mk_rpc_deadline(int ms)
{
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(ms, GPR_TIMESPAN));
}

grpc_byte_buffer *mk_rpc_bb_from(const uint8_t *msg, size_t len)
{
    grpc_slice s = grpc_slice_from_copied_buffer((const char *)msg, len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

int mk_rpc_bb_read(grpc_byte_buffer *bb, mk_rpc_buf *out)
{
    grpc_byte_buffer_reader r;
    out->data = NULL;
    out->len = 0;
    if (!grpc_byte_buffer_reader_init(&r, bb))
        return -1;
    grpc_slice s = grpc_byte_buffer_reader_readall(&r);
    grpc_byte_buffer_reader_destroy(&r);
    size_t n = GRPC_SLICE_LENGTH(s);
    out->data = malloc(n ? n : 1);
    if (out->data) {
        memcpy(out->data, GRPC_SLICE_START_PTR(s), n);
        out->len = n;
    }
    grpc_slice_unref(s);
    return out->data ? 0 : -1;
}

void mk_rpc_format_status(char *err, size_t errlen, int code, grpc_slice details)
{
    size_t n = GRPC_SLICE_LENGTH(details);
    if (n)
        snprintf(err, errlen, "%s: %.*s", mk_rpc_code_name(code), (int)n,
                 (const char *)GRPC_SLICE_START_PTR(details));
    else
        snprintf(err, errlen, "%s", mk_rpc_code_name(code));
}

/* gRPC, its upb protobuf runtime and Abseil come uninstrumented:
 * ThreadSanitizer cannot see their internal synchronisation and reports
 * races inside them. Suppress reports with their frames, which leaves
 * every race within Mokka's own code visible. TSan reads this at
 * start-up; other builds never call it. */
__attribute__((visibility("default"))) const char *__tsan_default_suppressions(void);
const char *__tsan_default_suppressions(void)
{
    return "race:libgrpc.so\n"
           "race:libgpr.so\n"
           "race:libupb.so\n"
           "race:libabsl_\n"
           /* Memory gRPC allocates on its threads (through libstdc++) and
            * hands over through its completion queues: without these, its
            * release by Mokka after the queue returned looks like a race. */
           "called_from_lib:libstdc++.so\n"
           "called_from_lib:libgrpc.so\n"
           "called_from_lib:libupb.so\n";
}
