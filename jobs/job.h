/*
 * The job model: which kernels, machines and benchmarks (with parameter
 * sweeps) to measure, how many rounds, and in what order.  A job comes from a
 * job file (YAML, job_load) or from its normalized JSON as stored in the
 * database (job_from_json).  A loaded job is self-contained: every catalog
 * benchmark carries its resolved command template, parser and metrics, so a
 * stored job does not change when the catalog does.
 */
#ifndef HILAB_JOB_H
#define HILAB_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct catalog;
struct inventory;

/* Defaults for a custom command (catalog entries bring their own). */
#define JOB_DEFAULT_ITERATIONS	5
#define JOB_DEFAULT_WARMUPS	0
#define JOB_DEFAULT_TIMEOUT_MS	600000L
/* Limits on a job (README, "Security and limits"). */
#define JOB_MAX_PARAM_VALUE	1024   /* bytes in one parameter value */
#define JOB_MAX_RUNS		100000 /* runs it may come to, all machines */
/* Name of the kernel the machine runs now. */
#define JOB_KERNEL_RUNNING_NAME "running"

/* Order of the kernels within one round (see plan.h). */
enum job_order {
	JOB_ORDER_ALTERNATE = 0, /* A B C, then C B A, then A B C... */
	JOB_ORDER_FIXED,	 /* A B C in every round */
	JOB_ORDER_RANDOM,	 /* shuffled per round from job->seed */
};

enum job_kernel_kind {
	JOB_KERNEL_RUNNING = 0, /* the kernel the machine runs now */
	JOB_KERNEL_IMAGE,	/* a prebuilt image (and initrd) */
	JOB_KERNEL_BUILD,	/* built from git: base + series + config */
};

/*
 * A kernel to measure; the strings a kind does not use are NULL.  modules
 * is a directory holding lib/modules/<release>, or a tarball of it, for an
 * ssh host (built kernels bring their own).
 */
struct job_kernel {
	char		    *name; /* in tables: "patch 1" */
	enum job_kernel_kind kind;
	char		    *image;	/* image: the kernel file */
	char		    *initrd;	/* image: optional */
	char		    *dtb;	/* optional: a device tree to boot */
	char		    *modules;	/* image, optional: see above */
	char		    *cmdline;	/* optional, any kind */
	char		    *git;	/* build: repository */
	char		    *base;	/* build: commit-ish */
	char		    *series;	/* build, optional: mbox or directory */
	int		    *patches;	/* build: patch numbers, ascending */
	size_t		     npatches;	/* 0: the base alone */
	char		    *config;	/* build, optional: file or target */
	char		   **fragments; /* build: config fragments, in order */
	size_t		     nfragments;
	char		    *arch;	    /* build, optional: "arm64"... */
	char		    *cross_compile; /* build, optional: "aarch64-..." */
};

/* One benchmark parameter: a single value, or several for a sweep. */
struct job_param {
	char  *key;
	char **values; /* nvalues >= 1, in the order given */
	size_t nvalues;
};

/*
 * A declared metric.  A name with '*' is a pattern (fnmatch, flags 0)
 * declaring every emitted name it matches.  Every measured iteration must
 * produce each metric that is neither optional nor a pattern.
 */
struct job_metric {
	char *name;
	char *unit;
	char *direction; /* "lower" or "higher" is better */
	char *statistic; /* amean, hmean, gmean, median */
	char *label;	 /* row label in tables, or NULL */
	bool  optional;	 /* a run need not produce it */
};

/* How a catalog benchmark's tool gets onto a host; NULLs if not said. */
struct job_install {
	char  *package; /* a Debian package, or NULL */
	char  *source;	/* a tarball in the mirror directory, or NULL */
	char **build;	/* shell commands, NULL-terminated, or NULL */
	char **prepare; /* argv template run in the built tree per
			   parameter combination, or NULL */
};

/* A server the benchmark needs running on the host during its runs. */
struct job_server {
	char **argv; /* template like the command's; NULL: none */
	int    port; /* TCP port it listens on; 0: not checked */
};

/*
 * Adaptive iterations (catalog.h): each (machine, kernel, benchmark,
 * parameters) runs rounds of iterations until the 95% CI half-width of
 * the metric's statistic is within precision of it, from min to max
 * measured iterations.  precision 0: iterations is a fixed count.
 */
struct job_adapt {
	int    min;
	int    max;
	double precision; /* a fraction: 0.02 for "2%" */
	char  *metric;	  /* resolved: a declared metric, not a pattern */
};

/*
 * A benchmark: a catalog entry or a custom command.  Once resolved (always
 * for a custom command, with a catalog for an entry) it carries its own
 * command template (argv with {key} placeholders, NULL-terminated), parser
 * and metrics; unresolved, argv, parser and metrics are NULL, and
 * iterations, warmups and timeout_ms are -1 where the job left them out.
 */
struct job_benchmark {
	char *name;
	char *kernel;		   /* runs under this kernel of the job only;
				      NULL: under every kernel */
	bool		   custom; /* command given in the job */
	bool		   resolved;
	struct job_param  *params; /* sorted by key */
	size_t		   nparams;
	int		   iterations; /* adaptive: its min */
	struct job_adapt   adaptive;
	int		   warmups;
	long		   timeout_ms; /* per iteration */
	char		 **argv;
	char		  *parser;
	char		  *parser_args;	  /* NULL if none */
	char		  *parser_sample; /* a line of output, or NULL */
	char		 **probes;	  /* kernel functions timed, or NULL */
	char		  *probe_method;  /* how, or NULL: the agent's choice */
	char		 **monitors;	  /* monitors read beside, or NULL */
	struct job_metric *metrics;
	size_t		   nmetrics;
	struct job_install install; /* catalog entries only */
	struct job_server  server;  /* catalog entries only */
};

/*
 * A job's machine setup (job_setup.c): what each of its machines is set
 * to before the job's runs there and put back to after them, where the
 * host offers it.  NULL: not asked for.
 */
struct job_setup {
	char *governor; /* a cpufreq governor, on every policy */
	char *boost;	/* on, off */
	char *smt;	/* on, off */
	char *thp;	/* always, madvise, never */
	char *cstates;	/* the deepest C-state allowed: "C1" */
};

#define JOB_SETUP_NCONTROLS 5

struct job {
	char		     *name;
	char		     *description; /* NULL if none */
	char		    **machines;
	size_t		      nmachines;
	struct job_kernel    *kernels; /* default: "running" */
	size_t		      nkernels;
	struct job_benchmark *benchmarks;
	size_t		      nbenchmarks;
	int		      rounds;  /* default 1 */
	enum job_order	      order;   /* default alternate */
	uint32_t	      seed;    /* JOB_ORDER_RANDOM only */
	char		     *cmdline; /* for all kernels, or NULL */
	struct job_setup      setup;
	char		    **monitors; /* the job file's "monitors", given to
					   each benchmark without its own */
};

/*
 * Parses and validates a job file.  catalog and inventory may be NULL to skip
 * resolving benchmarks and checking machine names.  Returns the job (caller
 * frees with job_free), or NULL with *cause set to every error found, one per
 * line, each as "file:line:col: message" (caller frees *cause).
 */
struct job *job_load(const char *path, const struct catalog *,
    const struct inventory *, char **cause);
/* Parses job text already in memory; name is used in error messages. */
struct job *job_load_string(const char *name, const char *text, size_t len,
    const struct catalog *, const struct inventory *, char	     **cause);
/* Returns the normalized JSON of a job (caller frees). */
char *job_to_json(const struct job *);
/* Parses JSON from job_to_json; NULL with *cause on any error. */
struct job *job_from_json(const char *json, char **cause);
/*
 * Prints the normalized job as YAML (itself a valid job file) through the
 * configuration engine's emitter (job_print.c).
 */
void job_print(FILE *, const struct job *);
void job_free(struct job *);

/*
 * The controls a machine setup asks for as (key, value) pairs in words, in
 * the order of struct job_setup; returns how many (0: none asked for).
 */
size_t job_setup_words(const struct job_setup *,
    const char *words[JOB_SETUP_NCONTROLS][2]);

/* Whether every measured iteration must produce the metric. */
bool job_metric_required(const struct job_metric *);

const char *job_order_name(enum job_order);
const char *job_kernel_kind_name(enum job_kernel_kind);
/* Returns the kernel's command line plus the job's (caller frees). */
char *job_kernel_cmdline(const struct job *, const struct job_kernel *);
struct job_kernel *job_find_kernel(const struct job *, const char *name);
/* Whether benchmark b runs under kernel k (b->kernel unset, or k's). */
bool job_benchmark_runs_on(const struct job_benchmark *b,
    const struct job_kernel			      *k);

#endif
