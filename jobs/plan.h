/*
 * The run planner: a job expanded into the ordered list of runs each machine
 * performs.  The order is deterministic:
 *
 *   for each machine (job order)
 *     for each round r = 0 .. rounds-1
 *       for each kernel, in round r's order:
 *           fixed:     as listed (A B C)
 *           alternate: as listed for even r, reversed for odd r (C B A)
 *           random:    a shuffle seeded by the job's seed and r, the same
 *                      on every machine
 *         for each benchmark (job order)
 *           for each parameter combination: the cartesian product of the
 *             swept parameters, keys sorted, the last key varying fastest,
 *             values in the order the job lists them
 *
 * A machine's runs are contiguous, so a per-machine worker takes one slice.
 *
 * Adaptive iterations (job.h) run ceil(min / rounds) iterations per run in
 * the job's rounds; hilabd's worker then queues rounds beyond them, each
 * with a run of every kernel at the positions that round's order gives,
 * until the precision is reached or max: plan_build_rounds expands those.
 */
#ifndef HILAB_PLAN_H
#define HILAB_PLAN_H

#include <stdbool.h>
#include <stddef.h>

struct job;
struct job_benchmark;

struct plan_run {
	char *machine;
	char *kernel; /* kernel name as in the job */
	char *benchmark;
	char *params; /* canonical: "groups=4,loops=100", keys
			 sorted; "" without parameters */
	char **argv;  /* expanded, NULL-terminated */
	int    iterations;
	int    warmups;
	long   timeout_ms;
	char  *parser;
	char  *parser_args;	/* NULL if none */
	char **metrics;		/* declared metrics every measured
				   iteration must produce (not optional,
				   not patterns), NULL-terminated */
	char **probes;		/* kernel functions timed, or NULL */
	char  *probe_method;	/* how, or NULL: the agent's choice */
	char **monitors;	/* monitors read beside, or NULL */
	int    round;		/* 0-based */
	int    position;	/* 0-based index of the run in its
				   (machine, round) */
	size_t machine_index;	/* into job->machines */
	size_t kernel_index;	/* into job->kernels */
	size_t benchmark_index; /* into job->benchmarks */
};

/* Owns the runs and every string in them. */
struct plan {
	struct plan_run *runs;
	size_t		 n;
};

/*
 * Expands job into plan (overwritten).  Returns 0, or -1 with *cause set
 * (caller frees) when a benchmark was not resolved against a catalog or a
 * command names an unknown parameter; plan is empty then.
 */
int plan_build(const struct job *, struct plan *, char **cause);
/*
 * Expands rounds first to last - 1 of job (rounds past the job's own are
 * those adaptive iterations add), as plan_build does the job's own.
 */
int plan_build_rounds(const struct job *, int first, int last, struct plan *,
    char **cause);
/*
 * Iterations each run of b measures in the job's rounds: its count, or
 * with adaptive iterations ceil(min / rounds).
 */
int plan_iterations(const struct job *, const struct job_benchmark *b);
/* Returns the number of runs the job expands to, per machine. */
size_t plan_count_per_machine(const struct job *);
/*
 * The runs the job may come to on all its machines, with the rounds its
 * adaptive iterations may add; SIZE_MAX when past what a size_t holds.
 */
size_t plan_count_max(const struct job *);
/*
 * Refuses a job that may come to more than JOB_MAX_RUNS runs: -1 with
 * *cause naming the count (hilabd plans every run at once), else 0.
 */
int plan_check_count(const struct job *, char **cause);
/* Fills order[0..nkernels) with the kernel indices of round r. */
void plan_round_order(const struct job *, int round, size_t *order);
/*
 * Expands one template argument: "{key}" becomes its value, "{{" and "}}"
 * a brace (the catalog's syntax).  With values NULL it only checks.  Marks
 * used[i] for each key used (used may be NULL).  Returns 0 and *out (caller
 * frees; out may be NULL), or -1 with *cause for a lone brace or a
 * placeholder that is not a parameter.
 */
int plan_expand_arg(const char *tmpl, const char *const *keys,
    const char *const *values, size_t nparams, bool *used, char **out,
    char **cause);
/*
 * The index in argv of a shell script run with -c (sh -c SCRIPT, bash -ec
 * SCRIPT, also after a wrapper such as chrt or taskset), or -1.  A
 * parameter expanded into it would be read as shell code.
 */
long plan_shell_script(char *const *argv);
/*
 * Replaces each {key} in the template with its value from params (parallel
 * arrays of nparams keys and values).  Returns a NULL-terminated argv
 * (caller frees each string and the array), or NULL with *cause.
 */
char **plan_expand_argv(char *const *tmpl, const char *const *keys,
    const char *const *values, size_t nparams, char **cause);
void   plan_argv_free(char **);
/*
 * Says that parser (with parser_args) finds no value of a declared metric:
 * `declared metric "took": parser "regex" (took=t ([0-9.]+)) finds no
 * value of it`, naming the "regex" line of the metric; callers add where
 * it looked.  Caller frees.
 */
char *plan_missing(const char *parser, const char *parser_args,
    const char *metric);
/*
 * Parses a resolved benchmark's parser_sample and returns NULL, or one line
 * per required metric it does not yield (naming the benchmark, the metric
 * and the sample), or the parser's error when the sample yields nothing
 * and no metric is required.  Caller frees.
 */
char *plan_check_sample(const struct job_benchmark *);
/* Frees the runs of plan and leaves it empty; NULL is fine. */
void plan_free(struct plan *);

#endif
