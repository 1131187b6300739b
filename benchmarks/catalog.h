/*
 * The benchmark catalog: one YAML file per benchmark (benchmarks/),
 * giving its command template, parameters, run counts, how to install it,
 * the server it needs running (if any), how to parse its output and what
 * its metrics mean.
 */
#ifndef HILAB_CATALOG_H
#define HILAB_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/conf.h"

struct conf_emit;

/* Bounds of run counts and timeouts, in the catalog and in job files. */
#define CATALOG_MAX_COUNT      1000000
#define CATALOG_MAX_TIMEOUT_MS (7 * 24 * 3600 * 1000)

enum catalog_direction { CATALOG_HIGHER, CATALOG_LOWER };
enum catalog_statistic {
	CATALOG_AMEAN,
	CATALOG_HMEAN,
	CATALOG_GMEAN,
	CATALOG_MEDIAN
};

/* What a parameter's values are: its default, axis and a job's values. */
enum catalog_param_type { CATALOG_STRING, CATALOG_INTEGER, CATALOG_NUMBER };

struct catalog_param {
	char		       *name;
	enum catalog_param_type type; /* key "type", default string */
	char		       *def;  /* NULL: a job must give it */
	char		      **axis; /* values a sweep goes through */
	size_t			naxis;
	char		       *description; /* NULL if none */
};

/*
 * A declared metric.  A name with '*' is a pattern (fnmatch, flags 0) that
 * declares every emitted name it matches; an optional metric, and every
 * pattern, need not be in a run's output, the others must.
 */
struct catalog_metric {
	char		      *name;
	char		      *unit;
	enum catalog_direction direction;
	enum catalog_statistic statistic;
	char		      *label; /* row label, or NULL */
	bool		       optional;
};

/*
 * Adaptive iterations: each (machine, kernel, benchmark, parameters) runs
 * rounds of iterations until the 95% CI half-width of the metric's
 * statistic is within precision of it, from min to max measured
 * iterations (a kernel's own samples only, never a comparison).  precision
 * 0: the benchmark has a fixed count.
 */
struct catalog_adapt {
	int    min;
	int    max;
	double precision; /* a fraction: 0.02 for "2%" */
	char  *metric;	  /* NULL: the benchmark's first required metric */
};

/* A Debian package, or a tarball in the local source mirror + build. */
struct catalog_install {
	char  *package; /* NULL when built from source */
	char  *source;	/* tarball name in the mirror directory */
	char **build;	/* shell commands run in the unpacked tree */
	size_t nbuild;
	char **prepare; /* argv template run in the built tree per
			   parameter combination a job plans, or NULL */
	size_t nprepare;
};

/* A server the benchmark needs running on the host during its runs. */
struct catalog_server {
	char   **command; /* argv template, "{param}"; NULL if none */
	size_t	 ncommand;
	unsigned port; /* TCP port it listens on; 0: not checked */
};

struct catalog_benchmark {
	char		      *name;
	char		      *description;
	char		      *path;	/* the file it came from */
	char		     **command; /* argv template, "{param}" */
	size_t		       ncommand;
	struct catalog_param  *params;
	size_t		       nparams;
	unsigned	       iterations; /* adaptive: its min */
	struct catalog_adapt   adaptive;
	unsigned	       warmups;
	unsigned	       timeout; /* seconds per iteration */
	struct catalog_install install;
	struct catalog_server  server;
	char		      *parser;	      /* a name in parse_parsers */
	char		      *parser_args;   /* NULL if none */
	char		      *parser_sample; /* a line of output, or NULL */
	struct catalog_metric *metrics;
	size_t		       nmetrics;
};

struct catalog {
	struct catalog_benchmark *v;
	size_t			  n;
};

/* A parameter value chosen by a job. */
struct catalog_setting {
	const char *name;
	const char *value;
};

/*
 * Loads every *.yaml file of dir (sorted by name). Returns the catalog, or
 * NULL with *cause holding every error found, one per line, each as
 * "file:line:col: message". The caller frees with catalog_free().
 */
struct catalog *catalog_load(const char *dir, char **cause);
/* Loads one file into a catalog of one benchmark; same errors. */
struct catalog *catalog_load_file(const char *path, char **cause);
void		catalog_free(struct catalog *);

/* Returns the benchmark called name (owned by cat), or NULL. */
const struct catalog_benchmark *catalog_find(const struct catalog *cat,
    const char							  *name);
/*
 * " (did you mean \"x\"?)" naming the benchmark of cat closest to name
 * (common/suggest.h), or "" when none is close (caller frees).
 */
char *catalog_suggest(const struct catalog *cat, const char *name);
/* "a, b, c": the names of cat's benchmarks, in order (caller frees). */
char *catalog_names(const struct catalog *cat);
/* Prints a benchmark as a catalog file, normalized (catalog_print.c). */
void catalog_print(FILE *, const struct catalog_benchmark *);
/* Returns the parameter called name of bench, or NULL. */
const struct catalog_param *catalog_param_find(const struct catalog_benchmark
						   *bench,
    const char					   *name);
/*
 * NULL when value is of the parameter's type, else what it is not: "an
 * integer" (-?[0-9]+) or "a number" (an integer, maybe with .[0-9]+).
 */
const char *catalog_param_check(const struct catalog_param *,
    const char *value);
/* "string", "integer" or "number". */
const char *catalog_param_type_name(enum catalog_param_type);

/*
 * Builds the argv of bench (NULL-terminated, caller frees with
 * catalog_argv_free) by putting each "{param}" to the value set in the
 * settings, else the param's default; "{{" and "}}" stand for braces.
 * Never goes through a shell. Returns 0, or -1 with *cause naming an
 * unknown setting or placeholder, or the params that have no value.
 */
int  catalog_expand_argv(const struct catalog_benchmark *bench,
     const struct catalog_setting *settings, size_t nsettings, char ***argv,
     char **cause);
void catalog_argv_free(char **argv);

const char *catalog_direction_name(enum catalog_direction);
const char *catalog_statistic_name(enum catalog_statistic);

/*
 * Reads "metrics", a non-empty sequence of {name, unit, direction,
 * statistic (default amean), label, optional} with unique names made of
 * A-Z a-z 0-9 . _ - and '*' (a pattern), appending to *v and
 * *n: the catalog's metrics and those of a job's custom command.  With
 * need_unit "unit" must be given (a custom command says its units), else
 * it defaults to "".  Free with catalog_metrics_free.
 */
void catalog_read_metrics(struct conf_file *, const struct conf_key *,
    yaml_node_t *, bool need_unit, struct catalog_metric **v, size_t *n);
/* Frees n metrics and the array. */
void catalog_metrics_free(struct catalog_metric *v, size_t n);
/*
 * Returns the metric of v that declares name: the one called so, else the
 * first pattern that matches it; NULL if none does.
 */
const struct catalog_metric *catalog_metric_find(const struct catalog_metric *v,
    size_t n, const char *name);

/*
 * catalog_iterations.c.  Reads "iterations": a count into *iterations (in
 * [k->min, k->max]), or a mapping {min, max, precision: "2%", metric} of
 * adaptive iterations into *a (replacing it) with its min into
 * *iterations; a mapping with errors leaves both as they were.
 */
void catalog_read_iterations(struct conf_file *, const struct conf_key *,
    yaml_node_t *, int *iterations, struct catalog_adapt *a);
/* Frees the metric name of a and zeroes it (a fixed count again). */
void catalog_adapt_clear(struct catalog_adapt *);
/* Formats a precision fraction as the percentage a file gives: "2%". */
char *catalog_precision_text(double precision);
/* Emits "iterations": the count, or the mapping of adaptive iterations. */
void catalog_emit_iterations(struct conf_emit *, int iterations,
    const struct catalog_adapt *);

#endif
