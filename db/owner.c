/*
 * The database's one controller: an exclusive flock on "<database>.lock",
 * which holds who took it (program, pid, host, since when).  The kernel
 * drops the lock when its holder exits, however it ends, so a killed
 * hilabd never leaves a stale one; a second hilabd on the same database
 * is refused before it opens it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "db/db_int.h"

/* What the lock file says of its holder, on one line. */
static char *
owner_line(const char *who)
{
	char	  host[256] = "?", when[32] = "?";
	time_t	  now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof host - 1);
	if (gmtime_r(&now, &tm) != NULL)
		strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	return xasprintf("%s pid %ld on host %s since %s\n", who,
	    (long)getpid(), host, when);
}

/* The holder's line as the lock file has it (no newline), or "unknown". */
static char *
owner_read(int fd)
{
	char	buf[512];
	ssize_t n;

	n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return xstrdup("an unknown process");
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

/* Writes line as the whole content of the lock file. */
static int
owner_write(int fd, const char *line)
{
	size_t len = strlen(line);

	if (ftruncate(fd, 0) == -1 || pwrite(fd, line, len, 0) != (ssize_t)len)
		return -1;
	return 0;
}

int
db_owner_lock(const char *db_path, const char *who, char **cause)
{
	char *path, *holder, *line;
	int   fd;

	if (db_mkdir_parents(db_path, cause) == -1)
		return -1;
	path = xasprintf("%s.lock", db_path);
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, DB_FILE_MODE)) ==
	    -1) {
		*cause = xasprintf("database \"%s\": lock file \"%s\": %s",
		    db_path, path, strerror(errno));
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		holder = owner_read(fd);
		*cause = xasprintf("database \"%s\" is in use by %s (lock "
				   "file \"%s\"); one hilabd per database: "
				   "stop that one first",
		    db_path, holder, path);
		free(holder);
		goto fail;
	}
	line = owner_line(who);
	if (owner_write(fd, line) == -1) {
		*cause = xasprintf("database \"%s\": lock file \"%s\": %s",
		    db_path, path, strerror(errno));
		free(line);
		goto fail;
	}
	free(line);
	free(path);
	return fd;
fail:
	close(fd);
	free(path);
	return -1;
}
