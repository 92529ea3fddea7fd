/* rpc_watch.c - the server-streaming client of the gRPC layer: one thread
 * per stream reads messages into a callback and reports the stream's end. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grpc/support/alloc.h>
#include "rpc_impl.h"

struct mk_rpc_watch {
    grpc_completion_queue *cq;
    grpc_call *call;
    pthread_t thread;
    mk_rpc_msg_fn on_msg;
    mk_rpc_end_fn on_end;
    void *ctx;
    grpc_byte_buffer *send, *msg;
    grpc_metadata_array md_in, trailing;
    grpc_status_code status;
    grpc_slice details;
    const char *error_string;
    char tag_start, tag_msg, tag_status;   /* their addresses are the tags */
};

static int recv_next(mk_rpc_watch *w)
{
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &w->msg;
    return grpc_call_start_batch(w->call, &op, 1, &w->tag_msg, NULL) == GRPC_CALL_OK ? 0 : -1;
}

/* One message arrived; 0 to keep reading, -1 when the read loop is over. */
static int deliver(mk_rpc_watch *w)
{
    mk_rpc_buf m;
    int rc = mk_rpc_bb_read(w->msg, &m);
    grpc_byte_buffer_destroy(w->msg);
    w->msg = NULL;
    if (rc) {
        grpc_call_cancel_with_status(w->call, GRPC_STATUS_RESOURCE_EXHAUSTED,
                                     "out of memory reading a stream message", NULL);
        return -1;
    }
    w->on_msg(w->ctx, m.data, m.len);
    free(m.data);
    return recv_next(w);
}

static void *follow(void *arg)
{
    mk_rpc_watch *w = arg;
    int outstanding = 3;   /* start, message, status batches */
    while (outstanding > 0) {
        grpc_event ev = grpc_completion_queue_next(w->cq, mk_rpc_deadline(MK_RPC_TICK_MS), NULL);
        if (ev.type != GRPC_OP_COMPLETE)
            continue;
        if (ev.tag == &w->tag_msg && ev.success && w->msg && deliver(w) == 0)
            continue;
        outstanding--;
    }
    char text[512];
    if (w->status == GRPC_STATUS_OK)
        snprintf(text, sizeof text, "stream ended");
    else
        mk_rpc_format_status(text, sizeof text, (int)w->status, w->details);
    w->on_end(w->ctx, (int)w->status, text);

    grpc_completion_queue_shutdown(w->cq);
    while (grpc_completion_queue_next(w->cq, mk_rpc_deadline(MK_RPC_TICK_MS), NULL).type
           != GRPC_QUEUE_SHUTDOWN)
        ;
    return NULL;
}

static void watch_free(mk_rpc_watch *w)
{
    if (w->call)
        grpc_call_unref(w->call);
    grpc_completion_queue_destroy(w->cq);
    if (w->send)
        grpc_byte_buffer_destroy(w->send);
    if (w->msg)
        grpc_byte_buffer_destroy(w->msg);
    grpc_metadata_array_destroy(&w->md_in);
    grpc_metadata_array_destroy(&w->trailing);
    grpc_slice_unref(w->details);
    gpr_free((void *)w->error_string);
    free(w);
    grpc_shutdown_blocking();
}

static int start(mk_rpc_watch *w)
{
    grpc_op ops[4];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = w->send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &w->md_in;
    if (grpc_call_start_batch(w->call, ops, 4, &w->tag_start, NULL) != GRPC_CALL_OK)
        return -1;
    grpc_op st;
    memset(&st, 0, sizeof st);
    st.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    st.data.recv_status_on_client.trailing_metadata = &w->trailing;
    st.data.recv_status_on_client.status = &w->status;
    st.data.recv_status_on_client.status_details = &w->details;
    st.data.recv_status_on_client.error_string = &w->error_string;
    if (grpc_call_start_batch(w->call, &st, 1, &w->tag_status, NULL) != GRPC_CALL_OK)
        return -1;
    return recv_next(w);
}

mk_rpc_watch *mk_rpc_watch_open(mk_rpc_channel *ch, const char *path,
                                const uint8_t *req, size_t len,
                                mk_rpc_msg_fn on_msg, mk_rpc_end_fn on_end, void *ctx,
                                char *err, size_t errlen)
{
    mk_rpc_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    grpc_init();
    w->on_msg = on_msg;
    w->on_end = on_end;
    w->ctx = ctx;
    w->details = grpc_empty_slice();
    grpc_metadata_array_init(&w->md_in);
    grpc_metadata_array_init(&w->trailing);
    w->cq = grpc_completion_queue_create_for_next(NULL);
    w->call = mk_rpc_channel_create_call(ch, path, w->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC));
    w->send = mk_rpc_bb_from(req, len);
    if (!w->send || start(w)) {
        snprintf(err, errlen, "cannot start %s", path);
        goto fail;
    }
    int e = pthread_create(&w->thread, NULL, follow, w);
    if (e) {
        snprintf(err, errlen, "cannot start a thread for %s: %s", path, strerror(e));
        goto fail;
    }
    return w;

fail:
    /* Batches may be in flight: cancel, then collect them as the thread would. */
    grpc_call_cancel(w->call, NULL);
    grpc_completion_queue_shutdown(w->cq);
    while (grpc_completion_queue_next(w->cq, mk_rpc_deadline(MK_RPC_TICK_MS), NULL).type
           != GRPC_QUEUE_SHUTDOWN)
        ;
    watch_free(w);
    return NULL;
}

void mk_rpc_watch_close(mk_rpc_watch *w)
{
    if (!w)
        return;
    grpc_call_cancel(w->call, NULL);
    pthread_join(w->thread, NULL);
    watch_free(w);
}
