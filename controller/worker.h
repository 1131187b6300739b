/* The worker's own state, shared by worker.c and worker_boot.c. */
#ifndef HILAB_WORKER_H
#define HILAB_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "controller/daemon.h"
#include "jobs/plan.h"
#include "machines/verify.h"

struct agent_conn;
struct agent_facts;
struct backend;
struct db;
struct db_run;

/* The kernel the machine was last booted into, and what it must show. */
struct worker_booted {
	bool		 valid;
	int64_t		 job;
	int64_t		 kernel;
	int		 round;
	char		*name;
	char		*release;	/* from the image, or NULL */
	char		*version;	/* from the image, or NULL */
	char		*cmdline;	/* asked for, or NULL */
};

/* What a worker keeps between runs. */
struct worker_ctx {
	struct worker		*w;
	struct db		*db;
	struct agent_conn	*conn;
	struct backend		*backend;
	struct worker_booted	 booted;
	int64_t			 plan_job;	/* job the plan belongs to */
	struct plan		 plan;
};

const char *worker_name(const struct worker_ctx *);
int	worker_connect(struct worker_ctx *, char **cause);
void	worker_disconnect(struct worker_ctx *);

/*
 * Makes sure the machine runs the run's kernel, booting it (once per job,
 * kernel and round) when it does not.  A failed boot stores the console
 * excerpt with the run.  Returns 0, or -1 with *cause.
 */
int	worker_boot(struct worker_ctx *, const struct db_run *, char **cause);
/* Checks facts against the booted kernel's expectations. */
int	worker_boot_verify(struct worker_ctx *, const struct agent_facts *,
	    char **cause);
/* Powers a VM off once its work is done; forgets what was booted. */
void	worker_boot_end(struct worker_ctx *);

#endif
