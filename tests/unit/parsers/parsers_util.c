/* Helpers shared by the parser tests. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "parsers_test.h"

/* The parser for each folder of captures. */
const struct ptest_tool ptest_tools[] = {
	{ "hackbench", "hackbench" },
	{ "kernel-build", "kernbench" },
	{ "llama-batched-bench", "llama-batched-bench" },
	{ "netperf", "netperf" },
	{ "schbench", "schbench" },
	{ "stream", "stream" },
	{ "stress-ng", "stress-ng" },
	{ "sysbench", "sysbench" },
	{ "tbench", "tbench" },
	{ "unixbench", "unixbench" },
	{ "ycsb", "ycsb" },
};
const size_t ptest_ntools = sizeof ptest_tools / sizeof ptest_tools[0];

/* Reads everything from f. */
static char *
ptest_slurp(FILE *f, size_t *len)
{
	char  *buf = NULL;
	size_t cap = 0, n = 0, r;

	do {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = xreallocarray(buf, cap + 1, 1);
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
	} while (r > 0);
	buf[n] = '\0';
	*len = n;
	return (buf);
}

/* Reads a whole file. */
char *
ptest_read_file(const char *path, size_t *len)
{
	FILE *f;
	char *buf;

	if ((f = fopen(path, "rb")) == NULL)
		return (NULL);
	buf = ptest_slurp(f, len);
	fclose(f);
	return (buf);
}

/* Runs cmd through sh with stderr joined to stdout. */
char *
ptest_run(const char *cmd, size_t *len)
{
	char *full = xasprintf("(%s) 2>&1", cmd), *buf;
	FILE *f;

	f = popen(full, "r");
	free(full);
	if (f == NULL)
		return (NULL);
	buf = ptest_slurp(f, len);
	if (pclose(f) != 0) {
		fprintf(stderr, "command failed: %s\n%s\n", cmd, buf);
		free(buf);
		return (NULL);
	}
	return (buf);
}

/* Value of the occurrence-th metric called name. */
double
ptest_value(const struct parse_result *res, const char *name, size_t occurrence)
{
	size_t i;

	for (i = 0; i < res->n; i++) {
		if (strcmp(res->v[i].name, name) == 0 && occurrence-- == 0)
			return (res->v[i].value);
	}
	return (NAN);
}

/* Number of metrics called name. */
size_t
ptest_count(const struct parse_result *res, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < res->n; i++)
		n += strcmp(res->v[i].name, name) == 0;
	return (n);
}

/* Whether part is a prefix of whole. */
int
ptest_is_prefix(const struct parse_result *part,
    const struct parse_result		  *whole)
{
	size_t i;

	if (part->n > whole->n)
		return (0);
	for (i = 0; i < part->n; i++) {
		if (strcmp(part->v[i].name, whole->v[i].name) != 0 ||
		    strcmp(part->v[i].unit, whole->v[i].unit) != 0 ||
		    part->v[i].value != whole->v[i].value)
			return (0);
	}
	return (1);
}
