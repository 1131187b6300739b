/*
 * A stored bisection read back: its commits and subjects, and the search
 * of bisect/search.h fed with every sample its step jobs stored.  hilabd
 * decides the next step from it; hilab bisect show prints its evidence.
 */
#ifndef HILAB_BISECT_LOAD_H
#define HILAB_BISECT_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "bisect/search.h"

struct db;
struct db_bisect;

/* Where a bisection stands, from its steps. */
struct bisect_loaded {
	struct bisect_search *search;
	char		    **commits;	/* n + 1 full ids, good first */
	char		    **subjects; /* as many */
	size_t		      n;
	int64_t		      end_job;	 /* the ends' step that failed, or 0 */
	int64_t		      empty_job; /* a done step without a sample */
	int64_t		      cancelled_job; /* a step cancelled, or 0 */
	int64_t		      last_job;	     /* the newest step, or 0 */
	int64_t		      stray_job;    /* newest, not its commit's fault */
	size_t		      stray_commit; /* its commit */
	size_t		      strays;	    /* steps that failed so */
	char		     *unit;	    /* the metric's, "" if unknown */
	char		     *direction;    /* "lower", "higher", "" */
};

/*
 * Reads bisection b: its commit list and the samples of its step jobs
 * (of its benchmark, metric, params and machine) under their commits; a
 * commit whose step job failed without one because the commit did not
 * build (the job was never planned) or boot (a run says so) is marked as
 * such; a step that failed for another reason (its machine away, the
 * benchmark failing) is a stray, not the commit's.  0, or -1 with *cause.
 */
int  bisect_load(struct db *, const struct db_bisect *b, struct bisect_loaded *,
     char **cause);
void bisect_loaded_clear(struct bisect_loaded *);

/* The first 12 characters of a commit id (a kernel name in step jobs). */
void bisect_short(const char *commit, char out[13]);

#endif
