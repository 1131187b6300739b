/* Jobs, runs, kernels, machines, results and events through the API. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "db/db.h"
#include "tests/unit/db/dbtest.h"

struct fixture {
	char	  *dir;
	struct db *db;
	char	  *cause;
};

/* Opens a fresh database in a temporary directory. */
static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	f->dir = dbtest_tmpdir();
	f->db = dbtest_open(f->dir, "hilab.db");
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
	free(f->cause);
	free(f);
	return 0;
}

/* Asserts that the last call failed with a cause containing text. */
static void
expect_cause(struct fixture *f, const char *text)
{
	assert_non_null(f->cause);
	if (strstr(f->cause, text) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", f->cause, text);
	free(f->cause);
	f->cause = NULL;
}

/* A job moves queued -> running -> done and refuses other moves. */
static void
test_job_states(void **state)
{
	struct fixture *f = *state;
	struct db_job  *j;
	int64_t		id;

	id =
	    db_job_insert(f->db, "seed0", "seed0.yaml", "{\"a\":1}", &f->cause);
	assert_true(id > 0);
	j = db_job_get(f->db, id, &f->cause);
	assert_non_null(j);
	assert_string_equal(j->name, "seed0");
	assert_string_equal(j->file, "seed0.yaml");
	assert_string_equal(j->spec, "{\"a\":1}");
	assert_int_equal(j->state, DB_QUEUED);
	assert_true(j->submitted_at > 0);
	assert_int_equal(j->started_at, 0);
	db_job_free(j);
	assert_int_equal(db_job_set_state(f->db, id, DB_DONE, NULL, &f->cause),
	    -1);
	expect_cause(f, "job 1: cannot go from queued to done");
	assert_int_equal(db_job_set_state(f->db, id, DB_RUNNING, NULL,
			     &f->cause),
	    0);
	assert_int_equal(db_job_set_state(f->db, id, DB_RUNNING, NULL,
			     &f->cause),
	    -1);
	expect_cause(f, "cannot go from running to running");
	assert_int_equal(db_job_set_state(f->db, id, DB_FAILED, "no kernel",
			     &f->cause),
	    0);
	j = db_job_get(f->db, id, &f->cause);
	assert_int_equal(j->state, DB_FAILED);
	assert_string_equal(j->error, "no kernel");
	assert_true(j->started_at > 0 && j->finished_at >= j->started_at);
	db_job_free(j);
	assert_null(db_job_get(f->db, 99, &f->cause));
	expect_cause(f, "no job 99");
	assert_int_equal(db_job_set_state(f->db, 99, DB_RUNNING, NULL,
			     &f->cause),
	    -1);
	expect_cause(f, "no job 99");
}

/* Cancel requests flag live jobs only; the queue hands out oldest first. */
static void
test_job_cancel_and_next(void **state)
{
	struct fixture *f = *state;
	struct db_job  *j;
	int64_t		a, b;

	assert_null(db_job_next_queued(f->db, &f->cause));
	assert_null(f->cause);
	a = db_job_insert(f->db, "a", NULL, "{}", &f->cause);
	b = db_job_insert(f->db, "b", NULL, "{}", &f->cause);
	j = db_job_next_queued(f->db, &f->cause);
	assert_int_equal(j->id, a);
	db_job_free(j);
	assert_int_equal(db_job_cancel_request(f->db, a, &f->cause), 0);
	j = db_job_get(f->db, a, &f->cause);
	assert_true(j->cancel_requested);
	assert_int_equal(j->state, DB_QUEUED);
	db_job_free(j);
	assert_int_equal(db_job_set_state(f->db, a, DB_CANCELLED, NULL,
			     &f->cause),
	    0);
	assert_int_equal(db_job_cancel_request(f->db, a, &f->cause), -1);
	expect_cause(f, "cannot go from cancelled to cancelled");
	j = db_job_next_queued(f->db, &f->cause);
	assert_int_equal(j->id, b);
	assert_false(j->cancel_requested);
	db_job_free(j);
}

/* Runs are listed in plan order, counted per state and started once. */
static void
test_runs(void **state)
{
	struct fixture *f = *state;
	struct db_run  *list, *r;
	struct db_job  *jobs;
	size_t		n;
	int64_t		ids[4], job;

	job = dbtest_fixture(f->db, "vm32", 4, ids);
	assert_int_equal(db_run_list(f->db, job, &list, &n, &f->cause), 0);
	assert_int_equal(n, 4);
	assert_string_equal(list[1].params, "groups=4");
	assert_int_equal(list[2].round, 1);
	assert_int_equal(list[3].position, 1);
	assert_int_equal(list[0].iterations, 5);
	assert_int_equal(list[0].warmups, 1);
	db_run_list_free(list, n);
	r = db_run_next(f->db, job, "vm32", &f->cause);
	assert_int_equal(r->id, ids[0]);
	db_run_free(r);
	assert_int_equal(db_run_start(f->db, ids[0], "r-1", "{\"cpus\":32}",
			     &f->cause),
	    0);
	assert_int_equal(db_run_start(f->db, ids[0], "r-1b", NULL, &f->cause),
	    -1);
	expect_cause(f, "run 1: cannot go from running to running");
	assert_int_equal(db_run_start(f->db, ids[1], "r-1", NULL, &f->cause),
	    -1);
	expect_cause(f,
	    "start run: UNIQUE constraint failed: "
	    "runs.agent_run_id");
	assert_int_equal(db_run_set_state(f->db, ids[0], DB_DONE, NULL,
			     &f->cause),
	    0);
	assert_int_equal(db_run_set_state(f->db, ids[1], DB_DONE, NULL,
			     &f->cause),
	    -1);
	expect_cause(f, "cannot go from queued to done");
	assert_int_equal(db_run_set_state(f->db, ids[1], DB_FAILED,
			     "kernel did not boot", &f->cause),
	    0);
	assert_int_equal(db_run_set_console(f->db, ids[1], "Kernel panic",
			     &f->cause),
	    0);
	r = db_run_get(f->db, ids[1], &f->cause);
	assert_string_equal(r->error, "kernel did not boot");
	assert_string_equal(r->console, "Kernel panic");
	db_run_free(r);
	r = db_run_next(f->db, job, "vm32", &f->cause);
	assert_int_equal(r->id, ids[2]);
	db_run_free(r);
	assert_int_equal(db_run_cancel_queued(f->db, job, &f->cause), 2);
	assert_null(db_run_next(f->db, job, "vm32", &f->cause));
	assert_null(f->cause);
	assert_int_equal(db_job_list(f->db, &jobs, &n, &f->cause), 0);
	assert_int_equal(n, 1);
	assert_int_equal(jobs[0].runs[DB_DONE], 1);
	assert_int_equal(jobs[0].runs[DB_FAILED], 1);
	assert_int_equal(jobs[0].runs[DB_CANCELLED], 2);
	assert_int_equal(jobs[0].runs[DB_QUEUED], 0);
	db_job_list_free(jobs, n);
	/* A failed run done again as another does not count as failed. */
	assert_int_equal(db_run_set_retried(f->db, ids[1], ids[0], &f->cause),
	    0);
	assert_int_equal(db_run_set_retried(f->db, 999, ids[0], &f->cause), -1);
	expect_cause(f, "no run 999");
	assert_int_equal(db_job_list(f->db, &jobs, &n, &f->cause), 0);
	assert_int_equal(jobs[0].runs[DB_FAILED], 0);
	assert_int_equal(jobs[0].runs[DB_DONE], 1);
	db_job_list_free(jobs, n);
}

/* Foreign keys hold: a run needs its job, machine and kernel. */
static void
test_run_foreign_keys(void **state)
{
	struct fixture *f = *state;
	struct db_run	r = { 0 };

	dbtest_fixture(f->db, "vm32", 0, NULL);
	r.job = 1;
	r.kernel = 1;
	r.machine = "nosuch";
	r.benchmark = "hackbench";
	assert_int_equal(db_run_insert(f->db, &r, &f->cause), -1);
	expect_cause(f, "insert run: FOREIGN KEY constraint failed");
	r.machine = "vm32";
	r.iterations = -1;
	assert_int_equal(db_run_insert(f->db, &r, &f->cause), -1);
	expect_cause(f, "CHECK constraint failed");
}

/* Results are stored once per (run, seq); resume sees the last seq. */
static void
test_results_and_resume(void **state)
{
	struct fixture	      *f = *state;
	struct db_interrupted *list;
	struct db_result       res = { 0 };
	size_t		       n;
	int64_t		       ids[3];

	dbtest_fixture(f->db, "vm32", 3, ids);
	assert_int_equal(db_run_start(f->db, ids[0], "a-1", NULL, &f->cause),
	    0);
	assert_int_equal(db_run_start(f->db, ids[1], "a-2", NULL, &f->cause),
	    0);
	res.run = ids[0];
	res.output = "Time: 1.5\n";
	res.output_len = 10;
	res.wall_ns = 1500000000;
	for (res.seq = 0; res.seq < 3; res.seq++)
		assert_int_equal(db_run_result_insert(f->db, &res, &f->cause),
		    1);
	res.seq = 1;
	assert_int_equal(db_run_result_insert(f->db, &res, &f->cause), 0);
	assert_int_equal(db_run_list_interrupted(f->db, &list, &n, &f->cause),
	    0);
	assert_int_equal(n, 2);
	assert_int_equal(list[0].run, ids[0]);
	assert_string_equal(list[0].agent_run_id, "a-1");
	assert_string_equal(list[0].machine, "vm32");
	assert_int_equal(list[0].last_seq, 2);
	assert_int_equal(list[1].last_seq, -1);
	db_interrupted_list_free(list, n);
}

/* Kernels are found again by name and spec; machines keep their facts. */
static void
test_kernels_machines(void **state)
{
	struct fixture	  *f = *state;
	struct db_machine *m;
	struct db_kernel  *k;
	int64_t		   a, b, c;

	a = db_kernel_upsert(f->db, "base", "", "{\"base\":\"v6.8\"}",
	    &f->cause);
	b = db_kernel_upsert(f->db, "base", "quiet", "{\"base\":\"v6.8\"}",
	    &f->cause);
	c = db_kernel_upsert(f->db, "base", "", "{\"base\":\"v6.9\"}",
	    &f->cause);
	assert_true(a > 0);
	assert_int_equal(a, b);
	assert_int_not_equal(a, c);
	assert_int_equal(db_kernel_set_version(f->db, a, "6.8.0-hilab",
			     "#1 SMP", &f->cause),
	    0);
	k = db_kernel_get(f->db, a, &f->cause);
	assert_string_equal(k->release, "6.8.0-hilab");
	assert_string_equal(k->cmdline, "quiet");
	db_kernel_free(k);
	assert_int_equal(db_machine_upsert(f->db, "epyc", "ssh", "x86_64",
			     &f->cause),
	    0);
	assert_int_equal(db_machine_upsert(f->db, "epyc", "ssh", "aarch64",
			     &f->cause),
	    0);
	assert_int_equal(db_machine_set_facts(f->db, "epyc", "{\"cpus\":256}",
			     &f->cause),
	    0);
	assert_int_equal(db_machine_set_health(f->db, "epyc", DB_HEALTH_GOOD,
			     NULL, &f->cause),
	    0);
	m = db_machine_get(f->db, "epyc", &f->cause);
	assert_string_equal(m->arch, "aarch64");
	assert_string_equal(m->facts, "{\"cpus\":256}");
	assert_int_equal(m->health, DB_HEALTH_GOOD);
	assert_null(m->lease_owner);
	db_machine_free(m);
	assert_int_equal(db_machine_set_health(f->db, "nope", DB_HEALTH_BAD,
			     NULL, &f->cause),
	    -1);
	expect_cause(f, "no machine \"nope\"");
}

/* A run whose kernel did not boot is found by job, kernel and machine. */
static void
test_boot_failed(void **state)
{
	struct fixture *f = *state;
	struct db_run  *r;
	int64_t		job, ids[3];

	job = dbtest_fixture(f->db, "vm32", 3, ids);
	r = db_run_get(f->db, ids[0], &f->cause);
	assert_non_null(r);
	assert_int_equal(db_run_boot_failed(f->db, job, r->kernel, "vm32",
			     &f->cause),
	    0);
	assert_int_equal(db_run_set_boot_failed(f->db, ids[1], &f->cause), 0);
	assert_int_equal(db_run_boot_failed(f->db, job, r->kernel, "vm32",
			     &f->cause),
	    ids[1]);
	assert_int_equal(db_run_boot_failed(f->db, job, r->kernel, "other",
			     &f->cause),
	    0);
	assert_int_equal(db_run_boot_failed(f->db, job + 1, r->kernel, "vm32",
			     &f->cause),
	    0);
	db_run_free(r);
}

/* Reads machine name's health, reason, due check and failed checks. */
static void
expect_health(struct fixture *f, const char *name, enum db_health h,
    const char *reason, bool due, int failed)
{
	struct db_machine *m = db_machine_get(f->db, name, &f->cause);

	assert_non_null(m);
	assert_int_equal(m->health, h);
	if (reason == NULL)
		assert_null(m->health_reason);
	else
		assert_string_equal(m->health_reason, reason);
	assert_int_equal(m->check_due, due);
	assert_int_equal(m->checks_failed, failed);
	db_machine_free(m);
}

/*
 * Health decides: a machine never seen is good once its agent answers,
 * which changes no other health; a recovery makes a check due, failed checks
 * count up to bad, good ends both, unknown set by hand makes a check due again;
 * bad and maintenance machines are not leased.
 */
static void
test_machine_health(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(db_machine_upsert(f->db, "b", "ssh", "x86_64",
			     &f->cause),
	    0);
	expect_health(f, "b", DB_HEALTH_UNKNOWN, NULL, false, 0);
	assert_int_equal(db_machine_answered(f->db, "b", &f->cause), 0);
	expect_health(f, "b", DB_HEALTH_GOOD, NULL, false, 0);
	assert_int_equal(db_machine_recovered(f->db, "b", "power cycled",
			     &f->cause),
	    0);
	expect_health(f, "b", DB_HEALTH_UNKNOWN, "power cycled", true, 0);
	assert_int_equal(db_machine_answered(f->db, "b", &f->cause), 0);
	expect_health(f, "b", DB_HEALTH_UNKNOWN, "power cycled", true, 0);
	assert_int_equal(db_machine_check_failed(f->db, "b", "check 1", 2,
			     &f->cause),
	    1);
	expect_health(f, "b", DB_HEALTH_UNKNOWN, "check 1", true, 1);
	assert_int_equal(db_machine_lease(f->db, "b", "w", 1000, &f->cause), 1);
	assert_int_equal(db_machine_release(f->db, "b", "w", &f->cause), 1);
	assert_int_equal(db_machine_check_failed(f->db, "b", "check 2", 2,
			     &f->cause),
	    2);
	expect_health(f, "b", DB_HEALTH_BAD, "check 2", false, 2);
	assert_int_equal(db_machine_lease(f->db, "b", "w", 1000, &f->cause), 0);
	assert_int_equal(db_machine_set_health(f->db, "b",
			     DB_HEALTH_MAINTENANCE, "new disk", &f->cause),
	    0);
	expect_health(f, "b", DB_HEALTH_MAINTENANCE, "new disk", false, 2);
	assert_int_equal(db_machine_lease(f->db, "b", "w", 1000, &f->cause), 0);
	assert_int_equal(db_machine_answered(f->db, "b", &f->cause), 0);
	expect_health(f, "b", DB_HEALTH_MAINTENANCE, "new disk", false, 2);
	assert_int_equal(db_machine_set_health(f->db, "b", DB_HEALTH_GOOD, NULL,
			     &f->cause),
	    0);
	expect_health(f, "b", DB_HEALTH_GOOD, NULL, false, 0);
	assert_int_equal(db_machine_lease(f->db, "b", "w", 1000, &f->cause), 1);
	assert_int_equal(db_machine_set_health(f->db, "b", DB_HEALTH_UNKNOWN,
			     "new DIMM", &f->cause),
	    0);
	expect_health(f, "b", DB_HEALTH_UNKNOWN, "new DIMM", true, 0);
	assert_int_equal(db_machine_check_failed(f->db, "nope", "x", 2,
			     &f->cause),
	    -1);
	expect_cause(f, "no machine \"nope\"");
}

/* Events are formatted, attached to their job and listed incrementally. */
static void
test_events(void **state)
{
	struct fixture	*f = *state;
	struct db_event *ev;
	size_t		 n;
	int64_t		 job, ids[1];

	job = dbtest_fixture(f->db, "vm32", 1, ids);
	assert_int_equal(db_event_add(f->db, 0, 0, "vm32", DB_INFO, &f->cause,
			     "machine %s up", "vm32"),
	    0);
	assert_int_equal(db_event_add(f->db, job, ids[0], "vm32", DB_WARN,
			     &f->cause, "run %d: %s", 1, "slow"),
	    0);
	assert_int_equal(db_event_add(f->db, job, 0, NULL, DB_ERROR, &f->cause,
			     "done"),
	    0);
	assert_int_equal(db_event_list(f->db, job, 0, &ev, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ev[0].message, "run 1: slow");
	assert_int_equal(ev[0].level, DB_WARN);
	assert_int_equal(ev[0].run, ids[0]);
	assert_null(ev[1].machine);
	assert_int_equal(ev[1].run, 0);
	db_event_list_free(ev, n);
	assert_int_equal(db_event_list(f->db, 0, 1, &ev, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ev[0].id, 2);
	db_event_list_free(ev, n);
}

/*
 * Only queued and running jobs are listed as live, and a machine has
 * queued runs only while one of them is queued on it.
 */
static void
test_live(void **state)
{
	struct fixture *f = *state;
	struct db_job  *jobs;
	size_t		n;
	int64_t		ids[2], old, job;

	old = dbtest_fixture(f->db, "vm32", 2, ids);
	assert_int_equal(db_run_queued_on(f->db, "vm32", &f->cause), 1);
	assert_int_equal(db_run_queued_on(f->db, "other", &f->cause), 0);
	assert_int_equal(db_job_set_state(f->db, old, DB_CANCELLED, NULL,
			     &f->cause),
	    0);
	assert_int_equal(db_run_cancel_queued(f->db, old, &f->cause), 2);
	assert_int_equal(db_run_queued_on(f->db, "vm32", &f->cause), 0);
	job = dbtest_fixture(f->db, "vm32", 1, ids);
	assert_int_equal(db_job_list_active(f->db, &jobs, &n, &f->cause), 0);
	assert_int_equal(n, 1);
	assert_int_equal(jobs[0].id, job);
	assert_int_equal(jobs[0].runs[DB_QUEUED], 1);
	db_job_list_free(jobs, n);
	assert_int_equal(db_job_set_state(f->db, job, DB_RUNNING, NULL,
			     &f->cause),
	    0);
	assert_int_equal(db_job_list_active(f->db, &jobs, &n, &f->cause), 0);
	assert_int_equal(n, 1);
	assert_int_equal(jobs[0].state, DB_RUNNING);
	db_job_list_free(jobs, n);
	assert_int_equal(db_job_list(f->db, &jobs, &n, &f->cause), 0);
	assert_int_equal(n, 2);
	db_job_list_free(jobs, n);
	assert_null(f->cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_job_states, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_job_cancel_and_next, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_foreign_keys, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_results_and_resume, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_kernels_machines, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_machine_health, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_boot_failed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
