/*
 * git fetch off hilabd's loop: a thread fetches the trees that sweeps
 * follow, so a slow remote delays the sweeps that wait on its fetch (one at
 * a time, 300 s at most each), never hilabd's tick, the planner or a job's
 * end.  A
 * due sweep asks for its trees fetched since its slot; until they are, it
 * asks again at the next tick and its slot stays due.
 */
#ifndef HILAB_FETCHER_H
#define HILAB_FETCHER_H

#include <stdint.h>

struct fetcher;

enum fetcher_state {
	FETCHER_BUSY,	/* asked for, or running: ask again later */
	FETCHER_READY,	/* fetched (or without a remote) since then */
	FETCHER_FAILED, /* the fetch since then failed: *cause says why */
};

/* Starts the fetch thread; NULL with *cause. */
struct fetcher *fetcher_start(char **cause);
/* Stops it once a fetch under way has ended; accepts NULL. */
void fetcher_stop(struct fetcher *);

/*
 * Whether tree was fetched by a fetch that began at since_ms (wall clock,
 * as db_now_ms) or later; asks for one if not.
 */
enum fetcher_state fetcher_poll(struct fetcher *, const char *tree,
    int64_t since_ms, char **cause);

/* Fetches tree now, if it has a remote; 0, or -1 with *cause. */
int fetcher_fetch(const char *tree, char **cause);

#endif
