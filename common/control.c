/* The control socket, server and client side. */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/control.h"
#include "common/log.h"
#include "common/xmalloc.h"

#define CONTROL_MAX_LINE 4096

struct control {
	int   fd;
	char *path;
};

/* Fills a sockaddr_un; -1 if the path does not fit. */
static int
control_addr(const char *path, struct sockaddr_un *sun, char **cause)
{
	memset(sun, 0, sizeof *sun);
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun->sun_path) {
		*cause = xasprintf("socket \"%s\": path too long", path);
		return -1;
	}
	strcpy(sun->sun_path, path);
	return 0;
}

/* Creates the socket's directory (one level) if it is missing. */
static void
control_mkdir(const char *path)
{
	char *copy = xstrdup(path);

	if (mkdir(dirname(copy), 0755) == -1 && errno != EEXIST)
		log_warn("control", "mkdir for \"%s\": %s", path,
		    strerror(errno));
	free(copy);
}

struct control *
control_open(const char *path, char **cause)
{
	struct sockaddr_un sun;
	struct control	  *c;
	char		  *reply, *ignored = NULL;
	int		   fd;

	if (control_addr(path, &sun, cause) == -1)
		return NULL;
	control_mkdir(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		goto fail;
	/* A leftover socket file is stale: only one hilabd binds it. */
	reply = control_call(path, "ping", &ignored);
	free(ignored);
	if (reply != NULL) {
		free(reply);
		close(fd);
		*cause = xasprintf("socket \"%s\": another hilabd answers "
				   "there",
		    path);
		return NULL;
	}
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sun, sizeof sun) == -1 ||
	    chmod(path, 0660) == -1 || listen(fd, 16) == -1) {
		close(fd);
		goto fail;
	}
	c = xcalloc(1, sizeof *c);
	c->fd = fd;
	c->path = xstrdup(path);
	return c;
fail:
	*cause = xasprintf("socket \"%s\": %s", path, strerror(errno));
	return NULL;
}

int
control_fd(const struct control *c)
{
	return c->fd;
}

/* Only root and the daemon's own user may talk to it. */
static int
control_peer_ok(int fd)
{
	struct ucred cred;
	socklen_t    len = sizeof cred;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1)
		return 0;
	return cred.uid == 0 || cred.uid == getuid();
}

/* Reads one request line (without the newline) into buf. */
static int
control_read_line(int fd, char *buf, size_t size)
{
	size_t	len = 0;
	ssize_t n;

	while (len < size - 1) {
		n = read(fd, buf + len, size - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += n;
		if (memchr(buf, '\n', len) != NULL)
			break;
	}
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return len > 0 ? 0 : -1;
}

/* Writes all of buf, retrying on short writes. */
static int
control_write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

void
control_serve_one(struct control *c, control_request_cb cb, void *arg)
{
	struct timeval tv = { .tv_sec = 2 };
	char	       line[CONTROL_MAX_LINE], *reply;
	int	       fd;

	if ((fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC)) == -1)
		return;
	if (!control_peer_ok(fd)) {
		log_warn("control", "refused a client of another user");
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (control_read_line(fd, line, sizeof line) == -1)
		goto out;
	reply = cb(line, arg);
	if (reply == NULL)
		reply = xasprintf("error unknown request \"%.64s\"", line);
	control_write_all(fd, reply, strlen(reply));
	control_write_all(fd, "\n", 1);
	free(reply);
out:
	close(fd);
}

void
control_close(struct control *c)
{
	if (c == NULL)
		return;
	close(c->fd);
	unlink(c->path);
	free(c->path);
	free(c);
}

/* Reads the whole reply until the daemon closes the connection. */
static char *
control_read_reply(int fd)
{
	size_t	len = 0, cap = 256;
	char   *buf = xmalloc(cap);
	ssize_t n;

	for (;;) {
		if (len + 1 >= cap)
			buf = xreallocarray(buf, cap *= 2, 1);
		n = read(fd, buf + len, cap - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return buf;
}

char *
control_call(const char *path, const char *request, char **cause)
{
	struct timeval	   wait = { CONTROL_TIMEOUT_MS / 1000,
		    (CONTROL_TIMEOUT_MS % 1000) * 1000 };
	struct sockaddr_un sun;
	char		  *reply = NULL;
	int		   fd;

	if (control_addr(path, &sun, cause) == -1)
		return NULL;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) == -1 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait) == -1 ||
	    connect(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		*cause =
		    xasprintf("hilabd at \"%s\": %s", path, strerror(errno));
		goto out;
	}
	if (control_write_all(fd, request, strlen(request)) == -1 ||
	    control_write_all(fd, "\n", 1) == -1) {
		*cause =
		    xasprintf("hilabd at \"%s\": %s", path, strerror(errno));
		goto out;
	}
	shutdown(fd, SHUT_WR);
	if ((reply = control_read_reply(fd)) == NULL)
		*cause = xasprintf("hilabd at \"%s\": no answer: %s", path,
		    strerror(errno));
out:
	if (fd != -1)
		close(fd);
	return reply;
}
