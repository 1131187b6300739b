/*
 * A guardian: a process of its own session (a kill of its parent's
 * process group or session spares it) that outlives a SIGKILL of the
 * process that started it and puts the host back.  It waits on a pipe; if
 * the pipe closes without a "done", it runs the cleanup.  It keeps the fds
 * its parent had, so a lock the parent holds stays held until it is gone
 * too.
 */
#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/log.h"
#include "common/xmalloc.h"

/* The guardian: waits for "done" on fd, else cleans up after its parent. */
static void __attribute__((noreturn))
guard_main(const struct guard *g, pid_t parent, int fd)
{
	char	c = 0, *why = NULL;
	ssize_t n;
	int	null;

	setsid();
	prctl(PR_SET_NAME, GUARD_NAME, 0, 0, 0);
	if ((null = open("/dev/null", O_RDWR)) != -1) {
		dup2(null, 0);
		dup2(null, 1);
		close(null);
	}
	while ((n = read(fd, &c, 1)) == -1 && errno == EINTR)
		;
	if (n == 1 && c == 'D')
		_exit(0);
	if (g->cleanup(g->arg, &why) == -1) {
		fprintf(stderr, "hilab-agent: %s: pid %ld died; cleanup: %s\n",
		    g->what, (long)parent, why);
		_exit(1);
	}
	fprintf(stderr, "hilab-agent: %s: pid %ld died; cleaned up\n", g->what,
	    (long)parent);
	_exit(0);
}

/* Starts the guardian of g; see agent.h. */
int
guard_start(struct guard *g, char **cause)
{
	pid_t parent = getpid(), pid;
	int   fds[2];

	g->fd = -1;
	if (pipe2(fds, O_CLOEXEC) == -1) {
		*cause = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) == 0) {
		close(fds[1]);
		guard_main(g, parent, fds[0]);
	}
	close(fds[0]);
	if (pid == -1) {
		close(fds[1]);
		*cause = xasprintf("fork: %s", strerror(errno));
		return -1;
	}
	g->fd = fds[1];
	return 0;
}

/*
 * Lets the guardian go: with cleaned, all is back as it was and it exits
 * without cleaning; without, it cleans up once more.
 */
void
guard_end(struct guard *g, int cleaned)
{
	if (g->fd == -1)
		return;
	if (cleaned && write(g->fd, "D", 1) == -1)
		log_debug("guard", "%s: %s", g->what, strerror(errno));
	close(g->fd);
	g->fd = -1;
}
