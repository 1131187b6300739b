/*
 * The run planner: counts and order of runs for each kernel order, the
 * cartesian product of sweeps, argv expansion, plans read back from the
 * stored JSON, the metrics a run requires and the check of parser samples.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/plan.h"

/* Two kernels, three rounds, a three-value sweep, on two machines. */
static const char sweep_job[] =
    "name: sweep\n"
    "machines: [m1, m2]\n"
    "kernels:\n"
    "  - {name: A, image: /k/a}\n"
    "  - {name: B, image: /k/b}\n"
    "rounds: 3\n"
    "%s"
    "benchmarks:\n"
    "  - name: hb\n"
    "    command: [hackbench, -g, \"{groups}\", \"--loops={loops}\",\n"
    "              \"{{literal}}\"]\n"
    "    params: {loops: 100, groups: [1, 2, 4]}\n"
    "    parser: hackbench\n"
    "    iterations: 7\n"
    "    warmups: 2\n"
    "    timeout: 45s\n"
    "    metrics: [{name: time, unit: s, direction: lower}]\n";

/* Loads a job from text that must parse. */
static struct job *
load_text(const char *text)
{
	struct job *job;
	char	   *cause = NULL;

	job = job_load_string("test.yaml", text, strlen(text), NULL, NULL,
	    &cause);
	if (job == NULL)
		fail_msg("%s", cause);
	return job;
}

/* Loads the sweep job with an extra top-level line (order, seed). */
static struct job *
load_sweep(const char *extra)
{
	char	   *text = xasprintf(sweep_job, extra);
	struct job *job = load_text(text);

	free(text);
	return job;
}

/* Builds a plan that must succeed. */
static void
build(const struct job *job, struct plan *plan)
{
	char *cause = NULL;

	if (plan_build(job, plan, &cause) == -1)
		fail_msg("%s", cause);
}

/* Alternate order: A B, B A, A B; sweep values in order; per machine. */
static void
test_alternate(void **state)
{
	static const char *kernels[] = { "A", "B", "B", "A", "A", "B" };
	static const char *groups[] = { "1", "2", "4" };
	struct job	  *job = load_sweep("");
	struct plan	   plan;
	struct plan_run	  *run;
	size_t		   i;

	build(job, &plan);
	assert_int_equal(plan_count_per_machine(job), 18);
	assert_int_equal(plan.n, 36);
	for (i = 0; i < plan.n; i++) {
		run = &plan.runs[i];
		assert_string_equal(run->machine, i < 18 ? "m1" : "m2");
		assert_int_equal(run->machine_index, i / 18);
		assert_int_equal(run->round, (i % 18) / 6);
		assert_int_equal(run->position, i % 6);
		assert_string_equal(run->kernel, kernels[(i % 18) / 3]);
		assert_string_equal(run->argv[2], groups[i % 3]);
		assert_int_equal(run->iterations, 7);
		assert_int_equal(run->warmups, 2);
		assert_int_equal(run->timeout_ms, 45000);
		assert_string_equal(run->parser, "hackbench");
		assert_null(run->parser_args);
	}
	assert_string_equal(plan.runs[0].params, "groups=1,loops=100");
	assert_string_equal(plan.runs[5].params, "groups=4,loops=100");
	assert_int_equal(plan.runs[3].kernel_index, 1);
	plan_free(&plan);
	job_free(job);
}

/* The argv is the template with values put in, braces kept. */
static void
test_argv(void **state)
{
	struct job *job = load_sweep("");
	struct plan plan;
	char	  **argv;

	build(job, &plan);
	argv = plan.runs[4].argv;
	assert_string_equal(argv[0], "hackbench");
	assert_string_equal(argv[1], "-g");
	assert_string_equal(argv[2], "2");
	assert_string_equal(argv[3], "--loops=100");
	assert_string_equal(argv[4], "{literal}");
	assert_null(argv[5]);
	plan_free(&plan);
	job_free(job);
}

/* Fixed order: A B in every round. */
static void
test_fixed(void **state)
{
	struct job *job = load_sweep("order: fixed\n");
	struct plan plan;
	size_t	    i;

	build(job, &plan);
	assert_int_equal(plan.n, 36);
	for (i = 0; i < plan.n; i++)
		assert_string_equal(plan.runs[i].kernel,
		    (i % 6) < 3 ? "A" : "B");
	plan_free(&plan);
	job_free(job);
}

/* Returns the kernel orders of rounds 0..n-1 as one string. */
static char *
orders(const struct job *job, int rounds)
{
	size_t *order = xcalloc(job->nkernels, sizeof *order), k;
	char   *out = xstrdup(""), *next;
	int	r;

	for (r = 0; r < rounds; r++) {
		plan_round_order(job, r, order);
		for (k = 0; k < job->nkernels; k++) {
			next =
			    xasprintf("%s%s%zu", out, k ? "" : " ", order[k]);
			free(out);
			out = next;
		}
	}
	free(order);
	return out;
}

/* Random order: a permutation per round, reproducible from the seed. */
static void
test_random(void **state)
{
	static const char text[] =
	    "name: r\nmachines: [m]\n"
	    "kernels: [{name: a, image: /a}, {name: b, image: /b},\n"
	    "  {name: c, image: /c}, {name: d, image: /d}]\n"
	    "order: random\nseed: %d\nrounds: 10\nbenchmarks:\n"
	    "  - {name: x, command: [x], parser: json,\n"
	    "     metrics: [{name: v, unit: s, direction: lower}]}\n";
	char	   *t42 = xasprintf(text, 42), *t43;
	struct job *j42 = load_text(t42), *j43, *back;
	char	   *o42, *o43, *json, *cause = NULL, *seen;
	size_t	    r, k, *order = xcalloc(4, sizeof *order);

	t43 = xasprintf(text, 43);
	j43 = load_text(t43);
	for (r = 0; r < 10; r++) {
		plan_round_order(j42, (int)r, order);
		seen = xcalloc(4, 1);
		for (k = 0; k < 4; k++)
			seen[order[k]]++;
		for (k = 0; k < 4; k++)
			assert_int_equal(seen[k], 1);
		free(seen);
	}
	o42 = orders(j42, 10);
	o43 = orders(j43, 10);
	assert_string_not_equal(o42, o43);
	assert_string_not_equal(o42,
	    " 0123 0123 0123 0123 0123 0123 0123 0123 0123 0123");
	json = job_to_json(j42);
	back = job_from_json(json, &cause);
	assert_non_null(back);
	free(o43);
	o43 = orders(back, 10);
	assert_string_equal(o42, o43);
	free(o42);
	free(o43);
	free(json);
	free(order);
	free(t42);
	free(t43);
	job_free(j42);
	job_free(j43);
	job_free(back);
}

/* Two swept keys: sorted by key, the last one varying fastest. */
static void
test_cartesian(void **state)
{
	static const char text[] =
	    "name: c\nmachines: [m]\n"
	    "benchmarks:\n"
	    "  - name: x\n    command: [x, \"{b}\", \"{a}\", \"{c}\"]\n"
	    "    params: {b: [x, y], a: [3, 1, 2], c: only}\n"
	    "    parser: json\n"
	    "    metrics: [{name: v, unit: s, direction: lower}]\n";
	static const char *want[] = { "a=3,b=x,c=only", "a=3,b=y,c=only",
		"a=1,b=x,c=only", "a=1,b=y,c=only", "a=2,b=x,c=only",
		"a=2,b=y,c=only" };
	struct job	  *job = load_text(text);
	struct plan	   plan;
	size_t		   i;

	build(job, &plan);
	assert_int_equal(plan.n, 6);
	for (i = 0; i < plan.n; i++) {
		assert_string_equal(plan.runs[i].params, want[i]);
		assert_string_equal(plan.runs[i].kernel, "running");
	}
	assert_string_equal(plan.runs[3].argv[1], "y");
	assert_string_equal(plan.runs[3].argv[2], "1");
	assert_string_equal(plan.runs[3].argv[3], "only");
	plan_free(&plan);
	job_free(job);
}

/* Template syntax: placeholders, doubled braces, and what is refused. */
static void
test_expand_arg(void **state)
{
	const char *keys[] = { "n", "mode" }, *values[] = { "4", "-p" };
	bool	    used[2] = { false, false };
	char	   *out, *cause = NULL;

	assert_int_equal(plan_expand_arg("-g{n}x{{}}{mode}", keys, values, 2,
			     used, &out, &cause),
	    0);
	assert_string_equal(out, "-g4x{}-p");
	assert_true(used[0] && used[1]);
	free(out);
	assert_int_equal(plan_expand_arg("{nope}", keys, values, 2, NULL, &out,
			     &cause),
	    -1);
	assert_string_equal(cause,
	    "placeholder \"{nope}\" is not a "
	    "parameter");
	free(cause);
	assert_int_equal(plan_expand_arg("a}b", keys, values, 2, NULL, &out,
			     &cause),
	    -1);
	assert_string_equal(cause, "lone \"}\" (write \"}}\" for a brace)");
	free(cause);
	assert_int_equal(plan_expand_arg("{a b}", keys, NULL, 2, NULL, NULL,
			     &cause),
	    -1);
	free(cause);
}

/* A plan from the stored JSON equals the plan from the file. */
static void
test_plan_from_json(void **state)
{
	struct job *job = load_sweep(""), *back;
	struct plan p1, p2;
	char	   *json = job_to_json(job), *cause = NULL;
	size_t	    i, a;

	back = job_from_json(json, &cause);
	assert_non_null(back);
	build(job, &p1);
	build(back, &p2);
	assert_int_equal(p1.n, p2.n);
	for (i = 0; i < p1.n; i++) {
		assert_string_equal(p1.runs[i].kernel, p2.runs[i].kernel);
		assert_string_equal(p1.runs[i].params, p2.runs[i].params);
		for (a = 0; p1.runs[i].argv[a] != NULL; a++)
			assert_string_equal(p1.runs[i].argv[a],
			    p2.runs[i].argv[a]);
		assert_null(p2.runs[i].argv[a]);
	}
	plan_free(&p1);
	plan_free(&p2);
	free(json);
	job_free(job);
	job_free(back);
}

/*
 * An A/B job of two definitions: each benchmark runs under its own kernel
 * only, in the alternating order of the rounds, also from stored JSON.
 */
static void
test_per_kernel(void **state)
{
	struct job *job = load_text(
	    "name: ab\nmachines: [m]\nrounds: 3\nkernels:\n"
	    "  - {name: good, image: /srv/k/good}\n"
	    "  - {name: suspect, image: /srv/k/suspect}\nbenchmarks:\n"
	    "  - {name: nap, kernel: good, command: [sleep, \"1\"], "
	    "parser: regex, parser_args: \"x=x ([0-9]+)\", "
	    "metrics: [{name: x, unit: s, direction: lower}]}\n"
	    "  - {name: nap, kernel: suspect, command: [sleep, \"3\"], "
	    "parser: regex, parser_args: \"x=x ([0-9]+)\", "
	    "metrics: [{name: x, unit: s, direction: lower}]}\n");
	const char *want[] = { "good 1", "suspect 3", "suspect 3", "good 1",
		"good 1", "suspect 3" };
	char	   *json = job_to_json(job), *cause = NULL, *got;
	struct job *back = job_from_json(json, &cause);
	struct plan plan;
	size_t	    i;

	(void)state;
	assert_non_null(back);
	assert_int_equal(plan_count_per_machine(back), 6);
	build(back, &plan);
	assert_int_equal(plan.n, 6);
	for (i = 0; i < plan.n; i++) {
		got = xasprintf("%s %s", plan.runs[i].kernel,
		    plan.runs[i].argv[1]);
		assert_string_equal(got, want[i]);
		free(got);
	}
	plan_free(&plan);
	free(json);
	job_free(job);
	job_free(back);
}

/* A benchmark's kernel must be one of the job's. */
static void
test_per_kernel_unknown(void **state)
{
	static const char text[] =
	    "name: ab\nmachines: [m]\nbenchmarks:\n"
	    "  - {name: nap, kernel: other, command: [sleep, \"1\"], "
	    "parser: regex, parser_args: \"x=x ([0-9]+)\", "
	    "metrics: [{name: x, unit: s, direction: lower}]}\n";
	char *cause = NULL;

	(void)state;
	assert_null(
	    job_load_string("ab.yaml", text, strlen(text), NULL, NULL, &cause));
	if (strstr(cause,
		"ab.yaml:4:25: kernel \"other\": not a kernel of "
		"the job") == NULL)
		fail_msg("%s", cause);
	free(cause);
}

/* A catalog benchmark not resolved against a catalog cannot be planned. */
static void
test_unresolved(void **state)
{
	struct job *job = load_text("name: u\nmachines: [m]\n"
				    "benchmarks: [{name: hackbench}]\n");
	struct plan plan;
	char	   *cause = NULL;

	assert_int_equal(plan_build(job, &plan, &cause), -1);
	assert_string_equal(cause,
	    "benchmark \"hackbench\": not resolved "
	    "against the catalog");
	assert_int_equal(plan.n, 0);
	free(cause);
	job_free(job);
}

/* A regex command with a required, an optional and a pattern metric. */
static const char declared_job[] =
    "name: d\nmachines: [m]\n"
    "benchmarks:\n"
    "  - name: took\n"
    "    command: [sh, -c, \"echo took=foo 1.5\"]\n"
    "    parser: regex\n"
    "    parser_args: |\n"
    "      took[s]=took=foo ([0-9.]+)\n"
    "      rss=rss ([0-9]+)\n"
    "%s"
    "    metrics:\n"
    "      - {name: took, unit: s, direction: lower}\n"
    "      - {name: rss, unit: KiB, direction: lower, optional: true}\n"
    "      - {name: \"lat_*\", unit: us, direction: lower}\n";

/* Loads the declared job with a parser_sample line (or none). */
static struct job *
load_declared(const char *sample)
{
	char	   *line, *text;
	struct job *job;

	line = sample != NULL ? xasprintf("    parser_sample: \"%s\"\n", sample)
			      : xstrdup("");
	text = xasprintf(declared_job, line);
	job = load_text(text);
	free(text);
	free(line);
	return job;
}

/* A run requires the declared metrics but optional ones and patterns. */
static void
test_required_metrics(void **state)
{
	struct job *job = load_declared(NULL), *back;
	struct plan plan;
	char	   *json, *cause = NULL;
	size_t	    i;

	build(job, &plan);
	assert_int_equal(plan.n, 1);
	assert_non_null(plan.runs[0].metrics);
	assert_string_equal(plan.runs[0].metrics[0], "took");
	assert_null(plan.runs[0].metrics[1]);
	plan_free(&plan);
	json = job_to_json(job);
	back = job_from_json(json, &cause);
	assert_non_null(back);
	build(back, &plan);
	assert_string_equal(plan.runs[0].metrics[0], "took");
	assert_null(plan.runs[0].metrics[1]);
	for (i = 0; i < back->benchmarks[0].nmetrics; i++)
		assert_int_equal(job_metric_required(
				     &back->benchmarks[0].metrics[i]),
		    i == 0);
	plan_free(&plan);
	free(json);
	job_free(back);
	job_free(job);
}

/* Why a parser finds no value: the regex line that defines the metric. */
static void
test_missing(void **state)
{
	char *s;

	s = plan_missing("hackbench", NULL, "time");
	assert_string_equal(s,
	    "declared metric \"time\": parser \"hackbench\" finds no value of "
	    "it");
	free(s);
	s = plan_missing("regex", "ab=x([0-9]+)\nb[ms]=y ([0-9]+)\n", "b");
	assert_string_equal(s,
	    "declared metric \"b\": parser \"regex\" (b[ms]=y ([0-9]+)) finds "
	    "no value of it");
	free(s);
	s = plan_missing("regex", "took=foo ([0-9.]+)", "took");
	assert_string_equal(s,
	    "declared metric \"took\": parser \"regex\" (took=foo ([0-9.]+)) "
	    "finds no value of it");
	free(s);
	s = plan_missing("regex", "a=x([0-9]+)", "c");
	assert_string_equal(s,
	    "declared metric \"c\": parser \"regex\" (no line \"c=REGEX\" in "
	    "parser_args) finds no value of it");
	free(s);
}

/* Returns plan_check_sample of the declared job with sample. */
static char *
check_declared(const char *sample)
{
	struct job *job = load_declared(sample);
	char	   *msg = plan_check_sample(&job->benchmarks[0]);

	job_free(job);
	return msg;
}

/* A parser_sample must yield every required metric. */
static void
test_check_sample(void **state)
{
	static const char kv[] =
	    "name: k\nmachines: [m]\n"
	    "benchmarks:\n"
	    "  - name: kv\n"
	    "    command: [x]\n"
	    "    parser: keyvalue\n"
	    "    parser_sample: \"%s\"\n"
	    "    metrics:\n"
	    "      - {name: a, unit: s, direction: lower%s}\n"
	    "      - {name: b, unit: s, direction: lower, optional: true}\n";
	struct job *job;
	char	   *msg, *text;

	assert_null(check_declared(NULL));
	assert_null(check_declared("took=foo 1.5"));
	msg = check_declared("took=bar 1.5");
	assert_string_equal(msg,
	    "benchmark \"took\": declared metric \"took\": parser \"regex\" "
	    "(took[s]=took=foo ([0-9.]+)) finds no value of it in "
	    "parser_sample \"took=bar 1.5\" (parser \"regex\": no metric: "
	    "first line not understood: \"took=bar 1.5\")");
	free(msg);
	text = xasprintf(kv, "b=1 c=2", "");
	job = load_text(text);
	msg = plan_check_sample(&job->benchmarks[0]);
	assert_string_equal(msg,
	    "benchmark \"kv\": declared metric \"a\": parser \"keyvalue\" "
	    "finds no value of it in parser_sample \"b=1 c=2\" (parser "
	    "\"keyvalue\": no metric: first line not understood: \"b=1 "
	    "c=2\")");
	free(msg);
	job_free(job);
	free(text);
	text = xasprintf(kv, "b=1", ", optional: true");
	job = load_text(text);
	assert_null(plan_check_sample(&job->benchmarks[0]));
	job_free(job);
	free(text);
	text = xasprintf(kv, "b: none", ", optional: true");
	job = load_text(text);
	msg = plan_check_sample(&job->benchmarks[0]);
	assert_string_equal(msg,
	    "benchmark \"kv\": parser_sample \"b: none\": parser \"keyvalue\": "
	    "no metric: first line not understood: \"b: none\"");
	free(msg);
	job_free(job);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alternate),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_cartesian),
		cmocka_unit_test(test_expand_arg),
		cmocka_unit_test(test_plan_from_json),
		cmocka_unit_test(test_per_kernel),
		cmocka_unit_test(test_per_kernel_unknown),
		cmocka_unit_test(test_unresolved),
		cmocka_unit_test(test_required_metrics),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_check_sample),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
