/* The agent's spool: one directory per run holding its lock, results, state. */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/log.h"
#include "common/xmalloc.h"

/* Below this much free space, a failed run is put down to a full disk. */
#define SPOOL_LOW_KIB 256

static const char *spool_states[] = {
	[PROTO_RUN_RUNNING] = "RUNNING",
	[PROTO_RUN_DONE_OK] = "DONE_OK",
	[PROTO_RUN_FAILED] = "FAILED",
	[PROTO_RUN_UNKNOWN] = "UNKNOWN",
	[PROTO_RUN_CANCELLED] = "CANCELLED",
};

/* The name of a run state, as the state file spells it. */
const char *
spool_state_name(int state)
{
	if (state < PROTO_RUN_RUNNING || state > PROTO_RUN_CANCELLED)
		return "INVALID";
	return spool_states[state];
}

/* The run's directory; the caller frees it. */
char *
spool_run_dir(const char *dir, const char *run_id)
{
	return xasprintf("%s/spool/%s", dir, run_id);
}

/* A file in the run's directory; the caller frees it. */
char *
spool_path(const char *dir, const char *run_id, const char *file)
{
	return xasprintf("%s/spool/%s/%s", dir, run_id, file);
}

/* Creates a directory unless it exists. */
static int
spool_mkdir(const char *path, char **cause)
{
	if (mkdir(path, 0755) == -1 && errno != EEXIST) {
		*cause = xasprintf("mkdir \"%s\": %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Creates the run's directory and returns its lock file, locked. */
int
spool_create(const char *dir, const char *run_id, int *lockfd, char **cause)
{
	char *spool = xasprintf("%s/spool", dir);
	char *rundir = spool_run_dir(dir, run_id);
	char *lock = spool_path(dir, run_id, "lock");
	int   rc = -1;

	*lockfd = -1;
	if (spool_mkdir(dir, cause) == -1 || spool_mkdir(spool, cause) == -1)
		goto out;
	if (mkdir(rundir, 0755) == -1) {
		*cause = errno == EEXIST
		    ? xasprintf("run \"%s\": already exists", run_id)
		    : xasprintf("mkdir \"%s\": %s", rundir, strerror(errno));
		goto out;
	}
	*lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (*lockfd == -1 || flock(*lockfd, LOCK_EX) == -1) {
		*cause = xasprintf("lock \"%s\": %s", lock, strerror(errno));
		if (*lockfd != -1)
			close(*lockfd);
		*lockfd = -1;
		unlink(lock);
		rmdir(rundir);
		goto out;
	}
	rc = 0;
out:
	free(spool);
	free(rundir);
	free(lock);
	return rc;
}

/* True if the run has a spool directory. */
int
spool_exists(const char *dir, const char *run_id)
{
	char	   *rundir = spool_run_dir(dir, run_id);
	struct stat st;
	int	    rc;

	rc = stat(rundir, &st) == 0 && S_ISDIR(st.st_mode);
	free(rundir);
	return rc;
}

/* Reads the state file; -1 if there is none (or it is not valid). */
static int
spool_read_state(const char *dir, const char *run_id, int *state,
    uint64_t *count)
{
	char		  *path = spool_path(dir, run_id, "state");
	char		   name[16];
	unsigned long long n;
	FILE		  *f;
	int		   rc = -1, i;

	if ((f = fopen(path, "re")) == NULL)
		goto out;
	if (fscanf(f, "%15s %llu", name, &n) != 2)
		goto out;
	for (i = PROTO_RUN_RUNNING; i <= PROTO_RUN_CANCELLED; i++) {
		if (strcmp(name, spool_states[i]) == 0) {
			*state = i;
			*count = n;
			rc = 0;
		}
	}
out:
	if (f != NULL)
		fclose(f);
	free(path);
	return rc;
}

/* True if the run's runner still holds its lock. */
static int
spool_locked(const char *dir, const char *run_id)
{
	char *path = spool_path(dir, run_id, "lock");
	int   fd, rc = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		goto out;
	if (flock(fd, LOCK_SH | LOCK_NB) == -1 && errno == EWOULDBLOCK)
		rc = 1;
	close(fd);
out:
	free(path);
	return rc;
}

/*
 * The run's state and result count: UNKNOWN without a spool, the state
 * file's once the runner ended, RUNNING while it holds the lock, FAILED if
 * the lock is free but the runner left no state (it died).
 */
int
spool_state(const char *dir, const char *run_id, int *state, uint64_t *count)
{
	*state = PROTO_RUN_UNKNOWN;
	*count = 0;
	if (!spool_exists(dir, run_id))
		return 0;
	if (spool_read_state(dir, run_id, state, count) == 0)
		return 0;
	if (spool_locked(dir, run_id))
		*state = PROTO_RUN_RUNNING;
	else if (spool_read_state(dir, run_id, state, count) == 0)
		return 0; /* it ended between the two looks */
	else
		*state = PROTO_RUN_FAILED;
	return spool_results(dir, run_id, NULL, NULL, count);
}

/* The last non-empty line of the run's log (the runner's warnings). */
static char *
spool_log_tail(const char *dir, const char *run_id)
{
	char *path = spool_path(dir, run_id, "log");
	char  line[512], *last = NULL;
	FILE *f;

	if ((f = fopen(path, "re")) != NULL) {
		while (fgets(line, sizeof line, f) != NULL) {
			line[strcspn(line, "\n")] = '\0';
			if (line[0] != '\0') {
				free(last);
				last = xstrdup(line);
			}
		}
		fclose(f);
	}
	free(path);
	return last;
}

char *
spool_failure(const char *dir, const char *run_id)
{
	struct statvfs	   vfs;
	char		  *tail = spool_log_tail(dir, run_id), *why;
	unsigned long long kib;

	if (statvfs(dir, &vfs) == 0 &&
	    (kib = (unsigned long long)vfs.f_bavail * vfs.f_frsize / 1024) <
		SPOOL_LOW_KIB) {
		why = xasprintf("the agent's directory \"%s\" is on a full "
				"filesystem (%llu KiB free)%s%s",
		    dir, kib, tail ? ": " : "", tail ? tail : "");
		free(tail);
		return why;
	}
	return tail;
}

/* Flushes a directory so a rename in it is durable. */
static void
spool_sync_dir(const char *path)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	fsync(fd);
	close(fd);
}

/* Writes the state file atomically: temporary file, fsync, rename. */
int
spool_write_state(const char *dir, const char *run_id, int state,
    uint64_t count)
{
	char *tmp = spool_path(dir, run_id, "state.tmp");
	char *path = spool_path(dir, run_id, "state");
	char *rundir = spool_run_dir(dir, run_id);
	int   fd, rc = -1;

	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd == -1)
		goto out;
	if (dprintf(fd, "%s %llu\n", spool_state_name(state),
		(unsigned long long)count) < 0 ||
	    fsync(fd) == -1) {
		close(fd);
		goto out;
	}
	if (close(fd) == -1 || rename(tmp, path) == -1)
		goto out;
	spool_sync_dir(rundir);
	rc = 0;
out:
	if (rc == -1)
		log_warn("spool", "state \"%s\": %s", path, strerror(errno));
	free(tmp);
	free(path);
	free(rundir);
	return rc;
}

/* Records the runner's pid, for CANCEL from a later session. */
void
spool_write_pid(const char *dir, const char *run_id, pid_t pid)
{
	char *path = spool_path(dir, run_id, "pid");
	FILE *f;

	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "%ld\n", (long)pid);
		fclose(f);
	}
	free(path);
}

/* The runner's pid, or -1 if it is not recorded. */
pid_t
spool_read_pid(const char *dir, const char *run_id)
{
	char *path = spool_path(dir, run_id, "pid");
	FILE *f;
	long  pid = -1;

	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%ld", &pid) != 1 || pid <= 1)
			pid = -1;
		fclose(f);
	}
	free(path);
	return (pid_t)pid;
}

/* Appends a frame to the results file and makes it durable. */
int
spool_append(int fd, const struct proto_buf *b)
{
	if (proto_write_frame(fd, b) == -1)
		return -1;
	return fsync(fd);
}

/* Decodes one spooled record; -1 if it is not a valid RESULT. */
static int
spool_decode(const unsigned char *p, size_t len, struct proto_msg *m,
    const char *path)
{
	char err[256];

	if (proto_decode(p, len, m, err, sizeof err) == -1) {
		log_warn("spool", "\"%s\": %s", path, err);
		return -1;
	}
	if (m->type != PROTO_RESULT) {
		log_warn("spool", "\"%s\": %s record", path,
		    proto_type_name(m->type));
		proto_msg_clear(m);
		return -1;
	}
	return 0;
}

/*
 * Walks the run's spooled RESULT records in order, calling cb (if not NULL)
 * for each; *count gets the number of valid records.  A torn last record
 * (the runner killed mid-write) ends the walk quietly.
 */
int
spool_results(const char *dir, const char *run_id, spool_result_cb cb,
    void *arg, uint64_t *count)
{
	char		*path = spool_path(dir, run_id, "results");
	unsigned char	*p = NULL;
	struct proto_msg m;
	char		 err[256];
	size_t		 len;
	int		 fd, rc = 0;

	*count = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		goto out;
	while (proto_read_frame(fd, &p, &len, err, sizeof err) == 0) {
		if (spool_decode(p, len, &m, path) == -1)
			break;
		(*count)++;
		if (cb != NULL)
			rc = cb(p, len, &m, arg);
		proto_msg_clear(&m);
		free(p);
		p = NULL;
		if (rc != 0)
			break;
	}
	close(fd);
out:
	free(p);
	free(path);
	return rc;
}

/* Blocks until the run's runner releases its lock. */
int
spool_wait(const char *dir, const char *run_id)
{
	char *path = spool_path(dir, run_id, "lock");
	int   fd, rc = -1;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		goto out;
	while ((rc = flock(fd, LOCK_SH)) == -1 && errno == EINTR)
		;
	close(fd);
out:
	free(path);
	return rc;
}

/* Deletes a finished run's spool directory; a missing one is fine. */
int
spool_remove(const char *dir, const char *run_id, char **cause)
{
	char	      *rundir = spool_run_dir(dir, run_id), *path;
	struct dirent *de;
	DIR	      *d;
	int	       rc = -1;

	if (spool_locked(dir, run_id)) {
		*cause = xasprintf("run \"%s\": still running", run_id);
		goto out;
	}
	if ((d = opendir(rundir)) == NULL) {
		rc = errno == ENOENT ? 0 : -1;
		if (rc == -1)
			*cause =
			    xasprintf("\"%s\": %s", rundir, strerror(errno));
		goto out;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		path = spool_path(dir, run_id, de->d_name);
		unlink(path);
		free(path);
	}
	closedir(d);
	if ((rc = rmdir(rundir)) == -1)
		*cause = xasprintf("rmdir \"%s\": %s", rundir, strerror(errno));
out:
	free(rundir);
	return rc;
}

/* Orders run ids for spool_list. */
static int
spool_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The run ids in the spool, sorted; the caller frees each and the array. */
char **
spool_list(const char *dir, size_t *n)
{
	char	      *spool = xasprintf("%s/spool", dir);
	char	     **ids = NULL;
	struct dirent *de;
	DIR	      *d;

	*n = 0;
	if ((d = opendir(spool)) == NULL)
		goto out;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    !spool_exists(dir, de->d_name))
			continue;
		ids = xreallocarray(ids, *n + 1, sizeof *ids);
		ids[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(ids, *n, sizeof *ids, spool_cmp);
out:
	free(spool);
	return ids;
}
