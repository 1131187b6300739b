/*
 * A sweep's regression check and hilab compare read the same samples: on
 * a job with a run that failed (not retried) or is still running after it
 * stored samples, the sweep's event shows the numbers of compare's table,
 * and both are those of the done runs alone.  The change point check of
 * the sweep's history (sweeper_detect) finds a step once each side has 3
 * jobs, stores it once, and judges it by the metric's direction.  The
 * database is built through the db API; the checks are hilabd's own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/sweeper.h"
#include "report/compare.h"
#include "report/select.h"

/* STATS.md V1 as the base job; the new job about 19% slower. */
static const double v1_base[] = { 2.10, 2.05, 2.20, 2.15, 2.00 };
static const double v1_slow[] = { 2.50, 2.45, 2.60, 2.55, 2.40 };
/* What a run stored before it failed or while it still runs. */
static const double v_partial[] = { 3.50, 3.60 };

/* The job declares its metric; the metrics table is a cache, poisoned. */
static const char job_spec[] =
    "{\"name\":\"nightly\",\"kernels\":[{\"name\":\"base\"}],"
    "\"benchmarks\":[{\"name\":\"hackbench\",\"metrics\":[{\"name\":"
    "\"time\",\"unit\":\"s\",\"direction\":\"lower\",\"statistic\":"
    "\"amean\"}]}]}";

/* A job of the same benchmark that does not declare "time". */
static const char job_undeclared[] =
    "{\"name\":\"nightly\",\"kernels\":[{\"name\":\"base\"}],"
    "\"benchmarks\":[{\"name\":\"hackbench\",\"metrics\":[{\"name\":"
    "\"other\",\"unit\":\"s\",\"direction\":\"lower\",\"statistic\":"
    "\"amean\"}]}]}";

/* The same benchmark declaring "time" the other way round. */
static const char job_higher[] =
    "{\"name\":\"nightly\",\"kernels\":[{\"name\":\"base\"}],"
    "\"benchmarks\":[{\"name\":\"hackbench\",\"metrics\":[{\"name\":"
    "\"time\",\"unit\":\"s\",\"direction\":\"higher\",\"statistic\":"
    "\"amean\"}]}]}";

struct fixture {
	struct db *db;
	int64_t	   kernel;
	int64_t	   sweep;
	int64_t	   base;    /* done runs only */
	int64_t	   failed;  /* a done run and a failed one, not retried */
	int64_t	   running; /* a done run and one still running */
	size_t	   n;	    /* of the last list read */
};

/* Adds a run of hackbench groups=1 on lab1 in round, started. */
static int64_t
run_add(struct fixture *f, int64_t job, int round)
{
	struct db_run r = { .job = job,
		.machine = "lab1",
		.kernel = f->kernel,
		.benchmark = "hackbench",
		.params = "groups=1",
		.round = round,
		.boot = round,
		.iterations = 5 };
	char	     *cause = NULL, *agent_id;
	int64_t	      id;

	if ((id = db_run_insert(f->db, &r, &cause)) == -1)
		fail_msg("%s", cause);
	agent_id = xasprintf("j%lld-r%lld", (long long)job, (long long)id);
	if (db_run_start(f->db, id, agent_id, NULL, &cause) == -1)
		fail_msg("%s", cause);
	free(agent_id);
	return id;
}

/* Stores values as the time samples of a run, then moves it to state. */
static void
run_fill(struct fixture *f, int64_t run, const double *x, size_t n,
    enum db_state state)
{
	struct db_sample s = { .run = run, .metric = "time" };
	char		*cause = NULL;
	size_t		 i;

	for (i = 0; i < n; i++) {
		s.iteration = (int64_t)i;
		s.value = x[i];
		if (db_samples_insert(f->db, &s, 1, &cause) != 1)
			fail_msg("%s", cause);
	}
	if (state != DB_RUNNING &&
	    db_run_set_state(f->db, run, state, "exit status 1", &cause) == -1)
		fail_msg("%s", cause);
}

/* A job of spec with a done run of x and maybe a partial run. */
static int64_t
job_add_spec(struct fixture *f, const char *spec, const double *x,
    enum db_state partial)
{
	char   *cause = NULL;
	int64_t id;

	if ((id = db_job_insert(f->db, "nightly", "/srv/jobs/nightly.yaml",
		 spec, &cause)) == -1)
		fail_msg("%s", cause);
	run_fill(f, run_add(f, id, 0), x, 5, DB_DONE);
	if (partial != DB_DONE)
		run_fill(f, run_add(f, id, 1), v_partial, 2, partial);
	return id;
}

/* A job of the sweep with a done run of x and maybe a partial run. */
static int64_t
job_add(struct fixture *f, const double *x, enum db_state partial)
{
	return job_add_spec(f, job_spec, x, partial);
}

static int
setup(void **state)
{
	struct db_sweep sweep = { .name = (char *)"nightly",
		.file = (char *)"/srv/jobs/nightly.yaml",
		.interval_ms = 86400000,
		.at_minute = -1 };
	struct fixture *f = xcalloc(1, sizeof *f);
	char	       *cause = NULL;

	if ((f->db = db_open(":memory:", &cause)) == NULL ||
	    db_machine_upsert(f->db, "lab1", "ssh", "x86_64", &cause) == -1 ||
	    db_metric_upsert(f->db, "time", "ms", "higher", "median", &cause) ==
		-1 ||
	    (f->kernel = db_kernel_upsert(f->db, "base", NULL,
		 "{\"kind\":\"image\"}", &cause)) == -1 ||
	    (f->sweep = db_sweep_add(f->db, &sweep, &cause)) == -1) {
		print_error("%s\n", cause);
		return -1;
	}
	f->base = job_add(f, v1_base, DB_DONE);
	f->failed = job_add(f, v1_slow, DB_FAILED);
	f->running = job_add(f, v1_slow, DB_RUNNING);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	db_close(f->db);
	free(f);
	return 0;
}

/*
 * The last event of job at level: for DB_INFO, the note of a worse metric
 * if there is one; fails the test if there is none.
 */
static char *
sweep_warning(struct fixture *f, int64_t job, enum db_level level)
{
	struct db_event *ev;
	char		*cause = NULL, *msg = NULL;
	size_t		 n, i;

	if (db_sweep_events(f->db, f->sweep, &ev, &n, &cause) == -1)
		fail_msg("%s", cause);
	for (i = 0; i < n; i++) {
		if (ev[i].job == job && ev[i].level == level &&
		    (msg == NULL || strstr(msg, ", worse, p=") == NULL)) {
			free(msg);
			msg = xstrdup(ev[i].message);
		}
	}
	db_event_list_free(ev, n);
	if (msg == NULL)
		fail_msg("job %lld: no regression event", (long long)job);
	return msg;
}

/*
 * Compares job with the base job both ways: the sweep's event must show
 * compare's values, change and p; both must be the done runs' means.
 */
static void
check_same(struct fixture *f, int64_t job)
{
	long long		    jobs[2] = { f->base, job };
	struct select_query	    q = { .jobs = jobs,
			.njobs = 2,
			.by = SELECT_BY_JOB,
			.rows = SELECT_ROWS_PARAMS };
	struct select_result	    r;
	const struct compare_table *t;
	const struct compare_cell  *b, *c;
	char			   *cause = NULL, *msg, *want;
	int			    d;

	assert_int_equal(sweeper_compare(f->db, f->sweep, "nightly", f->base,
			     job, &cause),
	    1);
	msg = sweep_warning(f, job, DB_INFO);
	if (select_tables(f->db, &q, &r, &cause) == -1)
		fail_msg("%s", cause);
	assert_int_equal(r.n, 1);
	t = r.v[0].table;
	b = compare_table_cell(t, 0, 0);
	c = compare_table_cell(t, 0, 1);
	d = compare_table_decimals(t);
	want = xasprintf(": %.*f -> %.*f s (%+.1f%%, worse, p=%.2g)", d,
	    b->value, d, c->value, c->delta, c->test.p);
	print_message("sweep:   %s\ncompare: %s\n", msg, want);
	if (strstr(msg, want) == NULL)
		fail_msg("\"%s\" lacks compare's \"%s\"", msg, want);
	assert_int_equal(b->n, 5);
	assert_int_equal(c->n, 5);
	assert_float_equal(b->value, 2.10, 1e-9);
	assert_float_equal(c->value, 2.50, 1e-9);
	free(want);
	free(msg);
	select_result_clear(&r);
}

/* A failed run that was not retried counts in neither. */
static void
test_failed_run(void **state)
{
	struct fixture *f = *state;

	check_same(f, f->failed);
}

/* Nor does a run still running. */
static void
test_running_run(void **state)
{
	struct fixture *f = *state;

	check_same(f, f->running);
}

/*
 * A metric its jobs do not declare is never flagged, however much worse
 * it looks as lower-is-better: its direction is unknown, and said so.
 */
static void
test_undeclared(void **state)
{
	struct fixture	*f = *state;
	struct db_event *ev;
	char		*cause = NULL;
	int64_t		 base, job;
	size_t		 n;

	base = job_add_spec(f, job_undeclared, v1_base, DB_DONE);
	job = job_add_spec(f, job_undeclared, v1_slow, DB_DONE);
	assert_int_equal(sweeper_compare(f->db, f->sweep, "nightly", base, job,
			     &cause),
	    0);
	if (db_sweep_events(f->db, f->sweep, &ev, &n, &cause) == -1)
		fail_msg("%s", cause);
	assert_true(n > 0);
	assert_int_equal(ev[n - 1].level, DB_INFO);
	assert_string_equal(ev[n - 1].message,
	    "sweep \"nightly\": job 5 against job 4: 0 of 0 metrics worse; "
	    "1 not judged (no declared direction)");
	db_event_list_free(ev, n);
}

/* A done job queued by the sweep, with a done run of x (5 values). */
static int64_t
sweep_job_add(struct fixture *f, const char *spec, const double *x)
{
	char   *cause = NULL;
	int64_t id;

	if ((id = db_sweep_queue(f->db, f->sweep, "nightly",
		 "/srv/jobs/nightly.yaml", spec, 0, &cause)) == -1 ||
	    db_job_set_state(f->db, id, DB_RUNNING, NULL, &cause) == -1)
		fail_msg("%s", cause);
	run_fill(f, run_add(f, id, 0), x, 5, DB_DONE);
	if (db_job_set_state(f->db, id, DB_DONE, NULL, &cause) == -1)
		fail_msg("%s", cause);
	return id;
}

/* The sweep, as sweeper_detect is given it. */
static struct db_sweep *
sweep_get(struct fixture *f)
{
	struct db_sweep *w;
	char		*cause = NULL;

	if ((w = db_sweep_get(f->db, "nightly", &cause)) == NULL)
		fail_msg("%s", cause);
	return w;
}

/* The sweep's changes, or fails the test. */
static struct db_sweep_change *
sweep_changes(struct fixture *f, size_t *n)
{
	struct db_sweep_change *v;
	char		       *cause = NULL;

	if (db_sweep_changes(f->db, f->sweep, &v, n, &cause) == -1)
		fail_msg("%s", cause);
	return v;
}

/*
 * The A/B job queued for the change: kernels good and suspect, the one
 * shared benchmark definition pinned to groups=1, 3 alternating rounds on
 * lab1.
 */
static void
check_confirm_spec(struct fixture *f, int64_t cj)
{
	struct db_job *j;
	char	      *cause = NULL;
	const char    *want[] = { "\"kernels\":[{\"name\":\"good\"},{\"name\":"
				     "\"suspect\"}]",
		   "\"machines\":[\"lab1\"]", "\"rounds\":3",
		   "\"order\":\"alternate\"",
		   "\"benchmarks\":[{\"name\":\"hackbench\",\"metrics\""
		      ":[{\"name\":\"time\",\"unit\":\"s\",\"direction\":"
		      "\"lower\",\"statistic\":\"amean\"}],\"params\":{"
		      "\"groups\":[\"1\"]}}]" };
	size_t	       i;

	if ((j = db_job_get(f->db, cj, &cause)) == NULL)
		fail_msg("%s", cause);
	assert_string_equal(j->state == DB_QUEUED ? "queued" : "?", "queued");
	for (i = 0; i < sizeof want / sizeof *want; i++)
		if (strstr(j->spec, want[i]) == NULL)
			fail_msg("%s lacks %s", j->spec, want[i]);
	db_job_free(j);
}

/* The sweep's one change after 3 jobs of V1's base and 3 slower. */
static struct db_sweep_change *
confirming(struct fixture *f, struct db_sweep *w, size_t *n)
{
	struct db_sweep_change *c;
	char		       *cause = NULL;
	int64_t			job = 0;
	size_t			i;

	for (i = 0; i < 6; i++)
		job = sweep_job_add(f, job_spec, i < 3 ? v1_base : v1_slow);
	assert_int_equal(sweeper_detect(f->db, w, job, &cause), 1);
	c = sweep_changes(f, n);
	assert_int_equal(*n, 1);
	assert_string_equal(c[0].state, "confirming");
	return c;
}

/*
 * 3 jobs of V1's base, then 3 about 19% slower: nothing until the sixth,
 * then one suspected regression from the fourth job on, stored once.
 */
static void
test_detect_step(void **state)
{
	struct fixture	       *f = *state;
	struct db_sweep	       *w = sweep_get(f);
	struct db_sweep_change *c;
	int64_t			job[6];
	char		       *cause = NULL, *msg, *want;
	size_t			n, i;

	for (i = 0; i < 6; i++) {
		job[i] = sweep_job_add(f, job_spec, i < 3 ? v1_base : v1_slow);
		if (i < 5)
			assert_int_equal(sweeper_detect(f->db, w, job[i],
					     &cause),
			    0);
	}
	assert_int_equal(sweeper_detect(f->db, w, job[5], &cause), 1);
	msg = sweep_warning(f, job[5], DB_WARN);
	want =
	    xasprintf("sweep \"nightly\": suspected regression: hackbench "
		      "time groups=1 on lab1: 2.10 -> 2.50 s (+19.0%%, worse, "
		      "p=");
	if (strncmp(msg, want, strlen(want)) != 0)
		fail_msg("\"%s\" is not \"%s...\"", msg, want);
	free(want);
	want = xasprintf(") from job %lld on (after job %lld)",
	    (long long)job[3], (long long)job[2]);
	assert_non_null(strstr(msg, want));
	free(want);
	free(msg);
	assert_int_equal(sweeper_detect(f->db, w, job[5], &cause), 0);
	c = sweep_changes(f, &n);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].job, job[3]);
	assert_int_equal(c[0].before_job, job[2]);
	assert_int_equal(c[0].found_job, job[5]);
	assert_string_equal(c[0].verdict, "regression");
	assert_string_equal(c[0].state, "confirming");
	assert_true(c[0].confirm_job > job[5]);
	assert_float_equal(c[0].before, 2.10, 1e-9);
	assert_float_equal(c[0].after, 2.50, 1e-9);
	check_confirm_spec(f, c[0].confirm_job);
	db_sweep_change_list_free(c, n);
	db_sweep_free(w);
}

/* Runs the A/B job cj to done: x[0] under kernel good, x[1] suspect. */
static void
confirm_run(struct fixture *f, int64_t cj, const double *const x[2])
{
	char   *cause = NULL;
	int64_t kept = f->kernel;
	int	side;

	assert_int_equal(db_job_set_state(f->db, cj, DB_RUNNING, NULL, &cause),
	    0);
	for (side = 0; side < 2; side++) {
		f->kernel = db_kernel_upsert(f->db, side ? "suspect" : "good",
		    NULL, "{}", &cause);
		run_fill(f, run_add(f, cj, side), x[side], 5, DB_DONE);
	}
	f->kernel = kept;
	assert_int_equal(db_job_set_state(f->db, cj, DB_DONE, NULL, &cause), 0);
}

/* The sweep's one change after sweeper_confirm_check. */
static struct db_sweep_change *
decided(struct fixture *f, struct db_sweep *w, size_t *n)
{
	struct db_sweep_change *c;

	sweeper_confirm_check(f->db, w);
	c = sweep_changes(f, n);
	assert_int_equal(*n, 1);
	return c;
}

/*
 * The change stays confirming while its A/B job is queued; V1's base
 * against the slower samples confirms it, with the test's p and effect,
 * once.
 */
static void
test_confirm_confirmed(void **state)
{
	struct fixture	       *f = *state;
	struct db_sweep	       *w = sweep_get(f);
	const double *const	x[2] = { v1_base, v1_slow };
	struct db_sweep_change *c = confirming(f, w, &f->n);
	int64_t			cj = c[0].confirm_job;
	char		       *msg;

	db_sweep_change_list_free(c, f->n);
	c = decided(f, w, &f->n);
	assert_string_equal(c[0].state, "confirming");
	db_sweep_change_list_free(c, f->n);
	confirm_run(f, cj, x);
	c = decided(f, w, &f->n);
	assert_string_equal(c[0].state, "confirmed");
	assert_true(c[0].confirm_p < 0.05);
	assert_float_equal(c[0].confirm_effect_pct, 19.0, 0.05);
	db_sweep_change_list_free(c, f->n);
	msg = sweep_warning(f, cj, DB_WARN);
	assert_non_null(strstr(msg,
	    "confirmed regression: hackbench time "
	    "groups=1 on lab1: good 2.10, suspect 2.50 s "
	    "(+19.0%, p="));
	free(msg);
	db_sweep_free(w);
}

/* The same samples on both sides reject the change. */
static void
test_confirm_rejected(void **state)
{
	struct fixture	       *f = *state;
	struct db_sweep	       *w = sweep_get(f);
	const double *const	x[2] = { v1_base, v1_base };
	struct db_sweep_change *c = confirming(f, w, &f->n);

	confirm_run(f, c[0].confirm_job, x);
	db_sweep_change_list_free(c, f->n);
	c = decided(f, w, &f->n);
	assert_string_equal(c[0].state, "rejected");
	assert_float_equal(c[0].confirm_effect_pct, 0, 1e-9);
	db_sweep_change_list_free(c, f->n);
	db_sweep_free(w);
}

/*
 * An A/B difference that is significant but less than half the suspected
 * step (+7% where the series moved by +19%) does not reproduce the change.
 */
static void
test_confirm_smaller(void **state)
{
	static const double	v1_near[] = { 2.25, 2.20, 2.35, 2.30, 2.15 };
	struct fixture	       *f = *state;
	struct db_sweep	       *w = sweep_get(f);
	const double *const	x[2] = { v1_base, v1_near };
	struct db_sweep_change *c = confirming(f, w, &f->n);

	confirm_run(f, c[0].confirm_job, x);
	db_sweep_change_list_free(c, f->n);
	c = decided(f, w, &f->n);
	assert_true(c[0].confirm_p < 0.05);
	assert_float_equal(c[0].confirm_effect_pct, 7.1, 0.05);
	assert_string_equal(c[0].state, "rejected");
	db_sweep_change_list_free(c, f->n);
	db_sweep_free(w);
}

/* A failed A/B job leaves the change failed, with an error event. */
static void
test_confirm_failed(void **state)
{
	struct fixture	       *f = *state;
	struct db_sweep	       *w = sweep_get(f);
	struct db_sweep_change *c = confirming(f, w, &f->n);
	int64_t			cj = c[0].confirm_job;
	char		       *cause = NULL, *msg;

	db_sweep_change_list_free(c, f->n);
	assert_int_equal(db_job_set_state(f->db, cj, DB_RUNNING, NULL, &cause),
	    0);
	assert_int_equal(db_job_set_state(f->db, cj, DB_FAILED, "x", &cause),
	    0);
	c = decided(f, w, &f->n);
	assert_string_equal(c[0].state, "failed");
	db_sweep_change_list_free(c, f->n);
	msg = sweep_warning(f, cj, DB_ERROR);
	assert_non_null(strstr(msg, "not confirmed: job"));
	assert_non_null(strstr(msg, " failed"));
	free(msg);
	db_sweep_free(w);
}

/*
 * Three jobs of spec0 at V1, then three of spec1 about 19% slower: the
 * step is not judged, said so, and nothing is stored.
 */
static void
check_not_judged(struct fixture *f, const char *spec0, const char *spec1)
{
	struct db_sweep *w = sweep_get(f);
	char		*cause = NULL, *msg;
	int64_t		 job = 0;
	size_t		 n, i;

	for (i = 0; i < 6; i++)
		job = sweep_job_add(f, i < 3 ? spec0 : spec1,
		    i < 3 ? v1_base : v1_slow);
	assert_int_equal(sweeper_detect(f->db, w, job, &cause), 0);
	msg = sweep_warning(f, job, DB_INFO);
	assert_non_null(strstr(msg,
	    "0 series checked for change points: 0 "
	    "suspected regressions, 0 improvements; 1 "
	    "not judged (no declared direction)"));
	free(msg);
	db_sweep_change_list_free(sweep_changes(f, &n), n);
	assert_int_equal(n, 0);
	db_sweep_free(w);
}

/* The same step of a metric whose direction is unknown is not judged. */
static void
test_detect_undeclared(void **state)
{
	check_not_judged(*state, job_undeclared, job_undeclared);
}

/*
 * A series whose jobs declare the metric differently (lower, then higher)
 * has no direction: its step is not judged either way.
 */
static void
test_detect_redeclared(void **state)
{
	check_not_judged(*state, job_spec, job_higher);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_run),
		cmocka_unit_test(test_running_run),
		cmocka_unit_test(test_undeclared),
		cmocka_unit_test_setup_teardown(test_detect_step, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_detect_redeclared, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_detect_undeclared, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_confirm_confirmed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_confirm_smaller, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_confirm_rejected, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_confirm_failed, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
