/*
 * schbench: percentile blocks in the old format ("Latency percentiles
 * (usec)", "*99.0000th: N"), the 2022 one (with "runtime N (s)" and sample
 * counts) and the new one (wakeup, request and RPS blocks, "average rps").
 * Intermediate reports are cumulative, so only the last block of each kind
 * in a run counts; a run counts once its end is seen.
 */
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

enum schbench_kind {
	SCHBENCH_WAKEUP,
	SCHBENCH_REQUEST,
	SCHBENCH_RPS,
	SCHBENCH_NKINDS
};

static const char *schbench_prefix[] = { "wakeup", "request", "rps" };
static const char *schbench_unit[] = { "usec", "usec", "rps" };

struct schbench_state {
	struct parse_result done[SCHBENCH_NKINDS]; /* last full block */
	double		    runtime[SCHBENCH_NKINDS];
	int		    have_rps;
	double		    rps;
	int		    in_block; /* reading a block */
	enum schbench_kind  kind;
	double		    cur_runtime;
	struct parse_result cur;
};

/* Drops the run in progress. */
static void
schbench_drop(struct schbench_state *st)
{
	int k;

	for (k = 0; k < SCHBENCH_NKINDS; k++) {
		parse_result_clear(&st->done[k]);
		st->runtime[k] = -1;
	}
	st->have_rps = 0;
}

/* Ends a run: its last block of each kind and its RPS become metrics. */
static void
schbench_close(struct schbench_state *st, struct parse_result *res)
{
	struct parse_metric *m;
	size_t		     i;
	int		     k;

	for (k = 0; k < SCHBENCH_NKINDS; k++) {
		for (i = 0; i < st->done[k].n; i++) {
			m = &st->done[k].v[i];
			parse_result_add(res, m->name, m->unit, m->value);
		}
	}
	if (st->have_rps)
		parse_result_add(res, "rps", "rps", st->rps);
	schbench_drop(st);
}

/* Recognises a block heading; sets kind and runtime (-1 if none). */
static int
schbench_heading(const char *line, enum schbench_kind *kind, double *runtime)
{
	const char *p;

	if (strncmp(line, "Wakeup Latencies percentiles", 28) == 0 ||
	    strncmp(line, "Latency percentiles", 19) == 0)
		*kind = SCHBENCH_WAKEUP;
	else if (strncmp(line, "Request Latencies percentiles", 29) == 0)
		*kind = SCHBENCH_REQUEST;
	else if (strncmp(line, "RPS percentiles", 15) == 0)
		*kind = SCHBENCH_RPS;
	else
		return (0);
	*runtime = -1;
	if ((p = strstr(line, " runtime ")) != NULL &&
	    parse_word_number(p + 9, runtime) == NULL)
		*runtime = -1;
	return (1);
}

/* A new heading: closes the previous run when this one starts anew. */
static void
schbench_start(struct schbench_state *st, enum schbench_kind kind,
    double runtime, struct parse_result *res)
{
	int k, any = 0;

	for (k = 0; k < SCHBENCH_NKINDS; k++)
		any |= st->done[k].n > 0;
	/* no runtime: each block is a run; a smaller runtime: a new run */
	if (any &&
	    (runtime < 0 ||
		(st->done[kind].n > 0 && st->runtime[kind] > runtime)))
		schbench_close(st, res);
	parse_result_clear(&st->cur);
	st->in_block = 1;
	st->kind = kind;
	st->cur_runtime = runtime;
}

/* Reads "[*] 99.0000th: N [(M samples)]" into the current block. */
static int
schbench_percentile(struct schbench_state *st, const char *line)
{
	const char *p = line + strspn(line, " \t*");
	const char *e, *v;
	double	    pct, val;
	char	   *slug, *name;

	if ((e = parse_number(p, &pct)) == NULL || strncmp(e, "th:", 3) != 0)
		return (0);
	if ((v = parse_word_number(e + 3, &val)) == NULL)
		return (0);
	slug = parse_slug(p, (size_t)(e - p));
	/* "99.0000" -> "99_0000" -> "99"; "99.9000" -> "99_9" */
	while (strchr(slug, '_') != NULL && slug[strlen(slug) - 1] == '0')
		slug[strlen(slug) - 1] = '\0';
	if (slug[strlen(slug) - 1] == '_')
		slug[strlen(slug) - 1] = '\0';
	name = xasprintf("%s_p%s", schbench_prefix[st->kind], slug);
	parse_result_add(&st->cur, name, schbench_unit[st->kind], val);
	free(name);
	free(slug);
	return (1);
}

/* Reads the "min=N, max=M" line that ends a block. */
static int
schbench_minmax(struct schbench_state *st, const char *line)
{
	const char *p = line + strspn(line, " \t");
	const char *e;
	double	    lo, hi;
	char	   *name;

	if (strncmp(p, "min=", 4) != 0 ||
	    (e = parse_number(p + 4, &lo)) == NULL ||
	    strncmp(e, ", max=", 6) != 0 ||
	    parse_word_number(e + 6, &hi) == NULL)
		return (0);
	name = xasprintf("%s_min", schbench_prefix[st->kind]);
	parse_result_add(&st->cur, name, schbench_unit[st->kind], lo);
	free(name);
	name = xasprintf("%s_max", schbench_prefix[st->kind]);
	parse_result_add(&st->cur, name, schbench_unit[st->kind], hi);
	free(name);
	parse_result_clear(&st->done[st->kind]);
	st->done[st->kind] = st->cur;
	st->runtime[st->kind] = st->cur_runtime;
	st->cur.v = NULL;
	st->cur.n = 0;
	st->in_block = 0;
	return (1);
}

/* Reads "average rps: N" (new) or "rps: N p95 ..." (old): a run's end. */
static int
schbench_rps(struct schbench_state *st, const char *line,
    struct parse_result *res)
{
	const char *p;

	if (strncmp(line, "average rps:", 12) == 0)
		p = line + 12;
	else if (strncmp(line, "rps:", 4) == 0)
		p = line + 4;
	else
		return (0);
	if (parse_word_number(p, &st->rps) == NULL)
		return (0);
	st->have_rps = 1;
	schbench_close(st, res);
	return (1);
}

/* Handles one line of schbench output. */
static void
schbench_line(struct schbench_state *st, const char *line,
    struct parse_result *res)
{
	enum schbench_kind kind;
	double		   runtime;

	if (schbench_heading(line, &kind, &runtime))
		schbench_start(st, kind, runtime, res);
	else if (st->in_block && schbench_percentile(st, line))
		return;
	else if (st->in_block && schbench_minmax(st, line))
		return;
	else if (schbench_rps(st, line, res))
		return;
	else
		st->in_block = 0;
}

/* Parses schbench output; see the top of this file. */
int
parse_schbench(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct schbench_state st;
	struct parse_lines    pl;
	int		      k;

	memset(&st, 0, sizeof st);
	schbench_drop(&st);
	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl))
		schbench_line(&st, pl.line, res);
	if (pl.complete)
		schbench_close(&st, res);
	parse_lines_free(&pl);
	for (k = 0; k < SCHBENCH_NKINDS; k++)
		parse_result_clear(&st.done[k]);
	parse_result_clear(&st.cur);
	return (0);
}
