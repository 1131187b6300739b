/*
 * A sweep's regression check and hilab compare read the same samples: on
 * a job with a run that failed (not retried) or is still running after it
 * stored samples, the sweep's warn event shows the numbers of compare's
 * table, and both are those of the done runs alone.  The database is built
 * through the db API; the check is hilabd's own sweeper_compare.
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

static const char job_spec[] =
    "{\"name\":\"nightly\",\"kernels\":"
    "[{\"name\":\"base\"}],\"benchmarks\":[{\"name\":\"hackbench\","
    "\"metrics\":[{\"name\":\"time\",\"unit\":\"s\",\"direction\":"
    "\"lower\",\"statistic\":\"amean\"}]}]}";

/* The same job where the benchmark declares another metric only. */
static const char job_spec_undeclared[] =
    "{\"name\":\"nightly\",\"kernels\":"
    "[{\"name\":\"base\"}],\"benchmarks\":[{\"name\":\"hackbench\","
    "\"metrics\":[{\"name\":\"other\",\"unit\":\"s\",\"direction\":"
    "\"lower\",\"statistic\":\"amean\"}]}]}";

struct fixture {
	struct db *db;
	int64_t	   kernel;
	int64_t	   sweep;
	int64_t	   base;   /* done runs only */
	int64_t	   failed; /* a done run and a failed one, not
			      retried */
	int64_t running;   /* a done run and one still running */
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

/*
 * A job of spec with a done run of x and, unless partial is done, a second
 * run.
 */
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

/* A job of the declared spec; see job_add_spec. */
static int64_t
job_add(struct fixture *f, const double *x, enum db_state partial)
{
	return job_add_spec(f, job_spec, x, partial);
}

/* The database: a sweep and three jobs of one machine and kernel. */
static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char	       *cause = NULL;

	if ((f->db = db_open(":memory:", &cause)) == NULL ||
	    db_machine_upsert(f->db, "lab1", "ssh", "x86_64", &cause) == -1 ||
	    db_metric_upsert(f->db, "time", "s", "lower", "amean", &cause) ==
		-1 ||
	    (f->kernel = db_kernel_upsert(f->db, "base", NULL,
		 "{\"kind\":\"image\"}", &cause)) == -1 ||
	    (f->sweep = db_sweep_add(f->db, "nightly", "/srv/jobs/nightly.yaml",
		 86400000, -1, 0, &cause)) == -1) {
		print_error("%s\n", cause);
		return -1;
	}
	f->base = job_add(f, v1_base, DB_DONE);
	f->failed = job_add(f, v1_slow, DB_FAILED);
	f->running = job_add(f, v1_slow, DB_RUNNING);
	*state = f;
	return 0;
}

/* Closes the database. */
static int
teardown(void **state)
{
	struct fixture *f = *state;

	db_close(f->db);
	free(f);
	return 0;
}

/* The sweep's warn event of job; fails the test if there is none. */
static char *
sweep_warning(struct fixture *f, int64_t job)
{
	struct db_event *ev;
	char		*cause = NULL, *msg = NULL;
	size_t		 n, i;

	if (db_sweep_events(f->db, f->sweep, &ev, &n, &cause) == -1)
		fail_msg("%s", cause);
	for (i = 0; i < n; i++) {
		if (ev[i].job == job && ev[i].level == DB_WARN) {
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
	msg = sweep_warning(f, job);
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
 * A metric whose jobs do not declare it has no direction: 19% slower is
 * compared but never flagged, whatever the metrics cache says.
 */
static void
test_undeclared_not_flagged(void **state)
{
	struct fixture *f = *state;
	char	       *cause = NULL;
	int64_t		base, job;

	base = job_add_spec(f, job_spec_undeclared, v1_base, DB_DONE);
	job = job_add_spec(f, job_spec_undeclared, v1_slow, DB_DONE);
	assert_int_equal(sweeper_compare(f->db, f->sweep, "nightly", base, job,
			     &cause),
	    0);
	/* the same values, declared lower-is-better, are a regression */
	assert_int_equal(sweeper_compare(f->db, f->sweep, "nightly", f->base,
			     f->failed, &cause),
	    1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_failed_run, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_running_run, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_undeclared_not_flagged,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
