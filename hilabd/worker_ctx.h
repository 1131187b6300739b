/*
 * The worker context (worker_ctx.c): the state a worker keeps between runs
 * and the helpers every step of its story and the setup leaves share.
 */
#ifndef HILAB_WORKER_CTX_H
#define HILAB_WORKER_CTX_H

#include <stdbool.h>
#include <stdint.h>

#include "db/db.h"
#include "hilabd/daemon.h"
#include "jobs/plan.h"

struct agent_conn;
struct backend;
struct db;
struct db_run;
struct worker_setup;

/* The kernel the machine was last booted into, and what it must show. */
struct worker_booted {
	bool	valid;
	int64_t job;
	int64_t kernel;
	int	round;
	char   *name;
	char   *release; /* from the image, or NULL */
	char   *version; /* from the image, or NULL */
	char   *cmdline; /* asked for, or NULL */
	/* The boot just made, until the run's story tells it: */
	bool	tell;	 /* a boot to tell */
	int64_t took_ms; /* how long it took */
	int	boots;	 /* how many boots it took */
};

/* What a worker keeps between runs. */
struct worker_ctx {
	struct worker	    *w;
	struct db	    *db;
	struct agent_conn   *conn;
	struct backend	    *backend;
	struct worker_booted booted;
	int64_t		     plan_job;	 /* job the plan belongs to */
	struct job	    *job;	 /* that job, as stored */
	int64_t		     cycled_job; /* power cycles done for */
	int		     cycles;	 /* that job (recover.c) */
	struct plan	     plan;
	struct worker_setup *setup; /* worker_setup.c's, or NULL */
};

const char *worker_name(const struct worker_ctx *);
int	    worker_connect(struct worker_ctx *, char **cause);
/* worker_connect, tried again until deadline (ms) unless trust was refused. */
int  worker_connect_until(struct worker_ctx *, int64_t deadline, char **cause);
void worker_disconnect(struct worker_ctx *);
/* True if someone asked to cancel the job (false if it cannot be read). */
bool worker_cancel_requested(struct worker_ctx *, int64_t job_id);
/* Logs a message and adds it to the run's events (r may be NULL). */
void worker_event(struct worker_ctx *, const struct db_run *r, enum db_level,
    const char *msg);
/*
 * Records the machine's health and why (reason may be NULL); a failure to
 * record it is only logged.
 */
void worker_health(struct worker_ctx *, enum db_health, const char *reason);

#endif
