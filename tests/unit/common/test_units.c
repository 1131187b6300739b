/*
 * The one grammar of durations and sizes (common/units.h): the table of
 * durations.txt through the parser, what the printer writes and reads back,
 * sizes accepted and refused, and the limits that guard against overflow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/units.h"
#include "common/xmalloc.h"

/* Every line of durations.txt parses to its milliseconds, or not at all. */
static void
test_duration_table(void **state)
{
	char	line[256], *tab, *path;
	FILE   *f;
	int64_t ms;
	int	n = 0, rc;

	(void)state;
	path = xasprintf("%s/tests/unit/common/durations.txt",
	    getenv("HILAB_SRCDIR"));
	assert_non_null(f = fopen(path, "r"));
	while (fgets(line, sizeof line, f) != NULL) {
		if (line[0] == '#')
			continue;
		line[strcspn(line, "\n")] = '\0';
		assert_non_null(tab = strchr(line, '\t'));
		*tab++ = '\0';
		ms = -1;
		rc = units_parse_duration(line, &ms);
		if (strcmp(tab, "-") == 0 && rc != -1)
			fail_msg("\"%s\" read as %lld ms", line, (long long)ms);
		if (strcmp(tab, "-") != 0 && (rc != 0 || ms != atoll(tab)))
			fail_msg("\"%s\": %d, %lld ms, not %s", line, rc,
			    (long long)ms, tab);
		n++;
	}
	fclose(f);
	free(path);
	assert_true(n >= 30);
}

/* Durations print in seconds, else milliseconds, and read back the same. */
static void
test_duration_format(void **state)
{
	static const struct {
		int64_t	    ms;
		const char *text;
	} cases[] = {
		{ 90000, "90s" },
		{ 86400000, "86400s" },
		{ 1500, "1500ms" },
		{ 1, "1ms" },
		{ 0, "0s" },
		{ UNITS_DURATION_MAX, "315360000s" },
	};
	char	buf[UNITS_STR_MAX];
	int64_t back;
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		units_format_duration(cases[i].ms, buf, sizeof buf);
		assert_string_equal(buf, cases[i].text);
		assert_int_equal(units_parse_duration(buf, &back), 0);
		assert_int_equal(back, cases[i].ms);
	}
}

/* The longest duration is ten years; one more millisecond is refused. */
static void
test_duration_limits(void **state)
{
	int64_t ms;

	(void)state;
	assert_int_equal(units_parse_duration("3650d", &ms), 0);
	assert_int_equal(ms, UNITS_DURATION_MAX);
	assert_int_equal(units_parse_duration("3650d1ms", &ms), -1);
	assert_int_equal(units_parse_duration("315360001", &ms), -1);
	assert_int_equal(units_parse_duration("99999999999999999999s", &ms),
	    -1);
	assert_int_equal(units_parse_duration("18446744073709551617ms", &ms),
	    -1);
}

/* Sizes: a number with K, M, G or T, into KiB; anything else refused. */
static void
test_sizes(void **state)
{
	static const struct {
		const char *text;
		uint64_t    kib; /* 0: refused */
	} cases[] = {
		{ "512M", 512 * 1024 },
		{ "4G", 4ULL * 1024 * 1024 },
		{ "4g", 4ULL * 1024 * 1024 },
		{ "1536M", 1536 * 1024 },
		{ "1K", 1 },
		{ "16T", 16ULL << 30 },
		{ "512", 0 },
		{ "4 G", 0 },
		{ "4GB", 0 },
		{ "4GiB", 0 },
		{ "1.5G", 0 },
		{ "-1G", 0 },
		{ "G", 0 },
		{ "", 0 },
		{ "4P", 0 },
		{ "99999999999999999999K", 0 },
		{ "18014398509481984T", 0 },
	};
	uint64_t kib;
	size_t	 i;
	int	 rc;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		rc = units_parse_size(cases[i].text, &kib);
		if (cases[i].kib == 0 && rc != -1)
			fail_msg("size \"%s\" accepted", cases[i].text);
		if (cases[i].kib != 0 && (rc != 0 || kib != cases[i].kib))
			fail_msg("size \"%s\": %d, %llu KiB", cases[i].text, rc,
			    (unsigned long long)kib);
	}
}

/* Sizes print in the largest unit that divides them. */
static void
test_size_format(void **state)
{
	char buf[UNITS_STR_MAX];

	(void)state;
	assert_string_equal(units_format_size(1536 * 1024, buf, sizeof buf),
	    "1536M");
	assert_string_equal(units_format_size(1024 * 1024, buf, sizeof buf),
	    "1G");
	assert_string_equal(units_format_size(3, buf, sizeof buf), "3K");
	assert_string_equal(units_format_size(32ULL << 30, buf, sizeof buf),
	    "32T");
	assert_string_equal(units_format_size(1ULL << 40, buf, sizeof buf),
	    "1024T");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_table),
		cmocka_unit_test(test_duration_format),
		cmocka_unit_test(test_duration_limits),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_size_format),
	};

	if (getenv("HILAB_SRCDIR") == NULL) {
		fprintf(stderr, "HILAB_SRCDIR is not set\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
