/* Running build tools with their output read line by line. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/spawn.h"
#include "common/xmalloc.h"

/* Output collected so far and the line not yet complete. */
struct spawn_buf {
	char  *data;
	size_t len;
	size_t size;
	size_t line; /* where the current line starts */
};

extern char **environ;

/* Returns whether the "K=V" entry e sets the same variable as any in env. */
static int
spawn_env_has(char *const *env, const char *e)
{
	size_t n = strcspn(e, "=");

	for (; env != NULL && *env != NULL; env++)
		if (strncmp(*env, e, n + 1) == 0)
			return 1;
	return 0;
}

/* Builds the child's environment: ours, overridden by s->env and LC_ALL. */
static char **
spawn_environ(const struct spawn *s)
{
	static char lc_all[] = "LC_ALL=C";
	size_t	    n = 0, i, j = 0;
	char	  **env;

	while (environ[n] != NULL)
		n++;
	for (i = 0; s->env != NULL && s->env[i] != NULL; i++)
		n++;
	env = xcalloc(n + 2, sizeof *env);
	for (i = 0; s->env != NULL && s->env[i] != NULL; i++)
		env[j++] = s->env[i];
	env[j++] = lc_all;
	for (i = 0; environ[i] != NULL; i++)
		if (!spawn_env_has(env, environ[i]))
			env[j++] = environ[i];
	return env;
}

/* Writes a message to fd from the child, where stdio is not safe. */
static void
spawn_child_error(int fd, const char *what, const char *name)
{
	if (write(fd, what, strlen(what)) < 0 ||
	    write(fd, name, strlen(name)) < 0 || write(fd, "\n", 1) < 0)
		_exit(127);
}

/* Sets up the child's descriptors and directory, then execs. */
static void
spawn_child(const struct spawn *s, int out, char **env)
{
	int null;

	null = open(s->input ? s->input : "/dev/null", O_RDONLY);
	if (null != -1)
		dup2(null, STDIN_FILENO);
	dup2(out, STDOUT_FILENO);
	dup2(out, STDERR_FILENO);
	if (null == -1 && s->input != NULL) {
		spawn_child_error(out, "cannot read ", s->input);
		_exit(127);
	}
	if (s->dir != NULL && chdir(s->dir) == -1) {
		spawn_child_error(out, "cannot enter ", s->dir);
		_exit(127);
	}
	execvpe(s->argv[0], s->argv, env);
	spawn_child_error(out, "cannot execute ", s->argv[0]);
	_exit(127);
}

/* Writes one line to the log descriptor; a failing log is not fatal. */
static void
spawn_log(int fd, const char *p, size_t n)
{
	if (fd < 0)
		return;
	if (write(fd, p, n) < 0 || write(fd, "\n", 1) < 0)
		return;
}

/* Hands every complete line in the buffer to the callback and the log. */
static void
spawn_lines(const struct spawn *s, struct spawn_buf *b, int final)
{
	char *nl;

	for (;;) {
		nl = memchr(b->data + b->line, '\n', b->len - b->line);
		if (nl == NULL && (!final || b->line == b->len))
			break;
		if (nl == NULL)
			nl = b->data + b->len;
		spawn_log(s->log_fd, b->data + b->line,
		    (size_t)(nl - (b->data + b->line)));
		*nl = '\0';
		if (s->cb != NULL)
			s->cb(b->data + b->line, s->arg);
		*nl = '\n';
		b->line = (size_t)(nl - b->data) + (nl < b->data + b->len);
		if (b->line >= b->len)
			break;
	}
}

/* Reads the child's output until it closes the pipe. */
static void
spawn_read(const struct spawn *s, int fd, struct spawn_buf *b)
{
	ssize_t n;

	for (;;) {
		if (b->size - b->len < 8192) {
			b->size = b->size * 2 + 8192;
			b->data = xreallocarray(b->data, b->size, 1);
		}
		n = read(fd, b->data + b->len, b->size - b->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		b->len += (size_t)n;
		spawn_lines(s, b, 0);
		if (s->output == NULL && b->line > 65536) {
			memmove(b->data, b->data + b->line, b->len - b->line);
			b->len -= b->line;
			b->line = 0;
		}
	}
	spawn_lines(s, b, 1);
	b->data[b->len] = '\0';
}

/* Waits for the child; returns its status as a shell would report it. */
static int
spawn_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return 127;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Runs the command and waits for it; see spawn.h. */
int
spawn_run(const struct spawn *s, char **cause)
{
	struct spawn_buf b = { 0 };
	char	       **env = spawn_environ(s);
	int		 fds[2], rc = -1;
	pid_t		 pid;

	if (pipe2(fds, O_CLOEXEC) == -1) {
		*cause = xasprintf("pipe: %s", strerror(errno));
		goto out;
	}
	if ((pid = fork()) == -1) {
		*cause =
		    xasprintf("fork \"%s\": %s", s->argv[0], strerror(errno));
		close(fds[0]);
		close(fds[1]);
		goto out;
	}
	if (pid == 0)
		spawn_child(s, fds[1], env);
	close(fds[1]);
	spawn_read(s, fds[0], &b);
	close(fds[0]);
	rc = spawn_wait(pid);
	if (s->output != NULL) {
		*s->output = b.data;
		b.data = NULL;
	}
out:
	free(env);
	free(b.data);
	return rc;
}

/* Runs argv in dir and returns its first output line; see spawn.h. */
char *
spawn_line(const char *dir, char *const argv[], char **cause)
{
	struct spawn s = { .dir = dir, .argv = argv, .log_fd = -1 };
	char	    *out = NULL, *line = NULL;
	int	     rc;

	s.output = &out;
	if ((rc = spawn_run(&s, cause)) == -1)
		goto out;
	if (rc != 0) {
		*cause = xasprintf("%s: exited with %d: %.*s", argv[0], rc,
		    (int)strcspn(out, "\n"), out);
		goto out;
	}
	line = xstrndup(out, strcspn(out, "\n"));
out:
	free(out);
	return line;
}
