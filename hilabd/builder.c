/*
 * Where a job's kernels are built: the builder thread and its child
 * process.  The child speaks one line at a time on its stdout:
 *	progress TEXT		a build step ("patch 1: built ... in 20.1 s")
 *	built JSON		the results (job_built_to_json), then it exits 0
 *	error JSON-STRING	why nothing more was built, then it exits 1
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/builder.h"
#include "hilabd/daemon.h"
#include "jobs/job.h"
#include "jobs/job_build.h"

/* A job whose kernels were asked for. */
struct builder_job {
	int64_t		   id;
	char		  *spec;
	enum builder_state state;
	bool		   started;
	struct job_built  *built;
	size_t		   nbuilt;
	char		  *error;
};

struct builder {
	struct daemon	   *d;
	pthread_t	    thread;
	pthread_mutex_t	    lock;
	pthread_cond_t	    cond;
	struct builder_job *jobs;
	size_t		    njobs;
	bool		    stopping;
	int64_t		    current; /* job being built, or 0 */
	pid_t		    child;   /* its process group, or 0 */
	struct db	   *db;	     /* the thread's own connection */
};

extern char **environ;

/* Frees a job entry's contents. */
static void
builder_job_clear(struct builder_job *j)
{
	free(j->spec);
	job_built_free(j->built, j->nbuilt);
	free(j->error);
}

/* Returns the entry of a job, or NULL (lock held). */
static struct builder_job *
builder_find(struct builder *b, int64_t id)
{
	size_t i;

	for (i = 0; i < b->njobs; i++)
		if (b->jobs[i].id == id)
			return &b->jobs[i];
	return NULL;
}

/* Removes the entry of a job (lock held). */
static void
builder_remove(struct builder *b, int64_t id)
{
	struct builder_job *j = builder_find(b, id);
	size_t		    at;

	if (j == NULL)
		return;
	at = (size_t)(j - b->jobs);
	builder_job_clear(j);
	memmove(j, j + 1, (b->njobs - at - 1) * sizeof *j);
	b->njobs--;
}

/* Records a line of the build as an event of the job and in the log. */
static void
builder_event(struct builder *b, int64_t job, enum db_level level,
    const char *text)
{
	char *cause = NULL;

	if (level >= DB_WARN)
		log_warn("build", "job %lld: %s", (long long)job, text);
	else
		log_info("build", "job %lld: %s", (long long)job, text);
	if (db_event_add(b->db, job, 0, NULL, level, &cause,
		"kernel build: "
		"%s",
		text) == -1) {
		log_warn("build", "job %lld: %s", (long long)job, cause);
		free(cause);
	}
}

/* Starts the child with the spec on its stdin; returns its pid or -1. */
static pid_t
builder_spawn(const char *spec, int *out, char **cause)
{
	char *argv[] = { (char *)"hilabd", (char *)"--build-kernels", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t	   attr;
	sigset_t		   def;
	int			   in[2], o[2], err;
	pid_t			   pid = -1;

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(o, O_CLOEXEC) == -1) {
		*cause = xasprintf("pipe: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, o[1], STDOUT_FILENO);
	posix_spawnattr_init(&attr);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	posix_spawnattr_setsigdefault(&attr, &def);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr,
	    POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
	if ((err = posix_spawn(&pid, "/proc/self/exe", &fa, &attr, argv,
		 environ)) != 0) {
		*cause = xasprintf("cannot start the kernel build: %s",
		    strerror(err));
		pid = -1;
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(in[0]);
	close(o[1]);
	if (pid != -1 && write(in[1], spec, strlen(spec)) < 0)
		log_warn("build", "writing the job to the build: %s",
		    strerror(errno));
	close(in[1]);
	*out = o[0];
	if (pid == -1)
		close(o[0]);
	return pid;
}

/* Handles one line of the child; fills j's results or error. */
static void
builder_line(struct builder *b, struct builder_job *j, char *line)
{
	json_t *v;
	char   *cause = NULL;

	line[strcspn(line, "\n")] = '\0';
	if (strncmp(line, "progress ", 9) == 0) {
		builder_event(b, j->id, DB_INFO, line + 9);
		return;
	}
	v = json_loads(strchr(line, ' ') ? strchr(line, ' ') + 1 : "",
	    JSON_DECODE_ANY, NULL);
	if (strncmp(line, "built ", 6) == 0 && v != NULL &&
	    job_built_from_json(v, &j->built, &j->nbuilt, &cause) == 0)
		j->state = BUILDER_READY;
	else if (strncmp(line, "error ", 6) == 0 && json_is_string(v))
		j->error = xstrdup(json_string_value(v));
	else if (j->error == NULL)
		j->error = cause != NULL
		    ? xstrdup(cause)
		    : xasprintf("kernel build: unexpected output \"%.80s\"",
			  line);
	free(cause);
	json_decref(v);
}

/* Waits for the child; names how it ended when it left no answer. */
static void
builder_reap(struct builder_job *j, pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (j->state == BUILDER_READY || j->error != NULL)
		return;
	if (WIFSIGNALED(status))
		j->error = xasprintf("stopped by signal %d", WTERMSIG(status));
	else
		j->error = xasprintf("the build process exited %d without a "
				     "result",
		    WEXITSTATUS(status));
}

/* Builds one job's kernels in a child process (lock not held). */
static void
builder_run(struct builder *b, struct builder_job *j, const char *spec)
{
	char  *line = NULL;
	size_t size = 0;
	FILE  *f;
	pid_t  pid;
	int    fd;

	if ((pid = builder_spawn(spec, &fd, &j->error)) == -1)
		return;
	pthread_mutex_lock(&b->lock);
	b->child = pid;
	if (b->stopping || builder_find(b, j->id) == NULL)
		kill(-pid, SIGTERM); /* stopped or forgotten meanwhile */
	pthread_mutex_unlock(&b->lock);
	if ((f = fdopen(fd, "r")) == NULL)
		close(fd);
	while (f != NULL && getline(&line, &size, f) != -1)
		builder_line(b, j, line);
	if (f != NULL)
		fclose(f);
	free(line);
	builder_reap(j, pid);
	pthread_mutex_lock(&b->lock);
	b->child = 0;
	pthread_mutex_unlock(&b->lock);
}

/* Returns the next job to build, or NULL when stopping (lock held). */
static struct builder_job *
builder_next(struct builder *b)
{
	size_t i;

	for (;;) {
		if (b->stopping)
			return NULL;
		for (i = 0; i < b->njobs; i++)
			if (!b->jobs[i].started)
				return &b->jobs[i];
		pthread_cond_wait(&b->cond, &b->lock);
	}
}

/* Builds one job and publishes what came of it. */
static void
builder_one(struct builder *b, struct builder_job *next)
{
	struct builder_job  out = { .id = next->id, .state = BUILDER_BUSY };
	struct builder_job *j;
	char		   *spec = xstrdup(next->spec);

	next->started = true;
	b->current = next->id;
	pthread_mutex_unlock(&b->lock);
	builder_run(b, &out, spec);
	free(spec);
	pthread_mutex_lock(&b->lock);
	b->current = 0;
	if (out.state != BUILDER_READY)
		out.state = BUILDER_FAILED;
	if ((j = builder_find(b, out.id)) != NULL) {
		if (out.state == BUILDER_FAILED)
			builder_event(b, out.id, DB_ERROR, out.error);
		j->state = out.state;
		j->built = out.built;
		j->nbuilt = out.nbuilt;
		j->error = out.error;
	} else
		builder_job_clear(&out);
}

/* The builder thread. */
static void *
builder_main(void *arg)
{
	struct builder	   *b = arg;
	struct builder_job *next;

	pthread_mutex_lock(&b->lock);
	while ((next = builder_next(b)) != NULL) {
		builder_one(b, next);
		pthread_mutex_unlock(&b->lock);
		daemon_wake(b->d);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

struct builder *
builder_start(struct daemon *d, char **cause)
{
	struct builder *b = xcalloc(1, sizeof *b);

	b->d = d;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cond, NULL);
	if ((b->db = db_open(d->db_path, cause)) == NULL) {
		free(b);
		return NULL;
	}
	if (pthread_create(&b->thread, NULL, builder_main, b) != 0) {
		*cause = xstrdup("cannot start the builder thread");
		db_close(b->db);
		free(b);
		return NULL;
	}
	return b;
}

void
builder_stop(struct builder *b)
{
	size_t i;

	pthread_mutex_lock(&b->lock);
	b->stopping = true;
	if (b->child > 0)
		kill(-b->child, SIGTERM);
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	for (i = 0; i < b->njobs; i++)
		builder_job_clear(&b->jobs[i]);
	free(b->jobs);
	db_close(b->db);
	pthread_mutex_destroy(&b->lock);
	pthread_cond_destroy(&b->cond);
	free(b);
}

enum builder_state
builder_poll(struct builder *b, int64_t job, const char *spec,
    struct job_built **built, size_t *n, char **cause)
{
	struct builder_job *j;
	enum builder_state  st;

	pthread_mutex_lock(&b->lock);
	if ((j = builder_find(b, job)) == NULL) {
		b->jobs = xreallocarray(b->jobs, b->njobs + 1, sizeof *b->jobs);
		j = &b->jobs[b->njobs++];
		memset(j, 0, sizeof *j);
		j->id = job;
		j->spec = xstrdup(spec);
		j->state = BUILDER_BUSY;
		pthread_cond_broadcast(&b->cond);
	}
	if ((st = j->state) == BUILDER_READY) {
		*built = j->built;
		*n = j->nbuilt;
		j->built = NULL;
		j->nbuilt = 0;
	} else if (st == BUILDER_FAILED)
		*cause = xstrdup(j->error);
	if (st != BUILDER_BUSY)
		builder_remove(b, job);
	pthread_mutex_unlock(&b->lock);
	return st;
}

void
builder_forget(struct builder *b, int64_t job)
{
	pthread_mutex_lock(&b->lock);
	if (b->current == job && b->child > 0)
		kill(-b->child, SIGTERM);
	builder_remove(b, job);
	pthread_mutex_unlock(&b->lock);
}

/* Prints a progress line of the build for the parent. */
static void
builder_child_progress(const char *line, void *arg)
{
	(void)arg;
	printf("progress %s\n", line);
	fflush(stdout);
}

/* Reads all of stdin; NULL on error. */
static char *
builder_child_read(void)
{
	char   *buf = NULL;
	size_t	len = 0, size = 0;
	ssize_t r;

	for (;;) {
		if (size - len < 4096)
			buf = xreallocarray(buf, size = size * 2 + 4096, 1);
		if ((r = read(STDIN_FILENO, buf + len, size - len - 1)) < 0 &&
		    errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	return buf;
}

/* Prints the error line for the parent and returns the exit code. */
static int
builder_child_fail(const char *cause)
{
	json_t *s = json_string(cause);
	char   *text = json_dumps(s, JSON_ENCODE_ANY);

	printf("error %s\n", text);
	free(text);
	json_decref(s);
	return 1;
}

int
builder_child_main(void)
{
	struct job_build_opts opts = { .cb = builder_child_progress };
	struct job_built     *built = NULL;
	struct job	     *job;
	char		     *spec = builder_child_read(), *cause = NULL, *text;
	json_t		     *arr;
	size_t		      n = 0;
	int		      rc;

	if ((job = job_from_json(spec, &cause)) == NULL ||
	    job_build_kernels(job, &opts, &built, &n, &cause) == -1) {
		rc = builder_child_fail(cause);
		goto out;
	}
	arr = job_built_to_json(built, n);
	text = json_dumps(arr, JSON_COMPACT);
	printf("built %s\n", text);
	free(text);
	json_decref(arr);
	rc = 0;
out:
	fflush(stdout);
	free(cause);
	free(spec);
	job_built_free(built, n);
	job_free(job);
	return rc;
}
