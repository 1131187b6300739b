/*
 * sysbench 1.0 (cpu and the common "General statistics" / "Latency (ms)"
 * sections) and stress-ng --metrics(-brief) tables.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

#define SYSBENCH_WORDS 16

static const struct {
	const char *label;
	const char *name;
	const char *unit;
} sysbench_fields[] = {
	{ "events per second:", "events_per_second", "events/s" },
	{ "total time:", "total_time", "s" },
	{ "total number of events:", "events", "events" },
};

/* Reads "label: N" (an optional "s" after N) into name. */
static int
sysbench_field(const char *p, const char *label, const char *name,
    const char *unit, struct parse_result *res)
{
	const char *e;
	size_t	    l = strlen(label);
	double	    v;

	if (strncmp(p, label, l) != 0 || (e = parse_number(p + l, &v)) == NULL)
		return (0);
	if (strcmp(unit, "s") == 0 && *e == 's')
		e++;
	if (e[strspn(e, " \t")] != '\0')
		return (0);
	parse_result_add(res, name, unit, v);
	return (1);
}

/* A row of the "Latency (ms):" section: min, avg, max, Nth percentile. */
static int
sysbench_latency(const char *p, struct parse_result *res)
{
	const char *colon = strchr(p, ':');
	char	   *slug, *name;
	double	    pct;
	const char *e;
	int	    ok;

	if (colon == NULL)
		return (0);
	if ((e = parse_number(p, &pct)) != NULL &&
	    strncmp(e, "th percentile", 13) == 0) {
		slug = parse_slug(p, (size_t)(e - p));
		name = xasprintf("latency_p%s", slug);
	} else {
		slug = parse_slug(p, (size_t)(colon - p));
		name = xasprintf("latency_%s", slug);
	}
	ok = strcmp(slug, "sum") != 0 &&
	    sysbench_field(colon, ":", name, "ms", res);
	free(name);
	free(slug);
	return (ok);
}

/* Parses sysbench output. */
int
parse_sysbench(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct parse_lines pl;
	const char	  *p;
	size_t		   i;
	int		   in_latency = 0;

	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl)) {
		p = pl.line + strspn(pl.line, " \t");
		if (*p == '\0' || p == pl.line)
			in_latency = strcmp(p, "Latency (ms):") == 0;
		else if (in_latency)
			sysbench_latency(p, res);
		for (i = 0;
		     i < sizeof sysbench_fields / sizeof sysbench_fields[0];
		     i++)
			sysbench_field(p, sysbench_fields[i].label,
			    sysbench_fields[i].name, sysbench_fields[i].unit,
			    res);
	}
	parse_lines_free(&pl);
	return (0);
}

/* Skips "stress-ng: info:  [1234] " in front of a line. */
static char *
stressng_strip(char *line)
{
	char *p;

	if (strncmp(line, "stress-ng: ", 11) != 0)
		return (NULL);
	if ((p = strchr(line + 11, '[')) == NULL ||
	    (p = strchr(p, ']')) == NULL)
		return (NULL);
	return (p + 1);
}

/* A table row: stressor, bogo ops, real, usr, sys, ops/s, ops/s cpu. */
static void
stressng_row(char *p, struct parse_result *res)
{
	char  *w[SYSBENCH_WORDS], *name;
	double v[6];
	size_t n, i;

	n = parse_split(p, w, SYSBENCH_WORDS);
	if (n < 7 || !isalpha((unsigned char)w[0][0]))
		return;
	for (i = 0; i < 6; i++) {
		if (parse_word_number(w[i + 1], &v[i]) == NULL)
			return;
	}
	name = xasprintf("%s_bogo_ops", w[0]);
	parse_result_add(res, name, "bogo ops", v[0]);
	free(name);
	name = xasprintf("%s_bogo_ops_per_s", w[0]);
	parse_result_add(res, name, "bogo ops/s", v[4]);
	free(name);
	name = xasprintf("%s_bogo_ops_per_cpu_s", w[0]);
	parse_result_add(res, name, "bogo ops/s", v[5]);
	free(name);
}

/* Parses the stress-ng metrics table. */
int
parse_stressng(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct parse_lines pl;
	char		  *p;
	int		   in_table = 0;

	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl)) {
		if ((p = stressng_strip(pl.line)) == NULL)
			continue;
		p += strspn(p, " \t");
		if (strncmp(p, "stressor ", 9) == 0 &&
		    strstr(p, "bogo ops") != NULL)
			in_table = 1;
		else if (in_table)
			stressng_row(p, res);
	}
	parse_lines_free(&pl);
	return (0);
}
