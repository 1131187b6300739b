/*
 * What the tests of the real hilab-agent binary share: spawning it as
 * "hilab-agent --dir TMP serve" on pipes, speaking the protocol codec to it,
 * temporary directories and the command line of the test programs.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"
#include "tests/unit/agent/agent_test.h"

const char *agent_path;
int	    agent_sanitized;

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Starts an agent serving on pipes with its spool in dir. */
void
agent_spawn(struct agent *a, const char *dir)
{
	int in[2], out[2];

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	if (dir != a->dir)
		snprintf(a->dir, sizeof a->dir, "%s", dir);
	a->pid = fork();
	assert_true(a->pid != -1);
	if (a->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(agent_path, "hilab-agent", "--dir", dir, "serve",
		    (char *)NULL);
		_exit(126);
	}
	close(in[0]);
	close(out[1]);
	a->to = in[1];
	a->from = out[0];
}

/* Starts an agent in a new temporary directory. */
void
agent_spawn_tmp(struct agent *a)
{
	char dir[] = "/tmp/hilab-agent-test.XXXXXX";

	assert_non_null(mkdtemp(dir));
	agent_spawn(a, dir);
}

/* Sends a finished frame. */
void
agent_send(struct agent *a, struct proto_buf *b)
{
	proto_end(b);
	assert_int_equal(proto_write_frame(a->to, b), 0);
	proto_buf_free(b);
}

/* Receives and decodes one message; fails the test after 30 s. */
void
agent_recv(struct agent *a, struct reply *r)
{
	struct pollfd pfd = { a->from, POLLIN, 0 };
	char	      err[256];
	size_t	      len;

	assert_int_equal(poll(&pfd, 1, 30000), 1);
	if (proto_read_frame(a->from, &r->payload, &len, err, sizeof err) != 0)
		fail_msg("no frame from the agent: %s", err);
	if (proto_decode(r->payload, len, &r->m, err, sizeof err) == -1)
		fail_msg("bad frame from the agent: %s", err);
}

/* Receives a message that must be of the given type. */
void
agent_expect(struct agent *a, struct reply *r, int type)
{
	char *msg;

	agent_recv(a, r);
	if (r->m.type != type) {
		msg = proto_get_str(&r->m, PROTO_T_MESSAGE);
		fail_msg("expected %s, got %s (%s)", proto_type_name(type),
		    proto_type_name(r->m.type), msg ? msg : "");
	}
}

/* Frees a reply. */
void
reply_free(struct reply *r)
{
	proto_msg_clear(&r->m);
	free(r->payload);
	r->payload = NULL;
}

/* An unsigned field of a reply, which must be there. */
uint64_t
reply_u64(const struct reply *r, enum proto_tag tag)
{
	uint64_t v = 0;

	assert_int_equal(proto_get_u64(&r->m, tag, &v), 0);
	return v;
}

/* Waits for the agent to exit; returns its exit code, -signal if killed. */
int
agent_wait(struct agent *a)
{
	int status;

	close(a->to);
	close(a->from);
	assert_int_equal(waitpid(a->pid, &status, 0), a->pid);
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Removes one file or directory of a tree. */
static int
rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Removes a temporary directory tree. */
void
rm_tree(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Sends HELLO with a version. */
void
send_hello(struct agent *a, uint64_t version)
{
	struct proto_buf b;

	proto_begin(&b, PROTO_HELLO);
	proto_add_u64(&b, PROTO_T_VERSION, version);
	agent_send(a, &b);
}

/* Exchanges HELLO. */
void
agent_hello(struct agent *a)
{
	struct reply r;

	send_hello(a, PROTO_VERSION);
	agent_expect(a, &r, PROTO_HELLO);
	assert_int_equal(reply_u64(&r, PROTO_T_VERSION), PROTO_VERSION);
	reply_free(&r);
}

/* Sends a request without fields. */
void
send_empty(struct agent *a, int type)
{
	struct proto_buf b;

	proto_begin(&b, type);
	agent_send(a, &b);
}

/* Ends a session with BYE; the agent must exit 0. */
void
agent_bye(struct agent *a)
{
	send_empty(a, PROTO_BYE);
	assert_int_equal(agent_wait(a), 0);
}

/* Reads a whole small file, trailing newline cut. */
char *
slurp(const char *path)
{
	char   buf[4096];
	FILE  *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return strdup(buf);
}

/* Reads AGENT [sanitized|plain]; the agent may come from $HILAB_AGENT_DIR. */
int
agent_test_args(int argc, char **argv, const char *prog)
{
	static char path[4096];
	const char *dir;

	if (argc > 1)
		agent_path = argv[1];
	else if ((dir = getenv("HILAB_AGENT_DIR")) != NULL) {
		snprintf(path, sizeof path, "%s/hilab-agent", dir);
		agent_path = path;
	} else {
		fprintf(stderr, "usage: %s AGENT [sanitized|plain]\n", prog);
		return -1;
	}
	agent_sanitized = argc > 2 && strcmp(argv[2], "sanitized") == 0;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}
