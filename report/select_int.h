/*
 * Internals of report/select.c shared with report/select_pool.c (what a
 * cell pools, the machines of a column, the base) and report/select_adapt.c
 * (adaptive iterations under a table); not for other files.
 */
#ifndef HILAB_SELECT_INT_H
#define HILAB_SELECT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/select.h"

/* The samples of one (machine, boot) within a cell. */
struct sel_boot {
	char	 *machine;
	long long boot;
	double	  sum;
	size_t	  n;
};

/* A set of names: machines, kernels or jobs. */
struct select_set {
	char **v;
	size_t n;
};

/* What a cell's samples come from, one set of each. */
enum { SEL_WHO_MACHINE, SEL_WHO_KERNEL, SEL_WHO_JOB, SEL_NWHO };

/* One cell's samples while they are gathered. */
struct sel_cell {
	size_t		  row;
	size_t		  col;
	double		 *x;
	size_t		  n;
	size_t		  cap; /* of x */
	struct sel_boot	 *boots;
	size_t		  nboots;
	long long	  last_run;
	struct select_set who[SEL_NWHO];
};

/* A run behind a column, with its facts and the cmdline the job asked. */
struct sel_run {
	long long id;
	size_t	  row;
	size_t	  col;
	char	 *facts;
	char	 *asked;
};

/* One benchmark metric while it is gathered. */
struct sel_table {
	char		*benchmark;
	char		*metric;
	char		*machine; /* split by machine: its one, else NULL */
	char		*unit;
	char		*direction; /* "higher", "lower" or "" (unknown) */
	char		*statistic;
	char		*label;	   /* the metric's label, or NULL */
	long		 position; /* the metric's place in the job */
	char	       **rows;	   /* params, or metrics in metric rows */
	char	       **labels;   /* metric rows: label per row or NULL */
	size_t		 nrows;
	char	       **cols;
	size_t		 ncols;
	struct sel_cell *cells;
	size_t		 ncells;
	struct sel_run	*runs;
	size_t		 nruns;
};

/* One kernel's adaptive iterations in a group (db_adapt). */
struct sel_adapt {
	long long job;
	char	 *machine;
	char	 *kernel;
	char	 *benchmark;
	char	 *params;
	char	 *metric;
	char	 *statistic;
	int	  iterations;
	double	  precision; /* NAN: no interval */
	double	  target;
	bool	  reached;
	bool	  done;
};

/*
 * Where the last sample went: the samples of a run's metric come one
 * after another, and each after the first goes to the same cell and boot
 * without being looked up again.
 */
struct sel_last {
	long long run; /* -1: none yet */
	char	 *metric;
	bool	  skip; /* the metric stays out of the tables */
	size_t	  table;
	size_t	  cell;
	size_t	  boot;
};

/* Every table while the samples are gathered, by the resolved columns. */
struct sel_gather {
	struct sel_table *v;
	size_t		  n;
	struct sel_adapt *adapt; /* the jobs' adaptive iterations */
	size_t		  nadapt;
	enum select_by	  by;	    /* what the columns are */
	bool		  split;    /* a table per machine */
	bool		  several;  /* the selection spans several machines */
	char		 *conflict; /* two jobs mean a metric differently */
	bool		  monitors; /* tables of monitor deltas too */
	struct select_set methods;  /* "benchmark\tmethod" of the probes */
	const char	 *only;	    /* a probe metric asked for alone: the
				       calibration is gathered, not shown */
	struct sel_last last;
};

/*
 * select_probe.c: whether a sample of metric stays out of the tables (a
 * probe's method, noted in g; a monitor's delta unless g->monitors), and
 * the notes of method and calibration on each table of probe figures.
 */
bool select_probe_skip(struct sel_gather *g, const char *benchmark,
    const char *metric);
/*
 * The metric to gather for q's metric: NULL (all) for a probe metric,
 * whose calibration its notes need, kept in g->only; a monitor's named
 * is shown without q->monitors.
 */
const char *select_probe_metric(struct sel_gather *g, const char *metric);
/* Whether a gathered table is only there for the notes. */
bool select_probe_hidden(const struct sel_gather *g, const struct sel_table *t);
/* Whether a table's samples are read again after it is built (the notes). */
bool select_probe_kept(const struct sel_table *t);
void select_probe_notes(const struct sel_gather *g, struct select_result *r);
/* Puts each benchmark's probe tables after its own, its monitors' last. */
void select_probe_order(struct sel_gather *g);

/* The index of s in v, or -1. */
long select_find(char **v, size_t n, const char *s);
/* Sets of names: add one unless there, free them, "a, b" (caller frees). */
void  select_set_add(struct select_set *, const char *);
void  select_set_clear(struct select_set *);
char *select_set_text(const struct select_set *, const char *quote);
/*
 * Says which machines each column of t comes from and notes what a
 * column pools (only with --pool: select_refuse_pooled refuses it else).
 */
void select_describe(const struct sel_table *, enum select_by, bool several,
    struct compare_table *t);
/* SELECT_REFUSED with *cause for a cell that pools; else 0. */
int select_refuse_pooled(const struct sel_gather *, char **cause);
/* SELECT_REFUSED with *cause when a table has no column base; else 0. */
int select_check_base(const struct sel_gather *, const char *base,
    char **cause);

/* select_adapt.c: reads the jobs' adaptive iterations into g. */
int  select_adapt_gather(struct db *, const int64_t *jobs, size_t njobs,
     struct sel_gather *g, char **cause);
void select_adapt_free(struct sel_gather *);
/*
 * Adds under t, when benchmark tg's params had adaptive iterations, what
 * each column measured and reached; label (may be NULL) names the row.
 */
void select_adapt_note(const struct sel_gather *, const struct sel_table *tg,
    const char *params, const char *label, struct compare_table *t);

#endif
