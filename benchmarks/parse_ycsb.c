/* YCSB client summary: "[OVERALL], Throughput(ops/sec), 4255.3" lines. */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

/* Names a measurement: "AverageLatency(us)" -> "latency_avg", "us". */
static char *
ycsb_name(const char *field, size_t flen, char **unit)
{
	const char *open = memchr(field, '(', flen);
	double	    pct;
	const char *e;
	char	   *slug, *name;

	if (open == NULL || field[flen - 1] != ')')
		return (NULL);
	*unit = xstrndup(open + 1, (size_t)(field + flen - 1 - open - 1));
	if ((e = parse_number(field, &pct)) != NULL &&
	    strncmp(e, "thPercentileLatency(", 20) == 0) {
		slug = parse_slug(field, (size_t)(e - field));
		name = xasprintf("latency_p%s", slug);
		free(slug);
		return (name);
	}
	if (strncmp(field, "AverageLatency(", 15) == 0)
		return (xstrdup("latency_avg"));
	if (strncmp(field, "MinLatency(", 11) == 0)
		return (xstrdup("latency_min"));
	if (strncmp(field, "MaxLatency(", 11) == 0)
		return (xstrdup("latency_max"));
	if (strncmp(field, "Throughput(", 11) == 0)
		return (xstrdup("throughput"));
	if (strncmp(field, "RunTime(", 8) == 0)
		return (xstrdup("runtime"));
	free(*unit);
	*unit = NULL;
	return (NULL);
}

/* One "[SECTION], Field(unit), value" line. */
static void
ycsb_line(const char *line, struct parse_result *res)
{
	const char *close, *field, *comma;
	char	   *sect, *name, *unit = NULL, *full;
	double	    v;

	if (line[0] != '[' || (close = strstr(line, "], ")) == NULL ||
	    strncmp(line, "[TOTAL_GC", 9) == 0)
		return;
	field = close + 3;
	if ((comma = strstr(field, ", ")) == NULL ||
	    parse_whole_number(comma + 2, &v) != 0)
		return;
	sect = parse_slug(line + 1, (size_t)(close - line - 1));
	if (strncmp(field, "Operations, ", 12) == 0) {
		full = xasprintf("%s_operations", sect);
		parse_result_add(res, full, "ops", v);
		free(full);
	} else if ((name = ycsb_name(field, (size_t)(comma - field), &unit)) !=
	    NULL) {
		full = strcmp(sect, "overall") == 0
		    ? xstrdup(name)
		    : xasprintf("%s_%s", sect, name);
		parse_result_add(res, full,
		    strcmp(unit, "ops/sec") == 0 ? "ops/s" : unit, v);
		free(full);
		free(name);
		free(unit);
	}
	free(sect);
}

/* Parses YCSB output: overall throughput and per-operation latencies. */
int
parse_ycsb(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct parse_lines pl;

	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl))
		ycsb_line(pl.line, res);
	parse_lines_free(&pl);
	return (0);
}
