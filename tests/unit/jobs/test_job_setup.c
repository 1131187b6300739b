/*
 * What a benchmark needs on its host, from the catalog to the stored job:
 * how its tool is installed and prepared and the server it needs, parsed,
 * checked, carried by a resolved job through its JSON and printed.
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

static char	      *srcdir;
static struct catalog *catalog;

/* Loads job text against the real catalog; it must parse. */
static struct job *
load_text(const char *text)
{
	struct job *job;
	char	   *cause = NULL;

	job = job_load_string("test.yaml", text, strlen(text), catalog, NULL,
	    &cause);
	if (job == NULL)
		fail_msg("%s", cause);
	return job;
}

/* Writes text to a temporary catalog file and loads it; returns errors. */
static char *
load_catalog_text(const char *text, struct catalog **out)
{
	char path[] = "/tmp/test-job-setup-XXXXXX.yaml", *cause = NULL;
	int  fd = mkstemps(path, 5);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	*out = catalog_load_file(path, &cause);
	unlink(path);
	return cause;
}

/* The catalog's tbench needs tbench_srv on port 7003; schbench a build. */
static void
test_catalog_entries(void **state)
{
	const struct catalog_benchmark *b;

	(void)state;
	b = catalog_find(catalog, "tbench");
	assert_non_null(b);
	assert_string_equal(b->install.package, "dbench");
	assert_int_equal(b->server.ncommand, 1);
	assert_string_equal(b->server.command[0], "tbench_srv");
	assert_null(b->server.command[1]);
	assert_int_equal(b->server.port, 7003);
	b = catalog_find(catalog, "schbench");
	assert_non_null(b);
	assert_null(b->install.package);
	assert_string_equal(b->install.source, "schbench-24e32b8ef67c.tar.gz");
	assert_string_equal(b->install.build[0], "make");
	assert_null(b->server.command);
	assert_int_equal(b->server.port, 0);
}

static const char catalog_head[] =
    "name: srv\ncommand: [client, \"{n}\"]\nparams:\n  n: {default: 1}\n"
    "install: {package: srv}\nparser: keyvalue\n"
    "metrics: [{name: x, unit: s, direction: lower}]\n";

/* A server as a plain argv list, with a parameter in it. */
static void
test_server_list(void **state)
{
	struct catalog *cat = NULL;
	char	       *text, *cause;

	(void)state;
	text = xasprintf("%sserver: [srv, -n, \"{n}\"]\n", catalog_head);
	cause = load_catalog_text(text, &cat);
	if (cause != NULL)
		fail_msg("%s", cause);
	assert_int_equal(cat->v[0].server.ncommand, 3);
	assert_string_equal(cat->v[0].server.command[2], "{n}");
	assert_int_equal(cat->v[0].server.port, 0);
	catalog_free(cat);
	free(text);
}

/* Bad server entries: each error at its line and column. */
static void
test_server_errors(void **state)
{
	static const struct {
		const char *server;
		const char *error;
	} cases[] = {
		{ "server: {command: [srv, \"{m}\"]}\n",
		    ":8:25: command: unknown placeholder \"{m}\"" },
		{ "server: {command: [srv], port: 70000}\n",
		    ":8:32: \"port\" must be a number from 0 to 65535, not "
		    "\"70000\"" },
		{ "server: {command: [srv], wait: 1}\n",
		    ":8:26: unknown key \"wait\"" },
		{ "server: {port: 80}\n",
		    ":8:9: missing required key \"command\" in \"server\"" },
		{ "server: srv\n",
		    ":8:9: \"server\" must be a list of arguments or a mapping, "
		    "not \"srv\"" },
	};
	struct catalog *cat = NULL;
	char	       *text, *cause;
	size_t		i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		text = xasprintf("%s%s", catalog_head, cases[i].server);
		cause = load_catalog_text(text, &cat);
		assert_null(cat);
		if (cause == NULL || strstr(cause, cases[i].error) == NULL)
			fail_msg("%s: expected \"%s\" in \"%s\"",
			    cases[i].server, cases[i].error, cause);
		free(cause);
		free(text);
	}
}

static const char tbench_job[] =
    "name: t\nmachines: [m]\nbenchmarks:\n"
    "  - name: tbench\n    params: {clients: [1, 2], duration: 3}\n"
    "  - name: schbench\n";

/* A resolved job carries install and server through its JSON. */
static void
test_job_json_round_trip(void **state)
{
	struct job		   *job = load_text(tbench_job), *back;
	const struct job_benchmark *b;
	char			   *json, *again, *cause = NULL;

	(void)state;
	b = &job->benchmarks[0];
	assert_string_equal(b->install.package, "dbench");
	assert_null(b->install.source);
	assert_string_equal(b->server.argv[0], "tbench_srv");
	assert_int_equal(b->server.port, 7003);
	json = job_to_json(job);
	assert_non_null(strstr(json, "\"install\":{\"package\":\"dbench\"}"));
	assert_non_null(strstr(json,
	    "\"server\":{\"command\":"
	    "[\"tbench_srv\"],\"port\":7003}"));
	back = job_from_json(json, &cause);
	if (back == NULL)
		fail_msg("%s", cause);
	b = &back->benchmarks[1];
	assert_string_equal(b->install.source, "schbench-24e32b8ef67c.tar.gz");
	assert_string_equal(b->install.build[0], "make");
	assert_null(b->install.build[1]);
	assert_null(b->server.argv);
	again = job_to_json(back);
	assert_string_equal(json, again);
	free(again);
	free(json);
	job_free(back);
	job_free(job);
}

static const char stream_job[] =
    "name: s\nmachines: [m]\nbenchmarks:\n"
    "  - name: stream\n    params: {ntimes: [10, 100]}\n";

/* A resolved job carries the install's prepare command through its JSON. */
static void
test_job_json_prepare(void **state)
{
	struct job		   *job = load_text(stream_job), *back;
	const struct job_benchmark *b;
	char			   *json, *again, *cause = NULL;

	(void)state;
	json = job_to_json(job);
	assert_non_null(strstr(json,
	    "\"prepare\":[\"./stream\",\"--build\",\"{ntimes}\","
	    "\"{array_size}\"]"));
	back = job_from_json(json, &cause);
	if (back == NULL)
		fail_msg("%s", cause);
	b = &back->benchmarks[0];
	assert_string_equal(b->install.source, "stream-6703f7504a38.tar.gz");
	assert_string_equal(b->install.prepare[0], "./stream");
	assert_string_equal(b->install.prepare[3], "{array_size}");
	assert_null(b->install.prepare[4]);
	again = job_to_json(back);
	assert_string_equal(json, again);
	free(again);
	free(json);
	job_free(back);
	job_free(job);
}

/* A stored job with a bad server or install is refused. */
static void
test_job_json_bad(void **state)
{
	static const char *bad[] = {
		"\"server\":{\"command\":[\"s\"],\"port\":-1}",
		"\"server\":{\"command\":[]}",
		"\"server\":{\"port\":1}",
		"\"install\":{\"package\":\"p\",\"build\":\"make\"}",
		"\"install\":{\"package\":\"p\",\"url\":\"x\"}",
		"\"install\":{\"source\":\"s\",\"prepare\":\"./s\"}",
		"\"install\":{\"source\":\"s\",\"prepare\":[]}",
		"\"install\":{\"source\":\"s\",\"prepare\":[1]}",
	};
	static const char install[] = "\"install\":{\"package\":\"dbench\"}";
	struct job	 *job = load_text(tbench_job), *back;
	char		 *json, *bad_json, *at, *cause = NULL;
	size_t		  i;

	(void)state;
	json = job_to_json(job);
	at = strstr(json, install);
	assert_non_null(at);
	back = job_from_json(json, &cause);
	assert_non_null(back);
	job_free(back);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		/* Each replaces tbench's install object. */
		bad_json = xasprintf("%.*s%s%s", (int)(at - json), json, bad[i],
		    at + strlen(install));
		back = job_from_json(bad_json, &cause);
		if (back != NULL)
			fail_msg("accepted %s", bad[i]);
		free(cause);
		cause = NULL;
		free(bad_json);
	}
	free(json);
	job_free(job);
}

/* The printed job shows both, as comments of the catalog's part. */
static void
test_job_print(void **state)
{
	struct job *job = load_text(tbench_job);
	char	   *buf = NULL;
	size_t	    len = 0;
	FILE	   *f = open_memstream(&buf, &len);

	(void)state;
	job_print(f, job);
	fclose(f);
	assert_non_null(strstr(buf,
	    "  # install: {package: dbench}\n"
	    "  # server: {command: [tbench_srv], port: 7003}\n"));
	assert_non_null(strstr(buf,
	    "  # install: {source: "
	    "schbench-24e32b8ef67c.tar.gz, build: [make]}\n"));
	free(buf);
	job_free(job);
	job = load_text(stream_job);
	buf = NULL;
	f = open_memstream(&buf, &len);
	job_print(f, job);
	fclose(f);
	assert_non_null(strstr(buf,
	    ", prepare: [./stream, --build, \"{ntimes}\", "
	    "\"{array_size}\"]}\n"));
	free(buf);
	job_free(job);
}

/* A custom command has neither. */
static void
test_custom_has_none(void **state)
{
	struct job *job;

	(void)state;
	job =
	    load_text("name: c\nmachines: [m]\nbenchmarks:\n"
		      "  - name: c\n    command: [true]\n    parser: keyvalue\n"
		      "    metrics: [{name: x, unit: s, direction: lower}]\n");
	assert_null(job->benchmarks[0].install.package);
	assert_null(job->benchmarks[0].install.source);
	assert_null(job->benchmarks[0].server.argv);
	job_free(job);
}

static int
setup(void **state)
{
	char *dir, *cause = NULL;

	(void)state;
	srcdir = getenv("HILAB_SRCDIR");
	if (srcdir == NULL)
		fail_msg("HILAB_SRCDIR not set");
	dir = xasprintf("%s/benchmarks", srcdir);
	catalog = catalog_load(dir, &cause);
	free(dir);
	if (catalog == NULL)
		fail_msg("%s", cause);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	catalog_free(catalog);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_entries),
		cmocka_unit_test(test_server_list),
		cmocka_unit_test(test_server_errors),
		cmocka_unit_test(test_job_json_round_trip),
		cmocka_unit_test(test_job_json_prepare),
		cmocka_unit_test(test_job_json_bad),
		cmocka_unit_test(test_job_print),
		cmocka_unit_test(test_custom_has_none),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
