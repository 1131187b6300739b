/*
 * Adaptive iterations in job files and the catalog: what they read into,
 * their errors at file:line:col, their JSON and YAML round trips, and the
 * plan they give (iterations per run, the rounds past the job's own).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchmarks/catalog.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/plan.h"

static struct catalog *catalog;

/* A custom benchmark with adaptive iterations (ITER), two kernels. */
#define JOB(rounds, iter)                                                \
	"name: t\nmachines: [m]\nrounds: " rounds "\n"                   \
	"kernels:\n  - {name: a, image: /k/a}\n"                         \
	"  - {name: b, image: /k/b}\nbenchmarks:\n"                      \
	"  - name: c\n    command: [sh, -c, 'echo v=$1', sh, \"{n}\"]\n" \
	"    params: {n: [1, 2]}\n    parser: keyvalue\n"                \
	"    iterations: " iter "\n    metrics:\n"                       \
	"      - {name: o, unit: x, direction: lower, optional: "        \
	"true}\n"                                                        \
	"      - {name: v, unit: x, direction: lower, statistic: median}\n"

/* Loads text; NULL with *cause on errors. */
static struct job *
load(const char *text, char **cause)
{
	*cause = NULL;
	return job_load_string("t.yaml", text, strlen(text), catalog, NULL,
	    cause);
}

/* Loads text that must parse. */
static struct job *
load_ok(const char *text)
{
	struct job *job;
	char	   *cause;

	if ((job = load(text, &cause)) == NULL)
		fail_msg("%s", cause);
	return job;
}

/* Asserts that text fails with exactly want. */
static void
load_fails(const char *text, const char *want)
{
	struct job *job;
	char	   *cause;

	job = load(text, &cause);
	assert_null(job);
	assert_non_null(cause);
	assert_string_equal(cause, want);
	free(cause);
}

/* {min, max, precision} reads into the benchmark; metric by default. */
static void
test_reads(void **state)
{
	struct job		   *job;
	const struct job_benchmark *b;

	job = load_ok(JOB("1", "{min: 5, max: 50, precision: 2%}"));
	b = &job->benchmarks[0];
	assert_int_equal(b->adaptive.min, 5);
	assert_int_equal(b->adaptive.max, 50);
	assert_true(
	    b->adaptive.precision > 0.0199 && b->adaptive.precision < 0.0201);
	/* The first metric that is not optional. */
	assert_string_equal(b->adaptive.metric, "v");
	assert_int_equal(b->iterations, 5);
	job_free(job);
	/* An optional metric may be the one (netperf's transactions). */
	job = load_ok(JOB("1", "{min: 5, max: 50, precision: 2%, metric: o}"));
	assert_string_equal(job->benchmarks[0].adaptive.metric, "o");
	job_free(job);
	job = load_ok(JOB("1", "7"));
	assert_int_equal(job->benchmarks[0].iterations, 7);
	assert_true(job->benchmarks[0].adaptive.precision == 0);
	job_free(job);
}

/* Bad adaptive iterations: each error where it is. */
static void
test_errors(void **state)
{
	load_fails(JOB("1", "{min: 10, max: 5, precision: 2%}"),
	    "t.yaml:12:32: \"iterations\": \"max\" 5 is less than \"min\" "
	    "10");
	load_fails(JOB("1", "{min: 5, max: 50, precision: 2}"),
	    "t.yaml:12:46: \"precision\" must be a percentage from 0.01% to "
	    "50% such as \"2%\", not \"2\"");
	load_fails(JOB("1", "{min: 1, max: 50, precision: 0%}"),
	    "t.yaml:12:23: \"min\" must be a number from 2 to 1000000, not "
	    "\"1\"\n"
	    "t.yaml:12:46: \"precision\" must be a percentage from 0.01% to "
	    "50% such as \"2%\", not \"0%\"");
	load_fails(JOB("1", "{min: 5, max: 50}"),
	    "t.yaml:12:17: missing required key \"precision\" in "
	    "\"iterations\"");
	load_fails(JOB("1", "{min: 5, max: 50, precision: 2%, metric: w}"),
	    "t.yaml:12:17: benchmark \"c\": adaptive iterations: \"w\" is "
	    "not one of its metrics");
}

/* unixbench declares families only: its metric must be named, not one. */
static void
test_metric_needed(void **state)
{
	struct job *job;

	load_fails("name: t\nmachines: [m]\nbenchmarks:\n"
		   "  - {name: unixbench, iterations: {min: 3, max: 5, "
		   "precision: 2%}}\n",
	    "t.yaml:4:35: benchmark \"unixbench\": adaptive iterations need "
	    "\"metric\": the benchmark has no required metric");
	load_fails("name: t\nmachines: [m]\nbenchmarks:\n"
		   "  - {name: unixbench, iterations: {min: 3, max: 5, "
		   "precision: 2%, metric: \"*_index\"}}\n",
	    "t.yaml:4:35: benchmark \"unixbench\": adaptive iterations: "
	    "\"*_index\" is not one of its metrics");
	job = load_ok("name: t\nmachines: [m]\nbenchmarks:\n"
		      "  - {name: unixbench, iterations: {min: 3, max: 5, "
		      "precision: 2%, metric: system_benchmarks_index_score}}"
		      "\n");
	job_free(job);
}

/* The stored JSON and the printed YAML keep them. */
static void
test_round_trips(void **state)
{
	struct job *job, *back;
	char	   *json, *cause = NULL, *yaml = NULL;
	size_t	    len = 0;
	FILE	   *mem;

	job = load_ok(JOB("1", "{min: 5, max: 50, precision: 2.5%}"));
	json = job_to_json(job);
	if ((back = job_from_json(json, &cause)) == NULL)
		fail_msg("%s", cause);
	assert_int_equal(back->benchmarks[0].adaptive.min, 5);
	assert_int_equal(back->benchmarks[0].adaptive.max, 50);
	assert_true(back->benchmarks[0].adaptive.precision == 0.025);
	assert_string_equal(back->benchmarks[0].adaptive.metric, "v");
	assert_non_null(mem = open_memstream(&yaml, &len));
	job_print(mem, back);
	fclose(mem);
	assert_non_null(strstr(yaml,
	    "  iterations: {min: 5, max: 50, precision: 2.5%, metric: v}\n"));
	job_free(back);
	back = load_ok(yaml);
	assert_true(back->benchmarks[0].adaptive.precision == 0.025);
	job_free(back);
	free(yaml);
	free(json);
	job_free(job);
}

/* A catalog entry's adaptive iterations, unless the job gives a count. */
static void
test_catalog_entry(void **state)
{
	const struct catalog_benchmark *cb = catalog_find(catalog, "tbench");
	struct job		       *job;

	assert_non_null(cb);
	assert_true(cb->adaptive.precision > 0);
	job = load_ok("name: t\nmachines: [m]\nbenchmarks: [{name: tbench}]\n");
	assert_int_equal(job->benchmarks[0].adaptive.min, cb->adaptive.min);
	assert_int_equal(job->benchmarks[0].adaptive.max, cb->adaptive.max);
	assert_string_equal(job->benchmarks[0].adaptive.metric, "throughput");
	job_free(job);
	job = load_ok("name: t\nmachines: [m]\nbenchmarks:\n"
		      "  - {name: tbench, iterations: 2}\n");
	assert_true(job->benchmarks[0].adaptive.precision == 0);
	assert_int_equal(job->benchmarks[0].iterations, 2);
	job_free(job);
}

/* A catalog entry's adaptive metric must be one it declares. */
static void
test_catalog_metric(void **state)
{
	char		path[] = "/tmp/hilab-adaptive-XXXXXX";
	struct catalog *cat;
	char	       *cause = NULL;
	FILE	       *fp;
	int		fd;

	assert_true((fd = mkstemp(path)) != -1);
	assert_non_null(fp = fdopen(fd, "w"));
	fputs("name: c\ncommand: [true]\ninstall: coreutils\n"
	      "parser: keyvalue\n"
	      "iterations: {min: 3, max: 9, precision: 5%, metric: w}\n"
	      "metrics: [{name: v, unit: x, direction: lower}]\n",
	    fp);
	fclose(fp);
	cat = catalog_load_file(path, &cause);
	unlink(path);
	assert_null(cat);
	assert_non_null(strstr(cause,
	    ":5:13: adaptive iterations: \"w\" is not one of its metrics"));
	free(cause);
}

/*
 * min is split over the job's rounds; rounds past them (those the worker
 * queues) follow the job's order: alternate a b, b a, ...
 */
static void
test_plan(void **state)
{
	struct job *job;
	struct plan plan;
	char	   *cause = NULL;

	job = load_ok(JOB("2", "{min: 5, max: 50, precision: 2%}"));
	assert_int_equal(plan_iterations(job, &job->benchmarks[0]), 3);
	assert_int_equal(plan_build(job, &plan, &cause), 0);
	assert_int_equal(plan.n, 2 * 2 * 2);
	assert_int_equal(plan.runs[0].iterations, 3);
	plan_free(&plan);
	assert_int_equal(plan_build_rounds(job, 16, 17, &plan, &cause), 0);
	assert_int_equal(plan.n, 2 * 2);
	assert_int_equal(plan.runs[0].round, 16);
	assert_int_equal(plan.runs[0].position, 0);
	assert_string_equal(plan.runs[0].kernel, "a");
	assert_string_equal(plan.runs[2].kernel, "b");
	plan_free(&plan);
	assert_int_equal(plan_build_rounds(job, 15, 16, &plan, &cause), 0);
	assert_string_equal(plan.runs[0].kernel, "b");
	plan_free(&plan);
	assert_int_equal(plan_build_rounds(job, 3, 2, &plan, &cause), -1);
	assert_non_null(cause);
	free(cause);
	job_free(job);
	job = load_ok(JOB("3", "9"));
	assert_int_equal(plan_iterations(job, &job->benchmarks[0]), 9);
	job_free(job);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_metric_needed),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_catalog_entry),
		cmocka_unit_test(test_catalog_metric),
		cmocka_unit_test(test_plan),
	};
	const char *src = getenv("HILAB_SRCDIR");
	char	   *dir, *cause = NULL;
	int	    rc;

	if (src == NULL)
		return 1;
	dir = xasprintf("%s/benchmarks", src);
	if ((catalog = catalog_load(dir, &cause)) == NULL) {
		fprintf(stderr, "%s\n", cause);
		return 1;
	}
	free(dir);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	catalog_free(catalog);
	return rc;
}
