/*
 * The shipped benchmark catalog loads and expands; bad catalog files give
 * exact file:line:col errors, one per line, sorted; every metric its
 * parsers emit from the real captures (and from its parser_samples) is
 * declared, and each required one is emitted.
 */
#include <sys/stat.h>

#include <dirent.h>
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
#include "parsers_test.h"
#include "tests/lib/skip.h"

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

/* want with each "@" replaced by path (caller frees). */
static char *
at_path(const char *want, const char *path)
{
	char	   *out = xstrdup(""), *next;
	const char *p, *at;

	for (p = want; (at = strchr(p, '@')) != NULL; p = at + 1) {
		next = xasprintf("%s%.*s%s", out, (int)(at - p), p, path);
		free(out);
		out = next;
	}
	next = xasprintf("%s%s", out, p);
	free(out);
	return (next);
}

/*
 * Loads text as one file and expects exactly the errors in want, one per
 * line, "@" standing for the file's path.
 */
static void
expect_bad(const char *text, const char *want)
{
	struct catalog *cat;
	char	       *path, *cause = NULL, *full;

	path = write_file("bad.yaml", text);
	cat = catalog_load_file(path, &cause);
	unlink(path);
	assert_null(cat);
	full = at_path(want, path);
	assert_string_equal(cause, full);
	free(full);
	free(cause);
	free(path);
}

/*
 * Every shipped parameter has a type its default and axis values are of,
 * and the counts are integers.
 */
static void
test_shipped_types(void **state)
{
	struct catalog		   *cat = shipped();
	const struct catalog_param *p;
	size_t			    i, j, k;

	for (i = 0; i < cat->n; i++) {
		for (j = 0; j < cat->v[i].nparams; j++) {
			p = &cat->v[i].params[j];
			if (p->def != NULL && catalog_param_check(p, p->def))
				fail_msg("%s: param \"%s\": default \"%s\" is "
					 "not %s",
				    cat->v[i].name, p->name, p->def,
				    catalog_param_check(p, p->def));
			for (k = 0; k < p->naxis; k++)
				assert_null(catalog_param_check(p, p->axis[k]));
		}
	}
	p = catalog_param_find(catalog_find(cat, "hackbench"), "groups");
	assert_int_equal(p->type, CATALOG_INTEGER);
	assert_string_equal(catalog_param_type_name(p->type), "integer");
	p = catalog_param_find(catalog_find(cat, "hackbench"), "mode");
	assert_int_equal(p->type, CATALOG_STRING);
	assert_non_null(p->description);
	p = catalog_param_find(catalog_find(cat, "cpuset-hotplug"), "cpu");
	assert_int_equal(p->type, CATALOG_STRING);
	catalog_free(cat);
}

/* What an integer and a number are. */
static void
test_param_check(void **state)
{
	struct catalog_param i = { .type = CATALOG_INTEGER };
	struct catalog_param n = { .type = CATALOG_NUMBER };
	struct catalog_param s = { .type = CATALOG_STRING };

	assert_null(catalog_param_check(&i, "0"));
	assert_null(catalog_param_check(&i, "-12"));
	assert_string_equal(catalog_param_check(&i, "4x"), "an integer");
	assert_string_equal(catalog_param_check(&i, ""), "an integer");
	assert_string_equal(catalog_param_check(&i, "+4"), "an integer");
	assert_string_equal(catalog_param_check(&i, "2.5"), "an integer");
	assert_null(catalog_param_check(&n, "2.5"));
	assert_null(catalog_param_check(&n, "-3"));
	assert_string_equal(catalog_param_check(&n, "2."), "a number");
	assert_string_equal(catalog_param_check(&n, ".5"), "a number");
	assert_string_equal(catalog_param_check(&n, "1e3"), "a number");
	assert_null(catalog_param_check(&s, "anything at all"));
	assert_string_equal(catalog_param_type_name(CATALOG_NUMBER), "number");
}

/* "Did you mean" over the catalog's names, and the names. */
static void
test_suggest(void **state)
{
	struct catalog *cat = shipped();
	char	       *hint, *names;

	hint = catalog_suggest(cat, "sysbench");
	assert_string_equal(hint, " (did you mean \"sysbench-cpu\"?)");
	free(hint);
	hint = catalog_suggest(cat, "hackbnech");
	assert_string_equal(hint, " (did you mean \"hackbench\"?)");
	free(hint);
	hint = catalog_suggest(cat, "zzzz");
	assert_string_equal(hint, "");
	free(hint);
	names = catalog_names(cat);
	assert_non_null(strstr(names, "hackbench, kernbench, "));
	free(names);
	catalog_free(cat);
}

/* b printed by catalog_print (caller frees). */
static char *
printed(const struct catalog_benchmark *b)
{
	char  *text = NULL;
	size_t len = 0;
	FILE  *mem = open_memstream(&text, &len);

	assert_non_null(mem);
	catalog_print(mem, b);
	fclose(mem);
	return (text);
}

/*
 * Each shipped entry printed is a catalog file that reads back to the
 * same entry: printed again, the same text.
 */
static void
test_print_round_trip(void **state)
{
	struct catalog *cat = shipped(), *back;
	char	       *text, *again, *path, *cause = NULL;
	size_t		i;

	for (i = 0; i < cat->n; i++) {
		text = printed(&cat->v[i]);
		path = write_file("printed.yaml", text);
		if ((back = catalog_load_file(path, &cause)) == NULL)
			fail_msg("%s printed:\n%s\n%s", cat->v[i].name, text,
			    cause);
		again = printed(&back->v[0]);
		assert_string_equal(text, again);
		assert_int_equal(back->v[0].nparams, cat->v[i].nparams);
		unlink(path);
		catalog_free(back);
		free(again);
		free(text);
		free(path);
	}
	text = printed(catalog_find(cat, "hackbench"));
	assert_non_null(strstr(text,
	    "  groups:\n    type: integer\n"
	    "    default: 4\n"));
	assert_non_null(strstr(text, "timeout: "));
	free(text);
	catalog_free(cat);
}

/*
 * An install's prepare command: an argv template of the entry's params,
 * printed by "hilab benchmarks show" and read back; it needs a source
 * tarball, and its placeholders must be params.
 */
static void
test_prepare(void **state)
{
	struct catalog		       *cat = shipped(), *back;
	const struct catalog_benchmark *b = catalog_find(cat, "stream");
	char			       *text, *path, *cause = NULL;

	assert_non_null(b);
	assert_int_equal(b->install.nprepare, 4);
	assert_string_equal(b->install.prepare[1], "--build");
	assert_string_equal(b->install.prepare[3], "{array_size}");
	text = printed(b);
	assert_non_null(strstr(text,
	    "  prepare: [./stream, --build, \"{ntimes}\", \"{array_size}\"]\n"));
	path = write_file("printed.yaml", text);
	if ((back = catalog_load_file(path, &cause)) == NULL)
		fail_msg("%s", cause);
	assert_int_equal(back->v[0].install.nprepare, 4);
	unlink(path);
	catalog_free(back);
	free(path);
	free(text);
	catalog_free(cat);
	expect_bad("name: x\n"
		   "command: [tool, \"{size}\"]\n"
		   "params: {size: 64}\n"
		   "install:\n"
		   "  package: tool\n"
		   "  prepare: [./tool, --build, \"{sise}\"]\n"
		   "parser: keyvalue\n" GOOD_METRICS,
	    "@:6:12: install: \"prepare\" needs \"source\": it runs in the "
	    "built tree\n"
	    "@:6:30: prepare: unknown placeholder \"{sise}\"");
	expect_bad("name: x\n"
		   "command: [tool]\n"
		   "install: {source: t.tar.gz, build: [make], prepare: ./t}\n"
		   "parser: keyvalue\n" GOOD_METRICS,
	    "@:3:53: \"prepare\" must be a list of arguments, not \"./t\"");
}

/* Bad files: each error at its line and column, sorted by position. */
static void
test_bad_files(void **state)
{
	expect_bad(GOOD_HEAD GOOD_METRICS "cpus: 4\n",
	    "@:9:1: unknown key \"cpus\"");
	expect_bad("name: x\n"
		   "command: [hackbench, -g, \"{group}\"]\n"
		   "params:\n"
		   "  groups: 2\n"
		   "install: rt-tests\n"
		   "parser: hackbench\n" GOOD_METRICS,
	    "@:2:26: command: unknown placeholder \"{group}\"");
	expect_bad(GOOD_HEAD
	    "metrics:\n"
	    "  - {name: time, direction: up, statistic: mean}\n",
	    "@:8:29: \"direction\" must be higher or lower, not \"up\"\n"
	    "@:8:44: \"statistic\" must be amean, hmean, gmean or median, "
	    "not \"mean\"");
	expect_bad("name: x\n",
	    "@:1:1: missing required key \"command\"\n"
	    "@:1:1: missing required key \"install\"\n"
	    "@:1:1: missing required key \"parser\"\n"
	    "@:1:1: missing required key \"metrics\"");
	expect_bad(GOOD_HEAD GOOD_METRICS "iterations: many\n",
	    "@:9:13: \"iterations\" must be a number from 1 to 1000000, not "
	    "\"many\"");
	expect_bad(GOOD_HEAD GOOD_METRICS "timeout: 1500ms\n",
	    "@:9:10: \"timeout\" must be a duration of whole seconds from 1s "
	    "to 7d such as \"90s\" or \"5m\", not \"1500ms\"");
	expect_bad("name: x\ncommand: [a, b\n",
	    "@:3:1: syntax error: did not find expected ',' or ']' (while "
	    "parsing a flow sequence at line 2, column 10)");
	expect_bad("name: x\n"
		   "command: [hackbench, -g, \"{groups\"]\n"
		   "params: {groups: 1}\n"
		   "install: {package: rt-tests, source: x.tar.gz}\n"
		   "parser: nope\n" GOOD_METRICS,
	    "@:2:26: command: lone brace in \"{groups\" (write {{ or }} "
	    "for a brace)\n"
	    "@:4:10: install: give either \"package\" or \"source\"\n"
	    "@:5:9: parser \"nope\": unknown parser");
	expect_bad("- just\n- a list\n",
	    "@:1:1: a benchmark file must hold a mapping, not a sequence");
	expect_bad("", "@:1:1: no benchmark in file, expected a mapping");
}

/* Defaults and axis values not of their parameter's type, at load. */
static void
test_bad_types(void **state)
{
	expect_bad("name: x\n"
		   "command: [run, \"{n}\", \"{r}\", \"{m}\", \"{s}\"]\n"
		   "params:\n"
		   "  n: {type: integer, default: 4x, axis: [1, two, 3]}\n"
		   "  r: {type: number, default: 0.5, axis: 1.5.2}\n"
		   "  m: {type: float}\n"
		   "  s: {type: string, default: 4x, axis: [a, 1]}\n"
		   "install: {package: tool}\n"
		   "parser: keyvalue\n" GOOD_METRICS,
	    "@:4:31: parameter \"n\": \"4x\" is not an integer\n"
	    "@:4:45: parameter \"n\": \"two\" is not an integer\n"
	    "@:5:41: parameter \"r\": \"1.5.2\" is not a number\n"
	    "@:6:13: \"type\" must be string, integer or number, not "
	    "\"float\"");
}

/*
 * Unknown, duplicate and wrongly typed keys read as in machine and job
 * files (the configuration engine's words), each at its position, sorted
 * by position whatever order they were found in.
 */
static void
test_bad_keys(void **state)
{
	expect_bad("name: engine\n"
		   "command: [run, \"{n}\", \"{m}\"]\n"
		   "params:\n"
		   "  n: 1\n"
		   "  n: 2\n"
		   "  m: {default: 3, step: 1}\n"
		   "iterations: 0\n"
		   "timeout: 90s\n"
		   "timeout: 5m\n"
		   "install: {package: tool}\n"
		   "server: {command: [srv], port: 70000}\n"
		   "parser: nope\n"
		   "metrics:\n"
		   "  - {name: t, direction: lower}\n"
		   "  - {name: t, direction: lower, unit: [s]}\n"
		   "  - oops\n"
		   "extra: 1\n",
	    "@:5:3: duplicate key \"n\", first at line 4\n"
	    "@:6:19: unknown key \"step\"\n"
	    "@:7:13: \"iterations\" must be a number from 1 to 1000000, not "
	    "\"0\"\n"
	    "@:9:1: duplicate key \"timeout\", first at line 8\n"
	    "@:11:32: \"port\" must be a number from 0 to 65535, not "
	    "\"70000\"\n"
	    "@:12:9: parser \"nope\": unknown parser\n"
	    "@:15:5: duplicate metric \"t\"\n"
	    "@:15:39: \"unit\" must be a string, not a sequence\n"
	    "@:16:5: metric must be a mapping\n"
	    "@:17:1: unknown key \"extra\"");
}

/* A directory's files: the errors of each, by file, then by position. */
static void
test_bad_dir(void **state)
{
	char *dir = xasprintf("%s/dir", tmpdir), *a, *b, *cause = NULL;
	char *want;

	assert_int_equal(mkdir(dir, 0700), 0);
	a = xasprintf("%s/a.yaml", dir);
	b = xasprintf("%s/b.yaml", dir);
	free(write_file("dir/b.yaml", "name: b\nwarmups: -1\n"));
	free(write_file("dir/a.yaml",
	    GOOD_HEAD GOOD_METRICS "warmups: 1\n"
				   "cpus: 4\nwarmups: 2\n"));
	assert_null(catalog_load(dir, &cause));
	want = xasprintf("%s:10:1: unknown key \"cpus\"\n"
			 "%s:11:1: duplicate key \"warmups\", first at line 9\n"
			 "%s:1:1: missing required key \"command\"\n"
			 "%s:1:1: missing required key \"install\"\n"
			 "%s:1:1: missing required key \"parser\"\n"
			 "%s:1:1: missing required key \"metrics\"\n"
			 "%s:2:10: \"warmups\" must be a number from 0 to "
			 "1000000, not \"-1\"",
	    a, a, b, b, b, b, b);
	assert_string_equal(cause, want);
	unlink(a);
	unlink(b);
	rmdir(dir);
	free(want);
	free(cause);
	free(a);
	free(b);
	free(dir);
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

/*
 * Captures of another version or harness than the catalog's command: all
 * they emit must be declared, but they need not have every required metric.
 */
static const struct {
	const char *file;
	const char *why;
} foreign_captures[] = {
	{ "kernel-build/lkp-kbuild-01-runtime.txt",
	    "LKP's kbuild runtime line, not time -p" },
	{ "schbench/lkml-2020-old-0000th-and-0th-8space.txt",
	    "schbench before 1.0" },
	{ "schbench/lkml-2021-old-0000th-tabs-rps-line.txt",
	    "schbench before 1.0" },
	{ "schbench/lkp-2022-intermediate-format-m1-t16.txt",
	    "schbench before 1.0" },
};

/*
 * Checks what b's parser made of a text (what): every name is declared,
 * exactly or by a pattern, with a unit (the one the parser says) and a
 * direction; with required, every required metric is there.
 */
static void
check_declared(const struct catalog_benchmark *b, const char *what,
    const struct parse_result *res, int required)
{
	const struct catalog_metric *m;
	size_t			     i;

	for (i = 0; i < res->n; i++) {
		m = catalog_metric_find(b->metrics, b->nmetrics,
		    res->v[i].name);
		if (m == NULL)
			fail_msg("%s: parser \"%s\" emits \"%s\", which "
				 "benchmark \"%s\" does not declare",
			    what, b->parser, res->v[i].name, b->name);
		if (*m->unit == '\0' ||
		    (*res->v[i].unit != '\0' &&
			strcmp(m->unit, res->v[i].unit) != 0))
			fail_msg("%s: \"%s\" is in %s, declared as \"%s\" in "
				 "\"%s\"",
			    what, res->v[i].name, res->v[i].unit, m->unit,
			    m->name);
		assert_true(m->direction == CATALOG_HIGHER ||
		    m->direction == CATALOG_LOWER);
	}
	for (i = 0; required && i < b->nmetrics; i++) {
		m = &b->metrics[i];
		if (!m->optional && strchr(m->name, '*') == NULL &&
		    !parse_result_has(res, m->name))
			fail_msg("%s: benchmark \"%s\" requires \"%s\", which "
				 "parser \"%s\" does not emit",
			    what, b->name, m->name, b->parser);
	}
}

/* Whether a capture comes from another version or harness. */
static int
foreign(const char *rel)
{
	size_t i;

	for (i = 0; i < sizeof foreign_captures / sizeof foreign_captures[0];
	     i++) {
		if (strcmp(foreign_captures[i].file, rel) == 0) {
			print_message("%s: required metrics not checked: %s\n",
			    rel, foreign_captures[i].why);
			return (1);
		}
	}
	return (0);
}

/* Parses one capture with b's parser and checks its declarations. */
static void
check_capture(const struct catalog_benchmark *b, const char *outputs,
    const char *rel)
{
	struct parse_result res;
	char		   *path, *buf, *cause = NULL;
	size_t		    len;

	path = xasprintf("%s/%s", outputs, rel);
	if ((buf = ptest_read_file(path, &len)) == NULL)
		fail_msg("cannot read %s", path);
	if (parse_output(b->parser, b->parser_args, buf, len, &res, &cause) <=
	    0)
		fail_msg("%s: %s", rel, cause);
	check_declared(b, rel, &res, !foreign(rel));
	parse_result_clear(&res);
	free(buf);
	free(path);
}

/* Keeps plain files, not dot files. */
static int
visible(const struct dirent *d)
{
	return (d->d_name[0] != '.');
}

/* Checks b against every capture of its parser's folder. */
static size_t
check_captures(const struct catalog_benchmark *b, const char *outputs,
    const char *dir)
{
	struct dirent **names;
	char	       *path, *rel;
	int		n, i;

	path = xasprintf("%s/%s", outputs, dir);
	if ((n = scandir(path, &names, visible, alphasort)) <= 0)
		fail_msg("%s: no captures", path);
	for (i = 0; i < n; i++) {
		rel = xasprintf("%s/%s", dir, names[i]->d_name);
		check_capture(b, outputs, rel);
		free(rel);
		free(names[i]);
	}
	free(names);
	free(path);
	return ((size_t)n);
}

/*
 * Each catalog entry whose parser has real captures declares every metric
 * they give, and each capture of its command gives every required one.
 */
static void
test_declared_captures(void **state)
{
	const char     *shared = getenv("HILAB_SHARED");
	struct catalog *cat;
	char	       *outputs;
	size_t		i, k, nfiles = 0, nbench = 0, nknown = 0;

	if (shared == NULL)
		skip_missing("HILAB_SHARED is not set");
	outputs = xasprintf("%s/bench-outputs", shared);
	if (access(outputs, R_OK) != 0)
		skip_missing("%s is absent: no real captures", outputs);
	cat = shipped();
	for (i = 0; i < cat->n; i++) {
		for (k = 0; k < ptest_ntools; k++) {
			if (strcmp(ptest_tools[k].parser, cat->v[i].parser) ==
			    0) {
				nfiles += check_captures(&cat->v[i], outputs,
				    ptest_tools[k].dir);
				nbench++;
			}
		}
	}
	/* every catalog parser with captures; llama and ycsb have no entry */
	for (k = 0; k < ptest_ntools; k++)
		nknown +=
		    strcmp(ptest_tools[k].parser, "llama-batched-bench") != 0 &&
		    strcmp(ptest_tools[k].parser, "ycsb") != 0;
	assert_int_equal(nbench, nknown);
	assert_true(nfiles >= 30);
	catalog_free(cat);
	free(outputs);
}

/* A catalog parser_sample yields declared metrics, every required one. */
static void
test_declared_samples(void **state)
{
	struct catalog	   *cat = shipped();
	struct parse_result res;
	char		   *text, *cause = NULL;
	size_t		    i, n = 0;

	for (i = 0; i < cat->n; i++) {
		if (cat->v[i].parser_sample == NULL)
			continue;
		text = xasprintf("%s\n", cat->v[i].parser_sample);
		if (parse_output(cat->v[i].parser, cat->v[i].parser_args, text,
			strlen(text), &res, &cause) <= 0)
			fail_msg("%s: parser_sample: %s", cat->v[i].name,
			    cause);
		check_declared(&cat->v[i], cat->v[i].name, &res, 1);
		parse_result_clear(&res);
		free(text);
		n++;
	}
	assert_true(n >= 1);
	catalog_free(cat);
}

/* A name emitted is declared exactly first, else by the first pattern. */
static void
test_metric_find(void **state)
{
	const struct catalog_metric v[] = {
		{ .name = "*_bogo_ops", .unit = "bogo ops" },
		{ .name = "cpu_bogo_ops", .unit = "ops" },
		{ .name = "*_ops", .unit = "x" },
	};

	assert_ptr_equal(catalog_metric_find(v, 3, "cpu_bogo_ops"), &v[1]);
	assert_ptr_equal(catalog_metric_find(v, 3, "vm_bogo_ops"), &v[0]);
	assert_ptr_equal(catalog_metric_find(v, 3, "vm_ops"), &v[2]);
	assert_null(catalog_metric_find(v, 3, "vm_bogo_ops_per_s"));
	assert_null(catalog_metric_find(v, 0, "cpu_bogo_ops"));
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
		cmocka_unit_test(test_shipped_types),
		cmocka_unit_test(test_param_check),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_print_round_trip),
		cmocka_unit_test(test_prepare),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_bad_types),
		cmocka_unit_test(test_bad_keys),
		cmocka_unit_test(test_bad_dir),
		cmocka_unit_test(test_missing_param),
		cmocka_unit_test(test_declared_captures),
		cmocka_unit_test(test_declared_samples),
		cmocka_unit_test(test_metric_find),
	};

	return (cmocka_run_group_tests(tests, setup, teardown));
}
