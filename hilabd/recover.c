/*
 * Bringing back an ssh machine that stopped answering or whose kernel did
 * not come back: one power cycle through its power driver, then its agent
 * again within the machine's boot timeout, and a health check due before
 * its next run.  What a power cycle cannot mend (no power control, a host
 * key that changed, a power control that failed) puts the machine in
 * maintenance.  Each step is an event of the run that found it.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/worker.h"
#include "machines/backend.h"
#include "machines/machine.h"
#include "machines/power.h"
#include "machines/ssh.h"

#define RECOVER_PER_JOB 3 /* power cycles of one job */

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
 * Power-cycles the machine; 0, or -1 with *cause.  *what names the power
 * driver (caller frees).
 */
static int
recover_cycle(struct worker_ctx *ctx, const struct db_run *r, const char *why,
    char **what, char **cause)
{
	const struct machine *m = ctx->w->machine;
	struct power	     *p;
	char		     *msg, boot[UNITS_STR_MAX];
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
				"%.1f s; waiting up to %s for ssh",
		    m->name, power_what(p),
		    (double)(clock_now_ms() - t0) / 1000,
		    units_format_duration(m->power.boot_timeout_ms, boot,
			sizeof boot));
		worker_event(ctx, r, DB_INFO, msg);
		free(msg);
		rc = 0;
	}
	power_close(p);
	return rc;
}

/*
 * Replaces *cause by the message of a recovery that did not help and puts
 * the machine in health h (bad: it did not come back; maintenance: the
 * lab's own part failed), the message its reason.
 */
static void
recover_failed(struct worker_ctx *ctx, enum db_health h, const char *what,
    char **cause)
{
	const struct machine *m = ctx->w->machine;
	char		     *msg;

	msg = xasprintf("host \"%s\" (%s:%d) %s: %s", m->name, m->ssh.host,
	    m->ssh.port, what, *cause);
	free(*cause);
	*cause = msg;
	worker_health(ctx, h, msg);
}

/*
 * Puts the machine in maintenance: nothing here can bring it back (no
 * power control, a host key that changed).  *cause is kept; the event
 * tells the operator what to do.
 */
static void
recover_maintenance(struct worker_ctx *ctx, const struct db_run *r,
    const char *why)
{
	const char *name = worker_name(ctx);
	char	   *msg;

	msg = xasprintf("machine \"%s\" is in maintenance: %s; once it is "
			"fixed: hilab machines set %s good",
	    name, why, name);
	worker_event(ctx, r, DB_ERROR, msg);
	worker_health(ctx, DB_HEALTH_MAINTENANCE, why);
	free(msg);
}

/*
 * The machine's agent answered again, t0 being when hilab began to wait
 * after what (a power cycle, its own reset): an event, and the machine due
 * a health check, how it was recovered kept as the reason.
 */
static void
recover_answered(struct worker_ctx *ctx, const struct db_run *r, int64_t t0,
    const char *after, const char *how)
{
	const struct machine *m = ctx->w->machine;
	char		     *msg, *cause = NULL;

	msg = xasprintf("host \"%s\" answers again %.1f s after %s; a health "
			"check comes before its next run",
	    m->name, (double)(clock_now_ms() - t0) / 1000, after);
	worker_event(ctx, r, DB_INFO, msg);
	free(msg);
	if (db_machine_recovered(ctx->db, m->name, how, &cause) == -1) {
		log_warn(m->name, "%s", cause);
		free(cause);
	}
}

/*
 * Power-cycles the machine and waits for its agent; 0, or -1 with *cause
 * replaced and the machine bad or in maintenance.  why (owned) is what
 * made it needed.
 */
static int
recover_power(struct worker_ctx *ctx, const struct db_run *r, char *why,
    char **cause)
{
	const struct machine *m = ctx->w->machine;
	char		     *msg, *what = NULL;
	int64_t		      t0;

	worker_disconnect(ctx);
	ctx->booted.valid = false; /* what it boots is the default now */
	if (recover_cycle(ctx, r, why, &what, cause) == -1) {
		/* The BMC or the power command: the lab's part, not the kernel.
		 */
		recover_failed(ctx, DB_HEALTH_MAINTENANCE,
		    "needs a power cycle, and the power control failed "
		    "(an infrastructure error)",
		    cause);
		goto out;
	}
	t0 = clock_now_ms();
	if (worker_connect_until(ctx, t0 + m->power.boot_timeout_ms, cause) ==
	    -1) {
		msg = xasprintf("does not answer %.0f s after a power cycle "
				"through %s",
		    (double)(clock_now_ms() - t0) / 1000, what);
		recover_failed(ctx,
		    ssh_host_last_error() == SSH_HOST_TRUST
			? DB_HEALTH_MAINTENANCE
			: DB_HEALTH_BAD,
		    msg, cause);
		free(msg);
		goto out;
	}
	msg = xasprintf("recovered by a power cycle through %s: %s", what, why);
	recover_answered(ctx, r, t0, "the power cycle", msg);
	free(msg);
out:
	free(what);
	free(why);
	return *cause == NULL ? 0 : -1;
}

/* True (and *cause replaced) when the job used up its power cycles. */
static bool
recover_used_up(struct worker_ctx *ctx, const struct db_run *r, char **cause)
{
	char *msg;

	if (recover_allowed(ctx, r))
		return false;
	msg = xasprintf("not answering, and not power-cycled again "
			"(%d power cycles in job %lld already)",
	    RECOVER_PER_JOB, (long long)r->job);
	recover_failed(ctx, DB_HEALTH_BAD, msg, cause);
	free(msg);
	return true;
}

int
recover_host(struct worker_ctx *ctx, const struct db_run *r, char **cause)
{
	const struct machine *m = ctx->w->machine;
	char		     *why;

	if (m->kind != MACHINE_SSH)
		return -1;
	if (ssh_host_last_error() == SSH_HOST_TRUST) {
		/* A power cycle does not change a host key. */
		recover_maintenance(ctx, r, *cause);
		return -1;
	}
	if (m->power.kind == MACHINE_POWER_NONE ||
	    recover_used_up(ctx, r, cause))
		return -1;
	why = *cause;
	*cause = NULL;
	return recover_power(ctx, r, why, cause);
}

/*
 * A kernel that panicked and said it reboots itself: waits (the machine's
 * power boot timeout) for the firmware to bring the default kernel's agent
 * back.  true if it did, the machine then due a health check as after a
 * power cycle; false if a power cycle is still needed.
 */
static bool
recover_self_reset(struct worker_ctx *ctx, const struct db_run *r)
{
	const struct machine *m = ctx->w->machine;
	int64_t		      t0 = clock_now_ms();
	char		     *cause = NULL;
	bool		      back;

	worker_disconnect(ctx);
	ctx->booted.valid = false; /* what it boots is the default now */
	back = worker_connect_until(ctx, t0 + m->power.boot_timeout_ms,
		   &cause) == 0;
	free(cause);
	if (back)
		recover_answered(ctx, r, t0,
		    "its kernel's panic, having reset itself: no power cycle",
		    "recovered by its own reset after its kernel's panic");
	return back;
}

void
recover_boot(struct worker_ctx *ctx, const struct db_run *r, const char *why)
{
	const struct machine *m = ctx->w->machine;
	char		     *cause = NULL;

	if (!ctx->backend->kernel_failed) {
		/* Refused before the switch: the lab's part, not the kernel. */
		if (m->kind == MACHINE_SSH &&
		    ssh_host_last_error() == SSH_HOST_TRUST)
			recover_maintenance(ctx, r, why);
		return;
	}
	if (db_run_set_boot_failed(ctx->db, r->id, &cause) == -1) {
		log_warn(m->name, "%s", cause);
		free(cause);
		cause = NULL;
	}
	/* A VM goes with its domain; the next boot is a fresh one. */
	if (m->kind != MACHINE_SSH ||
	    (ctx->backend->resets_itself && recover_self_reset(ctx, r)))
		return;
	if (m->power.kind == MACHINE_POWER_NONE) {
		recover_maintenance(ctx, r,
		    "its kernel did not come back and it has no power control");
		return;
	}
	if (recover_used_up(ctx, r, &cause) ||
	    recover_power(ctx, r, xstrdup("its kernel did not come back"),
		&cause) == -1)
		worker_event(ctx, r, DB_ERROR, cause);
	free(cause);
}
