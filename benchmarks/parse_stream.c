/* STREAM: "Copy:  25956.9  0.006271  0.006164  0.006907" rows. */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

static const char *stream_rows[] = { "Copy:", "Scale:", "Add:", "Triad:" };
static const char *stream_names[] = { "copy", "scale", "add", "triad" };

/* Takes the best rate (MB/s) of each Copy/Scale/Add/Triad row. */
int
parse_stream(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct parse_lines pl;
	char		  *w[8];
	size_t		   i, n;
	double		   v, t;
	int		   rc = -1;

	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl)) {
		n = parse_split(pl.line, w, 8);
		for (i = 0; n > 0 && i < 4; i++) {
			if (strcmp(w[0], stream_rows[i]) == 0)
				break;
		}
		if (n == 0 || i == 4)
			continue;
		if (n != 5 || parse_word_number(w[1], &v) == NULL ||
		    parse_word_number(w[2], &t) == NULL ||
		    parse_word_number(w[3], &t) == NULL ||
		    parse_word_number(w[4], &t) == NULL) {
			*cause = parse_cause_line("stream", pl.lineno, w[0],
			    "expected a rate and three times");
			goto out;
		}
		parse_result_add(res, stream_names[i], "MB/s", v);
	}
	rc = 0;
out:
	parse_lines_free(&pl);
	return (rc);
}
