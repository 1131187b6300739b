/*
 * hilabd's kernel builder: a job naming kernels built from git + a series is
 * planned only once they are built.  One thread builds one job at a time in
 * a child process ("hilabd --build-kernels", a process group of its own), so
 * a stopping hilabd or a cancelled job ends the build at once and a crashing
 * build cannot take the daemon with it.  Build progress becomes events of
 * the job ("hilab logs").
 */
#ifndef HILAB_BUILDER_H
#define HILAB_BUILDER_H

#include <stddef.h>
#include <stdint.h>

struct daemon;
struct job_built;

enum builder_state {
	BUILDER_BUSY,	/* queued or building */
	BUILDER_READY,	/* built: the results are returned */
	BUILDER_FAILED, /* not built: the cause is returned */
};

struct builder;

/* Starts the builder thread; NULL with *cause. */
struct builder *builder_start(struct daemon *, char **cause);
/* Ends a build under way and joins the thread. */
void builder_stop(struct builder *);
/*
 * Returns where the builds of a job stand, asking for them on the first
 * call (spec: the job's JSON).  READY fills *built (caller frees with
 * job_built_free) and *n; FAILED fills *cause.  Either forgets the job.
 */
enum builder_state builder_poll(struct builder *, int64_t job, const char *spec,
    struct job_built **built, size_t *n, char **cause);
/* Drops a job's builds (cancelled): ends its build if one is under way. */
void builder_forget(struct builder *, int64_t job);

/* The child: reads a job's JSON on stdin, builds; returns an exit code. */
int builder_child_main(void);

#endif
