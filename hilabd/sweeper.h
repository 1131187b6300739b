/*
 * Scheduled sweeps in hilabd: due sweeps re-read their job file and queue
 * it as a job; a sweep's done job is compared with its done job before, and
 * every metric that got significantly worse is logged as a warn event.
 */
#ifndef HILAB_SWEEPER_H
#define HILAB_SWEEPER_H

#include <stdint.h>

struct daemon;
struct db;

/* Checks newly ended sweep jobs, then queues the due sweeps; each tick. */
void sweeper_tick(struct daemon *, struct db *);

/*
 * Compares job with base, the sweep's done job before it, per (machine,
 * kernel, benchmark, params, metric) on the samples that count (those of
 * hilab compare, db_samples_of_jobs): a warn event for each metric worse
 * with p < STATS_ALPHA, then an info event with the counts.  A metric
 * worse means worse in the direction both jobs declare for it: one that a
 * job does not declare, or the two declare differently, is never flagged.
 * Returns how
 * many got worse, or -1 with *cause.
 */
int sweeper_compare(struct db *, int64_t sweep, const char *name, int64_t base,
    int64_t job, char **cause);

#endif
