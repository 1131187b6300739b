/*
 * Bringing back an ssh machine that stopped answering: one power cycle
 * through its power driver, then its agent again within the machine's boot
 * timeout.  Each step is an event of the run that found the host gone.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/worker.h"
#include "machines/machine.h"
#include "machines/power.h"

#define RECOVER_PER_JOB	 3    /* power cycles of one job */
#define RECOVER_PAUSE_MS 1000 /* between two connect attempts */

/* True while the job may have one more power cycle (counts it). */
static bool
recover_allowed(struct worker_ctx *ctx, const struct db_run *r)
{
	if (ctx->cycled_job != r->job) {
		ctx->cycled_job = r->job;
		ctx->cycles = 0;
	}
	if (ctx->cycles >= RECOVER_PER_JOB)
		return false;
	ctx->cycles++;
	return true;
}

/*
 * Connects to the agent until it answers or the deadline passes; 0, or -1
 * with *cause from the last attempt.
 */
static int
recover_wait(struct worker_ctx *ctx, int64_t deadline, char **cause)
{
	int64_t left;

	for (;;) {
		if (worker_connect(ctx, cause) == 0)
			return 0;
		if ((left = deadline - clock_now_ms()) <= 0)
			return -1;
		log_debug(worker_name(ctx), "%s", *cause);
		free(*cause);
		*cause = NULL;
		clock_sleep_ms(
		    left < RECOVER_PAUSE_MS ? left : RECOVER_PAUSE_MS);
	}
}

/*
 * Power-cycles the machine; 0, or -1 with *cause.  *what names the power
 * driver (caller frees).
 */
static int
recover_cycle(struct worker_ctx *ctx, const struct db_run *r, const char *why,
    char **what, char **cause)
{
	const struct machine *m = ctx->w->machine;
	struct power	     *p;
	char		     *msg;
	int64_t		      t0 = clock_now_ms();
	int		      rc = -1;

	if ((p = power_open(m, cause)) == NULL)
		return -1;
	*what = xstrdup(power_what(p));
	msg = xasprintf("host \"%s\" does not answer (%s): power cycle "
			"through %s",
	    m->name, why, power_what(p));
	worker_event(ctx, r, DB_WARN, msg);
	free(msg);
	if (power_set(p, POWER_CYCLE, cause) == 0) {
		msg = xasprintf("host \"%s\": power cycled through %s in "
				"%.1f s; waiting up to %d s for ssh",
		    m->name, power_what(p),
		    (double)(clock_now_ms() - t0) / 1000,
		    m->power.boot_timeout_ms / 1000);
		worker_event(ctx, r, DB_INFO, msg);
		free(msg);
		rc = 0;
	}
	power_close(p);
	return rc;
}

/* Replaces *cause by the message of a recovery that did not help. */
static void
recover_failed(struct worker_ctx *ctx, const char *what, char **cause)
{
	const struct machine *m = ctx->w->machine;
	char		     *msg;

	msg = xasprintf("host \"%s\" (%s:%d) %s: %s", m->name, m->ssh.host,
	    m->ssh.port, what, *cause);
	free(*cause);
	*cause = msg;
	worker_health(ctx, DB_HEALTH_BAD);
}

int
recover_host(struct worker_ctx *ctx, const struct db_run *r, char **cause)
{
	const struct machine *m = ctx->w->machine;
	char		     *why, *msg, *what = NULL;
	int64_t		      t0;

	if (m->kind != MACHINE_SSH || m->power.kind == MACHINE_POWER_NONE)
		return -1;
	if (!recover_allowed(ctx, r)) {
		msg = xasprintf("not answering, and not power-cycled again "
				"(%d power cycles in job %lld already)",
		    RECOVER_PER_JOB, (long long)r->job);
		recover_failed(ctx, msg, cause);
		free(msg);
		return -1;
	}
	why = *cause;
	*cause = NULL;
	worker_disconnect(ctx);
	ctx->booted.valid = false; /* what it boots is the default now */
	if (recover_cycle(ctx, r, why, &what, cause) == -1) {
		recover_failed(ctx,
		    "does not answer, and the power cycle "
		    "failed",
		    cause);
		goto out;
	}
	t0 = clock_now_ms();
	if (recover_wait(ctx, t0 + m->power.boot_timeout_ms, cause) == -1) {
		msg = xasprintf("does not answer %.0f s after a power cycle "
				"through %s",
		    (double)(clock_now_ms() - t0) / 1000, what);
		recover_failed(ctx, msg, cause);
		free(msg);
		goto out;
	}
	msg = xasprintf("host \"%s\" answers again %.1f s after the power "
			"cycle",
	    m->name, (double)(clock_now_ms() - t0) / 1000);
	worker_event(ctx, r, DB_INFO, msg);
	free(msg);
out:
	free(what);
	free(why);
	return *cause == NULL ? 0 : -1;
}
