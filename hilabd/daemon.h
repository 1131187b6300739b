/*
 * hilabd's shared state: paths, the inventory, the nudge that wakes the
 * workers, the pool of workers (daemon.c) and each worker's progress for
 * "status" on the control socket.
 */
#ifndef HILAB_DAEMON_H
#define HILAB_DAEMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct builder;
struct db;
struct inventory;
struct fetcher;
struct machine;

struct worker {
	pthread_t	      thread;
	struct daemon	     *daemon;
	const struct machine *machine;
	char		     *owner; /* lease owner name */
	/* Under daemon->lock: */
	bool	 retired; /* to stop after its run (reload.c) */
	bool	 exited;  /* its thread has ended: to be joined */
	int64_t	 run;	  /* progress, for "status"; 0 when idle */
	int64_t	 job;
	uint64_t results; /* results of the current run */
};

struct daemon {
	const char	 *db_path;
	const char	 *agent_dir;
	const char	 *machines_dir;
	const char	 *catalog_dir;
	struct inventory *inventory; /* read by the main thread only */
	/*
	 * Inventories a reload replaced, each freed once no worker uses a
	 * machine of it.
	 */
	struct inventory **old;
	size_t		   nold;
	/* Machines whose worker starts again once their retired one ended. */
	char	      **pending;
	size_t		npending;
	struct builder *builder;  /* builds jobs' kernels */
	struct fetcher *fetcher;  /* fetches the trees sweeps follow */
	struct worker **workers;  /* the pool: changed by the main thread */
	size_t		nworkers; /* only, under lock */
	pthread_mutex_t lock;
	pthread_cond_t	nudge;
	uint64_t	generation; /* bumped by every nudge */
	bool		stopping;
	int		wake[2]; /* a pipe the main loop polls */
};

/*
 * Wakes every worker: new runs may be queued or a machine's health
 * changed.  A worker with nothing queued goes back to sleep at the cost
 * of one indexed read.
 */
void daemon_nudge(struct daemon *);
/* Opens the pipe that wakes the main loop. */
int daemon_wake_open(struct daemon *, char **cause);
/*
 * Wakes the main loop: a run ended (its job may be settled now, not at
 * the next tick) or a kernel build did (its job may be planned).
 */
void daemon_wake(struct daemon *);
/* Empties the pipe once the main loop has woken. */
void daemon_wake_drain(struct daemon *);
/* Closes the pipe. */
void daemon_wake_close(struct daemon *);
/* Frees the inventories, the current one and those a reload replaced. */
void daemon_free_inventories(struct daemon *);

/* The thread of one machine's worker (worker.c); arg is its worker. */
void *worker_main(void *arg);
/* Whether the worker is to end: hilabd stops or a reload retired it. */
bool worker_stopping(struct worker *);

/* The pool of workers (daemon.c), run by the main thread. */
/* Starts one worker thread for machine m. */
int worker_start(struct daemon *, const struct machine *m, char **cause);
/* Starts one worker thread per machine of the inventory. */
int worker_start_all(struct daemon *, char **cause);
/* The worker of machine name that is not retired, or NULL. */
struct worker *worker_find(struct daemon *, const char *name);
/* Whether a worker of machine name, retired or not, has not been joined. */
bool worker_busy(struct daemon *, const char *name);
/* Asks a worker to stop after its run (it then ends by itself). */
void worker_retire(struct worker *);
/*
 * Starts machine name's worker again, with the inventory's file of it,
 * once the worker it has now (retired) has ended.
 */
void worker_restart(struct daemon *, const char *name);
/*
 * Joins the workers that ended, starts the machines pending on them and
 * frees the replaced inventories no worker uses any more.
 */
void worker_reap(struct daemon *);
/* Asks the workers to stop after what they are doing, and joins them. */
void worker_stop_all(struct daemon *);

/*
 * Re-reads the inventory (SIGHUP, reload.c), logs what changed and
 * applies it: a new machine is recorded and gets a worker, a removed
 * one's worker stops after its run and its queued runs fail, a changed
 * one's worker restarts with the new file after its run.  An inventory
 * with errors keeps the one read before and logs why.  Checks the catalog
 * (which sweeps read as they queue) and logs its errors.
 */
void reload_all(struct daemon *, struct db *);

/*
 * Expands queued jobs into runs (once their built kernels are built),
 * finishes jobs whose runs are over and applies cancel requests.  Returns
 * true if it queued new runs.
 */
bool planner_tick(struct daemon *, struct db *);

#endif
