/*
 * The shipped benchmark catalog loads and expands; bad catalog files give
 * exact file:line:col errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "benchmarks/catalog.h"
#include "benchmarks/parse.h"
#include "common/xmalloc.h"

static char tmpdir[] = "/tmp/hilab-catalog-XXXXXX";

/* A well-formed file that the bad ones are variations of. */
#define GOOD_HEAD                                  \
	"name: x\n"                                \
	"command: [hackbench, -g, \"{groups}\"]\n" \
	"params:\n"                                \
	"  groups: {default: 2, axis: [1, 2]}\n"   \
	"install: {package: rt-tests}\n"           \
	"parser: hackbench\n"
#define GOOD_METRICS \
	"metrics:\n" \
	"  - {name: time, unit: s, direction: lower, statistic: amean}\n"

/* Loads the shipped catalog. */
static struct catalog *
shipped(void)
{
	const char     *src = getenv("HILAB_SRCDIR");
	struct catalog *cat;
	char	       *dir, *cause = NULL;

	assert_non_null(src);
	dir = xasprintf("%s/benchmarks", src);
	if ((cat = catalog_load(dir, &cause)) == NULL)
		fail_msg("%s", cause);
	free(dir);
	return (cat);
}

/* Every shipped file loads and has what a run needs. */
static void
test_shipped_loads(void **state)
{
	static const char *names[] = { "hackbench", "tbench", "schbench",
		"stream", "netperf", "unixbench", "kernbench", "sysbench-cpu",
		"stress-ng-cpu" };
	const struct catalog_benchmark *b;
	struct catalog		       *cat = shipped();
	char			      **argv, *cause = NULL;
	size_t				i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if ((b = catalog_find(cat, names[i])) == NULL)
			fail_msg("no benchmark \"%s\" in the catalog",
			    names[i]);
	}
	for (i = 0; i < cat->n; i++) {
		b = &cat->v[i];
		assert_non_null(parse_find(b->parser));
		assert_true(b->nmetrics > 0 && b->iterations > 0);
		assert_true(
		    b->install.package != NULL || b->install.source != NULL);
		if (catalog_expand_argv(b, NULL, 0, &argv, &cause) != 0)
			fail_msg("%s: %s", b->name, cause);
		assert_null(argv[b->ncommand]);
		catalog_argv_free(argv);
	}
	assert_null(catalog_find(cat, "no-such-benchmark"));
	catalog_free(cat);
}

/* The hackbench entry: mmtests' counts and axis, and its argv. */
static void
test_hackbench_argv(void **state)
{
	static const char *axis[] = { "1", "2", "4", "8", "16", "32", "64" };
	const struct catalog_setting	set[] = { { "groups", "16" },
		   { "mode", "--threads" } };
	const struct catalog_setting	bad[] = { { "group", "16" } };
	struct catalog		       *cat = shipped();
	const struct catalog_benchmark *b = catalog_find(cat, "hackbench");
	const struct catalog_param     *groups;
	char			      **argv, *cause = NULL;
	size_t				i;

	assert_non_null(b);
	assert_int_equal(b->iterations, 30);
	assert_string_equal(b->parser, "hackbench");
	assert_string_equal(b->metrics[0].name, "time");
	assert_int_equal(b->metrics[0].direction, CATALOG_LOWER);
	assert_int_equal(b->metrics[0].statistic, CATALOG_AMEAN);
	assert_non_null(groups = catalog_param_find(b, "groups"));
	assert_int_equal(groups->naxis, 7);
	for (i = 0; i < 7; i++)
		assert_string_equal(groups->axis[i], axis[i]);
	assert_int_equal(catalog_expand_argv(b, NULL, 0, &argv, &cause), 0);
	assert_string_equal(argv[0], "hackbench");
	assert_string_equal(argv[1], "--process");
	assert_string_equal(argv[2], "-g");
	assert_string_equal(argv[3], "4");
	assert_string_equal(argv[4], "-l");
	assert_string_equal(argv[5], "1000");
	assert_null(argv[6]);
	catalog_argv_free(argv);
	assert_int_equal(catalog_expand_argv(b, set, 2, &argv, &cause), 0);
	assert_string_equal(argv[1], "--threads");
	assert_string_equal(argv[3], "16");
	catalog_argv_free(argv);
	assert_int_equal(catalog_expand_argv(b, bad, 1, &argv, &cause), -1);
	assert_null(argv);
	assert_string_equal(cause,
	    "benchmark \"hackbench\": unknown param "
	    "\"group\"");
	free(cause);
	b = catalog_find(cat, "netperf");
	assert_non_null(b);
	assert_int_equal(b->iterations, 5);
	catalog_free(cat);
}

/* Writes name in the temporary folder. */
static char *
write_file(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return (path);
}

/* Loads text as one file and expects exactly the errors in want. */
static void
expect_bad(const char *text, const char *want)
{
	struct catalog *cat;
	char	       *path, *cause = NULL, *full;

	path = write_file("bad.yaml", text);
	cat = catalog_load_file(path, &cause);
	assert_null(cat);
	full = xasprintf(want, path, path, path, path);
	assert_string_equal(cause, full);
	free(full);
	free(cause);
	unlink(path);
	free(path);
}

/* Bad files: each error at its line and column. */
static void
test_bad_files(void **state)
{
	expect_bad(GOOD_HEAD GOOD_METRICS "cpus: 4\n",
	    "%s:9:1: unknown key \"cpus\"");
	expect_bad("name: x\n"
		   "command: [hackbench, -g, \"{group}\"]\n"
		   "params:\n"
		   "  groups: 2\n"
		   "install: rt-tests\n"
		   "parser: hackbench\n" GOOD_METRICS,
	    "%s:2:26: command: unknown placeholder \"{group}\"");
	expect_bad(GOOD_HEAD
	    "metrics:\n"
	    "  - {name: time, direction: up, statistic: mean}\n",
	    "%s:8:29: \"direction\": unknown value \"up\"\n"
	    "%s:8:44: \"statistic\": unknown value \"mean\"");
	expect_bad("name: x\n",
	    "%s:1:1: missing \"command\"\n"
	    "%s:1:1: missing \"install\"\n"
	    "%s:1:1: missing \"parser\"\n"
	    "%s:1:1: missing \"metrics\"");
	expect_bad(GOOD_HEAD GOOD_METRICS "iterations: many\n",
	    "%s:9:13: \"iterations\": \"many\" is not a whole number");
	expect_bad("name: x\ncommand: [a, b\n",
	    "%s:3:1: did not find "
	    "expected ',' or ']'");
	expect_bad("name: x\n"
		   "command: [hackbench, -g, \"{groups\"]\n"
		   "params: {groups: 1}\n"
		   "install: {package: rt-tests, source: x.tar.gz}\n"
		   "parser: nope\n" GOOD_METRICS,
	    "%s:4:10: install: give either \"package\" or \"source\"\n"
	    "%s:2:26: command: lone brace in \"{groups\" (write {{ or }} "
	    "for a brace)\n"
	    "%s:5:9: parser \"nope\": unknown parser");
	expect_bad("- just\n- a list\n",
	    "%s:1:1: \"benchmark\": expected a mapping");
}

/* A param with no default must be set; "{{" stays a brace. */
static void
test_missing_param(void **state)
{
	const struct catalog_setting set[] = { { "host", "127.0.0.1" } };
	struct catalog		    *cat;
	char			    *path, *first, *want, **argv, *cause = NULL;

	path = write_file("np.yaml",
	    "name: np\n"
	    "command: [netperf, -H, \"{host}\", \"-l{len}\", \"{{x}}\"]\n"
	    "params: {host: {axis: [a]}, len: {}}\n"
	    "install: {source: netperf.tar.gz, build: [./configure, make]}\n"
	    "parser: netperf\n"
	    "metrics: [{name: throughput, direction: higher}]\n");
	cat = catalog_load(tmpdir, &cause);
	if (cat == NULL)
		fail_msg("%s", cause);
	assert_int_equal(catalog_expand_argv(&cat->v[0], NULL, 0, &argv,
			     &cause),
	    -1);
	assert_string_equal(cause,
	    "benchmark \"np\": missing param "
	    "\"host\", \"len\"");
	free(cause);
	assert_int_equal(catalog_expand_argv(&cat->v[0], set, 1, &argv, &cause),
	    -1);
	assert_string_equal(cause, "benchmark \"np\": missing param \"len\"");
	free(cause);
	assert_int_equal(cat->v[0].install.nbuild, 2);
	assert_string_equal(cat->v[0].install.build[1], "make");
	catalog_free(cat);
	first = path;
	path = write_file("np2.yaml",
	    "name: np\n"
	    "command: [x]\ninstall: x\nparser: json\n"
	    "metrics: [{name: a, direction: lower}]\n");
	assert_null(catalog_load(tmpdir, &cause));
	want = xasprintf("%s:1:1: benchmark \"np\": already defined in %s",
	    path, first);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	unlink(path);
	unlink(first);
	free(path);
	free(first);
}

/* Makes and removes the temporary folder. */
static int
setup(void **state)
{
	return (mkdtemp(tmpdir) == NULL ? -1 : 0);
}

static int
teardown(void **state)
{
	char *cmd = xasprintf("rm -rf %s", tmpdir);
	int   rc = system(cmd);

	free(cmd);
	return (rc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_loads),
		cmocka_unit_test(test_hackbench_argv),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_missing_param),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
