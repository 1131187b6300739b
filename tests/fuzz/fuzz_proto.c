/*
 * libFuzzer target for the protocol decoder: whatever it accepts must
 * encode back to the same bytes, and nothing may crash or leak.
 */
#include <stdlib.h>
#include <string.h>

#include "common/proto.h"
#include "tests/unit/proto/proto_reencode.h"

int LLVMFuzzerTestOneInput(const unsigned char *, size_t);

/* One input: a payload without the length prefix. */
int
LLVMFuzzerTestOneInput(const unsigned char *data, size_t len)
{
	struct proto_msg m;
	struct proto_buf b;
	char		 err[256];

	if (proto_decode(data, len, &m, err, sizeof err) == -1)
		return 0;
	proto_reencode(&m, &b);
	if (b.len != len + PROTO_HDR_LEN ||
	    memcmp(b.data + PROTO_HDR_LEN, data, len) != 0)
		abort();
	proto_buf_free(&b);
	proto_msg_clear(&m);
	return 0;
}
