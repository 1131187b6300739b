/*
 * Internals of the job file reader shared by job.c (the job and its
 * machines), job_kernel.c (its kernels), job_bench.c (its benchmarks) and
 * job_setup.c (its machine setup); not for other folders.  Job files are
 * read by the configuration engine (common/conf.h) against the key tables
 * of these files.
 */
#ifndef HILAB_JOB_YAML_H
#define HILAB_JOB_YAML_H

#include <stdbool.h>

#include <yaml.h>

#include "benchmarks/catalog.h"
#include "common/conf.h"
#include "jobs/job.h"

#define JOB_MAX_COUNT CATALOG_MAX_COUNT

/* What a job file is read with and into: the conf_file's arg. */
struct job_ctx {
	const struct catalog   *catalog;
	const struct inventory *inventory;
	struct job	       *job;
	bool			seed_given; /* "seed" read without error */
};

/* "kernels": a non-empty list of kernels into the job (job_kernel.c). */
void job_read_kernels(struct conf_file *, const struct conf_key *,
    yaml_node_t *, void *job);
/* Adds the kernel the machine runs now to the job (job_kernel.c). */
void job_kernel_add_running(struct job *);
/* Frees the contents of a kernel. */
void job_kernel_clear(struct job_kernel *);
/* "benchmarks": a non-empty list of benchmarks into the job (job_bench.c). */
void job_read_benchmarks(struct conf_file *, const struct conf_key *,
    yaml_node_t *, void *job);
/* "setup": the job's machine setup (job_setup.c). */
void job_read_setup(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *setup);
/* Frees what a machine setup holds. */
void job_setup_clear(struct job_setup *);
/*
 * job_observe.c: "probes" (a sequence of {function: NAME}) and "monitors"
 * (monitor names) of a benchmark or, for monitors, of the job; and the
 * metrics their samples are declared as, added to a resolved benchmark.
 */
void job_read_probes(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *benchmark);
void job_read_monitors(struct conf_file *, const struct conf_key *,
    yaml_node_t *, void *strv);
void job_observe_declare(struct job_benchmark *);

#endif
