/*
 * Spools left on hosts.  The agent keeps a run's results until hilabd
 * acknowledges them; a run that ended without that (its host was away
 * past reconnect_for, a cancel or an acknowledgement that could not reach
 * it) leaves its spool behind.  Before each run, the spools of this
 * database's runs that have ended on this machine are freed (a benchmark
 * still going there stopped first), so a host's disk keeps only what is
 * still to be collected.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/daemon.h"
#include "hilabd/worker.h"
#include "machines/agent_client.h"

/* The ended run of this database and machine a spool belongs to, or NULL. */
static struct db_run *
spools_owner(struct worker_ctx *ctx, const char *run_id)
{
	struct db_run *r;
	char	      *cause = NULL;
	long long      id;

	if (sscanf(run_id, "j%*[0-9]-r%lld-", &id) != 1 ||
	    (r = db_run_get(ctx->db, id, &cause)) == NULL) {
		free(cause);
		return NULL;
	}
	if (r->agent_run_id != NULL && strcmp(r->agent_run_id, run_id) == 0 &&
	    strcmp(r->machine, worker_name(ctx)) == 0 &&
	    r->state != DB_QUEUED && r->state != DB_RUNNING)
		return r;
	db_run_free(r);
	return NULL;
}

/* Stops (if need be) and frees one ended run's spool; says so. */
static void
spools_free_one(struct worker_ctx *ctx, const struct agent_spool *sp,
    const struct db_run *r)
{
	char *cause = NULL, *msg;
	int   state;

	if ((sp->state == PROTO_RUN_RUNNING &&
		agent_cancel(ctx->conn, sp->run_id, &state, &cause) == -1) ||
	    agent_ack(ctx->conn, sp->run_id, &cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
		return;
	}
	msg = xasprintf("spool of agent run \"%s\" freed on host \"%s\": the "
			"run had ended %s%s",
	    sp->run_id, worker_name(ctx), db_state_name(r->state),
	    sp->state == PROTO_RUN_RUNNING ? ", its benchmark still going there"
					   : "");
	worker_event(ctx, r, DB_INFO, msg);
	free(msg);
}

void
worker_free_spools(struct worker_ctx *ctx)
{
	struct agent_spool *v;
	struct db_run	   *r;
	char		   *cause = NULL;
	size_t		    n, i;

	if (agent_spools(ctx->conn, &v, &n, &cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		if ((r = spools_owner(ctx, v[i].run_id)) == NULL)
			continue;
		spools_free_one(ctx, &v[i], r);
		db_run_free(r);
	}
	agent_spools_free(v, n);
}
