/*
 * UnixBench (byte-unixbench Run): result lines "Execl Throughput  687.2 lps
 * (30.0 s, 2 samples)", the index table and its "Index Score" line. Runs of
 * more than one parallel copy get "_x<copies>" after each name.
 */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

#define UNIXBENCH_WORDS 32

struct unixbench_state {
	int copies;   /* of the current Benchmark Run; 0 unknown */
	int in_index; /* inside an index table */
};

/* Adds a metric named after the words, with the copies suffix. */
static void
unixbench_add(struct unixbench_state *st, const char *label, size_t len,
    const char *suffix, const char *unit, double v, struct parse_result *res)
{
	char *slug, *name;

	slug = parse_slug(label, len);
	if (st->copies > 1)
		name = xasprintf("%s%s_x%d", slug, suffix, st->copies);
	else
		name = xasprintf("%s%s", slug, suffix);
	parse_result_add(res, name, unit, v);
	free(name);
	free(slug);
}

/* "Pipe Throughput   260355.3 lps   (10.0 s, 7 samples)". */
static int
unixbench_result(struct unixbench_state *st, char *line,
    struct parse_result *res)
{
	char  *open, *w[UNIXBENCH_WORDS];
	size_t n, l;
	double v;

	l = strlen(line);
	if (l < 8 || strcmp(line + l - 8, "samples)") != 0 ||
	    (open = strrchr(line, '(')) == NULL)
		return (0);
	*open = '\0';
	n = parse_split(line, w, UNIXBENCH_WORDS);
	if (n < 3 || parse_word_number(w[n - 2], &v) == NULL)
		return (0);
	unixbench_add(st, line, (size_t)(w[n - 2] - line), "", w[n - 1], v,
	    res);
	return (1);
}

/* An index table row: "Pipe Throughput  12440.0  260355.3  209.3". */
static int
unixbench_index_row(struct unixbench_state *st, char *line,
    struct parse_result *res)
{
	char  *w[UNIXBENCH_WORDS];
	size_t n, i;
	double v[3];

	n = parse_split(line, w, UNIXBENCH_WORDS);
	if (n < 4)
		return (0);
	for (i = 0; i < 3; i++) {
		if (parse_word_number(w[n - 3 + i], &v[i]) == NULL)
			return (0);
	}
	unixbench_add(st, line, (size_t)(w[n - 3] - line), "_index", "index",
	    v[2], res);
	return (1);
}

/* "System Benchmarks Index Score (Partial Only)   4231.4". */
static int
unixbench_score(struct unixbench_state *st, char *line,
    struct parse_result *res)
{
	char  *w[UNIXBENCH_WORDS];
	size_t n;
	double v;

	if (strstr(line, "Index Score") == NULL)
		return (0);
	n = parse_split(line, w, UNIXBENCH_WORDS);
	if (n < 2 || parse_word_number(w[n - 1], &v) == NULL)
		return (0);
	unixbench_add(st, line, (size_t)(w[n - 1] - line), "", "index", v, res);
	return (1);
}

/* Handles one line of UnixBench output. */
static void
unixbench_line(struct unixbench_state *st, char *line, struct parse_result *res)
{
	const char *p;

	if (strncmp(line, "Benchmark Run:", 14) == 0) {
		st->copies = 0;
		st->in_index = 0;
	} else if ((p = strstr(line, "; running ")) != NULL)
		st->copies = atoi(p + 10);
	else if (strstr(line, "BASELINE") != NULL &&
	    strstr(line, "INDEX") != NULL)
		st->in_index = 1;
	else if (strstr(line, "========") != NULL)
		st->in_index = 0;
	else if (unixbench_score(st, line, res))
		st->in_index = 0;
	else if (st->in_index)
		unixbench_index_row(st, line, res);
	else
		unixbench_result(st, line, res);
}

/* Parses UnixBench output: scores, per-test indexes, the index score. */
int
parse_unixbench(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct unixbench_state st;
	struct parse_lines     pl;

	memset(&st, 0, sizeof st);
	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl))
		unixbench_line(&st, pl.line, res);
	parse_lines_free(&pl);
	return (0);
}
