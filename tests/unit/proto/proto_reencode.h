/* Test helper: encodes a decoded message again, field by field. */
#ifndef HILAB_TEST_PROTO_REENCODE_H
#define HILAB_TEST_PROTO_REENCODE_H

#include "common/proto.h"

void proto_reencode(const struct proto_msg *, struct proto_buf *);

#endif
