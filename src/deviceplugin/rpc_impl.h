/* rpc_impl.h - what rpc_server.c, rpc_client.c and rpc_watch.c share:
 * deadlines, byte-buffer conversions, status text.
 *
 * Each server and channel holds one grpc_init() reference and drops it with
 * grpc_shutdown_blocking(), so gRPC's internal threads are gone once the
 * last one is closed. */
#ifndef MOKKA_RPC_IMPL_H
#define MOKKA_RPC_IMPL_H

#include <grpc/grpc.h>
#include <grpc/support/time.h>
#include "rpc.h"

/* How often a completion-queue loop wakes up when nothing happens; the
 * loops end on events, the tick only bounds each single wait. */
#define MK_RPC_TICK_MS 1000

/* Channel and server arguments: messages either way at most
 * MK_RPC_MAX_MESSAGE bytes (rpc.h); a larger one fails its call with
 * RESOURCE_EXHAUSTED instead of being buffered whole. */
const grpc_channel_args *mk_rpc_channel_args(void);

gpr_timespec mk_rpc_deadline(int ms);
/* A call on the channel for method `path` (a string that outlives the call). */
grpc_call *mk_rpc_channel_create_call(mk_rpc_channel *c, const char *path,
                                      grpc_completion_queue *cq, gpr_timespec deadline);
/* A byte buffer holding a copy of msg; NULL if out of memory. */
grpc_byte_buffer *mk_rpc_bb_from(const uint8_t *msg, size_t len);
/* Copies a byte buffer into out (malloc'd; a 1-byte allocation for an empty
 * message so that data is never NULL). 0, or -1 if out of memory. */
int mk_rpc_bb_read(grpc_byte_buffer *bb, mk_rpc_buf *out);
/* Writes "CODE: details" (or just "CODE") into err. */
void mk_rpc_format_status(char *err, size_t errlen, int code, grpc_slice details);

#endif
