/*
 * Bisections in hilabd: each tick, a running bisection whose last step job
 * has ended is read back (bisect/load.h) and either ends (found, unsure, no
 * change, failed) or queues its next step, a job of its template with the
 * commit the search asks for as the one kernel, built and booted as any.
 */
#ifndef HILAB_BISECTOR_H
#define HILAB_BISECTOR_H

struct db;

/* Moves every running bisection on by a step if it can; each tick. */
void bisector_tick(struct db *);

#endif
