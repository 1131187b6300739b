/* The controller <-> agent protocol codec: frame builder and strict decoder. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proto.h"
#include "common/xmalloc.h"

/* Field header: u16 tag, u8 kind, u32 len. */
#define PROTO_FIELD_HDR	 7
/* Message header: u16 type, u16 nfields. */
#define PROTO_MSG_HDR	 4
#define PROTO_RUN_ID_MAX 64

/* How a tag may appear in one message type. */
#define PROTO_REQ 0x1 /* must appear */
#define PROTO_REP 0x2 /* may appear more than once */

struct proto_rule {
	uint8_t tag;
	uint8_t flags;
};

/*
 * What each type carries.  A group is a repeated tuple: the message is then
 * a sequence of whole groups, each field in its slot (a slot lists its tags).
 */
struct proto_spec {
	const char	 *name;
	struct proto_rule rules[12];
	uint8_t		  slots[3][2];
	uint8_t		  nslots;
};

static const struct proto_spec proto_specs[PROTO_TYPE_MAX] = {
	[PROTO_HELLO] = { "HELLO",
	    { { PROTO_T_VERSION, PROTO_REQ }, { PROTO_T_AGENT_VERSION, 0 },
		{ PROTO_T_ARCH, 0 } },
	    { { 0 } }, 0 },
	[PROTO_ERROR] = { "ERROR", { { PROTO_T_MESSAGE, PROTO_REQ } },
	    { { 0 } }, 0 },
	[PROTO_FACTS_REQ] = { "FACTS_REQ", { { 0, 0 } }, { { 0 } }, 0 },
	[PROTO_FACTS] = { "FACTS",
	    { { PROTO_T_KEY, PROTO_REP }, { PROTO_T_VALUE, PROTO_REP },
		{ PROTO_T_ABSENT, PROTO_REP } },
	    { { PROTO_T_KEY }, { PROTO_T_VALUE, PROTO_T_ABSENT } }, 2 },
	[PROTO_RUN] = { "RUN",
	    { { PROTO_T_RUN_ID, PROTO_REQ },
		{ PROTO_T_ARGV, PROTO_REQ | PROTO_REP },
		{ PROTO_T_ITERATIONS, PROTO_REQ },
		{ PROTO_T_WARMUPS, PROTO_REQ }, { PROTO_T_TIMEOUT_MS, 0 },
		{ PROTO_T_CWD, 0 }, { PROTO_T_ENV, PROTO_REP },
		{ PROTO_T_PROBE, PROTO_REP }, { PROTO_T_PROBE_METHOD, 0 },
		{ PROTO_T_MONITOR, PROTO_REP } },
	    { { 0 } }, 0 },
	[PROTO_RUN_STARTED] = { "RUN_STARTED",
	    { { PROTO_T_RUN_ID, PROTO_REQ }, { PROTO_T_PID, PROTO_REQ } },
	    { { 0 } }, 0 },
	[PROTO_RESULT] = { "RESULT",
	    { { PROTO_T_RUN_ID, PROTO_REQ }, { PROTO_T_SEQ, PROTO_REQ },
		{ PROTO_T_WARMUP, PROTO_REQ },
		{ PROTO_T_EXIT_STATUS, PROTO_REQ },
		{ PROTO_T_TIMED_OUT, PROTO_REQ },
		{ PROTO_T_WALL_NS, PROTO_REQ }, { PROTO_T_UTIME_US, PROTO_REQ },
		{ PROTO_T_STIME_US, PROTO_REQ },
		{ PROTO_T_MAXRSS_KB, PROTO_REQ }, { PROTO_T_OUTPUT, PROTO_REQ },
		{ PROTO_T_TRUNCATED, PROTO_REQ },
		{ PROTO_T_SAMPLE, PROTO_REP } },
	    { { 0 } }, 0 },
	[PROTO_RUN_DONE] = { "RUN_DONE",
	    { { PROTO_T_RUN_ID, PROTO_REQ }, { PROTO_T_STATE, PROTO_REQ },
		{ PROTO_T_COUNT, PROTO_REQ }, { PROTO_T_MESSAGE, 0 } },
	    { { 0 } }, 0 },
	[PROTO_STATUS_REQ] = { "STATUS_REQ", { { PROTO_T_RUN_ID, 0 } },
	    { { 0 } }, 0 },
	[PROTO_STATUS] = { "STATUS",
	    { { PROTO_T_RUN_ID, PROTO_REP }, { PROTO_T_STATE, PROTO_REP },
		{ PROTO_T_COUNT, PROTO_REP } },
	    { { PROTO_T_RUN_ID }, { PROTO_T_STATE }, { PROTO_T_COUNT } }, 3 },
	[PROTO_FETCH] = { "FETCH",
	    { { PROTO_T_RUN_ID, PROTO_REQ }, { PROTO_T_FROM_SEQ, PROTO_REQ },
		{ PROTO_T_WAIT, 0 } },
	    { { 0 } }, 0 },
	[PROTO_ACK] = { "ACK", { { PROTO_T_RUN_ID, PROTO_REQ } }, { { 0 } },
	    0 },
	[PROTO_ACKED] = { "ACKED", { { PROTO_T_RUN_ID, PROTO_REQ } }, { { 0 } },
	    0 },
	[PROTO_BYE] = { "BYE", { { 0, 0 } }, { { 0 } }, 0 },
	[PROTO_CANCEL] = { "CANCEL", { { PROTO_T_RUN_ID, PROTO_REQ } },
	    { { 0 } }, 0 },
};

/* The kind every tag must have, and its name for messages. */
static const struct {
	const char *name;
	uint8_t	    kind;
} proto_tags[PROTO_TAG_MAX] = {
	[PROTO_T_VERSION] = { "VERSION", PROTO_KIND_U64 },
	[PROTO_T_AGENT_VERSION] = { "AGENT_VERSION", PROTO_KIND_BYTES },
	[PROTO_T_ARCH] = { "ARCH", PROTO_KIND_BYTES },
	[PROTO_T_MESSAGE] = { "MESSAGE", PROTO_KIND_BYTES },
	[PROTO_T_KEY] = { "KEY", PROTO_KIND_BYTES },
	[PROTO_T_VALUE] = { "VALUE", PROTO_KIND_BYTES },
	[PROTO_T_ABSENT] = { "ABSENT", PROTO_KIND_ABSENT },
	[PROTO_T_RUN_ID] = { "RUN_ID", PROTO_KIND_BYTES },
	[PROTO_T_ARGV] = { "ARGV", PROTO_KIND_BYTES },
	[PROTO_T_ITERATIONS] = { "ITERATIONS", PROTO_KIND_U64 },
	[PROTO_T_WARMUPS] = { "WARMUPS", PROTO_KIND_U64 },
	[PROTO_T_TIMEOUT_MS] = { "TIMEOUT_MS", PROTO_KIND_U64 },
	[PROTO_T_CWD] = { "CWD", PROTO_KIND_BYTES },
	[PROTO_T_ENV] = { "ENV", PROTO_KIND_BYTES },
	[PROTO_T_PID] = { "PID", PROTO_KIND_U64 },
	[PROTO_T_SEQ] = { "SEQ", PROTO_KIND_U64 },
	[PROTO_T_WARMUP] = { "WARMUP", PROTO_KIND_U64 },
	[PROTO_T_EXIT_STATUS] = { "EXIT_STATUS", PROTO_KIND_I64 },
	[PROTO_T_TIMED_OUT] = { "TIMED_OUT", PROTO_KIND_U64 },
	[PROTO_T_WALL_NS] = { "WALL_NS", PROTO_KIND_U64 },
	[PROTO_T_UTIME_US] = { "UTIME_US", PROTO_KIND_U64 },
	[PROTO_T_STIME_US] = { "STIME_US", PROTO_KIND_U64 },
	[PROTO_T_MAXRSS_KB] = { "MAXRSS_KB", PROTO_KIND_U64 },
	[PROTO_T_OUTPUT] = { "OUTPUT", PROTO_KIND_BYTES },
	[PROTO_T_TRUNCATED] = { "TRUNCATED", PROTO_KIND_U64 },
	[PROTO_T_STATE] = { "STATE", PROTO_KIND_U64 },
	[PROTO_T_COUNT] = { "COUNT", PROTO_KIND_U64 },
	[PROTO_T_FROM_SEQ] = { "FROM_SEQ", PROTO_KIND_U64 },
	[PROTO_T_WAIT] = { "WAIT", PROTO_KIND_U64 },
	[PROTO_T_PROBE] = { "PROBE", PROTO_KIND_BYTES },
	[PROTO_T_PROBE_METHOD] = { "PROBE_METHOD", PROTO_KIND_BYTES },
	[PROTO_T_MONITOR] = { "MONITOR", PROTO_KIND_BYTES },
	[PROTO_T_SAMPLE] = { "SAMPLE", PROTO_KIND_BYTES },
};

const char *const proto_monitors[] = { "schedstat", "vmstat", "interrupts",
	"softirqs", "cpufreq", "perf-stat", NULL };

const char *const proto_probe_methods[] = { "function_graph", "kprobe", NULL };

/* Whether name is one of the NULL-terminated names. */
static int
proto_listed(const char *const *names, const char *name)
{
	size_t i;

	for (i = 0; names[i] != NULL; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

int
proto_monitor_known(const char *name)
{
	return proto_listed(proto_monitors, name);
}

int
proto_probe_method_known(const char *name)
{
	return proto_listed(proto_probe_methods, name);
}

/* Stores a big-endian integer of n bytes. */
static void
proto_put_be(unsigned char *p, uint64_t v, int n)
{
	while (n-- > 0) {
		p[n] = v & 0xff;
		v >>= 8;
	}
}

/* Loads a big-endian integer of n bytes. */
static uint64_t
proto_get_be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	int	 i;

	for (i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

/* Makes room for n more bytes and returns where they go. */
static unsigned char *
proto_reserve(struct proto_buf *b, size_t n)
{
	unsigned char *p;

	if (b->len + n > b->cap) {
		while (b->len + n > b->cap)
			b->cap = b->cap ? b->cap * 2 : 256;
		b->data = xreallocarray(b->data, 1, b->cap);
	}
	p = b->data + b->len;
	b->len += n;
	return p;
}

/* Starts a new frame in b, which must be zeroed or freed before. */
void
proto_begin(struct proto_buf *b, enum proto_type type)
{
	unsigned char *p;

	memset(b, 0, sizeof *b);
	p = proto_reserve(b, PROTO_HDR_LEN + PROTO_MSG_HDR);
	memset(p, 0, PROTO_HDR_LEN + PROTO_MSG_HDR);
	proto_put_be(p + PROTO_HDR_LEN, type, 2);
}

/* Appends one field header and returns where its data goes. */
static unsigned char *
proto_add_field(struct proto_buf *b, enum proto_tag tag, enum proto_kind kind,
    size_t len)
{
	unsigned char *p;

	if (b->nfields == PROTO_MAX_FIELDS || len > UINT32_MAX) {
		fprintf(stderr, "proto: frame too large\n");
		abort();
	}
	b->nfields++;
	p = proto_reserve(b, PROTO_FIELD_HDR + len);
	proto_put_be(p, tag, 2);
	p[2] = kind;
	proto_put_be(p + 3, len, 4);
	return p + PROTO_FIELD_HDR;
}

/* Appends an unsigned 64-bit field. */
void
proto_add_u64(struct proto_buf *b, enum proto_tag tag, uint64_t v)
{
	proto_put_be(proto_add_field(b, tag, PROTO_KIND_U64, 8), v, 8);
}

/* Appends a signed 64-bit field. */
void
proto_add_i64(struct proto_buf *b, enum proto_tag tag, int64_t v)
{
	proto_put_be(proto_add_field(b, tag, PROTO_KIND_I64, 8), (uint64_t)v,
	    8);
}

/* Appends a byte string field. */
void
proto_add_bytes(struct proto_buf *b, enum proto_tag tag, const void *data,
    size_t len)
{
	unsigned char *p = proto_add_field(b, tag, PROTO_KIND_BYTES, len);

	if (len > 0)
		memcpy(p, data, len);
}

/* Appends a string field (without its NUL). */
void
proto_add_str(struct proto_buf *b, enum proto_tag tag, const char *s)
{
	proto_add_bytes(b, tag, s, strlen(s));
}

/* Appends an empty field saying the value is absent. */
void
proto_add_absent(struct proto_buf *b, enum proto_tag tag)
{
	proto_add_field(b, tag, PROTO_KIND_ABSENT, 0);
}

/* Fills in the length prefix and field count. */
void
proto_end(struct proto_buf *b)
{
	proto_put_be(b->data, b->len - PROTO_HDR_LEN, 4);
	proto_put_be(b->data + PROTO_HDR_LEN + 2, b->nfields, 2);
}

/* Frees a frame's storage; accepts a zeroed buffer. */
void
proto_buf_free(struct proto_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* Formats a decode error into err. */
static int
proto_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err != NULL && errlen > 0) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* The name of a tag, for messages. */
static const char *
proto_tag_name(unsigned tag)
{
	if (tag == 0 || tag >= PROTO_TAG_MAX)
		return "unknown";
	return proto_tags[tag].name;
}

/* The name of a message type, or "unknown". */
const char *
proto_type_name(int type)
{
	if (type <= 0 || type >= PROTO_TYPE_MAX)
		return "unknown";
	return proto_specs[type].name;
}

/* The rule for tag in spec, or NULL if the type does not allow it. */
static const struct proto_rule *
proto_rule_find(const struct proto_spec *spec, unsigned tag)
{
	size_t i;

	for (i = 0; i < sizeof spec->rules / sizeof spec->rules[0]; i++) {
		if (spec->rules[i].tag == 0)
			break;
		if (spec->rules[i].tag == tag)
			return &spec->rules[i];
	}
	return NULL;
}

/* Reads one field header and data at *off, advancing it. */
static int
proto_parse_field(const unsigned char *p, size_t len, size_t *off,
    struct proto_field *f, char *err, size_t errlen)
{
	if (len - *off < PROTO_FIELD_HDR)
		return proto_fail(err, errlen, "truncated field header");
	f->tag = proto_get_be(p + *off, 2);
	f->kind = p[*off + 2];
	f->len = proto_get_be(p + *off + 3, 4);
	*off += PROTO_FIELD_HDR;
	if (len - *off < f->len)
		return proto_fail(err, errlen,
		    "field %s: %u bytes past the end", proto_tag_name(f->tag),
		    f->len);
	f->data = p + *off;
	*off += f->len;
	if (f->kind == PROTO_KIND_U64 || f->kind == PROTO_KIND_I64) {
		if (f->len != 8)
			return proto_fail(err, errlen,
			    "field %s: integer of %u bytes",
			    proto_tag_name(f->tag), f->len);
		f->u = proto_get_be(f->data, 8);
	} else if (f->kind == PROTO_KIND_ABSENT && f->len != 0)
		return proto_fail(err, errlen, "field %s: absent with data",
		    proto_tag_name(f->tag));
	return 0;
}

/* True if s[0..len) is a valid run id. */
static int
proto_run_id_ok(const unsigned char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > PROTO_RUN_ID_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		if (!(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '.' &&
		    s[i] != '_' && s[i] != '-')
			return 0;
	}
	/* "." and ".." would name the spool itself. */
	if (s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')))
		return 0;
	return 1;
}

/* Checks the value of a BYTES field whose tag constrains it. */
static int
proto_check_bytes(const struct proto_field *f, char *err, size_t errlen)
{
	const char *name = proto_tag_name(f->tag);
	const void *eq;

	if (f->tag == PROTO_T_RUN_ID && !proto_run_id_ok(f->data, f->len))
		return proto_fail(err, errlen, "field RUN_ID: invalid run id");
	if (f->tag == PROTO_T_OUTPUT) {
		if (f->len > PROTO_MAX_OUTPUT)
			return proto_fail(err, errlen,
			    "field OUTPUT: too long");
		return 0;
	}
	if (f->len > 0 && memchr(f->data, '\0', f->len) != NULL)
		return proto_fail(err, errlen, "field %s: contains NUL", name);
	if (f->tag == PROTO_T_ARGV && f->len == 0)
		return proto_fail(err, errlen, "field ARGV: empty");
	if (f->tag == PROTO_T_KEY && f->len == 0)
		return proto_fail(err, errlen, "field KEY: empty");
	if (f->tag == PROTO_T_ENV || f->tag == PROTO_T_SAMPLE) {
		eq = memchr(f->data, '=', f->len);
		if (eq == NULL || eq == (const void *)f->data)
			return proto_fail(err, errlen,
			    "field %s: not NAME=value", name);
	}
	return 0;
}

/* Checks the value of an integer field whose tag constrains it. */
static int
proto_check_int(const struct proto_field *f, char *err, size_t errlen)
{
	switch (f->tag) {
	case PROTO_T_WARMUP:
	case PROTO_T_TIMED_OUT:
	case PROTO_T_TRUNCATED:
	case PROTO_T_WAIT:
		if (f->u > 1)
			return proto_fail(err, errlen, "field %s: not 0 or 1",
			    proto_tag_name(f->tag));
		break;
	case PROTO_T_STATE:
		if (f->u < PROTO_RUN_RUNNING || f->u > PROTO_RUN_CANCELLED)
			return proto_fail(err, errlen,
			    "field STATE: unknown state %llu",
			    (unsigned long long)f->u);
		break;
	}
	return 0;
}

/* Checks one field against the type's rules and what was seen before. */
static int
proto_check_field(const struct proto_spec *spec, const struct proto_field *f,
    unsigned *seen, char *err, size_t errlen)
{
	const struct proto_rule *rule;
	const char		*name = proto_tag_name(f->tag);

	if (f->tag == 0 || f->tag >= PROTO_TAG_MAX)
		return proto_fail(err, errlen, "unknown tag %u", f->tag);
	if ((rule = proto_rule_find(spec, f->tag)) == NULL)
		return proto_fail(err, errlen, "field %s: not allowed in %s",
		    name, spec->name);
	if (f->kind != proto_tags[f->tag].kind)
		return proto_fail(err, errlen, "field %s: wrong kind %u", name,
		    f->kind);
	if (seen[f->tag] > 0 && !(rule->flags & PROTO_REP))
		return proto_fail(err, errlen, "field %s: repeated", name);
	seen[f->tag]++;
	if (f->kind == PROTO_KIND_BYTES)
		return proto_check_bytes(f, err, errlen);
	return proto_check_int(f, err, errlen);
}

/* Checks required tags are present and groups are whole and in order. */
static int
proto_check_msg(const struct proto_spec *spec, const struct proto_msg *m,
    const unsigned *seen, char *err, size_t errlen)
{
	const uint8_t *slot;
	size_t	       i;

	for (i = 0; i < sizeof spec->rules / sizeof spec->rules[0]; i++) {
		if (spec->rules[i].tag == 0)
			break;
		if ((spec->rules[i].flags & PROTO_REQ) &&
		    seen[spec->rules[i].tag] == 0)
			return proto_fail(err, errlen, "%s: missing field %s",
			    spec->name, proto_tag_name(spec->rules[i].tag));
	}
	if (spec->nslots == 0)
		return 0;
	if (m->nfields % spec->nslots != 0)
		return proto_fail(err, errlen, "%s: incomplete group",
		    spec->name);
	for (i = 0; i < m->nfields; i++) {
		slot = spec->slots[i % spec->nslots];
		if (m->fields[i].tag != slot[0] && m->fields[i].tag != slot[1])
			return proto_fail(err, errlen,
			    "%s: field %s out of order", spec->name,
			    proto_tag_name(m->fields[i].tag));
	}
	return 0;
}

/* Parses and validates every field of a payload whose header is known. */
static int
proto_decode_fields(const unsigned char *p, size_t len,
    const struct proto_spec *spec, struct proto_msg *m, char *err,
    size_t errlen)
{
	unsigned seen[PROTO_TAG_MAX] = { 0 };
	size_t	 off = PROTO_MSG_HDR;
	uint16_t i;

	/* Each field takes at least its header: bounds the allocation. */
	if (m->nfields > (len - off) / PROTO_FIELD_HDR)
		return proto_fail(err, errlen, "%s: %u fields do not fit",
		    spec->name, m->nfields);
	m->fields = xcalloc(m->nfields, sizeof *m->fields);
	for (i = 0; i < m->nfields; i++) {
		if (proto_parse_field(p, len, &off, &m->fields[i], err,
			errlen) == -1)
			return -1;
		if (proto_check_field(spec, &m->fields[i], seen, err, errlen) ==
		    -1)
			return -1;
	}
	if (off != len)
		return proto_fail(err, errlen, "%s: %zu trailing bytes",
		    spec->name, len - off);
	return proto_check_msg(spec, m, seen, err, errlen);
}

/* Decodes and validates one payload; fields point into it. */
int
proto_decode(const void *payload, size_t len, struct proto_msg *m, char *err,
    size_t errlen)
{
	const unsigned char *p = payload;
	int		     rc = -1;

	memset(m, 0, sizeof *m);
	if (len < PROTO_MSG_HDR) {
		proto_fail(err, errlen, "payload of %zu bytes too short", len);
		goto out;
	}
	if (len > PROTO_MAX_PAYLOAD) {
		proto_fail(err, errlen, "payload of %zu bytes too long", len);
		goto out;
	}
	m->type = proto_get_be(p, 2);
	m->nfields = proto_get_be(p + 2, 2);
	if (m->type == 0 || m->type >= PROTO_TYPE_MAX) {
		proto_fail(err, errlen, "unknown message type %u", m->type);
		goto out;
	}
	rc = proto_decode_fields(p, len, &proto_specs[m->type], m, err, errlen);
out:
	if (rc == -1)
		proto_msg_clear(m);
	return rc;
}

/* Frees a decoded message's field array. */
void
proto_msg_clear(struct proto_msg *m)
{
	free(m->fields);
	memset(m, 0, sizeof *m);
}

/* Payload length from a frame header; 0 if it exceeds the maximum. */
uint32_t
proto_frame_len(const unsigned char hdr[PROTO_HDR_LEN])
{
	uint32_t len = proto_get_be(hdr, 4);

	return len > PROTO_MAX_PAYLOAD ? 0 : len;
}

/* The first field with tag, or NULL. */
const struct proto_field *
proto_find(const struct proto_msg *m, enum proto_tag tag)
{
	uint16_t i;

	for (i = 0; i < m->nfields; i++) {
		if (m->fields[i].tag == tag)
			return &m->fields[i];
	}
	return NULL;
}

/* Gets an unsigned field; -1 if absent or of another kind. */
int
proto_get_u64(const struct proto_msg *m, enum proto_tag tag, uint64_t *v)
{
	const struct proto_field *f = proto_find(m, tag);

	if (f == NULL || f->kind != PROTO_KIND_U64)
		return -1;
	*v = f->u;
	return 0;
}

/* Gets a signed field; -1 if absent or of another kind. */
int
proto_get_i64(const struct proto_msg *m, enum proto_tag tag, int64_t *v)
{
	const struct proto_field *f = proto_find(m, tag);

	if (f == NULL || f->kind != PROTO_KIND_I64)
		return -1;
	*v = (int64_t)f->u;
	return 0;
}

/* A NUL-terminated copy of a BYTES field, or NULL; the caller frees it. */
char *
proto_field_str(const struct proto_field *f)
{
	char *s;

	if (f == NULL || f->kind != PROTO_KIND_BYTES)
		return NULL;
	s = xmalloc((size_t)f->len + 1);
	if (f->len > 0)
		memcpy(s, f->data, f->len);
	s[f->len] = '\0';
	return s;
}

/* A NUL-terminated copy of the first field with tag, or NULL. */
char *
proto_get_str(const struct proto_msg *m, enum proto_tag tag)
{
	return proto_field_str(proto_find(m, tag));
}

/* Writes all of data, retrying short writes and EINTR. */
static int
proto_write_all(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;
	ssize_t		     n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Writes a finished frame; -1 with errno on failure. */
int
proto_write_frame(int fd, const struct proto_buf *b)
{
	if (b->len < PROTO_HDR_LEN + PROTO_MSG_HDR ||
	    b->len - PROTO_HDR_LEN > PROTO_MAX_PAYLOAD) {
		errno = EMSGSIZE;
		return -1;
	}
	return proto_write_all(fd, b->data, b->len);
}

/* Writes a payload as one frame (header then payload). */
int
proto_write_payload(int fd, const void *payload, size_t len)
{
	unsigned char hdr[PROTO_HDR_LEN];

	if (len < PROTO_MSG_HDR || len > PROTO_MAX_PAYLOAD) {
		errno = EMSGSIZE;
		return -1;
	}
	proto_put_be(hdr, len, 4);
	if (proto_write_all(fd, hdr, sizeof hdr) == -1)
		return -1;
	return proto_write_all(fd, payload, len);
}

/* Reads up to len bytes, stopping only at end of file; returns the count. */
static ssize_t
proto_read_all(int fd, void *data, size_t len)
{
	unsigned char *p = data;
	size_t	       got = 0;
	ssize_t	       n;

	while (got < len) {
		n = read(fd, p + got, len - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/* Reads one frame's payload; 1 at a clean end of file. */
int
proto_read_frame(int fd, unsigned char **payload, size_t *len, char *err,
    size_t errlen)
{
	unsigned char  hdr[PROTO_HDR_LEN];
	unsigned char *p = NULL;
	ssize_t	       n;
	uint32_t       flen;
	int	       rc = -1;

	*payload = NULL;
	*len = 0;
	if ((n = proto_read_all(fd, hdr, sizeof hdr)) == -1) {
		proto_fail(err, errlen, "read: %s", strerror(errno));
		goto out;
	}
	if (n == 0) {
		rc = 1;
		goto out;
	}
	if (n < PROTO_HDR_LEN) {
		proto_fail(err, errlen, "short frame header (%zd bytes)", n);
		goto out;
	}
	flen = proto_get_be(hdr, 4);
	if (flen < PROTO_MSG_HDR || flen > PROTO_MAX_PAYLOAD) {
		proto_fail(err, errlen, "bad frame length %u", flen);
		goto out;
	}
	p = xmalloc(flen);
	if ((n = proto_read_all(fd, p, flen)) == -1) {
		proto_fail(err, errlen, "read: %s", strerror(errno));
		goto out;
	}
	if (n != (ssize_t)flen) {
		proto_fail(err, errlen, "short frame (%zd of %u bytes)", n,
		    flen);
		goto out;
	}
	*payload = p;
	*len = flen;
	p = NULL;
	rc = 0;
out:
	free(p);
	return rc;
}
