/*
 * Building the kernels a job names (git + series + config) through the
 * kernel cache: the kernels that share a tree, base, series and config are
 * built as the variants of one series, in one worktree, in job order.  Used
 * by "hilab kernels build" and by hilabd before a job is planned.
 */
#ifndef HILAB_JOB_BUILD_H
#define HILAB_JOB_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "kernels/kernels.h"

struct job;

/* What one kernel of a job became. */
struct job_built {
	char  *kernel;	/* the job's kernel name */
	char  *variant; /* "base", "patch 1+2" */
	char  *build_id;
	char  *image;
	char  *release; /* "uname -r" of the image */
	bool   cached;
	double seconds; /* make time; 0 when cached */
};

struct job_build_opts {
	const char	  *cache_dir;	/* NULL: kernels_cache_dir() */
	const char	  *work_dir;	/* NULL: in the cache */
	int		   jobs;	/* make -jN; 0: online CPUs */
	kbuild_progress_cb cb;		/* build steps, or NULL */
	kbuild_progress_cb tool_output; /* git and make lines, or NULL */
	void		  *arg;
};

/*
 * Builds (or finds in the cache) every built kernel of the job.  Returns 0
 * with *out (caller frees with job_built_free) and *n, one per built kernel
 * in job order, or -1 with *cause naming the kernel and why.
 */
int  job_build_kernels(const struct job *, const struct job_build_opts *,
     struct job_built **out, size_t *n, char **cause);
void job_built_free(struct job_built *, size_t);
/* Returns the entry for a kernel name, or NULL. */
const struct job_built *job_built_find(const struct job_built *, size_t,
    const char *kernel);
/* JSON of the results (an array of objects), and back; NULL on error. */
json_t *job_built_to_json(const struct job_built *, size_t);
int job_built_from_json(json_t *, struct job_built **, size_t *, char **cause);

#endif
