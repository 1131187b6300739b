/* tbench (dbench): the closing "Throughput N MB/sec ..." line. */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

/* Reads "max_latency=N ms" from the rest of a throughput line. */
static void
parse_tbench_latency(const char *s, struct parse_result *res)
{
	const char *p, *e;
	double	    v;

	if ((p = strstr(s, "max_latency=")) == NULL)
		return;
	e = parse_number(p + strlen("max_latency="), &v);
	if (e != NULL && strncmp(e, " ms", 3) == 0)
		parse_result_add(res, "max_latency", "ms", v);
}

/* Takes "Throughput N MB/sec" (and its max latency) for each run. */
int
parse_tbench(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct parse_lines pl;
	const char	  *e;
	double		   v;
	int		   rc = -1;

	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl)) {
		if (strncmp(pl.line, "Throughput ", 11) != 0)
			continue;
		e = parse_word_number(pl.line + 11, &v);
		if (e == NULL || strncmp(e, " MB/sec", 7) != 0) {
			*cause = parse_cause_line("tbench", pl.lineno, pl.line,
			    "no throughput in MB/sec");
			goto out;
		}
		parse_result_add(res, "throughput", "MB/s", v);
		parse_tbench_latency(e, res);
	}
	rc = 0;
out:
	parse_lines_free(&pl);
	return (rc);
}
