/*
 * Build timings (kernbench, kernel builds): bash `time` ("real 0m1.5s"),
 * GNU /usr/bin/time default, -p and -v formats, and "real: 33.5s" lines;
 * real/user/sys in seconds.
 */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

#define TIME_WORDS 16

/* Reads "1.5", "1.5s", "0m1.5s", "1h2m3s", "1:02.5" or "1:02:03" whole. */
static int
time_duration(const char *s, double *secs)
{
	const char *e;
	double	    v, total = 0, colon = 0;
	int	    ncolon = 0;

	for (;;) {
		if ((e = parse_number(s, &v)) == NULL || v < 0 || *s == '-' ||
		    *s == '+' || *s == ' ')
			return (-1);
		if (*e == 'h' || *e == 'm' || *e == 's') {
			total += v * (*e == 'h' ? 3600 : *e == 'm' ? 60 : 1);
			if (*e == 's')
				return (e[1] == '\0' && ncolon == 0
					? (*secs = total, 0)
					: -1);
		} else if (*e == ':') {
			colon = colon * 60 + v;
			ncolon++;
		} else if (*e == '\0') {
			*secs = ncolon > 0 ? colon * 60 + v : total + v;
			return (
			    ncolon > 2 || (ncolon > 0 && total > 0) ? -1 : 0);
		} else
			return (-1);
		s = e + 1;
	}
}

/* "0.07user 0.03system 0:00.05elapsed 192%CPU ..." (GNU time default). */
static int
time_gnu_default(char **w, size_t n, struct parse_result *res)
{
	double u, s, r;
	char  *e;

	if (n < 3 || (e = strstr(w[0], "user")) == NULL || strcmp(e, "user"))
		return (0);
	*e = '\0';
	if ((e = strstr(w[1], "system")) == NULL || strcmp(e, "system"))
		return (0);
	*e = '\0';
	if ((e = strstr(w[2], "elapsed")) == NULL || strcmp(e, "elapsed"))
		return (0);
	*e = '\0';
	if (time_duration(w[0], &u) || time_duration(w[1], &s) ||
	    time_duration(w[2], &r))
		return (0);
	parse_result_add(res, "real", "s", r);
	parse_result_add(res, "user", "s", u);
	parse_result_add(res, "sys", "s", s);
	return (1);
}

static const struct {
	const char *label; /* text before the value */
	const char *name;
	const char *unit;
} time_verbose[] = {
	{ "Elapsed (wall clock) time (h:mm:ss or m:ss):", "real", "s" },
	{ "User time (seconds):", "user", "s" },
	{ "System time (seconds):", "sys", "s" },
	{ "Maximum resident set size (kbytes):", "max_rss", "KiB" },
};

/* The -v format: "\tUser time (seconds): 0.08" and friends. */
static int
time_gnu_verbose(const char *line, struct parse_result *res)
{
	const char *p = line + strspn(line, " \t");
	size_t	    i, l;
	double	    v;

	for (i = 0; i < sizeof time_verbose / sizeof time_verbose[0]; i++) {
		l = strlen(time_verbose[i].label);
		if (strncmp(p, time_verbose[i].label, l) != 0)
			continue;
		p += l + strspn(p + l, " \t");
		if (time_duration(p, &v) != 0)
			return (0);
		parse_result_add(res, time_verbose[i].name,
		    time_verbose[i].unit, v);
		return (1);
	}
	return (0);
}

/* "real 0m1.5s", "real 1.5", "real: 33.5s", "runtime: 157". */
static int
time_labelled(char **w, size_t n, struct parse_result *res)
{
	static const char *labels[] = { "real", "user", "sys", "runtime" };
	size_t		   i, l;
	double		   v;

	if (n != 2)
		return (0);
	for (i = 0; i < 4; i++) {
		l = strlen(labels[i]);
		if (strncmp(w[0], labels[i], l) == 0 &&
		    (w[0][l] == '\0' ||
			(w[0][l] == ':' && w[0][l + 1] == '\0')))
			break;
	}
	if (i == 4 || time_duration(w[1], &v) != 0)
		return (0);
	parse_result_add(res, labels[i], "s", v);
	return (1);
}

/* Parses time(1) output in any of its usual formats. */
int
parse_kernbench(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct parse_lines pl;
	char		  *copy, *w[TIME_WORDS];
	size_t		   n;

	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl)) {
		if (time_gnu_verbose(pl.line, res))
			continue;
		copy = xstrdup(pl.line);
		n = parse_split(copy, w, TIME_WORDS);
		if (!time_labelled(w, n, res))
			time_gnu_default(w, n, res);
		free(copy);
	}
	parse_lines_free(&pl);
	return (0);
}
