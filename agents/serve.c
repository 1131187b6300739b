/*
 * The request loop of "hilab-agent serve": one request at a time from
 * stdin, answers on stdout.  A request that breaks the protocol gets an
 * ERROR and ends the session (exit 2); a valid request that cannot be done
 * (a run id in use, a running run acknowledged) gets an ERROR and the loop
 * goes on.
 */
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#include "agents/agent.h"
#include "common/log.h"
#include "common/xmalloc.h"

#define SERVE_IN	     0
#define SERVE_OUT	     1
/* Sanity bound on iterations and warmups of one run. */
#define SERVE_MAX_ITERATIONS 100000000u

struct serve {
	const char *dir;
	int	    hello; /* HELLO exchanged */
	int	    done;  /* leave the loop */
	int	    exit_code;
};

/* Finishes and sends a frame; on failure the peer is gone: stop. */
static int
serve_send(struct serve *s, struct proto_buf *b)
{
	int rc;

	proto_end(b);
	rc = proto_write_frame(SERVE_OUT, b);
	proto_buf_free(b);
	if (rc == -1) {
		log_warn("serve", "stdout: %s", strerror(errno));
		s->done = 1;
		s->exit_code = AGENT_EXIT_REFUSED;
	}
	return rc;
}

/* Sends ERROR{MESSAGE}. */
static int
serve_error(struct serve *s, const char *msg)
{
	struct proto_buf b;

	proto_begin(&b, PROTO_ERROR);
	proto_add_str(&b, PROTO_T_MESSAGE, msg);
	return serve_send(s, &b);
}

/* Sends ERROR and ends the session with code. */
static int
serve_drop(struct serve *s, const char *msg, int code)
{
	log_warn("serve", "%s", msg);
	serve_error(s, msg);
	s->done = 1;
	s->exit_code = code;
	return -1;
}

/* HELLO: checks the version and answers with ours. */
static int
serve_hello(struct serve *s, const struct proto_msg *m)
{
	struct proto_buf b;
	uint64_t	 v;
	char		 msg[128];

	proto_get_u64(m, PROTO_T_VERSION, &v);
	if (v != PROTO_VERSION) {
		snprintf(msg, sizeof msg,
		    "protocol version %llu not "
		    "supported (agent speaks %d)",
		    (unsigned long long)v, PROTO_VERSION);
		return serve_drop(s, msg, AGENT_EXIT_REFUSED);
	}
	s->hello = 1;
	proto_begin(&b, PROTO_HELLO);
	proto_add_u64(&b, PROTO_T_VERSION, PROTO_VERSION);
	proto_add_str(&b, PROTO_T_AGENT_VERSION, HILAB_VERSION);
	proto_add_str(&b, PROTO_T_ARCH, AGENT_ARCH);
	return serve_send(s, &b);
}

/* FACTS_REQ: collects and sends the host's facts. */
static int
serve_facts(struct serve *s)
{
	struct proto_buf b;
	struct fact	*facts;
	size_t		 n;

	facts = facts_collect(&n);
	proto_begin(&b, PROTO_FACTS);
	facts_add(&b, facts, n);
	facts_free(facts, n);
	return serve_send(s, &b);
}

/* Sends RUN_DONE with the run's state and count as the spool says. */
static int
serve_run_done(struct serve *s, const char *run_id)
{
	struct proto_buf b;
	uint64_t	 count;
	int		 state;
	char		*why = NULL;

	spool_state(s->dir, run_id, &state, &count);
	proto_begin(&b, PROTO_RUN_DONE);
	proto_add_str(&b, PROTO_T_RUN_ID, run_id);
	proto_add_u64(&b, PROTO_T_STATE, state);
	proto_add_u64(&b, PROTO_T_COUNT, count);
	if (state == PROTO_RUN_FAILED &&
	    (why = spool_failure(s->dir, run_id)) != NULL)
		proto_add_str(&b, PROTO_T_MESSAGE, why);
	free(why);
	return serve_send(s, &b);
}

/* Collects the BYTES fields with tag, in order, NULL-terminated. */
static char **
serve_strings(const struct proto_msg *m, enum proto_tag tag)
{
	char   **v = xcalloc((size_t)m->nfields + 1, sizeof *v);
	uint16_t i;
	size_t	 n = 0;

	for (i = 0; i < m->nfields; i++) {
		if (m->fields[i].tag == tag)
			v[n++] = proto_field_str(&m->fields[i]);
	}
	return v;
}

/* Frees a NULL-terminated string vector. */
static void
serve_strings_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Decodes a RUN request; -1 with a message if it makes no sense. */
static int
serve_run_spec(const struct proto_msg *m, struct run_spec *spec, char *err,
    size_t errlen)
{
	memset(spec, 0, sizeof *spec);
	proto_get_u64(m, PROTO_T_ITERATIONS, &spec->iterations);
	proto_get_u64(m, PROTO_T_WARMUPS, &spec->warmups);
	proto_get_u64(m, PROTO_T_TIMEOUT_MS, &spec->timeout_ms);
	spec->run_id = proto_get_str(m, PROTO_T_RUN_ID);
	spec->cwd = proto_get_str(m, PROTO_T_CWD);
	spec->argv = serve_strings(m, PROTO_T_ARGV);
	spec->env = serve_strings(m, PROTO_T_ENV);
	spec->probes = serve_strings(m, PROTO_T_PROBE);
	spec->probe_method = proto_get_str(m, PROTO_T_PROBE_METHOD);
	spec->monitors = serve_strings(m, PROTO_T_MONITOR);
	if (spec->iterations > SERVE_MAX_ITERATIONS ||
	    spec->warmups > SERVE_MAX_ITERATIONS ||
	    spec->iterations + spec->warmups == 0) {
		snprintf(err, errlen, "run \"%s\": bad iteration count",
		    spec->run_id);
		return -1;
	}
	return 0;
}

/* Frees a decoded RUN request. */
static void
serve_run_spec_free(struct run_spec *spec)
{
	free(spec->run_id);
	free(spec->cwd);
	serve_strings_free(spec->argv);
	serve_strings_free(spec->env);
	serve_strings_free(spec->probes);
	free(spec->probe_method);
	serve_strings_free(spec->monitors);
}

/* Sends RUN_STARTED{RUN_ID, PID}. */
static int
serve_run_started(struct serve *s, const char *run_id, pid_t pid)
{
	struct proto_buf b;

	proto_begin(&b, PROTO_RUN_STARTED);
	proto_add_str(&b, PROTO_T_RUN_ID, run_id);
	proto_add_u64(&b, PROTO_T_PID, pid);
	return serve_send(s, &b);
}

/* Forwards the runner's RESULT frames until it closes the pipe. */
static int
serve_forward(struct serve *s, int notify)
{
	unsigned char *p;
	size_t	       len;
	char	       err[256];
	int	       rc;

	while (
	    (rc = proto_read_frame(notify, &p, &len, err, sizeof err)) == 0) {
		rc = proto_write_payload(SERVE_OUT, p, len);
		free(p);
		if (rc == -1) {
			log_warn("serve", "stdout: %s", strerror(errno));
			s->done = 1;
			s->exit_code = AGENT_EXIT_REFUSED;
			return -1;
		}
	}
	if (rc == -1)
		log_warn("serve", "runner pipe: %s", err);
	return 0;
}

/* RUN: starts the runner, streams its results, then RUN_DONE. */
static int
serve_run(struct serve *s, const struct proto_msg *m)
{
	struct run_spec spec;
	char		err[256], *cause = NULL;
	pid_t		pid;
	int		notify, rc = -1;

	if (serve_run_spec(m, &spec, err, sizeof err) == -1) {
		rc = serve_error(s, err);
		goto out;
	}
	if (runner_start(s->dir, &spec, &pid, &notify, &cause) == -1) {
		rc = serve_error(s, cause);
		goto out;
	}
	if (serve_run_started(s, spec.run_id, pid) == 0 &&
	    serve_forward(s, notify) == 0) {
		close(notify);
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		/*
		 * A runner killed between fork and exec of a benchmark leaves
		 * the lock with that child until its exec closes it.
		 */
		spool_wait(s->dir, spec.run_id);
		rc = serve_run_done(s, spec.run_id);
	} else
		close(notify);
out:
	free(cause);
	serve_run_spec_free(&spec);
	return rc;
}

/* Adds one run's (RUN_ID, STATE, COUNT) group to a STATUS. */
static void
serve_status_add(struct serve *s, struct proto_buf *b, const char *run_id)
{
	uint64_t count;
	int	 state;

	spool_state(s->dir, run_id, &state, &count);
	proto_add_str(b, PROTO_T_RUN_ID, run_id);
	proto_add_u64(b, PROTO_T_STATE, state);
	proto_add_u64(b, PROTO_T_COUNT, count);
}

/* STATUS_REQ: the named run, or every run in the spool. */
static int
serve_status(struct serve *s, const struct proto_msg *m)
{
	struct proto_buf b;
	char		*run_id = proto_get_str(m, PROTO_T_RUN_ID);
	char	       **ids = NULL;
	size_t		 n = 0, i;

	proto_begin(&b, PROTO_STATUS);
	if (run_id != NULL)
		serve_status_add(s, &b, run_id);
	else
		ids = spool_list(s->dir, &n);
	for (i = 0; i < n && i < PROTO_MAX_FIELDS / 3; i++)
		serve_status_add(s, &b, ids[i]);
	for (i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
	free(run_id);
	return serve_send(s, &b);
}

/* What FETCH replays: results from a sequence number on. */
struct serve_fetch {
	struct serve *s;
	uint64_t      from;
};

/* Sends one spooled RESULT if it is at or after the first wanted. */
static int
serve_fetch_cb(const unsigned char *p, size_t len, const struct proto_msg *m,
    void *arg)
{
	struct serve_fetch *f = arg;
	uint64_t	    seq;

	if (proto_get_u64(m, PROTO_T_SEQ, &seq) == -1 || seq < f->from)
		return 0;
	if (proto_write_payload(SERVE_OUT, p, len) == 0)
		return 0;
	log_warn("serve", "stdout: %s", strerror(errno));
	f->s->done = 1;
	f->s->exit_code = AGENT_EXIT_REFUSED;
	return -1;
}

/* FETCH: optionally waits for the run's end, replays, then RUN_DONE. */
static int
serve_fetch(struct serve *s, const struct proto_msg *m)
{
	struct serve_fetch f = { s, 0 };
	char		  *run_id = proto_get_str(m, PROTO_T_RUN_ID);
	uint64_t	   wait = 0, count;
	int		   state, rc = -1;

	proto_get_u64(m, PROTO_T_FROM_SEQ, &f.from);
	proto_get_u64(m, PROTO_T_WAIT, &wait);
	spool_state(s->dir, run_id, &state, &count);
	if (state == PROTO_RUN_RUNNING && wait)
		spool_wait(s->dir, run_id);
	if (state != PROTO_RUN_UNKNOWN &&
	    spool_results(s->dir, run_id, serve_fetch_cb, &f, &count) != 0)
		goto out;
	rc = serve_run_done(s, run_id);
out:
	free(run_id);
	return rc;
}

/* ACK: the controller stored the run; delete its spool. */
static int
serve_ack(struct serve *s, const struct proto_msg *m)
{
	struct proto_buf b;
	char		*run_id = proto_get_str(m, PROTO_T_RUN_ID);
	char		*cause = NULL;
	int		 rc;

	if (spool_remove(s->dir, run_id, &cause) == -1)
		rc = serve_error(s, cause);
	else {
		proto_begin(&b, PROTO_ACKED);
		proto_add_str(&b, PROTO_T_RUN_ID, run_id);
		rc = serve_send(s, &b);
	}
	free(cause);
	free(run_id);
	return rc;
}

/* CANCEL: stops a running run (SIGTERM to its runner), then RUN_DONE. */
static int
serve_cancel(struct serve *s, const struct proto_msg *m)
{
	char	*run_id = proto_get_str(m, PROTO_T_RUN_ID);
	uint64_t count;
	pid_t	 pid;
	int	 state, rc;

	spool_state(s->dir, run_id, &state, &count);
	if (state == PROTO_RUN_RUNNING &&
	    (pid = spool_read_pid(s->dir, run_id)) != -1 &&
	    kill(pid, SIGTERM) == 0)
		spool_wait(s->dir, run_id);
	rc = serve_run_done(s, run_id);
	free(run_id);
	return rc;
}

/* Handles one decoded request. */
static int
serve_dispatch(struct serve *s, const struct proto_msg *m)
{
	char msg[128];

	if (!s->hello && m->type != PROTO_HELLO)
		return serve_drop(s, "expected HELLO", AGENT_EXIT_PROTO);
	switch (m->type) {
	case PROTO_HELLO:
		if (!s->hello)
			return serve_hello(s, m);
		break;
	case PROTO_FACTS_REQ:
		return serve_facts(s);
	case PROTO_RUN:
		return serve_run(s, m);
	case PROTO_STATUS_REQ:
		return serve_status(s, m);
	case PROTO_FETCH:
		return serve_fetch(s, m);
	case PROTO_CANCEL:
		return serve_cancel(s, m);
	case PROTO_ACK:
		return serve_ack(s, m);
	case PROTO_BYE:
		s->done = 1;
		return 0;
	}
	snprintf(msg, sizeof msg, "unexpected %s", proto_type_name(m->type));
	return serve_drop(s, msg, AGENT_EXIT_PROTO);
}

/* Reads, decodes and handles one request. */
static void
serve_one(struct serve *s)
{
	unsigned char	*p = NULL;
	struct proto_msg m;
	char		 err[256];
	size_t		 len;
	int		 rc;

	rc = proto_read_frame(SERVE_IN, &p, &len, err, sizeof err);
	if (rc == 1)
		s->done = 1;
	else if (rc == -1)
		serve_drop(s, err, AGENT_EXIT_PROTO);
	else if (proto_decode(p, len, &m, err, sizeof err) == -1)
		serve_drop(s, err, AGENT_EXIT_PROTO);
	else {
		serve_dispatch(s, &m);
		proto_msg_clear(&m);
	}
	free(p);
}

/* Serves requests until BYE, end of input or a dropped peer. */
int
serve_main(const char *dir)
{
	struct serve s = { dir, 0, 0, AGENT_EXIT_OK };

	signal(SIGPIPE, SIG_IGN);
	while (!s.done)
		serve_one(&s);
	return s.exit_code;
}
