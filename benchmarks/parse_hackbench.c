/* hackbench (rt-tests, perf bench sched messaging): "Time: 0.513". */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

/* Takes every "Time: N" line as one time sample in seconds. */
int
parse_hackbench(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct parse_lines pl;
	const char	  *s, *e;
	double		   v;
	int		   rc = -1;

	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl)) {
		s = pl.line + strspn(pl.line, " \t");
		if (strncmp(s, "Time:", 5) != 0)
			continue;
		e = parse_word_number(s + 5, &v);
		if (e == NULL || e[strspn(e, " \t")] != '\0' || v < 0) {
			*cause = parse_cause_line("hackbench", pl.lineno,
			    pl.line, "no time in seconds");
			goto out;
		}
		parse_result_add(res, "time", "s", v);
	}
	rc = 0;
out:
	parse_lines_free(&pl);
	return (rc);
}
