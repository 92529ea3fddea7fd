/* deviceplugin.c - packing device-plugin API messages into gRPC layer
 * buffers. */
#include <stdlib.h>
#include "deviceplugin.h"

int mk_dp_pack(const void *msg, mk_rpc_buf *out)
{
    const ProtobufCMessage *m = msg;
    size_t n = protobuf_c_message_get_packed_size(m);
    /* Empty messages pack to zero bytes; keep data non-NULL anyway. */
    out->data = malloc(n ? n : 1);
    if (!out->data) {
        out->len = 0;
        return -1;
    }
    out->len = protobuf_c_message_pack(m, out->data);
    return 0;
}
