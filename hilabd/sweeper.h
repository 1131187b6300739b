/*
 * Scheduled sweeps in hilabd: due sweeps re-read their job file and queue
 * it as a job; once a sweep's job is done, each series of the sweep's done
 * jobs is searched for change points (sweeper_detect), and the job is
 * compared with the done job before it for an info note (sweeper_compare).
 */
#ifndef HILAB_SWEEPER_H
#define HILAB_SWEEPER_H

#include <stddef.h>
#include <stdint.h>

#include "report/compare.h"

struct daemon;
struct db;
struct db_sweep;
struct db_sweep_change;

/* Checks newly ended sweep jobs, then queues the due sweeps; each tick. */
void sweeper_tick(struct daemon *, struct db *);

/*
 * Compares job with base, the sweep's done job before it, per (machine,
 * kernel, benchmark, params, metric) on the samples that count (those
 * db_samples_of_jobs reads, as tables do): an info event for each metric
 * worse with p < STATS_ALPHA (a note: between two jobs hours apart, one
 * metric in twenty is "significant" by chance), then an info event with the
 * counts.  A metric worse means worse in the direction both jobs declare
 * for it: one that a job does not declare, or the two declare differently,
 * is never flagged.  Returns how many got worse, or -1 with *cause.
 */
int sweeper_compare(struct db *, int64_t sweep, const char *name, int64_t base,
    int64_t job, char **cause);

/*
 * Looks for change points in every series (machine, benchmark, params,
 * metric) of the sweep's done jobs up to job, one point per job (the
 * metric's statistic of the job's samples that count), from the series'
 * last stored change on (report/changepoint.h, changepoint_defaults).
 * Each change is stored as suspected (db_sweep_change_add), logged as a
 * warn event (regression) or info event (improvement) naming the series,
 * the job from which it changed, the medians before and after, the change
 * and p, and handed to sweeper_suspected; then an info event counts them.
 * Returns the regressions found, or -1 with *cause.
 */
int sweeper_detect(struct db *, const struct db_sweep *w, int64_t job,
    char **cause);

/*
 * Called for each change sweeper_detect stored: queues its confirmation,
 * an interleaved A/B job on the series' machine (hilabd/sweeper_confirm.c)
 * of the kernel and benchmark definition of c->before_job (kernel "good")
 * against those of c->job ("suspect"), w->confirm_rounds rounds in
 * alternating order; the change becomes "confirming".  Failures are
 * logged and leave it suspected.
 */
void sweeper_suspected(struct db *, const struct db_sweep *w,
    const struct db_sweep_change *c);

/*
 * Decides the sweep's confirming changes whose A/B job ended: with the
 * metric's test as hilab compare runs it, "confirmed" if suspect differs
 * from good at p < STATS_ALPHA by the detector's minimum effect or more in
 * the change's direction, else "rejected"; "failed" if the job did not end
 * done.  Each decision is an event; a confirmed regression is mailed
 * (sweeper_notify).  Each tick.
 */
void sweeper_confirm_check(struct db *, const struct db_sweep *w);

/*
 * Mails a report (hilabd/sweeper_notify.c) to the sweep's mbox and mail
 * command, if it has them: for a confirmed regression c (its A/B job's
 * report), or with c NULL for the failed sweep job job.  Failures are
 * logged and noted as events.
 */
void sweeper_notify(struct db *, const struct db_sweep *w,
    const struct db_sweep_change *c, int64_t job);

/* The spec of job id as JSON, or NULL with *cause. */
struct json_t *sweeper_spec_of(struct db *, int64_t id, char **cause);
/* The benchmark named name in a job's spec, or NULL (borrowed). */
struct json_t *sweeper_benchmark_of(struct json_t *spec, const char *name);
/* Pins each parameter of benchmark b to its value in params ("k=v,..."). */
void sweeper_pin(struct json_t *b, const char *params);

/*
 * Mails subject and body (a report about job, or 0) to the sweep's mbox
 * and mail command, if it has them; each delivery is noted as an event,
 * failures logged.
 */
void sweeper_mail(struct db *, const struct db_sweep *w, int64_t job,
    const char *subject, const char *body);

/*
 * Starts the bisection of a confirmed regression c when the sweep asks
 * for one (w->bisect_budget > 0): the kernels of c's two jobs built from
 * one git tree at two commits, good the one before; an event says what
 * it started or why it could not.
 */
void sweeper_bisect(struct db *, const struct db_sweep *w,
    const struct db_sweep_change *c);

/*
 * Follows the branches of the job's kernels built from git
 * (hilabd/sweeper_follow.c): fetches each kernel's tree when it has a
 * remote and sets the kernel's base to the commit it names now.  Returns
 * 1 if some built kernel is at another commit than in last_spec (the spec
 * of the sweep's last done job, or NULL), or the job builds none; 0 if all
 * are where they were (nothing new to measure); -1 with *cause.
 */
struct job;
int sweeper_follow(struct job *job, const char *last_spec, char **cause);

/*
 * A computed one-row table of the samples x[0] (column names[0], the base)
 * and x[1] (names[1]); the caller frees it.
 */
struct compare_table *sweeper_table(const char *benchmark, const char *metric,
    const char *unit, enum compare_dir, enum compare_stat, const char *params,
    const char *names[2], double *const x[2], const size_t n[2]);

#endif
