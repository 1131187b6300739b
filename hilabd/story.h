/*
 * The story of a job as hilab logs tells it (story.c): the texts of the
 * info events hilabd records when things go well.  The planner records a
 * job planned and ended; a worker a kernel booted, a benchmark installed
 * (or found installed), a run started and a run done with its means.
 * Rounds are counted from 0, as hilab status shows them.
 */
#ifndef HILAB_STORY_H
#define HILAB_STORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

struct job;
struct job_benchmark;
struct plan_run;

/*
 * "planned: 8 runs on 1 machine, 2 kernels, 2 rounds" (caller frees),
 * for job planned into nruns runs.
 */
char *story_planned(const struct job *, size_t nruns);
/*
 * "done in 5m12s: 8 runs", "failed in 5m12s: 8 runs, 2 failed" or
 * "cancelled after 1m3s: 8 runs, 5 cancelled": job dj ending in state end
 * now (caller frees).
 */
char *story_job_end(const struct db_job *dj, enum db_state end);
/*
 * `kernel "base" booted in 41.2s: 6.1.0-13-amd64`, with "(2 boots)" when
 * it took more than one; facts is the run's JSON (caller frees).
 */
char *story_booted(const char *kernel, int64_t took_ms, int boots,
    const char *facts);
/*
 * `benchmark "hackbench": rt-tests installed in 12.3s: /usr/bin/hackbench`
 * when installed is true, else `... rt-tests already installed: ...`;
 * path is the tool found on the host (caller frees).
 */
char *story_installed(const struct job_benchmark *, const char *path,
    int64_t took_ms, bool installed);
/*
 * `started: hackbench groups=4 (kernel "base" 6.1.0-13-amd64, round 0):
 * 30 iterations + 1 warmup` (caller frees) for run r of plan entry p (an
 * adaptive round's run has iterations of its own); facts is its JSON.
 */
char *story_started(const struct plan_run *p, const struct db_run *r,
    const char *facts);
/*
 * "done in 12.3s: 30 iterations + 1 warmup; time: mean 0.412 s (n=30)":
 * the means of the first metrics run stored, in the order benchmark b
 * declares them, each with its declared unit (caller frees).
 */
char *story_done(struct db *, int64_t run, const struct job_benchmark *b);

#endif
