/*
 * The cpu list type the agent and machine files share (common/cpulist.h):
 * what it reads and refuses, how it prints, and the cpus listed twice.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/cpulist.h"

/* Lists read as the kernel and machine files write them, normalized. */
static void
test_parse_format(void **state)
{
	static const struct {
		const char *text, *normal;
		size_t	    count;
		long	    last, twice;
	} cases[] = {
		{ "0-3,8", "0-3,8", 5, 8, -1 },
		{ "0-3,8\n", "0-3,8", 5, 8, -1 },
		{ " 4-7, 0-3 ", "0-7", 8, 7, -1 },
		{ "11,8,9-10", "8-11", 4, 11, -1 },
		{ "0-3,2", "0-3", 4, 3, 2 },
		{ "5", "5", 1, 5, -1 },
		{ "65535", "65535", 1, 65535, -1 },
		{ "", "", 0, -1, -1 },
		{ "\n", "", 0, -1, -1 },
	};
	struct cpulist l;
	char	      *s;
	size_t	       i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if (cpulist_parse(cases[i].text, &l) != 0)
			fail_msg("\"%s\" refused", cases[i].text);
		s = cpulist_format(&l);
		assert_string_equal(s, cases[i].normal);
		assert_int_equal(cpulist_count(&l), cases[i].count);
		assert_int_equal(cpulist_last(&l), cases[i].last);
		assert_int_equal(cpulist_twice(&l), cases[i].twice);
		free(s);
		cpulist_free(&l);
	}
}

/* Malformed lists are refused and leave the list empty. */
static void
test_refused(void **state)
{
	static const char *bad[] = { "3-1", "0-3,", ",1", "1,,2", "1-", "-1",
		"a", "1 2", "65536", "0-65536", "1;2", "0x1", NULL };
	struct cpulist	   l;
	size_t		   i;

	(void)state;
	for (i = 0; bad[i] != NULL; i++) {
		if (cpulist_parse(bad[i], &l) != -1)
			fail_msg("\"%s\" accepted", bad[i]);
		assert_null(l.set);
		assert_int_equal(l.n, 0);
	}
}

/* Merging keeps a cpu listed in two lists as listed twice. */
static void
test_merge(void **state)
{
	struct cpulist all = { NULL, 0 }, a, b;

	(void)state;
	assert_int_equal(cpulist_parse("0-3", &a), 0);
	assert_int_equal(cpulist_parse("4-7", &b), 0);
	cpulist_merge(&all, &a);
	cpulist_merge(&all, &b);
	assert_int_equal(cpulist_count(&all), 8);
	assert_int_equal(cpulist_twice(&all), -1);
	assert_true(cpulist_has(&all, 7));
	assert_false(cpulist_has(&all, 8));
	cpulist_merge(&all, &b);
	assert_int_equal(cpulist_twice(&all), 4);
	cpulist_free(&a);
	cpulist_free(&b);
	cpulist_free(&all);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_format),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_merge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
