/*
 * hilabd's shared state: paths, the inventory, the nudge that wakes the
 * workers, and each worker's progress for "status" on the control socket.
 */
#ifndef HILAB_DAEMON_H
#define HILAB_DAEMON_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct builder;
struct inventory;
struct machine;

struct worker {
	pthread_t	      thread;
	struct daemon	     *daemon;
	const struct machine *machine;
	char		     *owner; /* lease owner name */
	/* Progress, read by the main thread under daemon->lock. */
	int64_t	 run; /* 0 when idle */
	int64_t	 job;
	uint64_t results; /* results of the current run */
};

struct daemon {
	const char	 *db_path;
	const char	 *agent_dir;
	struct inventory *inventory;
	struct builder	 *builder; /* builds jobs' kernels */
	struct worker	 *workers;
	size_t		  nworkers;
	pthread_mutex_t	  lock;
	pthread_cond_t	  nudge;
	uint64_t	  generation; /* bumped by every nudge */
	bool		  stopping;
};

/* Wakes every worker: new runs may be queued or a job cancelled. */
void daemon_nudge(struct daemon *);

/* Starts one worker thread per machine of the inventory. */
int worker_start_all(struct daemon *, char **cause);
/* Asks the workers to stop after what they are doing, and joins them. */
void worker_stop_all(struct daemon *);

/*
 * Expands queued jobs into runs (once their built kernels are built),
 * finishes jobs whose runs are over and applies cancel requests.  Returns
 * true if it queued new runs.
 */
struct db;
bool planner_tick(struct daemon *, struct db *);

#endif
