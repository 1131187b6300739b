/* hilab sweep: job files that hilabd queues on a schedule. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/suggest.h"
#include "common/units.h"
#include "db/db.h"
#include "jobs/job.h"

/* "every 1d at 02:00" or "every 2s" into buf. */
static void
sweep_schedule_text(const struct db_sweep *w, char *buf, size_t size)
{
	char every[UNITS_STR_MAX];

	units_format_duration(w->interval_ms, every, sizeof every);
	if (w->at_minute >= 0)
		snprintf(buf, size, "%s at %02d:%02d", every, w->at_minute / 60,
		    w->at_minute % 60);
	else
		snprintf(buf, size, "%s", every);
}

/* A sweep as JSON. */
static json_t *
sweep_json(const struct db_sweep *w)
{
	char at[16];

	snprintf(at, sizeof at, "%02d:%02d", w->at_minute / 60,
	    w->at_minute % 60);
	return json_pack("{s:s, s:s, s:I, s:s?, s:b, s:I, s:o?, s:s?}", "name",
	    w->name, "file", w->file, "interval_ms", (json_int_t)w->interval_ms,
	    "at", w->at_minute >= 0 ? at : NULL, "enabled", w->enabled,
	    "next_at", (json_int_t)w->next_at, "last_job",
	    w->last_job ? json_integer(w->last_job) : NULL, "last_state",
	    w->last_job ? db_state_name(w->last_state) : NULL);
}

/*
 * Checks that a sweep called name exists: 0, or CLI_EXIT_USAGE after
 * naming the closest sweep there is (CLI_EXIT_UNAVAILABLE: the database
 * failed).
 */
static int
sweep_exists(struct db *db, const char *name)
{
	struct db_sweep *v;
	struct suggest	 s;
	char		*cause = NULL, *hint;
	size_t		 n, i;
	bool		 found = false;

	if (db_sweep_list(db, &v, &n, &cause) == -1) {
		cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
		free(cause);
		return CLI_EXIT_UNAVAILABLE;
	}
	suggest_init(&s, name);
	for (i = 0; i < n; i++) {
		found |= strcmp(v[i].name, name) == 0;
		suggest_add(&s, v[i].name);
	}
	if (!found) {
		hint = suggest_hint(&s);
		cli_error(CLI_EXIT_USAGE, "sweep \"%s\": no such sweep%s", name,
		    hint);
		free(hint);
	}
	db_sweep_list_free(v, n);
	return found ? 0 : CLI_EXIT_USAGE;
}

/* Stores a checked sweep and says when it runs first. */
static int
sweep_store(const struct cli_options *o, const char *name, const char *file,
    int64_t every, int at)
{
	struct db_sweep *w = NULL;
	struct db	*db;
	char		*cause = NULL, when[32], sched[80];
	int64_t		 now = db_now_ms(), next;
	int		 rc = CLI_EXIT_FAIL;

	next = at >= 0 ? db_sweep_next_at(every, at, now, now) : now;
	if ((db = cli_db_open(o, true)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_sweep_add(db, name, file, every, at, next, &cause) == -1 ||
	    (w = db_sweep_get(db, name, &cause)) == NULL) {
		fprintf(stderr, "hilab: %s\n", cause);
		goto out;
	}
	if (o->json)
		cli_print_json(sweep_json(w));
	else {
		cli_time(w->next_at, when, sizeof when);
		sweep_schedule_text(w, sched, sizeof sched);
		printf("sweep \"%s\" added: %s every %s, first run %s\n", name,
		    file, sched, when);
	}
	rc = CLI_EXIT_OK;
out:
	free(cause);
	db_sweep_free(w);
	db_close(db);
	return rc;
}

/* hilab sweep add NAME FILE --every DURATION [--at HH:MM]. */
int
cmd_sweep_add(const struct cli_options *o, const struct args *a)
{
	const char *name = a->pos[0].text, *path = a->pos[1].text;
	struct job *job = NULL;
	char	   *file;
	int	    rc;

	if ((file = realpath(path, NULL)) == NULL)
		return cli_error(CLI_EXIT_USAGE,
		    "sweep \"%s\": job file \"%s\": %s", name, path,
		    strerror(errno));
	if ((job = cli_job_load(o, path)) == NULL)
		rc = CLI_EXIT_USAGE;
	else
		rc = sweep_store(o, name, file, args_num(a, "every", 0),
		    (int)args_num(a, "at", -1));
	job_free(job);
	free(file);
	return rc;
}

/* Prints one line of "hilab sweep list". */
static void
sweep_list_line(const struct db_sweep *w)
{
	char when[32], sched[80], last[48];

	sweep_schedule_text(w, sched, sizeof sched);
	if (w->enabled)
		cli_time(w->next_at, when, sizeof when);
	else
		snprintf(when, sizeof when, "disabled");
	if (w->last_job != 0)
		snprintf(last, sizeof last, "%lld %s", (long long)w->last_job,
		    db_state_name(w->last_state));
	else
		snprintf(last, sizeof last, "-");
	printf("%-16s %-14s %-19s  %-16s %s\n", w->name, sched, when, last,
	    w->file);
}

/* hilab sweep list: every sweep with its schedule and last job. */
int
cmd_sweep_list(const struct cli_options *o, const struct args *a)
{
	struct db_sweep *v;
	struct db	*db;
	char		*cause = NULL;
	json_t		*arr;
	size_t		 n, i;

	(void)a;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_sweep_list(db, &v, &n, &cause) == -1) {
		cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
		free(cause);
		db_close(db);
		return CLI_EXIT_UNAVAILABLE;
	}
	arr = json_array();
	if (!o->json)
		printf("%-16s %-14s %-19s  %-16s %s\n", "NAME", "EVERY",
		    "NEXT RUN", "LAST JOB", "FILE");
	for (i = 0; i < n; i++) {
		json_array_append_new(arr, sweep_json(&v[i]));
		if (!o->json)
			sweep_list_line(&v[i]);
	}
	if (o->json)
		cli_print_json(arr);
	else
		json_decref(arr);
	db_sweep_list_free(v, n);
	db_close(db);
	return CLI_EXIT_OK;
}

/* Prints a sweep, its jobs and its events as JSON. */
static void
sweep_show_json(const struct db_sweep *w, const struct db_job *jobs,
    size_t njobs, const struct db_event *ev, size_t nev)
{
	json_t *o = sweep_json(w), *arr = json_array(), *reg = json_array(),
	       *other = json_array();
	size_t i;

	for (i = 0; i < njobs; i++)
		json_array_append_new(arr, cli_job_json(&jobs[i]));
	for (i = 0; i < nev; i++)
		json_array_append_new(ev[i].level == DB_WARN ? reg : other,
		    cli_event_json(&ev[i]));
	json_object_set_new(o, "jobs", arr);
	json_object_set_new(o, "regressions", reg);
	json_object_set_new(o, "events", other);
	cli_print_json(o);
}

/* Prints the events of one level (warn) or of every other level. */
static void
sweep_show_events(const struct db_event *ev, size_t n, bool warn)
{
	char   when[32];
	size_t i, shown = 0;

	for (i = 0; i < n; i++) {
		if ((ev[i].level == DB_WARN) != warn)
			continue;
		cli_time(ev[i].time, when, sizeof when);
		printf("  %s  %-5s %s\n", when, db_level_name(ev[i].level),
		    ev[i].message);
		shown++;
	}
	if (shown == 0)
		printf("  (none)\n");
}

/* Prints a sweep, its jobs (newest first), regressions and events. */
static void
sweep_show_text(const struct db_sweep *w, const struct db_job *jobs,
    size_t njobs, const struct db_event *ev, size_t nev)
{
	char   when[32], end[32], sched[80];
	size_t i;

	sweep_schedule_text(w, sched, sizeof sched);
	cli_time(w->next_at, when, sizeof when);
	printf("sweep \"%s\": %s\nevery: %s\nnext run: %s\n\njobs:\n", w->name,
	    w->file, sched, w->enabled ? when : "disabled");
	printf("  %5s  %-9s %-19s  %s\n", "JOB", "STATE", "SUBMITTED",
	    "FINISHED");
	for (i = 0; i < njobs; i++) {
		cli_time(jobs[i].submitted_at, when, sizeof when);
		cli_time(jobs[i].finished_at, end, sizeof end);
		printf("  %5lld  %-9s %-19s  %s\n", (long long)jobs[i].id,
		    db_state_name(jobs[i].state), when, end);
	}
	printf("\nregressions:\n");
	sweep_show_events(ev, nev, true);
	printf("\nevents:\n");
	sweep_show_events(ev, nev, false);
}

/* hilab sweep show NAME: the sweep, its jobs and what they showed. */
int
cmd_sweep_show(const struct cli_options *o, const struct args *a)
{
	const char	*name = a->pos[0].text;
	struct db_sweep *w = NULL;
	struct db_job	*jobs = NULL;
	struct db_event *ev = NULL;
	struct db	*db;
	char		*cause = NULL;
	size_t		 njobs = 0, nev = 0;
	int		 rc;

	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = sweep_exists(db, name)) != 0)
		goto out;
	if ((w = db_sweep_get(db, name, &cause)) == NULL ||
	    db_sweep_jobs(db, w->id, &jobs, &njobs, &cause) == -1 ||
	    db_sweep_events(db, w->id, &ev, &nev, &cause) == -1) {
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
		goto out;
	}
	if (o->json)
		sweep_show_json(w, jobs, njobs, ev, nev);
	else
		sweep_show_text(w, jobs, njobs, ev, nev);
out:
	free(cause);
	db_event_list_free(ev, nev);
	db_job_list_free(jobs, njobs);
	db_sweep_free(w);
	db_close(db);
	return rc;
}

/* Says what sweep rm, enable or disable did: a line, or JSON. */
static void
sweep_changed(const struct cli_options *o, const char *verb, const char *name)
{
	bool	    rm = strcmp(verb, "rm") == 0;
	const char *done = rm		  ? "removed"
	    : strcmp(verb, "enable") == 0 ? "enabled"
					  : "disabled";

	if (o->json)
		cli_print_json(json_pack("{s:s, s:b}", "sweep", name,
		    rm ? "removed" : verb, 1));
	else
		printf("sweep \"%s\" %s\n", name, done);
}

/* hilab sweep rm|enable|disable NAME: the command's name says which. */
int
cmd_sweep_change(const struct cli_options *o, const struct args *a)
{
	const char *verb = a->cmd->name, *name = a->pos[0].text;
	struct db  *db;
	char	   *cause = NULL;
	int	    rc;

	if ((db = cli_db_open(o, true)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = sweep_exists(db, name)) != 0)
		goto out;
	if (strcmp(verb, "rm") == 0)
		rc = db_sweep_remove(db, name, &cause);
	else
		rc = db_sweep_set_enabled(db, name, strcmp(verb, "enable") == 0,
		    &cause);
	if (rc == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else
		sweep_changed(o, verb, name);
out:
	free(cause);
	db_close(db);
	return rc;
}
