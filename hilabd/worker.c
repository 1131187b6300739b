/*
 * A machine's worker thread.  Its story: wait for work, lease the machine,
 * reach its agent, learn what it runs, run each benchmark, store every
 * result, acknowledge it, release the machine.
 */
#include <sys/random.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/daemon.h"
#include "hilabd/health.h"
#include "hilabd/ingest.h"
#include "hilabd/story.h"
#include "hilabd/worker.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/agent_client.h"
#include "machines/backend.h"
#include "machines/inventory.h"
#include "machines/ssh.h"

#define WORKER_LEASE_MS		(10 * 60 * 1000)
#define WORKER_BACKOFF_MAX_MS	30000 /* between reconnects to a run's host */
#define WORKER_CONNECT_GRACE_MS 4000  /* a silent host, before a power cycle */
/* A worker's page cache: it writes its runs' rows and reads a few. */
#define WORKER_DB_CACHE_KIB	256

/* One run in progress: what the result callback needs. */
struct worker_run {
	struct worker_ctx     *ctx;
	const struct db_run   *run;
	const struct plan_run *plan;
	char		      *problem; /* first failed iteration */
	int64_t		       last_seq;
	bool		       cancelled;
	bool		       left; /* hilabd stops: collected at its start */
	bool		       db_failed;
	bool		       ended;	  /* its end seen: the spool to free */
	bool		       recovered; /* host power-cycled: run again */
	bool		       boot_failed; /* its boot: recover_boot */
	char		      *down; /* why its kernel went down meanwhile */
	struct worker_exec     exec; /* from worker_setup_begin */
};

static void worker_retry(struct worker_ctx *, const struct db_run *,
    const char *);
static bool worker_controller_stopping(struct worker *);

/* The rounds ctx's plan holds (the last run's round comes last). */
static int
worker_plan_rounds(const struct worker_ctx *ctx)
{
	return ctx->plan.n > 0 ? ctx->plan.runs[ctx->plan.n - 1].round + 1 : 0;
}

/*
 * Loads the plan of a job as far as round (rounds past the job's own are
 * adaptive iterations'), reusing it while it holds that round.
 */
static int
worker_load_plan(struct worker_ctx *ctx, int64_t job_id, int round,
    char **cause)
{
	struct db_job *dj;
	struct job    *job;
	int	       rc, rounds;

	if (ctx->plan_job == job_id && round < worker_plan_rounds(ctx))
		return 0;
	plan_free(&ctx->plan);
	job_free(ctx->job);
	ctx->job = NULL;
	ctx->plan_job = 0;
	if ((dj = db_job_get(ctx->db, job_id, cause)) == NULL)
		return -1;
	job = job_from_json(dj->spec, cause);
	db_job_free(dj);
	if (job == NULL)
		return -1;
	rounds = round < job->rounds ? job->rounds : 2 * (round + 1);
	if ((rc = plan_build_rounds(job, 0, rounds, &ctx->plan, cause)) == -1) {
		job_free(job);
		return -1;
	}
	ctx->plan_job = job_id;
	ctx->job = job;
	return 0;
}

/* The plan entry of a stored run: same machine, round and position. */
static const struct plan_run *
worker_plan_run(const struct worker_ctx *ctx, const struct db_run *r)
{
	const struct plan_run *p;
	size_t		       i;

	for (i = 0; i < ctx->plan.n; i++) {
		p = &ctx->plan.runs[i];
		if (p->round == r->round && p->position == r->position &&
		    strcmp(p->machine, r->machine) == 0)
			return p;
	}
	return NULL;
}

/* Why the machine's kernel went down since it booted, or NULL. */
static char *
worker_down(struct worker_ctx *ctx)
{
	return ctx->backend != NULL ? backend_down(ctx->backend) : NULL;
}

/*
 * A second of silence from the run: the exchange stops when its job's
 * cancel was asked for (the run is then stopped on the host), when
 * hilabd stops (the run goes on there, collected at the next start) or
 * when the kernel went down (a panic on the console: the run fails).  A
 * retired worker's run goes on to its end.
 */
static int
worker_tick(struct worker_run *wr)
{
	if (wr->cancelled || wr->left) /* the exchange carrying it out */
		return 0;
	if (wr->down != NULL)
		return 1;
	if (worker_cancel_requested(wr->ctx, wr->run->job))
		wr->cancelled = true;
	else if (worker_controller_stopping(wr->ctx->w))
		wr->left = true;
	else
		wr->down = worker_down(wr->ctx);
	return wr->cancelled || wr->left || wr->down != NULL;
}

/* Stores one result as it arrives; stops the exchange on cancel. */
static int
worker_result_cb(const struct agent_result *res, void *arg)
{
	struct worker_run *wr = arg;
	struct worker_ctx *ctx = wr->ctx;
	char		  *problem = NULL, *cause = NULL;

	if (res == NULL)
		return worker_tick(wr);
	if (ingest_result(ctx->db, wr->run->id, wr->plan, res, &problem,
		&cause) == -1) {
		worker_event(ctx, wr->run, DB_ERROR, cause);
		free(cause);
		wr->db_failed = true;
		return -1;
	}
	log_verbose(worker_name(ctx), "run %lld: result %llu%s stored",
	    (long long)wr->run->id, (unsigned long long)res->seq,
	    res->warmup ? " (warmup)" : "");
	wr->last_seq = (int64_t)res->seq;
	if (problem != NULL && wr->problem == NULL)
		wr->problem = problem;
	else
		free(problem);
	pthread_mutex_lock(&ctx->w->daemon->lock);
	ctx->w->results++;
	pthread_mutex_unlock(&ctx->w->daemon->lock);
	db_machine_renew(ctx->db, worker_name(ctx), ctx->w->owner,
	    WORKER_LEASE_MS, &cause);
	free(cause);
	if (!wr->cancelled && worker_cancel_requested(ctx, wr->run->job)) {
		wr->cancelled = true;
		return 1;
	}
	return 0;
}

/* A fresh agent run id: job, run and a random suffix (spools are kept). */
static char *
worker_agent_run_id(const struct db_run *r)
{
	unsigned int rnd = 0;

	if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd)
		rnd = (unsigned int)time(NULL) ^ (unsigned int)getpid();
	return xasprintf("j%lld-r%lld-%08x", (long long)r->job,
	    (long long)r->id, rnd);
}

/* Reads the host's facts, records them and the running kernel. */
static char *
worker_facts(struct worker_ctx *ctx, const struct db_run *r, char **cause)
{
	struct agent_facts facts = { 0 };
	char		  *json;

	if (agent_facts(ctx->conn, &facts, cause) == -1)
		return NULL;
	if (worker_boot_verify(ctx, &facts, cause) == -1) {
		agent_facts_clear(&facts);
		return NULL;
	}
	worker_boot_topology(ctx, r, &facts);
	json = ingest_facts_json(&facts);
	if (db_machine_set_facts(ctx->db, worker_name(ctx), json, cause) ==
		-1 ||
	    db_kernel_set_version(ctx->db, r->kernel,
		agent_facts_get(&facts, "kernel.release"),
		agent_facts_get(&facts, "kernel.version"), cause) == -1) {
		free(json);
		json = NULL;
	}
	agent_facts_clear(&facts);
	return json;
}

/*
 * The end of a run the agent reported: 0 for done, else -1 with *cause
 * saying how it ended there, with the host's own reason when it gave one.
 */
static int
worker_run_end(struct worker_ctx *ctx, struct worker_run *wr,
    const char *run_id, int state, char **cause)
{
	const char *why = agent_run_failure(ctx->conn);

	wr->ended = state != PROTO_RUN_UNKNOWN;
	if (state == PROTO_RUN_DONE_OK)
		return 0;
	if (state == PROTO_RUN_FAILED)
		*cause = xasprintf("agent run \"%s\" failed on host \"%s\"%s%s",
		    run_id, worker_name(ctx), why ? ": " : "", why ? why : "");
	else
		*cause = xasprintf("agent run \"%s\" %s on host \"%s\"", run_id,
		    state == PROTO_RUN_CANCELLED ? "was cancelled"
						 : "is unknown",
		    worker_name(ctx));
	return -1;
}

/* Sleeps ms in one-second steps; true when a cancel or a stop came. */
static bool
worker_pause(struct worker_run *wr, int64_t ms)
{
	int64_t end = clock_now_ms() + ms, left;

	while ((left = end - clock_now_ms()) > 0) {
		if (worker_tick(wr))
			return true;
		usleep((useconds_t)(left < 1000 ? left : 1000) * 1000);
	}
	return worker_tick(wr) != 0;
}

/* Says that the host answers again and how long it was away. */
static void
worker_back(struct worker_ctx *ctx, const struct worker_run *wr, int64_t t0,
    int tries)
{
	char *msg;

	msg = xasprintf("host \"%s\" answers again after %.1f s (%d "
			"connection%s): the run is collected from its spool",
	    worker_name(ctx), (double)(clock_now_ms() - t0) / 1000, tries,
	    tries == 1 ? "" : "s");
	worker_event(ctx, wr->run, DB_INFO, msg);
	free(msg);
}

/* The host stayed away for all of reconnect_for: -1, *cause saying so. */
static int
worker_gone(struct worker_ctx *ctx, int64_t t0, int tries, char **cause)
{
	char *msg;

	msg = xasprintf("host \"%s\" did not answer again in %.1f s (%d "
			"connections, reconnect_for %.0f s): %s",
	    worker_name(ctx), (double)(clock_now_ms() - t0) / 1000, tries,
	    (double)ctx->w->machine->ssh.reconnect_ms / 1000,
	    *cause ? *cause : "no connection");
	free(*cause);
	*cause = msg;
	return -1;
}

/* The next pause between reconnects: doubled, within max and the end. */
static int64_t
worker_backoff(int64_t delay, int64_t end)
{
	int64_t left = end - clock_now_ms();

	delay = delay * 2 > WORKER_BACKOFF_MAX_MS ? WORKER_BACKOFF_MAX_MS
						  : delay * 2;
	return delay > left ? left : delay;
}

/*
 * After a dropped connection: reconnects, backing off from 1 s to 30 s
 * for the machine's reconnect_for, and collects the rest of the run from
 * the agent's spool.  Returns 0 when the run's end was seen.
 */
static int
worker_reattach(struct worker_ctx *ctx, struct worker_run *wr,
    const char *run_id, char **cause)
{
	int64_t t0 = clock_now_ms(), delay = 1000;
	int64_t end = t0 + ctx->w->machine->ssh.reconnect_ms;
	int	tries, state;

	for (tries = 1;; tries++) {
		worker_disconnect(ctx);
		if (worker_pause(wr, delay))
			return -1;
		free(*cause);
		*cause = NULL;
		if (worker_connect(ctx, cause) == 0) {
			worker_back(ctx, wr, t0, tries);
			if (agent_fetch(ctx->conn, run_id,
				(uint64_t)(wr->last_seq + 1), true,
				worker_result_cb, wr, &state, cause) == 0)
				return worker_run_end(ctx, wr, run_id, state,
				    cause);
			if (wr->db_failed || wr->cancelled || wr->left)
				return -1;
		} else if (ssh_host_last_error() == SSH_HOST_TRUST)
			return -1; /* waiting does not change a host key */
		if (clock_now_ms() >= end)
			return worker_gone(ctx, t0, tries, cause);
		delay = worker_backoff(delay, end);
	}
}

/*
 * Ends the exchange of a run whose kernel went down (wr->down says why):
 * the console kept with the run, which fails; the next run boots again.
 */
static int
worker_went_down(struct worker_ctx *ctx, struct worker_run *wr, char **cause)
{
	char *console, *ignore = NULL;

	free(*cause);
	*cause = xstrdup(wr->down);
	if ((console = backend_console(ctx->backend)) != NULL) {
		if (db_run_set_console(ctx->db, wr->run->id, console,
			&ignore) == -1)
			worker_event(ctx, wr->run, DB_WARN, ignore);
		free(ignore);
		free(console);
	}
	worker_disconnect(ctx);
	ctx->booted.valid = false;
	return -1;
}

/* Runs the benchmark on the agent and streams its results into SQLite. */
static int
worker_execute(struct worker_ctx *ctx, struct worker_run *wr,
    const char *run_id, char **cause)
{
	struct agent_run_spec spec = {
		.run_id = run_id,
		.argv = wr->exec.argv ? wr->exec.argv : wr->plan->argv,
		.cwd = wr->exec.cwd,
		.iterations = wr->run->iterations, /* adaptive: its own */
		.warmups = wr->plan->warmups,
		.timeout_ms = wr->plan->timeout_ms,
		.probes = wr->plan->probes,
		.probe_method = wr->plan->probe_method,
		.monitors = wr->plan->monitors,
	};
	int state;

	if (agent_run(ctx->conn, &spec, worker_result_cb, wr, &state, cause) ==
	    0)
		return worker_run_end(ctx, wr, run_id, state, cause);
	if (wr->db_failed || wr->cancelled || wr->left)
		return -1;
	/* A connection that drops may be its kernel's panic. */
	if (wr->down != NULL || (wr->down = worker_down(ctx)) != NULL)
		return worker_went_down(ctx, wr, cause);
	worker_event(ctx, wr->run, DB_WARN, *cause);
	if (worker_reattach(ctx, wr, run_id, cause) == 0)
		return 0;
	if (wr->down != NULL)
		return worker_went_down(ctx, wr, cause);
	/* The host is gone: power-cycle it, then run it again. */
	if (ctx->conn == NULL && !wr->db_failed && !wr->cancelled &&
	    !wr->left && recover_host(ctx, wr->run, cause) == 0)
		wr->recovered = true;
	return -1;
}

/*
 * Stops a cancelled run on the host: the stream was abandoned, so on a new
 * connection the agent kills the benchmark, what it spooled meanwhile is
 * stored, and the spool is acknowledged.
 */
static void
worker_cancel_on_host(struct worker_ctx *ctx, struct worker_run *wr,
    const char *run_id)
{
	char *cause = NULL;
	int   state;

	worker_disconnect(ctx);
	if (worker_connect(ctx, &cause) == -1 ||
	    agent_cancel(ctx->conn, run_id, &state, &cause) == -1 ||
	    agent_fetch(ctx->conn, run_id, (uint64_t)(wr->last_seq + 1), false,
		worker_result_cb, wr, &state, &cause) == -1 ||
	    agent_ack(ctx->conn, run_id, &cause) == -1) {
		worker_event(ctx, wr->run, DB_WARN, cause);
		worker_disconnect(ctx);
	} else
		worker_event(ctx, wr->run, DB_INFO,
		    "run cancelled on the host");
	free(cause);
}

/* Records an info event of the run's story (story.h) and frees its text. */
static void
worker_story(struct worker_ctx *ctx, const struct db_run *r, char *text)
{
	worker_event(ctx, r, DB_INFO, text);
	free(text);
}

/* Tells that the run is done, with the means of what it stored. */
static void
worker_done(struct worker_ctx *ctx, const struct worker_run *wr)
{
	size_t i = wr->plan->benchmark_index;

	if (ctx->job != NULL && ctx->plan_job == wr->run->job &&
	    i < ctx->job->nbenchmarks)
		worker_story(ctx, wr->run,
		    story_done(ctx->db, wr->run->id, &ctx->job->benchmarks[i]));
}

/* Ends a run: acknowledged to the agent once stored, then its state. */
static void
worker_finish(struct worker_ctx *ctx, struct worker_run *wr, const char *run_id,
    int rc, char *cause)
{
	enum db_state state = DB_DONE;
	const char   *error = NULL;
	char	     *ignore = NULL;

	if (wr->cancelled) {
		state = DB_CANCELLED;
		worker_cancel_on_host(ctx, wr, run_id);
	} else if (rc == -1) {
		state = DB_FAILED;
		error = cause;
	} else if (wr->problem != NULL) {
		state = DB_FAILED;
		error = wr->problem;
	}
	/* Done or failed there: its results are stored, its spool freed. */
	if ((rc == 0 || (wr->ended && !wr->cancelled && ctx->conn != NULL)) &&
	    agent_ack(ctx->conn, run_id, &ignore) == -1) {
		worker_event(ctx, wr->run, DB_WARN, ignore);
		worker_disconnect(ctx);
		free(ignore);
		ignore = NULL;
	}
	if (error != NULL)
		worker_event(ctx, wr->run, DB_ERROR, error);
	if (db_run_set_state(ctx->db, wr->run->id, state, error, &ignore) == -1)
		worker_event(ctx, wr->run, DB_ERROR, ignore);
	else if (state == DB_DONE)
		worker_done(ctx, wr);
	free(ignore);
}

/*
 * Ends a run that reached the agent: a run that went well first takes its
 * adaptive step (worker_adapt.c) while it still keeps its job running.  A
 * run left as hilabd stops stays running, collected at the next start.
 */
static void
worker_end(struct worker_ctx *ctx, struct worker_run *wr, const char *run_id,
    int rc, char *cause)
{
	if (wr->left) {
		worker_event(ctx, wr->run, DB_INFO,
		    "hilabd stops: the run goes on on the host, its results "
		    "are collected at the next start");
		return;
	}
	if (rc == 0 && !wr->cancelled && wr->problem == NULL)
		worker_adapt(ctx, wr->run, wr->plan);
	worker_finish(ctx, wr, run_id, rc, cause);
}

/* Publishes what the worker is doing, for "status". */
static void
worker_progress(struct worker_ctx *ctx, const struct db_run *r)
{
	pthread_mutex_lock(&ctx->w->daemon->lock);
	ctx->w->run = r ? r->id : 0;
	ctx->w->job = r ? r->job : 0;
	ctx->w->results = 0;
	pthread_mutex_unlock(&ctx->w->daemon->lock);
}

/* Marks a run failed before it reached the agent. */
static void
worker_fail(struct worker_ctx *ctx, const struct db_run *r, const char *why)
{
	char *cause = NULL;

	worker_event(ctx, r, DB_ERROR, why);
	if (r->state == DB_QUEUED)
		db_run_set_state(ctx->db, r->id, DB_RUNNING, NULL, &cause);
	if (db_run_set_state(ctx->db, r->id, DB_FAILED, why, &cause) == -1)
		worker_event(ctx, r, DB_ERROR, cause);
	free(cause);
}

/*
 * Ends a run whose setup on the host failed: cancelled when its job's cancel
 * was asked for meanwhile (the install was stopped; the planner may have
 * cancelled the queued run already), failed otherwise.
 */
static void
worker_setup_failed(struct worker_ctx *ctx, const struct db_run *r,
    const char *why)
{
	struct db_run *now;
	char	      *cause = NULL;

	if (!worker_cancel_requested(ctx, r->job)) {
		worker_fail(ctx, r, why);
		return;
	}
	worker_event(ctx, r, DB_INFO, why);
	if ((now = db_run_get(ctx->db, r->id, &cause)) == NULL ||
	    (now->state == DB_QUEUED &&
		db_run_set_state(ctx->db, r->id, DB_CANCELLED, NULL, &cause) ==
		    -1))
		worker_event(ctx, r, DB_ERROR, cause);
	db_run_free(now);
	free(cause);
}

/* How long a silent host is given before it is power-cycled. */
static int64_t
worker_grace_ms(const struct worker_ctx *ctx)
{
	int64_t two = 2 * (int64_t)ctx->w->machine->ssh.connect_timeout_ms;

	return two > WORKER_CONNECT_GRACE_MS ? two : WORKER_CONNECT_GRACE_MS;
}

/*
 * Refuses to boot a kernel that did not boot on this machine earlier in
 * the job: 0, or -1 with *cause naming that run.
 */
static int
worker_boot_again(struct worker_ctx *ctx, const struct db_run *r, char **cause)
{
	int64_t first;

	if ((first = db_run_boot_failed(ctx->db, r->job, r->kernel,
		 worker_name(ctx), cause)) <= 0)
		return (int)first;
	*cause = xasprintf("kernel of run %lld did not boot on \"%s\" in "
			   "this job: not booted there again",
	    (long long)first, worker_name(ctx));
	return -1;
}

/*
 * Prepares the run's context: its plan entry, the machine booted into the
 * run's kernel (boot is false when resuming: what runs must not change),
 * and a connected agent.
 */
static int
worker_prepare(struct worker_ctx *ctx, struct worker_run *wr, bool boot,
    char **cause)
{
	if (worker_load_plan(ctx, wr->run->job, wr->run->round, cause) == -1)
		return -1;
	if ((wr->plan = worker_plan_run(ctx, wr->run)) == NULL) {
		*cause = xasprintf("run %lld: not in the job's plan",
		    (long long)wr->run->id);
		return -1;
	}
	if (boot && worker_boot_again(ctx, wr->run, cause) == -1)
		return -1;
	if (boot && worker_boot(ctx, wr->run, cause) == -1) {
		wr->boot_failed = true;
		return -1;
	}
	/* A host just booted or under load may be slow to accept. */
	if (worker_connect_until(ctx, clock_now_ms() + worker_grace_ms(ctx),
		cause) == -1 &&
	    recover_host(ctx, wr->run, cause) == -1)
		return -1;
	return 0;
}

/*
 * Tells the boot just made for run r, with the release its facts show;
 * a boot whose facts were not read is not told.
 */
static void
worker_booted(struct worker_ctx *ctx, const struct db_run *r, const char *facts)
{
	struct worker_booted *b = &ctx->booted;

	if (b->tell && facts != NULL)
		worker_story(ctx, r,
		    story_booted(b->name, b->took_ms, b->boots, facts));
	b->tell = false;
}

/* Runs one queued run from start to end. */
static void
worker_run_one(struct worker_ctx *ctx, const struct db_run *r)
{
	struct worker_run wr = { .ctx = ctx, .run = r, .last_seq = -1 };
	char		 *cause = NULL, *facts = NULL, *run_id = NULL;
	int		  rc;

	worker_progress(ctx, r);
	if (worker_prepare(ctx, &wr, true, &cause) == -1 ||
	    (facts = worker_facts(ctx, r, &cause)) == NULL) {
		worker_booted(ctx, r, NULL);
		/* Failed first, then the machine brought back. */
		worker_fail(ctx, r, cause);
		if (wr.boot_failed)
			recover_boot(ctx, r, cause);
		goto out;
	}
	worker_booted(ctx, r, facts);
	health_answered(ctx);
	worker_free_spools(ctx);
	if (worker_setup_begin(ctx, r, wr.plan, facts, &wr.exec, &cause) ==
	    -1) {
		worker_setup_failed(ctx, r, cause);
		goto out;
	}
	run_id = worker_agent_run_id(r);
	if (db_run_start(ctx->db, r->id, run_id,
		wr.exec.facts ? wr.exec.facts : facts, &cause) == -1) {
		worker_event(ctx, r, DB_ERROR, cause);
		goto out;
	}
	worker_story(ctx, r, story_started(wr.plan, r, facts));
	rc = worker_execute(ctx, &wr, run_id, &cause);
	worker_setup_end(ctx, r);
	if (wr.recovered)
		worker_retry(ctx, r, "interrupted: its host was power-cycled");
	else
		worker_end(ctx, &wr, run_id, rc, cause);
out:
	worker_setup_end(ctx, r);
	worker_exec_clear(&wr.exec);
	worker_progress(ctx, NULL);
	free(wr.problem);
	free(wr.down);
	free(cause);
	free(facts);
	free(run_id);
}

/*
 * Gives up on an interrupted run that cannot be collected and queues a new
 * run in its place (the same plan entry), so the job still completes.
 */
static void
worker_retry(struct worker_ctx *ctx, const struct db_run *r, const char *why)
{
	struct db_run copy = *r;
	char	     *cause = NULL, *msg;
	int64_t	      id;

	copy.state = DB_QUEUED;
	if ((id = db_run_insert(ctx->db, &copy, &cause)) == -1) {
		worker_fail(ctx, r, cause);
		free(cause);
		return;
	}
	msg = xasprintf("%s; run again as run %lld", why, (long long)id);
	worker_fail(ctx, r, msg);
	free(msg);
	if (db_run_set_retried(ctx->db, r->id, id, &cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
	}
}

/* Collects a run a previous controller left running on the host. */
static void
worker_resume_one(struct worker_ctx *ctx, const struct db_interrupted *it)
{
	struct worker_run wr = { .ctx = ctx, .last_seq = it->last_seq };
	struct db_run	 *r;
	char		 *cause = NULL;
	int		  rc, state;

	if ((r = db_run_get(ctx->db, it->run, &cause)) == NULL)
		goto out;
	wr.run = r;
	if (it->agent_run_id == NULL) {
		worker_retry(ctx, r, "interrupted before it reached the agent");
		goto out;
	}
	if (ctx->w->machine->kind == MACHINE_LIBVIRT) {
		/* Its VM went with the controller that booted it. */
		worker_retry(ctx, r,
		    "interrupted: its VM was destroyed with "
		    "the controller that booted it");
		goto out;
	}
	worker_event(ctx, r, DB_INFO, "resuming an interrupted run");
	worker_progress(ctx, r);
	if (worker_prepare(ctx, &wr, false, &cause) == -1) {
		worker_fail(ctx, r, cause);
		goto out;
	}
	if (worker_setup_asked(ctx, r)) {
		/* Its machine setup went back with the controller. */
		worker_cancel_on_host(ctx, &wr, it->agent_run_id);
		worker_retry(ctx, r,
		    "interrupted: its machine setup was put back when the "
		    "controller stopped");
		goto out;
	}
	rc = agent_fetch(ctx->conn, it->agent_run_id,
	    (uint64_t)(it->last_seq + 1), true, worker_result_cb, &wr, &state,
	    &cause);
	if (rc == 0 && state == PROTO_RUN_UNKNOWN) {
		/* Stopped between storing the run and sending it. */
		worker_retry(ctx, r,
		    it->last_seq < 0
			? "interrupted before the host received it"
			: "interrupted: the host no longer has its results");
		goto out;
	}
	if (rc == 0)
		rc = worker_run_end(ctx, &wr, it->agent_run_id, state, &cause);
	worker_setup_sweep(ctx, r);
	worker_end(ctx, &wr, it->agent_run_id, rc, cause);
out:
	worker_progress(ctx, NULL);
	free(wr.problem);
	free(wr.down);
	free(cause);
	db_run_free(r);
}

/* Resumes every run of this machine that a stopped controller left. */
static void
worker_resume(struct worker_ctx *ctx)
{
	struct db_interrupted *v;
	size_t		       n, i;
	char		      *cause = NULL;

	if (db_run_list_interrupted(ctx->db, &v, &n, &cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(v[i].machine, worker_name(ctx)) == 0)
			worker_resume_one(ctx, &v[i]);
	}
	if (n > 0) /* their jobs may be settled now */
		daemon_wake(ctx->w->daemon);
	db_interrupted_list_free(v, n);
}

/* Whether the worker is to end: hilabd stops or a reload retired it. */
bool
worker_stopping(struct worker *w)
{
	bool stop;

	pthread_mutex_lock(&w->daemon->lock);
	stop = w->daemon->stopping || w->retired;
	pthread_mutex_unlock(&w->daemon->lock);
	return stop;
}

/* Whether hilabd stops (a retired worker's machine is handed back). */
static bool
worker_controller_stopping(struct worker *w)
{
	bool stop;

	pthread_mutex_lock(&w->daemon->lock);
	stop = w->daemon->stopping;
	pthread_mutex_unlock(&w->daemon->lock);
	return stop;
}

/* Runs every queued run of this machine, oldest job first. */
static void
worker_drain(struct worker_ctx *ctx)
{
	struct db_job *jobs;
	struct db_run *r;
	char	      *cause = NULL;
	size_t	       n, i;
	bool	       ready = true;

	if (db_job_list_active(ctx->db, &jobs, &n, &cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < n && ready && !worker_stopping(ctx->w); i++) {
		if (jobs[i].state != DB_RUNNING)
			continue;
		while (!worker_stopping(ctx->w) &&
		    (r = db_run_next(ctx->db, jobs[i].id, worker_name(ctx),
			 &cause)) != NULL) {
			/* Health decides before each run (a check if due). */
			if (!(ready = health_ready(ctx))) {
				db_run_free(r);
				break;
			}
			worker_run_one(ctx, r);
			db_run_free(r);
			daemon_wake(ctx->w->daemon);
		}
		/* The job is done with: its setup back, the VM off. */
		worker_setup_job_end(ctx, jobs[i].id);
		worker_boot_end(ctx, worker_controller_stopping(ctx->w));
	}
	db_job_list_free(jobs, n);
}

/* Sleeps until a nudge or a timeout (a missed nudge costs 5 s at most). */
static void
worker_wait(struct worker *w, uint64_t seen)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 5;
	pthread_mutex_lock(&w->daemon->lock);
	while (w->daemon->generation == seen && !w->daemon->stopping) {
		if (pthread_cond_timedwait(&w->daemon->nudge, &w->daemon->lock,
			&ts) != 0)
			break;
	}
	pthread_mutex_unlock(&w->daemon->lock);
}

/* Whether a 1/0/-1 answer was 1; logs and frees the cause of a -1. */
static bool
worker_yes(struct worker_ctx *ctx, int rc, char **cause)
{
	if (rc == -1)
		log_warn(worker_name(ctx), "%s", *cause);
	free(*cause);
	*cause = NULL;
	return rc == 1;
}

/*
 * Leases the machine, runs what is queued for it, gives it back; with
 * nothing queued for it, reads one index and writes nothing.
 */
static void
worker_cycle(struct worker_ctx *ctx)
{
	char *cause = NULL;
	int   rc;

	rc = db_run_queued_on(ctx->db, worker_name(ctx), &cause);
	if (!worker_yes(ctx, rc, &cause))
		return;
	rc = db_machine_lease(ctx->db, worker_name(ctx), ctx->w->owner,
	    WORKER_LEASE_MS, &cause);
	if (!worker_yes(ctx, rc, &cause))
		return;
	worker_drain(ctx);
	if (db_machine_release(ctx->db, worker_name(ctx), ctx->w->owner,
		&cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
	}
}

/* The thread: resume what was interrupted, then serve the queue. */
void *
worker_main(void *arg)
{
	struct worker_ctx ctx = { .w = arg };
	char		 *cause = NULL;
	uint64_t	  seen;

	if ((ctx.db = db_open(ctx.w->daemon->db_path, &cause)) == NULL ||
	    db_cache_limit(ctx.db, WORKER_DB_CACHE_KIB, &cause) == -1 ||
	    (ctx.backend = backend_new(ctx.w->machine, &cause)) == NULL) {
		log_warn(ctx.w->machine->name, "%s; machine left idle", cause);
		free(cause);
		db_close(ctx.db);
		return NULL;
	}
	ctx.backend->agent_dir = ctx.w->daemon->agent_dir;
	worker_resume(&ctx);
	while (!worker_stopping(ctx.w)) {
		pthread_mutex_lock(&ctx.w->daemon->lock);
		seen = ctx.w->daemon->generation;
		pthread_mutex_unlock(&ctx.w->daemon->lock);
		worker_cycle(&ctx);
		worker_wait(ctx.w, seen);
	}
	worker_boot_end(&ctx, true);
	worker_disconnect(&ctx);
	worker_setup_free(&ctx);
	backend_free(ctx.backend);
	plan_free(&ctx.plan);
	job_free(ctx.job);
	db_close(ctx.db);
	return NULL;
}
