/*
 * Consoles kept per boot.  A follower thread copies what arrives (the
 * growth of a console server's log, or a command's output) into the
 * boot's file every CONSOLE_POLL_MS, so the file is readable while it
 * grows; the console files of libvirt VMs (qemu writes them) share the
 * naming and the readers.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "machines/console.h"

#define CONSOLE_POLL_MS	 200
#define CONSOLE_SCAN_MAX (4 * 1024 * 1024) /* of a boot's file, for a panic */

struct console {
	char	 *path; /* this boot's file */
	char	 *name; /* the machine's */
	int	  out;	/* the boot's file, appended to */
	char	 *src;	/* a console server's log, or NULL */
	off_t	  off;	/* how far src was copied */
	pid_t	  pid;	/* a command's, or -1 */
	int	  from; /* its output, or -1 */
	int	  to;	/* its input, or -1 */
	pthread_t thread;
	bool	  running;
	int	  stop[2]; /* a byte here ends the follower */
};

/* Makes dir and its parents (mode 0755). */
static int
console_mkdir_p(const char *dir)
{
	char *p = xstrdup(dir), *s, c;
	int   rc = 0;

	for (s = p + 1; rc == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		c = *s;
		*s = '\0';
		if (mkdir(p, 0755) == -1 && errno != EEXIST)
			rc = -1;
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return rc;
}

char *
console_file_new(const char *dir, const char *name, char **cause)
{
	struct timespec ts;
	struct tm	tm;
	char		stamp[32];

	if (console_mkdir_p(dir) == -1) {
		*cause = xasprintf("machine \"%s\": console dir \"%s\": %s",
		    name, dir, strerror(errno));
		return NULL;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	return xasprintf("%s/%s-%s.%03ld.log", dir, name, stamp,
	    ts.tv_nsec / 1000000);
}

char *
console_file_tail(const char *path, size_t max)
{
	struct stat st;
	char	   *buf = NULL;
	ssize_t	    n;
	int	    fd;

	if (path == NULL || (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1)
		goto out;
	buf = xmalloc(max + 1);
	n = pread(fd, buf, max,
	    (size_t)st.st_size > max ? st.st_size - (off_t)max : 0);
	buf[n > 0 ? n : 0] = '\0';
out:
	close(fd);
	return buf;
}

char *
console_file_excerpt(const char *path, size_t max)
{
	char  *all = console_file_tail(path, CONSOLE_SCAN_MAX), *p, *out;
	size_t len, before = max - max / 4;

	if (all == NULL)
		return NULL;
	len = strlen(all);
	if ((p = strstr(all, CONSOLE_PANIC)) != NULL)
		p = (size_t)(p - all) > before ? p - before : all;
	else
		p = len > max ? all + len - max : all;
	out = xstrndup(p, max);
	free(all);
	return out;
}

bool
console_panicked(const char *tail)
{
	return tail != NULL && strstr(tail, CONSOLE_PANIC) != NULL;
}

bool
console_resets_itself(const char *tail)
{
	const char *p = tail != NULL ? strstr(tail, CONSOLE_PANIC) : NULL;

	return p != NULL && strstr(p, "Rebooting in ") != NULL;
}

char *
console_line(const char *tail)
{
	const char *p, *end, *start;

	if (tail == NULL)
		return xstrdup("(no console output)");
	if ((p = strstr(tail, CONSOLE_PANIC)) != NULL) {
		while (p > tail && p[-1] != '\n')
			p--;
		end = p + strcspn(p, "\r\n");
		return xstrndup(p, (size_t)(end - p));
	}
	end = tail + strlen(tail);
	while (end > tail && strchr("\r\n \t", end[-1]) != NULL)
		end--;
	start = end;
	while (start > tail && start[-1] != '\n')
		start--;
	if (start == end)
		return xstrdup("(no console output)");
	return xstrndup(start, (size_t)(end - start));
}

/* Appends len bytes to the boot's file. */
static void
console_append(struct console *c, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(c->out, buf, len)) < 0) {
			if (errno == EINTR)
				continue;
			log_debug(c->name, "console: write %s: %s", c->path,
			    strerror(errno));
			return;
		}
		buf += n;
		len -= (size_t)n;
	}
}

/* Copies what the console server's log gained since the last look. */
static void
console_follow_file(struct console *c)
{
	char	    buf[16384];
	struct stat st;
	ssize_t	    n;
	int	    fd;

	if ((fd = open(c->src, O_RDONLY | O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == 0 && st.st_size < c->off)
		c->off = 0; /* truncated or rotated: from its start */
	while ((n = pread(fd, buf, sizeof buf, c->off)) > 0) {
		console_append(c, buf, (size_t)n);
		c->off += n;
	}
	close(fd);
}

/* Copies what the command printed; false once it closed its output. */
static bool
console_follow_command(struct console *c)
{
	char	buf[16384];
	ssize_t n;

	while ((n = read(c->from, buf, sizeof buf)) > 0)
		console_append(c, buf, (size_t)n);
	return n != 0;
}

/* The follower thread: copies until asked to stop. */
static void *
console_main(void *arg)
{
	struct console *c = arg;
	struct pollfd	pfd[2] = { { .fd = c->stop[0], .events = POLLIN },
		  { .fd = c->from, .events = POLLIN } };
	bool		open = true;

	for (;;) {
		if (c->src != NULL)
			console_follow_file(c);
		else if (open)
			open = console_follow_command(c);
		if (poll(pfd, open && c->from != -1 ? 2 : 1,
			c->src != NULL || !open ? CONSOLE_POLL_MS : -1) > 0 &&
		    (pfd[0].revents & POLLIN))
			break;
	}
	if (c->src != NULL)
		console_follow_file(c);
	return NULL;
}

/* Starts the console command with its input and output on pipes. */
static int
console_spawn(struct console *c, char **argv, char **cause)
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1 ||
	    (c->pid = fork()) == -1) {
		*cause = xasprintf("machine \"%s\": console \"%s\": %s",
		    c->name, argv[0], strerror(errno));
		return -1;
	}
	if (c->pid == 0) {
		setpgid(0, 0);
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(out[1], STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	c->to = in[1];
	c->from = out[0];
	fcntl(c->from, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Where the console server's log stands now: this boot starts there. */
static void
console_mark(struct console *c, const char *file)
{
	struct stat st;

	c->src = xstrdup(file);
	c->off = stat(file, &st) == 0 ? st.st_size : 0;
}

struct console *
console_start(const struct machine *m, const struct machine_console *mc,
    char **cause)
{
	struct console *c = xcalloc(1, sizeof *c);

	c->name = xstrdup(m->name);
	c->pid = -1;
	c->from = c->to = c->out = c->stop[0] = c->stop[1] = -1;
	if ((c->path = console_file_new(mc->dir, m->name, cause)) == NULL)
		goto fail;
	if ((c->out = open(c->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		 0644)) == -1) {
		*cause = xasprintf("machine \"%s\": console \"%s\": %s",
		    m->name, c->path, strerror(errno));
		goto fail;
	}
	if (mc->file != NULL)
		console_mark(c, mc->file);
	else if (console_spawn(c, mc->command, cause) == -1)
		goto fail;
	if (pipe2(c->stop, O_CLOEXEC) == -1 ||
	    pthread_create(&c->thread, NULL, console_main, c) != 0) {
		*cause = xasprintf("machine \"%s\": console: cannot follow it",
		    m->name);
		goto fail;
	}
	c->running = true;
	return c;
fail:
	console_stop(c);
	return NULL;
}

const char *
console_path(const struct console *c)
{
	return c->path;
}

int
console_write(struct console *c, const void *buf, size_t len, char **cause)
{
	ssize_t n;

	if (c->to == -1) {
		*cause = xasprintf("machine \"%s\": its console is a file, "
				   "which cannot be written to",
		    c->name);
		return -1;
	}
	for (; len > 0; buf = (const char *)buf + n, len -= (size_t)n) {
		if ((n = write(c->to, buf, len)) < 0 && errno != EINTR) {
			*cause = xasprintf("machine \"%s\": console: %s",
			    c->name, strerror(errno));
			return -1;
		}
		if (n < 0)
			n = 0;
	}
	return 0;
}

/* Closes fd if it is open. */
static void
console_close_fd(int fd)
{
	if (fd != -1)
		close(fd);
}

void
console_stop(struct console *c)
{
	if (c == NULL)
		return;
	if (c->running) {
		if (write(c->stop[1], "x", 1) != 1)
			log_debug(c->name, "console: cannot stop its follower");
		pthread_join(c->thread, NULL);
	}
	if (c->pid > 0) {
		kill(-c->pid, SIGTERM);
		while (waitpid(c->pid, NULL, 0) == -1 && errno == EINTR)
			;
	}
	console_close_fd(c->out);
	console_close_fd(c->from);
	console_close_fd(c->to);
	console_close_fd(c->stop[0]);
	console_close_fd(c->stop[1]);
	free(c->src);
	free(c->path);
	free(c->name);
	free(c);
}
