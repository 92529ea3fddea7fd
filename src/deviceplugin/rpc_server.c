/* rpc_server.c - the server half of the gRPC layer: one thread drives a
 * completion queue that accepts calls, runs unary handlers and feeds
 * server streams from a per-stream queue of messages.
 *
 * Every accepted call is one struct mk_rpc_stream (users only ever see the
 * streaming ones). A call counts its batches in flight and is freed when the
 * last one completes; it always has a RECV_CLOSE_ON_SERVER batch in flight,
 * so its end (client gone, cancelled, or done) always reaches us. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grpc/grpc_security.h>
#include "rpc_impl.h"

typedef enum { OP_REQUEST, OP_RECV, OP_REPLY, OP_WRITE, OP_CLOSE, OP__COUNT } op_kind;

typedef struct op_tag {
    struct mk_rpc_stream *c;
    op_kind kind;
} op_tag;

typedef struct out_msg {
    struct out_msg *next;
    grpc_byte_buffer *bb;
} out_msg;

typedef struct mk_rpc_stream call;
struct mk_rpc_stream {
    mk_rpc_server *s;
    grpc_call *call;
    grpc_call_details details;
    grpc_metadata_array md;
    grpc_byte_buffer *req;
    int client_cancelled;
    op_tag tags[OP__COUNT];
    const mk_rpc_method *m;
    /* Kept until their batch completes: the core may still read them. */
    grpc_byte_buffer *reply_bb, *write_bb;
    grpc_slice status_details;
    /* Guarded by s->mu once the call is accepted: */
    int pending;            /* batches in flight; freed at 0 */
    call *next;             /* in s->streams */
    out_msg *head, *tail;   /* stream messages not yet written */
    int writing, sent_md, ended;
};

struct mk_rpc_server {
    grpc_server *srv;
    grpc_completion_queue *cq;
    pthread_t thread;
    const mk_rpc_method *methods;
    size_t nmethods;
    void *ctx;
    char *sock;
    op_tag shutdown_tag;
    pthread_mutex_t mu;     /* guards the fields below and the calls' queues */
    call *streams;          /* open server streams */
    size_t live;            /* calls not yet freed, requested ones included */
    int stopping;
};

static void start_batch_locked(call *c, const grpc_op *ops, size_t n, op_kind kind)
{
    c->pending++;
    grpc_call_error e = grpc_call_start_batch(c->call, ops, n, &c->tags[kind], NULL);
    if (e != GRPC_CALL_OK) {
        /* Only a programming error gets here (an op type already in flight). */
        fprintf(stderr, "mokka rpc: start_batch: %s\n", grpc_call_error_to_string(e));
        c->pending--;
    }
}

static void drop_queue_locked(call *c)
{
    while (c->head) {
        out_msg *o = c->head;
        c->head = o->next;
        grpc_byte_buffer_destroy(o->bb);
        free(o);
    }
    c->tail = NULL;
}

static void free_call(call *c)
{
    drop_queue_locked(c);
    if (c->call)
        grpc_call_unref(c->call);
    grpc_call_details_destroy(&c->details);
    grpc_metadata_array_destroy(&c->md);
    if (c->req)
        grpc_byte_buffer_destroy(c->req);
    if (c->reply_bb)
        grpc_byte_buffer_destroy(c->reply_bb);
    grpc_slice_unref(c->status_details);
    free(c);
}

/* Asks the core for the next incoming call. */
static void request_call_locked(mk_rpc_server *s)
{
    call *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "mokka rpc: out of memory; no longer accepting calls\n");
        return;
    }
    c->s = s;
    for (int k = 0; k < OP__COUNT; k++)
        c->tags[k] = (op_tag){ c, (op_kind)k };
    c->status_details = grpc_empty_slice();
    grpc_call_details_init(&c->details);
    grpc_metadata_array_init(&c->md);
    c->pending = 1;
    s->live++;
    if (grpc_server_request_call(s->srv, &c->call, &c->details, &c->md, s->cq, s->cq,
                                 &c->tags[OP_REQUEST]) != GRPC_CALL_OK) {
        s->live--;
        free_call(c);
    }
}

/* Ends a call with a status (and a message when resp is non-NULL). */
static void reply(call *c, int code, const mk_rpc_buf *resp, const char *msg)
{
    grpc_op ops[3];
    size_t n = 0;
    memset(ops, 0, sizeof ops);
    ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (resp) {
        c->reply_bb = mk_rpc_bb_from(resp->data, resp->len);
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = c->reply_bb;
    }
    c->status_details = grpc_slice_from_copied_string(msg ? msg : "");
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = (grpc_status_code)code;
    ops[n++].data.send_status_from_server.status_details = &c->status_details;
    pthread_mutex_lock(&c->s->mu);
    start_batch_locked(c, ops, n, OP_REPLY);
    pthread_mutex_unlock(&c->s->mu);
}

static void write_next_locked(call *c)
{
    out_msg *o = c->head;
    c->head = o->next;
    if (!c->head)
        c->tail = NULL;
    c->write_bb = o->bb;
    free(o);

    grpc_op ops[2];
    size_t n = 0;
    memset(ops, 0, sizeof ops);
    if (!c->sent_md) {
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
        c->sent_md = 1;
    }
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n++].data.send_message.send_message = c->write_bb;
    c->writing = 1;
    start_batch_locked(c, ops, n, OP_WRITE);
}

static int enqueue_locked(call *c, const uint8_t *msg, size_t len)
{
    if (c->ended || c->s->stopping)
        return -1;
    out_msg *o = calloc(1, sizeof *o);
    if (!o || !(o->bb = mk_rpc_bb_from(msg, len))) {
        free(o);
        return -1;
    }
    if (c->tail)
        c->tail->next = o;
    else
        c->head = o;
    c->tail = o;
    if (!c->writing)
        write_next_locked(c);
    return 0;
}

static void stream_end_locked(call *c)
{
    c->ended = 1;
    drop_queue_locked(c);
    for (call **p = &c->s->streams; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            break;
        }
}

static const mk_rpc_method *find_method(const mk_rpc_server *s, grpc_slice path)
{
    for (size_t i = 0; i < s->nmethods; i++)
        if (grpc_slice_str_cmp(path, s->methods[i].path) == 0)
            return &s->methods[i];
    return NULL;
}

static void on_request(call *c, int ok)
{
    mk_rpc_server *s = c->s;
    if (!ok)
        return;   /* the server is shutting down */
    grpc_op op;
    memset(&op, 0, sizeof op);
    pthread_mutex_lock(&s->mu);
    if (!s->stopping)
        request_call_locked(s);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->client_cancelled;
    start_batch_locked(c, &op, 1, OP_CLOSE);
    pthread_mutex_unlock(&s->mu);

    c->m = find_method(s, c->details.method);
    if (!c->m) {
        char msg[300];
        snprintf(msg, sizeof msg, "unknown method %.*s",
                 (int)GRPC_SLICE_LENGTH(c->details.method),
                 (const char *)GRPC_SLICE_START_PTR(c->details.method));
        reply(c, MK_RPC_UNIMPLEMENTED, NULL, msg);
        return;
    }
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &c->req;
    pthread_mutex_lock(&s->mu);
    start_batch_locked(c, &op, 1, OP_RECV);
    pthread_mutex_unlock(&s->mu);
}

static void open_stream(call *c, const mk_rpc_buf *req)
{
    mk_rpc_server *s = c->s;
    pthread_mutex_lock(&s->mu);
    /* The call's end may have been reported already (completions arrive in
     * no fixed order); then it must not join the list it already left. */
    int gone = s->stopping || c->ended;
    if (!gone) {
        c->next = s->streams;
        s->streams = c;
    }
    pthread_mutex_unlock(&s->mu);
    if (gone)
        return;

    char msg[256] = "";
    int code = c->m->open(s->ctx, c, req->data, req->len, msg, sizeof msg);
    if (code != MK_RPC_OK) {
        pthread_mutex_lock(&s->mu);
        stream_end_locked(c);
        pthread_mutex_unlock(&s->mu);
        /* A write may be in flight, so end the call by cancelling it rather
         * than with a second send batch. */
        grpc_call_cancel_with_status(c->call, (grpc_status_code)code, msg, NULL);
    }
}

static void on_recv(call *c, int ok)
{
    if (!ok)
        return;   /* cancelled; OP_CLOSE cleans up */
    mk_rpc_buf req;
    if (!c->req) {
        reply(c, MK_RPC_INVALID_ARGUMENT, NULL, "the call carried no request message");
        return;
    }
    if (mk_rpc_bb_read(c->req, &req)) {
        reply(c, MK_RPC_INTERNAL, NULL, "out of memory reading the request");
        return;
    }
    if (c->m->unary) {
        mk_rpc_buf resp = { 0 };
        char msg[256] = "";
        int code = c->m->unary(c->s->ctx, req.data, req.len, &resp, msg, sizeof msg);
        reply(c, code, code == MK_RPC_OK ? &resp : NULL, msg);
        free(resp.data);
    } else {
        open_stream(c, &req);
    }
    free(req.data);
}

static void on_write(call *c, int ok)
{
    pthread_mutex_lock(&c->s->mu);
    grpc_byte_buffer_destroy(c->write_bb);
    c->write_bb = NULL;
    c->writing = 0;
    if (!ok)
        stream_end_locked(c);
    else if (c->head && !c->ended && !c->s->stopping)
        write_next_locked(c);
    pthread_mutex_unlock(&c->s->mu);
}

/* One completed batch; the call is freed when it was its last. */
static void complete(op_tag *t, int ok)
{
    call *c = t->c;
    mk_rpc_server *s = c->s;
    switch (t->kind) {
    case OP_REQUEST: on_request(c, ok); break;
    case OP_RECV:    on_recv(c, ok); break;
    case OP_WRITE:   on_write(c, ok); break;
    case OP_REPLY:
    case OP_CLOSE:
    case OP__COUNT:  break;
    }
    pthread_mutex_lock(&s->mu);
    if (t->kind == OP_CLOSE)
        stream_end_locked(c);
    int last = --c->pending == 0;
    if (last)
        s->live--;
    pthread_mutex_unlock(&s->mu);
    if (last)
        free_call(c);
}

/* The server thread. It shuts the queue down only after the server's
 * shutdown notice and once every call is freed, so no batch is ever
 * started on a queue that is shutting down. */
static void *serve(void *arg)
{
    mk_rpc_server *s = arg;
    int shutdown_seen = 0, cq_shut = 0;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(s->cq, mk_rpc_deadline(MK_RPC_TICK_MS), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            break;
        if (ev.type == GRPC_OP_COMPLETE) {
            if (ev.tag == &s->shutdown_tag)
                shutdown_seen = 1;
            else
                complete(ev.tag, ev.success);
        }
        pthread_mutex_lock(&s->mu);
        int idle = s->live == 0;
        pthread_mutex_unlock(&s->mu);
        if (shutdown_seen && idle && !cq_shut) {
            grpc_completion_queue_shutdown(s->cq);
            cq_shut = 1;
        }
    }
    return NULL;
}

mk_rpc_server *mk_rpc_server_start(const char *addr, const mk_rpc_method *methods, size_t n,
                                   void *ctx, char *err, size_t errlen)
{
    const char *path = mk_rpc_unix_path(addr);
    if (!path) {
        snprintf(err, errlen, "%s: not a unix:/absolute/path address", addr);
        return NULL;
    }
    mk_rpc_server *s = calloc(1, sizeof *s);
    if (!s || !(s->sock = strdup(path))) {
        free(s);
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->methods = methods;
    s->nmethods = n;
    s->ctx = ctx;
    s->shutdown_tag = (op_tag){ NULL, OP__COUNT };
    pthread_mutex_init(&s->mu, NULL);

    grpc_init();
    s->cq = grpc_completion_queue_create_for_next(NULL);
    s->srv = grpc_server_create(mk_rpc_channel_args(), NULL);
    grpc_server_register_completion_queue(s->srv, s->cq, NULL);
    grpc_server_credentials *creds = grpc_insecure_server_credentials_create();
    int bound = grpc_server_add_http2_port(s->srv, addr, creds);
    grpc_server_credentials_release(creds);
    if (!bound) {
        snprintf(err, errlen, "cannot listen on %s (does its directory exist and is it writable?)",
                 path);
        grpc_server_destroy(s->srv);
        goto fail;
    }
    grpc_server_start(s->srv);
    pthread_mutex_lock(&s->mu);
    request_call_locked(s);
    pthread_mutex_unlock(&s->mu);
    int e = pthread_create(&s->thread, NULL, serve, s);
    if (e) {
        snprintf(err, errlen, "cannot start the server thread: %s", strerror(e));
        /* No thread drains the queue: shut down and drain it here. */
        s->stopping = 1;
        grpc_server_shutdown_and_notify(s->srv, s->cq, &s->shutdown_tag);
        grpc_server_cancel_all_calls(s->srv);
        serve(s);
        grpc_server_destroy(s->srv);
        unlink(s->sock);
        goto fail;
    }
    return s;

fail:
    grpc_completion_queue_destroy(s->cq);
    pthread_mutex_destroy(&s->mu);
    free(s->sock);
    free(s);
    grpc_shutdown_blocking();
    return NULL;
}

int mk_rpc_stream_send(mk_rpc_stream *st, const uint8_t *msg, size_t len)
{
    pthread_mutex_lock(&st->s->mu);
    int rc = enqueue_locked(st, msg, len);
    pthread_mutex_unlock(&st->s->mu);
    return rc;
}

size_t mk_rpc_server_broadcast(mk_rpc_server *s, const char *path, const uint8_t *msg, size_t len)
{
    size_t n = 0;
    pthread_mutex_lock(&s->mu);
    for (call *c = s->streams; c; c = c->next)
        if (strcmp(c->m->path, path) == 0 && enqueue_locked(c, msg, len) == 0)
            n++;
    pthread_mutex_unlock(&s->mu);
    return n;
}

size_t mk_rpc_server_nstreams(mk_rpc_server *s, const char *path)
{
    size_t n = 0;
    pthread_mutex_lock(&s->mu);
    for (call *c = s->streams; c; c = c->next)
        n += strcmp(c->m->path, path) == 0;
    pthread_mutex_unlock(&s->mu);
    return n;
}

void mk_rpc_server_stop(mk_rpc_server *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->mu);
    s->stopping = 1;
    pthread_mutex_unlock(&s->mu);
    grpc_server_shutdown_and_notify(s->srv, s->cq, &s->shutdown_tag);
    grpc_server_cancel_all_calls(s->srv);
    pthread_join(s->thread, NULL);
    grpc_server_destroy(s->srv);
    grpc_completion_queue_destroy(s->cq);
    if (unlink(s->sock) != 0 && errno != ENOENT)
        fprintf(stderr, "mokka rpc: cannot remove %s: %s\n", s->sock, strerror(errno));
    pthread_mutex_destroy(&s->mu);
    free(s->sock);
    free(s);
    grpc_shutdown_blocking();
}
