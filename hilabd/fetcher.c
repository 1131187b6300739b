/*
 * The fetch thread (hilabd/fetcher.h).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/spawn.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/fetcher.h"

/* One tree and where its fetches stand. */
struct fetcher_tree {
	char   *path;
	int64_t wanted_ms; /* a fetch beginning at or after this is wanted */
	int64_t began_ms;  /* when the last finished fetch began, or -1 */
	char   *error;	   /* of that fetch, or NULL */
	bool	running;
};

struct fetcher {
	pthread_t	     thread;
	pthread_mutex_t	     lock;
	pthread_cond_t	     cond;
	struct fetcher_tree *trees;
	size_t		     ntrees;
	bool		     stopping;
};

/*
 * How long a fetch may take (timeout(1)): the one thread fetches every
 * followed tree in turn, so a hung remote holds the others this long at
 * most.
 */
#define FETCHER_TIMEOUT "300"

int
fetcher_fetch(const char *tree, char **cause)
{
	char *remote_argv[] = { (char *)"git", (char *)"-C", (char *)tree,
		(char *)"remote", NULL };
	char *fetch_argv[] = { (char *)"timeout", (char *)FETCHER_TIMEOUT,
		(char *)"git", (char *)"-C", (char *)tree, (char *)"fetch",
		(char *)"--quiet", NULL };
	char *remote, *why = NULL, *out = NULL;
	struct spawn s = { .argv = fetch_argv, .log_fd = -1, .output = &out };
	int	     status = 0;

	remote = spawn_line(NULL, remote_argv, &why);
	if (remote != NULL && *remote != '\0' &&
	    (status = spawn_run(&s, &why)) != 0)
		*cause = xasprintf("repository \"%s\": git fetch: %s", tree,
		    status == 124 ? "no end within " FETCHER_TIMEOUT " s"
			: why	  ? why
			: out	  ? out
				  : "failed");
	free(remote);
	free(why);
	free(out);
	return status == 0 ? 0 : -1;
}

/* A tree whose fetch is wanted and not running, or NULL. */
static struct fetcher_tree *
fetcher_next(struct fetcher *f)
{
	size_t i;

	for (i = 0; i < f->ntrees; i++)
		if (!f->trees[i].running &&
		    f->trees[i].wanted_ms > f->trees[i].began_ms)
			return &f->trees[i];
	return NULL;
}

/* Fetches tree i outside the lock (held on entry and return). */
static void
fetcher_one(struct fetcher *f, size_t i)
{
	char   *path = xstrdup(f->trees[i].path), *cause = NULL;
	int64_t began = db_now_ms(); /* the wall clock of sweeps' slots */

	f->trees[i].running = true;
	pthread_mutex_unlock(&f->lock);
	fetcher_fetch(path, &cause);
	free(path);
	pthread_mutex_lock(&f->lock);
	f->trees[i].running = false;
	f->trees[i].began_ms = began;
	free(f->trees[i].error);
	f->trees[i].error = cause;
}

static void *
fetcher_main(void *arg)
{
	struct fetcher	    *f = arg;
	struct fetcher_tree *t;

	pthread_mutex_lock(&f->lock);
	while (!f->stopping) {
		if ((t = fetcher_next(f)) == NULL) {
			pthread_cond_wait(&f->cond, &f->lock);
			continue;
		}
		fetcher_one(f, (size_t)(t - f->trees));
	}
	pthread_mutex_unlock(&f->lock);
	return NULL;
}

struct fetcher *
fetcher_start(char **cause)
{
	struct fetcher *f = xcalloc(1, sizeof *f);

	pthread_mutex_init(&f->lock, NULL);
	pthread_cond_init(&f->cond, NULL);
	if (pthread_create(&f->thread, NULL, fetcher_main, f) != 0) {
		*cause = xstrdup("cannot start the fetch thread");
		pthread_mutex_destroy(&f->lock);
		pthread_cond_destroy(&f->cond);
		free(f);
		return NULL;
	}
	return f;
}

void
fetcher_stop(struct fetcher *f)
{
	size_t i;

	if (f == NULL)
		return;
	pthread_mutex_lock(&f->lock);
	f->stopping = true;
	pthread_cond_broadcast(&f->cond);
	pthread_mutex_unlock(&f->lock);
	pthread_join(f->thread, NULL);
	for (i = 0; i < f->ntrees; i++) {
		free(f->trees[i].path);
		free(f->trees[i].error);
	}
	free(f->trees);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cond);
	free(f);
}

/* The entry of tree, made if new (lock held). */
static struct fetcher_tree *
fetcher_tree(struct fetcher *f, const char *tree)
{
	struct fetcher_tree *t;
	size_t		     i;

	for (i = 0; i < f->ntrees; i++)
		if (strcmp(f->trees[i].path, tree) == 0)
			return &f->trees[i];
	f->trees = xreallocarray(f->trees, f->ntrees + 1, sizeof *f->trees);
	t = &f->trees[f->ntrees++];
	memset(t, 0, sizeof *t);
	t->path = xstrdup(tree);
	t->wanted_ms = t->began_ms = -1;
	return t;
}

enum fetcher_state
fetcher_poll(struct fetcher *f, const char *tree, int64_t since_ms,
    char **cause)
{
	struct fetcher_tree *t;
	enum fetcher_state   st = FETCHER_BUSY;

	pthread_mutex_lock(&f->lock);
	t = fetcher_tree(f, tree);
	if (!t->running && t->began_ms >= since_ms) {
		st = t->error == NULL ? FETCHER_READY : FETCHER_FAILED;
		if (t->error != NULL)
			*cause = xstrdup(t->error);
	} else if (t->wanted_ms < since_ms) {
		t->wanted_ms = since_ms;
		pthread_cond_signal(&f->cond);
	}
	pthread_mutex_unlock(&f->lock);
	return st;
}
