/*
 * Machine health before a run (health.c): bad and maintenance machines
 * take no run; one that needed a recovery passes a health check first.
 */
#ifndef HILAB_HEALTH_H
#define HILAB_HEALTH_H

#include <stdbool.h>

#include "hilabd/worker_ctx.h"

/*
 * True when the machine may take a run now: neither bad nor in
 * maintenance, and a due health check (after a recovery) passed; the check
 * and its outcome are events, and enough failed checks make it bad.
 */
bool health_ready(struct worker_ctx *);
/*
 * The machine's agent answered for a run: an unknown machine with no check
 * due (one never seen before) is good now.  Health set by hand or by a
 * recovery is left as it is.
 */
void health_answered(struct worker_ctx *);

#endif
