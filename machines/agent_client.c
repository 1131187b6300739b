/*
 * The controller's side of hilab-agent: reach the host over ssh, install
 * the agent build for its arch by content hash, start "hilab-agent serve"
 * on an exec channel and speak the framed protocol of common/proto.h.
 * Anything the agent sends that does not decode, or does not fit the
 * exchange, drops the connection.
 */
#include <sys/stat.h>
#include <sys/utsname.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cause.h"
#include "config.h"

#include "common/clock.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "machines/agent_client.h"
#include "machines/agent_trust.h"
#include "machines/ssh.h"

#define AGENT_REMOTE_DIR "/var/tmp/hilab"
#define AGENT_HASH_HEX	 16 /* hex digits of sha256 in the name */
#define AGENT_RUN_ID_MAX 64

struct agent_conn {
	struct ssh_host	     *h;
	struct ssh_host_chan *ch;
	char		     *name;
	char		     *arch; /* the host's uname -m */
	char		     *path; /* the agent's binary on the host */
	char		     *agent_version;
	bool		      uploaded;
	bool		      broken;	  /* out of step: no requests */
	char		     *failure;	  /* why the last run failed there */
	int		      timeout_ms; /* command timeout */
};

/* Marks the connection unusable and reports why. */
static void __attribute__((format(printf, 3, 4)))
agent_drop(struct agent_conn *c, char **cause, const char *fmt, ...)
{
	va_list ap;
	char   *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	causef(cause, "host \"%s\": agent: %s; connection dropped", c->name,
	    msg);
	free(msg);
	c->broken = true;
}

/* Whether id is a valid run id: [A-Za-z0-9._-]{1,64}. */
static bool
agent_run_id_ok(const char *id)
{
	size_t len;

	if (id == NULL)
		return false;
	len = strlen(id);
	return len >= 1 && len <= AGENT_RUN_ID_MAX &&
	    strspn(id,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789._-") == len;
}

char *
agent_build(const char *dir, const char *arch)
{
	struct utsname u;
	struct stat    st;
	char	      *path = xasprintf("%s/hilab-agent.%s", dir, arch);

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return path;
	free(path);
	if (uname(&u) == 0 && strcmp(u.machine, arch) == 0) {
		path = xasprintf("%s/hilab-agent", dir);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return path;
		free(path);
	}
	return NULL;
}

/* The agent build for the host's arch from dir. */
static char *
agent_pick_build(const struct agent_conn *c, const char *dir, char **cause)
{
	char *path = agent_build(dir, c->arch);

	if (path == NULL)
		causef(cause,
		    "host \"%s\": agent: no agent build for arch \"%s\" in "
		    "\"%s\"",
		    c->name, c->arch, dir);
	return path;
}

char *
agent_install_path(const struct machine *m, const char *hex)
{
	return xasprintf("%s/hilab-agent-%.*s",
	    m->ssh.agent_dir ? m->ssh.agent_dir : AGENT_REMOTE_DIR,
	    AGENT_HASH_HEX, hex);
}

/* Runs cmd on the host; 0 with its stdout (trimmed) in *out if wanted. */
static int
agent_exec(struct agent_conn *c, const char *cmd, int *status, char **out,
    char **cause)
{
	struct ssh_host_result res;

	if (ssh_host_exec(c->h, cmd, &res, cause) != 0)
		return -1;
	*status = res.status;
	if (out != NULL)
		*out = ssh_host_result_out(&res);
	ssh_host_result_clear(&res);
	return 0;
}

/* Learns the host's arch from uname -m. */
static int
agent_host_arch(struct agent_conn *c, char **cause)
{
	char *arch = NULL;
	int   status;

	if (agent_exec(c, "uname -m", &status, &arch, cause) != 0)
		return -1;
	if (status != 0 || *arch == '\0' ||
	    strspn(arch, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
		strlen(arch)) {
		causef(cause,
		    "host \"%s\": agent: uname -m: unexpected answer \"%s\" "
		    "(exit %d)",
		    c->name, arch, status);
		free(arch);
		return -1;
	}
	c->arch = arch;
	return 0;
}

/*
 * Puts the local build (sha256 hex) at remote in dir unless the file there
 * is that build, checked on the host; refuses a directory others control.
 */
static int
agent_install(struct agent_conn *c, const char *local, const char *dir,
    const char *remote, const char *hex, char **cause)
{
	bool good;

	if (agent_trust_check(c->h, c->name, dir, remote, hex, &good, cause) !=
	    0)
		return -1;
	if (good)
		return 0;
	if (ssh_host_upload(c->h, local, remote, 0755, cause) != 0)
		return -1;
	c->uploaded = true;
	log_info("agent", "host \"%s\": uploaded %s to %s", c->name, local,
	    remote);
	return 0;
}

/* Finishes b and writes it to the agent. */
static int
agent_send(struct agent_conn *c, struct proto_buf *b, char **cause)
{
	char *why = NULL;
	int   rc;

	proto_end(b);
	rc = ssh_host_chan_write(c->ch, b->data, b->len, c->timeout_ms, &why);
	proto_buf_free(b);
	if (rc != 0) {
		c->broken = true;
		*cause = why;
	}
	return rc;
}

/*
 * Reads and decodes one frame within timeout_ms (< 0: until data or a
 * drop).  The payload is kept in *payload for the fields of m.
 */
static int
agent_recv(struct agent_conn *c, int timeout_ms, unsigned char **payload,
    struct proto_msg *m, char **cause)
{
	unsigned char hdr[PROTO_HDR_LEN];
	uint32_t      len;
	char	      err[256];

	*payload = NULL;
	if (ssh_host_chan_read(c->ch, hdr, sizeof hdr, timeout_ms, cause) !=
	    0) {
		c->broken = true;
		return -1;
	}
	if ((len = proto_frame_len(hdr)) == 0) {
		agent_drop(c, cause, "frame of %u bytes is not valid",
		    (unsigned)((uint32_t)hdr[0] << 24 | hdr[1] << 16 |
			hdr[2] << 8 | hdr[3]));
		return -1;
	}
	*payload = xmalloc(len);
	if (ssh_host_chan_read(c->ch, *payload, len, timeout_ms, cause) != 0) {
		c->broken = true;
		goto fail;
	}
	if (proto_decode(*payload, len, m, err, sizeof err) != 0) {
		agent_drop(c, cause, "bad frame: %s", err);
		goto fail;
	}
	return 0;
fail:
	free(*payload);
	*payload = NULL;
	return -1;
}

/* Reports an ERROR from the agent, or an unexpected type, as cause. */
static void
agent_unexpected(struct agent_conn *c, const struct proto_msg *m, int want,
    char **cause)
{
	char *msg;

	if (m->type == PROTO_ERROR) {
		msg = proto_get_str(m, PROTO_T_MESSAGE);
		causef(cause, "host \"%s\": agent: %s", c->name,
		    msg != NULL ? msg : "error");
		free(msg);
		return;
	}
	agent_drop(c, cause, "expected %s, got %s", proto_type_name(want),
	    proto_type_name(m->type));
}

/* Receives one message and checks that it is of type want. */
static int
agent_expect(struct agent_conn *c, int want, int timeout_ms,
    unsigned char **payload, struct proto_msg *m, char **cause)
{
	if (agent_recv(c, timeout_ms, payload, m, cause) != 0)
		return -1;
	if (m->type == want)
		return 0;
	agent_unexpected(c, m, want, cause);
	proto_msg_clear(m);
	free(*payload);
	*payload = NULL;
	return -1;
}

/* Checks that the string field tag of m equals want. */
static int
agent_check_str(struct agent_conn *c, const struct proto_msg *m,
    enum proto_tag tag, const char *want, char **cause)
{
	char *got = proto_get_str(m, tag);
	int   rc = 0;

	if (got == NULL || strcmp(got, want) != 0) {
		agent_drop(c, cause, "%s for \"%s\" names \"%s\"",
		    proto_type_name(m->type), want, got ? got : "");
		rc = -1;
	}
	free(got);
	return rc;
}

/* Checks the agent's HELLO: our protocol version, the host's arch. */
static int
agent_hello_check(struct agent_conn *c, const struct proto_msg *m, char **cause)
{
	uint64_t v = 0;
	char	*arch = proto_get_str(m, PROTO_T_ARCH);
	int	 rc = -1;

	proto_get_u64(m, PROTO_T_VERSION, &v);
	if (v != PROTO_VERSION)
		agent_drop(c, cause, "protocol version %llu, expected %d",
		    (unsigned long long)v, PROTO_VERSION);
	else if (arch != NULL && strcmp(arch, c->arch) != 0)
		agent_drop(c, cause,
		    "agent built for \"%s\" on a \"%s\" "
		    "host",
		    arch, c->arch);
	else {
		c->agent_version = proto_get_str(m, PROTO_T_AGENT_VERSION);
		rc = 0;
	}
	free(arch);
	return rc;
}

/* Exchanges HELLO: our version out, the agent's checked. */
static int
agent_hello(struct agent_conn *c, char **cause)
{
	struct proto_buf b = { 0 };
	struct proto_msg m;
	unsigned char	*p;
	int		 rc;

	proto_begin(&b, PROTO_HELLO);
	proto_add_u64(&b, PROTO_T_VERSION, PROTO_VERSION);
	proto_add_str(&b, PROTO_T_AGENT_VERSION, HILAB_VERSION);
	proto_add_str(&b, PROTO_T_ARCH, c->arch);
	if (agent_send(c, &b, cause) != 0 ||
	    agent_expect(c, PROTO_HELLO, c->timeout_ms, &p, &m, cause) != 0)
		return -1;
	rc = agent_hello_check(c, &m, cause);
	proto_msg_clear(&m);
	free(p);
	return rc;
}

/* Installs and starts the agent on a connected host. */
static int
agent_start(struct agent_conn *c, const struct machine *m,
    const char *agent_dir, char **cause)
{
	const char *dir =
	    m->ssh.agent_dir ? m->ssh.agent_dir : AGENT_REMOTE_DIR;
	char  hex[SHA256_HEX_LEN + 1], *local = NULL, *remote = NULL;
	char *qr = NULL, *qd = NULL, *cmd = NULL, *why = NULL;
	int   rc = -1;

	if (agent_host_arch(c, cause) != 0 ||
	    (local = agent_pick_build(c, agent_dir, cause)) == NULL)
		goto out;
	if (sha256_file(local, hex, &why) != 0) {
		causef(cause, "host \"%s\": agent: %s", c->name, why);
		goto out;
	}
	remote = agent_install_path(m, hex);
	if (agent_install(c, local, dir, remote, hex, cause) != 0)
		goto out;
	c->path = xstrdup(remote);
	qr = ssh_host_quote(remote);
	qd = ssh_host_quote(dir);
	cmd = xasprintf("exec %s --dir %s serve", qr, qd);
	if ((c->ch = ssh_host_chan_open(c->h, cmd, cause)) == NULL)
		goto out;
	rc = agent_hello(c, cause);
out:
	free(why);
	free(cmd);
	free(qd);
	free(qr);
	free(remote);
	free(local);
	return rc;
}

struct agent_conn *
agent_connect(const struct machine *m, const char *agent_dir, char **cause)
{
	struct agent_conn *c = xcalloc(1, sizeof *c);

	c->name = xstrdup(m->name != NULL ? m->name : "?");
	if (agent_dir == NULL) {
		causef(cause,
		    "host \"%s\": agent: no local directory of agent builds",
		    c->name);
		goto fail;
	}
	if ((c->h = ssh_host_connect(m, 0, cause)) == NULL)
		goto fail;
	c->timeout_ms = ssh_host_command_timeout(c->h);
	if (agent_start(c, m, agent_dir, cause) != 0)
		goto fail;
	return c;
fail:
	agent_close(c);
	return NULL;
}

const char *
agent_run_failure(const struct agent_conn *c)
{
	return c->failure;
}

void
agent_close(struct agent_conn *c)
{
	struct proto_buf b = { 0 };
	char		*cause = NULL;

	if (c == NULL)
		return;
	if (c->ch != NULL && !c->broken) {
		proto_begin(&b, PROTO_BYE);
		if (agent_send(c, &b, &cause) != 0)
			free(cause);
	}
	ssh_host_chan_close(c->ch);
	ssh_host_close(c->h);
	free(c->agent_version);
	free(c->failure);
	free(c->arch);
	free(c->path);
	free(c->name);
	free(c);
}

bool
agent_uploaded(const struct agent_conn *c)
{
	return c->uploaded;
}

const char *
agent_arch(const struct agent_conn *c)
{
	return c->arch;
}

const char *
agent_remote_path(const struct agent_conn *c)
{
	return c->path;
}

/* Refuses a request on a connection that is out of step. */
static int
agent_usable(struct agent_conn *c, char **cause)
{
	if (!c->broken)
		return 0;
	causef(cause, "host \"%s\": agent: connection was dropped", c->name);
	return -1;
}

void
agent_facts_add(struct agent_facts *f, const char *key, const char *value)
{
	f->v = xreallocarray(f->v, f->n + 1, sizeof *f->v);
	f->v[f->n].key = xstrdup(key);
	f->v[f->n].value = value != NULL ? xstrdup(value) : NULL;
	f->n++;
}

/* Turns the (KEY, VALUE | ABSENT) pairs of FACTS into f. */
static int
agent_facts_parse(struct agent_conn *c, const struct proto_msg *m,
    struct agent_facts *f, char **cause)
{
	const struct proto_field *fl;
	char			 *key;
	bool			  open = false;
	uint16_t		  i;

	for (i = 0; i < m->nfields; i++) {
		fl = &m->fields[i];
		if (fl->tag == PROTO_T_KEY) {
			key = proto_field_str(fl);
			agent_facts_add(f, key, NULL);
			free(key);
			open = true;
			continue;
		}
		if (!open) {
			agent_drop(c, cause, "FACTS: value without a key");
			return -1;
		}
		if (fl->tag == PROTO_T_VALUE)
			f->v[f->n - 1].value = proto_field_str(fl);
		open = false;
	}
	return 0;
}

int
agent_facts(struct agent_conn *c, struct agent_facts *f, char **cause)
{
	struct proto_buf b = { 0 };
	struct proto_msg m;
	unsigned char	*p;
	int		 rc;

	memset(f, 0, sizeof *f);
	if (agent_usable(c, cause) != 0)
		return -1;
	proto_begin(&b, PROTO_FACTS_REQ);
	if (agent_send(c, &b, cause) != 0 ||
	    agent_expect(c, PROTO_FACTS, c->timeout_ms, &p, &m, cause) != 0)
		return -1;
	rc = agent_facts_parse(c, &m, f, cause);
	proto_msg_clear(&m);
	free(p);
	if (rc != 0)
		agent_facts_clear(f);
	return rc;
}

const char *
agent_facts_get(const struct agent_facts *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (strcmp(f->v[i].key, key) == 0)
			return f->v[i].value;
	}
	return NULL;
}

void
agent_facts_clear(struct agent_facts *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].key);
		free(f->v[i].value);
	}
	free(f->v);
	memset(f, 0, sizeof *f);
}

/* Copies the SAMPLE fields of a RESULT into r. */
static void
agent_result_samples(const struct proto_msg *m, struct agent_result *r)
{
	uint16_t i;

	for (i = 0; i < m->nfields; i++) {
		if (m->fields[i].tag != PROTO_T_SAMPLE)
			continue;
		r->samples = xreallocarray(r->samples, r->nsamples + 1,
		    sizeof *r->samples);
		r->samples[r->nsamples++] = proto_field_str(&m->fields[i]);
	}
}

/* Fills r from a RESULT; the output is copied NUL-terminated. */
static void
agent_result_decode(const struct proto_msg *m, struct agent_result *r)
{
	const struct proto_field *out = proto_find(m, PROTO_T_OUTPUT);
	uint64_t		  u = 0;
	int64_t			  i = 0;
	char			 *s;

	memset(r, 0, sizeof *r);
	proto_get_u64(m, PROTO_T_SEQ, &r->seq);
	proto_get_u64(m, PROTO_T_WARMUP, &u);
	r->warmup = u != 0;
	proto_get_i64(m, PROTO_T_EXIT_STATUS, &i);
	r->exit_status = i;
	u = 0;
	proto_get_u64(m, PROTO_T_TIMED_OUT, &u);
	r->timed_out = u != 0;
	proto_get_u64(m, PROTO_T_WALL_NS, &r->wall_ns);
	proto_get_u64(m, PROTO_T_UTIME_US, &r->utime_us);
	proto_get_u64(m, PROTO_T_STIME_US, &r->stime_us);
	proto_get_u64(m, PROTO_T_MAXRSS_KB, &r->maxrss_kb);
	u = 0;
	proto_get_u64(m, PROTO_T_TRUNCATED, &u);
	r->truncated = u != 0;
	s = xmalloc(out != NULL ? (size_t)out->len + 1 : 1);
	if (out != NULL && out->len > 0)
		memcpy(s, out->data, out->len);
	r->output_len = out != NULL ? out->len : 0;
	s[r->output_len] = '\0';
	r->output = s;
	agent_result_samples(m, r);
}

/* What a stream of RESULTs should look like, and where they go. */
struct agent_stream {
	const char     *run_id;
	uint64_t	next; /* expected SEQ */
	agent_result_cb cb;
	void	       *arg;
};

/* Checks one RESULT against the stream and hands it to the callback. */
static int
agent_result_handle(struct agent_conn *c, const struct proto_msg *m,
    struct agent_stream *st, char **cause)
{
	struct agent_result r;
	int		    rc = -1;

	if (agent_check_str(c, m, PROTO_T_RUN_ID, st->run_id, cause) != 0)
		return -1;
	agent_result_decode(m, &r);
	r.run_id = st->run_id;
	if (r.seq != st->next)
		agent_drop(c, cause,
		    "run \"%s\": result %llu where %llu was "
		    "due",
		    st->run_id, (unsigned long long)r.seq,
		    (unsigned long long)st->next);
	else if (st->cb != NULL && st->cb(&r, st->arg) != 0)
		agent_drop(c, cause, "run \"%s\": result %llu refused",
		    st->run_id, (unsigned long long)r.seq);
	else {
		st->next++;
		rc = 0;
	}
	free((char *)r.output);
	while (r.nsamples > 0)
		free(r.samples[--r.nsamples]);
	free(r.samples);
	return rc;
}

/* Checks RUN_DONE against the results received and returns its state. */
static int
agent_done_handle(struct agent_conn *c, const struct proto_msg *m,
    struct agent_stream *st, int *state, char **cause)
{
	uint64_t s = 0, count = 0;

	if (agent_check_str(c, m, PROTO_T_RUN_ID, st->run_id, cause) != 0)
		return -1;
	proto_get_u64(m, PROTO_T_STATE, &s);
	proto_get_u64(m, PROTO_T_COUNT, &count);
	free(c->failure);
	c->failure = proto_get_str(m, PROTO_T_MESSAGE);
	if (s < PROTO_RUN_RUNNING || s > PROTO_RUN_CANCELLED) {
		agent_drop(c, cause, "run \"%s\": unknown state %llu",
		    st->run_id, (unsigned long long)s);
		return -1;
	}
	if ((s == PROTO_RUN_DONE_OK || s == PROTO_RUN_FAILED) &&
	    count != st->next) {
		agent_drop(c, cause,
		    "run \"%s\": ended with %llu results, "
		    "%llu received",
		    st->run_id, (unsigned long long)count,
		    (unsigned long long)st->next);
		return -1;
	}
	if (state != NULL)
		*state = (int)s;
	return 0;
}

/*
 * Waits for the next frame up to timeout_ms (< 0: no end), handing the
 * callback a tick (no result) each AGENT_TICK_MS of silence so that a
 * cancel or a stop is seen while an iteration runs: 0 when a frame comes,
 * -1 with *cause (the connection is then out of step).
 */
static int
agent_stream_wait(struct agent_conn *c, struct agent_stream *st, int timeout_ms,
    char **cause)
{
	int64_t end = timeout_ms < 0 ? -1 : clock_now_ms() + timeout_ms;
	int64_t slice;
	char	after[UNITS_STR_MAX];
	int	rc;

	for (;;) {
		slice = end < 0 ? AGENT_TICK_MS : end - clock_now_ms();
		if (slice > AGENT_TICK_MS)
			slice = AGENT_TICK_MS;
		if ((rc = ssh_host_chan_poll(c->ch, slice < 0 ? 0 : (int)slice,
			 cause)) == 1)
			return 0;
		if (rc == -1)
			break;
		if (end >= 0 && clock_now_ms() >= end) {
			causef(cause,
			    "host \"%s\": agent: run \"%s\": nothing "
			    "received for %s",
			    c->name, st->run_id,
			    units_format_duration(timeout_ms, after,
				sizeof after));
			break;
		}
		if (st->cb != NULL && st->cb(NULL, st->arg) != 0) {
			causef(cause,
			    "host \"%s\": agent: run \"%s\": left by the "
			    "controller",
			    c->name, st->run_id);
			break;
		}
	}
	c->broken = true;
	return -1;
}

/* Receives RESULTs until RUN_DONE; timeout_ms < 0 waits without end. */
static int
agent_stream(struct agent_conn *c, struct agent_stream *st, int timeout_ms,
    int *state, char **cause)
{
	struct proto_msg m;
	unsigned char	*p;
	int		 rc = 1;

	while (rc == 1) {
		if (agent_stream_wait(c, st, timeout_ms, cause) != 0 ||
		    agent_recv(c, timeout_ms, &p, &m, cause) != 0)
			return -1;
		if (m.type == PROTO_RESULT)
			rc = agent_result_handle(c, &m, st, cause) ? -1 : 1;
		else if (m.type == PROTO_RUN_DONE)
			rc = agent_done_handle(c, &m, st, state, cause);
		else {
			agent_unexpected(c, &m, PROTO_RESULT, cause);
			rc = -1;
		}
		proto_msg_clear(&m);
		free(p);
	}
	return rc;
}

/* Adds each string of a NULL-terminated vector as a tag field. */
static void
agent_add_strings(struct proto_buf *b, enum proto_tag tag, char *const *v)
{
	for (; v != NULL && *v != NULL; v++)
		proto_add_str(b, tag, *v);
}

/* Builds and sends a RUN request. */
static int
agent_send_run(struct agent_conn *c, const struct agent_run_spec *spec,
    char **cause)
{
	struct proto_buf b = { 0 };

	proto_begin(&b, PROTO_RUN);
	proto_add_str(&b, PROTO_T_RUN_ID, spec->run_id);
	agent_add_strings(&b, PROTO_T_ARGV, spec->argv);
	proto_add_u64(&b, PROTO_T_ITERATIONS, spec->iterations);
	proto_add_u64(&b, PROTO_T_WARMUPS, spec->warmups);
	proto_add_u64(&b, PROTO_T_TIMEOUT_MS, spec->timeout_ms);
	if (spec->cwd != NULL)
		proto_add_str(&b, PROTO_T_CWD, spec->cwd);
	agent_add_strings(&b, PROTO_T_ENV, spec->env);
	agent_add_strings(&b, PROTO_T_PROBE, spec->probes);
	if (spec->probe_method != NULL)
		proto_add_str(&b, PROTO_T_PROBE_METHOD, spec->probe_method);
	agent_add_strings(&b, PROTO_T_MONITOR, spec->monitors);
	return agent_send(c, &b, cause);
}

/*
 * How long a run may send nothing: an iteration's timeout and the grace
 * for the probe's and monitors' set-up, so a host that hangs (no reset,
 * no byte) is noticed; without a timeout, no end.
 */
static int
agent_silence_ms(const struct agent_run_spec *spec)
{
	uint64_t ms = spec->timeout_ms + AGENT_SILENCE_GRACE_MS;

	if (spec->timeout_ms == 0)
		return -1;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

int
agent_run(struct agent_conn *c, const struct agent_run_spec *spec,
    agent_result_cb cb, void *arg, int *state, char **cause)
{
	struct agent_stream st = { spec->run_id, 0, cb, arg };
	struct proto_msg    m;
	unsigned char	   *p;
	int		    rc;

	if (agent_usable(c, cause) != 0)
		return -1;
	if (!agent_run_id_ok(spec->run_id) || spec->argv == NULL ||
	    spec->argv[0] == NULL) {
		causef(cause,
		    "host \"%s\": agent: run \"%s\": bad run id or empty argv",
		    c->name, spec->run_id ? spec->run_id : "");
		return -1;
	}
	if (agent_send_run(c, spec, cause) != 0 ||
	    agent_expect(c, PROTO_RUN_STARTED, c->timeout_ms, &p, &m, cause) !=
		0)
		return -1;
	rc = agent_check_str(c, &m, PROTO_T_RUN_ID, spec->run_id, cause);
	proto_msg_clear(&m);
	free(p);
	if (rc != 0)
		return -1;
	return agent_stream(c, &st, agent_silence_ms(spec), state, cause);
}

int
agent_fetch(struct agent_conn *c, const char *run_id, uint64_t from_seq,
    bool wait, agent_result_cb cb, void *arg, int *state, char **cause)
{
	struct agent_stream st = { run_id, from_seq, cb, arg };
	struct proto_buf    b = { 0 };

	if (agent_usable(c, cause) != 0)
		return -1;
	if (!agent_run_id_ok(run_id)) {
		causef(cause, "host \"%s\": agent: fetch: bad run id \"%s\"",
		    c->name, run_id ? run_id : "");
		return -1;
	}
	proto_begin(&b, PROTO_FETCH);
	proto_add_str(&b, PROTO_T_RUN_ID, run_id);
	proto_add_u64(&b, PROTO_T_FROM_SEQ, from_seq);
	proto_add_u64(&b, PROTO_T_WAIT, wait ? 1 : 0);
	if (agent_send(c, &b, cause) != 0)
		return -1;
	return agent_stream(c, &st, wait ? -1 : c->timeout_ms, state, cause);
}

/* Reads a STATUS's (RUN_ID, STATE) groups into the list. */
static void
agent_spools_read(const struct proto_msg *m, struct agent_spool **v, size_t *n)
{
	const struct proto_field *f;
	uint16_t		  i;

	for (i = 0; i < m->nfields; i++) {
		f = &m->fields[i];
		if (f->tag == PROTO_T_RUN_ID) {
			*v = xreallocarray(*v, *n + 1, sizeof **v);
			(*v)[(*n)++] = (struct agent_spool){ proto_field_str(f),
				PROTO_RUN_UNKNOWN };
		} else if (f->tag == PROTO_T_STATE && *n > 0)
			(*v)[*n - 1].state = (int)f->u;
	}
}

int
agent_spools(struct agent_conn *c, struct agent_spool **v, size_t *n,
    char **cause)
{
	struct proto_buf b = { 0 };
	struct proto_msg m;
	unsigned char	*p;

	*v = NULL;
	*n = 0;
	if (agent_usable(c, cause) != 0)
		return -1;
	proto_begin(&b, PROTO_STATUS_REQ);
	if (agent_send(c, &b, cause) != 0 ||
	    agent_expect(c, PROTO_STATUS, c->timeout_ms, &p, &m, cause) != 0)
		return -1;
	agent_spools_read(&m, v, n);
	proto_msg_clear(&m);
	free(p);
	return 0;
}

void
agent_spools_free(struct agent_spool *v, size_t n)
{
	while (n > 0)
		free(v[--n].run_id);
	free(v);
}

int
agent_ack(struct agent_conn *c, const char *run_id, char **cause)
{
	struct proto_buf b = { 0 };
	struct proto_msg m;
	unsigned char	*p;
	int		 rc;

	if (agent_usable(c, cause) != 0)
		return -1;
	if (!agent_run_id_ok(run_id)) {
		causef(cause, "host \"%s\": agent: ack: bad run id \"%s\"",
		    c->name, run_id ? run_id : "");
		return -1;
	}
	proto_begin(&b, PROTO_ACK);
	proto_add_str(&b, PROTO_T_RUN_ID, run_id);
	if (agent_send(c, &b, cause) != 0 ||
	    agent_expect(c, PROTO_ACKED, c->timeout_ms, &p, &m, cause) != 0)
		return -1;
	rc = agent_check_str(c, &m, PROTO_T_RUN_ID, run_id, cause);
	proto_msg_clear(&m);
	free(p);
	return rc;
}

int
agent_cancel(struct agent_conn *c, const char *run_id, int *state, char **cause)
{
	struct proto_buf b = { 0 };
	struct proto_msg m;
	unsigned char	*p;
	uint64_t	 s = PROTO_RUN_UNKNOWN;
	int		 rc;

	if (agent_usable(c, cause) != 0)
		return -1;
	if (!agent_run_id_ok(run_id)) {
		causef(cause, "host \"%s\": agent: cancel: bad run id \"%s\"",
		    c->name, run_id ? run_id : "");
		return -1;
	}
	proto_begin(&b, PROTO_CANCEL);
	proto_add_str(&b, PROTO_T_RUN_ID, run_id);
	if (agent_send(c, &b, cause) != 0 ||
	    agent_expect(c, PROTO_RUN_DONE, c->timeout_ms, &p, &m, cause) != 0)
		return -1;
	rc = agent_check_str(c, &m, PROTO_T_RUN_ID, run_id, cause);
	proto_get_u64(&m, PROTO_T_STATE, &s);
	*state = (int)s;
	proto_msg_clear(&m);
	free(p);
	return rc;
}
