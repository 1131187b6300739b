/* Bisections through the API: add, get, list, steps, end and events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "db/db.h"
#include "tests/unit/db/dbtest.h"

#define COMMITS                                          \
	"[\"1111111111111111111111111111111111111111\"," \
	"\"2222222222222222222222222222222222222222\","  \
	"\"3333333333333333333333333333333333333333\"]"
#define SUBJECTS "[\"good\",\"middle\",\"bad\"]"

/* A bisection of three commits with the given name and confidence. */
static struct db_bisect
bisection(const char *name, double confidence)
{
	struct db_bisect b = { .name = (char *)name,
		.spec = (char *)"{\"name\":\"hb\"}",
		.machine = (char *)"vm32",
		.benchmark = (char *)"hackbench",
		.params = (char *)"groups=4",
		.metric = (char *)"time",
		.tree = (char *)"linux",
		.commits = (char *)COMMITS,
		.subjects = (char *)SUBJECTS,
		.budget = 60,
		.confidence = confidence };

	return b;
}

/* Adds a bisection or fails the test; returns its id. */
static int64_t
add(struct dbtest *f, const char *name)
{
	struct db_bisect b = bisection(name, 0.95);
	int64_t		 id;

	if ((id = db_bisect_add(f->db, &b, &f->cause)) <= 0)
		fail_msg("%s", f->cause);
	return id;
}

/* Queues a job or fails the test; returns its id. */
static int64_t
job(struct dbtest *f, const char *name)
{
	int64_t id;

	if ((id = db_job_insert(f->db, name, NULL, "{}", &f->cause)) <= 0)
		fail_msg("%s", f->cause);
	return id;
}

/* An added bisection reads back field by field, running. */
static void
test_add_get(void **state)
{
	struct dbtest	 *f = *state;
	struct db_bisect *b;
	int64_t		  before, id;

	before = db_now_ms();
	id = add(f, "hb-regression");
	b = db_bisect_get(f->db, id, &f->cause);
	if (b == NULL)
		fail_msg("%s", f->cause);
	assert_int_equal(b->id, id);
	assert_string_equal(b->name, "hb-regression");
	assert_string_equal(b->spec, "{\"name\":\"hb\"}");
	assert_string_equal(b->machine, "vm32");
	assert_string_equal(b->benchmark, "hackbench");
	assert_string_equal(b->params, "groups=4");
	assert_string_equal(b->metric, "time");
	assert_string_equal(b->tree, "linux");
	assert_string_equal(b->commits, COMMITS);
	assert_string_equal(b->subjects, SUBJECTS);
	assert_int_equal(b->budget, 60);
	assert_true(b->confidence == 0.95);
	assert_string_equal(b->state, "running");
	assert_null(b->result);
	assert_null(b->why);
	assert_int_equal(b->sweep, 0);
	assert_int_equal(b->change, 0);
	assert_true(b->created >= before && b->created <= db_now_ms());
	assert_int_equal(b->ended, 0);
	db_bisect_free(b);
	db_bisect_free(NULL);
}

/* The list has every bisection by id, or only the running ones. */
static void
test_list(void **state)
{
	struct dbtest	 *f = *state;
	struct db_bisect *v;
	size_t		  n;
	int64_t		  a, b, c;

	assert_int_equal(db_bisect_list(f->db, false, &v, &n, &f->cause), 0);
	assert_int_equal(n, 0);
	db_bisect_list_free(v, n);
	a = add(f, "a");
	b = add(f, "b");
	c = add(f, "c");
	assert_int_equal(db_bisect_end(f->db, b, "cancelled", NULL, NULL,
			     &f->cause),
	    1);
	assert_int_equal(db_bisect_list(f->db, false, &v, &n, &f->cause), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].id, a);
	assert_int_equal(v[1].id, b);
	assert_string_equal(v[1].state, "cancelled");
	assert_int_equal(v[2].id, c);
	db_bisect_list_free(v, n);
	assert_int_equal(db_bisect_list(f->db, true, &v, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, a);
	assert_string_equal(v[0].name, "a");
	assert_int_equal(v[1].id, c);
	assert_string_equal(v[1].state, "running");
	db_bisect_list_free(v, n);
}

/* Steps read back by job id; a step needs its bisection and its job. */
static void
test_steps(void **state)
{
	struct dbtest	      *f = *state;
	struct db_bisect_step *v;
	size_t		       n;
	int64_t		       id, other, j1, j2, j3;

	id = add(f, "a");
	other = add(f, "b");
	j1 = job(f, "step 1");
	j2 = job(f, "step 2");
	j3 = job(f, "step 3");
	assert_int_equal(db_bisect_steps(f->db, id, &v, &n, &f->cause), 0);
	assert_int_equal(n, 0);
	free(v);
	/* added out of order: read back by job */
	assert_int_equal(db_bisect_step_add(f->db, id, j2, 0, &f->cause), 0);
	assert_int_equal(db_bisect_step_add(f->db, id, j1, 2, &f->cause), 0);
	assert_int_equal(db_bisect_step_add(f->db, id, j3, 1, &f->cause), 0);
	assert_int_equal(db_bisect_step_add(f->db, other, j1, 0, &f->cause), 0);
	assert_int_equal(db_bisect_steps(f->db, id, &v, &n, &f->cause), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0].job, j1);
	assert_int_equal(v[0].commit, 2);
	assert_int_equal(v[1].job, j2);
	assert_int_equal(v[1].commit, 0);
	assert_int_equal(v[2].job, j3);
	assert_int_equal(v[2].commit, 1);
	free(v);
	assert_int_equal(db_bisect_step_add(f->db, id, j1, 1, &f->cause), -1);
	dbtest_expect_cause(f, "already a step");
	assert_int_equal(db_bisect_step_add(f->db, id, 999, 1, &f->cause), -1);
	dbtest_expect_cause(f, "no such bisection or job");
	assert_int_equal(db_bisect_step_add(f->db, 999, j1, 1, &f->cause), -1);
	dbtest_expect_cause(f, "no such bisection or job");
	assert_int_equal(db_bisect_step_add(f->db, id, j3, -1, &f->cause), -1);
	dbtest_expect_cause(f, "CHECK constraint failed");
}

/* A bisection ends once, with its state, result, why and time. */
static void
test_end(void **state)
{
	struct dbtest	 *f = *state;
	struct db_bisect *b;
	int64_t		  id, before;

	id = add(f, "a");
	before = db_now_ms();
	assert_int_equal(db_bisect_end(f->db, id, "found", "{\"first_bad\":2}",
			     "commit 3 is 12% slower", &f->cause),
	    1);
	assert_int_equal(db_bisect_end(f->db, id, "failed", NULL, "too late",
			     &f->cause),
	    0);
	assert_null(f->cause);
	b = db_bisect_get(f->db, id, &f->cause);
	assert_non_null(b);
	assert_string_equal(b->state, "found");
	assert_string_equal(b->result, "{\"first_bad\":2}");
	assert_string_equal(b->why, "commit 3 is 12% slower");
	assert_true(b->ended >= before && b->ended <= db_now_ms());
	db_bisect_free(b);
	/* the state two words long, no result or why */
	id = add(f, "b");
	assert_int_equal(db_bisect_end(f->db, id, "no change", NULL, NULL,
			     &f->cause),
	    1);
	b = db_bisect_get(f->db, id, &f->cause);
	assert_non_null(b);
	assert_string_equal(b->state, "no change");
	assert_null(b->result);
	assert_null(b->why);
	assert_true(b->ended > 0);
	db_bisect_free(b);
	/* a state the schema does not know, and running again */
	id = add(f, "c");
	assert_int_equal(db_bisect_end(f->db, id, "lost", NULL, NULL,
			     &f->cause),
	    -1);
	dbtest_expect_cause(f, "end bisection: CHECK constraint failed");
	assert_int_equal(db_bisect_end(f->db, id, "running", NULL, NULL,
			     &f->cause),
	    -1);
	dbtest_expect_cause(f, "end bisection: CHECK constraint failed");
	assert_int_equal(db_bisect_end(f->db, 999, "found", NULL, NULL,
			     &f->cause),
	    -1);
	dbtest_expect_cause(f, "no bisection 999");
}

/* Events of a bisection are its own, oldest first, with their job. */
static void
test_events(void **state)
{
	struct dbtest	*f = *state;
	struct db_event *v;
	size_t		 n;
	int64_t		 id, other, j;

	id = add(f, "a");
	other = add(f, "b");
	j = job(f, "step 1");
	assert_int_equal(db_bisect_event_add(f->db, id, 0, DB_INFO, &f->cause,
			     "bisecting %d commits", 3),
	    0);
	assert_int_equal(db_bisect_event_add(f->db, other, 0, DB_INFO,
			     &f->cause, "other"),
	    0);
	assert_int_equal(db_bisect_event_add(f->db, id, j, DB_WARN, &f->cause,
			     "step %s: %.1f%% slower", "2222222", 12.5),
	    0);
	assert_int_equal(db_event_add(f->db, j, 0, NULL, DB_INFO, &f->cause,
			     "job event"),
	    0);
	assert_int_equal(db_bisect_events(f->db, id, &v, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].job, 0);
	assert_int_equal(v[0].level, DB_INFO);
	assert_string_equal(v[0].message, "bisecting 3 commits");
	assert_true(v[0].time > 0);
	assert_int_equal(v[1].job, j);
	assert_int_equal(v[1].level, DB_WARN);
	assert_string_equal(v[1].message, "step 2222222: 12.5% slower");
	assert_true(v[1].id > v[0].id);
	db_event_list_free(v, n);
	/* the job's own events see the bisection's event about it */
	assert_int_equal(db_event_list(f->db, j, 0, &v, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	db_event_list_free(v, n);
	assert_int_equal(db_bisect_event_add(f->db, 999, 0, DB_INFO, &f->cause,
			     "nobody"),
	    -1);
	dbtest_expect_cause(f, "add event");
}

/* Unknown ids and values the schema refuses fail with a cause. */
static void
test_refused(void **state)
{
	struct dbtest	*f = *state;
	struct db_bisect b = bisection("a", 1.5), *v;
	size_t		 n;

	assert_null(db_bisect_get(f->db, 42, &f->cause));
	dbtest_expect_cause(f, "no bisection 42");
	assert_int_equal(db_bisect_add(f->db, &b, &f->cause), -1);
	dbtest_expect_cause(f, "add bisection: CHECK constraint failed");
	b.confidence = 0.5;
	assert_int_equal(db_bisect_add(f->db, &b, &f->cause), -1);
	dbtest_expect_cause(f, "add bisection: CHECK constraint failed");
	b = bisection("a", 0.9);
	b.budget = 0;
	assert_int_equal(db_bisect_add(f->db, &b, &f->cause), -1);
	dbtest_expect_cause(f, "add bisection: CHECK constraint failed");
	b = bisection("a", 0.9);
	b.subjects = (char *)"[\"good\",\"bad\"]";
	assert_int_equal(db_bisect_add(f->db, &b, &f->cause), -1);
	dbtest_expect_cause(f, "add bisection: CHECK constraint failed");
	b = bisection("a", 0.9);
	b.sweep = 7;
	assert_int_equal(db_bisect_add(f->db, &b, &f->cause), -1);
	dbtest_expect_cause(f, "add bisection: FOREIGN KEY constraint failed");
	assert_int_equal(db_bisect_list(f->db, false, &v, &n, &f->cause), 0);
	assert_int_equal(n, 0);
	db_bisect_list_free(v, n);
}

/* A bisection started for a sweep's change keeps both, then loses them. */
static void
test_sweep_link(void **state)
{
	struct dbtest	      *f = *state;
	struct db_sweep	       w = { .name = (char *)"nightly",
		       .file = (char *)"/srv/jobs/nightly.yaml",
		       .interval_ms = 3600000,
		       .at_minute = -1,
		       .next_at = 1 };
	struct db_sweep_change c = { 0 };
	struct db_bisect       b = bisection("a", 0.9), *got;
	struct db_event	      *v;
	size_t		       n;
	int64_t		       id;

	b.sweep = db_sweep_add(f->db, &w, &f->cause);
	assert_true(b.sweep > 0);
	c.sweep = b.sweep;
	c.machine = (char *)"vm32";
	c.benchmark = (char *)"hackbench";
	c.params = (char *)"groups=4";
	c.metric = (char *)"time";
	c.job = job(f, "nightly 1");
	c.p = 0.01;
	c.verdict = (char *)"regression";
	b.change = db_sweep_change_add(f->db, &c, &f->cause);
	assert_true(b.change > 0);
	id = db_bisect_add(f->db, &b, &f->cause);
	assert_true(id > 0);
	got = db_bisect_get(f->db, id, &f->cause);
	assert_non_null(got);
	assert_int_equal(got->sweep, b.sweep);
	assert_int_equal(got->change, b.change);
	db_bisect_free(got);
	assert_int_equal(db_bisect_event_add(f->db, id, 0, DB_INFO, &f->cause,
			     "started"),
	    0);
	assert_int_equal(db_sweep_remove(f->db, "nightly", &f->cause), 0);
	got = db_bisect_get(f->db, id, &f->cause);
	assert_non_null(got);
	assert_int_equal(got->sweep, 0);
	db_bisect_free(got);
	assert_int_equal(db_bisect_events(f->db, id, &v, &n, &f->cause), 0);
	assert_int_equal(n, 1);
	db_event_list_free(v, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_get, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_list, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_steps, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_end, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_events, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_refused, dbtest_setup,
		    dbtest_teardown),
		cmocka_unit_test_setup_teardown(test_sweep_link, dbtest_setup,
		    dbtest_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
