/* Storing what an agent reports: results, parsed samples, facts. */
#ifndef HILAB_INGEST_H
#define HILAB_INGEST_H

#include <stdint.h>

struct agent_facts;
struct agent_result;
struct db;
struct plan_run;

/*
 * Stores one iteration's result and, for a measured iteration, the
 * metrics its parser finds, in one transaction.  Returns -1 with *cause
 * if the database failed.  An iteration that failed (non-zero exit,
 * timeout, output the parser cannot read, or output without a metric the
 * run requires, plan_run.metrics) is stored all the same, with the samples
 * found, and *problem says why (caller frees; left NULL when it went well).
 */
int ingest_result(struct db *, int64_t	run, const struct plan_run *,
    const struct agent_result *, char **problem, char **cause);
/* The facts as a JSON object; absent facts are null (caller frees). */
char *ingest_facts_json(const struct agent_facts *);

#endif
