/* rpc_client.c - the client half of the gRPC layer: channels to a Unix
 * socket and unary calls with deadlines. Each call uses its own pluck queue,
 * so any number of threads may call on one channel at once. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grpc/grpc_security.h>
#include <grpc/support/alloc.h>
#include "rpc_impl.h"

struct mk_rpc_channel {
    grpc_channel *ch;
};

/* How long past a deadline we wait for the core to report it. */
#define DEADLINE_SLACK_MS 5000

static void destroy_pluck_queue(grpc_completion_queue *cq)
{
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, mk_rpc_deadline(MK_RPC_TICK_MS), NULL).type
           != GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(cq);
}

/* Waits for `tag` on a pluck queue. The core always completes a batch or a
 * watch by its deadline; past that (plus slack) cancel_call, if any, makes
 * it finish. */
static void pluck_tag(grpc_completion_queue *cq, void *tag, int timeout_ms, grpc_call *cancel_call)
{
    int ms = timeout_ms + DEADLINE_SLACK_MS;
    while (grpc_completion_queue_pluck(cq, tag, mk_rpc_deadline(ms), NULL).type != GRPC_OP_COMPLETE)
        if (cancel_call)
            grpc_call_cancel(cancel_call, NULL);
}

static const char *state_name(grpc_connectivity_state st)
{
    switch (st) {
    case GRPC_CHANNEL_IDLE:              return "idle";
    case GRPC_CHANNEL_CONNECTING:        return "connecting";
    case GRPC_CHANNEL_READY:             return "ready";
    case GRPC_CHANNEL_TRANSIENT_FAILURE: return "failing to connect";
    case GRPC_CHANNEL_SHUTDOWN:          return "shut down";
    }
    return "unknown";
}

static int wait_ready(grpc_channel *ch, const char *path, int timeout_ms, char *err, size_t errlen)
{
    gpr_timespec deadline = mk_rpc_deadline(timeout_ms);
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    int tag, rc = -1;
    for (;;) {
        grpc_connectivity_state st = grpc_channel_check_connectivity_state(ch, 1);
        if (st == GRPC_CHANNEL_READY) {
            rc = 0;
            break;
        }
        if (st == GRPC_CHANNEL_SHUTDOWN ||
            gpr_time_cmp(gpr_now(GPR_CLOCK_MONOTONIC), deadline) >= 0) {
            snprintf(err, errlen, "cannot connect to %s: still %s after %d ms",
                     path, state_name(st), timeout_ms);
            break;
        }
        grpc_channel_watch_connectivity_state(ch, st, deadline, cq, &tag);
        pluck_tag(cq, &tag, timeout_ms, NULL);
    }
    destroy_pluck_queue(cq);
    return rc;
}

mk_rpc_channel *mk_rpc_dial(const char *addr, int timeout_ms, char *err, size_t errlen)
{
    const char *path = mk_rpc_unix_path(addr);
    if (!path) {
        snprintf(err, errlen, "%s: not a unix:/absolute/path address", addr);
        return NULL;
    }
    /* gRPC would keep retrying a socket nobody listens on until the
     * deadline; a direct probe tells at once, and says why. */
    if (mk_unix_socket_live(path) != 1) {
        snprintf(err, errlen, "cannot connect to %s: %s", path, strerror(errno));
        return NULL;
    }
    mk_rpc_channel *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    grpc_init();
    grpc_channel_credentials *creds = grpc_insecure_credentials_create();
    c->ch = grpc_channel_create(addr, creds, mk_rpc_channel_args());
    grpc_channel_credentials_release(creds);
    if (wait_ready(c->ch, path, timeout_ms, err, errlen)) {
        mk_rpc_channel_close(c);
        return NULL;
    }
    return c;
}

void mk_rpc_channel_close(mk_rpc_channel *c)
{
    if (!c)
        return;
    grpc_channel_destroy(c->ch);
    free(c);
    grpc_shutdown_blocking();
}

grpc_call *mk_rpc_channel_create_call(mk_rpc_channel *c, const char *path,
                                      grpc_completion_queue *cq, gpr_timespec deadline)
{
    return grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
                                    grpc_slice_from_static_string(path), NULL, deadline, NULL);
}

int mk_rpc_call(mk_rpc_channel *c, const char *path, const uint8_t *req, size_t len,
                int timeout_ms, mk_rpc_buf *resp, char *err, size_t errlen)
{
    resp->data = NULL;
    resp->len = 0;
    grpc_byte_buffer *send = mk_rpc_bb_from(req, len), *recv = NULL;
    if (!send) {
        snprintf(err, errlen, "out of memory");
        return MK_RPC_INTERNAL;
    }
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_call *call = mk_rpc_channel_create_call(c, path, cq, mk_rpc_deadline(timeout_ms));
    grpc_metadata_array md_in, trailing;
    grpc_metadata_array_init(&md_in);
    grpc_metadata_array_init(&trailing);
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_slice details = grpc_empty_slice();
    const char *error_string = NULL;

    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &md_in;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &trailing;
    ops[5].data.recv_status_on_client.status = &status;
    ops[5].data.recv_status_on_client.status_details = &details;
    ops[5].data.recv_status_on_client.error_string = &error_string;

    int code;
    grpc_call_error e = grpc_call_start_batch(call, ops, 6, &code, NULL);
    if (e != GRPC_CALL_OK) {
        snprintf(err, errlen, "INTERNAL: cannot start %s: %s", path, grpc_call_error_to_string(e));
        code = MK_RPC_INTERNAL;
    } else {
        pluck_tag(cq, &code, timeout_ms, call);
        code = (int)status;
        if (code != MK_RPC_OK)
            mk_rpc_format_status(err, errlen, code, details);
        else if (!recv || mk_rpc_bb_read(recv, resp)) {
            snprintf(err, errlen, "INTERNAL: %s returned no response message", path);
            code = MK_RPC_INTERNAL;
        }
    }
    if (recv)
        grpc_byte_buffer_destroy(recv);
    grpc_byte_buffer_destroy(send);
    grpc_metadata_array_destroy(&md_in);
    grpc_metadata_array_destroy(&trailing);
    grpc_slice_unref(details);
    gpr_free((void *)error_string);
    grpc_call_unref(call);
    destroy_pluck_queue(cq);
    return code;
}
