/*
 * A sweep that follows a branch: before a sweep's job is queued, each
 * kernel built from git has its tree fetched (hilabd/fetcher.c, off the
 * loop) and its base resolved to a commit id, which the queued job keeps, so
 * the sweep's history lists commits.  A job whose built kernels are all at the
 * commits of the sweep's last done job is not queued: only new commits are
 * built and measured.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/spawn.h"
#include "common/xmalloc.h"
#include "hilabd/sweeper.h"
#include "jobs/job.h"

/* The commit id of k's base as its tree has it now; NULL with *cause. */
static char *
follow_resolve(const struct job_kernel *k, char **cause)
{
	char *rev = xasprintf("%s^{commit}", k->base), *why = NULL, *id;
	char *argv[] = { (char *)"git", (char *)"-C", k->git,
		(char *)"rev-parse", (char *)"--verify", (char *)"--quiet", rev,
		NULL };

	id = spawn_line(NULL, argv, &why);
	if (id == NULL)
		*cause = xasprintf("repository \"%s\": unknown commit \"%s\"",
		    k->git, k->base);
	free(rev);
	free(why);
	return id;
}

/* The base of kernel name in a job's spec, or NULL. */
static const char *
follow_last_base(json_t *last, const char *name)
{
	json_t *k;
	size_t	i;

	json_array_foreach(json_object_get(last, "kernels"), i,
	    k) if (strcmp(json_string_value(json_object_get(k, "name")),
		       name) ==
	    0) return json_string_value(json_object_get(k, "base"));
	return NULL;
}

/* Pins the job's built kernels to commits; see hilabd/sweeper.h. */
int
sweeper_follow(struct job *job, const char *last_spec, char **cause)
{
	json_t	   *last = last_spec ? json_loads(last_spec, 0, NULL) : NULL;
	const char *was;
	bool	    built = false, moved = false;
	size_t	    i;
	char	   *id;

	*cause = NULL;
	for (i = 0; i < job->nkernels; i++) {
		if (job->kernels[i].kind != JOB_KERNEL_BUILD)
			continue;
		if ((id = follow_resolve(&job->kernels[i], cause)) == NULL) {
			json_decref(last);
			return -1;
		}
		built = true;
		was = follow_last_base(last, job->kernels[i].name);
		moved |= was == NULL || strcmp(was, id) != 0;
		free(job->kernels[i].base);
		job->kernels[i].base = id;
	}
	json_decref(last);
	return !built || moved;
}
