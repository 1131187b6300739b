/* hilab sweep: job files that hilabd queues on a schedule. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/conf.h"
#include "common/suggest.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "jobs/job.h"
#include "report/report_text.h"

/* "1d at 02:00", "2s" or "cron 0 3 * * 1-5" into buf. */
static void
sweep_schedule_text(const struct db_sweep *w, char *buf, size_t size)
{
	char every[UNITS_STR_MAX];

	if (w->cron != NULL) {
		snprintf(buf, size, "cron %s", w->cron);
		return;
	}
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
	return json_pack("{s:s, s:s, s:o?, s:s?, s:s?, s:b, s:I, s:o?, s:s?, "
			 "s:i, s:s?, s:o?, s:I}",
	    "name", w->name, "file", w->file, "interval_ms",
	    w->cron == NULL ? json_integer(w->interval_ms) : NULL, "at",
	    w->at_minute >= 0 ? at : NULL, "cron", w->cron, "enabled",
	    w->enabled, "next_at", (json_int_t)w->next_at, "last_job",
	    w->last_job ? json_integer(w->last_job) : NULL, "last_state",
	    w->last_job ? db_state_name(w->last_state) : NULL, "confirm_rounds",
	    w->confirm_rounds, "mbox", w->mbox, "mail_command",
	    w->mail_command ? json_loads(w->mail_command, 0, NULL) : NULL,
	    "bisect_budget", (json_int_t)w->bisect_budget);
}

/*
 * Checks that a sweep called name exists: 0, or CLI_EXIT_USAGE after
 * naming the closest sweep there is (CLI_EXIT_UNAVAILABLE: no database).
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
	hint = suggest_hint(&s);
	if (!found)
		cli_error(CLI_EXIT_USAGE, "sweep \"%s\": no such sweep%s", name,
		    hint);
	free(hint);
	db_sweep_list_free(v, n);
	return found ? 0 : CLI_EXIT_USAGE;
}

/*
 * Stores a checked sweep and says when it runs first: at once for a plain
 * --every, else at the schedule's first slot.
 */
static int
sweep_store(const struct cli_options *o, struct db_sweep *add)
{
	struct db_sweep *w = NULL;
	struct db	*db;
	char		*cause = NULL, when[32], sched[80];
	const char	*name = add->name;
	int64_t		 now = db_now_ms();
	int		 rc = CLI_EXIT_FAIL;

	add->next_at = now;
	if (add->cron != NULL || add->at_minute >= 0)
		add->next_at = db_sweep_next(add, now);
	if ((db = cli_db_open(o, true)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_sweep_add(db, add, &cause) == -1 ||
	    (w = db_sweep_get(db, name, &cause)) == NULL) {
		fprintf(stderr, "hilab: %s\n", cause);
		goto out;
	}
	if (o->json)
		cli_print_json(sweep_json(w));
	else {
		cli_time(w->next_at, when, sizeof when);
		sweep_schedule_text(w, sched, sizeof sched);
		printf("sweep \"%s\" added: %s %s%s, first run %s\n", name,
		    w->file, w->cron != NULL ? "" : "every ", sched, when);
	}
	rc = CLI_EXIT_OK;
out:
	free(cause);
	db_sweep_free(w);
	db_close(db);
	return rc;
}

/*
 * The mail settings of sweep add into w (strings the caller frees); 0, or
 * a usage error.
 */
static int
sweep_add_mail(const struct args *a, struct db_sweep *w)
{
	const char *mbox = args_text(a, "mbox", NULL);
	size_t	    i, n = args_count(a, "mail-command");
	json_t	   *argv;
	char	   *cwd;

	w->confirm_rounds = (int)args_num(a, "confirm-rounds", 3);
	w->bisect_budget = args_num(a, "bisect", 0);
	if (w->bisect_budget != 0 && w->bisect_budget < 10)
		return cli_error(CLI_EXIT_USAGE,
		    "sweep \"%s\": --bisect %lld: 10 samples or more", w->name,
		    (long long)w->bisect_budget);
	if (w->confirm_rounds < 2 || w->confirm_rounds > 1000)
		return cli_error(CLI_EXIT_USAGE,
		    "sweep \"%s\": --confirm-rounds %d: not in 2-1000", w->name,
		    w->confirm_rounds);
	if (mbox != NULL && *mbox == '\0')
		return cli_error(CLI_EXIT_USAGE,
		    "sweep \"%s\": --mbox: an empty path", w->name);
	if (mbox != NULL && *mbox != '/' && (cwd = getcwd(NULL, 0)) != NULL) {
		w->mbox = xasprintf("%s/%s", cwd, mbox);
		free(cwd);
	} else if (mbox != NULL)
		w->mbox = xstrdup(mbox);
	if (n == 0)
		return 0;
	argv = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(argv,
		    json_string(args_nth(a, "mail-command", i)->text));
	w->mail_command = json_dumps(argv, JSON_COMPACT);
	json_decref(argv);
	return 0;
}

/* hilab sweep add NAME FILE --every DURATION [--at HH:MM] | --cron EXPR. */
int
cmd_sweep_add(const struct cli_options *o, const struct args *a)
{
	const char     *name = a->pos[0].text, *path = a->pos[1].text;
	struct db_sweep w = { .name = (char *)name,
		.interval_ms = args_num(a, "every", 0),
		.at_minute = (int)args_num(a, "at", -1),
		.cron = (char *)args_text(a, "cron", NULL) };
	struct job     *job = NULL;
	int		rc;

	if (!conf_name_ok(name)) {
		rc = cli_error(CLI_EXIT_USAGE,
		    "sweep \"%s\": a sweep's name must be %s", name,
		    CONF_NAME_RULE);
		goto out;
	}
	if ((rc = sweep_add_mail(a, &w)) != 0)
		goto out;
	if ((w.file = realpath(path, NULL)) == NULL)
		rc = cli_error(CLI_EXIT_USAGE,
		    "sweep \"%s\": job file \"%s\": %s", name, path,
		    strerror(errno));
	else if ((job = cli_job_load(o, path)) == NULL)
		rc = CLI_EXIT_USAGE;
	else
		rc = sweep_store(o, &w);
	job_free(job);
out:
	free(w.file);
	free(w.mbox);
	free(w.mail_command);
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
	printf("%-16s %-22s %-19s  %-16s %s\n", w->name, sched, when, last,
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
		printf("%-16s %-22s %-19s  %-16s %s\n", "NAME", "SCHEDULE",
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

/* A change point a sweep found, as JSON. */
/* Whether a confirmation decided c (its confirm_p is set). */
static bool
sweep_change_decided(const struct db_sweep_change *c)
{
	return strcmp(c->state, "confirmed") == 0 ||
	    strcmp(c->state, "rejected") == 0;
}

static json_t *
sweep_change_json(const struct db_sweep_change *c)
{
	json_t *o =
	    json_pack("{s:s, s:s, s:s, s:s, s:I, s:o?, s:o?, s:f, s:f, s:f, "
		      "s:f, s:s, s:s, s:I}",
		"machine", c->machine, "benchmark", c->benchmark, "params",
		c->params, "metric", c->metric, "job", (json_int_t)c->job,
		"before_job",
		c->before_job ? json_integer(c->before_job) : NULL, "found_job",
		c->found_job ? json_integer(c->found_job) : NULL, "before",
		c->before, "after", c->after, "effect_pct", c->effect_pct, "p",
		c->p, "verdict", c->verdict, "state", c->state, "created_at",
		(json_int_t)c->created_at);
	bool decided = sweep_change_decided(c);

	json_object_set_new(o, "confirm_job",
	    c->confirm_job ? json_integer(c->confirm_job) : json_null());
	json_object_set_new(o, "confirm_p",
	    decided ? json_real(c->confirm_p) : json_null());
	json_object_set_new(o, "confirm_effect_pct",
	    decided ? json_real(c->confirm_effect_pct) : json_null());
	return o;
}

/* The sweep's change points as a JSON array. */
static json_t *
sweep_changes_json(const struct db_sweep_change *v, size_t n)
{
	json_t *arr = json_array();
	size_t	i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, sweep_change_json(&v[i]));
	return arr;
}

/* Prints one change: series, where, by how much, its state. */
static void
sweep_show_change(const struct db_sweep_change *c)
{
	char confirm[96] = "";

	if (c->confirm_job != 0 && sweep_change_decided(c))
		snprintf(confirm, sizeof confirm,
		    " by job %lld: %+.1f%%, p=%.2g", (long long)c->confirm_job,
		    c->confirm_effect_pct, c->confirm_p);
	else if (c->confirm_job != 0)
		snprintf(confirm, sizeof confirm, " (job %lld)",
		    (long long)c->confirm_job);
	printf("  %-10s %-11s %s %s%s%s on %s: job %lld -> %lld, %g -> %g "
	       "(%+.1f%%, p=%.2g)%s\n",
	    c->state, c->verdict, c->benchmark, c->metric,
	    *c->params ? " " : "", c->params, c->machine,
	    (long long)c->before_job, (long long)c->job, c->before, c->after,
	    c->effect_pct, c->p, confirm);
}

/* The kernel of a job's spec, as "NAME (SOURCE)" (caller frees). */
static char *
sweep_job_kernel(const struct db_job *j)
{
	json_t *o = json_loads(j->spec, 0, NULL);
	json_t *k = json_array_get(json_object_get(o, "kernels"), 0);
	char   *spec = k ? json_dumps(k, JSON_COMPACT) : NULL;
	char   *src = report_kernel_source(spec ? spec : "{}");
	char   *s = xasprintf("%s (%s)",
	      k ? json_string_value(json_object_get(k, "name")) : "?", src);

	free(spec);
	free(src);
	json_decref(o);
	return s;
}

/* Prints a sweep, its jobs, its changes and its events as JSON. */
static void
sweep_show_json(const struct db_sweep *w, const struct db_job *jobs,
    size_t njobs, const struct db_event *ev, size_t nev,
    const struct db_sweep_change *ch, size_t nch)
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
	json_object_set_new(o, "changes", sweep_changes_json(ch, nch));
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
    size_t njobs, const struct db_event *ev, size_t nev,
    const struct db_sweep_change *ch, size_t nch)
{
	char   when[32], end[32], sched[80], *kernel;
	size_t i;

	sweep_schedule_text(w, sched, sizeof sched);
	cli_time(w->next_at, when, sizeof when);
	printf("sweep \"%s\": %s\nschedule: %s%s\nnext run: %s\n\njobs:\n",
	    w->name, w->file, w->cron != NULL ? "" : "every ", sched,
	    w->enabled ? when : "disabled");
	printf("  %5s  %-9s %-19s  %-19s  %s\n", "JOB", "STATE", "SUBMITTED",
	    "FINISHED", "KERNEL");
	for (i = 0; i < njobs; i++) {
		cli_time(jobs[i].submitted_at, when, sizeof when);
		cli_time(jobs[i].finished_at, end, sizeof end);
		kernel = sweep_job_kernel(&jobs[i]);
		printf("  %5lld  %-9s %-19s  %-19s  %s\n",
		    (long long)jobs[i].id, db_state_name(jobs[i].state), when,
		    end, kernel);
		free(kernel);
	}
	printf("\nchanges:\n");
	for (i = 0; i < nch; i++)
		sweep_show_change(&ch[i]);
	if (nch == 0)
		printf("  (none)\n");
	printf("\nregressions:\n");
	sweep_show_events(ev, nev, true);
	printf("\nevents:\n");
	sweep_show_events(ev, nev, false);
}

/* hilab sweep show NAME: the sweep, its jobs and what they showed. */
int
cmd_sweep_show(const struct cli_options *o, const struct args *a)
{
	const char	       *name = a->pos[0].text;
	struct db_sweep	       *w = NULL;
	struct db_job	       *jobs = NULL;
	struct db_event	       *ev = NULL;
	struct db_sweep_change *ch = NULL;
	struct db	       *db;
	char		       *cause = NULL;
	size_t			njobs = 0, nev = 0, nch = 0;
	int			rc;

	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = sweep_exists(db, name)) != 0)
		goto out;
	rc = CLI_EXIT_UNAVAILABLE;
	if ((w = db_sweep_get(db, name, &cause)) == NULL ||
	    db_sweep_jobs(db, w->id, &jobs, &njobs, &cause) == -1 ||
	    db_sweep_events(db, w->id, &ev, &nev, &cause) == -1 ||
	    db_sweep_changes(db, w->id, &ch, &nch, &cause) == -1) {
		fprintf(stderr, "hilab: %s\n", cause);
		goto out;
	}
	if (o->json)
		sweep_show_json(w, jobs, njobs, ev, nev, ch, nch);
	else
		sweep_show_text(w, jobs, njobs, ev, nev, ch, nch);
	rc = CLI_EXIT_OK;
out:
	free(cause);
	db_event_list_free(ev, nev);
	db_sweep_change_list_free(ch, nch);
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
