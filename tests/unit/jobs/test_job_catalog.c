/*
 * Jobs against the real benchmark catalog (benchmarks) and the example
 * inventory (examples/machines): resolution, errors that need them, and a
 * stored job that no longer needs the catalog.
 */
#include <glob.h>
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
#include "machines/inventory.h"

static char	      *srcdir;
static struct catalog *catalog;

/* Loads text with the catalog; the job must parse. */
static struct job *
load_text(const char *text, const struct inventory *inv)
{
	struct job *job;
	char	   *cause = NULL;

	job = job_load_string("test.yaml", text, strlen(text), catalog, inv,
	    &cause);
	if (job == NULL)
		fail_msg("%s", cause);
	return job;
}

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

/* The demo resolves: catalog command, parser, metrics, defaults added. */
static void
test_resolve_demo(void **state)
{
	const struct catalog_benchmark *cb = catalog_find(catalog, "hackbench");
	char			       *path, *cause = NULL;
	struct job		       *job;
	struct job_benchmark	       *b;
	size_t				i;

	path = xasprintf("%s/examples/jobs/hackbench-demo.yaml", srcdir);
	job = job_load(path, catalog, NULL, &cause);
	if (job == NULL)
		fail_msg("%s", cause);
	b = &job->benchmarks[0];
	assert_non_null(cb);
	assert_true(b->resolved);
	for (i = 0; i < cb->ncommand; i++)
		assert_string_equal(b->argv[i], cb->command[i]);
	assert_null(b->argv[i]);
	assert_string_equal(b->parser, cb->parser);
	assert_int_equal(b->nmetrics, cb->nmetrics);
	assert_string_equal(b->metrics[0].name, cb->metrics[0].name);
	assert_int_equal(b->iterations, 3);
	assert_int_equal(b->warmups, 1);
	assert_int_equal(b->timeout_ms, 60000);
	assert_int_equal(b->nparams, cb->nparams);
	for (i = 0; i < b->nparams; i++)
		if (strcmp(b->params[i].key, "groups") != 0 &&
		    strcmp(b->params[i].key, "loops") != 0)
			assert_string_equal(b->params[i].values[0],
			    catalog_param_find(cb, b->params[i].key)->def);
	free(path);
	job_free(job);
}

/* Defaults the job leaves out come from the catalog entry. */
static void
test_catalog_defaults(void **state)
{
	const struct catalog_benchmark *cb;
	struct job		       *job;

	cb = catalog_find(catalog, "tbench");
	assert_non_null(cb);
	job = load_text("name: t\nmachines: [m]\n"
			"benchmarks: [{name: tbench}]\n",
	    NULL);
	assert_int_equal(job->benchmarks[0].iterations, (int)cb->iterations);
	assert_int_equal(job->benchmarks[0].warmups, (int)cb->warmups);
	assert_int_equal(job->benchmarks[0].timeout_ms,
	    (long)cb->timeout * 1000);
	job_free(job);
}

/* The planner expands templates exactly as catalog_expand_argv does. */
static void
test_expand_matches_catalog(void **state)
{
	struct catalog_setting *set;
	struct plan		plan;
	struct job	       *job;
	char		       *text, **argv, *cause = NULL;
	size_t			i, j, a, planned = 0;

	for (i = 0; i < catalog->n; i++) {
		text = xasprintf("name: t\nmachines: [m]\nbenchmarks:\n"
				 "  - name: %s\n",
		    catalog->v[i].name);
		job = job_load_string("t.yaml", text, strlen(text), catalog,
		    NULL, &cause);
		free(text);
		if (job == NULL) { /* a param without a default */
			free(cause);
			cause = NULL;
			continue;
		}
		assert_int_equal(plan_build(job, &plan, &cause), 0);
		set = xcalloc(job->benchmarks[0].nparams + 1, sizeof *set);
		for (j = 0; j < job->benchmarks[0].nparams; j++) {
			set[j].name = job->benchmarks[0].params[j].key;
			set[j].value = job->benchmarks[0].params[j].values[0];
		}
		assert_int_equal(catalog_expand_argv(&catalog->v[i], set, j,
				     &argv, &cause),
		    0);
		for (a = 0; argv[a] != NULL; a++)
			assert_string_equal(plan.runs[0].argv[a], argv[a]);
		assert_null(plan.runs[0].argv[a]);
		catalog_argv_free(argv);
		free(set);
		plan_free(&plan);
		job_free(job);
		planned++;
	}
	assert_true(planned >= 3);
}

/* A stored job plans the same after the catalog is gone. */
static void
test_stored_job_needs_no_catalog(void **state)
{
	struct job *job, *back;
	struct plan p1, p2;
	char	   *json, *path, *cause = NULL;
	size_t	    i;

	path = xasprintf("%s/examples/jobs/seed3-hackbench-epyc.yaml", srcdir);
	job = job_load(path, catalog, NULL, &cause);
	assert_non_null(job);
	json = job_to_json(job);
	back = job_from_json(json, &cause);
	assert_non_null(back);
	assert_int_equal(plan_build(job, &p1, &cause), 0);
	assert_int_equal(plan_build(back, &p2, &cause), 0);
	assert_int_equal(p1.n, 4 * 3 * 5);
	assert_int_equal(p1.n, p2.n);
	for (i = 0; i < p1.n; i++) {
		assert_string_equal(p1.runs[i].params, p2.runs[i].params);
		assert_string_equal(p1.runs[i].argv[3], p2.runs[i].argv[3]);
	}
	plan_free(&p1);
	plan_free(&p2);
	free(json);
	free(path);
	job_free(job);
	job_free(back);
}

/* Every example parses with the catalog and round-trips. */
static void
test_examples_with_catalog(void **state)
{
	glob_t	    g;
	char	   *pattern, *json, *json2, *cause = NULL;
	struct job *job, *back;
	size_t	    i;

	pattern = xasprintf("%s/examples/jobs/*.yaml", srcdir);
	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++) {
		job = job_load(g.gl_pathv[i], catalog, NULL, &cause);
		if (job == NULL)
			fail_msg("%s", cause);
		json = job_to_json(job);
		back = job_from_json(json, &cause);
		assert_non_null(back);
		json2 = job_to_json(back);
		assert_string_equal(json, json2);
		free(json);
		free(json2);
		job_free(job);
		job_free(back);
	}
	globfree(&g);
	free(pattern);
}

/* Files matching pattern fail with the exact lines of their .err files. */
static void
check_errors(const char *pattern, const struct inventory *inv)
{
	glob_t g;
	char  *cause, *want, *got, *err;
	size_t i;

	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++) {
		cause = NULL;
		assert_null(job_load(g.gl_pathv[i], catalog, inv, &cause));
		err = xasprintf("%.*s.err", (int)strlen(g.gl_pathv[i]) - 5,
		    g.gl_pathv[i]);
		if ((want = read_all(err)) == NULL)
			fail_msg("%s: missing", err);
		got = xasprintf("%s\n", cause);
		assert_string_equal(got, want);
		free(got);
		free(want);
		free(err);
		free(cause);
	}
	globfree(&g);
}

/*
 * Files needing the catalog fail with their exact error lines: unknown
 * benchmarks (with the closest name) and parameters, values not of their
 * parameter's type.
 */
static void
test_catalog_errors(void **state)
{
	check_errors("catalog-bad-*.yaml", NULL);
}

/*
 * A benchmark no catalog name is close to: the error lists the catalog;
 * one that is close names it.
 */
static void
test_unknown_lists_catalog(void **state)
{
	static const char far[] = "name: u\nmachines: [m]\n"
				  "benchmarks: [{name: zzzz}]\n";
	static const char near[] = "name: u\nmachines: [m]\n"
				   "benchmarks: [{name: sysbench}]\n";
	char		 *cause = NULL, *names = catalog_names(catalog), *want;

	assert_null(
	    job_load_string("u.yaml", far, strlen(far), catalog, NULL, &cause));
	want = xasprintf("u.yaml:3:15: unknown benchmark \"zzzz\"; the "
			 "catalog has: %s",
	    names);
	assert_string_equal(cause, want);
	assert_non_null(strstr(names, "hackbench, "));
	free(cause);
	assert_null(job_load_string("u.yaml", near, strlen(near), catalog, NULL,
	    &cause));
	assert_string_equal(cause,
	    "u.yaml:3:15: unknown benchmark \"sysbench\" (did you mean "
	    "\"sysbench-cpu\"?)");
	free(cause);
	free(want);
	free(names);
}

/* Every job file pattern matches loads against inv. */
static void
load_each(const char *pattern, const struct inventory *inv)
{
	struct job *job;
	glob_t	    g;
	char	   *cause = NULL;
	size_t	    i;

	assert_int_equal(glob(pattern, 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++) {
		if ((job = job_load(g.gl_pathv[i], catalog, inv, &cause)) ==
		    NULL)
			fail_msg("%s", cause);
		job_free(job);
	}
	globfree(&g);
}

/*
 * Against the machines of data/inventory: a kernel to boot is refused on
 * each ssh machine without "boot" (inventory-bad-*.yaml, with the exact
 * errors in their .err files); inventory-good-*.yaml load.
 */
static void
test_inventory_boot(void **state)
{
	struct inventory *inv;
	char		 *cause = NULL;

	if ((inv = inventory_load("inventory", &cause)) == NULL)
		fail_msg("inventory: %s", cause);
	check_errors("inventory-bad-*.yaml", inv);
	load_each("inventory-good-*.yaml", inv);
	inventory_free(inv);
}

/*
 * The seeds' example jobs against the example inventory: each of their
 * machines can boot their kernels; altra-80c without its "boot" cannot.
 */
static void
test_examples_boot(const struct inventory *inv, const char *dir)
{
	struct machine *altra = inventory_find(inv, "altra-80c");
	char	       *path, *want, *cause = NULL;

	path = xasprintf("%s/examples/jobs/seed*.yaml", srcdir);
	load_each(path, inv);
	free(path);
	assert_non_null(altra);
	altra->boot.method = MACHINE_BOOT_NONE;
	path = xasprintf("%s/examples/jobs/seed2-altra.yaml", srcdir);
	assert_null(job_load(path, catalog, inv, &cause));
	altra->boot.method = MACHINE_BOOT_GRUB;
	want = xasprintf("%s:6:12: machine \"altra-80c\" cannot boot kernel "
			 "\"mainline\": %s/altra-80c.yaml has no \"boot\" "
			 "section, so it runs only its own kernel",
	    path, dir);
	assert_string_equal(cause, want);
	free(cause);
	free(want);
	free(path);
}

/* Machine names are checked against the example inventory. */
static void
test_inventory(void **state)
{
	static const char bad[] = "name: i\nmachines: [vm32, vm33]\n"
				  "benchmarks: [{name: hackbench}]\n";
	struct inventory *inv;
	struct job	 *job;
	char		 *dir, *path, *cause = NULL;

	dir = xasprintf("%s/examples/machines", srcdir);
	if ((inv = inventory_load(dir, &cause)) == NULL)
		fail_msg("example inventory: %s", cause);
	path = xasprintf("%s/examples/jobs/seed0-hotplug.yaml", srcdir);
	job = job_load(path, catalog, inv, &cause);
	if (job == NULL)
		fail_msg("%s", cause);
	job_free(job);
	assert_null(job_load_string("inv.yaml", bad, strlen(bad), catalog, inv,
	    &cause));
	assert_string_equal(cause,
	    "inv.yaml:2:18: unknown machine \"vm33\" "
	    "(did you mean \"vm32\"?)");
	free(cause);
	test_examples_boot(inv, dir);
	free(path);
	free(dir);
	inventory_free(inv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_demo),
		cmocka_unit_test(test_catalog_defaults),
		cmocka_unit_test(test_expand_matches_catalog),
		cmocka_unit_test(test_stored_job_needs_no_catalog),
		cmocka_unit_test(test_examples_with_catalog),
		cmocka_unit_test(test_catalog_errors),
		cmocka_unit_test(test_unknown_lists_catalog),
		cmocka_unit_test(test_inventory_boot),
		cmocka_unit_test(test_inventory),
	};
	char *dir, *cause = NULL;
	int   rc;

	if ((srcdir = getenv("HILAB_SRCDIR")) == NULL) {
		fprintf(stderr, "HILAB_SRCDIR is not set\n");
		return 1;
	}
	dir = xasprintf("%s/benchmarks", srcdir);
	if ((catalog = catalog_load(dir, &cause)) == NULL) {
		fprintf(stderr, "catalog %s: %s\n", dir, cause);
		return 1;
	}
	free(dir);
	dir = xasprintf("%s/tests/unit/jobs/data", srcdir);
	if (chdir(dir) == -1) {
		perror(dir);
		return 1;
	}
	free(dir);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	catalog_free(catalog);
	return rc;
}
