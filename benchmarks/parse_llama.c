/*
 * llama.cpp batched-bench: the markdown table ("| PP | TG | B | ... |
 * S_PP t/s | ...") or --output-format jsonl lines: S_PP, S_TG and S (tokens/s)
 * as speed_pp, speed_tg and speed_total, named after their row:
 * speed_pp_pp128_tg128_pl1.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

#define LLAMA_COLS 16

/* The speed columns and their metric names. */
static const char *llama_heads[] = { "S_PP t/s", "S_TG t/s", "S t/s" };
static const char *llama_names[] = { "speed_pp", "speed_tg", "speed_total" };

struct llama_table {
	int pp, tg, pl; /* column of each key; -1 if absent */
	int speed[3];
};

/* Splits "| a | b |" into trimmed cells; returns the count or 0. */
static size_t
llama_cells(char *line, char **cells, size_t max)
{
	char  *p = line + strspn(line, " "), *bar;
	size_t n = 0, l;

	if (*p != '|')
		return (0);
	p++;
	while (n < max && (bar = strchr(p, '|')) != NULL) {
		*bar = '\0';
		p += strspn(p, " ");
		for (l = strlen(p); l > 0 && p[l - 1] == ' '; l--)
			p[l - 1] = '\0';
		cells[n++] = p;
		p = bar + 1;
	}
	return (n);
}

/* Adds the three speeds of one row named after pp, tg and pl. */
static void
llama_add(double pp, double tg, double pl, const double *speed,
    struct parse_result *res)
{
	char *name;
	int   i;

	for (i = 0; i < 3; i++) {
		name = xasprintf("%s_pp%.0f_tg%.0f_pl%.0f", llama_names[i], pp,
		    tg, pl);
		parse_result_add(res, name, "tokens/s", speed[i]);
		free(name);
	}
}

/* Reads a heading row (returns 1) or a data row of the table. */
static void
llama_row(struct llama_table *t, char *line, struct parse_result *res)
{
	char  *c[LLAMA_COLS];
	size_t n, i;
	double v[LLAMA_COLS];

	if ((n = llama_cells(line, c, LLAMA_COLS)) == 0)
		return;
	if (strcmp(c[0], "PP") == 0) {
		memset(t, 0xff, sizeof *t);
		for (i = 0; i < n; i++) {
			t->pp = strcmp(c[i], "PP") == 0 ? (int)i : t->pp;
			t->tg = strcmp(c[i], "TG") == 0 ? (int)i : t->tg;
			t->pl = strcmp(c[i], "B") == 0 ? (int)i : t->pl;
			t->speed[0] = strcmp(c[i], llama_heads[0]) == 0
			    ? (int)i
			    : t->speed[0];
			t->speed[1] = strcmp(c[i], llama_heads[1]) == 0
			    ? (int)i
			    : t->speed[1];
			t->speed[2] = strcmp(c[i], llama_heads[2]) == 0
			    ? (int)i
			    : t->speed[2];
		}
		return;
	}
	if (t->pp < 0 || t->tg < 0 || t->pl < 0 || t->speed[0] < 0 ||
	    t->speed[1] < 0 || t->speed[2] < 0)
		return;
	for (i = 0; i < n; i++) {
		if (parse_whole_number(c[i], &v[i]) != 0)
			return;
	}
	if ((size_t)t->speed[2] >= n || (size_t)t->speed[0] >= n ||
	    (size_t)t->speed[1] >= n || (size_t)t->pp >= n ||
	    (size_t)t->tg >= n || (size_t)t->pl >= n)
		return;
	llama_add(v[t->pp], v[t->tg], v[t->pl],
	    (double[]){ v[t->speed[0]], v[t->speed[1]], v[t->speed[2]] }, res);
}

/* One jsonl object with pp, tg, pl and the three speeds. */
static void
llama_json(const char *line, struct parse_result *res)
{
	static const char *keys[] = { "pp", "tg", "pl", "speed_pp", "speed_tg",
		"speed" };
	json_t		  *o, *j;
	double		   v[6];
	size_t		   i;

	if ((o = json_loads(line, 0, NULL)) == NULL)
		return;
	for (i = 0; i < 6; i++) {
		j = json_object_get(o, keys[i]);
		if (!json_is_number(j))
			break;
		v[i] = json_number_value(j);
	}
	if (i == 6)
		llama_add(v[0], v[1], v[2], v + 3, res);
	json_decref(o);
}

/* Parses llama-batched-bench output. */
int
parse_llama(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct llama_table t;
	struct parse_lines pl;

	memset(&t, 0xff, sizeof t);
	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl)) {
		if (pl.line[0] == '{')
			llama_json(pl.line, res);
		else
			llama_row(&t, pl.line, res);
	}
	parse_lines_free(&pl);
	return (0);
}
