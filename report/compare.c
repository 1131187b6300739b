/* The comparison model: kernels x cases of raw samples, and what follows. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xmalloc.h"
#include "report/compare.h"

/* Creates an empty table for one metric of one benchmark; unit may be NULL. */
struct compare_table *
compare_table_new(const char *title, const char *metric, const char *unit,
    enum compare_dir dir, enum compare_stat stat)
{
	struct compare_table *t;

	t = xcalloc(1, sizeof *t);
	t->title = xstrdup(title);
	t->metric = xstrdup(metric);
	t->unit = unit != NULL && *unit != '\0' ? xstrdup(unit) : NULL;
	t->case_label = xstrdup("Case");
	t->dir = dir;
	t->stat = stat;
	t->test = compare_stat_test(stat);
	t->decimals = COMPARE_DECIMALS_AUTO;
	return t;
}

/* Frees a list of strings. */
static void
compare_strings_free(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Frees a table and everything in it; accepts NULL. */
void
compare_table_free(struct compare_table *t)
{
	size_t i, j;

	if (t == NULL)
		return;
	for (i = 0; i < t->nrows; i++) {
		for (j = 0; j < t->ncolumns; j++) {
			free(t->rows[i].cells[j].x);
			free(t->rows[i].cells[j].boots);
		}
		free(t->rows[i].cells);
		free(t->rows[i].name);
	}
	free(t->rows);
	compare_strings_free(t->columns, t->ncolumns);
	compare_strings_free(t->machines, t->ncolumns);
	compare_strings_free(t->notes, t->nnotes);
	compare_strings_free(t->warnings, t->nwarnings);
	free(t->title);
	free(t->metric);
	free(t->unit);
	free(t->machine);
	free(t->case_label);
	free(t);
}

/* Sets the header of the case column ("Case", "clients", "operation"). */
void
compare_table_set_case_label(struct compare_table *t, const char *label)
{
	free(t->case_label);
	t->case_label = xstrdup(label);
}

/* Sets the decimals of absolute values, or COMPARE_DECIMALS_AUTO. */
void
compare_table_set_decimals(struct compare_table *t, int decimals)
{
	t->decimals = decimals;
}

/* Adds a kernel column (the first added is the base); returns its index. */
size_t
compare_table_add_column(struct compare_table *t, const char *kernel)
{
	size_t i;

	t->columns =
	    xreallocarray(t->columns, t->ncolumns + 1, sizeof *t->columns);
	t->columns[t->ncolumns] = xstrdup(kernel);
	t->machines =
	    xreallocarray(t->machines, t->ncolumns + 1, sizeof *t->machines);
	t->machines[t->ncolumns] = NULL;
	for (i = 0; i < t->nrows; i++) {
		t->rows[i].cells = xreallocarray(t->rows[i].cells,
		    t->ncolumns + 1, sizeof *t->rows[i].cells);
		memset(&t->rows[i].cells[t->ncolumns], 0,
		    sizeof *t->rows[i].cells);
	}
	t->computed = 0;
	return t->ncolumns++;
}

/* Says that every sample of the table comes from one machine. */
void
compare_table_set_machine(struct compare_table *t, const char *machine)
{
	free(t->machine);
	t->machine = xstrdup(machine);
}

/* Says which machines the samples of column col come from. */
void
compare_table_set_machines(struct compare_table *t, size_t col,
    const char *machines)
{
	free(t->machines[col]);
	t->machines[col] = machines != NULL ? xstrdup(machines) : NULL;
}

/* Swaps columns k - 1 and k with their cells. */
static void
compare_column_swap(struct compare_table *t, size_t k)
{
	struct compare_cell cell;
	size_t		    i;
	char		   *s;

	s = t->columns[k];
	t->columns[k] = t->columns[k - 1];
	t->columns[k - 1] = s;
	s = t->machines[k];
	t->machines[k] = t->machines[k - 1];
	t->machines[k - 1] = s;
	for (i = 0; i < t->nrows; i++) {
		cell = t->rows[i].cells[k];
		t->rows[i].cells[k] = t->rows[i].cells[k - 1];
		t->rows[i].cells[k - 1] = cell;
	}
}

/* Moves the column named name to index 0 with its cells; 0 or -1. */
int
compare_table_set_base(struct compare_table *t, const char *name)
{
	size_t j, k;

	for (j = 0; j < t->ncolumns && strcmp(t->columns[j], name) != 0; j++)
		;
	if (j == t->ncolumns)
		return -1;
	for (k = j; k > 0; k--)
		compare_column_swap(t, k);
	t->computed = 0;
	return 0;
}

/* Adds a case row with empty cells; returns its index. */
size_t
compare_table_add_row(struct compare_table *t, const char *name)
{
	struct compare_row *r;

	t->rows = xreallocarray(t->rows, t->nrows + 1, sizeof *t->rows);
	r = &t->rows[t->nrows];
	r->name = xstrdup(name);
	r->cells = xcalloc(t->ncolumns ? t->ncolumns : 1, sizeof *r->cells);
	t->computed = 0;
	return t->nrows++;
}

/* Returns a copy of n doubles, NULL for none. */
static double *
compare_copy(const double *x, size_t n)
{
	double *y;

	if (n == 0)
		return NULL;
	y = xreallocarray(NULL, n, sizeof *y);
	memcpy(y, x, n * sizeof *y);
	return y;
}

/* Gives one cell the n raw samples x, which the table frees. */
void
compare_table_take_samples(struct compare_table *t, size_t row, size_t col,
    double *x, size_t n)
{
	struct compare_cell *c = &t->rows[row].cells[col];

	free(c->x);
	c->x = n > 0 ? x : NULL;
	c->n = n;
	t->computed = 0;
	if (n == 0)
		free(x);
}

/* Stores a copy of the raw samples of one cell. */
void
compare_table_set_samples(struct compare_table *t, size_t row, size_t col,
    const double *x, size_t n)
{
	compare_table_take_samples(t, row, col, compare_copy(x, n), n);
}

/* Stores a copy of the per-boot means of one cell. */
void
compare_table_set_boots(struct compare_table *t, size_t row, size_t col,
    const double *x, size_t n)
{
	struct compare_cell *c = &t->rows[row].cells[col];

	free(c->boots);
	c->boots = compare_copy(x, n);
	c->nboots = n;
	t->computed = 0;
}

/* Appends a string to a list. */
static void
compare_strings_add(char ***v, size_t *n, char *s)
{
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	(*v)[(*n)++] = s;
}

/* Adds an environment note printed under the table. */
void
compare_table_add_note(struct compare_table *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	compare_strings_add(&t->notes, &t->nnotes, xvasprintf(fmt, ap));
	va_end(ap);
}

/* The statistic of a summary that a table shows; see compare.h. */
double
compare_stat_value(enum compare_stat stat, const struct stats_summary *s)
{
	switch (stat) {
	case COMPARE_HMEAN:
		return s->hmean;
	case COMPARE_GMEAN:
		return s->gmean;
	case COMPARE_MEDIAN:
		return s->median;
	default:
		return s->amean;
	}
}

/* Clears the derived numbers of a cell. */
static void
compare_cell_reset(struct compare_cell *c)
{
	memset(&c->sum, 0, sizeof c->sum);
	c->value = c->norm = c->delta = c->pct_imp = NAN;
	c->ci_lo = c->ci_hi = NAN;
	stats_test_run(STATS_TEST_NONE, NULL, 0, NULL, 0, &c->test);
	stats_test_run(STATS_TEST_NONE, NULL, 0, NULL, 0, &c->boot_test);
	c->mark = ' ';
}

/*
 * Converts the CI of the test's difference into a CI of delta percent:
 * linear for x, through the ratio of means for 1/x and ln x.
 */
static void
compare_cell_ci(struct compare_cell *c, double base)
{
	const struct stats_test *r = &c->test;
	double			 lo, hi;

	if (!r->done || isnan(r->ci_lo) || base == 0)
		return;
	switch (r->kind) {
	case STATS_TEST_WELCH:
		c->ci_lo = 100 * r->ci_lo / base;
		c->ci_hi = 100 * r->ci_hi / base;
		break;
	case STATS_TEST_WELCH_LOG:
		c->ci_lo = 100 * expm1(r->ci_lo);
		c->ci_hi = 100 * expm1(r->ci_hi);
		break;
	case STATS_TEST_WELCH_INV:
		/* H_new / H_base = 1 / (1 + d * H_base), decreasing in d. */
		lo = 1 + r->ci_hi * base;
		hi = 1 + r->ci_lo * base;
		if (lo > 0 && hi > 0) {
			c->ci_lo = 100 * (1 / lo - 1);
			c->ci_hi = 100 * (1 / hi - 1);
		}
		break;
	default:
		break;
	}
}

/* Derives the change and the tests of one cell against the base cell. */
static void
compare_cell_against(const struct compare_table *t, struct compare_cell *c,
    const struct compare_cell *b, int is_base)
{
	if (isnan(c->value) || isnan(b->value) || b->value == 0)
		goto test;
	c->norm = c->value / b->value;
	c->delta = 100 * (c->value - b->value) / b->value;
	c->pct_imp = t->dir == COMPARE_HIGHER_BETTER ? c->delta
	    : t->dir == COMPARE_LOWER_BETTER	     ? -c->delta
						     : NAN;
test:
	if (is_base || c->n == 0 || b->n == 0)
		return;
	stats_test_run(t->test, b->x, b->n, c->x, c->n, &c->test);
	if (c->test.done)
		c->mark = c->test.p < STATS_ALPHA ? '*' : '~';
	compare_cell_ci(c, b->value);
	if (c->nboots >= COMPARE_MIN_BOOTS && b->nboots >= COMPARE_MIN_BOOTS)
		stats_test_run(t->test, b->boots, b->nboots, c->boots,
		    c->nboots, &c->boot_test);
}

/* Computes one row: summaries first, then every cell against the base. */
static void
compare_row_compute(const struct compare_table *t, struct compare_row *r)
{
	struct compare_cell *c;
	size_t		     j;

	for (j = 0; j < t->ncolumns; j++) {
		c = &r->cells[j];
		compare_cell_reset(c);
		if (stats_summarize(c->x, c->n, &c->sum) == 0)
			c->value = compare_stat_value(t->stat, &c->sum);
	}
	for (j = 0; j < t->ncolumns; j++)
		compare_cell_against(t, &r->cells[j], &r->cells[0], j == 0);
}

/* Adds the warning for one column whose cells are too small for the test. */
static void
compare_column_warn(struct compare_table *t, size_t col)
{
	size_t i, n, small = 0, lo = SIZE_MAX, hi = 0, min_n;
	char  *range;

	min_n = stats_test_min_n(t->test);
	for (i = 0; i < t->nrows; i++) {
		n = t->rows[i].cells[col].n;
		if (n == 0 || n >= min_n)
			continue;
		small++;
		lo = n < lo ? n : lo;
		hi = n > hi ? n : hi;
	}
	if (small == 0)
		return;
	range = lo == hi ? xasprintf("%zu", lo) : xasprintf("%zu-%zu", lo, hi);
	compare_strings_add(&t->warnings, &t->nwarnings,
	    xasprintf(
		"\"%s\": n=%s in %zu of %zu cases; %s needs n >= %zu per side "
		"to reach p < %.2f",
		t->columns[col], range, small, t->nrows,
		stats_test_name(t->test), min_n, STATS_ALPHA));
	free(range);
}

/* Computes every cell's statistic, change and test, and the warnings. */
void
compare_table_compute(struct compare_table *t)
{
	size_t i;

	for (i = 0; i < t->nrows; i++)
		compare_row_compute(t, &t->rows[i]);
	compare_strings_free(t->warnings, t->nwarnings);
	t->warnings = NULL;
	t->nwarnings = 0;
	for (i = 0; i < t->ncolumns; i++)
		compare_column_warn(t, i);
	t->computed = 1;
}

/* Returns one computed cell. */
const struct compare_cell *
compare_table_cell(const struct compare_table *t, size_t row, size_t col)
{
	return &t->rows[row].cells[col];
}

/*
 * Returns the decimals for absolute values: the set ones, or enough for
 * three significant digits of the smallest value shown.
 */
int
compare_table_decimals(const struct compare_table *t)
{
	double v, min = INFINITY;
	size_t i, j;

	if (t->decimals >= 0)
		return t->decimals;
	for (i = 0; i < t->nrows; i++)
		for (j = 0; j < t->ncolumns; j++) {
			v = fabs(t->rows[i].cells[j].value);
			if (!isnan(v) && v > 0 && v < min)
				min = v;
		}
	return compare_decimals(min);
}

/* The decimals for three significant digits of v; see compare.h. */
int
compare_decimals(double v)
{
	int d;

	v = fabs(v);
	if (isinf(v) || isnan(v) || v == 0)
		return 2;
	d = 2 - (int)floor(log10(v));
	return d < 0 ? 0 : d > 9 ? 9 : d;
}

/* The direction stored as "higher" or "lower"; anything else is unknown. */
enum compare_dir
compare_dir_parse(const char *s)
{
	if (s != NULL && strcmp(s, "higher") == 0)
		return COMPARE_HIGHER_BETTER;
	if (s != NULL && strcmp(s, "lower") == 0)
		return COMPARE_LOWER_BETTER;
	return COMPARE_DIR_UNKNOWN;
}

/* Returns the direction's name as stored and printed ("lower"). */
const char *
compare_dir_name(enum compare_dir dir)
{
	static const char *names[] = { "lower", "higher", "unknown" };

	return names[dir];
}

/* Returns the statistic's name as printed ("AMean"). */
const char *
compare_stat_name(enum compare_stat stat)
{
	static const char *names[] = { "AMean", "HMean", "GMean", "Median" };

	return names[stat];
}

/* Returns the significance test that goes with a statistic. */
enum stats_test_kind
compare_stat_test(enum compare_stat stat)
{
	switch (stat) {
	case COMPARE_HMEAN:
		return STATS_TEST_WELCH_INV;
	case COMPARE_GMEAN:
		return STATS_TEST_WELCH_LOG;
	case COMPARE_MEDIAN:
		return STATS_TEST_MWU;
	default:
		return STATS_TEST_WELCH;
	}
}

/* Parses a statistic name, any case; returns -1 when unknown. */
int
compare_stat_parse(const char *s, enum compare_stat *stat)
{
	enum compare_stat i;

	for (i = COMPARE_AMEAN; i <= COMPARE_MEDIAN; i++)
		if (strcasecmp(s, compare_stat_name(i)) == 0) {
			*stat = i;
			return 0;
		}
	return -1;
}
