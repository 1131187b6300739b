/*
 * "hilab-agent [--dir DIR] tune [--root ROOT] KEY=VALUE...": a job's
 * machine setup (tune_controls.c), applied and held.  Each file's old
 * value is saved (DIR/tune/saved, fsync'd) before it is written, and
 * everything goes back, in reverse order, when stdin ends (the controller
 * closed the channel, or died: its ssh session goes with it), on a
 * "restore" line, or on SIGTERM, SIGINT or SIGHUP.  Against a SIGKILL of
 * the holder a guardian (guard.c) restores from the saved file, and a
 * holder that finds a saved file of this boot restores it first.  One
 * holder at a time: DIR/tune/lock, which the guardian holds too.
 *
 * What it prints, a line each, as it goes:
 *
 *	set KEY VALUE WAS N	written to N files; WAS: the first one's
 *				old value
 *	absent KEY WHY		the host does not offer it
 *	failed KEY WHY		a write failed or did not stick
 *	ready			applied; a "status" line gets "held"
 *	restored KEY VALUE	put back
 *	done			all back; the holder exits
 *	error WHY		nothing held (a bad argument, the lock)
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/xmalloc.h"

#define TUNE_LOCK_TRIES 100 /* of 0.1 s: a holder still restoring */

/* One holder: where it saves, what it wrote. */
struct tune {
	const char  *root;
	char	    *dir;   /* DIR/tune */
	char	    *saved; /* DIR/tune/saved */
	char	    *boot;  /* this boot's id, "" if unknown */
	int	     fd;    /* the saved file, appended to */
	struct guard guard;
};

static volatile sig_atomic_t tune_stop;

/* SIGTERM, SIGINT, SIGHUP: restore and leave. */
static void
tune_stop_cb(int sig)
{
	tune_stop = sig;
}

/* Prints one report line and flushes it. */
static void tune_say(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void
tune_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* One saved line: "KEY\tOLD\tPATH". */
struct tune_saved {
	char *key;
	char *old;
	char *path;
};

/* Reads the saved file: its boot id and lines (caller frees both). */
static struct tune_saved *
tune_saved_read(const char *path, char **boot, size_t *n)
{
	char *text = facts_read(path), *line, *save = NULL, *t1, *t2;
	struct tune_saved *v = NULL;

	*n = 0;
	*boot = NULL;
	for (line = text ? strtok_r(text, "\n", &save) : NULL; line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (*boot == NULL && strncmp(line, "boot ", 5) == 0) {
			*boot = xstrdup(line + 5);
			continue;
		}
		if ((t1 = strchr(line, '\t')) == NULL ||
		    (t2 = strchr(t1 + 1, '\t')) == NULL)
			continue;
		v = xreallocarray(v, *n + 1, sizeof *v);
		v[*n].key = xstrndup(line, (size_t)(t1 - line));
		v[*n].old = xstrndup(t1 + 1, (size_t)(t2 - t1 - 1));
		v[(*n)++].path = xstrdup(t2 + 1);
	}
	free(text);
	return v;
}

/* Frees n saved lines. */
static void
tune_saved_free(struct tune_saved *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].key);
		free(v[i].old);
		free(v[i].path);
	}
	free(v);
}

/*
 * Puts back every file of the saved file at path, last written first,
 * says so (a line per key), and removes it.  0, or -1 with the first
 * failure in *cause (the file stays).
 */
static int
tune_restore_file(const char *path, int report, char **cause)
{
	struct tune_saved *v;
	char		  *boot, *why = NULL;
	size_t		   n, i;
	int		   rc = 0;

	v = tune_saved_read(path, &boot, &n);
	for (i = n; i-- > 0;) {
		if (probe_write(v[i].path, v[i].old, &why) == -1) {
			if (rc == 0)
				*cause = why;
			else
				free(why);
			why = NULL;
			rc = -1;
		} else if (report &&
		    (i == 0 || strcmp(v[i - 1].key, v[i].key) != 0))
			tune_say("restored %s %s", v[i].key, v[i].old);
	}
	tune_saved_free(v, n);
	free(boot);
	if (rc == 0)
		unlink(path);
	return rc;
}

/* The guardian's cleanup: the saved file, silently. */
static int
tune_guard_cleanup(void *arg, char **cause)
{
	struct tune *t = arg;

	return tune_restore_file(t->saved, 0, cause);
}

/* Takes DIR/tune/lock, waiting a little for a holder that restores. */
static int
tune_lock(const struct tune *t, char **cause)
{
	struct timespec ts = { 0, 100000000L };
	char	       *path = xasprintf("%s/lock", t->dir);
	int		fd, i;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	for (i = 0; fd != -1 && i < TUNE_LOCK_TRIES; i++) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			free(path);
			return fd;
		}
		nanosleep(&ts, NULL);
	}
	*cause = fd == -1
	    ? xasprintf("\"%s\": %s", path, strerror(errno))
	    : xasprintf("\"%s\": held by another machine setup", path);
	if (fd != -1)
		close(fd);
	free(path);
	return -1;
}

/*
 * A saved file a dead holder and guardian left: restored when it is of
 * this boot (a reboot put the host back already), else dropped.
 */
static int
tune_recover(struct tune *t, char **cause)
{
	struct tune_saved *v;
	char		  *boot;
	size_t		   n;
	int		   same;

	if (access(t->saved, F_OK) == -1)
		return 0;
	v = tune_saved_read(t->saved, &boot, &n);
	same = boot != NULL && strcmp(boot, t->boot) == 0;
	tune_saved_free(v, n);
	free(boot);
	if (!same) {
		unlink(t->saved);
		return 0;
	}
	return tune_restore_file(t->saved, 1, cause);
}

/* Appends a line to the saved file and makes it durable. */
static int
tune_save(struct tune *t, const char *line, char **cause)
{
	size_t len = strlen(line);

	if (write(t->fd, line, len) != (ssize_t)len || fsync(t->fd) == -1) {
		*cause = xasprintf("\"%s\": %s", t->saved, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Writes one file of plan p, its old value saved first (a file that holds
 * the value already is left alone); checks it reads back.  -1 with *why.
 */
static int
tune_write_one(struct tune *t, const struct tune_plan *p,
    const struct tune_change *c, char **why)
{
	char *old = tune_read(c->path), *line, *now = NULL;
	int   rc = -1;

	if (old == NULL) {
		*why = xasprintf("\"%s\": cannot read", c->path);
		return -1;
	}
	if (strcmp(old, c->value) == 0) {
		free(old);
		return 0;
	}
	line = xasprintf("%s\t%s\t%s\n", p->key, old, c->path);
	if (tune_save(t, line, why) == 0 &&
	    probe_write(c->path, c->value, why) == 0) {
		if ((now = tune_read(c->path)) != NULL &&
		    strcmp(now, c->value) == 0)
			rc = 0;
		else
			*why = xasprintf("\"%s\" reads \"%s\" after writing "
					 "\"%s\"",
			    c->path, now ? now : "(nothing)", c->value);
	}
	free(now);
	free(line);
	free(old);
	return rc;
}

/* Applies one control and says what came of it. */
static void
tune_apply(struct tune *t, const struct tune_plan *p)
{
	char  *why = NULL;
	size_t i;

	if (p->absent != NULL) {
		tune_say("absent %s %s", p->key, p->absent);
		return;
	}
	for (i = 0; i < p->n; i++)
		if (tune_write_one(t, p, &p->v[i], &why) == -1) {
			tune_say("failed %s %s", p->key, why);
			free(why);
			return;
		}
	tune_say("set %s %s %s %zu", p->key, p->value, p->was ? p->was : "-",
	    p->n);
}

/* Waits on stdin until it ends or says "restore"; answers "status". */
static void
tune_hold(void)
{
	char line[64];

	tune_say("ready");
	while (!tune_stop && fgets(line, sizeof line, stdin) != NULL) {
		if (strcmp(line, "status\n") == 0)
			tune_say("held");
		else if (strcmp(line, "restore\n") == 0)
			break;
	}
}

/* Plans every KEY=VALUE of argv; -1 with *cause for a bad one. */
static int
tune_plans(const char *root, int argc, char **argv, struct tune_plan *v,
    char **cause)
{
	char *eq, *key;
	int   i, rc = 0;

	for (i = 0; i < argc && rc == 0; i++) {
		if ((eq = strchr(argv[i], '=')) == NULL) {
			*cause = xasprintf("\"%s\": not KEY=VALUE", argv[i]);
			return -1;
		}
		key = xstrndup(argv[i], (size_t)(eq - argv[i]));
		rc = tune_control_plan(root, key, eq + 1, &v[i], cause);
		free(key);
	}
	return rc;
}

/* Orders plans as the controls apply (smt first: it takes CPUs away). */
static int
tune_plan_cmp(const void *a, const void *b)
{
	return tune_control_index(((const struct tune_plan *)a)->key) -
	    tune_control_index(((const struct tune_plan *)b)->key);
}

/* Opens the saved file afresh with this boot's id; the guardian starts. */
static int
tune_begin(struct tune *t, char **cause)
{
	char *line;
	int   rc;

	t->fd = open(t->saved, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (t->fd == -1) {
		*cause = xasprintf("\"%s\": %s", t->saved, strerror(errno));
		return -1;
	}
	line = xasprintf("boot %s\n", t->boot);
	rc = tune_save(t, line, cause);
	free(line);
	return rc == 0 ? guard_start(&t->guard, cause) : -1;
}

/* Applies the plans, holds them, restores; 0 when all went back. */
static int
tune_run(struct tune *t, struct tune_plan *v, int n, char **cause)
{
	int i, rc;

	if (tune_begin(t, cause) == -1)
		return -1;
	qsort(v, (size_t)n, sizeof *v, tune_plan_cmp);
	for (i = 0; i < n && !tune_stop; i++)
		tune_apply(t, &v[i]);
	if (!tune_stop)
		tune_hold();
	close(t->fd);
	t->fd = -1;
	rc = tune_restore_file(t->saved, 1, cause);
	guard_end(&t->guard, rc == 0);
	if (rc == 0)
		tune_say("done");
	return rc;
}

/* SIGTERM, SIGINT and SIGHUP restore; a closed stdout does not kill. */
static void
tune_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tune_stop_cb; /* no SA_RESTART: wakes fgets */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Reads the options: --root ROOT for a tree standing for the host's. */
static int
tune_args(int argc, char **argv, const char **root, char **cause)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' }, { NULL, 0, NULL, 0 }
	};
	int c;

	optind = 0; /* the agent's main() used getopt before */
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c != 'r') {
			*cause = xstrdup("usage: hilab-agent tune [--root DIR] "
					 "KEY=VALUE...");
			return -1;
		}
		*root = optarg;
	}
	return optind;
}

/* "tune ...": argv[0] is "tune"; returns the exit code. */
int
tune_main(const char *dir, int argc, char **argv)
{
	struct tune	  t = { .fd = -1 };
	struct tune_plan *v = NULL;
	char		 *cause = NULL, *bootpath;
	int		  first, lockfd = -1, rc = 1, i, n = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	t.root = "";
	if ((first = tune_args(argc, argv, &t.root, &cause)) == -1)
		goto out;
	n = argc - first;
	v = xcalloc((size_t)n + 1, sizeof *v);
	t.dir = xasprintf("%s/tune", dir);
	t.saved = xasprintf("%s/saved", t.dir);
	bootpath = xasprintf("%s/proc/sys/kernel/random/boot_id", t.root);
	if ((t.boot = facts_read(bootpath)) == NULL)
		t.boot = xstrdup("");
	free(bootpath);
	t.guard = (struct guard){ tune_guard_cleanup, &t, "tune", -1 };
	tune_signals();
	if (tune_plans(t.root, n, argv + first, v, &cause) == -1 ||
	    (mkdir(dir, 0755) == -1 && errno != EEXIST) ||
	    (mkdir(t.dir, 0755) == -1 && errno != EEXIST) ||
	    (lockfd = tune_lock(&t, &cause)) == -1 ||
	    tune_recover(&t, &cause) == -1)
		goto out;
	rc = tune_run(&t, v, n, &cause) == 0 ? 0 : 1;
out:
	if (cause == NULL && rc != 0)
		cause = xasprintf("\"%s\": %s", t.dir, strerror(errno));
	if (cause != NULL)
		tune_say("error %s", cause);
	for (i = 0; i < n; i++)
		tune_plan_clear(&v[i]);
	if (lockfd != -1)
		close(lockfd);
	free(v);
	free(cause);
	free(t.boot);
	free(t.saved);
	free(t.dir);
	return rc;
}
