/* Sweeps through the API: schedule, due list, queueing, jobs and events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>
#include <cmocka.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "db/migrate.h"
#include "tests/unit/db/dbtest.h"

#define HOUR	 3600000LL
#define DAY	 (24 * HOUR)
/* 2024-01-01 15:00:00 UTC. */
#define JAN1_15H 1704121200000LL

/* Adds a sweep or fails the test; returns its id. */
static int64_t
add(struct dbtest *f, const char *name, int64_t every, int at, int64_t next)
{
	struct db_sweep w = { .name = (char *)name,
		.file = (char *)"/srv/jobs/nightly.yaml",
		.interval_ms = every,
		.at_minute = at,
		.next_at = next };
	int64_t		id;

	id = db_sweep_add(f->db, &w, &f->cause);
	if (id <= 0)
		fail_msg("%s", f->cause);
	return id;
}

/* Slots step from the anchor, skip missed ones and align to HH:MM. */
static void
test_next_at(void **state)
{
	(void)state;
	assert_int_equal(db_sweep_next_at(500, -1, 1000, 1000), 1500);
	assert_int_equal(db_sweep_next_at(500, -1, 1000, 1499), 1500);
	assert_int_equal(db_sweep_next_at(500, -1, 1000, 1500), 2000);
	/* a controller down for 10 slots resumes on the grid */
	assert_int_equal(db_sweep_next_at(500, -1, 1000, 6250), 6500);
	/* an anchor in the future: the first slot after now */
	assert_int_equal(db_sweep_next_at(500, -1, 1000, 200), 500);
	setenv("TZ", "UTC", 1);
	tzset();
	/* nightly at 02:00, asked at 15:00: tomorrow 02:00 */
	assert_int_equal(db_sweep_next_at(DAY, 120, 0, JAN1_15H),
	    JAN1_15H + 11 * HOUR);
	/* every 6 h from 02:00: 20:00 today */
	assert_int_equal(db_sweep_next_at(6 * HOUR, 120, 0, JAN1_15H),
	    JAN1_15H + 5 * HOUR);
	/* at 23:30, asked at 15:00: today */
	assert_int_equal(db_sweep_next_at(DAY, 23 * 60 + 30, 0, JAN1_15H),
	    JAN1_15H + 8 * HOUR + HOUR / 2);
	setenv("TZ", "America/New_York", 1);
	tzset();
	/* 02:00 in New York (UTC-5 in January) is 07:00 UTC */
	assert_int_equal(db_sweep_next_at(DAY, 120, 0, JAN1_15H),
	    JAN1_15H + 16 * HOUR);
	unsetenv("TZ");
	tzset();
}

/* Added sweeps read back; names are unique; unknown names are errors. */
static void
test_add_get_list(void **state)
{
	struct dbtest	*f = *state;
	struct db_sweep	 dup = { .name = (char *)"nightly",
		 .file = (char *)"/x.yaml",
		 .at_minute = -1,
		 .next_at = 1 };
	struct db_sweep	 zero = { .name = (char *)"zero",
		 .file = (char *)"/x.yaml",
		 .at_minute = -1,
		 .next_at = 1 };
	struct db_sweep *w, *v;
	size_t		 n;

	add(f, "nightly", DAY, 120, 5000);
	add(f, "hourly", HOUR, -1, 7000);
	dup.interval_ms = HOUR;
	assert_int_equal(db_sweep_add(f->db, &dup, &f->cause), -1);
	dbtest_expect_cause(f, "sweep \"nightly\": already exists");
	w = db_sweep_get(f->db, "nightly", &f->cause);
	assert_non_null(w);
	assert_string_equal(w->file, "/srv/jobs/nightly.yaml");
	assert_int_equal(w->interval_ms, DAY);
	assert_int_equal(w->at_minute, 120);
	assert_true(w->enabled);
	assert_int_equal(w->next_at, 5000);
	assert_int_equal(w->last_job, 0);
	assert_int_equal(w->checked_job, 0);
	assert_true(w->created_at > 0);
	db_sweep_free(w);
	assert_null(db_sweep_get(f->db, "weekly", &f->cause));
	dbtest_expect_cause(f, "sweep \"weekly\": no such sweep");
	assert_int_equal(db_sweep_list(f->db, &v, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "hourly");
	assert_int_equal(v[0].at_minute, -1);
	assert_string_equal(v[1].name, "nightly");
	db_sweep_list_free(v, n);
	assert_int_equal(db_sweep_add(f->db, &zero, &f->cause), -1);
	dbtest_expect_cause(f, "add sweep");
}

/* Due means enabled with next_at <= now, most overdue first. */
static void
test_due(void **state)
{
	struct dbtest	*f = *state;
	struct db_sweep *v;
	size_t		 n;
	int64_t		 a;

	a = add(f, "a", HOUR, -1, 3000);
	add(f, "b", HOUR, -1, 1000);
	add(f, "c", HOUR, -1, 9000);
	add(f, "d", HOUR, -1, 500);
	assert_int_equal(db_sweep_set_enabled(f->db, "d", false, &f->cause), 0);
	assert_int_equal(db_sweep_due(f->db, 5000, &v, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "b");
	assert_string_equal(v[1].name, "a");
	db_sweep_list_free(v, n);
	assert_int_equal(db_sweep_set_next(f->db, a, 6000, &f->cause), 0);
	assert_int_equal(db_sweep_set_enabled(f->db, "d", true, &f->cause), 0);
	assert_int_equal(db_sweep_due(f->db, 5000, &v, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "d");
	assert_string_equal(v[1].name, "b");
	db_sweep_list_free(v, n);
	assert_int_equal(db_sweep_set_enabled(f->db, "e", true, &f->cause), -1);
	dbtest_expect_cause(f, "sweep \"e\": no such sweep");
	assert_int_equal(db_sweep_set_next(f->db, 99, 1, &f->cause), -1);
	dbtest_expect_cause(f, "no sweep 99");
}

/* Queueing inserts the linked job and moves the sweep, all or nothing. */
static void
test_queue(void **state)
{
	struct dbtest	*f = *state;
	struct db_sweep *w;
	struct db_job	*v;
	size_t		 n;
	int64_t		 id, j1, j2, other;

	id = add(f, "nightly", HOUR, -1, 1000);
	other = db_job_insert(f->db, "manual", "m.yaml", "{}", &f->cause);
	j1 = db_sweep_queue(f->db, id, "hb", "/srv/jobs/nightly.yaml",
	    "{\"n\":1}", 1000 + HOUR, &f->cause);
	assert_true(j1 > other);
	w = db_sweep_get(f->db, "nightly", &f->cause);
	assert_int_equal(w->last_job, j1);
	assert_int_equal(w->last_state, DB_QUEUED);
	assert_int_equal(w->next_at, 1000 + HOUR);
	db_sweep_free(w);
	assert_int_equal(db_job_set_state(f->db, j1, DB_RUNNING, NULL,
			     &f->cause),
	    0);
	assert_int_equal(db_job_set_state(f->db, j1, DB_DONE, NULL, &f->cause),
	    0);
	j2 = db_sweep_queue(f->db, id, "hb", "/srv/jobs/nightly.yaml",
	    "{\"n\":2}", 1000 + 2 * HOUR, &f->cause);
	assert_true(j2 > j1);
	assert_int_equal(db_sweep_jobs(f->db, id, &v, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, j2);
	assert_int_equal(v[0].state, DB_QUEUED);
	assert_string_equal(v[0].spec, "{\"n\":2}");
	assert_int_equal(v[1].id, j1);
	assert_int_equal(v[1].state, DB_DONE);
	db_job_list_free(v, n);
	/* an unknown sweep: the job insert is rolled back with it */
	assert_int_equal(db_sweep_queue(f->db, 99, "hb", "x.yaml", "{}", 1,
			     &f->cause),
	    -1);
	dbtest_expect_cause(f, "no sweep 99");
	assert_int_equal(db_job_list(f->db, &v, &n, &f->cause), 0);
	assert_int_equal(n, 3);
	db_job_list_free(v, n);
	if (dbtest_have_cli())
		assert_int_equal(dbtest_cli_int(f->path,
				     "SELECT count(*) "
				     "FROM jobs WHERE sweep IS NULL;"),
		    1);
}

/* The last job's state follows the job; checked_job is kept. */
static void
test_last_state_and_checked(void **state)
{
	struct dbtest	*f = *state;
	struct db_sweep *w;
	int64_t		 id, j;

	id = add(f, "nightly", HOUR, -1, 1000);
	j = db_sweep_queue(f->db, id, "hb", "n.yaml", "{}", 2000, &f->cause);
	assert_int_equal(db_job_set_state(f->db, j, DB_FAILED, "boom",
			     &f->cause),
	    0);
	assert_int_equal(db_sweep_set_checked(f->db, id, j, &f->cause), 0);
	w = db_sweep_get(f->db, "nightly", &f->cause);
	assert_int_equal(w->last_state, DB_FAILED);
	assert_int_equal(w->checked_job, j);
	db_sweep_free(w);
}

/* Sweep events list in order; removing a sweep keeps jobs and events. */
static void
test_events_and_remove(void **state)
{
	struct dbtest	*f = *state;
	struct db_event *ev;
	struct db_job	*job;
	size_t		 n;
	int64_t		 id, other, j;

	id = add(f, "nightly", HOUR, -1, 1000);
	other = add(f, "other", HOUR, -1, 1000);
	j = db_sweep_queue(f->db, id, "hb", "n.yaml", "{}", 2000, &f->cause);
	assert_int_equal(db_sweep_event_add(f->db, id, 0, DB_INFO, &f->cause,
			     "sweep \"%s\": skipped", "nightly"),
	    0);
	assert_int_equal(db_sweep_event_add(f->db, id, j, DB_WARN, &f->cause,
			     "worse by %d%%", 18),
	    0);
	assert_int_equal(db_sweep_event_add(f->db, other, 0, DB_ERROR,
			     &f->cause, "not queued"),
	    0);
	assert_int_equal(db_sweep_events(f->db, id, &ev, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ev[0].message, "sweep \"nightly\": skipped");
	assert_int_equal(ev[0].job, 0);
	assert_int_equal(ev[1].level, DB_WARN);
	assert_int_equal(ev[1].job, j);
	assert_string_equal(ev[1].message, "worse by 18%");
	db_event_list_free(ev, n);
	/* the job's own log shows the regression too */
	assert_int_equal(db_event_list(f->db, j, 0, &ev, &n, &f->cause), 0);
	assert_int_equal(n, 1);
	db_event_list_free(ev, n);
	assert_int_equal(db_sweep_remove(f->db, "nightly", &f->cause), 0);
	assert_int_equal(db_sweep_remove(f->db, "nightly", &f->cause), -1);
	dbtest_expect_cause(f, "sweep \"nightly\": no such sweep");
	assert_null(db_sweep_get(f->db, "nightly", &f->cause));
	dbtest_expect_cause(f, "no such sweep");
	job = db_job_get(f->db, j, &f->cause);
	assert_non_null(job);
	db_job_free(job);
	assert_int_equal(db_event_list(f->db, 0, 0, &ev, &n, &f->cause), 0);
	assert_int_equal(n, 3);
	db_event_list_free(ev, n);
	if (dbtest_have_cli())
		assert_int_equal(dbtest_cli_int(f->path,
				     "SELECT count(*) "
				     "FROM events WHERE sweep IS NULL;"),
		    2);
}

/* A version-2 database gains the sweeps and keeps its jobs unlinked. */
static void
test_migrate_from_2(void **state)
{
	struct dbtest *f = *state;
	struct db_job *v;
	sqlite3	      *h;
	size_t	       n;
	char	      *path;

	path = dbtest_path(f->dir, "old.db");
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(db_migrate(h, path, db_migrations, 2, 0, &f->cause),
	    0);
	assert_int_equal(sqlite3_exec(h,
			     "INSERT INTO jobs (name, spec, "
			     "submitted_at) VALUES ('old', '{}', 1)",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(h);
	db_close(f->db);
	f->db = dbtest_open(f->dir, "old.db");
	assert_int_equal(db_job_list(f->db, &v, &n, &f->cause), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].name, "old");
	db_job_list_free(v, n);
	add(f, "nightly", HOUR, -1, 1000);
	if (dbtest_have_cli()) {
		assert_int_equal(dbtest_cli_int(path, "PRAGMA user_version;"),
		    db_schema_version());
		assert_int_equal(dbtest_cli_int(path,
				     "SELECT count(*) FROM "
				     "jobs WHERE sweep IS NULL;"),
		    1);
	}
	free(path);
}

/*
 * Makes the database name at schema version, with sweep "old" (every
 * hour) and then sql, and opens it as f->db (migrated to the newest);
 * returns its path.
 */
static char *
open_old(struct dbtest *f, const char *name, int version, const char *sql)
{
	char	*path = dbtest_path(f->dir, name), *all;
	sqlite3 *h;

	all = xasprintf("PRAGMA foreign_keys = ON; INSERT INTO sweeps (name, "
			"file, interval_ms, next_at, created_at) VALUES "
			"('old', '/o.yaml', 3600000, 5, 1); %s",
	    sql);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(db_migrate(h, path, db_migrations, version, 0,
			     &f->cause),
	    0);
	assert_int_equal(sqlite3_exec(h, all, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	free(all);
	db_close(f->db);
	f->db = dbtest_open(f->dir, name);
	return path;
}

/*
 * A version 8 database keeps its sweep, the sweep of its job and of its
 * event through the rebuild of interval_ms; a cron sweep is stored then,
 * and its next slot comes from the expression.
 */
static void
test_migrate_cron(void **state)
{
	struct dbtest	*f = *state;
	struct db_sweep	 cron = { .name = (char *)"weekdays",
		 .file = (char *)"/x.yaml",
		 .at_minute = -1,
		 .cron = (char *)"0 3 * * 1-5",
		 .next_at = 1 };
	struct db_sweep *w;
	char		*path;

	path = open_old(f, "v8.db", 8,
	    "INSERT INTO jobs (name, spec, submitted_at, sweep) "
	    "VALUES ('old', '{}', 1, 1);"
	    "INSERT INTO events (time, level, message, sweep) "
	    "VALUES (1, 'info', 'x', 1);");
	assert_non_null(w = db_sweep_get(f->db, "old", &f->cause));
	assert_int_equal(w->interval_ms, HOUR);
	assert_null(w->cron);
	assert_int_equal(db_sweep_next(w, 5 + HOUR), 5 + 2 * HOUR);
	db_sweep_free(w);
	assert_int_equal(db_sweep_add(f->db, &cron, &f->cause) > 0, 1);
	assert_non_null(w = db_sweep_get(f->db, "weekdays", &f->cause));
	assert_string_equal(w->cron, "0 3 * * 1-5");
	assert_int_equal(w->interval_ms, 0);
	setenv("TZ", "UTC", 1);
	tzset();
	/* Fri 2026-12-04 03:00 UTC: Monday 03:00 next, whatever was missed. */
	assert_int_equal(db_sweep_next(w, 1796353200000), 1796612400000);
	db_sweep_free(w);
	if (dbtest_have_cli()) {
		assert_int_equal(
		    dbtest_cli_int(path,
			"SELECT count(*) FROM jobs WHERE sweep = 1;"),
		    1);
		assert_int_equal(dbtest_cli_int(path,
				     "SELECT count(*) FROM events "
				     "WHERE sweep = 1;"),
		    1);
	}
	free(path);
}

/* A change of the series nap took on demo, from job to job + 1. */
static int64_t
add_change(struct dbtest *f, int64_t sweep, int64_t before, int64_t job)
{
	struct db_sweep_change c = { .sweep = sweep,
		.machine = (char *)"demo",
		.benchmark = (char *)"nap",
		.params = (char *)"",
		.metric = (char *)"took",
		.job = job,
		.before_job = before,
		.found_job = job,
		.before = 200,
		.after = 400,
		.effect_pct = 100,
		.p = 0.002,
		.verdict = (char *)"regression" };
	int64_t		       id = db_sweep_change_add(f->db, &c, &f->cause);

	if (id <= 0)
		fail_msg("%s", f->cause);
	return id;
}

/* The only change of the sweep, checked to be change id. */
static struct db_sweep_change *
only_change(struct dbtest *f, int64_t sweep, int64_t id, size_t *n)
{
	struct db_sweep_change *v = NULL;

	assert_int_equal(db_sweep_changes(f->db, sweep, &v, n, &f->cause), 0);
	assert_int_equal(*n, 1);
	assert_int_equal(v[0].id, id);
	return v;
}

/*
 * A change goes suspected -> confirming (with its A/B job) -> confirmed,
 * rejected or failed, each step once and in that order; the sweep keeps
 * its confirmation rounds and mail settings.
 */
static void
test_change_states(void **state)
{
	struct dbtest	       *f = *state;
	struct db_sweep		w = { .name = (char *)"mailed",
			.file = (char *)"/x.yaml",
			.interval_ms = HOUR,
			.at_minute = -1,
			.confirm_rounds = 5,
			.mbox = (char *)"/var/mail/lab",
			.mail_command = (char *)"[\"sendmail\",\"-oi\"]" };
	struct db_sweep_change *v;
	struct db_sweep	       *got;
	int64_t			id, ch, j[3];
	size_t			n, i;

	assert_true((id = db_sweep_add(f->db, &w, &f->cause)) > 0);
	assert_non_null(got = db_sweep_get(f->db, "mailed", &f->cause));
	assert_int_equal(got->confirm_rounds, 5);
	assert_string_equal(got->mbox, "/var/mail/lab");
	assert_string_equal(got->mail_command, "[\"sendmail\",\"-oi\"]");
	db_sweep_free(got);
	for (i = 0; i < 3; i++)
		assert_true((j[i] = db_job_insert(f->db, "nap", NULL, "{}",
				 &f->cause)) > 0);
	ch = add_change(f, id, j[0], j[1]);
	assert_int_equal(db_sweep_change_decide(f->db, ch, "confirmed", 0.01,
			     50, &f->cause),
	    -1);
	dbtest_expect_cause(f, "not confirming");
	assert_int_equal(db_sweep_change_confirming(f->db, ch, j[2], &f->cause),
	    0);
	v = only_change(f, id, ch, &n);
	assert_string_equal(v[0].state, "confirming");
	assert_int_equal(v[0].confirm_job, j[2]);
	db_sweep_change_list_free(v, n);
	assert_int_equal(db_sweep_change_confirming(f->db, ch, j[2], &f->cause),
	    -1);
	dbtest_expect_cause(f, "not suspected");
	assert_int_equal(db_sweep_change_decide(f->db, ch, "suspected", 0.01,
			     50, &f->cause),
	    -1);
	dbtest_expect_cause(f, "not confirming");
	assert_int_equal(db_sweep_change_decide(f->db, ch, "confirmed", 0.0001,
			     98.5, &f->cause),
	    0);
	v = only_change(f, id, ch, &n);
	assert_string_equal(v[0].state, "confirmed");
	assert_true(
	    v[0].confirm_p == 0.0001 && v[0].confirm_effect_pct == 98.5);
	db_sweep_change_list_free(v, n);
	assert_int_equal(db_sweep_change_decide(f->db, ch, "rejected", 0.5, 1,
			     &f->cause),
	    -1);
	dbtest_expect_cause(f, "not confirming");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_next_at),
		cmocka_unit_test_setup_teardown(test_add_get_list, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_due, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_queue, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_last_state_and_checked,
		    dbtest_setup, dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_events_and_remove,
		    dbtest_setup, dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_from_2,
		    dbtest_setup, dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_migrate_cron, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_change_states,
		    dbtest_setup, dbtest_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
