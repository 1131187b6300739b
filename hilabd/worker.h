/*
 * A worker's story (worker.c) and the steps it calls: booting the run's
 * kernel (worker_boot.c), bringing a host back (recover.c), getting the
 * benchmark ready (worker_setup.c) and adaptive iterations'
 * next round (worker_adapt.c).  The state they share is worker_ctx.h.
 */
#ifndef HILAB_WORKER_H
#define HILAB_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "db/db.h"
#include "hilabd/worker_ctx.h"
#include "jobs/plan.h"

struct agent_facts;
struct db_run;

/* What the setup step changes in how a run is executed. */
struct worker_exec {
	char **argv;  /* argv[0] resolved on the host; NULL: plan's */
	char  *cwd;   /* the benchmark's source tree, or NULL */
	char  *facts; /* the run's facts with its machine setup, or NULL */
};

/*
 * Brings back an ssh machine with power control that stopped answering
 * (recover.c): one power cycle, then its agent again within the machine's
 * boot timeout, each step an event of run r; the machine's health is then
 * unknown with a health check due.  Returns 0 once the agent is
 * connected.  Returns -1 with *cause (replaced: it names the host, the
 * power cycle and how long it waited) and the machine bad (it did not
 * come back) or in maintenance (the power control failed) when that
 * failed; -1 with *cause kept when the machine has no power control, and
 * the machine in maintenance when its host key or login was refused (a
 * power cycle cannot mend those).
 */
int recover_host(struct worker_ctx *, const struct db_run *r, char **cause);
/*
 * After run r's boot failed (why; the run is failed already).  When its
 * kernel did not come up (a panic, a hang, no ssh after the switch): marks
 * the run's boot failed (the job does not boot that kernel there again)
 * and brings an ssh machine back to its known-good kernel by a power
 * cycle (or by its own reset when its panic said so), or puts it in
 * maintenance when it has no power control; each step is an event of the
 * run.  When the host refused before the switch (host key, login), the
 * machine goes to maintenance and nothing is power-cycled.
 */
void recover_boot(struct worker_ctx *, const struct db_run *r, const char *why);

/*
 * Makes sure the machine runs the run's kernel, booting it (once per job,
 * kernel and round) when it does not.  A failed boot stores the console
 * excerpt with the run.  Returns 0, or -1 with *cause.
 */
int worker_boot(struct worker_ctx *, const struct db_run *, char **cause);
/* Checks facts against the booted kernel's expectations. */
int worker_boot_verify(struct worker_ctx *, const struct agent_facts *,
    char **cause);
/*
 * Compares the LLC groups the kernel shows with the machine file's: a
 * mismatch is a warning event of run r and a fact of its own
 * (topo.llc_groups_expected) beside the kernel's.
 */
void worker_boot_topology(struct worker_ctx *, const struct db_run *r,
    struct agent_facts *);
/*
 * Ends a job's use of the machine once its work is done: a VM is powered
 * off, an ssh host that switches kernels goes back to its known-good one
 * (not when the controller is stopping: its runs resume); forgets what
 * was booted.
 */
void worker_boot_end(struct worker_ctx *, bool stopping);

/*
 * Gets the run's machine and benchmark ready on the host (worker_setup.c):
 * applies the job's machine setup unless it is held already (then ex's
 * facts are the run's facts, read again when it was applied now, with
 * what each control came to), installs the benchmark's tool when missing
 * (once per job, kernel, round and benchmark), resolves argv[0] into the
 * install prefix, and starts the server it needs.  facts are the run's
 * (JSON).  Returns 0 with *ex filled (free with worker_exec_clear), or -1
 * with *cause naming the host and the benchmark; nothing is left running
 * then.  An install stops, on the host too, when the job's cancel is asked
 * for (-1 then).
 */
int worker_setup_begin(struct worker_ctx *, const struct db_run *,
    const struct plan_run *, const char *facts, struct worker_exec *ex,
    char **cause);
/*
 * Whether run r's job asks for a machine setup: a run that a stopped
 * controller left is done again then, as the setup went back with it.
 */
bool worker_setup_asked(struct worker_ctx *, const struct db_run *r);
/* Puts back the machine setup of job, when it is held (its runs ended). */
void worker_setup_job_end(struct worker_ctx *, int64_t job);
/* Stops the server worker_setup_begin started; failures become events. */
void worker_setup_end(struct worker_ctx *, const struct db_run *);
/* Stops any server a stopped controller left running on the host. */
void worker_setup_sweep(struct worker_ctx *, const struct db_run *);
void worker_exec_clear(struct worker_exec *);
/* Closes the setup's ssh session and frees its state. */
void worker_setup_free(struct worker_ctx *);

/* spools.c: frees the host's spools of runs that ended (before a run). */
void worker_free_spools(struct worker_ctx *);

/*
 * Adaptive iterations (worker_adapt.c), after run r (plan entry p) went
 * well and before it is marked done (so its job cannot end meanwhile):
 * once the round of r's group is complete, records each kernel's measured
 * iterations and precision and queues the group's next round unless every
 * kernel is within the target or max is reached.  A no-op for a fixed
 * count; failures become events of the run.
 */
void worker_adapt(struct worker_ctx *, const struct db_run *r,
    const struct plan_run *p);

#endif
