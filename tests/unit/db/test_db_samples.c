/*
 * Sample ingest: idempotent re-ingest, batches, rate, covering reads; the
 * samples that count.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "tests/lib/skip.h"
#include "tests/unit/db/dbtest.h"

#define BIG_BATCH 100000

struct fixture {
	char	  *dir;
	char	  *path;
	struct db *db;
	int64_t	   job;
	int64_t	   runs[4];
	char	  *cause;
};

/* Opens a fresh database with a job of four runs. */
static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	f->dir = dbtest_tmpdir();
	f->path = dbtest_path(f->dir, "hilab.db");
	f->db = dbtest_open(f->dir, "hilab.db");
	f->job = dbtest_fixture(f->db, "vm32", 4, f->runs);
	*state = f;
	return 0;
}

/* Closes and removes the database. */
static int
teardown(void **state)
{
	struct fixture *f = *state;

	db_close(f->db);
	dbtest_rmtree(f->dir);
	free(f->dir);
	free(f->path);
	free(f->cause);
	free(f);
	return 0;
}

/* Fills v with n samples spread over the fixture's runs and two metrics. */
static void
make_samples(struct fixture *f, struct db_sample *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		v[i].run = f->runs[i % 4];
		v[i].metric = (i / 4) % 2 ? "time" : "ops";
		v[i].iteration = (int64_t)(i / 8);
		v[i].value = (double)i * 0.5;
		v[i].repeat = 0;
	}
}

/* Storing the same spool twice keeps one copy of each sample. */
static void
test_reingest_idempotent(void **state)
{
	struct fixture	*f = *state;
	struct db_sample v[64];
	double		*vals;
	size_t		 n;

	make_samples(f, v, 64);
	assert_int_equal(db_samples_insert(f->db, v, 64, &f->cause), 64);
	assert_int_equal(db_samples_insert(f->db, v, 64, &f->cause), 0);
	v[3].value = 1e9; /* a re-sent sample does not overwrite */
	assert_int_equal(db_samples_insert(f->db, v, 64, &f->cause), 0);
	assert_int_equal(db_samples_get(f->db, f->runs[0], "ops", &vals, &n,
			     &f->cause),
	    0);
	assert_int_equal(n, 8);
	assert_true(vals[0] == 0.0 && vals[1] == 4.0);
	free(vals);
	if (dbtest_have_cli())
		assert_int_equal(dbtest_cli_int(f->path,
				     "SELECT count(*) FROM samples;"),
		    64);
}

/* A bad sample fails the whole batch: nothing of it is stored. */
static void
test_batch_atomic(void **state)
{
	struct fixture	*f = *state;
	struct db_sample v[16];
	double		*vals;
	size_t		 n;

	make_samples(f, v, 16);
	v[9].value = NAN;
	assert_int_equal(db_samples_insert(f->db, v, 16, &f->cause), -1);
	assert_non_null(strstr(f->cause, "value is not a number"));
	free(f->cause);
	f->cause = NULL;
	v[9].value = 1;
	v[9].run = 999;
	assert_int_equal(db_samples_insert(f->db, v, 16, &f->cause), -1);
	assert_non_null(strstr(f->cause, "insert sample: FOREIGN KEY"));
	assert_int_equal(db_samples_get(f->db, f->runs[0], "ops", &vals, &n,
			     &f->cause),
	    0);
	assert_int_equal(n, 0);
	free(vals);
}

/* Inside the caller's transaction the batch joins it (and its rollback). */
static void
test_batch_in_caller_transaction(void **state)
{
	struct fixture	*f = *state;
	struct db_sample v[8];
	double		*vals;
	size_t		 n;

	make_samples(f, v, 8);
	assert_int_equal(db_begin(f->db, &f->cause), 0);
	assert_int_equal(db_samples_insert(f->db, v, 8, &f->cause), 8);
	assert_int_equal(db_rollback(f->db, &f->cause), 0);
	assert_int_equal(db_samples_get(f->db, f->runs[0], "ops", &vals, &n,
			     &f->cause),
	    0);
	assert_int_equal(n, 0);
	free(vals);
}

/* 100k samples go in as one batch; prints the rate (no timing assert). */
static void
test_big_batch(void **state)
{
	struct fixture	 *f = *state;
	struct db_sample *v;
	struct timespec	  a, b;
	double		  secs;

	v = calloc(BIG_BATCH, sizeof *v);
	make_samples(f, v, BIG_BATCH);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(db_samples_insert(f->db, v, BIG_BATCH, &f->cause),
	    BIG_BATCH);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	printf("# samples ingest: %d rows in %.3f s = %.0f rows/s\n", BIG_BATCH,
	    secs, BIG_BATCH / secs);
	free(v);
	if (!dbtest_have_cli())
		return;
	assert_int_equal(dbtest_cli_int(f->path,
			     "SELECT count(*) FROM samples;"),
	    BIG_BATCH);
	/* each (run, metric) holds 12500 samples: i/8 for 0..12499 */
	assert_int_equal(dbtest_cli_int(f->path,
			     "SELECT count(*) FROM "
			     "(SELECT run, metric, count(*) AS n FROM samples "
			     "GROUP BY run, metric HAVING n = 12500);"),
	    8);
}

/* A per-(run, metric) summary reads only the samples key, no table. */
static void
test_summary_is_covered(void **state)
{
	struct fixture *f = *state;
	char	       *plan;

	if (!dbtest_have_cli())
		skip_missing("the sqlite3 program (Debian package sqlite3)");
	plan = dbtest_cli(f->path,
	    "EXPLAIN QUERY PLAN SELECT avg(value), "
	    "count(*) FROM samples WHERE run = 1 AND metric = 'ops';");
	if (strstr(plan,
		"SEARCH samples USING PRIMARY KEY (run=? AND "
		"metric=?)") == NULL)
		fail_msg("unexpected plan: %s", plan);
	free(plan);
}

/* Moves a run of the fixture through running to state. */
static void
run_to(struct fixture *f, int64_t run, enum db_state state)
{
	char *agent_id = xasprintf("r%lld", (long long)run);

	assert_int_equal(db_run_start(f->db, run, agent_id, NULL, &f->cause),
	    0);
	if (state != DB_RUNNING)
		assert_int_equal(db_run_set_state(f->db, run, state, NULL,
				     &f->cause),
		    0);
	free(agent_id);
}

/* Records the run of each sample db_samples_of_jobs passes (run ids). */
static void
count_cb(const struct db_job_sample *x, void *arg)
{
	int64_t *seen = arg;

	seen[seen[0] + 1] = x->run;
	seen[0]++;
}

/*
 * Only the samples of runs done and not superseded count: not those of a
 * failed run, a running one or one done again as another; the job with
 * them is the newest done job with a sample that counts once it is done.
 */
static void
test_samples_that_count(void **state)
{
	struct fixture	*f = *state;
	struct db_sample v[4];
	int64_t		 seen[6] = { 0 };

	make_samples(f, v, 4);
	assert_int_equal(db_samples_insert(f->db, v, 4, &f->cause), 4);
	run_to(f, f->runs[0], DB_DONE);
	run_to(f, f->runs[1], DB_FAILED);
	run_to(f, f->runs[2], DB_RUNNING);
	run_to(f, f->runs[3], DB_FAILED);
	assert_int_equal(db_run_set_retried(f->db, f->runs[3], f->runs[0],
			     &f->cause),
	    0);
	assert_int_equal(db_samples_of_jobs(f->db, &f->job, 1, NULL, NULL,
			     count_cb, seen, &f->cause),
	    0);
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], f->runs[0]);
	assert_int_equal(db_samples_latest_job(f->db, &f->cause), 0);
	assert_int_equal(db_job_set_state(f->db, f->job, DB_RUNNING, NULL,
			     &f->cause),
	    0);
	assert_int_equal(db_job_set_state(f->db, f->job, DB_DONE, NULL,
			     &f->cause),
	    0);
	assert_int_equal(db_samples_latest_job(f->db, &f->cause), f->job);
}

/* The samples db_samples_of_jobs passes, a line "run|metric|2 x value" each. */
struct order_seen {
	char  *text;
	size_t len;
};

static void
order_cb(const struct db_job_sample *x, void *arg)
{
	struct order_seen *o = arg;
	char *line = xasprintf("%lld|%s|%lld\n", (long long)x->run, x->metric,
	    (long long)(x->value * 2));

	o->text = xreallocarray(o->text, o->len + strlen(line) + 1, 1);
	strcpy(o->text + o->len, line);
	o->len += strlen(line);
	free(line);
}

/*
 * The same samples in the tables' order by one sort of them all in SQL (as
 * db_samples_of_jobs read them before): benchmark, metric, job, kernel,
 * round, position, iteration, run, repeat.
 */
static char *
order_by_sql(struct fixture *f, const char *metric)
{
	char *sql, *out;

	sql = xasprintf(
	    "WITH o AS (SELECT r.id, r.benchmark, r.round, r.position, "
	    "(SELECT CAST(e.key AS INTEGER) FROM jobs j, "
	    "json_each(j.spec, '$.kernels') e WHERE j.id = r.job AND "
	    "json_extract(e.value, '$.name') = k.name) AS kernel_order "
	    "FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = %lld "
	    "AND r.state = 'done' AND r.retried_as IS NULL) "
	    "SELECT o.id, s.metric, CAST(s.value * 2 AS INTEGER) FROM o "
	    "JOIN samples s ON s.run = o.id WHERE %s "
	    "ORDER BY o.benchmark, s.metric, o.kernel_order, o.round, "
	    "o.position, s.iteration, o.id, s.repeat;",
	    (long long)f->job, metric != NULL ? "s.metric = 'time'" : "1");
	out = dbtest_cli(f->path, sql);
	free(sql);
	return out;
}

/*
 * The samples come in the tables' order without one sort of them all:
 * two metrics, two iterations and two repeats per run, two runs that
 * share every sort key (their samples interleave by iteration), one
 * metric alone.
 */
static void
test_samples_in_order(void **state)
{
	struct fixture	 *f = *state;
	struct db_sample  v[96];
	struct order_seen seen = { 0 };
	const char	 *metric[] = { NULL, "time" };
	char		 *want, *sql;
	size_t		  i, k;

	if (!dbtest_have_cli())
		skip_missing("the sqlite3 program (Debian package sqlite3)");
	for (i = 0; i < 96; i++) {
		v[i].run = f->runs[(i / 3) % 4];
		v[i].metric = i % 2 ? "time" : "ops";
		v[i].iteration = (int64_t)(47 - i / 2) % 12;
		v[i].repeat = (int64_t)(i / 24);
		v[i].value = (double)i * 0.5;
	}
	assert_int_equal(db_samples_insert(f->db, v, 96, &f->cause), 96);
	for (i = 0; i < 4; i++)
		run_to(f, f->runs[i], DB_DONE);
	sql = xasprintf("UPDATE runs SET position = 0 WHERE id = %lld;",
	    (long long)f->runs[1]);
	free(dbtest_cli(f->path, sql));
	free(sql);
	for (k = 0; k < 2; k++) {
		seen.len = 0;
		assert_int_equal(db_samples_of_jobs(f->db, &f->job, 1, NULL,
				     metric[k], order_cb, &seen, &f->cause),
		    0);
		want = order_by_sql(f, metric[k]);
		assert_non_null(seen.text);
		assert_string_equal(seen.text, want);
		free(want);
	}
	free(seen.text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reingest_idempotent, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_batch_atomic, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_batch_in_caller_transaction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_batch, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_summary_is_covered, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_samples_that_count, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_samples_in_order, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
