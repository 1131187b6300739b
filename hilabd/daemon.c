/* The daemon's shared state: the nudge that wakes every worker. */
#include <pthread.h>

#include "hilabd/daemon.h"

/* Wakes every worker: new runs may be queued or a job cancelled. */
void
daemon_nudge(struct daemon *d)
{
	pthread_mutex_lock(&d->lock);
	d->generation++;
	pthread_cond_broadcast(&d->nudge);
	pthread_mutex_unlock(&d->lock);
}
