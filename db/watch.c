/*
 * Waiting for the database to change: an inotify watch on its directory
 * that wakes on any write to the database, its WAL or its journal, so a
 * reader sees a commit within milliseconds instead of at its next poll.
 */
#include <sys/inotify.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/xmalloc.h"
#include "db/db.h"

struct db_watch {
	int   fd;
	char *base; /* the database's file name */
};

struct db_watch *
db_watch_open(const char *path, char **cause)
{
	struct db_watch *w;
	const char	*slash = strrchr(path, '/');
	char		*dir;

	w = xcalloc(1, sizeof *w);
	w->base = xstrdup(slash != NULL ? slash + 1 : path);
	dir = slash == NULL ? xstrdup(".")
	    : slash == path ? xstrdup("/")
			    : xstrndup(path, (size_t)(slash - path));
	if ((w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1 ||
	    inotify_add_watch(w->fd, dir,
		IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_MOVED_TO) == -1) {
		*cause = xasprintf("watch \"%s\": %s", dir, strerror(errno));
		free(dir);
		db_watch_close(w);
		return NULL;
	}
	free(dir);
	return w;
}

/* Whether an event names the database or one of its -wal, -journal. */
static bool
watch_ours(const struct db_watch *w, const struct inotify_event *ev)
{
	size_t n = strlen(w->base);

	return ev->len > 0 && strncmp(ev->name, w->base, n) == 0 &&
	    (ev->name[n] == '\0' || ev->name[n] == '-');
}

/* Reads the queued events; returns whether one was ours. */
static bool
watch_drain(struct db_watch *w)
{
	char			    buf[4096] __attribute__((aligned(8)));
	const struct inotify_event *ev;
	ssize_t			    n, off;
	bool			    ours = false;

	while ((n = read(w->fd, buf, sizeof buf)) > 0)
		for (off = 0; off < n; off += (ssize_t)(sizeof *ev + ev->len)) {
			ev = (const struct inotify_event *)(buf + off);
			ours |= watch_ours(w, ev);
		}
	return ours;
}

bool
db_watch_wait(struct db_watch *w, int ms)
{
	struct pollfd pfd = { .fd = w->fd, .events = POLLIN };
	int64_t	      end = clock_now_ms() + ms, left = ms;

	while (left > 0 && poll(&pfd, 1, (int)left) > 0) {
		if (watch_drain(w))
			return true;
		left = end - clock_now_ms();
	}
	return false;
}

void
db_watch_close(struct db_watch *w)
{
	if (w == NULL)
		return;
	if (w->fd != -1)
		close(w->fd);
	free(w->base);
	free(w);
}
