/* rpc.h - a small gRPC layer over the gRPC C core, shaped for the kubelet
 * device-plugin API and shared by the built-in kubelet and the stand-in
 * device plugin.
 *
 * Messages cross this layer as opaque bytes: callers pack and unpack them
 * with protobuf-c. Addresses are "unix:/absolute/path". Every blocking call
 * takes a timeout; every object owns its threads and completion queues and
 * joins/drains them when closed. Status codes are gRPC's (0 is OK). */
#ifndef MOKKA_RPC_H
#define MOKKA_RPC_H

#include <stddef.h>
#include <stdint.h>

/* gRPC status codes this layer reports (same values as grpc_status_code). */
enum {
    MK_RPC_OK = 0,
    MK_RPC_CANCELLED = 1,
    MK_RPC_UNKNOWN = 2,
    MK_RPC_INVALID_ARGUMENT = 3,
    MK_RPC_DEADLINE_EXCEEDED = 4,
    MK_RPC_NOT_FOUND = 5,
    MK_RPC_RESOURCE_EXHAUSTED = 8,
    MK_RPC_FAILED_PRECONDITION = 9,
    MK_RPC_UNIMPLEMENTED = 12,
    MK_RPC_INTERNAL = 13,
    MK_RPC_UNAVAILABLE = 14
};
/* The largest message either side sends or takes: gRPC's own default for
 * receiving, made explicit and applied to sending too. A plugin's device
 * list of 4 MiB is tens of thousands of devices. */
#define MK_RPC_MAX_MESSAGE (4 * 1024 * 1024)

/* "UNAVAILABLE", "DEADLINE_EXCEEDED", ... */
const char *mk_rpc_code_name(int code);

/* A message owned by whoever holds it (free data with free()). */
typedef struct mk_rpc_buf {
    uint8_t *data;
    size_t len;
} mk_rpc_buf;

/* The socket path of a "unix:/abs/path" address, or NULL if it is not one. */
const char *mk_rpc_unix_path(const char *addr);
/* Is a server answering on the Unix socket at `path`? 1 yes; 0 no (no file,
 * or a stale file nobody listens on: ECONNREFUSED); -1 could not tell (errno
 * set, e.g. EACCES). Never blocks. */
int mk_unix_socket_live(const char *path);

/* --- server --------------------------------------------------------------- */

typedef struct mk_rpc_server mk_rpc_server;
typedef struct mk_rpc_stream mk_rpc_stream;

/* A unary handler: fill *resp (malloc'd) and return MK_RPC_OK, or return an
 * error code with a message in msg. Runs on the server's thread, so it should
 * not block for long; anything it waits on needs a timeout. */
typedef int (*mk_rpc_unary_fn)(void *ctx, const uint8_t *req, size_t len,
                               mk_rpc_buf *resp, char *msg, size_t msglen);
/* A server-streaming method's opener: called once per client stream, after
 * the stream joined the method's broadcast list; sends the first messages
 * with mk_rpc_stream_send (st is valid only during the call). Return an error
 * code to end the stream with it. To keep streams in order with state
 * changes, take the same lock here and around mk_rpc_server_broadcast. */
typedef int (*mk_rpc_open_fn)(void *ctx, mk_rpc_stream *st, const uint8_t *req, size_t len,
                              char *msg, size_t msglen);

typedef struct mk_rpc_method {
    const char *path;      /* "/v1beta1.DevicePlugin/Allocate" */
    mk_rpc_unary_fn unary; /* exactly one of unary and open */
    mk_rpc_open_fn open;
} mk_rpc_method;

/* Binds `addr` (which must not be in use: callers check liveness and remove
 * stale files first) and serves `methods` (the array must outlive the
 * server) on one thread. Unknown methods get UNIMPLEMENTED. NULL and err on
 * failure. */
mk_rpc_server *mk_rpc_server_start(const char *addr, const mk_rpc_method *methods, size_t n,
                                   void *ctx, char *err, size_t errlen);
/* Queues a message on a stream; 0, or -1 when the stream has ended. */
int mk_rpc_stream_send(mk_rpc_stream *st, const uint8_t *msg, size_t len);
/* Queues a message on every open stream of `path`; returns how many. */
size_t mk_rpc_server_broadcast(mk_rpc_server *s, const char *path, const uint8_t *msg, size_t len);
/* Open streams of `path` (for tests and progress lines). */
size_t mk_rpc_server_nstreams(mk_rpc_server *s, const char *path);
/* Stops accepting calls, cancels those in flight (streams end with
 * CANCELLED on the client), joins the thread, removes the socket file. */
void mk_rpc_server_stop(mk_rpc_server *s);

/* --- client --------------------------------------------------------------- */

typedef struct mk_rpc_channel mk_rpc_channel;
typedef struct mk_rpc_watch mk_rpc_watch;

/* Connects to `addr`, waiting at most timeout_ms for the connection to be
 * ready. A socket nobody listens on fails at once. NULL and err on failure. */
mk_rpc_channel *mk_rpc_dial(const char *addr, int timeout_ms, char *err, size_t errlen);
/* Calls in flight keep the underlying channel alive until they finish. */
void mk_rpc_channel_close(mk_rpc_channel *ch);

/* A unary call with a deadline of timeout_ms. Returns MK_RPC_OK with *resp
 * filled (malloc'd), or the call's status code with "CODE: message" in err. */
int mk_rpc_call(mk_rpc_channel *ch, const char *path, const uint8_t *req, size_t len,
                int timeout_ms, mk_rpc_buf *resp, char *err, size_t errlen);

/* A server-streaming call followed on its own thread: on_msg gets each
 * message in order, then on_end gets the final status exactly once (code 0
 * when the server ended the stream cleanly; CANCELLED after
 * mk_rpc_watch_close). Callbacks run on the watch's thread. */
typedef void (*mk_rpc_msg_fn)(void *ctx, const uint8_t *msg, size_t len);
typedef void (*mk_rpc_end_fn)(void *ctx, int code, const char *msg);
mk_rpc_watch *mk_rpc_watch_open(mk_rpc_channel *ch, const char *path,
                                const uint8_t *req, size_t len,
                                mk_rpc_msg_fn on_msg, mk_rpc_end_fn on_end, void *ctx,
                                char *err, size_t errlen);
/* Cancels the stream (if still open) and joins its thread; on_end has run
 * when this returns. Must not be called from the watch's own callbacks. */
void mk_rpc_watch_close(mk_rpc_watch *w);

#endif
