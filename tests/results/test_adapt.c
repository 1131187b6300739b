/*
 * Adaptive iterations as hilabd's worker decides them (worker_adapt) on a
 * database built through the db API: a job of two kernels and three
 * parameter sets, its runs driven in plan order as a worker drives them.
 * A tight group stops at min; a group a little noisy goes on and reaches
 * its target before max; a group where one kernel is noisy goes on until
 * max and says it did not reach the target.  Each round adds the same
 * iterations to both kernels (in the round's order); the adaptive table
 * holds what each kernel used and reached, and the compare table shows
 * it under its rows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/daemon.h"
#include "hilabd/worker.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/machine.h"
#include "report/compare.h"
#include "report/select.h"

/* Two kernels, one benchmark at n=1 (tight), n=2 (b noisy), n=3 (both
 * a little noisy). */
static const char job_text[] =
    "name: adapt\nmachines: [m]\n"
    "kernels:\n  - {name: a, image: /k/a}\n  - {name: b, image: /k/b}\n"
    "benchmarks:\n"
    "  - name: c\n    command: [sh, -c, 'echo v=$1', sh, \"{n}\"]\n"
    "    params: {n: [1, 2, 3]}\n    parser: keyvalue\n"
    "    iterations: {min: 4, max: 12, precision: 2%}\n"
    "    metrics: [{name: v, unit: x, direction: lower}]\n";

struct fixture {
	struct db     *db;
	struct job    *job;
	struct machine machine;
	struct worker  worker;
	int64_t	       id;
	int64_t	       kernels[2];
};

/*
 * Sample i of a run of kernel k at params: +-20% for b at n=2, +-2% at
 * n=3, else within 0.4%.
 */
static double
sample(int k, const char *params, int64_t i)
{
	if (k == 1 && strcmp(params, "n=2") == 0)
		return 100 + (double)((i * 37) % 41) - 20;
	if (strcmp(params, "n=3") == 0)
		return 100 + (double)((k + i * 3) % 5) - 2;
	return 100 + (double)((k * 7 + i * 3) % 5) / 10;
}

/* Inserts the planned runs as the planner does. */
static void
plan_insert(struct fixture *f)
{
	struct plan	       plan;
	const struct plan_run *p;
	struct db_run	       r;
	char		      *cause = NULL;
	size_t		       i;

	if (plan_build(f->job, &plan, &cause) == -1)
		fail_msg("%s", cause);
	for (i = 0; i < plan.n; i++) {
		p = &plan.runs[i];
		r = (struct db_run){ .job = f->id,
			.machine = p->machine,
			.kernel = f->kernels[p->kernel_index],
			.benchmark = p->benchmark,
			.params = p->params,
			.round = p->round,
			.boot = p->round,
			.position = p->position,
			.iterations = p->iterations,
			.warmups = p->warmups };
		if (db_run_insert(f->db, &r, &cause) == -1)
			fail_msg("%s", cause);
	}
	plan_free(&plan);
}

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char	       *cause = NULL, *json;

	f->job = job_load_string("adapt.yaml", job_text, strlen(job_text), NULL,
	    NULL, &cause);
	if (f->job == NULL || (f->db = db_open(":memory:", &cause)) == NULL ||
	    db_machine_upsert(f->db, "m", "ssh", "x86_64", &cause) == -1 ||
	    (f->kernels[0] = db_kernel_upsert(f->db, "a", NULL,
		 "{\"kind\":\"image\",\"image\":\"/k/a\"}", &cause)) == -1 ||
	    (f->kernels[1] = db_kernel_upsert(f->db, "b", NULL,
		 "{\"kind\":\"image\",\"image\":\"/k/b\"}", &cause)) == -1) {
		print_error("%s\n", cause);
		return -1;
	}
	json = job_to_json(f->job);
	f->id = db_job_insert(f->db, "adapt", "adapt.yaml", json, &cause);
	free(json);
	if (f->id == -1 ||
	    db_job_set_state(f->db, f->id, DB_RUNNING, NULL, &cause) == -1) {
		print_error("%s\n", cause);
		return -1;
	}
	f->machine.name = "m";
	f->worker.machine = &f->machine;
	plan_insert(f);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	db_close(f->db);
	job_free(f->job);
	free(f);
	return 0;
}

/* The plan entry of run r, as the worker finds it. */
static const struct plan_run *
plan_entry(const struct worker_ctx *ctx, const struct db_run *r)
{
	size_t i;

	for (i = 0; i < ctx->plan.n; i++)
		if (ctx->plan.runs[i].round == r->round &&
		    ctx->plan.runs[i].position == r->position)
			return &ctx->plan.runs[i];
	fail_msg("run %lld not in the plan", (long long)r->id);
	return NULL;
}

/* Runs one queued run: samples stored, the adaptive step, done. */
static void
drive_one(struct fixture *f, struct worker_ctx *ctx, struct db_run *r)
{
	struct db_sample s = { .run = r->id, .metric = "v" };
	char		*cause = NULL, *agent_id;
	int		 k = r->kernel == f->kernels[1];

	agent_id = xasprintf("r%lld", (long long)r->id);
	if (db_run_start(f->db, r->id, agent_id, NULL, &cause) == -1)
		fail_msg("%s", cause);
	free(agent_id);
	for (s.iteration = 0; s.iteration < r->iterations; s.iteration++) {
		/* Numbered over the kernel's runs so far: each its own. */
		s.value = sample(k, r->params, r->round * 100 + s.iteration);
		if (db_samples_insert(f->db, &s, 1, &cause) != 1)
			fail_msg("%s", cause);
	}
	worker_adapt(ctx, r, plan_entry(ctx, r));
	if (db_run_set_state(f->db, r->id, DB_DONE, NULL, &cause) == -1)
		fail_msg("%s", cause);
}

/* Drives every queued run of the job in the worker's order. */
static void
drive(struct fixture *f)
{
	struct worker_ctx ctx = { .w = &f->worker, .db = f->db, .job = f->job };
	struct db_run	 *r;
	char		 *cause = NULL;

	/* The job's round and those the worker may queue (max 12, 4 each). */
	if (plan_build_rounds(f->job, 0, 3, &ctx.plan, &cause) == -1)
		fail_msg("%s", cause);
	while ((r = db_run_next(f->db, f->id, "m", &cause)) != NULL) {
		drive_one(f, &ctx, r);
		db_run_free(r);
	}
	assert_null(cause);
	plan_free(&ctx.plan);
}

/* One query's first text column, or "" (caller frees). */
static char *
query(struct fixture *f, const char *fmt, ...)
{
	sqlite3_stmt *s;
	va_list	      ap;
	char	     *sql, *out;

	va_start(ap, fmt);
	sql = xvasprintf(fmt, ap);
	va_end(ap);
	assert_int_equal(sqlite3_prepare_v2(db_sqlite(f->db), sql, -1, &s,
			     NULL),
	    SQLITE_OK);
	out = xstrdup(
	    sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0) != NULL
		? (const char *)sqlite3_column_text(s, 0)
		: "");
	sqlite3_finalize(s);
	free(sql);
	return out;
}

/* Asserts that a query's first column reads want. */
static void
query_is(struct fixture *f, const char *want, const char *sql)
{
	char *got = query(f, "%s", sql);

	assert_string_equal(got, want);
	free(got);
}

/* "kernel:iterations:reached:done" of the adaptive rows of params. */
#define ADAPT_ROWS(params)                                                   \
	"SELECT group_concat(x) FROM (SELECT k.name || ':' || a.iterations " \
	"|| ':' || a.reached || ':' || a.done AS x FROM adaptive a JOIN "    \
	"kernels k ON k.id = a.kernel WHERE a.params = '" params "' "        \
	"ORDER BY k.name)"

/*
 * Adaptive iterations reach their precision target or say they could
 * not: n=1 stops at min (4 each, one round); n=3 reaches it at 8; n=2
 * goes to max (12 each) and warns.  Each round is one run of each kernel
 * with the same iterations, the second round's order reversed; the rows
 * say so, and so do the events.
 */
static void
test_rounds(void **state)
{
	struct fixture *f = *state;

	drive(f);
	query_is(f, "a:4:1:1,b:4:1:1", ADAPT_ROWS("n=1"));
	query_is(f, "a:12:1:1,b:12:0:1", ADAPT_ROWS("n=2"));
	query_is(f, "2", "SELECT COUNT(*) FROM runs WHERE params = 'n=1'");
	/* Rounds 0, 1, 2: a b, b a, a b; 4 iterations each. */
	query_is(f, "0a4,0b4,1b4,1a4,2a4,2b4",
	    "SELECT group_concat(r.round || k.name || r.iterations) FROM "
	    "(SELECT * FROM runs WHERE params = 'n=2' ORDER BY round, "
	    "position) r JOIN kernels k ON k.id = r.kernel");
	query_is(f, "1",
	    "SELECT COUNT(*) FROM events WHERE level = 'warn' AND message "
	    "LIKE 'adaptive iterations of c n=2 (v amean): a: 12 (±%), b: 12 "
	    "(±%); target ±2% not reached within max'");
	query_is(f, "1",
	    "SELECT COUNT(*) FROM events WHERE message LIKE 'adaptive "
	    "iterations of c n=1 (v amean): a: 4 (±0.%), b: 4 (±0.%); target "
	    "±2% reached'");
	/* Past min, before max: the target reached, and said so. */
	query_is(f, "a:8:1:1,b:8:1:1", ADAPT_ROWS("n=3"));
	query_is(f, "0a4,0b4,1b4,1a4",
	    "SELECT group_concat(r.round || k.name || r.iterations) FROM "
	    "(SELECT * FROM runs WHERE params = 'n=3' ORDER BY round, "
	    "position) r JOIN kernels k ON k.id = r.kernel");
	query_is(f, "2",
	    "SELECT COUNT(*) FROM events WHERE level = 'info' AND message "
	    "IN ('adaptive iterations of c n=3 (v amean): a: 4 (±2.91%), b: "
	    "4 (±2.72%); target ±2% not reached: 4 more per kernel in round "
	    "1', 'adaptive iterations of c n=3 (v amean): a: 8 (±1.41%), b: "
	    "8 (±1.33%); target ±2% reached')");
}

/* What the compare table notes under it. */
static void
test_table_note(void **state)
{
	struct fixture	    *f = *state;
	long long	     id = f->id;
	struct select_query  q = { .jobs = &id, .njobs = 1 };
	struct select_result r = { 0 };
	char		    *cause = NULL, *notes = xstrdup(""), *next;
	size_t		     i;

	drive(f);
	if (select_tables(f->db, &q, &r, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(r.n, 1);
	for (i = 0; i < r.v[0].table->nnotes; i++) {
		next = xasprintf("%s%s\n", notes, r.v[0].table->notes[i]);
		free(notes);
		notes = next;
	}
	if (strstr(notes,
		"adaptive iterations of 1-n on v (amean, target "
		"±2%): a: 4 (±0.") == NULL ||
	    strstr(notes,
		"adaptive iterations of 2-n on v (amean, target "
		"±2%): a: 12 (±0.") == NULL ||
	    strstr(notes, "%), b: 12 (±") == NULL ||
	    strstr(notes, "%, not reached)\n") == NULL)
		fail_msg("notes:\n%s", notes);
	free(notes);
	select_result_clear(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_note, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
