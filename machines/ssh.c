/*
 * The ssh transport on libssh: connect with a strict host key check,
 * public key auth, commands with a timeout and long-lived exec channels
 * (uploads: ssh_upload.c); a look for a host's SSH banner.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include "common/cause.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "machines/ssh.h"
#include "machines/ssh_int.h"

#define SSH_HOST_CONNECT_TIMEOUT_MS 10000
#define SSH_HOST_COMMAND_TIMEOUT_MS 60000
/* How long one poll waits before stderr is drained again. */
#define SSH_HOST_SLICE_MS	    1000
/* Command output beyond this is an error rather than a memory hog. */
#define SSH_HOST_MAX_OUTPUT	    (64u * 1024 * 1024)
#define SSH_HOST_STDERR_TAIL	    1024
/* What a login shell's start-up files may print before a channel's mark. */
#define SSH_HOST_MAX_NOISE	    (64u * 1024)

/* Why this thread's last connect failed (ssh_host_last_error). */
static _Thread_local enum ssh_host_error ssh_host_error;
/* How much of a failed command's stderr its error quotes. */
#define SSH_HOST_ERR_LINE 400

struct ssh_host_chan {
	struct ssh_host *h;
	ssh_channel	 c;
	char		 errtail[SSH_HOST_STDERR_TAIL + 1];
	size_t		 errlen;
	bool		 err_marked; /* the stderr mark was seen */
};

/* A growing byte buffer, always NUL-terminated once used. */
struct ssh_host_buf {
	char  *p;
	size_t len;
	size_t cap;
};

/* Milliseconds left until deadline (< 0: none), capped at one slice. */
static int
ssh_host_slice(long long deadline)
{
	long long left;

	if (deadline < 0)
		return SSH_HOST_SLICE_MS;
	left = deadline - clock_now_ms();
	if (left < 0)
		return 0;
	return left < SSH_HOST_SLICE_MS ? (int)left : SSH_HOST_SLICE_MS;
}

/* Sets the session's timeout for blocking libssh calls. */
static void
ssh_host_set_timeout(struct ssh_host *h, int ms)
{
	long sec = ms / 1000, usec = (long)(ms % 1000) * 1000;

	ssh_options_set(h->s, SSH_OPTIONS_TIMEOUT, &sec);
	ssh_options_set(h->s, SSH_OPTIONS_TIMEOUT_USEC, &usec);
}

/* Appends n bytes to b, refusing to grow past SSH_HOST_MAX_OUTPUT. */
static int
ssh_host_buf_add(struct ssh_host_buf *b, const void *p, size_t n)
{
	if (b->len + n > SSH_HOST_MAX_OUTPUT)
		return -1;
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xreallocarray(b->p, 1, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

/* Hands the buffer's bytes over as a NUL-terminated string. */
static char *
ssh_host_buf_take(struct ssh_host_buf *b, size_t *len)
{
	char *p = b->p != NULL ? b->p : xstrdup("");

	*len = b->len;
	b->p = NULL;
	b->len = b->cap = 0;
	return p;
}

/* Sets the connection options; nothing is read from ~/.ssh/config. */
static int
ssh_host_options(struct ssh_host *h, const struct machine *m, int flags,
    char **cause)
{
	const struct machine_ssh *ms = &m->ssh;
	int			  port = ms->port > 0 ? ms->port : 22;
	int			  nodelay;
	bool			  config = false;
	const char		 *user = ms->user ? ms->user : "root";

	nodelay = !(flags & SSH_HOST_NO_NODELAY);
	if (ms->known_hosts == NULL || *ms->known_hosts == '\0') {
		causef(cause, "host \"%s\": no known_hosts file given",
		    h->name);
		return -1;
	}
	if (ssh_options_set(h->s, SSH_OPTIONS_PROCESS_CONFIG, &config) != 0 ||
	    ssh_options_set(h->s, SSH_OPTIONS_HOST, ms->host) != 0 ||
	    ssh_options_set(h->s, SSH_OPTIONS_PORT, &port) != 0 ||
	    ssh_options_set(h->s, SSH_OPTIONS_USER, user) != 0 ||
	    ssh_options_set(h->s, SSH_OPTIONS_NODELAY, &nodelay) != 0 ||
	    ssh_options_set(h->s, SSH_OPTIONS_KNOWNHOSTS, ms->known_hosts) !=
		0 ||
	    ssh_options_set(h->s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null") !=
		0) {
		causef(cause, "host \"%s\": ssh options: %s", h->name,
		    ssh_get_error(h->s));
		return -1;
	}
	ssh_host_set_timeout(h, h->connect_timeout_ms);
	return 0;
}

/* Describes the server's key as "TYPE SHA256:..." for messages. */
static char *
ssh_host_key_desc(ssh_key key)
{
	unsigned char *hash = NULL;
	size_t	       hlen = 0;
	char	      *fp, *desc;

	if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash,
		&hlen) != 0)
		return xstrdup(ssh_key_type_to_char(ssh_key_type(key)));
	fp = ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, hlen);
	desc = xasprintf("%s %s", ssh_key_type_to_char(ssh_key_type(key)),
	    fp != NULL ? fp : "?");
	ssh_string_free_char(fp);
	ssh_clean_pubkey_hash(&hash);
	return desc;
}

/* Adds an unknown host's key to known_hosts when the machine allows it. */
static int
ssh_host_trust(struct ssh_host *h, const struct machine *m, const char *desc,
    char **cause)
{
	if (!m->ssh.trust_on_first_use) {
		causef(cause,
		    "host \"%s\": unknown host key for %s (%s): not in "
		    "%s and trust_on_first_use is off",
		    h->name, h->addr, desc, m->ssh.known_hosts);
		return -1;
	}
	if (ssh_session_update_known_hosts(h->s) != SSH_OK) {
		causef(cause, "host \"%s\": cannot add host key to %s: %s",
		    h->name, m->ssh.known_hosts, ssh_get_error(h->s));
		return -1;
	}
	log_info("ssh", "host \"%s\": trusted new host key %s, added to %s",
	    h->name, desc, m->ssh.known_hosts);
	return 0;
}

/* Checks the server's host key against the machine's known_hosts. */
static int
ssh_host_verify(struct ssh_host *h, const struct machine *m, char **cause)
{
	ssh_key key = NULL;
	char   *desc = NULL;
	int	rc = -1;

	if (ssh_get_server_publickey(h->s, &key) != SSH_OK) {
		causef(cause, "host \"%s\": ssh host key: %s", h->name,
		    ssh_get_error(h->s));
		goto out;
	}
	desc = ssh_host_key_desc(key);
	switch (ssh_session_is_known_server(h->s)) {
	case SSH_KNOWN_HOSTS_OK:
		rc = 0;
		break;
	case SSH_KNOWN_HOSTS_CHANGED:
		causef(cause,
		    "host \"%s\": host key for %s has changed: server "
		    "offers %s, which is not the key in %s; refusing to "
		    "connect",
		    h->name, h->addr, desc, m->ssh.known_hosts);
		break;
	case SSH_KNOWN_HOSTS_OTHER:
		causef(cause,
		    "host \"%s\": host key for %s has changed: server "
		    "offers %s, but %s holds a key of another type; refusing "
		    "to connect",
		    h->name, h->addr, desc, m->ssh.known_hosts);
		break;
	case SSH_KNOWN_HOSTS_UNKNOWN:
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		rc = ssh_host_trust(h, m, desc, cause);
		break;
	default:
		causef(cause, "host \"%s\": host key check against %s: %s",
		    h->name, m->ssh.known_hosts, ssh_get_error(h->s));
		break;
	}
out:
	free(desc);
	ssh_key_free(key);
	return rc;
}

/* Authenticates with the machine's private key file. */
static int
ssh_host_auth(struct ssh_host *h, const struct machine *m, char **cause)
{
	ssh_key priv = NULL;
	int	rc = -1;

	if (m->ssh.identity == NULL || *m->ssh.identity == '\0') {
		causef(cause, "host \"%s\": no identity file given", h->name);
		goto out;
	}
	if (ssh_pki_import_privkey_file(m->ssh.identity, NULL, NULL, NULL,
		&priv) != SSH_OK) {
		causef(cause,
		    "host \"%s\": identity \"%s\": cannot read private "
		    "key",
		    h->name, m->ssh.identity);
		goto out;
	}
	switch (ssh_userauth_publickey(h->s, NULL, priv)) {
	case SSH_AUTH_SUCCESS:
		rc = 0;
		break;
	case SSH_AUTH_AGAIN:
		/*
		 * No answer within the connect timeout: a host just booted
		 * or loaded may be slow to check a key, and answers later.
		 */
		ssh_host_error = SSH_HOST_UNREACHABLE;
		causef(cause,
		    "host \"%s\": ssh auth: no answer to the key within "
		    "the connect timeout",
		    h->name);
		break;
	case SSH_AUTH_ERROR:
		/* The connection broke: not a refusal. */
		ssh_host_error = SSH_HOST_UNREACHABLE;
		causef(cause, "host \"%s\": ssh auth: %s", h->name,
		    ssh_get_error(h->s));
		break;
	default:
		causef(cause,
		    "host \"%s\": ssh auth: key \"%s\" refused for "
		    "user \"%s\"",
		    h->name, m->ssh.identity,
		    m->ssh.user ? m->ssh.user : "root");
		break;
	}
out:
	ssh_key_free(priv);
	return rc;
}

/*
 * Makes the kernel probe a quiet connection every ms and drop it after
 * three unanswered probes, or when sent data stays unacknowledged as
 * long: a host that hangs without resetting the connection is noticed
 * without any wakeup here (0: the system's defaults).
 */
static void
ssh_host_keepalive(struct ssh_host *h, int ms)
{
	int	     fd = ssh_get_fd(h->s), on = 1, cnt = 3;
	int	     sec = ms < 1000 ? 1 : ms / 1000;
	unsigned int user = (unsigned int)(ms < 1000 ? 1000 : ms) * 4;

	if (fd < 0 || ms <= 0)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on) == -1 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &sec, sizeof sec) == -1 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &sec, sizeof sec) ==
		-1 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt) == -1 ||
	    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user, sizeof user) ==
		-1)
		log_warn(h->name, "ssh keepalive: %s", strerror(errno));
}

/* Reports a failed ssh_connect, turning libssh's timeout into words. */
static void
ssh_host_connect_fail(struct ssh_host *h, int port, char **cause)
{
	const char *err = ssh_get_error(h->s);

	if (strstr(err, "Timeout") != NULL || strstr(err, "timed out"))
		causef(cause,
		    "host \"%s\": ssh connect: timed out (%s port %d)", h->name,
		    h->addr, port);
	else
		causef(cause, "host \"%s\": ssh connect: %s port %d: %s",
		    h->name, h->addr, port, err);
}

struct ssh_host *
ssh_host_connect(const struct machine *m, int flags, char **cause)
{
	struct ssh_host *h = xcalloc(1, sizeof *h);
	int		 port = m->ssh.port > 0 ? m->ssh.port : 22;

	ssh_host_error = SSH_HOST_OTHER;
	h->name = xstrdup(m->name != NULL ? m->name : "?");
	h->addr = xstrdup(m->ssh.host != NULL ? m->ssh.host : "");
	h->connect_timeout_ms = m->ssh.connect_timeout_ms > 0
	    ? m->ssh.connect_timeout_ms
	    : SSH_HOST_CONNECT_TIMEOUT_MS;
	h->command_timeout_ms = m->ssh.command_timeout_ms > 0
	    ? m->ssh.command_timeout_ms
	    : SSH_HOST_COMMAND_TIMEOUT_MS;
	if (*h->addr == '\0') {
		causef(cause, "host \"%s\": no ssh host given", h->name);
		goto fail;
	}
	if ((h->s = ssh_new()) == NULL) {
		causef(cause, "host \"%s\": ssh: cannot create a session",
		    h->name);
		goto fail;
	}
	if (ssh_host_options(h, m, flags, cause) != 0)
		goto fail;
	if (ssh_connect(h->s) != SSH_OK) {
		ssh_host_error = SSH_HOST_UNREACHABLE;
		ssh_host_connect_fail(h, port, cause);
		goto fail;
	}
	ssh_host_keepalive(h, m->ssh.keepalive_ms);
	ssh_host_error = SSH_HOST_TRUST;
	if (ssh_host_verify(h, m, cause) != 0 ||
	    ssh_host_auth(h, m, cause) != 0)
		goto fail;
	ssh_host_error = SSH_HOST_OK;
	return h;
fail:
	ssh_host_close(h);
	return NULL;
}

enum ssh_host_error
ssh_host_last_error(void)
{
	return ssh_host_error;
}

void
ssh_host_close(struct ssh_host *h)
{
	if (h == NULL)
		return;
	if (h->sftp != NULL)
		sftp_free(h->sftp);
	if (h->s != NULL) {
		ssh_disconnect(h->s);
		ssh_free(h->s);
	}
	free(h->name);
	free(h->addr);
	free(h);
}

/* Waits until fd has events or the deadline passes; true if they came. */
static bool
ssh_host_wait_fd(int fd, short events, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	long long     left;
	int	      n;

	do {
		left = deadline - clock_now_ms();
		n = poll(&pfd, 1, left > 0 ? (int)left : 0);
	} while (n == -1 && errno == EINTR);
	return n == 1;
}

/* True if the socket fd, connecting, sends an SSH banner by deadline. */
static bool
ssh_host_banner(int fd, long long deadline)
{
	socklen_t len = sizeof(int);
	char	  buf[4];
	size_t	  got = 0;
	ssize_t	  n;
	int	  err = 0;

	if (!ssh_host_wait_fd(fd, POLLOUT, deadline) ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == -1 || err != 0)
		return false;
	while (got < sizeof buf) {
		if (!ssh_host_wait_fd(fd, POLLIN, deadline))
			return false;
		if ((n = recv(fd, buf + got, sizeof buf - got, 0)) > 0)
			got += (size_t)n;
		else if (n == 0 || (errno != EINTR && errno != EAGAIN))
			return false;
	}
	return memcmp(buf, "SSH-", 4) == 0;
}

bool
ssh_host_probe(const char *host, int port, int timeout_ms)
{
	struct addrinfo *res, *ai, hints;
	long long	 deadline = clock_now_ms() + timeout_ms;
	char		 service[16];
	bool		 ok = false;
	int		 fd;

	if (host == NULL || *host == '\0')
		return false;
	memset(&hints, 0, sizeof hints);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(service, sizeof service, "%d", port > 0 ? port : 22);
	if (getaddrinfo(host, service, &hints, &res) != 0)
		return false;
	for (ai = res; ai != NULL && !ok; ai = ai->ai_next) {
		fd = socket(ai->ai_family,
		    ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (fd == -1)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ||
		    errno == EINPROGRESS)
			ok = ssh_host_banner(fd, deadline);
		close(fd);
	}
	freeaddrinfo(res);
	return ok;
}

const char *
ssh_host_name(const struct ssh_host *h)
{
	return h->name;
}

int
ssh_host_command_timeout(const struct ssh_host *h)
{
	return h->command_timeout_ms;
}

/*
 * Opens a session channel and starts cmd on it, away from the login
 * shell's start-up files (ssh_shell.c).
 */
static ssh_channel
ssh_host_start(struct ssh_host *h, const char *cmd, char **cause)
{
	ssh_channel c;
	char	   *line;
	int	    rc;

	if ((c = ssh_channel_new(h->s)) == NULL) {
		causef(cause, "host \"%s\": ssh channel: %s", h->name,
		    ssh_get_error(h->s));
		return NULL;
	}
	if (ssh_channel_open_session(c) != SSH_OK) {
		causef(cause, "host \"%s\": ssh channel: %s", h->name,
		    ssh_get_error(h->s));
		ssh_channel_free(c);
		return NULL;
	}
	line = ssh_shell_wrap(cmd);
	rc = ssh_channel_request_exec(c, line);
	free(line);
	if (rc != SSH_OK) {
		causef(cause, "host \"%s\": ssh exec \"%s\": %s", h->name, cmd,
		    ssh_get_error(h->s));
		ssh_channel_close(c);
		ssh_channel_free(c);
		return NULL;
	}
	return c;
}

/*
 * Moves whatever stdout and stderr data has arrived into out and err.
 * Returns the bytes moved, or -1 on a transport error or overflow.
 */
static long
ssh_host_drain(ssh_channel c, struct ssh_host_buf *out,
    struct ssh_host_buf *err)
{
	char tmp[16384];
	long total = 0;
	int  n, is_stderr;

	for (is_stderr = 0; is_stderr <= 1; is_stderr++) {
		while ((n = ssh_channel_read_nonblocking(c, tmp, sizeof tmp,
			    is_stderr)) > 0) {
			if (ssh_host_buf_add(is_stderr ? err : out, tmp,
				(size_t)n) != 0)
				return -1;
			total += n;
		}
		if (n == SSH_ERROR)
			return -1;
	}
	return total;
}

/* Reads a command's stdout and stderr until end of file or deadline. */
static int
ssh_host_collect(struct ssh_host *h, ssh_channel c, const char *cmd,
    int timeout_ms, struct ssh_host_buf *out, struct ssh_host_buf *err,
    char **cause)
{
	long long deadline = clock_now_ms() + timeout_ms;
	int	  eof;

	for (;;) {
		eof = ssh_channel_is_eof(c);
		if (ssh_host_drain(c, out, err) < 0) {
			causef(cause, "host \"%s\": ssh exec \"%s\": %s",
			    h->name, cmd,
			    out->len + err->len >= SSH_HOST_MAX_OUTPUT
				? "output too large"
				: ssh_get_error(h->s));
			return -1;
		}
		if (eof)
			return 0;
		if (clock_now_ms() >= deadline) {
			causef(cause,
			    "host \"%s\": ssh exec \"%s\": timed out "
			    "after %d ms",
			    h->name, cmd, timeout_ms);
			return -1;
		}
		if (ssh_channel_poll_timeout(c, ssh_host_slice(deadline), 0) ==
		    SSH_ERROR) {
			causef(cause, "host \"%s\": ssh exec \"%s\": %s",
			    h->name, cmd, ssh_get_error(h->s));
			return -1;
		}
	}
}

/* The end of a command's stderr on one line, for messages (caller frees). */
static char *
ssh_host_err_line(const struct ssh_host_result *res)
{
	size_t len = res->err_len, start;
	char  *s, *p;

	while (len > 0 && strchr(" \t\r\n", res->err[len - 1]) != NULL)
		len--;
	start = len > SSH_HOST_ERR_LINE ? len - SSH_HOST_ERR_LINE : 0;
	s = xstrndup(res->err + start, len - start);
	for (p = s; *p != '\0'; p++)
		if (*p == '\n' || *p == '\r' || *p == '\t')
			*p = ' ';
	return s;
}

/*
 * Drops what the login shell's start-up files printed before the mark
 * (the whole stream if it has none).
 */
static void
ssh_host_buf_unmark(struct ssh_host_buf *b)
{
	size_t end = b->len > 0 ? ssh_shell_mark_end(b->p, b->len) : SIZE_MAX;

	if (end == SIZE_MAX)
		return;
	memmove(b->p, b->p + end, b->len - end + 1);
	b->len -= end;
}

/*
 * Cuts the start-up files' output from a finished command's streams; a
 * command whose stdout has no mark never ran (its login shell ended
 * first: an `exit` in a start-up file, a shell that cannot run sh).
 */
static int
ssh_host_unmark(struct ssh_host *h, const char *cmd, struct ssh_host_buf *out,
    struct ssh_host_buf *err, int status, char **cause)
{
	struct ssh_host_result res = { .err = err->p, .err_len = err->len };
	char		      *line;

	if (out->len > 0 && ssh_shell_mark_end(out->p, out->len) != SIZE_MAX) {
		ssh_host_buf_unmark(out);
		ssh_host_buf_unmark(err);
		return 0;
	}
	line = err->len > 0 ? ssh_host_err_line(&res) : xstrdup("");
	causef(cause,
	    "host \"%s\": ssh exec \"%s\": the login shell ended before "
	    "the command started (exit %d)%s%s",
	    h->name, cmd, status, *line != '\0' ? ": " : "", line);
	free(line);
	return -1;
}

int
ssh_host_exec(struct ssh_host *h, const char *cmd, struct ssh_host_result *res,
    char **cause)
{
	return ssh_host_exec_within(h, cmd, h->command_timeout_ms, res, cause);
}

int
ssh_host_exec_within(struct ssh_host *h, const char *cmd, int timeout_ms,
    struct ssh_host_result *res, char **cause)
{
	struct ssh_host_buf out = { 0 }, err = { 0 };
	ssh_channel	    c;
	int		    rc = -1;

	if (timeout_ms <= 0)
		timeout_ms = h->command_timeout_ms;
	memset(res, 0, sizeof *res);
	res->status = -1;
	/* Blocking steps (open, exec) take no longer than a command. */
	ssh_host_set_timeout(h,
	    timeout_ms < h->command_timeout_ms ? timeout_ms
					       : h->command_timeout_ms);
	if ((c = ssh_host_start(h, cmd, cause)) == NULL)
		goto out;
	ssh_channel_send_eof(c);
	if (ssh_host_collect(h, c, cmd, timeout_ms, &out, &err, cause) != 0)
		goto out;
	res->status = ssh_channel_get_exit_status(c);
	if (ssh_host_unmark(h, cmd, &out, &err, res->status, cause) != 0) {
		res->status = -1;
		goto out;
	}
	res->out = ssh_host_buf_take(&out, &res->out_len);
	res->err = ssh_host_buf_take(&err, &res->err_len);
	rc = 0;
out:
	if (c != NULL) {
		ssh_channel_close(c);
		ssh_channel_free(c);
	}
	free(out.p);
	free(err.p);
	ssh_host_set_timeout(h, h->connect_timeout_ms);
	return rc;
}

int
ssh_host_run(struct ssh_host *h, const char *what, const char *cmd,
    int timeout_ms, char **out, char **cause)
{
	struct ssh_host_result res;
	char		      *line;

	if (ssh_host_exec_within(h, cmd, timeout_ms, &res, cause) != 0)
		return -1;
	if (res.status != 0) {
		line = ssh_host_err_line(&res);
		causef(cause, "host \"%s\": %s: %s (exit %d)", h->name, what,
		    *line != '\0' ? line : "failed", res.status);
		free(line);
		ssh_host_result_clear(&res);
		return -1;
	}
	if (out != NULL)
		*out = ssh_host_result_out(&res);
	ssh_host_result_clear(&res);
	return 0;
}

char *
ssh_host_result_out(const struct ssh_host_result *res)
{
	size_t len = res->out_len;

	while (len > 0 && strchr(" \t\r\n", res->out[len - 1]) != NULL)
		len--;
	return xstrndup(res->out, len);
}

void
ssh_host_result_clear(struct ssh_host_result *res)
{
	free(res->out);
	free(res->err);
	memset(res, 0, sizeof *res);
	res->status = -1;
}

char *
ssh_host_quote(const char *s)
{
	struct ssh_host_buf b = { 0 };
	size_t		    len;

	ssh_host_buf_add(&b, "'", 1);
	for (; *s != '\0'; s++) {
		if (*s == '\'')
			ssh_host_buf_add(&b, "'\\''", 4);
		else
			ssh_host_buf_add(&b, s, 1);
	}
	ssh_host_buf_add(&b, "'", 1);
	return ssh_host_buf_take(&b, &len);
}

/*
 * Reads the process's stdout up to the mark, within the command timeout:
 * what the login shell's start-up files printed is dropped, so the
 * process's first byte is the next one read.
 */
static int
ssh_host_chan_unmark(struct ssh_host_chan *ch, char **cause)
{
	long long deadline = clock_now_ms() + ch->h->command_timeout_ms, left;
	size_t	  seen = 0, matched = 0;
	char	  c;

	while (matched < SSH_SHELL_MARK_LEN) {
		if (++seen > SSH_HOST_MAX_NOISE) {
			causef(cause,
			    "host \"%s\": the login shell printed more than "
			    "%u bytes before the command started",
			    ch->h->name, SSH_HOST_MAX_NOISE);
			return -1;
		}
		left = deadline - clock_now_ms();
		if (ssh_host_chan_read(ch, &c, 1, left > 0 ? (int)left : 0,
			cause) != 0)
			return -1;
		/* The mark's first byte occurs in it only once more, last. */
		if (c == SSH_SHELL_MARK[matched])
			matched++;
		else
			matched = c == SSH_SHELL_MARK[0];
	}
	return 0;
}

struct ssh_host_chan *
ssh_host_chan_open(struct ssh_host *h, const char *cmd, char **cause)
{
	struct ssh_host_chan *ch;
	ssh_channel	      c;

	ssh_host_set_timeout(h, h->command_timeout_ms);
	c = ssh_host_start(h, cmd, cause);
	ssh_host_set_timeout(h, h->connect_timeout_ms);
	if (c == NULL)
		return NULL;
	ch = xcalloc(1, sizeof *ch);
	ch->h = h;
	ch->c = c;
	if (ssh_host_chan_unmark(ch, cause) != 0) {
		ssh_host_chan_close(ch);
		return NULL;
	}
	return ch;
}

/* Drops the start-up files' stderr from the tail once the mark is in. */
static void
ssh_host_chan_unmark_stderr(struct ssh_host_chan *ch)
{
	size_t end;

	if (ch->err_marked ||
	    (end = ssh_shell_mark_end(ch->errtail, ch->errlen)) == SIZE_MAX)
		return;
	memmove(ch->errtail, ch->errtail + end, ch->errlen - end + 1);
	ch->errlen -= end;
	ch->err_marked = true;
}

/* Keeps the last SSH_HOST_STDERR_TAIL bytes of the process's stderr. */
static int
ssh_host_chan_drain_stderr(struct ssh_host_chan *ch)
{
	char   tmp[4096];
	size_t keep;
	int    n;

	while (
	    (n = ssh_channel_read_nonblocking(ch->c, tmp, sizeof tmp, 1)) > 0) {
		if ((size_t)n >= SSH_HOST_STDERR_TAIL) {
			memcpy(ch->errtail, tmp + n - SSH_HOST_STDERR_TAIL,
			    SSH_HOST_STDERR_TAIL);
			ch->errlen = SSH_HOST_STDERR_TAIL;
		} else {
			keep = SSH_HOST_STDERR_TAIL - (size_t)n;
			if (ch->errlen > keep) {
				memmove(ch->errtail,
				    ch->errtail + ch->errlen - keep, keep);
				ch->errlen = keep;
			}
			memcpy(ch->errtail + ch->errlen, tmp, (size_t)n);
			ch->errlen += (size_t)n;
		}
		ch->errtail[ch->errlen] = '\0';
		ssh_host_chan_unmark_stderr(ch);
	}
	return n == SSH_ERROR ? -1 : 0;
}

const char *
ssh_host_chan_stderr(const struct ssh_host_chan *ch)
{
	return ch->errtail;
}

/* Reports that the connection under a channel was lost; -1. */
static int
ssh_host_chan_lost(struct ssh_host_chan *ch, char **cause)
{
	causef(cause, "host \"%s\": connection lost: %s", ch->h->name,
	    ssh_get_error(ch->h->s));
	return -1;
}

/* Reports that the process closed its output, quoting its stderr. */
static void
ssh_host_chan_eof(struct ssh_host_chan *ch, char **cause)
{
	size_t len = ch->errlen;
	char  *tail = xstrndup(ch->errtail, len);

	while (len > 0 && (tail[len - 1] == '\n' || tail[len - 1] == '\r'))
		tail[--len] = '\0';
	if (len > 0)
		causef(cause, "host \"%s\": remote process ended: %s",
		    ch->h->name, tail);
	else
		causef(cause, "host \"%s\": remote process ended", ch->h->name);
	free(tail);
}

int
ssh_host_chan_read(struct ssh_host_chan *ch, void *buf, size_t len,
    int timeout_ms, char **cause)
{
	long long deadline = -1;
	size_t	  got = 0;
	int	  n, eof;

	if (timeout_ms >= 0)
		deadline = clock_now_ms() + timeout_ms;
	while (got < len) {
		eof = ssh_channel_is_eof(ch->c);
		n = ssh_channel_read_nonblocking(ch->c, (char *)buf + got,
		    (uint32_t)(len - got), 0);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (n == SSH_ERROR || ssh_host_chan_drain_stderr(ch) != 0)
			goto lost;
		if (eof) {
			ssh_host_chan_eof(ch, cause);
			return -1;
		}
		if (deadline >= 0 && clock_now_ms() >= deadline) {
			causef(cause,
			    "host \"%s\": read from remote process: "
			    "timed out after %d ms",
			    ch->h->name, timeout_ms);
			return -1;
		}
		if (ssh_channel_poll_timeout(ch->c, ssh_host_slice(deadline),
			0) == SSH_ERROR)
			goto lost;
	}
	return 0;
lost:
	return ssh_host_chan_lost(ch, cause);
}

int
ssh_host_chan_poll(struct ssh_host_chan *ch, int timeout_ms, char **cause)
{
	long long deadline = clock_now_ms() + timeout_ms;
	int	  n;

	for (;;) {
		n = ssh_channel_poll_timeout(ch->c, ssh_host_slice(deadline),
		    0);
		if (n > 0)
			return 1;
		if (n == SSH_EOF) {
			ssh_host_chan_eof(ch, cause);
			return -1;
		}
		if (n == SSH_ERROR || ssh_host_chan_drain_stderr(ch) != 0)
			return ssh_host_chan_lost(ch, cause);
		if (clock_now_ms() >= deadline)
			return 0;
	}
}

int
ssh_host_chan_write(struct ssh_host_chan *ch, const void *buf, size_t len,
    int timeout_ms, char **cause)
{
	struct ssh_host *h = ch->h;
	size_t		 off = 0;
	int		 n, rc = 0;

	ssh_host_set_timeout(h,
	    timeout_ms >= 0 ? timeout_ms : h->command_timeout_ms);
	while (off < len) {
		n = ssh_channel_write(ch->c, (const char *)buf + off,
		    (uint32_t)(len - off));
		if (n <= 0) {
			causef(cause,
			    "host \"%s\": write to remote process: %s", h->name,
			    n == 0 ? "timed out" : ssh_get_error(h->s));
			rc = -1;
			break;
		}
		off += (size_t)n;
	}
	ssh_host_set_timeout(h, h->connect_timeout_ms);
	return rc;
}

void
ssh_host_chan_close(struct ssh_host_chan *ch)
{
	if (ch == NULL)
		return;
	if (ssh_channel_is_open(ch->c)) {
		ssh_channel_send_eof(ch->c);
		ssh_channel_close(ch->c);
	}
	ssh_channel_free(ch->c);
	free(ch);
}

int
ssh_host_chan_wait(struct ssh_host_chan *ch, int timeout_ms, int *status,
    char **cause)
{
	long long deadline = clock_now_ms() + timeout_ms;
	char	  tmp[4096];
	int	  n;

	ssh_channel_send_eof(ch->c);
	while (!ssh_channel_is_eof(ch->c)) {
		while ((n = ssh_channel_read_nonblocking(ch->c, tmp, sizeof tmp,
			    0)) > 0)
			;
		if (n == SSH_ERROR || ssh_host_chan_drain_stderr(ch) != 0)
			return ssh_host_chan_lost(ch, cause);
		if (clock_now_ms() >= deadline) {
			causef(cause,
			    "host \"%s\": remote process: no exit after %d ms",
			    ch->h->name, timeout_ms);
			return -1;
		}
		if (ssh_channel_poll_timeout(ch->c, ssh_host_slice(deadline),
			0) == SSH_ERROR)
			return ssh_host_chan_lost(ch, cause);
	}
	if (ssh_host_chan_drain_stderr(ch) != 0)
		return ssh_host_chan_lost(ch, cause);
	*status = ssh_channel_get_exit_status(ch->c);
	return 0;
}
