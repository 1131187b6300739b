/*
 * The daemon's shared state: the nudge that wakes every worker, the pipe
 * that wakes the main loop, and the
 * pool of workers, one thread per machine: started with the inventory,
 * one more for each machine a reload adds, retired for a machine removed
 * or changed (the thread ends after its run), joined once ended.  Only
 * the main thread changes the pool; the lock guards what the worker
 * threads read or write (retired, exited, progress).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "hilabd/daemon.h"
#include "machines/inventory.h"

/* Wakes every worker: new runs may be queued or a job cancelled. */
void
daemon_nudge(struct daemon *d)
{
	pthread_mutex_lock(&d->lock);
	d->generation++;
	pthread_cond_broadcast(&d->nudge);
	pthread_mutex_unlock(&d->lock);
}

int
daemon_wake_open(struct daemon *d, char **cause)
{
	if (pipe2(d->wake, O_NONBLOCK | O_CLOEXEC) == 0)
		return 0;
	*cause = xasprintf("hilabd: wake pipe: %s", strerror(errno));
	return -1;
}

void
daemon_wake(struct daemon *d)
{
	char c = 0;

	/* A full pipe (EAGAIN) already holds a wake-up. */
	if (write(d->wake[1], &c, 1) == -1 && errno != EAGAIN)
		log_warn("hilabd", "wake pipe: %s", strerror(errno));
}

void
daemon_wake_drain(struct daemon *d)
{
	char buf[256];

	while (read(d->wake[0], buf, sizeof buf) > 0)
		;
}

void
daemon_wake_close(struct daemon *d)
{
	if (d->wake[0] != -1)
		close(d->wake[0]);
	if (d->wake[1] != -1)
		close(d->wake[1]);
	d->wake[0] = d->wake[1] = -1;
}

/* Runs a worker, then marks it ended for worker_reap. */
static void *
daemon_worker_thread(void *arg)
{
	struct worker *w = arg;

	worker_main(w);
	pthread_mutex_lock(&w->daemon->lock);
	w->exited = true;
	pthread_mutex_unlock(&w->daemon->lock);
	return NULL;
}

/* Removes the i-th worker from the pool and frees it (joined already). */
static void
daemon_worker_remove(struct daemon *d, size_t i)
{
	struct worker *w = d->workers[i];

	pthread_mutex_lock(&d->lock);
	memmove(&d->workers[i], &d->workers[i + 1],
	    (d->nworkers - i - 1) * sizeof *d->workers);
	d->nworkers--;
	pthread_mutex_unlock(&d->lock);
	free(w->owner);
	free(w);
}

/* Adds a worker for machine m and starts its thread. */
int
worker_start(struct daemon *d, const struct machine *m, char **cause)
{
	struct worker *w = xcalloc(1, sizeof *w);
	int	       rc;

	w->daemon = d;
	w->machine = m;
	w->owner = xasprintf("hilabd:%ld", (long)getpid());
	pthread_mutex_lock(&d->lock);
	d->workers =
	    xreallocarray(d->workers, d->nworkers + 1, sizeof *d->workers);
	d->workers[d->nworkers++] = w;
	pthread_mutex_unlock(&d->lock);
	if ((rc = pthread_create(&w->thread, NULL, daemon_worker_thread, w)) ==
	    0)
		return 0;
	*cause = xasprintf("machine \"%s\": worker thread: %s", m->name,
	    strerror(rc));
	daemon_worker_remove(d, d->nworkers - 1);
	return -1;
}

/* Starts a worker for each machine of the inventory. */
int
worker_start_all(struct daemon *d, char **cause)
{
	size_t i;

	for (i = 0; i < d->inventory->n; i++)
		if (worker_start(d, d->inventory->machines[i], cause) == -1)
			return -1;
	return 0;
}

/* The worker of machine name that is not retired, or NULL. */
struct worker *
worker_find(struct daemon *d, const char *name)
{
	struct worker *w = NULL;
	size_t	       i;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->nworkers && w == NULL; i++)
		if (!d->workers[i]->retired &&
		    strcmp(d->workers[i]->machine->name, name) == 0)
			w = d->workers[i];
	pthread_mutex_unlock(&d->lock);
	return w;
}

/* Whether a worker of machine name, retired or not, is in the pool. */
bool
worker_busy(struct daemon *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nworkers; i++)
		if (strcmp(d->workers[i]->machine->name, name) == 0)
			return true;
	return false;
}

/* Asks a worker to stop after its run, waking it. */
void
worker_retire(struct worker *w)
{
	pthread_mutex_lock(&w->daemon->lock);
	w->retired = true;
	w->daemon->generation++;
	pthread_cond_broadcast(&w->daemon->nudge);
	pthread_mutex_unlock(&w->daemon->lock);
}

/* Queues machine name for a new worker once its retired one ended. */
void
worker_restart(struct daemon *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->npending; i++)
		if (strcmp(d->pending[i], name) == 0)
			return;
	d->pending =
	    xreallocarray(d->pending, d->npending + 1, sizeof *d->pending);
	d->pending[d->npending++] = xstrdup(name);
}

/* Drops the i-th pending machine. */
static void
daemon_pending_remove(struct daemon *d, size_t i)
{
	free(d->pending[i]);
	memmove(&d->pending[i], &d->pending[i + 1],
	    (d->npending - i - 1) * sizeof *d->pending);
	d->npending--;
}

/* Starts machine name's worker again, if the inventory still has it. */
static void
daemon_start_again(struct daemon *d, const char *name)
{
	const struct machine *m = inventory_find(d->inventory, name);
	char		     *cause = NULL;

	if (m == NULL)
		return; /* a later reload removed it */
	if (worker_start(d, m, &cause) == -1) {
		log_error("reload", "%s", cause);
		free(cause);
		return;
	}
	log_info("reload", "machine \"%s\": worker restarted", name);
}

/* Starts the pending machines whose retired worker has ended. */
static void
daemon_start_pending(struct daemon *d)
{
	size_t i = 0;

	while (i < d->npending) {
		if (worker_busy(d, d->pending[i])) {
			i++;
			continue;
		}
		daemon_start_again(d, d->pending[i]);
		daemon_pending_remove(d, i);
	}
}

/* Whether a worker of the pool runs a machine of inv. */
static bool
daemon_inventory_used(struct daemon *d, const struct inventory *inv)
{
	size_t i, j;

	for (i = 0; i < d->nworkers; i++)
		for (j = 0; j < inv->n; j++)
			if (d->workers[i]->machine == inv->machines[j])
				return true;
	return false;
}

/* Frees the inventories a reload replaced that no worker uses now. */
static void
daemon_free_old(struct daemon *d)
{
	size_t i = 0;

	while (i < d->nold) {
		if (daemon_inventory_used(d, d->old[i])) {
			i++;
			continue;
		}
		inventory_free(d->old[i]);
		memmove(&d->old[i], &d->old[i + 1],
		    (d->nold - i - 1) * sizeof *d->old);
		d->nold--;
	}
}

/* Joins the ended workers, starts the machines pending on them. */
void
worker_reap(struct daemon *d)
{
	size_t i = 0;
	bool   ended;

	while (i < d->nworkers) {
		pthread_mutex_lock(&d->lock);
		ended = d->workers[i]->exited;
		pthread_mutex_unlock(&d->lock);
		if (!ended) {
			i++;
			continue;
		}
		pthread_join(d->workers[i]->thread, NULL);
		daemon_worker_remove(d, i);
	}
	daemon_start_pending(d);
	daemon_free_old(d);
}

/* Stops every worker after its run and joins them. */
void
worker_stop_all(struct daemon *d)
{
	pthread_mutex_lock(&d->lock);
	d->stopping = true;
	pthread_cond_broadcast(&d->nudge);
	pthread_mutex_unlock(&d->lock);
	while (d->nworkers > 0) {
		pthread_join(d->workers[d->nworkers - 1]->thread, NULL);
		daemon_worker_remove(d, d->nworkers - 1);
	}
	free(d->workers);
	d->workers = NULL;
	while (d->npending > 0)
		daemon_pending_remove(d, d->npending - 1);
	free(d->pending);
	d->pending = NULL;
}

/* Frees the inventories, the current one and those a reload replaced. */
void
daemon_free_inventories(struct daemon *d)
{
	size_t i;

	for (i = 0; i < d->nold; i++)
		inventory_free(d->old[i]);
	free(d->old);
	d->old = NULL;
	d->nold = 0;
	inventory_free(d->inventory);
	d->inventory = NULL;
}
