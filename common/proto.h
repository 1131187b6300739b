/*
 * The controller <-> agent protocol, versioned, shared by hilabd and
 * hilab-agent.  Also the record format of the agent's spool file.
 *
 * A frame is a 4-byte big-endian payload length followed by the payload:
 *
 *	u16 type | u16 nfields | field * nfields
 *	field:	u16 tag | u8 kind | u32 len | data[len]
 *
 * All integers are big-endian.  U64 and I64 fields have len 8, ABSENT
 * fields len 0, BYTES fields any length (strings carry no NUL).  A payload
 * is at most PROTO_MAX_PAYLOAD bytes.  The decoder checks every length,
 * consumes the payload exactly, rejects unknown types and tags, fields of
 * the wrong kind, tags not allowed in the type, repeats of non-repeatable
 * tags and missing required tags.  A peer that sends anything it rejects
 * is dropped.
 */
#ifndef HILAB_PROTO_H
#define HILAB_PROTO_H

#include <stddef.h>
#include <stdint.h>

/* 2: probes, monitors and their samples; 3: RUN_DONE may say why it failed */
#define PROTO_VERSION	  3
#define PROTO_HDR_LEN	  4
#define PROTO_MAX_PAYLOAD (16u * 1024 * 1024)
#define PROTO_MAX_FIELDS  65535
/* Raw output kept per iteration; the rest is cut and RESULT says so. */
#define PROTO_MAX_OUTPUT  (4u * 1024 * 1024)

enum proto_type {
	PROTO_HELLO = 1,   /* both ways: VERSION, opt AGENT_VERSION, ARCH */
	PROTO_ERROR,	   /* agent -> controller: MESSAGE */
	PROTO_FACTS_REQ,   /* controller -> agent: nothing */
	PROTO_FACTS,	   /* agent: (KEY, VALUE | ABSENT) repeated */
	PROTO_RUN,	   /* RUN_ID, ARGV+, ITERATIONS, WARMUPS, opt
			      TIMEOUT_MS, opt CWD, opt ENV* ("K=V"), opt
			      PROBE*, opt PROBE_METHOD, opt MONITOR* */
	PROTO_RUN_STARTED, /* agent: RUN_ID, PID */
	PROTO_RESULT,	   /* agent: one iteration, see tags below */
	PROTO_RUN_DONE,	   /* agent: RUN_ID, STATE, COUNT, opt MESSAGE */
	PROTO_STATUS_REQ,  /* controller: opt RUN_ID */
	PROTO_STATUS,	   /* agent: (RUN_ID, STATE, COUNT) repeated */
	PROTO_FETCH,	   /* controller: RUN_ID, FROM_SEQ, opt WAIT */
	PROTO_ACK,	   /* controller: RUN_ID (stored; agent may delete) */
	PROTO_ACKED,	   /* agent: RUN_ID */
	PROTO_BYE,	   /* controller: end of session, nothing */
	PROTO_CANCEL,	   /* controller: RUN_ID; the agent stops the run
			      and answers RUN_DONE */
	PROTO_TYPE_MAX
};

enum proto_kind {
	PROTO_KIND_U64 = 1,
	PROTO_KIND_I64,
	PROTO_KIND_BYTES,
	PROTO_KIND_ABSENT,
};

enum proto_tag {
	PROTO_T_VERSION = 1,   /* U64 protocol version */
	PROTO_T_AGENT_VERSION, /* BYTES */
	PROTO_T_ARCH,	       /* BYTES, uname -m of the agent's build */
	PROTO_T_MESSAGE,       /* BYTES */
	PROTO_T_KEY,	       /* BYTES fact name */
	PROTO_T_VALUE,	       /* BYTES fact value */
	PROTO_T_ABSENT,	       /* ABSENT: the host lacks the fact */
	PROTO_T_RUN_ID,	       /* BYTES, [A-Za-z0-9._-]{1,64} */
	PROTO_T_ARGV,	       /* BYTES, repeated, in order */
	PROTO_T_ITERATIONS,    /* U64 measured iterations */
	PROTO_T_WARMUPS,       /* U64 warmup iterations before them */
	PROTO_T_TIMEOUT_MS,    /* U64 per iteration, 0 = none */
	PROTO_T_CWD,	       /* BYTES */
	PROTO_T_ENV,	       /* BYTES "NAME=value", repeated */
	PROTO_T_PID,	       /* U64 */
	PROTO_T_SEQ,	       /* U64 0-based over warmups then iterations */
	PROTO_T_WARMUP,	       /* U64 1 for a warmup iteration, else 0 */
	PROTO_T_EXIT_STATUS,   /* I64 exit code, or -signal if killed */
	PROTO_T_TIMED_OUT,     /* U64 1 if killed at TIMEOUT_MS */
	PROTO_T_WALL_NS,       /* U64 wall time of the iteration */
	PROTO_T_UTIME_US,      /* U64 rusage user time of the child */
	PROTO_T_STIME_US,      /* U64 rusage system time */
	PROTO_T_MAXRSS_KB,     /* U64 rusage max RSS */
	PROTO_T_OUTPUT,	       /* BYTES stdout+stderr, up to PROTO_MAX_OUTPUT */
	PROTO_T_TRUNCATED,     /* U64 1 if OUTPUT was cut */
	PROTO_T_STATE,	       /* U64 enum proto_run_state */
	PROTO_T_COUNT,	       /* U64 results spooled so far */
	PROTO_T_FROM_SEQ,      /* U64 first SEQ wanted */
	PROTO_T_WAIT,	       /* U64 1: block until the run ends */
	PROTO_T_PROBE,	       /* BYTES kernel function timed, repeated */
	PROTO_T_PROBE_METHOD,  /* BYTES proto_probe_methods, or absent: the
				  agent picks what the kernel offers */
	PROTO_T_MONITOR,       /* BYTES monitor name, repeated */
	PROTO_T_SAMPLE,	       /* BYTES "metric=value" of the iteration's
				  probes and monitors, repeated */
	PROTO_TAG_MAX
};

enum proto_run_state {
	PROTO_RUN_RUNNING = 1,
	PROTO_RUN_DONE_OK,   /* every iteration ran (exit codes vary) */
	PROTO_RUN_FAILED,    /* could not start, or the runner died */
	PROTO_RUN_UNKNOWN,   /* no such run on this host */
	PROTO_RUN_CANCELLED, /* stopped by CANCEL */
};

/*
 * The monitors a MONITOR field may name, NULL-terminated: schedstat,
 * vmstat, interrupts, softirqs, cpufreq, perf-stat.
 */
extern const char *const proto_monitors[];
/* Whether name is one of proto_monitors. */
int proto_monitor_known(const char *name);
/* How a PROBE may be timed, NULL-terminated: function_graph, kprobe. */
extern const char *const proto_probe_methods[];
int			 proto_probe_method_known(const char *name);

struct proto_field {
	uint16_t	     tag;
	uint8_t		     kind;
	uint32_t	     len;
	const unsigned char *data; /* BYTES: points into the payload */
	uint64_t	     u;	   /* U64/I64 value (I64 as two's complement) */
};

struct proto_msg {
	uint16_t	    type;
	uint16_t	    nfields;
	struct proto_field *fields; /* owned by the msg */
};

/* A frame being built; data/len is the whole frame after proto_end. */
struct proto_buf {
	unsigned char *data;
	size_t	       len;
	size_t	       cap;
	uint16_t       nfields;
};

/* Starts a frame in a zeroed or freed buffer; proto_buf_free after use. */
void proto_begin(struct proto_buf *, enum proto_type);
void proto_add_u64(struct proto_buf *, enum proto_tag, uint64_t);
void proto_add_i64(struct proto_buf *, enum proto_tag, int64_t);
void proto_add_bytes(struct proto_buf *, enum proto_tag, const void *, size_t);
void proto_add_str(struct proto_buf *, enum proto_tag, const char *);
void proto_add_absent(struct proto_buf *, enum proto_tag);
/* Finishes the frame: fills in the length prefix and the field count. */
void proto_end(struct proto_buf *);
void proto_buf_free(struct proto_buf *);

/*
 * Decodes and validates one payload (without the 4-byte prefix).  Returns 0,
 * or -1 with a reason in err.  Fields point into payload: keep it alive.
 */
int proto_decode(const void *payload, size_t len, struct proto_msg *, char *err,
    size_t errlen);
void proto_msg_clear(struct proto_msg *);
/* Payload length from a frame header; 0 if it exceeds PROTO_MAX_PAYLOAD. */
uint32_t proto_frame_len(const unsigned char hdr[PROTO_HDR_LEN]);

const struct proto_field *proto_find(const struct proto_msg *, enum proto_tag);
int proto_get_u64(const struct proto_msg *, enum proto_tag, uint64_t *);
int proto_get_i64(const struct proto_msg *, enum proto_tag, int64_t *);
/* Returns a NUL-terminated copy of a BYTES field, or NULL; caller frees. */
char	   *proto_get_str(const struct proto_msg *, enum proto_tag);
char	   *proto_field_str(const struct proto_field *);
const char *proto_type_name(int type);

/* Blocking fd I/O (the agent's stdin/stdout, the spool file). */
int proto_write_frame(int fd, const struct proto_buf *);
/* Writes a payload (as read by proto_read_frame) as one frame. */
int proto_write_payload(int fd, const void *payload, size_t len);
/*
 * Reads one frame's payload into *payload (caller frees).  Returns 0, 1 at
 * a clean end of file before a frame, -1 with err on a short or oversized
 * frame or a read error.
 */
int proto_read_frame(int fd, unsigned char **payload, size_t *len, char *err,
    size_t errlen);

#endif
