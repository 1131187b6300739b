/* Helpers for the tests of the real hilab-agent binary. */
#ifndef HILAB_TESTS_AGENT_TEST_H
#define HILAB_TESTS_AGENT_TEST_H

#include <sys/types.h>

#include <stdint.h>

#include "common/proto.h"

/* The agent binary under test, and whether it is a sanitized build. */
extern const char *agent_path;
extern int	   agent_sanitized;

/* One spawned "hilab-agent serve" and the test's ends of its pipes. */
struct agent {
	pid_t pid;
	int   to;   /* its stdin */
	int   from; /* its stdout */
	char  dir[64];
};

/* A received message and the payload its fields point into. */
struct reply {
	struct proto_msg m;
	unsigned char	*payload;
};

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t now_ns(void);

/* Starts an agent serving on pipes with its spool in dir. */
void agent_spawn(struct agent *a, const char *dir);
/* Starts an agent in a new temporary directory. */
void agent_spawn_tmp(struct agent *a);
/* Sends a finished frame. */
void agent_send(struct agent *a, struct proto_buf *b);
/* Receives and decodes one message; fails the test after 30 s. */
void agent_recv(struct agent *a, struct reply *r);
/* Receives a message that must be of the given type. */
void agent_expect(struct agent *a, struct reply *r, int type);
/* Frees a reply. */
void reply_free(struct reply *r);
/* An unsigned field of a reply, which must be there. */
uint64_t reply_u64(const struct reply *r, enum proto_tag tag);
/* Waits for the agent to exit; returns its exit code, -signal if killed. */
int agent_wait(struct agent *a);

/* Removes a temporary directory tree. */
void rm_tree(const char *dir);

/* Sends HELLO with a version. */
void send_hello(struct agent *a, uint64_t version);
/* Exchanges HELLO. */
void agent_hello(struct agent *a);
/* Sends a request without fields. */
void send_empty(struct agent *a, int type);
/* Ends a session with BYE; the agent must exit 0. */
void agent_bye(struct agent *a);

/* Reads a whole small file, trailing newline cut. */
char *slurp(const char *path);

/*
 * Sets agent_path and agent_sanitized from the arguments AGENT
 * [sanitized|plain] (or $HILAB_AGENT_DIR) and ignores SIGPIPE; prints
 * prog's usage and returns -1 without them.
 */
int agent_test_args(int argc, char **argv, const char *prog);

#endif
