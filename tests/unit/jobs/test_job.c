/*
 * Job files: golden normalized prints, exact error reports for bad files,
 * the JSON round trip and the shipped examples.
 */
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "jobs/job.h"

static char *srcdir;

/* Returns the contents of a file, or NULL. */
static char *
read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long  len;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = xmalloc(len + 1);
	buf[fread(buf, 1, len, f)] = '\0';
	fclose(f);
	return buf;
}

/* Returns job_print output as a string. */
static char *
print_job(const struct job *job)
{
	char  *buf = NULL;
	size_t len = 0;
	FILE  *f = open_memstream(&buf, &len);

	job_print(f, job);
	fclose(f);
	return buf;
}

/* Removes every "dir/" of the job file's directory from printed text. */
static void
strip_dir(char *out, const char *path)
{
	char   real[PATH_MAX], *copy = xstrdup(path), *prefix, *p;
	size_t len;

	if (realpath(dirname(copy), real) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	prefix = xasprintf("%s/", real);
	len = strlen(prefix);
	while ((p = strstr(out, prefix)) != NULL)
		memmove(p, p + len, strlen(p + len) + 1);
	free(prefix);
	free(copy);
}

/* Returns path with its ".yaml" replaced by ext. */
static char *
sibling(const char *path, const char *ext)
{
	return xasprintf("%.*s%s", (int)(strlen(path) - 5), path, ext);
}

/* Lists files matching pattern in the data directory (cwd). */
static size_t
list(const char *pattern, glob_t *g)
{
	memset(g, 0, sizeof *g);
	if (glob(pattern, 0, NULL, g) != 0)
		return 0;
	return g->gl_pathc;
}

/* Loads a file that must parse; fails the test with its errors if not. */
static struct job *
load_ok(const char *path)
{
	struct job *job;
	char	   *cause = NULL;

	job = job_load(path, NULL, NULL, &cause);
	if (job == NULL)
		fail_msg("%s: unexpected errors:\n%s", path, cause);
	return job;
}

/* Each good file prints exactly as its golden .out file. */
static void
test_good_golden(void **state)
{
	glob_t	    g;
	size_t	    i, n = list("good-*.yaml", &g);
	struct job *job;
	char	   *out, *want, *golden;

	assert_true(n >= 3);
	for (i = 0; i < n; i++) {
		job = load_ok(g.gl_pathv[i]);
		golden = sibling(g.gl_pathv[i], ".out");
		want = read_all(golden);
		if (want == NULL)
			fail_msg("%s: missing", golden);
		out = print_job(job);
		strip_dir(out, g.gl_pathv[i]);
		if (strcmp(out, want) != 0) {
			fprintf(stderr, "%s: printed\n%sexpected\n%s",
			    g.gl_pathv[i], out, want);
			fail();
		}
		free(out);
		free(want);
		free(golden);
		job_free(job);
	}
	globfree(&g);
}

/* The normalized print is itself a job file that prints the same. */
static void
test_print_reparses(void **state)
{
	glob_t	    g;
	size_t	    i, n = list("good-*.yaml", &g);
	struct job *job, *again;
	char	   *out, *out2, *cause = NULL;

	for (i = 0; i < n; i++) {
		job = load_ok(g.gl_pathv[i]);
		out = print_job(job);
		again = job_load_string("printed", out, strlen(out), NULL, NULL,
		    &cause);
		if (again == NULL)
			fail_msg("%s: print does not parse:\n%s\n%s",
			    g.gl_pathv[i], cause, out);
		out2 = print_job(again);
		assert_string_equal(out, out2);
		free(out);
		free(out2);
		job_free(job);
		job_free(again);
	}
	globfree(&g);
}

/* Each bad file fails with exactly the lines of its .err file. */
static void
test_bad_errors(void **state)
{
	glob_t	    g;
	size_t	    i, n = list("bad-*.yaml", &g);
	struct job *job;
	char	   *cause, *got, *want, *errfile;

	assert_true(n >= 8);
	for (i = 0; i < n; i++) {
		cause = NULL;
		job = job_load(g.gl_pathv[i], NULL, NULL, &cause);
		if (job != NULL)
			fail_msg("%s: parsed but must not", g.gl_pathv[i]);
		assert_non_null(cause);
		errfile = sibling(g.gl_pathv[i], ".err");
		if ((want = read_all(errfile)) == NULL)
			fail_msg("%s: missing", errfile);
		got = xasprintf("%s\n", cause);
		if (strcmp(got, want) != 0) {
			fprintf(stderr, "%s: got\n%sexpected\n%s",
			    g.gl_pathv[i], got, want);
			fail();
		}
		free(got);
		free(want);
		free(errfile);
		free(cause);
	}
	globfree(&g);
}

/* to_json -> from_json -> to_json is the identity, and prints agree. */
static void
check_round_trip(const struct job *job, const char *what)
{
	struct job *back;
	char	   *json, *json2, *p1, *p2, *cause = NULL;

	json = job_to_json(job);
	back = job_from_json(json, &cause);
	if (back == NULL)
		fail_msg("%s: from_json: %s\n%s", what, cause, json);
	json2 = job_to_json(back);
	assert_string_equal(json, json2);
	p1 = print_job(job);
	p2 = print_job(back);
	assert_string_equal(p1, p2);
	free(json);
	free(json2);
	free(p1);
	free(p2);
	job_free(back);
}

/* Every good file survives the JSON round trip. */
static void
test_json_round_trip(void **state)
{
	glob_t	    g;
	size_t	    i, n = list("good-*.yaml", &g);
	struct job *job;

	for (i = 0; i < n; i++) {
		job = load_ok(g.gl_pathv[i]);
		check_round_trip(job, g.gl_pathv[i]);
		job_free(job);
	}
	globfree(&g);
}

/*
 * Optional and pattern metrics and parser samples survive YAML -> job ->
 * JSON -> job; "optional" is stored only when set.
 */
static void
test_declared(void **state)
{
	struct job	  *job = load_ok("good-declared.yaml"), *back;
	struct job_metric *m;
	char		  *json, *cause = NULL;

	json = job_to_json(job);
	assert_non_null(strstr(json,
	    "{\"name\":\"rss\",\"unit\":\"KiB\",\"direction\":\"lower\","
	    "\"statistic\":\"amean\",\"optional\":true}"));
	assert_non_null(strstr(json,
	    "{\"name\":\"lat_p*\",\"unit\":\"usec\",\"direction\":\"lower\","
	    "\"statistic\":\"median\"}"));
	assert_non_null(strstr(json, "\"parser_sample\":\"took=1.5\""));
	assert_null(strstr(strstr(json, "\"optional\"") + 1, "\"optional\""));
	back = job_from_json(json, &cause);
	if (back == NULL)
		fail_msg("%s", cause);
	m = back->benchmarks[0].metrics;
	assert_false(m[0].optional);
	assert_true(m[1].optional);
	assert_false(m[2].optional);
	assert_string_equal(m[2].name, "lat_p*");
	assert_true(job_metric_required(&m[0]));
	assert_false(job_metric_required(&m[1]));
	assert_false(job_metric_required(&m[2]));
	assert_false(back->benchmarks[1].metrics[0].optional);
	assert_string_equal(back->benchmarks[0].parser_sample, "took=1.5");
	assert_string_equal(back->benchmarks[1].parser_sample, "0.01");
	free(json);
	job_free(back);
	job_free(job);
}

/* The minimal file gets every default; the JSON states them. */
static void
test_defaults(void **state)
{
	struct job *job = load_ok("good-minimal.yaml");
	char	   *json = job_to_json(job);

	assert_int_equal(job->nkernels, 1);
	assert_int_equal(job->kernels[0].kind, JOB_KERNEL_RUNNING);
	assert_string_equal(job->kernels[0].name, "running");
	assert_int_equal(job->rounds, 1);
	assert_int_equal(job->order, JOB_ORDER_ALTERNATE);
	assert_null(job->cmdline);
	assert_non_null(strstr(json, "\"rounds\":1,\"order\":\"alternate\""));
	assert_non_null(strstr(json,
	    "\"kernels\":[{\"name\":\"running\","
	    "\"kind\":\"running\"}]"));
	free(json);
	job_free(job);
	job = load_ok("good-custom.yaml");
	assert_int_equal(job->benchmarks[0].iterations, JOB_DEFAULT_ITERATIONS);
	assert_int_equal(job->benchmarks[0].warmups, JOB_DEFAULT_WARMUPS);
	assert_int_equal(job->benchmarks[0].timeout_ms, JOB_DEFAULT_TIMEOUT_MS);
	assert_string_equal(job->benchmarks[0].metrics[0].statistic, "amean");
	job_free(job);
}

/* Parameters are sorted by key; sweeps keep the order given. */
static void
test_params_sorted(void **state)
{
	struct job	     *job = load_ok("good-full.yaml");
	struct job_benchmark *b = &job->benchmarks[0];

	assert_int_equal(b->nparams, 3);
	assert_string_equal(b->params[0].key, "groups");
	assert_string_equal(b->params[1].key, "loops");
	assert_string_equal(b->params[2].key, "mode");
	assert_int_equal(b->params[0].nvalues, 3);
	assert_string_equal(b->params[0].values[2], "4");
	assert_int_equal(b->timeout_ms, 90000);
	assert_int_equal(job->benchmarks[1].timeout_ms, 120000);
	assert_int_equal(job->seed, 12345);
	job_free(job);
}

/* A kernel's command line is its own plus the job's. */
static void
test_kernel_cmdline(void **state)
{
	struct job *job = load_ok("good-full.yaml");
	char	   *s;

	s = job_kernel_cmdline(job, job_find_kernel(job, "patch 1+2"));
	assert_string_equal(s, "rt_group_sched=0 mitigations=off quiet");
	free(s);
	s = job_kernel_cmdline(job, job_find_kernel(job, "base"));
	assert_string_equal(s, "mitigations=off quiet");
	free(s);
	assert_int_equal(job_find_kernel(job, "patch 1+2")->kind,
	    JOB_KERNEL_BUILD);
	assert_int_equal(job_find_kernel(job, "running")->kind,
	    JOB_KERNEL_RUNNING);
	assert_null(job_find_kernel(job, "patch 1"));
	job_free(job);
}

/* A random order without a seed gets one, which the JSON keeps. */
static void
test_random_seed_kept(void **state)
{
	static const char text[] =
	    "name: r\nmachines: [a]\n"
	    "order: random\nbenchmarks:\n  - name: x\n    command: [x]\n"
	    "    parser: json\n    metrics: [{name: v, unit: s, "
	    "direction: lower}]\n";
	struct job *job, *back;
	char	   *json, *cause = NULL;

	job = job_load_string("r.yaml", text, strlen(text), NULL, NULL, &cause);
	assert_non_null(job);
	json = job_to_json(job);
	back = job_from_json(json, &cause);
	assert_non_null(back);
	assert_int_equal(back->seed, job->seed);
	assert_int_equal(back->order, JOB_ORDER_RANDOM);
	free(json);
	job_free(job);
	job_free(back);
}

/* Broken or foreign JSON is refused with a reason, never half-read. */
static void
test_json_rejects(void **state)
{
	static const char *bad[] = { "not json", "{}", "[1, 2]",
		"{\"format\":2,\"name\":\"x\",\"machines\":[\"a\"],"
		"\"kernels\":[{\"name\":\"running\",\"kind\":\"running\"}],"
		"\"rounds\":1,\"order\":\"fixed\",\"seed\":0,"
		"\"benchmarks\":[{\"name\":\"b\",\"custom\":false,"
		"\"params\":{}}]}",
		"{\"format\":1,\"name\":\"x\",\"machines\":[],"
		"\"kernels\":[{\"name\":\"running\",\"kind\":\"running\"}],"
		"\"rounds\":1,\"order\":\"fixed\",\"seed\":0,"
		"\"benchmarks\":[{\"name\":\"b\",\"custom\":false,"
		"\"params\":{}}]}",
		"{\"format\":1,\"name\":\"x\",\"machines\":[\"a\"],"
		"\"kernels\":[{\"name\":\"running\",\"kind\":\"running\"}],"
		"\"rounds\":1,\"order\":\"sideways\",\"seed\":0,"
		"\"benchmarks\":[{\"name\":\"b\",\"custom\":false,"
		"\"params\":{}}]}",
		"{\"format\":1,\"name\":\"x\",\"machines\":[\"a\"],"
		"\"kernels\":[{\"name\":\"running\",\"kind\":\"running\"}],"
		"\"rounds\":1,\"order\":\"fixed\",\"seed\":0,\"extra\":1,"
		"\"benchmarks\":[{\"name\":\"b\",\"custom\":false,"
		"\"params\":{}}]}",
		"{\"format\":1,\"name\":\"x\",\"machines\":[\"a\"],"
		"\"kernels\":[{\"name\":\"running\",\"kind\":\"running\"}],"
		"\"rounds\":1,\"order\":\"fixed\",\"seed\":0,"
		"\"benchmarks\":[{\"name\":\"b\",\"custom\":true,"
		"\"params\":{},\"command\":[\"x\"]}]}",
		"{\"format\":1,\"name\":\"x\",\"machines\":[\"a\"],"
		"\"kernels\":[{\"name\":\"running\",\"kind\":\"running\"}],"
		"\"rounds\":1,\"order\":\"fixed\",\"seed\":0,"
		"\"setup\":{\"turbo\":\"off\"},"
		"\"benchmarks\":[{\"name\":\"b\",\"custom\":false,"
		"\"params\":{}}]}",
		NULL };
	static const char  good[] =
	    "{\"format\":1,\"name\":\"x\","
	    "\"machines\":[\"a\"],\"kernels\":[{\"name\":\"running\","
	    "\"kind\":\"running\"}],\"rounds\":1,\"order\":\"fixed\","
	    "\"seed\":0,\"benchmarks\":[{\"name\":\"b\",\"custom\":false,"
	    "\"params\":{}}]}";
	struct job *job;
	char	   *cause;
	size_t	    i;

	for (i = 0; bad[i] != NULL; i++) {
		cause = NULL;
		job = job_from_json(bad[i], &cause);
		if (job != NULL)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(cause);
		assert_int_equal(strncmp(cause, "job json: ", 10), 0);
		free(cause);
	}
	job = job_from_json(good, &cause);
	assert_non_null(job);
	assert_false(job->benchmarks[0].resolved);
	job_free(job);
}

/* The timeout of a benchmark with timeout text t, or -1 if refused. */
static long
timeout_of(const char *t)
{
	struct job *job;
	char	   *text, *cause = NULL;
	long	    ms = -1;

	text = xasprintf("name: d\nmachines: [m]\nbenchmarks:\n"
			 "  - name: x\n    timeout: \"%s\"\n",
	    t);
	if ((job = job_load_string("d.yaml", text, strlen(text), NULL, NULL,
		 &cause)) != NULL)
		ms = job->benchmarks[0].timeout_ms;
	free(cause);
	free(text);
	job_free(job);
	return ms;
}

/* Timeouts read as every duration does (units.h), from 1ms to 7 days. */
static void
test_duration(void **state)
{
	assert_int_equal(timeout_of("30"), 30000);
	assert_int_equal(timeout_of("30s"), 30000);
	assert_int_equal(timeout_of("250ms"), 250);
	assert_int_equal(timeout_of("5m"), 300000);
	assert_int_equal(timeout_of("2h"), 7200000);
	assert_int_equal(timeout_of("1h30m"), 5400000);
	assert_int_equal(timeout_of("7d"), 7L * 86400000);
	assert_int_equal(timeout_of("0s"), -1);
	assert_int_equal(timeout_of("-5s"), -1);
	assert_int_equal(timeout_of("5 s"), -1);
	assert_int_equal(timeout_of("5x"), -1);
	assert_int_equal(timeout_of(""), -1);
	assert_int_equal(timeout_of("169h"), -1);
}

/* The shipped examples parse (without inventory) and round-trip. */
static void
test_examples(void **state)
{
	glob_t	    g;
	char	   *pattern;
	size_t	    i, n;
	struct job *job;
	char	   *cause = NULL;

	pattern = xasprintf("%s/examples/jobs/*.yaml", srcdir);
	n = list(pattern, &g);
	assert_true(n >= 4);
	for (i = 0; i < n; i++) {
		job = job_load(g.gl_pathv[i], NULL, NULL, &cause);
		if (job == NULL)
			fail_msg("%s", cause);
		check_round_trip(job, g.gl_pathv[i]);
		job_free(job);
	}
	globfree(&g);
	free(pattern);
}

/* A missing file is an error naming it. */
static void
test_missing_file(void **state)
{
	char *cause = NULL;

	assert_null(job_load("no-such-job.yaml", NULL, NULL, &cause));
	assert_string_equal(cause,
	    "cannot open \"no-such-job.yaml\": no such file or directory");
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_golden),
		cmocka_unit_test(test_print_reparses),
		cmocka_unit_test(test_bad_errors),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_declared),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_params_sorted),
		cmocka_unit_test(test_kernel_cmdline),
		cmocka_unit_test(test_random_seed_kept),
		cmocka_unit_test(test_json_rejects),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_examples),
		cmocka_unit_test(test_missing_file),
	};
	char *data;

	if ((srcdir = getenv("HILAB_SRCDIR")) == NULL) {
		fprintf(stderr, "HILAB_SRCDIR is not set\n");
		return 1;
	}
	data = xasprintf("%s/tests/unit/jobs/data", srcdir);
	if (chdir(data) == -1) {
		perror(data);
		return 1;
	}
	free(data);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
