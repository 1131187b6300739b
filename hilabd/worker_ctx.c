/*
 * The worker context (worker_ctx.h): the helpers every step of a worker's
 * story and the setup leaves share.
 */
#include <stdlib.h>

#include "common/clock.h"
#include "common/log.h"
#include "db/db.h"
#include "hilabd/daemon.h"
#include "hilabd/worker_ctx.h"
#include "machines/agent_client.h"
#include "machines/inventory.h"
#include "machines/ssh.h"

#define WORKER_CONNECT_PAUSE_MS 1000 /* between two connect attempts */

const char *
worker_name(const struct worker_ctx *ctx)
{
	return ctx->w->machine->name;
}

/* Logs to stderr and to the events table. */
void
worker_event(struct worker_ctx *ctx, const struct db_run *r,
    enum db_level level, const char *msg)
{
	char *cause = NULL;

	if (level >= DB_WARN)
		log_warn(worker_name(ctx), "%s", msg);
	else
		log_info(worker_name(ctx), "%s", msg);
	if (db_event_add(ctx->db, r ? r->job : 0, r ? r->id : 0,
		worker_name(ctx), level, &cause, "%s", msg) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
	}
}

/* Records the machine's health; a failure to record it is only logged. */
void
worker_health(struct worker_ctx *ctx, enum db_health health, const char *reason)
{
	char *cause = NULL;

	if (db_machine_set_health(ctx->db, worker_name(ctx), health, reason,
		&cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
	}
}

/*
 * Connects to the agent, trying again until it answers or the deadline
 * passes; 0, or -1 with *cause from the last attempt.  A host key or login
 * refused does not mend with time: no second try then.
 */
int
worker_connect_until(struct worker_ctx *ctx, int64_t deadline, char **cause)
{
	int64_t left;

	for (;;) {
		if (worker_connect(ctx, cause) == 0)
			return 0;
		if (ssh_host_last_error() == SSH_HOST_TRUST ||
		    (left = deadline - clock_now_ms()) <= 0)
			return -1;
		log_debug(worker_name(ctx), "%s; trying again", *cause);
		free(*cause);
		*cause = NULL;
		clock_sleep_ms(left < WORKER_CONNECT_PAUSE_MS
			? left
			: WORKER_CONNECT_PAUSE_MS);
	}
}

/* Connects to the machine's agent unless already connected. */
int
worker_connect(struct worker_ctx *ctx, char **cause)
{
	if (ctx->conn != NULL)
		return 0;
	ctx->conn =
	    agent_connect(ctx->w->machine, ctx->w->daemon->agent_dir, cause);
	if (ctx->conn == NULL)
		return -1;
	log_info(worker_name(ctx), "agent ready (%s%s)", agent_arch(ctx->conn),
	    agent_uploaded(ctx->conn) ? ", uploaded" : "");
	return 0;
}

void
worker_disconnect(struct worker_ctx *ctx)
{
	agent_close(ctx->conn);
	ctx->conn = NULL;
}

/* True if someone asked to cancel the run's job. */
bool
worker_cancel_requested(struct worker_ctx *ctx, int64_t job_id)
{
	struct db_job *dj;
	char	      *cause = NULL;
	bool	       yes;

	if ((dj = db_job_get(ctx->db, job_id, &cause)) == NULL) {
		free(cause);
		return false;
	}
	yes = dj->cancel_requested;
	db_job_free(dj);
	return yes;
}
