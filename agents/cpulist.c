/* CPU lists as the kernel prints them ("0-3,8,10-11"): parse and format. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "common/xmalloc.h"

/* Highest CPU number accepted; the kernel's NR_CPUS tops out below it. */
#define CPULIST_MAX 65536

/* Adds the range lo..hi to the list. */
void
cpulist_add(struct cpulist *l, size_t lo, size_t hi)
{
	if (hi + 1 > l->n) {
		l->set = xreallocarray(l->set, hi + 1, 1);
		memset(l->set + l->n, 0, hi + 1 - l->n);
		l->n = hi + 1;
	}
	while (lo <= hi)
		l->set[lo++] = 1;
}

/* Parses one number; NULL if there is none or it is too large. */
static const char *
cpulist_number(const char *s, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	*v = strtoul(s, &end, 10);
	if (*v >= CPULIST_MAX)
		return NULL;
	return end;
}

/* Parses a list; an empty string is an empty list.  0, or -1 if invalid. */
int
cpulist_parse(const char *s, struct cpulist *l)
{
	unsigned long lo, hi;

	memset(l, 0, sizeof *l);
	while (*s != '\0' && *s != '\n') {
		if ((s = cpulist_number(s, &lo)) == NULL)
			goto fail;
		hi = lo;
		if (*s == '-' && (s = cpulist_number(s + 1, &hi)) == NULL)
			goto fail;
		if (hi < lo)
			goto fail;
		cpulist_add(l, lo, hi);
		if (*s == ',')
			s++;
		else if (*s != '\0' && *s != '\n')
			goto fail;
	}
	return 0;
fail:
	cpulist_free(l);
	return -1;
}

/* The number of CPUs in the list. */
size_t
cpulist_count(const struct cpulist *l)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += l->set[i];
	return n;
}

/* True if cpu is in the list. */
int
cpulist_has(const struct cpulist *l, size_t cpu)
{
	return cpu < l->n && l->set[cpu];
}

/* Formats the list the kernel's way; the caller frees it. */
char *
cpulist_format(const struct cpulist *l)
{
	char  *s = xstrdup(""), *t;
	size_t i = 0, lo;

	while (i < l->n) {
		if (!l->set[i]) {
			i++;
			continue;
		}
		for (lo = i; i + 1 < l->n && l->set[i + 1]; i++)
			;
		t = lo == i ? xasprintf("%s%s%zu", s, *s ? "," : "", lo)
			    : xasprintf("%s%s%zu-%zu", s, *s ? "," : "", lo, i);
		free(s);
		s = t;
		i++;
	}
	return s;
}

/* Frees the list's storage. */
void
cpulist_free(struct cpulist *l)
{
	free(l->set);
	memset(l, 0, sizeof *l);
}
