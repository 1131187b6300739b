/* CPU lists as the kernel prints them ("0-3,8,10-11"): parse and format. */
#include <stdlib.h>
#include <string.h>

#include "common/cpulist.h"
#include "common/xmalloc.h"

/* Adds the range lo..hi to the list, counting a CPU added twice. */
void
cpulist_add(struct cpulist *l, size_t lo, size_t hi)
{
	if (hi + 1 > l->n) {
		l->set = xreallocarray(l->set, hi + 1, 1);
		memset(l->set + l->n, 0, hi + 1 - l->n);
		l->n = hi + 1;
	}
	for (; lo <= hi; lo++)
		if (l->set[lo] < 2)
			l->set[lo]++;
}

/* Skips blanks and newlines. */
static const char *
cpulist_blanks(const char *s)
{
	return s + strspn(s, " \t\n");
}

/* Parses one number and the blanks after it; NULL if there is none. */
static const char *
cpulist_number(const char *s, size_t *v)
{
	s = cpulist_blanks(s);
	if (*s < '0' || *s > '9')
		return NULL;
	for (*v = 0; *s >= '0' && *s <= '9'; s++)
		if ((*v = *v * 10 + (size_t)(*s - '0')) >= CPULIST_MAX)
			return NULL;
	return cpulist_blanks(s);
}

/* Parses a list into l; see cpulist.h. */
int
cpulist_parse(const char *s, struct cpulist *l)
{
	size_t lo, hi;

	memset(l, 0, sizeof *l);
	if (*cpulist_blanks(s) == '\0')
		return 0;
	for (;;) {
		if ((s = cpulist_number(s, &lo)) == NULL)
			goto fail;
		hi = lo;
		if (*s == '-' && (s = cpulist_number(s + 1, &hi)) == NULL)
			goto fail;
		if (hi < lo)
			goto fail;
		cpulist_add(l, lo, hi);
		if (*s == '\0')
			return 0;
		if (*s++ != ',')
			goto fail;
	}
fail:
	cpulist_free(l);
	return -1;
}

/* Adds every CPU of src to l, as often as src has it. */
void
cpulist_merge(struct cpulist *l, const struct cpulist *src)
{
	size_t	      i;
	unsigned char n;

	for (i = 0; i < src->n; i++)
		for (n = 0; n < src->set[i]; n++)
			cpulist_add(l, i, i);
}

/* The number of distinct CPUs in the list. */
size_t
cpulist_count(const struct cpulist *l)
{
	size_t i, n = 0;

	for (i = 0; i < l->n; i++)
		n += l->set[i] != 0;
	return n;
}

/* True if cpu is in the list. */
int
cpulist_has(const struct cpulist *l, size_t cpu)
{
	return cpu < l->n && l->set[cpu];
}

/* The highest CPU in the list, or -1. */
long
cpulist_last(const struct cpulist *l)
{
	size_t i;

	for (i = l->n; i > 0; i--)
		if (l->set[i - 1])
			return (long)i - 1;
	return -1;
}

/* The lowest CPU added more than once, or -1. */
long
cpulist_twice(const struct cpulist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->set[i] > 1)
			return (long)i;
	return -1;
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

/* Frees the list's storage; the list is empty again. */
void
cpulist_free(struct cpulist *l)
{
	free(l->set);
	memset(l, 0, sizeof *l);
}
