/*
 * Runs a benchmark installed here and parses what it prints; the values
 * must equal what a plain sscanf reads off the same output. Usage:
 * test-parse-tools TOOL (hackbench, tbench, sysbench, stress-ng). Exits
 * 77 when the tool is not installed.
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

/* tbench_srv and tbench in a private network namespace when possible. */
#define TBENCH_SCRIPT                                                   \
	"tbench_srv & s=$!; sleep 0.5; tbench -t 3 2 127.0.0.1; r=$?; " \
	"kill $s; exit $r"

/* Runs cmd, parses its output, returns the result (asserting success). */
static char *
run_and_parse(const char *cmd, const char *parser, struct parse_result *res)
{
	char  *out, *cause = NULL;
	size_t len;

	out = ptest_run(cmd, &len);
	if (out == NULL)
		fail_msg("\"%s\" failed", cmd);
	if (parse_output(parser, NULL, out, len, res, &cause) <= 0)
		fail_msg("%s: %s\noutput:\n%s", cmd, cause, out);
	return (out);
}

/* Reads "<label> %lf" off the output by itself, for comparison. */
static double
scan_after(const char *out, const char *label, size_t occurrence)
{
	const char *p = out;
	double	    v;

	for (;;) {
		if ((p = strstr(p, label)) == NULL)
			fail_msg("no \"%s\" in output", label);
		p += strlen(label);
		if (occurrence-- == 0)
			break;
	}
	if (sscanf(p, "%lf", &v) != 1)
		fail_msg("no number after \"%s\"", label);
	return (v);
}

/* hackbench in process, thread and pipe modes. */
static void
test_hackbench(void **state)
{
	static const char  *cmds[] = { "hackbench -g 2 -l 50",
		 "hackbench -T -g 2 -l 50", "hackbench -p -g 2 -l 50" };
	struct parse_result res;
	char		   *out;
	size_t		    i;

	for (i = 0; i < 3; i++) {
		out = run_and_parse(cmds[i], "hackbench", &res);
		assert_int_equal(res.n, 1);
		assert_string_equal(res.v[0].name, "time");
		assert_string_equal(res.v[0].unit, "s");
		assert_true(res.v[0].value == scan_after(out, "\nTime:", 0));
		assert_true(res.v[0].value > 0 && res.v[0].value < 60);
		parse_result_clear(&res);
		free(out);
	}
}

/* tbench against a tbench_srv on 127.0.0.1. */
static void
test_tbench(void **state)
{
	struct parse_result res;
	char		   *out;
	const char	   *cmd;

	if (system("unshare -n true >/dev/null 2>&1") == 0)
		cmd = "unshare -n sh -c 'ip link set lo up && { " TBENCH_SCRIPT
		      "; }'";
	else
		cmd = TBENCH_SCRIPT;
	out = run_and_parse(cmd, "tbench", &res);
	assert_int_equal(ptest_count(&res, "throughput"), 1);
	assert_true(ptest_value(&res, "throughput", 0) ==
	    scan_after(out, "\nThroughput ", 0));
	assert_true(ptest_value(&res, "throughput", 0) > 0);
	assert_true(ptest_value(&res, "max_latency", 0) ==
	    scan_after(out, "max_latency=", 0));
	parse_result_clear(&res);
	free(out);
}

/* sysbench cpu for one second. */
static void
test_sysbench(void **state)
{
	struct parse_result res;
	char		   *out;

	out = run_and_parse("sysbench cpu --time=1 run", "sysbench", &res);
	assert_true(ptest_value(&res, "events_per_second", 0) ==
	    scan_after(out, "events per second:", 0));
	assert_true(ptest_value(&res, "events_per_second", 0) > 0);
	assert_true(
	    ptest_value(&res, "latency_avg", 0) == scan_after(out, "avg:", 0));
	assert_true(ptest_value(&res, "latency_p95", 0) ==
	    scan_after(out, "95th percentile:", 0));
	assert_true(ptest_value(&res, "events", 0) ==
	    scan_after(out, "total number of events:", 0));
	parse_result_clear(&res);
	free(out);
}

/* stress-ng, one cpu stressor for one second. */
static void
test_stressng(void **state)
{
	struct parse_result res;
	char		   *out, *row;
	double		    ops, real, usr, sys, rate, cpurate;

	out = run_and_parse("stress-ng --cpu 1 -t 1 --metrics-brief",
	    "stress-ng", &res);
	if ((row = strstr(out, "] cpu ")) == NULL)
		fail_msg("no cpu row in:\n%s", out);
	assert_int_equal(sscanf(row + 6, "%lf %lf %lf %lf %lf %lf", &ops, &real,
			     &usr, &sys, &rate, &cpurate),
	    6);
	assert_int_equal(res.n, 3);
	assert_true(ptest_value(&res, "cpu_bogo_ops", 0) == ops);
	assert_true(ptest_value(&res, "cpu_bogo_ops_per_s", 0) == rate);
	assert_true(ptest_value(&res, "cpu_bogo_ops_per_cpu_s", 0) == cpurate);
	assert_true(rate > 0);
	parse_result_clear(&res);
	free(out);
}

int
main(int argc, char **argv)
{
	static const struct {
		const char	 *tool;
		const char	 *binary;
		struct CMUnitTest test;
	} tools[] = {
		{ "hackbench", "hackbench", cmocka_unit_test(test_hackbench) },
		{ "tbench", "tbench_srv", cmocka_unit_test(test_tbench) },
		{ "sysbench", "sysbench", cmocka_unit_test(test_sysbench) },
		{ "stress-ng", "stress-ng", cmocka_unit_test(test_stressng) },
	};
	char  *probe;
	size_t i;
	int    rc;

	for (i = 0; argc == 2 && i < sizeof tools / sizeof tools[0]; i++) {
		if (strcmp(argv[1], tools[i].tool) == 0)
			break;
	}
	if (argc != 2 || i == sizeof tools / sizeof tools[0]) {
		fprintf(stderr,
		    "usage: test-parse-tools hackbench|tbench|"
		    "sysbench|stress-ng\n");
		return (2);
	}
	probe = xasprintf("command -v %s >/dev/null && command -v %s "
			  ">/dev/null",
	    tools[i].binary, i == 1 ? "tbench" : tools[i].binary);
	rc = system(probe);
	free(probe);
	if (rc != 0)
		return (SKIP_MISSING_EXIT("%s is not installed (Debian package "
					  "%s)",
		    tools[i].tool,
		    i == 0	 ? "rt-tests"
			: i == 1 ? "dbench"
				 : tools[i].tool));
	return (_cmocka_run_group_tests(tools[i].tool, &tools[i].test, 1, NULL,
	    NULL));
}
