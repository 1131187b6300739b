/* Test helper: a decoded message encoded again must give the same bytes. */
#include "tests/unit/proto/proto_reencode.h"

/* Builds a frame holding m's fields in order. */
void
proto_reencode(const struct proto_msg *m, struct proto_buf *b)
{
	const struct proto_field *f;
	uint16_t		  i;

	proto_begin(b, m->type);
	for (i = 0; i < m->nfields; i++) {
		f = &m->fields[i];
		switch (f->kind) {
		case PROTO_KIND_U64:
			proto_add_u64(b, f->tag, f->u);
			break;
		case PROTO_KIND_I64:
			proto_add_i64(b, f->tag, (int64_t)f->u);
			break;
		case PROTO_KIND_BYTES:
			proto_add_bytes(b, f->tag, f->data, f->len);
			break;
		default:
			proto_add_absent(b, f->tag);
			break;
		}
	}
	proto_end(b);
}
