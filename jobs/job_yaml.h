/*
 * Internals of the job file parser shared by job.c (the job, its machines
 * and kernels) and job_bench.c (its benchmarks); not for other folders.
 */
#ifndef HILAB_JOB_YAML_H
#define HILAB_JOB_YAML_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#include "jobs/job.h"

#define JOB_MAX_COUNT 1000000

struct job_error {
	size_t line;
	size_t col;
	size_t seq;
	char  *msg;
};

/* Parser state for one file. */
struct job_ctx {
	const char	       *file;
	yaml_document_t		doc;
	const struct catalog   *catalog;
	const struct inventory *inventory;
	struct job_error       *errs;
	size_t			nerrs;
};

/* Records one error at a node's position. */
void job_err(struct job_ctx *, const yaml_node_t *, const char *, ...)
    __attribute__((format(printf, 3, 4)));
/* Returns the index of s in a NULL-terminated list, or -1. */
int job_lookup(const char **, const char *);
/* Returns the names of a NULL-terminated list joined by ", ". */
char	    *job_join(const char **);
yaml_node_t *job_node(struct job_ctx *, int);
/* Returns a scalar node's text, or NULL for any other node. */
const char  *job_text(const yaml_node_t *);
size_t	     job_seq_len(const yaml_node_t *);
yaml_node_t *job_seq_item(struct job_ctx *, const yaml_node_t *, size_t);
/* Checks a mapping has only known (keys NULL: any), unique scalar keys. */
int job_map_check(struct job_ctx *, yaml_node_t *, const char *, const char **);
/* Returns the value of key (and its key node), or NULL. */
yaml_node_t *job_map_get(struct job_ctx *, yaml_node_t *, const char *,
    yaml_node_t **);
/* Returns a copy of a non-empty string value, or NULL after an error. */
char *job_get_string(struct job_ctx *, yaml_node_t *, const char *, bool,
    const char *);
/* Reads an integer in [min, max] into *out; keeps *out if absent. */
void job_get_int(struct job_ctx *, yaml_node_t *, const char *, long, long,
    long *);
/* Returns a non-empty sequence value, or NULL (after an error if wrong). */
yaml_node_t *job_get_seq(struct job_ctx *, yaml_node_t *, const char *, bool,
    yaml_node_t **);
/* Parses a decimal integer in [min, max]; -1 if it is not one. */
int job_read_int(const char *, long, long, long *);
/* Parses "kernels" (job_kernel.c). */
void job_read_kernels(struct job_ctx *, yaml_node_t *, struct job *);
/* Frees the contents of a kernel. */
void job_kernel_clear(struct job_kernel *);
/* Parses "benchmarks" (job_bench.c). */
void job_read_benchmarks(struct job_ctx *, yaml_node_t *, struct job *);

#endif
