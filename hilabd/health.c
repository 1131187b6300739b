/*
 * Health that decides: before each run the worker reads its machine's
 * health; a bad machine or one in maintenance takes no run, and one that
 * needed a recovery proves itself first with a health check (the agent's
 * facts and a short hackbench, or the command its machine file names).
 * HEALTH_CHECKS_MAX failed checks in a row make it bad.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/health.h"
#include "hilabd/worker.h"
#include "machines/agent_client.h"
#include "machines/machine.h"

#define HEALTH_CHECKS_MAX  3
#define HEALTH_TIMEOUT_MS  60000 /* or the host's command timeout */
#define HEALTH_RUN_ID_SIZE 80

/* What the check's one iteration showed. */
struct health_seen {
	bool	ran;
	int64_t exit_status;
	bool	timed_out;
};

/* The agent's result callback: keeps how the iteration ended. */
static int
health_result(const struct agent_result *res, void *arg)
{
	struct health_seen *seen = arg;

	if (res == NULL) /* a second of silence */
		return 0;
	seen->ran = true;
	seen->exit_status = res->exit_status;
	seen->timed_out = res->timed_out;
	return 0;
}

/* The check's command: the machine file's, or a short hackbench. */
static char *const *
health_argv(const struct machine *m)
{
	static char *const hackbench[] = { "hackbench", "-g", "1", "-l", "100",
		NULL };

	return m->health_check != NULL ? m->health_check : hackbench;
}

/* Runs the check on the connected agent; 0, or -1 with *cause. */
static int
health_run(struct worker_ctx *ctx, char **cause)
{
	const struct machine *m = ctx->w->machine;
	struct agent_facts    facts = { 0 };
	struct health_seen    seen = { 0 };
	char		      id[HEALTH_RUN_ID_SIZE];
	struct agent_run_spec spec = { .run_id = id,
		.argv = health_argv(m),
		.iterations = 1,
		.timeout_ms = m->ssh.command_timeout_ms > HEALTH_TIMEOUT_MS
		    ? m->ssh.command_timeout_ms
		    : HEALTH_TIMEOUT_MS };
	int		      state;

	if (agent_facts(ctx->conn, &facts, cause) == -1)
		return -1;
	agent_facts_clear(&facts);
	snprintf(id, sizeof id, "health-%lld", (long long)clock_now_ms());
	if (agent_run(ctx->conn, &spec, health_result, &seen, &state, cause) ==
	    -1)
		return -1;
	agent_ack(ctx->conn, id, cause);
	free(*cause);
	*cause = NULL;
	if (seen.ran && !seen.timed_out && seen.exit_status == 0)
		return 0;
	*cause = xasprintf("\"%s\" %s", spec.argv[0],
	    !seen.ran		 ? "did not run"
		: seen.timed_out ? "timed out"
				 : "failed");
	return -1;
}

/* Runs a due check; 0 when it passed. */
static int
health_check(struct worker_ctx *ctx)
{
	const char *name = worker_name(ctx);
	char	   *cause = NULL, *msg;
	int64_t	    t0 = clock_now_ms();
	int	    n;

	if (worker_connect(ctx, &cause) == 0 && health_run(ctx, &cause) == 0) {
		msg = xasprintf("health check passed in %.1f s (facts and "
				"\"%s\"): machine \"%s\" is good again",
		    (double)(clock_now_ms() - t0) / 1000,
		    health_argv(ctx->w->machine)[0], name);
		worker_event(ctx, NULL, DB_INFO, msg);
		worker_health(ctx, DB_HEALTH_GOOD, NULL);
		free(msg);
		return 0;
	}
	msg = xasprintf("health check failed: %s", cause);
	free(cause);
	cause = NULL;
	n = db_machine_check_failed(ctx->db, name, msg, HEALTH_CHECKS_MAX,
	    &cause);
	worker_event(ctx, NULL, DB_WARN, msg);
	if (n >= HEALTH_CHECKS_MAX)
		log_warn(name, "%d health checks failed: machine is bad", n);
	free(msg);
	free(cause);
	return -1;
}

bool
health_ready(struct worker_ctx *ctx)
{
	struct db_machine *m;
	char		  *cause = NULL;
	bool		   ok;

	if ((m = db_machine_get(ctx->db, worker_name(ctx), &cause)) == NULL) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
		return true;
	}
	ok = m->health != DB_HEALTH_BAD && m->health != DB_HEALTH_MAINTENANCE;
	if (ok && m->check_due)
		ok = health_check(ctx) == 0;
	db_machine_free(m);
	return ok;
}

void
health_answered(struct worker_ctx *ctx)
{
	char *cause = NULL;

	if (db_machine_answered(ctx->db, worker_name(ctx), &cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
	}
}
