/*
 * A run made ready on its host: the job's machine setup applied and held
 * (tune.c), the benchmark's tool installed when missing (install.c),
 * either way told as an event, the run's argv[0] resolved there, and the
 * server it needs started detached and stopped once the run is over
 * (server.c).
 * Everything here talks to the host over the setup's own ssh session, which
 * stays idle while the benchmark is measured.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/daemon.h"
#include "hilabd/ingest.h"
#include "hilabd/setup/setup.h"
#include "hilabd/story.h"
#include "hilabd/worker.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/agent_client.h"
#include "machines/machine.h"
#include "machines/ssh.h"

void
worker_setup_free(struct worker_ctx *ctx)
{
	struct worker_setup *st = ctx->setup;

	if (st == NULL)
		return;
	tune_end(ctx, st->tune.job);
	ssh_host_close(st->h);
	install_tools_clear(st);
	free(st);
	ctx->setup = NULL;
}

void
worker_exec_clear(struct worker_exec *ex)
{
	plan_argv_free(ex->argv);
	free(ex->cwd);
	free(ex->facts);
	memset(ex, 0, sizeof *ex);
}

/*
 * The run's benchmark, from the job the worker planned it with; the tools
 * found are forgotten when another job starts.
 */
static const struct job_benchmark *
setup_benchmark(struct worker_ctx *ctx, const struct db_run *r,
    const struct plan_run *p, char **cause)
{
	struct worker_setup *st = setup_get(ctx);

	if (st->job_id != r->job) {
		install_tools_clear(st);
		st->job_id = r->job;
	}
	if (ctx->job == NULL || ctx->plan_job != r->job ||
	    p->benchmark_index >= ctx->job->nbenchmarks) {
		*cause = xasprintf("run %lld: benchmark %zu not in the planned "
				   "job",
		    (long long)r->id, p->benchmark_index);
		return NULL;
	}
	return &ctx->job->benchmarks[p->benchmark_index];
}

/* Whether the benchmark needs anything of this step. */
static bool
setup_needed(const struct job_benchmark *b)
{
	if (!b->resolved || b->argv == NULL || b->argv[0] == NULL)
		return false;
	if (b->server.argv != NULL)
		return true;
	if (strcmp(b->argv[0], "hilab-agent") == 0)
		return false; /* the agent runs its own probes */
	return b->install.package != NULL || b->install.source != NULL;
}

/* Fills ex: argv with argv[0] resolved, the source tree as cwd. */
static void
setup_fill_exec(struct worker_ctx *ctx, const struct job_benchmark *b,
    const struct plan_run *p, const struct setup_tool *t,
    struct worker_exec *ex)
{
	char  *prefix = setup_prefix(ctx, b);
	size_t n, i;

	for (n = 0; p->argv[n] != NULL; n++)
		;
	ex->argv = xcalloc(n + 1, sizeof *ex->argv);
	for (i = 0; i < n; i++)
		ex->argv[i] = xstrdup(i == 0 && t->path ? t->path : p->argv[i]);
	if (t->in_prefix)
		ex->cwd = xasprintf("%s/src", prefix);
	free(prefix);
}

/*
 * The run's tool from install_tool; the first look-up of it on this boot
 * is told as an event of the run: installed, with how long it took, or
 * already installed.
 */
static const struct setup_tool *
setup_find_tool(struct worker_ctx *ctx, const struct db_run *r,
    const struct plan_run *p, const struct job_benchmark *b, char **cause)
{
	const struct setup_tool *t;
	size_t			 known = setup_get(ctx)->ntools;
	int64_t			 t0 = clock_now_ms();
	char			*msg;

	t = install_tool(ctx, r, p, b, cause);
	if (t == NULL || setup_get(ctx)->ntools == known)
		return t;
	msg = story_installed(b, t->path, clock_now_ms() - t0, t->installed);
	worker_event(ctx, r, DB_INFO, msg);
	free(msg);
	return t;
}

/*
 * The job's machine setup: applied unless held, then the run's facts (read
 * again when it was applied now) with what it came to, in ex.
 */
static int
setup_machine(struct worker_ctx *ctx, const struct db_run *r, const char *facts,
    struct worker_exec *ex, char **cause)
{
	struct agent_facts now = { 0 };
	char		  *fresh = NULL;
	int		   rc;

	if ((rc = tune_begin(ctx, r, ctx->job, facts, cause)) == -1)
		return -1;
	if (rc == 1) {
		if (agent_facts(ctx->conn, &now, cause) == -1)
			return -1;
		fresh = ingest_facts_json(&now);
		agent_facts_clear(&now);
	}
	ex->facts = tune_facts(ctx, facts, fresh);
	free(fresh);
	return 0;
}

int
worker_setup_begin(struct worker_ctx *ctx, const struct db_run *r,
    const struct plan_run *p, const char *facts, struct worker_exec *ex,
    char **cause)
{
	const struct job_benchmark *b;
	const struct setup_tool	   *t;
	int			    rc = -1;

	memset(ex, 0, sizeof *ex);
	if ((b = setup_benchmark(ctx, r, p, cause)) == NULL)
		return -1;
	if (setup_machine(ctx, r, facts, ex, cause) == -1)
		goto out;
	if (!setup_needed(b))
		return 0;
	if ((t = setup_find_tool(ctx, r, p, b, cause)) == NULL)
		goto out;
	setup_fill_exec(ctx, b, p, t, ex);
	if (b->server.argv == NULL)
		rc = 0;
	else
		rc = server_start(ctx, r, b, p, t->server,
		    ex->cwd ? ex->cwd : setup_agent_dir(ctx), cause);
out:
	if (rc == -1) {
		worker_setup_end(ctx, r);
		worker_exec_clear(ex);
	}
	return rc;
}

void
worker_setup_end(struct worker_ctx *ctx, const struct db_run *r)
{
	struct worker_setup *st = ctx->setup;

	if (st == NULL || !st->server_up)
		return;
	server_stop(ctx, r);
	st->server_up = false;
}

bool
worker_setup_asked(struct worker_ctx *ctx, const struct db_run *r)
{
	const char *words[JOB_SETUP_NCONTROLS][2];

	return ctx->job != NULL && ctx->plan_job == r->job &&
	    job_setup_words(&ctx->job->setup, words) > 0;
}

void
worker_setup_job_end(struct worker_ctx *ctx, int64_t job)
{
	if (ctx->setup != NULL && ctx->setup->tune.ch != NULL &&
	    ctx->setup->tune.job == job)
		tune_end(ctx, job);
}

void
worker_setup_sweep(struct worker_ctx *ctx, const struct db_run *r)
{
	setup_get(ctx)->server_up = true;
	worker_setup_end(ctx, r);
}
