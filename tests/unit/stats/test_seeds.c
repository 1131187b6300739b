/*
 * The table styles against the tables published in the seed threads: each
 * table's numbers are read from the seed, turned back into samples that
 * have them, rendered, and the output compared with the seed's lines
 * (whitespace collapsed as the archive did, significance marks removed).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "report/compare.h"
#include "report/render.h"
#include "tests/lib/skip.h"

#define MAX_LINES 2048

static const char *seed_dir;

/* Reads a seed file; the caller frees it. */
static char *
seed_read(const char *name)
{
	char  *path, *buf = NULL;
	size_t len = 0;
	FILE  *fp;
	int    c;

	path = xasprintf("%s/%s", seed_dir, name);
	fp = fopen(path, "r");
	if (fp == NULL)
		fail_msg("%s: cannot open", path);
	buf = xmalloc(1);
	while ((c = fgetc(fp)) != EOF) {
		buf = xreallocarray(buf, len + 2, 1);
		buf[len++] = (char)c;
	}
	buf[len] = '\0';
	fclose(fp);
	free(path);
	return buf;
}

/* Returns s with blank runs made one space, ends trimmed, marks dropped. */
static char *
collapse(const char *s, int drop_marks)
{
	char *out = xmalloc(strlen(s) + 1), *o = out;
	int   blank = 0;

	for (; *s != '\0'; s++) {
		if (drop_marks && (*s == '*' || *s == '~'))
			continue;
		if (*s == ' ' || *s == '\t' || *s == '\n') {
			blank = o != out;
			continue;
		}
		if (blank)
			*o++ = ' ';
		blank = 0;
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

/* Splits text into lines, each without its leading quote marks if asked. */
static size_t
split_lines(char *text, char **lines, int unquote)
{
	size_t n = 0;
	char  *p = text, *nl;

	while (*p != '\0' && n < MAX_LINES) {
		if ((nl = strchr(p, '\n')) != NULL)
			*nl = '\0';
		while (unquote && (*p == '>' || *p == ' '))
			p++;
		lines[n++] = p;
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	return n;
}

/* Renders a table in a style into a string; the caller frees it. */
static char *
render_string(struct compare_table *t, const char *style)
{
	char  *buf = NULL, *cause = NULL;
	size_t len = 0;
	FILE  *fp;

	fp = open_memstream(&buf, &len);
	assert_non_null(fp);
	assert_int_equal(render_print(t, style, fp, &cause), 0);
	fclose(fp);
	return buf;
}

/* Compares rendered lines with seed lines, collapsed; returns mismatches. */
static int
compare_lines(char **got, char **want, size_t n)
{
	char  *g, *w;
	size_t i;
	int    bad = 0;

	for (i = 0; i < n; i++) {
		g = collapse(got[i], 1);
		w = collapse(want[i], 0);
		if (strcmp(g, w) != 0) {
			print_message("want: %s\ngot:  %s\n", w, g);
			bad++;
		}
		free(g);
		free(w);
	}
	return bad;
}

/* Adds two samples with amean a (or hmean a) and the CV cv. */
static void
seed3_samples(struct compare_table *t, size_t r, size_t c, double m, double cv)
{
	double x[2], a = m, d;

	if (t->stat == COMPARE_HMEAN)
		a = m / (1 - cv * cv / 20000);
	d = cv * a / 100 / sqrt(2);
	x[0] = a - d;
	x[1] = a + d;
	compare_table_set_samples(t, r, c, x, 2);
}

/* Creates the table a seed 3 header block describes. */
static struct compare_table *
seed3_table(char **l)
{
	struct compare_table *t;
	enum compare_stat     stat;
	char		     *metric, *unit = NULL, *in;

	assert_int_equal(compare_stat_parse(l[3] + 12, &stat), 0);
	metric = xstrdup(l[1] + 19);
	if ((in = strstr(metric, " in ")) != NULL) {
		*in = '\0';
		unit = in + 4;
	}
	t = compare_table_new(l[0] + 7, metric, unit,
	    strstr(l[2], "Lower") ? COMPARE_LOWER_BETTER
				  : COMPARE_HIGHER_BETTER,
	    stat);
	free(metric);
	return t;
}

/* Fills the case label and kernels from "Case: tip[pct imp](CV) ...". */
static int
seed3_columns(struct compare_table *t, char *head)
{
	static const char tail[] = "[pct imp](CV)";
	char		 *p, *end;

	if ((p = strchr(head, ':')) == NULL || strstr(p, tail) == NULL)
		return -1;
	*p++ = '\0';
	compare_table_set_case_label(t, head);
	while ((end = strstr(p, tail)) != NULL) {
		*end = '\0';
		while (*p == ' ')
			p++;
		compare_table_add_column(t, p);
		p = end + sizeof tail - 1;
	}
	return 0;
}

/* Adds one row "1-groups 1.00 [ -0.00]( 5.58) ..." of the seed. */
static void
seed3_row(struct compare_table *t, const char *line)
{
	char   name[64];
	double norm, imp, cv;
	size_t r, j;
	int    off, used;

	assert_int_equal(sscanf(line, "%63s%n", name, &off), 1);
	r = compare_table_add_row(t, name);
	for (j = 0; j < t->ncolumns; j++) {
		assert_int_equal(sscanf(line + off, " %lf [%lf](%lf)%n", &norm,
				     &imp, &cv, &used),
		    3);
		off += used;
		seed3_samples(t, r, j,
		    t->dir == COMPARE_LOWER_BETTER ? 1 - imp / 100
						   : 1 + imp / 100,
		    cv);
	}
}

/* Reproduces the seed 3 block whose Test line is l[0]; returns 1 if done. */
static int
seed3_block(char **l, size_t avail)
{
	struct compare_table *t;
	char		     *head, *out, *got[MAX_LINES];
	size_t		      rows = 0, n;
	int		      bad;

	if (strncmp(l[1], "Units : Normalized ", 19) != 0)
		return 0;
	t = seed3_table(l);
	head = collapse(l[5], 0);
	if (seed3_columns(t, head) != 0) {
		free(head);
		compare_table_free(t);
		return 0;
	}
	while (6 + rows < avail && *l[6 + rows] != '\0')
		seed3_row(t, l[6 + rows++]);
	out = render_string(t, "amd");
	n = split_lines(out, got, 0);
	assert_true(n >= 7 + rows);
	bad = compare_lines(got, l - 1, 7 + rows);
	assert_int_equal(bad, 0);
	free(out);
	free(head);
	compare_table_free(t);
	return 1;
}

static void
test_seed3_amd(void **state)
{
	char  *text, *l[MAX_LINES];
	size_t n, i;
	int    blocks = 0;

	text = seed_read("3-push-based-load-balancing-epyc-results.txt");
	n = split_lines(text, l, 1);
	for (i = 1; i < n; i++)
		if (strncmp(l[i], "Test : ", 7) == 0 && i + 6 < n)
			blocks += seed3_block(&l[i], n - i);
	/* Nine normalised tables; the tenth has another layout. */
	assert_int_equal(blocks, 9);
	free(text);
}

/* Adds n samples around median v, 0.01 apart. */
static void
seed0_samples(struct compare_table *t, size_t r, size_t c, double v, size_t n)
{
	double x[32];
	size_t k;

	for (k = 0; k < n; k++)
		x[k] = v + ((double)k - (n - 1) / 2.0) * 0.01;
	compare_table_set_samples(t, r, c, x, n);
}

/* Adds a row "cpu offline 44.95 30.96 13.44 -70%" of seed 0. */
static void
seed0_row(struct compare_table *t, const char *line, size_t n)
{
	char  *s = xstrdup(line), *tok[16];
	char  *name;
	size_t ntok = 0, r, j;

	for (tok[0] = strtok(s, " "); tok[ntok] != NULL && ntok < 15;)
		tok[++ntok] = strtok(NULL, " ");
	assert_true(ntok >= 5);
	name = xstrdup(tok[0]);
	for (j = 1; j + 4 < ntok; j++) {
		char *old = name;

		name = xasprintf("%s %s", old, tok[j]);
		free(old);
	}
	r = compare_table_add_row(t, name);
	for (j = 0; j < 3; j++)
		seed0_samples(t, r, j, strtod(tok[ntok - 4 + j], NULL), n);
	free(name);
	free(s);
}

static void
test_seed0_change(void **state)
{
	struct compare_table *t;
	char		     *text, *out, *l[MAX_LINES], *got[MAX_LINES];
	size_t		      n, i, r;

	text = seed_read("0-sched-domain-rebuild-cover-letter.txt");
	n = split_lines(text, l, 0);
	for (i = 0; i < n; i++)
		if (strncmp(l[i], "operation base (ms)", 19) == 0)
			break;
	assert_true(i + 3 < n);
	t = compare_table_new("rebuild", "time", "ms", COMPARE_LOWER_BETTER,
	    COMPARE_MEDIAN);
	compare_table_set_case_label(t, "operation");
	compare_table_set_decimals(t, 2);
	compare_table_add_column(t, "base");
	compare_table_add_column(t, "patch 1");
	compare_table_add_column(t, "patch 1+2");
	/* 20 partition switches, 16 hotplug operations. */
	for (r = 0; r < 3; r++)
		seed0_row(t, l[i + 1 + r], r == 0 ? 20 : 16);
	out = render_string(t, "change");
	split_lines(out, got, 0);
	/* the seed's table under the line that says what it is */
	assert_string_equal(got[0],
	    "rebuild: time (ms), lower is better, Median");
	assert_int_equal(compare_lines(&got[1], &l[i], 4), 0);
	free(out);
	compare_table_free(t);
	free(text);
}

/* Splits text into blank-separated tokens in place. */
static size_t
split_tokens(char *text, char **tok, size_t max)
{
	size_t n = 0;
	char  *save;

	for (tok[0] = strtok_r(text, " \t\n", &save);
	     tok[n] != NULL && n + 1 < max;)
		tok[++n] = strtok_r(NULL, " \t\n", &save);
	return n;
}

/* Returns the decimals of a number token. */
static int
token_decimals(const char *s)
{
	const char *dot = strchr(s, '.');

	return dot ? (int)strspn(dot + 1, "0123456789") : 0;
}

/*
 * Checks a rendered pct against the seed's: the seed computed it from
 * unrounded statistics, so allow what rounding the shown values can move.
 */
static void
seed1_check_pct(const char *got, const char *want, double b, double p, int d)
{
	double h = 0.5 * pow(10, -d), tol;

	tol = 100 * h * (1 / b + p / (b * b)) + 0.051;
	assert_true(got[strlen(got) - 1] == '%');
	assert_true(strcmp(got, "0.0%") == 0 || got[0] == '+' || got[0] == '-');
	if (fabs(strtod(got, NULL) - strtod(want, NULL)) > tol)
		fail_msg("pct %s, seed %s", got, want);
}

/* Builds the table of one seed 1 section from tokens; returns its end. */
static size_t
seed1_table(struct compare_table *t, char **tok, size_t i, size_t n)
{
	size_t first, r;
	double x[2];
	char  *name;

	while (i < n && tok[i][strlen(tok[i]) - 1] != ':') {
		first = i;
		while (i < n && tok[i][strlen(tok[i]) - 1] != '%')
			i++;
		assert_true(i < n && i - first >= 3);
		name = first + 3 == i
		    ? xstrdup(tok[first])
		    : xasprintf("%s %s", tok[first], tok[first + 1]);
		r = compare_table_add_row(t, name);
		x[0] = x[1] = strtod(tok[i - 2], NULL);
		compare_table_set_samples(t, r, 0, x, 2);
		x[0] = x[1] = strtod(tok[i - 1], NULL);
		compare_table_set_samples(t, r, 1, x, 2);
		free(name);
		i++;
	}
	return i;
}

/* Reproduces the seed 1 section titled title, then compares tokens. */
static void
seed1_section(char **tok, size_t n, const char *title, enum compare_dir dir)
{
	struct compare_table *t;
	char		     *out, *mine[512], *end;
	size_t		      i, end_i, k, m;
	int		      d;

	for (i = 0; i < n && strcmp(tok[i], title) != 0; i++)
		;
	assert_true(i + 5 < n);
	t = compare_table_new(title, "value", NULL, dir, COMPARE_AMEAN);
	*strchr(t->title, ':') = '\0';
	compare_table_set_case_label(t, tok[i + 1]);
	compare_table_add_column(t, tok[i + 2]);
	compare_table_add_column(t, tok[i + 3]);
	for (k = i + 5; k < n && tok[k][strlen(tok[k]) - 1] != '%'; k++)
		;
	d = token_decimals(tok[k - 2]);
	compare_table_set_decimals(t, d);
	end_i = seed1_table(t, tok, i + 5, n);
	out = render_string(t, "pct");
	if ((end = strstr(out, "\n\n")) != NULL)
		*end = '\0';
	/* the seed's "title:" line, which hilab follows with the meaning */
	end = strchr(out, '\n');
	assert_non_null(end);
	*end = '\0';
	assert_non_null(strstr(out,
	    dir == COMPARE_LOWER_BETTER ? ": value, lower is better, AMean"
					: ": value, higher is better, AMean"));
	*end = '\n';
	memmove(out + strcspn(out, ":") + 1, end, strlen(end) + 1);
	m = split_tokens(out, mine, 512);
	assert_int_equal(m, end_i - i);
	for (k = 0; k < m; k++) {
		char *g = collapse(mine[k], 1);

		if (g[strlen(g) - 1] == '%' && k > 5)
			seed1_check_pct(g, tok[i + k],
			    strtod(tok[i + k - 2], NULL),
			    strtod(tok[i + k - 1], NULL), d);
		else
			assert_string_equal(g, tok[i + k]);
		free(g);
	}
	free(out);
	compare_table_free(t);
}

static void
test_seed1_pct(void **state)
{
	char  *text, *tok[4096];
	size_t n;

	text = seed_read("1-burst-wakeup-distribution-reply.txt");
	n = split_tokens(text, tok, 4096);
	seed1_section(tok, n, "hackbench:", COMPARE_LOWER_BETTER);
	seed1_section(tok, n, "tbench(throughput):", COMPARE_HIGHER_BETTER);
	free(text);
}

/* Splits a "| a | b |" row into trimmed cells in place. */
static size_t
split_cells(char *line, char **cell, size_t max)
{
	size_t n = 0, len;
	char  *p = strchr(line, '|'), *bar;

	while (p != NULL && n < max && (bar = strchr(p + 1, '|')) != NULL) {
		*bar = '\0';
		p++;
		while (*p == ' ')
			p++;
		len = strlen(p);
		while (len > 0 &&
		    (p[len - 1] == ' ' || p[len - 1] == '*' ||
			p[len - 1] == '~'))
			p[--len] = '\0';
		cell[n++] = p;
		p = bar;
	}
	return n;
}

/* Adds a seed 2 row "| 1 | 4384.728 ± 21.085 | ... |" as two samples each. */
static void
seed2_row(struct compare_table *t, char **cell)
{
	double x[2], m, s;
	size_t r, j;

	r = compare_table_add_row(t, cell[0]);
	for (j = 0; j < 2; j++) {
		m = strtod(cell[1 + j], NULL);
		s = strtod(strstr(cell[1 + j], "\xc2\xb1") + 2, NULL);
		x[0] = m - s / sqrt(2);
		x[1] = m + s / sqrt(2);
		compare_table_set_samples(t, r, j, x, 2);
	}
}

/* Compares the rendered grid rows with the seed's, cell by cell. */
static void
seed2_compare(char *out, char **rows, size_t nrows)
{
	char  *got[MAX_LINES], *gc[8], *wc[8], *w;
	size_t n, i, k = 0, j, ng;

	n = split_lines(out, got, 0);
	for (i = 0; i < n && k < nrows; i++) {
		if (got[i][0] != '|')
			continue;
		w = xstrdup(rows[k++]);
		ng = split_cells(got[i], gc, 8);
		assert_int_equal(ng, split_cells(w, wc, 8));
		for (j = 0; j < ng; j++)
			assert_string_equal(gc[j], wc[j]);
		free(w);
	}
	assert_int_equal(k, nrows);
}

static void
test_seed2_meansd(void **state)
{
	struct compare_table *t;
	char		     *text, *l[MAX_LINES], *rows[16], *cell[8];
	char		     *head, *out;
	size_t		      n, i, nrows = 0;

	text = seed_read("2-sched-idle-altra-testing-reply.txt");
	n = split_lines(text, l, 1);
	for (i = 0; i < n && nrows < 16; i++)
		if (l[i][0] == '|')
			rows[nrows++] = l[i];
	assert_int_equal(nrows, 9);
	t = compare_table_new("kernbench", "time", "seconds",
	    COMPARE_LOWER_BETTER, COMPARE_AMEAN);
	compare_table_set_decimals(t, 3);
	head = xstrdup(rows[0]);
	assert_int_equal(split_cells(head, cell, 8), 4);
	compare_table_set_case_label(t, cell[0]);
	*strstr(cell[1], " (") = *strstr(cell[2], " (") = '\0';
	compare_table_add_column(t, cell[1]);
	compare_table_add_column(t, cell[2]);
	for (i = 1; i < nrows; i++) {
		char *row = xstrdup(rows[i]);

		assert_int_equal(split_cells(row, cell, 8), 4);
		seed2_row(t, cell);
		free(row);
	}
	out = render_string(t, "meansd");
	assert_non_null(strstr(out, "+=========+"));
	seed2_compare(out, rows, nrows);
	free(out);
	free(head);
	compare_table_free(t);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed3_amd),
		cmocka_unit_test(test_seed0_change),
		cmocka_unit_test(test_seed1_pct),
		cmocka_unit_test(test_seed2_meansd),
	};
	const char *shared = getenv("HILAB_SHARED");
	char	   *dir;

	if (shared == NULL)
		return SKIP_MISSING_EXIT("HILAB_SHARED unset: no seeds");
	dir = xasprintf("%s/seeds", shared);
	if (access(dir, R_OK) != 0) {
		int rc = SKIP_MISSING_EXIT("%s: absent", dir);

		free(dir);
		return rc;
	}
	seed_dir = dir;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
