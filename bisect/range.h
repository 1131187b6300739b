/*
 * The commits a bisection runs over: good..bad of a git tree along first
 * parents, good first, with their subjects.
 */
#ifndef HILAB_BISECT_RANGE_H
#define HILAB_BISECT_RANGE_H

#include <stddef.h>

struct bisect_range {
	char  *commits;	 /* JSON array of full ids, good first */
	char  *subjects; /* JSON array, as long */
	size_t n;	 /* commits after good */
};

/*
 * Resolves good and bad in tree, checks that good is an ancestor of bad
 * and lists the range into r; 0, or -1 with *cause naming the tree.
 */
int  bisect_range_read(const char *tree, const char *good, const char *bad,
     struct bisect_range *r, char **cause);
void bisect_range_clear(struct bisect_range *);

#endif
