/* hilab sweep: job files that hilabd queues on a schedule. */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchmarks/catalog.h"
#include "cli/cli.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "jobs/job.h"
#include "machines/inventory.h"

#define SWEEP_USAGE                                                  \
	"usage: hilab sweep add NAME FILE --every DURATION "         \
	"[--at HH:MM] | list | show NAME | rm NAME | enable NAME | " \
	"disable NAME"

/* Parses "HH:MM" into minutes after midnight; -1 if invalid. */
static int
sweep_time_of_day(const char *s)
{
	int  h, m;
	char end;

	if (sscanf(s, "%2d:%2d%c", &h, &m, &end) != 2 || strlen(s) != 5 ||
	    h < 0 || h > 23 || m < 0 || m > 59)
		return -1;
	return h * 60 + m;
}

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

/* Validates a job file as hilabd will read it; prints every error. */
static bool
sweep_check_file(const struct cli_options *o, const char *path)
{
	struct catalog	 *cat = NULL;
	struct inventory *inv = NULL;
	struct job	 *job = NULL;
	char		 *cause = NULL;

	if ((cat = catalog_load(o->catalog_dir, &cause)) != NULL &&
	    (inv = inventory_load(o->machines_dir, &cause)) != NULL)
		job = job_load(path, cat, inv, &cause);
	if (cause != NULL)
		fprintf(stderr, "%s\n", cause);
	free(cause);
	job_free(job);
	catalog_free(cat);
	inventory_free(inv);
	return job != NULL;
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

/* Parses add's options: --every DURATION and --at HH:MM. */
static int
sweep_add_options(int argc, char **argv, int64_t *every, int *at)
{
	static const struct option longopts[] = { { "every", required_argument,
						      NULL, 'e' },
		{ "at", required_argument, NULL, 'a' }, { NULL, 0, NULL, 0 } };
	int			   c;

	*every = -1;
	*at = -1;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == 'e' &&
		    (units_parse_duration(optarg, every) == -1 || *every <= 0))
			return cli_usage_error(
			    "--every \"%s\": not " UNITS_DURATION_TEXT, optarg);
		if (c == 'a' && (*at = sweep_time_of_day(optarg)) == -1)
			return cli_usage_error("--at \"%s\": not a time of day "
					       "HH:MM",
			    optarg);
		if (c != 'e' && c != 'a')
			return cli_usage_error(SWEEP_USAGE);
	}
	if (*every == -1)
		return cli_usage_error("sweep add: --every DURATION is "
				       "required");
	if (argc - optind != 2)
		return cli_usage_error(SWEEP_USAGE);
	return 0;
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
	if (o->json) {
		json_t *j = sweep_json(w);

		cli_print_json(j);
		json_decref(j);
	} else {
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
static int
sweep_add(const struct cli_options *o, int argc, char **argv)
{
	char   *file;
	int64_t every;
	int	at, rc;

	if ((rc = sweep_add_options(argc, argv, &every, &at)) != 0)
		return rc;
	if ((file = realpath(argv[optind + 1], NULL)) == NULL)
		return cli_error(CLI_EXIT_USAGE,
		    "sweep \"%s\": job file "
		    "\"%s\": %s",
		    argv[optind], argv[optind + 1], strerror(errno));
	if (!sweep_check_file(o, argv[optind + 1]))
		rc = CLI_EXIT_USAGE;
	else
		rc = sweep_store(o, argv[optind], file, every, at);
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
static int
sweep_list(const struct cli_options *o, struct db *db)
{
	struct db_sweep *v;
	char		*cause = NULL;
	json_t		*arr;
	size_t		 n, i;

	if (db_sweep_list(db, &v, &n, &cause) == -1) {
		cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
		free(cause);
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
	json_decref(arr);
	db_sweep_list_free(v, n);
	return CLI_EXIT_OK;
}

/* A job of a sweep as JSON. */
static json_t *
sweep_job_json(const struct db_job *j)
{
	return json_pack("{s:I, s:s, s:s, s:I, s:I, s:I, s:s?}", "id",
	    (json_int_t)j->id, "name", j->name, "state",
	    db_state_name(j->state), "submitted_at",
	    (json_int_t)j->submitted_at, "started_at",
	    (json_int_t)j->started_at, "finished_at",
	    (json_int_t)j->finished_at, "error", j->error);
}

/* An event of a sweep as JSON. */
static json_t *
sweep_event_json(const struct db_event *e)
{
	return json_pack("{s:I, s:I, s:o?, s:s, s:s}", "id", (json_int_t)e->id,
	    "time", (json_int_t)e->time, "job",
	    e->job ? json_integer(e->job) : NULL, "level",
	    db_level_name(e->level), "message", e->message);
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
		json_array_append_new(arr, sweep_job_json(&jobs[i]));
	for (i = 0; i < nev; i++)
		json_array_append_new(ev[i].level == DB_WARN ? reg : other,
		    sweep_event_json(&ev[i]));
	json_object_set_new(o, "jobs", arr);
	json_object_set_new(o, "regressions", reg);
	json_object_set_new(o, "events", other);
	cli_print_json(o);
	json_decref(o);
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
static int
sweep_show(const struct cli_options *o, struct db *db, const char *name)
{
	struct db_sweep *w;
	struct db_job	*jobs = NULL;
	struct db_event *ev = NULL;
	char		*cause = NULL;
	size_t		 njobs = 0, nev = 0;
	int		 rc = CLI_EXIT_FAIL;

	if ((w = db_sweep_get(db, name, &cause)) == NULL ||
	    db_sweep_jobs(db, w->id, &jobs, &njobs, &cause) == -1 ||
	    db_sweep_events(db, w->id, &ev, &nev, &cause) == -1) {
		fprintf(stderr, "hilab: %s\n", cause);
		goto out;
	}
	if (o->json)
		sweep_show_json(w, jobs, njobs, ev, nev);
	else
		sweep_show_text(w, jobs, njobs, ev, nev);
	rc = CLI_EXIT_OK;
out:
	free(cause);
	db_event_list_free(ev, nev);
	db_job_list_free(jobs, njobs);
	db_sweep_free(w);
	return rc;
}

/* hilab sweep rm|enable|disable NAME. */
static int
sweep_change(const struct cli_options *o, struct db *db, const char *verb,
    const char *name)
{
	char *cause = NULL;
	int   rc;

	if (strcmp(verb, "rm") == 0)
		rc = db_sweep_remove(db, name, &cause);
	else
		rc = db_sweep_set_enabled(db, name, strcmp(verb, "enable") == 0,
		    &cause);
	if (rc == -1) {
		fprintf(stderr, "hilab: %s\n", cause);
		free(cause);
		return CLI_EXIT_FAIL;
	}
	if (o->json)
		printf("{\"sweep\": \"%s\", \"%s\": true}\n", name,
		    strcmp(verb, "rm") == 0 ? "removed" : verb);
	else
		printf("sweep \"%s\" %s\n", name,
		    strcmp(verb, "rm") == 0	      ? "removed"
			: strcmp(verb, "enable") == 0 ? "enabled"
						      : "disabled");
	return CLI_EXIT_OK;
}

/* Whether verb takes exactly one NAME and writes the database. */
static bool
sweep_is_change(const char *verb)
{
	return strcmp(verb, "rm") == 0 || strcmp(verb, "enable") == 0 ||
	    strcmp(verb, "disable") == 0;
}

int
cmd_sweep(const struct cli_options *o, int argc, char **argv)
{
	struct db *db;
	int	   rc;

	if (argc < 2)
		return cli_usage_error(SWEEP_USAGE);
	if (strcmp(argv[1], "add") == 0)
		return sweep_add(o, argc - 1, argv + 1);
	if (!(strcmp(argv[1], "list") == 0 && argc == 2) &&
	    !(strcmp(argv[1], "show") == 0 && argc == 3) &&
	    !(sweep_is_change(argv[1]) && argc == 3))
		return cli_usage_error(SWEEP_USAGE);
	if ((db = cli_db_open(o, sweep_is_change(argv[1]))) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (strcmp(argv[1], "list") == 0)
		rc = sweep_list(o, db);
	else if (strcmp(argv[1], "show") == 0)
		rc = sweep_show(o, db, argv[2]);
	else
		rc = sweep_change(o, db, argv[1], argv[2]);
	db_close(db);
	return rc;
}
