/*
 * What the parsers do with bad input (empty output, binary noise, a result
 * line without its number), the error messages, and the generic parsers
 * (regex, keyvalue, json) on real captures.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "parsers_test.h"
#include "tests/lib/skip.h"

/* Reads a capture from $HILAB_SHARED/bench-outputs, or skips the test. */
static char *
capture(const char *rel, size_t *len)
{
	const char *shared = getenv("HILAB_SHARED");
	char	   *path, *buf;

	if (shared == NULL)
		skip_missing("HILAB_SHARED is not set");
	path = xasprintf("%s/bench-outputs/%s", shared, rel);
	buf = ptest_read_file(path, len);
	if (buf == NULL) {
		free(path);
		skip_missing("a capture is absent: %s/bench-outputs/%s", shared,
		    rel);
	}
	free(path);
	return (buf);
}

/* Parses and expects an error equal to want. */
static void
expect_error(const char *parser, const char *args, const char *buf, size_t len,
    const char *want)
{
	struct parse_result res = { NULL, 0 };
	char		   *cause = NULL;

	assert_int_equal(parse_output(parser, args, buf, len, &res, &cause),
	    -1);
	assert_int_equal(res.n, 0);
	assert_null(res.v);
	assert_non_null(cause);
	if (want != NULL)
		assert_string_equal(cause, want);
	free(cause);
}

/* Every parser rejects empty output, naming itself. */
static void
test_empty(void **state)
{
	const struct parse_parser *pp;
	char			  *want;

	for (pp = parse_parsers; pp->name != NULL; pp++) {
		if (strcmp(pp->name, "regex") == 0 ||
		    strcmp(pp->name, "json") == 0)
			continue;
		want = xasprintf("parser \"%s\": no metric: empty output",
		    pp->name);
		expect_error(pp->name, NULL, "", 0, want);
		expect_error(pp->name, NULL, NULL, 0, want);
		expect_error(pp->name, NULL, "\n\n  \n", 5, want);
		free(want);
	}
	expect_error("regex", "t=^Time: (.*)", "", 0,
	    "parser \"regex\": no metric: empty output");
	expect_error("json", NULL, "", 0, NULL);
}

/* Every parser gives an error, not a number, for random bytes. */
static void
test_binary_noise(void **state)
{
	const struct parse_parser *pp;
	unsigned char		   buf[8192];
	uint32_t		   x = 0x2545f491;
	size_t			   i, round;

	for (round = 0; round < 16; round++) {
		for (i = 0; i < sizeof buf; i++) {
			x = x * 1664525 + 1013904223;
			buf[i] = (unsigned char)(x >> 24);
		}
		for (pp = parse_parsers; pp->name != NULL; pp++)
			expect_error(pp->name,
			    strcmp(pp->name, "regex") == 0
				? "t=^Time: ([0-9.]+)$"
				: NULL,
			    (char *)buf, sizeof buf, NULL);
	}
}

/* The quoted line is cut to 80 characters and escaped. */
static void
test_cause_quote(void **state)
{
	const char *noise =
	    "\x01\x02 \"ab\" 0123456789012345678901234567890123"
	    "4567890123456789012345678901234567890123456789\nTime: 1\n";

	expect_error("stream", NULL, noise, strlen(noise),
	    "parser \"stream\": no metric: first line not understood: "
	    "\"\\x01\\x02 \\\"ab\\\" 012345678901234567890123456789012345678901"
	    "234567890123456789012345678901...\"");
	expect_error("no-such", NULL, noise, strlen(noise),
	    "parser \"no-such\": unknown parser");
}

/* A real hackbench capture whose "Time:" lost its number. */
static void
test_time_without_number(void **state)
{
	char  *buf, *t, *bad;
	size_t len;

	buf = capture("hackbench/local-default.txt", &len);
	assert_non_null(t = strstr(buf, "Time:"));
	bad = xasprintf("%.*sTime:\n", (int)(t - buf), buf);
	expect_error("hackbench", NULL, bad, strlen(bad),
	    "parser \"hackbench\": line 3: \"Time:\": no time in seconds");
	free(bad);
	bad = xasprintf("%.*sTime: 0.5x13\n", (int)(t - buf), buf);
	expect_error("hackbench", NULL, bad, strlen(bad),
	    "parser \"hackbench\": line 3: \"Time: 0.5x13\": no time in "
	    "seconds");
	free(bad);
	/* the same line cut before its newline is not read at all */
	expect_error("hackbench", NULL, buf, len - 1,
	    "parser \"hackbench\": no metric: first line not understood: "
	    "\"Running in process mode with 10 groups using 40 file "
	    "descriptors each (== 400 ta...\"");
	free(buf);
}

/* regex: the same times as the hackbench parser; several patterns. */
static void
test_regex(void **state)
{
	struct parse_result res, ref;
	char		   *buf, *cause = NULL;
	size_t		    len;

	buf = capture("hackbench/lkp-process-pipe-g256.txt", &len);
	assert_int_equal(parse_output("regex", "time[s]=^Time: ([0-9.]+)$", buf,
			     len, &res, &cause),
	    8);
	assert_int_equal(parse_output("hackbench", NULL, buf, len, &ref,
			     &cause),
	    8);
	assert_true(ptest_is_prefix(&res, &ref));
	parse_result_clear(&res);
	parse_result_clear(&ref);
	expect_error("regex", "t=^Time: (", buf, len, NULL);
	expect_error("regex", "t=^Time: [0-9.]+$", buf, len,
	    "parser \"regex\": \"t\": no subexpression to take the number "
	    "from");
	expect_error("regex", "t=^(Time):", buf, len,
	    "parser \"regex\": line 8: \"Time: 9.541\": match is not a "
	    "number");
	expect_error("regex", "no equals sign", buf, len,
	    "parser \"regex\": \"no equals sign\": expected name=REGEX");
	expect_error("regex", NULL, buf, len,
	    "parser \"regex\": no name=REGEX given");
	free(buf);
	buf = capture("tbench/local-2clients-5s.txt", &len);
	assert_int_equal(
	    parse_output("regex",
		"tp[MB/s]=^Throughput "
		"([0-9.]+) MB/sec\nlat[ms]=max_latency=([0-9.]+) ms",
		buf, len, &res, &cause),
	    2);
	assert_true(ptest_value(&res, "tp", 0) == 612.208);
	assert_string_equal(res.v[0].unit, "MB/s");
	assert_true(ptest_value(&res, "lat", 0) == 4.188);
	parse_result_clear(&res);
	free(buf);
}

/* keyvalue on sysbench's "key: value" lines. */
static void
test_keyvalue(void **state)
{
	struct parse_result res;
	char		   *buf, *cause = NULL;
	size_t		    len;

	buf = capture("sysbench/local-cpu-2threads-3s.txt", &len);
	assert_true(parse_output("keyvalue", NULL, buf, len, &res, &cause) > 0);
	assert_true(ptest_value(&res, "events_per_second", 0) == 4055.05);
	assert_true(ptest_value(&res, "Number_of_threads", 0) == 2);
	assert_true(ptest_value(&res, "Prime_numbers_limit", 0) == 10000);
	assert_true(ptest_value(&res, "min", 0) == 0.22);
	assert_true(ptest_value(&res, "95th_percentile", 0) == 0.77);
	/* "3.0008s" and "6093.5000/984.50" are not plain numbers */
	assert_int_equal(ptest_count(&res, "total_time"), 0);
	assert_int_equal(ptest_count(&res, "events_(avg/stddev)"), 0);
	parse_result_clear(&res);
	free(buf);
}

/* json on one real llama-batched-bench jsonl object. */
static void
test_json(void **state)
{
	struct parse_result res;
	char		   *buf, *cause = NULL, *nl;
	size_t		    len;

	buf = capture("llama-batched-bench/readme-sample-jsonl.txt", &len);
	assert_non_null(nl = strchr(buf, '\n'));
	len = (size_t)(nl - buf + 1);
	assert_int_equal(parse_output("json", NULL, buf, len, &res, &cause),
	    18);
	assert_true(ptest_value(&res, "speed_pp", 0) == 547.453064);
	assert_true(ptest_value(&res, "pp", 0) == 128);
	parse_result_clear(&res);
	assert_int_equal(parse_output("json", "speed_tg, t", buf, len, &res,
			     &cause),
	    2);
	assert_string_equal(res.v[0].name, "speed_tg");
	assert_true(res.v[0].value == 36.532974);
	assert_true(res.v[1].value == 3.737494);
	parse_result_clear(&res);
	expect_error("json", "speed_tg nope", buf, len,
	    "parser \"json\": path \"nope\": not found");
	expect_error("json", NULL, buf, len / 2, NULL);
	expect_error("json", NULL, buf, len + 10, NULL);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_binary_noise),
		cmocka_unit_test(test_cause_quote),
		cmocka_unit_test(test_time_without_number),
		cmocka_unit_test(test_regex),
		cmocka_unit_test(test_keyvalue),
		cmocka_unit_test(test_json),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
