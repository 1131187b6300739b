/*
 * hilab wait: follows a job to its end.  At each commit to the database
 * (an inotify watch; every WAIT_POLL_MS without one) it reads the job,
 * its running runs with the iterations they stored and its kernel build
 * steps, and once a second it pings hilabd on its control socket.  A terminal
 * gets one line redrawn; other output a line at each change (the runs ended, a
 * run's iteration, a build step).  With
 * --json those go to stderr and the job's end state to stdout.
 */
#include <sys/ioctl.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/clock.h"
#include "common/control.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "db/db.h"

#define WAIT_POLL_MS 300
#define WAIT_PING_MS 1000
/* hilabd silent this long is taken for gone. */
#define WAIT_DEAD_MS 5000
#define WAIT_BAR     20

/* A running run as last seen. */
struct wait_run {
	int64_t run;
	int	results;     /* iterations stored when last seen */
	int64_t changed;     /* clock_now_ms() when they last changed */
	int64_t estimate_ns; /* earlier runs' mean iteration; -1: unread */
};

struct wait {
	const struct cli_options *o;
	struct db		 *db;
	struct db_watch		 *watch; /* NULL: polled */
	int64_t			  id;
	FILE			 *out; /* stdout; stderr with --json */
	bool			  tty;
	int64_t			  start;      /* clock_now_ms() */
	int64_t			  timeout;    /* ms; 0: none */
	int64_t			  last_event; /* -1: the events are unread */
	int			  last_ended; /* runs ended when last shown */
	struct wait_run		 *runs;
	size_t			  nruns;
	int64_t			  last_ping;   /* clock_now_ms() */
	int64_t			  last_answer; /* clock_now_ms() */
	char			 *down_cause;  /* why the last ping failed */
};

/* The runs of a job, and how many of them ended. */
static int
wait_counts(const struct db_job *j, int *total)
{
	int i;

	*total = 0;
	for (i = 0; i < DB_NSTATES; i++)
		*total += j->runs[i];
	return j->runs[DB_DONE] + j->runs[DB_FAILED] + j->runs[DB_CANCELLED];
}

/* The state kept for a running run, added when it is first seen. */
static struct wait_run *
wait_run_find(struct wait *w, const struct db_progress *p)
{
	struct wait_run *r;
	size_t		 i;

	for (i = 0; i < w->nruns; i++)
		if (w->runs[i].run == p->run)
			return &w->runs[i];
	w->runs = xreallocarray(w->runs, w->nruns + 1, sizeof *w->runs);
	r = &w->runs[w->nruns++];
	*r = (struct wait_run){ p->run, -1, clock_now_ms(), -1 };
	return r;
}

/*
 * Notes the iterations a run stored; true if they changed since it was
 * last seen (or it is new).
 */
static bool
wait_run_changed(struct wait *w, const struct db_progress *p)
{
	struct wait_run *r = wait_run_find(w, p);

	if (r->results == p->results)
		return false;
	r->results = p->results;
	r->changed = clock_now_ms();
	return true;
}

/*
 * The mean wall time of one of the run's iterations (ns): of those it
 * stored, else of earlier done runs alike (read once); 0 if unknown.
 */
static int64_t
wait_iteration_ns(struct wait *w, const struct db_progress *p,
    struct wait_run *r)
{
	char *cause = NULL;

	if (p->timed > 0)
		return p->wall_ns / p->timed;
	if (r->estimate_ns < 0 &&
	    db_iteration_estimate(w->db, p->machine, p->benchmark, p->params,
		&r->estimate_ns, &cause) == -1) {
		free(cause);
		r->estimate_ns = 0;
	}
	return r->estimate_ns;
}

/*
 * "about 70s left" for a run, in whole seconds: its iterations to go at
 * the mean iteration, less the time the current one has been seen running.
 */
static void
wait_run_left(struct wait *w, const struct db_progress *p, char *buf,
    size_t size)
{
	struct wait_run *r = wait_run_find(w, p);
	int64_t		 per = wait_iteration_ns(w, p, r), left;
	int		 todo = p->iterations + p->warmups - p->results;
	char		 t[UNITS_STR_MAX];

	if (todo <= 0) {
		snprintf(buf, size, "finishing");
		return;
	}
	if (per <= 0) {
		snprintf(buf, size, "no estimate yet");
		return;
	}
	left = per / 1000000 * todo - (clock_now_ms() - r->changed);
	left = left > 1000 ? (left + 999) / 1000 * 1000 : 1000;
	snprintf(buf, size, "about %s left",
	    units_format_duration(left, t, sizeof t));
}

/*
 * "run 17: iteration 3/10 (demo, hackbench groups=4), 42s elapsed,
 * about 70s left"; warmups count as "warmup 1/2" (caller frees).
 */
static char *
wait_run_text(struct wait *w, const struct db_progress *p)
{
	int64_t	    elapsed = p->started_at ? db_now_ms() - p->started_at : 0;
	int	    i = p->results + 1, n = p->iterations;
	const char *what = "iteration";
	char	    e[UNITS_STR_MAX], left[UNITS_STR_MAX + 16];

	if (p->results < p->warmups) {
		what = "warmup";
		n = p->warmups;
	} else
		i -= p->warmups;
	if (i > n)
		i = n;
	wait_run_left(w, p, left, sizeof left);
	return xasprintf("run %lld: %s %d/%d (%s, %s%s%s), %s elapsed, %s",
	    (long long)p->run, what, i, n, p->machine, p->benchmark,
	    *p->params ? " " : "", p->params,
	    units_format_duration(elapsed > 0 ? elapsed / 1000 * 1000 : 0, e,
		sizeof e),
	    left);
}

/*
 * "about 300s left for the job" from the mean time of its done runs and
 * the runs running side by side (busy), or "" (caller frees).
 */
static char *
wait_job_left(struct wait *w, const struct db_job *j, size_t busy)
{
	int64_t ms = 0;
	char   *cause = NULL, t[UNITS_STR_MAX];
	int	total, ended = wait_counts(j, &total);
	int64_t todo = total - ended;

	if (db_job_run_time(w->db, j->id, &ms, &cause) == -1)
		free(cause);
	if (ms <= 0 || todo <= 0)
		return xstrdup("");
	ms = ms * todo / (int64_t)(busy ? busy : 1);
	return xasprintf("about %s left for the job",
	    units_format_duration((ms + 999) / 1000 * 1000, t, sizeof t));
}

/* Off a terminal: a line when the runs ended or a run's iteration change. */
static void
wait_lines(struct wait *w, const struct db_job *j, const struct db_progress *v,
    size_t n)
{
	int    total, ended = wait_counts(j, &total);
	char  *t;
	size_t i;

	if (ended != w->last_ended) {
		t = wait_job_left(w, j, n);
		fprintf(w->out, "job %lld: %d/%d runs ended, %d failed%s%s\n",
		    (long long)j->id, ended, total, j->runs[DB_FAILED],
		    *t ? ", " : "", t);
		free(t);
		w->last_ended = ended;
	}
	for (i = 0; i < n; i++) {
		if (!wait_run_changed(w, &v[i]))
			continue;
		t = wait_run_text(w, &v[i]);
		fprintf(w->out, "job %lld: %s\n", (long long)j->id, t);
		free(t);
	}
	fflush(w->out);
}

/* The terminal's width, or 80. */
static size_t
wait_width(FILE *f)
{
	struct winsize ws;

	if (ioctl(fileno(f), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10)
		return ws.ws_col;
	return 80;
}

/*
 * On a terminal: one line redrawn, cut to the terminal's width: the runs
 * ended, the oldest running run, the time left for the job.
 */
static void
wait_bar(struct wait *w, const struct db_job *j, const struct db_progress *v,
    size_t n)
{
	int    total, ended = wait_counts(j, &total);
	int    fill = total ? ended * WAIT_BAR / total : 0;
	char  *left = wait_job_left(w, j, n), *run, *line, more[48] = "";
	size_t i, width = wait_width(w->out) - 1;

	for (i = 0; i < n; i++)
		wait_run_changed(w, &v[i]);
	run = n > 0 ? wait_run_text(w, &v[0]) : xstrdup("");
	if (n > 1)
		snprintf(more, sizeof more, " (+%zu running)", n - 1);
	line = xasprintf("job %lld [%-*.*s] %d/%d runs, %d failed%s%s%s%s%s",
	    (long long)j->id, WAIT_BAR, fill, "####################", ended,
	    total, j->runs[DB_FAILED], n > 0 ? " | " : "", run, more,
	    *left ? " | " : "", left);
	if (strlen(line) > width)
		line[width] = '\0';
	fprintf(w->out, "\r\033[K%s", line);
	fflush(w->out);
	free(line);
	free(left);
	free(run);
}

/*
 * Shows the kernel build steps logged since the last poll, on lines of
 * their own.  Of a job found past its queue, only the steps logged from
 * then on.
 */
static void
wait_events(struct wait *w, const struct db_job *j)
{
	struct db_event *v;
	char		*cause = NULL;
	size_t		 n, i;
	bool		 show = w->last_event >= 0 || j->state == DB_QUEUED;

	if (db_event_list(w->db, w->id, w->last_event < 0 ? 0 : w->last_event,
		&v, &n, &cause) == -1) {
		free(cause);
		return;
	}
	if (n > 0)
		w->last_event = v[n - 1].id;
	else if (w->last_event < 0)
		w->last_event = 0;
	for (i = 0; show && i < n; i++)
		if (strncmp(v[i].message, "kernel build: ", 14) == 0)
			fprintf(w->out, "%sjob %lld: %s\n",
			    w->tty ? "\r\033[K" : "", (long long)w->id,
			    v[i].message);
	db_event_list_free(v, n);
}

/* Shows where the job is. */
static void
wait_show(struct wait *w, const struct db_job *j)
{
	struct db_progress *v = NULL;
	char		   *cause = NULL;
	size_t		    n = 0;

	wait_events(w, j);
	if (db_run_progress(w->db, j->id, &v, &n, &cause) == -1)
		free(cause);
	if (w->tty)
		wait_bar(w, j, v, n);
	else
		wait_lines(w, j, v, n);
	db_progress_free(v, n);
}

/*
 * Pings hilabd once a second; true once it has not answered for
 * WAIT_DEAD_MS.
 */
static bool
wait_daemon_gone(struct wait *w)
{
	int64_t now = clock_now_ms();
	char   *reply, *cause = NULL;

	if (now - w->last_ping >= WAIT_PING_MS) {
		w->last_ping = now;
		reply = control_call(w->o->socket_path, "ping", &cause);
		if (reply != NULL)
			w->last_answer = now;
		else {
			free(w->down_cause);
			w->down_cause = cause;
		}
		free(reply);
	}
	return now - w->last_answer >= WAIT_DEAD_MS;
}

/*
 * The end: the job's last line or state as JSON (with the outcome), and
 * why waiting stopped early; returns rc.
 */
static int
wait_end(struct wait *w, const struct db_job *j, const char *outcome, int rc)
{
	char	buf[UNITS_STR_MAX];
	json_t *o;

	if (w->tty)
		fputc('\n', w->out);
	fflush(w->out);
	if (w->o->json) {
		o = cli_job_json(j);
		json_object_set_new(o, "outcome", json_string(outcome));
		cli_print_json(o);
	}
	if (rc == CLI_EXIT_TIMEOUT)
		return cli_error(rc, "job %lld: still %s after %s",
		    (long long)j->id, db_state_name(j->state),
		    units_format_duration(w->timeout, buf, sizeof buf));
	if (rc == CLI_EXIT_UNAVAILABLE)
		return cli_error(rc,
		    "hilabd is not answering (%s); job %lld is still %s and "
		    "goes on when hilabd is back",
		    w->down_cause ? w->down_cause : "no reply",
		    (long long)j->id, db_state_name(j->state));
	if (!w->o->json)
		printf("job %lld %s%s%s\n", (long long)j->id,
		    db_state_name(j->state), j->error ? ": " : "",
		    j->error ? j->error : "");
	return rc;
}

/*
 * Sleeps until the database changes or a poll passes, or less when the
 * timeout or the next ping comes first.
 */
static void
wait_sleep(struct wait *w)
{
	int64_t now = clock_now_ms(), ms = WAIT_POLL_MS;

	if (w->watch != NULL)
		ms = w->last_ping + WAIT_PING_MS - now;
	if (w->timeout > 0 && w->start + w->timeout - now < ms)
		ms = w->start + w->timeout - now;
	if (ms < 1)
		ms = 1;
	if (w->watch != NULL)
		db_watch_wait(w->watch, (int)ms);
	else
		clock_sleep_ms(ms);
}

/* Follows the job until it ends, the timeout passes or hilabd is gone. */
static int
wait_loop(struct wait *w)
{
	struct db_job *j = NULL;
	int	       rc;

	for (;;) {
		db_job_free(j);
		if ((rc = cli_job(w->db, w->id, &j)) != CLI_EXIT_OK)
			return rc;
		wait_show(w, j);
		if (j->state == DB_DONE)
			rc = wait_end(w, j, "done", CLI_EXIT_OK);
		else if (j->state == DB_FAILED || j->state == DB_CANCELLED)
			rc = wait_end(w, j, db_state_name(j->state),
			    CLI_EXIT_FAIL);
		else if (w->timeout > 0 &&
		    clock_now_ms() - w->start >= w->timeout)
			rc = wait_end(w, j, "timeout", CLI_EXIT_TIMEOUT);
		else if (wait_daemon_gone(w))
			rc =
			    wait_end(w, j, "unavailable", CLI_EXIT_UNAVAILABLE);
		else {
			wait_sleep(w);
			continue;
		}
		db_job_free(j);
		return rc;
	}
}

/* The watch on the database, or NULL to poll (no inotify left). */
static struct db_watch *
wait_watch(const struct cli_options *o)
{
	struct db_watch *watch;
	char		*cause = NULL;

	if ((watch = db_watch_open(o->db_path, &cause)) == NULL) {
		fprintf(stderr, "hilab: %s; polling every %d ms\n", cause,
		    WAIT_POLL_MS);
		free(cause);
	}
	return watch;
}

/* hilab wait [--timeout DURATION] JOB. */
int
cmd_wait(const struct cli_options *o, const struct args *a)
{
	struct wait w = { .o = o,
		.id = a->pos[0].num,
		.last_event = -1,
		.last_ended = -1 };
	int	    rc;

	w.out = o->json ? stderr : stdout;
	w.tty = isatty(fileno(w.out));
	w.timeout = args_num(a, "timeout", 0);
	w.start = w.last_answer = clock_now_ms();
	w.last_ping = w.start - WAIT_PING_MS;
	if ((w.db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	w.watch = wait_watch(o);
	rc = wait_loop(&w);
	db_watch_close(w.watch);
	free(w.runs);
	free(w.down_cause);
	db_close(w.db);
	return rc;
}
