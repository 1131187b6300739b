/* Unit tests of the protocol codec: builder, strict decoder, frame I/O. */
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"
#include "tests/unit/proto/proto_reencode.h"

/* One field of a hand-written payload. */
struct tfield {
	unsigned    tag;
	unsigned    kind;
	uint64_t    u;
	const char *s;	 /* BYTES, or NULL */
	int	    len; /* -1: natural length */
};

/* Builds a payload byte by byte, with no checks, for invalid inputs. */
static size_t
raw_payload(unsigned char *p, unsigned type, const struct tfield *f, int n)
{
	size_t off = 4;
	int    i, j;
	size_t len;

	p[0] = type >> 8;
	p[1] = type;
	p[2] = n >> 8;
	p[3] = n;
	for (i = 0; i < n; i++) {
		len = f[i].len >= 0		     ? (size_t)f[i].len
		    : f[i].s			     ? strlen(f[i].s)
		    : f[i].kind == PROTO_KIND_ABSENT ? 0
						     : 8;
		p[off] = f[i].tag >> 8;
		p[off + 1] = f[i].tag;
		p[off + 2] = f[i].kind;
		for (j = 0; j < 4; j++)
			p[off + 3 + j] = len >> (24 - 8 * j);
		off += 7;
		if (f[i].s != NULL)
			memcpy(p + off, f[i].s, len);
		else
			for (j = 0; j < (int)len; j++)
				p[off + j] = f[i].u >> (8 * (len - 1 - j));
		off += len;
	}
	return off;
}

/* Decodes a hand-written payload; returns proto_decode's result. */
static int
raw_decode(unsigned type, const struct tfield *f, int n)
{
	unsigned char	 p[4096];
	struct proto_msg m;
	char		 err[256] = "";
	size_t		 len = raw_payload(p, type, f, n);
	int		 rc;

	rc = proto_decode(p, len, &m, err, sizeof err);
	if (rc == -1)
		assert_true(err[0] != '\0');
	proto_msg_clear(&m);
	return rc;
}

#define U(tag, v)                                            \
	{                                                    \
		PROTO_T_##tag, PROTO_KIND_U64, (v), NULL, -1 \
	}
#define I(tag, v)                                            \
	{                                                    \
		PROTO_T_##tag, PROTO_KIND_I64, (v), NULL, -1 \
	}
#define S(tag, v)                                           \
	{                                                   \
		PROTO_T_##tag, PROTO_KIND_BYTES, 0, (v), -1 \
	}
#define A(tag)                                                \
	{                                                     \
		PROTO_T_##tag, PROTO_KIND_ABSENT, 0, NULL, -1 \
	}
#define N(a) ((int)(sizeof(a) / sizeof(a)[0]))

/* A full RESULT, every field present. */
static const struct tfield result_fields[] = {
	S(RUN_ID, "r1"),
	U(SEQ, 2),
	U(WARMUP, 0),
	I(EXIT_STATUS, -9),
	U(TIMED_OUT, 1),
	U(WALL_NS, 123456789),
	U(UTIME_US, 10),
	U(STIME_US, 20),
	U(MAXRSS_KB, 3000),
	S(OUTPUT, "out\n"),
	U(TRUNCATED, 0),
};

/* Builds a valid frame of each type with the builder API. */
static void
sample_build(int type, struct proto_buf *b)
{
	proto_begin(b, type);
	switch (type) {
	case PROTO_HELLO:
		proto_add_u64(b, PROTO_T_VERSION, PROTO_VERSION);
		proto_add_str(b, PROTO_T_AGENT_VERSION, "0.1.0");
		proto_add_str(b, PROTO_T_ARCH, "x86_64");
		break;
	case PROTO_ERROR:
		proto_add_str(b, PROTO_T_MESSAGE, "no such thing");
		break;
	case PROTO_FACTS:
		proto_add_str(b, PROTO_T_KEY, "kernel.release");
		proto_add_str(b, PROTO_T_VALUE, "6.1.0");
		proto_add_str(b, PROTO_T_KEY, "cpufreq.boost");
		proto_add_absent(b, PROTO_T_ABSENT);
		break;
	case PROTO_RUN:
		proto_add_str(b, PROTO_T_RUN_ID, "run-1.a_b");
		proto_add_str(b, PROTO_T_ARGV, "/bin/sh");
		proto_add_str(b, PROTO_T_ARGV, "-c");
		proto_add_str(b, PROTO_T_ARGV, "echo x; exit 3");
		proto_add_u64(b, PROTO_T_ITERATIONS, 5);
		proto_add_u64(b, PROTO_T_WARMUPS, 1);
		proto_add_u64(b, PROTO_T_TIMEOUT_MS, 1000);
		proto_add_str(b, PROTO_T_CWD, "/tmp");
		proto_add_str(b, PROTO_T_ENV, "A=1");
		proto_add_str(b, PROTO_T_ENV, "B=");
		break;
	case PROTO_RUN_STARTED:
		proto_add_str(b, PROTO_T_RUN_ID, "r1");
		proto_add_u64(b, PROTO_T_PID, 4242);
		break;
	case PROTO_RESULT:
		proto_add_str(b, PROTO_T_RUN_ID, "r1");
		proto_add_u64(b, PROTO_T_SEQ, 2);
		proto_add_u64(b, PROTO_T_WARMUP, 0);
		proto_add_i64(b, PROTO_T_EXIT_STATUS, -9);
		proto_add_u64(b, PROTO_T_TIMED_OUT, 1);
		proto_add_u64(b, PROTO_T_WALL_NS, UINT64_MAX);
		proto_add_u64(b, PROTO_T_UTIME_US, 10);
		proto_add_u64(b, PROTO_T_STIME_US, 20);
		proto_add_u64(b, PROTO_T_MAXRSS_KB, 3000);
		proto_add_bytes(b, PROTO_T_OUTPUT, "a\0b", 3);
		proto_add_u64(b, PROTO_T_TRUNCATED, 0);
		break;
	case PROTO_RUN_DONE:
		proto_add_str(b, PROTO_T_RUN_ID, "r1");
		proto_add_u64(b, PROTO_T_STATE, PROTO_RUN_DONE_OK);
		proto_add_u64(b, PROTO_T_COUNT, 6);
		break;
	case PROTO_STATUS_REQ:
		proto_add_str(b, PROTO_T_RUN_ID, "r1");
		break;
	case PROTO_STATUS:
		proto_add_str(b, PROTO_T_RUN_ID, "r1");
		proto_add_u64(b, PROTO_T_STATE, PROTO_RUN_RUNNING);
		proto_add_u64(b, PROTO_T_COUNT, 1);
		proto_add_str(b, PROTO_T_RUN_ID, "r2");
		proto_add_u64(b, PROTO_T_STATE, PROTO_RUN_FAILED);
		proto_add_u64(b, PROTO_T_COUNT, 0);
		break;
	case PROTO_FETCH:
		proto_add_str(b, PROTO_T_RUN_ID, "r1");
		proto_add_u64(b, PROTO_T_FROM_SEQ, 3);
		proto_add_u64(b, PROTO_T_WAIT, 1);
		break;
	case PROTO_ACK:
	case PROTO_ACKED:
	case PROTO_CANCEL:
		proto_add_str(b, PROTO_T_RUN_ID, "r1");
		break;
	}
	proto_end(b);
}

/* Every type encodes, decodes to the same fields and re-encodes the same. */
static void
test_round_trip(void **state)
{
	struct proto_buf b, again;
	struct proto_msg m;
	char		 err[256];
	int		 type;

	(void)state;
	for (type = 1; type < PROTO_TYPE_MAX; type++) {
		sample_build(type, &b);
		assert_int_equal(b.len - PROTO_HDR_LEN,
		    proto_frame_len(b.data));
		if (proto_decode(b.data + PROTO_HDR_LEN, b.len - PROTO_HDR_LEN,
			&m, err, sizeof err) == -1)
			fail_msg("%s: %s", proto_type_name(type), err);
		assert_int_equal(m.type, type);
		assert_int_equal(m.nfields, b.nfields);
		assert_string_not_equal(proto_type_name(type), "unknown");
		proto_reencode(&m, &again);
		assert_int_equal(again.len, b.len);
		assert_memory_equal(again.data, b.data, b.len);
		proto_buf_free(&again);
		proto_msg_clear(&m);
		proto_buf_free(&b);
	}
}

/* The getters return values of the right kind and refuse others. */
static void
test_getters(void **state)
{
	struct proto_buf b;
	struct proto_msg m;
	uint64_t	 u;
	int64_t		 i;
	char		*s, err[256];

	(void)state;
	sample_build(PROTO_RESULT, &b);
	assert_int_equal(proto_decode(b.data + 4, b.len - 4, &m, err,
			     sizeof err),
	    0);
	assert_int_equal(proto_get_u64(&m, PROTO_T_WALL_NS, &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(proto_get_i64(&m, PROTO_T_EXIT_STATUS, &i), 0);
	assert_int_equal(i, -9);
	assert_int_equal(proto_get_u64(&m, PROTO_T_EXIT_STATUS, &u), -1);
	assert_int_equal(proto_get_u64(&m, PROTO_T_COUNT, &u), -1);
	assert_null(proto_get_str(&m, PROTO_T_SEQ));
	s = proto_get_str(&m, PROTO_T_OUTPUT);
	assert_memory_equal(s, "a\0b", 4);
	free(s);
	s = proto_get_str(&m, PROTO_T_RUN_ID);
	assert_string_equal(s, "r1");
	free(s);
	assert_string_equal(proto_type_name(0), "unknown");
	assert_string_equal(proto_type_name(PROTO_TYPE_MAX), "unknown");
	proto_msg_clear(&m);
	proto_buf_free(&b);
}

/* Every proper prefix of a valid payload is rejected, as is a byte more. */
static void
test_truncated_and_trailing(void **state)
{
	struct proto_buf b;
	struct proto_msg m;
	unsigned char	*p;
	size_t		 len, cut;
	char		 err[256];
	int		 type;

	(void)state;
	for (type = 1; type < PROTO_TYPE_MAX; type++) {
		sample_build(type, &b);
		len = b.len - PROTO_HDR_LEN;
		p = malloc(len + 1);
		memcpy(p, b.data + PROTO_HDR_LEN, len);
		for (cut = 0; cut < len; cut++) {
			if (proto_decode(p, cut, &m, err, sizeof err) == 0)
				fail_msg("%s: prefix %zu of %zu accepted",
				    proto_type_name(type), cut, len);
			assert_null(m.fields);
		}
		p[len] = 0;
		assert_int_equal(proto_decode(p, len + 1, &m, err, sizeof err),
		    -1);
		assert_non_null(strstr(err, "trailing"));
		free(p);
		proto_buf_free(&b);
	}
}

/* Lengths beyond the maximum are refused at every level. */
static void
test_oversized(void **state)
{
	unsigned char	 hdr[4] = { 0x01, 0x00, 0x00, 0x01 };
	unsigned char	 ok[4] = { 0x01, 0x00, 0x00, 0x00 };
	struct proto_msg m;
	char		 err[256];
	unsigned char	*big;

	(void)state;
	assert_int_equal(proto_frame_len(hdr), 0);
	assert_int_equal(proto_frame_len(ok), PROTO_MAX_PAYLOAD);
	big = calloc(1, PROTO_MAX_PAYLOAD + 1);
	big[1] = PROTO_BYE;
	assert_int_equal(proto_decode(big, PROTO_MAX_PAYLOAD + 1, &m, err,
			     sizeof err),
	    -1);
	free(big);
}

/* A field length one more or one less than the bytes present is refused. */
static void
test_field_length(void **state)
{
	struct tfield	 f[] = { S(MESSAGE, "abc") };
	struct proto_msg m;
	unsigned char	 p[64];
	char		 err[256];
	size_t		 len;

	(void)state;
	len = raw_payload(p, PROTO_ERROR, f, 1);
	assert_int_equal(proto_decode(p, len, &m, err, sizeof err), 0);
	proto_msg_clear(&m);
	p[4 + 6]++;
	assert_int_equal(proto_decode(p, len, &m, err, sizeof err), -1);
	assert_non_null(strstr(err, "past the end"));
	p[4 + 6] -= 2;
	assert_int_equal(proto_decode(p, len, &m, err, sizeof err), -1);
	p[4 + 6] = 0xff;
	p[4 + 3] = 0xff;
	assert_int_equal(proto_decode(p, len, &m, err, sizeof err), -1);
}

/* Unknown types, tags and kinds, bad lengths and counts are rejected. */
static void
test_garbage(void **state)
{
	struct tfield	 ver[] = { U(VERSION, 1) };
	struct tfield	 badtag[] = { U(VERSION, 1),
		   { PROTO_TAG_MAX, PROTO_KIND_U64, 1, NULL, -1 } };
	struct tfield	 tag0[] = { { 0, PROTO_KIND_U64, 1, NULL, -1 } };
	struct tfield	 kind9[] = { { PROTO_T_VERSION, 9, 1, NULL, 8 } };
	struct tfield	 short_int[] = { { PROTO_T_VERSION, PROTO_KIND_U64, 1,
	       NULL, 4 } };
	struct tfield	 absent_data[] = { S(KEY, "k"),
		   { PROTO_T_ABSENT, PROTO_KIND_ABSENT, 0, "x", -1 } };
	unsigned char	 p[64];
	struct proto_msg m;
	char		 err[256];
	size_t		 len;

	(void)state;
	assert_int_equal(raw_decode(PROTO_HELLO, ver, 1), 0);
	assert_int_equal(raw_decode(0, NULL, 0), -1);
	assert_int_equal(raw_decode(PROTO_TYPE_MAX, NULL, 0), -1);
	assert_int_equal(raw_decode(0xffff, NULL, 0), -1);
	assert_int_equal(raw_decode(PROTO_HELLO, badtag, 2), -1);
	assert_int_equal(raw_decode(PROTO_HELLO, tag0, 1), -1);
	assert_int_equal(raw_decode(PROTO_HELLO, kind9, 1), -1);
	assert_int_equal(raw_decode(PROTO_HELLO, short_int, 1), -1);
	assert_int_equal(raw_decode(PROTO_FACTS, absent_data, 2), -1);
	/* A field count larger than the fields present. */
	len = raw_payload(p, PROTO_HELLO, ver, 1);
	p[3] = 2;
	assert_int_equal(proto_decode(p, len, &m, err, sizeof err), -1);
	p[2] = 0xff;
	p[3] = 0xff;
	assert_int_equal(proto_decode(p, len, &m, err, sizeof err), -1);
}

/* Random bytes never crash the decoder; what it accepts is canonical. */
static void
test_random_bytes(void **state)
{
	unsigned char	 p[256];
	struct proto_msg m;
	struct proto_buf b;
	char		 err[256];
	unsigned	 seed = 12345;
	size_t		 len, i;
	int		 round, accepted = 0;

	(void)state;
	for (round = 0; round < 200000; round++) {
		len = rand_r(&seed) % sizeof p;
		for (i = 0; i < len; i++)
			p[i] = rand_r(&seed);
		/* Plausible headers now and then, to get past the type. */
		if (len >= 4 && round % 2 == 0) {
			p[0] = 0;
			p[1] = 1 + rand_r(&seed) % (PROTO_TYPE_MAX - 1);
			p[2] = 0;
			p[3] = rand_r(&seed) % 3;
		}
		if (proto_decode(p, len, &m, err, sizeof err) == -1)
			continue;
		accepted++;
		proto_reencode(&m, &b);
		assert_int_equal(b.len, len + PROTO_HDR_LEN);
		assert_memory_equal(b.data + PROTO_HDR_LEN, p, len);
		proto_buf_free(&b);
		proto_msg_clear(&m);
	}
	/* Empty FACTS_REQ/BYE/STATUS... do turn up. */
	assert_true(accepted > 0);
}

/* Fields of the wrong kind for their tag are rejected. */
static void
test_wrong_kind(void **state)
{
	struct tfield ver_bytes[] = { S(VERSION, "12345678") };
	struct tfield id_u64[] = { U(RUN_ID, 1) };
	struct tfield exit_u64[] = { S(RUN_ID, "r"), U(SEQ, 0), U(WARMUP, 0),
		U(EXIT_STATUS, 0), U(TIMED_OUT, 0), U(WALL_NS, 1),
		U(UTIME_US, 1), U(STIME_US, 1), U(MAXRSS_KB, 1), S(OUTPUT, ""),
		U(TRUNCATED, 0) };
	struct tfield value_absent[] = { S(KEY, "k"), A(VALUE) };

	(void)state;
	assert_int_equal(raw_decode(PROTO_HELLO, ver_bytes, 1), -1);
	assert_int_equal(raw_decode(PROTO_ACK, id_u64, 1), -1);
	assert_int_equal(raw_decode(PROTO_RESULT, exit_u64, N(exit_u64)), -1);
	assert_int_equal(raw_decode(PROTO_FACTS, value_absent, 2), -1);
	assert_int_equal(raw_decode(PROTO_RESULT, result_fields,
			     N(result_fields)),
	    0);
}

/* Dropping any required field of a RESULT, RUN or others is rejected. */
static void
test_missing_required(void **state)
{
	struct tfield f[N(result_fields)];
	struct tfield run_no_argv[] = { S(RUN_ID, "r"), U(ITERATIONS, 1),
		U(WARMUPS, 0) };
	struct tfield run_min[] = { S(RUN_ID, "r"), S(ARGV, "true"),
		U(ITERATIONS, 1), U(WARMUPS, 0) };
	struct tfield fetch[] = { S(RUN_ID, "r") };
	int	      skip, i, n;

	(void)state;
	for (skip = 0; skip < N(result_fields); skip++) {
		for (i = 0, n = 0; i < N(result_fields); i++)
			if (i != skip)
				f[n++] = result_fields[i];
		assert_int_equal(raw_decode(PROTO_RESULT, f, n), -1);
	}
	assert_int_equal(raw_decode(PROTO_RUN, run_no_argv, 3), -1);
	assert_int_equal(raw_decode(PROTO_RUN, run_min, 4), 0);
	for (skip = 0; skip < 4; skip++) {
		for (i = 0, n = 0; i < 4; i++)
			if (i != skip)
				f[n++] = run_min[i];
		assert_int_equal(raw_decode(PROTO_RUN, f, n), -1);
	}
	assert_int_equal(raw_decode(PROTO_HELLO, NULL, 0), -1);
	assert_int_equal(raw_decode(PROTO_ERROR, NULL, 0), -1);
	assert_int_equal(raw_decode(PROTO_FETCH, fetch, 1), -1);
	assert_int_equal(raw_decode(PROTO_ACK, NULL, 0), -1);
	assert_int_equal(raw_decode(PROTO_STATUS_REQ, NULL, 0), 0);
	assert_int_equal(raw_decode(PROTO_STATUS, NULL, 0), 0);
	assert_int_equal(raw_decode(PROTO_FACTS, NULL, 0), 0);
}

/* Non-repeatable tags may appear once; ARGV and ENV many times. */
static void
test_duplicates(void **state)
{
	struct tfield hello2[] = { U(VERSION, 1), U(VERSION, 1) };
	struct tfield run2id[] = { S(RUN_ID, "r"), S(RUN_ID, "r"),
		S(ARGV, "true"), U(ITERATIONS, 1), U(WARMUPS, 0) };
	struct tfield run2cwd[] = { S(RUN_ID, "r"), S(ARGV, "true"),
		U(ITERATIONS, 1), U(WARMUPS, 0), S(CWD, "/"), S(CWD, "/") };
	struct tfield runrep[] = { S(RUN_ID, "r"), S(ARGV, "a"), S(ARGV, "b"),
		U(ITERATIONS, 1), U(WARMUPS, 0), S(ENV, "A=1"), S(ENV, "B=2") };
	struct tfield foreign[] = { U(VERSION, 1), S(RUN_ID, "r") };
	struct tfield bye[] = { U(VERSION, 1) };

	(void)state;
	assert_int_equal(raw_decode(PROTO_HELLO, hello2, 2), -1);
	assert_int_equal(raw_decode(PROTO_RUN, run2id, N(run2id)), -1);
	assert_int_equal(raw_decode(PROTO_RUN, run2cwd, N(run2cwd)), -1);
	assert_int_equal(raw_decode(PROTO_RUN, runrep, N(runrep)), 0);
	/* Tags the type does not carry. */
	assert_int_equal(raw_decode(PROTO_HELLO, foreign, 2), -1);
	assert_int_equal(raw_decode(PROTO_BYE, bye, 1), -1);
	assert_int_equal(raw_decode(PROTO_FACTS_REQ, bye, 1), -1);
}

/* Repeated groups must be whole and in order. */
static void
test_groups(void **state)
{
	struct tfield key_only[] = { S(KEY, "a") };
	struct tfield value_first[] = { S(VALUE, "v"), S(KEY, "a") };
	struct tfield two_values[] = { S(KEY, "a"), S(VALUE, "v"),
		S(VALUE, "w"), S(KEY, "b") };
	struct tfield ok[] = { S(KEY, "a"), S(VALUE, "v"), S(KEY, "b"),
		A(ABSENT) };
	struct tfield status_short[] = { S(RUN_ID, "r"), U(STATE, 1) };
	struct tfield status_swap[] = { S(RUN_ID, "r"), U(COUNT, 1),
		U(STATE, 1) };

	(void)state;
	assert_int_equal(raw_decode(PROTO_FACTS, key_only, 1), -1);
	assert_int_equal(raw_decode(PROTO_FACTS, value_first, 2), -1);
	assert_int_equal(raw_decode(PROTO_FACTS, two_values, 4), -1);
	assert_int_equal(raw_decode(PROTO_FACTS, ok, 4), 0);
	assert_int_equal(raw_decode(PROTO_STATUS, status_short, 2), -1);
	assert_int_equal(raw_decode(PROTO_STATUS, status_swap, 3), -1);
}

/* Values are checked: run ids, flags, states, NUL bytes, ENV form. */
static void
test_values(void **state)
{
	static const char *bad_ids[] = {
		"",
		"a/b",
		".",
		"..",
		"a b",
		"r\n",
		"x\xc3\xa9",
		"1234567890123456789012345678901234567890"
		"1234567890123456789012345",
	};
	static const char *good_ids[] = { "a", "...", "A-Z_0.9", ".hidden",
		"1234567890123456789012345678901234567890"
		"123456789012345678901234" };
	struct tfield	   f[1] = { S(RUN_ID, NULL) };
	struct tfield wait2[] = { S(RUN_ID, "r"), U(FROM_SEQ, 0), U(WAIT, 2) };
	struct tfield state0[] = { S(RUN_ID, "r"), U(STATE, 0), U(COUNT, 0) };
	struct tfield state6[] = { S(RUN_ID, "r"), U(STATE, 6), U(COUNT, 0) };
	struct tfield nul[] = { S(RUN_ID, "r"),
		{ PROTO_T_ARGV, PROTO_KIND_BYTES, 0, "a\0b", 3 },
		U(ITERATIONS, 1), U(WARMUPS, 0) };
	struct tfield env[] = { S(RUN_ID, "r"), S(ARGV, "a"), U(ITERATIONS, 1),
		U(WARMUPS, 0), S(ENV, "=x") };
	size_t	      i;

	(void)state;
	for (i = 0; i < sizeof bad_ids / sizeof *bad_ids; i++) {
		f[0].s = bad_ids[i];
		if (raw_decode(PROTO_ACK, f, 1) != -1)
			fail_msg("run id \"%s\" accepted", bad_ids[i]);
	}
	for (i = 0; i < sizeof good_ids / sizeof *good_ids; i++) {
		f[0].s = good_ids[i];
		if (raw_decode(PROTO_ACK, f, 1) != 0)
			fail_msg("run id \"%s\" refused", good_ids[i]);
	}
	assert_int_equal(raw_decode(PROTO_FETCH, wait2, 3), -1);
	assert_int_equal(raw_decode(PROTO_RUN_DONE, state0, 3), -1);
	assert_int_equal(raw_decode(PROTO_RUN_DONE, state6, 3), -1);
	assert_int_equal(raw_decode(PROTO_RUN, nul, 4), -1);
	assert_int_equal(raw_decode(PROTO_RUN, env, 5), -1);
	env[4].s = "NOEQUALS";
	assert_int_equal(raw_decode(PROTO_RUN, env, 5), -1);
	env[4].s = "A=";
	assert_int_equal(raw_decode(PROTO_RUN, env, 5), 0);
}

/* Writes bytes to a pipe from a child, slowly if asked, then closes it. */
static pid_t
pipe_writer(int fd[2], const void *data, size_t len, int slow)
{
	const unsigned char *p = data;
	pid_t		     pid;
	size_t		     i;

	assert_int_equal(pipe(fd), 0);
	if ((pid = fork()) != 0) {
		close(fd[1]);
		return pid;
	}
	close(fd[0]);
	for (i = 0; i < len; i++) {
		if (write(fd[1], p + i, slow ? 1 : len - i) < 0)
			_exit(1);
		if (!slow)
			break;
		usleep(200);
	}
	_exit(0);
}

/* Waits for a writer child; it must have succeeded. */
static void
pipe_reap(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Frames over a pipe: two frames then a clean end of file. */
static void
test_read_frames(void **state)
{
	struct proto_buf a, b;
	unsigned char	 both[1024], *p;
	size_t		 len;
	char		 err[256];
	int		 fd[2];
	pid_t		 pid;

	(void)state;
	sample_build(PROTO_RUN, &a);
	sample_build(PROTO_HELLO, &b);
	memcpy(both, a.data, a.len);
	memcpy(both + a.len, b.data, b.len);
	pid = pipe_writer(fd, both, a.len + b.len, 0);
	assert_int_equal(proto_read_frame(fd[0], &p, &len, err, sizeof err), 0);
	assert_int_equal(len, a.len - 4);
	assert_memory_equal(p, a.data + 4, len);
	free(p);
	assert_int_equal(proto_read_frame(fd[0], &p, &len, err, sizeof err), 0);
	assert_memory_equal(p, b.data + 4, b.len - 4);
	free(p);
	assert_int_equal(proto_read_frame(fd[0], &p, &len, err, sizeof err), 1);
	assert_null(p);
	close(fd[0]);
	pipe_reap(pid);
	proto_buf_free(&a);
	proto_buf_free(&b);
}

/* Every proper, non-empty prefix of a frame on a pipe is a short frame. */
static void
test_read_short(void **state)
{
	struct proto_buf a;
	unsigned char	*p;
	size_t		 len, cut;
	char		 err[256];
	int		 fd[2];
	pid_t		 pid;

	(void)state;
	sample_build(PROTO_RESULT, &a);
	for (cut = 1; cut < a.len; cut++) {
		pid = pipe_writer(fd, a.data, cut, 0);
		assert_int_equal(proto_read_frame(fd[0], &p, &len, err,
				     sizeof err),
		    -1);
		assert_null(p);
		assert_non_null(strstr(err, "short"));
		close(fd[0]);
		pipe_reap(pid);
	}
	/* An oversized length is refused before reading the payload. */
	{
		unsigned char big[8] = { 0x01, 0x00, 0x00, 0x01, 0, 1, 0, 0 };

		pid = pipe_writer(fd, big, sizeof big, 0);
		assert_int_equal(proto_read_frame(fd[0], &p, &len, err,
				     sizeof err),
		    -1);
		close(fd[0]);
		pipe_reap(pid);
	}
	proto_buf_free(&a);
}

static volatile sig_atomic_t ticks;

/* Counts timer signals that interrupt blocking reads and writes. */
static void
tick_cb(int sig)
{
	(void)sig;
	ticks++;
}

/* Starts (or stops, ms = 0) a repeating SIGALRM without SA_RESTART. */
static void
ticker(int ms)
{
	struct sigaction sa;
	struct itimerval it;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tick_cb;
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof it);
	it.it_value.tv_usec = ms * 1000;
	it.it_interval.tv_usec = ms * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Reads survive byte-at-a-time delivery and interrupting signals. */
static void
test_read_slow_eintr(void **state)
{
	struct proto_buf a;
	unsigned char	*p;
	size_t		 len;
	char		 err[256];
	int		 fd[2];
	pid_t		 pid;

	(void)state;
	sample_build(PROTO_RUN, &a);
	ticks = 0;
	pid = pipe_writer(fd, a.data, a.len, 1);
	ticker(1);
	assert_int_equal(proto_read_frame(fd[0], &p, &len, err, sizeof err), 0);
	ticker(0);
	assert_int_equal(len, a.len - 4);
	assert_memory_equal(p, a.data + 4, len);
	assert_true(ticks > 0);
	free(p);
	close(fd[0]);
	pipe_reap(pid);
	proto_buf_free(&a);
}

/* A 4 MiB frame goes through a pipe in many short, interrupted writes. */
static void
test_write_large(void **state)
{
	struct proto_buf a;
	struct proto_msg m;
	unsigned char	*out, *p;
	size_t		 len, i;
	char		 err[256];
	int		 fd[2], status;
	pid_t		 pid;

	(void)state;
	out = malloc(PROTO_MAX_OUTPUT);
	for (i = 0; i < PROTO_MAX_OUTPUT; i++)
		out[i] = i * 7;
	proto_begin(&a, PROTO_RESULT);
	for (i = 0; i < N(result_fields); i++) {
		if (result_fields[i].tag == PROTO_T_OUTPUT)
			proto_add_bytes(&a, PROTO_T_OUTPUT, out,
			    PROTO_MAX_OUTPUT);
		else if (result_fields[i].s != NULL)
			proto_add_str(&a, result_fields[i].tag,
			    result_fields[i].s);
		else if (result_fields[i].kind == PROTO_KIND_I64)
			proto_add_i64(&a, result_fields[i].tag,
			    (int64_t)result_fields[i].u);
		else
			proto_add_u64(&a, result_fields[i].tag,
			    result_fields[i].u);
	}
	proto_end(&a);
	assert_int_equal(pipe(fd), 0);
	if ((pid = fork()) == 0) {
		close(fd[0]);
		ticker(1);
		_exit(proto_write_frame(fd[1], &a) == 0 ? 0 : 1);
	}
	close(fd[1]);
	usleep(20000);
	assert_int_equal(proto_read_frame(fd[0], &p, &len, err, sizeof err), 0);
	assert_int_equal(proto_decode(p, len, &m, err, sizeof err), 0);
	assert_int_equal(proto_find(&m, PROTO_T_OUTPUT)->len, PROTO_MAX_OUTPUT);
	assert_memory_equal(proto_find(&m, PROTO_T_OUTPUT)->data, out,
	    PROTO_MAX_OUTPUT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	proto_msg_clear(&m);
	free(p);
	free(out);
	close(fd[0]);
	proto_buf_free(&a);
}

/* An OUTPUT beyond PROTO_MAX_OUTPUT is refused by the decoder. */
static void
test_output_limit(void **state)
{
	struct proto_buf a;
	struct proto_msg m;
	unsigned char	*out = calloc(1, PROTO_MAX_OUTPUT + 1);
	char		 err[256];

	(void)state;
	proto_begin(&a, PROTO_ERROR);
	proto_add_bytes(&a, PROTO_T_MESSAGE, out, PROTO_MAX_OUTPUT + 1);
	proto_end(&a);
	/* MESSAGE has no limit besides the payload's, but no NUL bytes. */
	assert_int_equal(proto_decode(a.data + 4, a.len - 4, &m, err,
			     sizeof err),
	    -1);
	proto_buf_free(&a);
	proto_begin(&a, PROTO_RESULT);
	proto_add_bytes(&a, PROTO_T_OUTPUT, out, PROTO_MAX_OUTPUT + 1);
	proto_end(&a);
	assert_int_equal(proto_decode(a.data + 4, a.len - 4, &m, err,
			     sizeof err),
	    -1);
	assert_non_null(strstr(err, "OUTPUT"));
	proto_buf_free(&a);
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_truncated_and_trailing),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_field_length),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_random_bytes),
		cmocka_unit_test(test_wrong_kind),
		cmocka_unit_test(test_missing_required),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_read_frames),
		cmocka_unit_test(test_read_short),
		cmocka_unit_test(test_read_slow_eintr),
		cmocka_unit_test(test_write_large),
		cmocka_unit_test(test_output_limit),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
