/*
 * In-memory comparison of kernels: one table per benchmark metric, one
 * column per kernel (the first is the base), one row per case, raw samples
 * in each cell. Independent of the database: the caller fills it.
 *
 *	t = compare_table_new("hackbench", "time", "seconds",
 *	    COMPARE_LOWER_BETTER, COMPARE_AMEAN);
 *	compare_table_set_case_label(t, "Case");
 *	base = compare_table_add_column(t, "base");
 *	p1 = compare_table_add_column(t, "patch 1");
 *	row = compare_table_add_row(t, "1-groups");
 *	compare_table_set_samples(t, row, base, x, n);
 *	compare_table_set_samples(t, row, p1, y, m);
 *	compare_table_add_note(t, "base booted with mitigations=off");
 *	compare_table_compute(t);
 *	render_print(t, "amd", stdout, &cause);
 */
#ifndef HILAB_COMPARE_H
#define HILAB_COMPARE_H

#include <stddef.h>

#include "report/stats.h"

/*
 * Which way is better.  Unknown (a metric its job does not declare):
 * changes and tests are shown, but no improvement (pct_imp is NAN) and no
 * verdict.
 */
enum compare_dir {
	COMPARE_LOWER_BETTER,
	COMPARE_HIGHER_BETTER,
	COMPARE_DIR_UNKNOWN
};

enum compare_stat {
	COMPARE_AMEAN, /* tested with Welch */
	COMPARE_HMEAN, /* tested with Welch on 1/x */
	COMPARE_GMEAN, /* tested with Welch on ln x */
	COMPARE_MEDIAN /* tested with Mann-Whitney U */
};

/* Decimals chosen from the magnitude of the values. */
#define COMPARE_DECIMALS_AUTO (-1)

/* Fewest boots per kernel for the second test on per-boot means. */
#define COMPARE_MIN_BOOTS 3

/*
 * One kernel's samples for one case and what compare_table_compute()
 * derived from them. Undefined numbers are NAN.
 */
struct compare_cell {
	double		    *x; /* raw samples, owned */
	size_t		     n;
	double		    *boots; /* per-boot means, owned */
	size_t		     nboots;
	struct stats_summary sum;
	double		     value;   /* the table's statistic */
	double		     norm;    /* value / base value */
	double		     delta;   /* 100 * (value - base) / base */
	double		     pct_imp; /* delta signed so positive is better,
					 NAN when the direction is unknown */
	double		  ci_lo;      /* 95% CI of delta, percent */
	double		  ci_hi;
	struct stats_test test;	     /* against the row's base cell */
	struct stats_test boot_test; /* on per-boot means */
	char		  mark;	     /* '*' p < alpha, '~' not, ' ' none */
};

struct compare_row {
	char		    *name;
	struct compare_cell *cells; /* one per column */
};

/* A table; renderers read the fields, callers build it with the functions. */
struct compare_table {
	char		    *title; /* benchmark */
	char		    *metric;
	char		    *unit;	 /* may be NULL */
	char		    *case_label; /* header of the case column */
	enum compare_dir     dir;
	enum compare_stat    stat;
	enum stats_test_kind test;
	int		     decimals;
	char		   **columns;  /* kernel names, columns[0] is base */
	char		   **machines; /* per column: "lab1", "a, b" or NULL */
	size_t		     ncolumns;
	char		    *machine; /* the one machine of every sample, or
					 NULL */
	int		    show_machines; /* the selection spans several */
	struct compare_row *rows;
	size_t		    nrows;
	char		  **notes; /* environment mismatches */
	size_t		    nnotes;
	char		  **warnings; /* too small n, set by compute */
	size_t		    nwarnings;
	int		    computed;
};

struct compare_table *compare_table_new(const char *, const char *,
    const char *, enum compare_dir, enum compare_stat);
void		      compare_table_free(struct compare_table *);
void   compare_table_set_case_label(struct compare_table *, const char *);
void   compare_table_set_decimals(struct compare_table *, int);
size_t compare_table_add_column(struct compare_table *, const char *);
/* Says that every sample comes from one machine (tables per machine). */
void compare_table_set_machine(struct compare_table *, const char *);
/* Says which machines a column's samples come from ("a" or "a, b"). */
void compare_table_set_machines(struct compare_table *, size_t, const char *);
/* Moves a column to the front, as the base; -1 if there is no such one. */
int    compare_table_set_base(struct compare_table *, const char *);
size_t compare_table_add_row(struct compare_table *, const char *);
void   compare_table_set_samples(struct compare_table *, size_t, size_t,
      const double *, size_t);
/* The same without a copy: the table frees the samples. */
void compare_table_take_samples(struct compare_table *, size_t, size_t,
    double *, size_t);
void compare_table_set_boots(struct compare_table *, size_t, size_t,
    const double *, size_t);
void compare_table_add_note(struct compare_table *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
void			   compare_table_compute(struct compare_table *);
const struct compare_cell *compare_table_cell(const struct compare_table *,
    size_t, size_t);
int			   compare_table_decimals(const struct compare_table *);

/* "lower", "higher", "unknown". */
const char *compare_dir_name(enum compare_dir);
/* "higher" or "lower" as a direction; anything else is unknown. */
enum compare_dir     compare_dir_parse(const char *);
const char	    *compare_stat_name(enum compare_stat);
enum stats_test_kind compare_stat_test(enum compare_stat);
int		     compare_stat_parse(const char *, enum compare_stat *);

/* The statistic stat of a summary, as a table shows it. */
double compare_stat_value(enum compare_stat, const struct stats_summary *);
/* The decimals that show three significant digits of v (2 for 0, inf). */
int compare_decimals(double v);

#endif
