/*
 * The command-line grammar (common/args.h) on a small table: commands and
 * subcommands, options anywhere, values by type, --help winning over
 * errors, the first error kept; and "did you mean" (common/suggest.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/args.h"
#include "common/suggest.h"
#include "common/xmalloc.h"

static const char *const colours[] = { "red", "green", "blue", NULL };

static const struct args_opt global[] = {
	{ "db", 0, ARGS_FILE, "FILE", NULL, 0, "the database" },
	{ "json", 0, ARGS_FLAG, NULL, NULL, 0, "JSON" },
	{ "verbose", 'v', ARGS_FLAG, NULL, NULL, 0, "more" },
	{ "quiet", 'q', ARGS_FLAG, NULL, NULL, 0, "less" },
	{ "help", 'h', ARGS_FLAG, NULL, NULL, 0, "help" },
	{ NULL },
};

static const struct args_opt paint_opts[] = {
	{ "colour", 0, ARGS_CHOICE, "C", colours, 0, "which" },
	{ "job", 0, ARGS_JOB, "JOB", NULL, ARGS_REPEAT, "a job" },
	{ "every", 0, ARGS_DURATION, "D", NULL, ARGS_REQUIRED, "how often" },
	{ "at", 0, ARGS_TIME, "HH:MM", NULL, 0, "when" },
	{ NULL },
};

static const struct args_pos paint_args[] = {
	{ "WALL", ARGS_TEXT, NULL, 0, "the wall" },
	{ "MORE", ARGS_TEXT, NULL, ARGS_OPTIONAL | ARGS_REPEAT, "more" },
	{ NULL },
};

static const struct args_opt wash_opts[] = {
	{ "hot", 0, ARGS_INT, "C", NULL, ARGS_ONE_OF, "degrees" },
	{ "cold", 0, ARGS_FLAG, NULL, NULL, ARGS_ONE_OF, "cold" },
	{ "soap", 0, ARGS_TEXT, "S", NULL, 0, "which soap", "hot" },
	{ NULL },
};

static const struct args_cmd house_subs[] = {
	{ "paint", 1, "paint a wall", NULL, paint_args, paint_opts, NULL },
	{ "clean", 2, "clean up", NULL, NULL, NULL, NULL },
	{ "wash", 4, "wash", NULL, NULL, wash_opts, NULL },
	{ NULL },
};

static const struct args_cmd cmds[] = {
	{ "house", -1, "the house", NULL, NULL, NULL, house_subs },
	{ "status", 3, "a status", NULL, NULL, NULL, NULL },
	{ NULL },
};

static const struct args_prog prog = { "t", "a test", NULL, global, cmds, NULL,
	NULL };

/* Parses a line of words; returns args_parse's result, *cause if any. */
static int
parse(struct args *a, char **cause, ...)
{
	char   *argv[32] = { (char *)"t" };
	int	argc = 1;
	va_list ap;

	va_start(ap, cause);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	*cause = NULL;
	return args_parse(&prog, argc, argv, a, cause);
}

/* A whole line: subcommand, options before and after, values typed. */
static void
test_line(void **state)
{
	struct args a;
	char	   *cause;

	(void)state;
	assert_int_equal(parse(&a, &cause, "--db", "x.db", "house", "paint",
			     "w1", "--colour=GREEN", "--job", "3", "-vq",
			     "--every", "1h30m", "w2", "--at", "03:30",
			     "--job=12", "--json", "--", "--w3", NULL),
	    0);
	assert_int_equal(a.cmd->id, 1);
	assert_int_equal(a.depth, 2);
	assert_string_equal(args_text(&a, "db", NULL), "x.db");
	assert_string_equal(args_text(&a, "colour", NULL), "green");
	assert_int_equal(args_count(&a, "job"), 2);
	assert_int_equal(args_nth(&a, "job", 1)->num, 12);
	assert_int_equal(args_num(&a, "every", 0), 5400000);
	assert_int_equal(args_num(&a, "at", 0), 210);
	assert_true(args_flag(&a, "verbose") && args_flag(&a, "quiet"));
	assert_true(args_flag(&a, "json"));
	assert_int_equal(a.npos, 3);
	assert_string_equal(a.pos[2].text, "--w3");
	args_clear(&a);
}

/* Each error names the commands, the option or argument, and why. */
static void
test_errors(void **state)
{
	static const struct {
		const char *words[6];
		const char *cause;
	} cases[] = {
		{ { "house", "paint", "w", "--colr", "red" },
		    "house paint: unknown option \"--colr\" (did you mean "
		    "\"--colour\"?)" },
		{ { "house", "paint", "w", "--colour", "blu" },
		    "house paint: --colour \"blu\": not one of red, green, "
		    "blue (did you mean \"blue\"?)" },
		{ { "house", "paint", "w", "--job", "x" },
		    "house paint: --job \"x\": not a job id (a number such as "
		    "12)" },
		{ { "house", "paint", "w", "--at", "24:00" },
		    "house paint: --at \"24:00\": not a time of day HH:MM" },
		{ { "house", "paint", "w", "--every" },
		    "house paint: --every needs a value (D)" },
		{ { "house", "paint", "w" },
		    "house paint: --every D is required" },
		{ { "house", "paint", "--every", "0" },
		    "house paint: --every \"0\": not a duration of 1ms or more "
		    "such as \"90s\", \"5m\", \"1h30m\" or \"1d\" (a bare "
		    "number is seconds)" },
		{ { "house" },
		    "house: missing subcommand: paint, clean or wash" },
		{ { "house", "wash" },
		    "house wash: --hot or --cold is required" },
		{ { "house", "wash", "--hot", "40", "--cold" },
		    "house wash: --hot and --cold cannot be given together" },
		{ { "house", "wash", "--cold", "--soap", "s" },
		    "house wash: --soap needs --hot" },
		{ { "house", "pant" },
		    "house: unknown subcommand \"pant\" (did you mean "
		    "\"paint\"?)" },
		{ { "stat" },
		    "unknown command \"stat\" (did you mean \"status\"?)" },
		{ { "status", "now" }, "status: unexpected \"now\"" },
		{ { "status", "--json=1" }, "status: --json takes no value" },
		{ { "status", "-x" }, "status: unknown option \"-x\"" },
		{ { "house", "clean", "--colour", "red" },
		    "house clean: unknown option \"--colour\"" },
	};
	struct args a;
	char	   *argv[8], *cause;
	size_t	    i, n;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		argv[0] = (char *)"t";
		for (n = 0; n < 6 && cases[i].words[n] != NULL; n++)
			argv[n + 1] = (char *)cases[i].words[n];
		cause = NULL;
		assert_int_equal(args_parse(&prog, (int)n + 1, argv, &a,
				     &cause),
		    -1);
		assert_string_equal(cause, cases[i].cause);
		free(cause);
		args_clear(&a);
	}
}

/* --help anywhere wins over any error, for the command named so far. */
static void
test_help(void **state)
{
	struct args a;
	char	   *cause, *text = NULL;
	size_t	    len;
	FILE	   *f;

	(void)state;
	assert_int_equal(parse(&a, &cause, "house", "--bogus", "paint", "-h",
			     NULL),
	    0);
	assert_true(a.help);
	assert_int_equal(a.cmd->id, 1);
	assert_non_null(f = open_memstream(&text, &len));
	args_help(f, &a);
	fclose(f);
	assert_non_null(strstr(text,
	    "usage: t house paint WALL [MORE]... [--colour red|green|blue] "
	    "[--job JOB]...\n                     --every D [--at HH:MM]\n"));
	assert_non_null(strstr(text, "--colour C"));
	assert_non_null(strstr(text, "(repeatable)"));
	assert_non_null(strstr(text, "(required)"));
	free(text);
	args_clear(&a);
	assert_int_equal(parse(&a, &cause, NULL), 0);
	assert_null(a.cmd);
	args_clear(&a);
}

/* Edit distances, swaps counting one; prefixes before misspellings. */
static void
test_suggest(void **state)
{
	struct suggest s;
	char	      *hint;

	(void)state;
	assert_int_equal(suggest_distance("style", "stlye"), 1);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("", "abc"), 3);
	suggest_init(&s, "sysbench");
	suggest_add(&s, "schbench");
	suggest_add(&s, "sysbench-cpu");
	assert_string_equal(suggest_best(&s), "sysbench-cpu");
	suggest_init(&s, "netperf");
	suggest_add(&s, "hackbench");
	suggest_add(&s, "netperf");
	assert_null(suggest_best(&s));
	hint = suggest_hint(&s);
	assert_string_equal(hint, "");
	free(hint);
	suggest_init(&s, "xyz");
	suggest_add(&s, "tbench");
	assert_null(suggest_best(&s));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_suggest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
