/*
 * CPU lists as the kernel prints them ("0-3,8,10-11"): the agent reads
 * them from sysfs, machine files give them for NUMA cells and LLC groups.
 * libc only: the static agent compiles this file in.
 */
#ifndef HILAB_CPULIST_H
#define HILAB_CPULIST_H

#include <stddef.h>

/* CPU numbers run from 0 to CPULIST_MAX - 1. */
#define CPULIST_MAX 65536

/*
 * A set of CPU numbers: set[i] counts how often CPU i was added (0, 1, or
 * 2 for "more than once"); n is the length of set.  Zeroed is empty.
 */
struct cpulist {
	unsigned char *set;
	size_t	       n;
};

/*
 * Parses a list into l (which it initializes): ranges "lo-hi" or single
 * CPUs split by ",", blanks and newlines around the numbers allowed; an
 * empty or blank string is an empty list.  0, or -1 (l empty) if invalid.
 */
int  cpulist_parse(const char *, struct cpulist *);
void cpulist_add(struct cpulist *, size_t lo, size_t hi);
/* Adds every CPU of src to l, as often as src has it. */
void cpulist_merge(struct cpulist *l, const struct cpulist *src);
/* The number of distinct CPUs in the list. */
size_t cpulist_count(const struct cpulist *);
int    cpulist_has(const struct cpulist *, size_t cpu);
/* The highest CPU in the list, or -1 when it is empty. */
long cpulist_last(const struct cpulist *);
/* The lowest CPU added more than once, or -1. */
long cpulist_twice(const struct cpulist *);
/* Formats the list the kernel's way, "0-3,8"; the caller frees it. */
char *cpulist_format(const struct cpulist *);
void  cpulist_free(struct cpulist *);

#endif
