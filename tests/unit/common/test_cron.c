/*
 * Cron schedules (common/cron.h): a table of expressions, the instant to
 * look after and the slot expected, each in its own time zone (month and
 * weekday edges, Feb 29, the either-day rule, DST gaps and repeats in local
 * time), and a table of expressions refused with the field and why.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "common/cron.h"

/* One case: in zone tz, the slot after "after" (UTC) is "next" (UTC). */
struct cron_case {
	const char *tz;
	const char *expr;
	const char *after;
	const char *next;
};

static const struct cron_case cron_cases[] = {
	/* Friday 03:00 itself is not after it: Monday is next. */
	{ "UTC", "0 3 * * 1-5", "2026-12-04 03:00:00", "2026-12-07 03:00:00" },
	{ "UTC", "0 3 * * mon-fri", "2026-12-04 02:59:59",
	    "2026-12-04 03:00:00" },
	{ "UTC", "*/15 * * * *", "2026-12-04 10:07:30", "2026-12-04 10:15:00" },
	{ "UTC", "5-50/20 * * * *", "2026-12-04 10:25:00",
	    "2026-12-04 10:45:00" },
	{ "UTC", "10/25 * * * *", "2026-12-04 10:36:00",
	    "2026-12-04 11:10:00" },
	{ "UTC", "* * * * *", "2026-12-04 10:07:59", "2026-12-04 10:08:00" },
	/* Year and month ends. */
	{ "UTC", "0 0 1 1 *", "2026-12-31 12:00:00", "2027-01-01 00:00:00" },
	{ "UTC", "59 23 31 12 *", "2026-01-01 00:00:00",
	    "2026-12-31 23:59:00" },
	{ "UTC", "0 0 31 * *", "2026-04-01 00:00:00", "2026-05-31 00:00:00" },
	{ "UTC", "0 12 1 jan,JUL *", "2026-02-01 00:00:00",
	    "2026-07-01 12:00:00" },
	/* Feb 29: the next leap year, and again 4 years on. */
	{ "UTC", "0 0 29 2 *", "2025-03-01 00:00:00", "2028-02-29 00:00:00" },
	{ "UTC", "0 0 29 feb *", "2028-02-29 00:00:00", "2032-02-29 00:00:00" },
	/* Sunday is 0 and 7 and "sun". */
	{ "UTC", "0 0 * * 7", "2026-12-02 00:00:00", "2026-12-06 00:00:00" },
	{ "UTC", "0 0 * * 0", "2026-12-02 00:00:00", "2026-12-06 00:00:00" },
	{ "UTC", "0 0 * * sat,sun", "2026-12-02 00:00:00",
	    "2026-12-05 00:00:00" },
	/* Both day fields restricted: either matches (Fri 4th, then 15th). */
	{ "UTC", "0 0 1,15 * 5", "2026-12-02 00:00:00", "2026-12-04 00:00:00" },
	{ "UTC", "0 0 1,15 * 5", "2026-12-11 00:00:00", "2026-12-15 00:00:00" },
	/*
	 * One of them starts with "*" (a step too, as in Vixie cron): both
	 * must match (Friday the 11th, not Friday the 4th).
	 */
	{ "UTC", "0 0 15 * *", "2026-12-02 00:00:00", "2026-12-15 00:00:00" },
	{ "UTC", "0 0 */10 * 5", "2026-12-02 00:00:00", "2026-12-11 00:00:00" },
	{ "UTC", "0 0 13 * */7", "2026-12-02 00:00:00", "2026-12-13 00:00:00" },
	/* Local time: 03:00 in New York is 08:00 UTC in winter, 07:00 in
	   summer. */
	{ "America/New_York", "0 3 * * *", "2026-01-10 12:00:00",
	    "2026-01-11 08:00:00" },
	{ "America/New_York", "0 3 * * *", "2026-07-10 12:00:00",
	    "2026-07-11 07:00:00" },
	/* Berlin springs forward 2026-03-29 02:00 -> 03:00: 02:30 is skipped.
	 */
	{ "Europe/Berlin", "30 2 * * *", "2026-03-28 23:00:00",
	    "2026-03-30 00:30:00" },
	{ "Europe/Berlin", "30 3 * * *", "2026-03-28 23:00:00",
	    "2026-03-29 01:30:00" },
	/* And falls back 2026-10-25 03:00 -> 02:00: 02:30 runs once, the first.
	 */
	{ "Europe/Berlin", "30 2 * * *", "2026-10-24 22:00:00",
	    "2026-10-25 00:30:00" },
	{ "Europe/Berlin", "30 2 * * *", "2026-10-25 00:30:00",
	    "2026-10-26 01:30:00" },
};

/* One expression refused: the message has the field and why. */
struct cron_bad {
	const char *expr;
	const char *why;
};

static const struct cron_bad cron_bads[] = {
	{ "0 3 * *",
	    "expected 5 fields (minute hour day-of-month month "
	    "day-of-week), found 4" },
	{ "0 3 * * * *", "expected 5 fields" },
	{ "60 * * * *", "minute: 60 is out of range 0-59" },
	{ "0 24 * * *", "hour: 24 is out of range 0-23" },
	{ "0 0 0 * *", "day-of-month: 0 is out of range 1-31" },
	{ "0 0 * 13 *", "month: 13 is out of range 1-12" },
	{ "0 0 * * 1-8", "day-of-week: 8 is out of range 0-7" },
	{ "5-1 * * * *", "minute: range 5-1 runs backwards" },
	{ "*/0 * * * *", "minute: step \"0\" is not a number 1-60" },
	{ "0 0 * foo *", "month: \"foo\" is not a number or a name" },
	{ "0 x * * *", "hour: \"x\" is not a number" },
	{ "1,,2 * * * *", "minute: an empty item in the list" },
	{ "1; * * * *", "minute: unexpected \";\"" },
	{ "0 0 30 2 *", "day-of-month: no month given has such a day" },
	{ "0 0 31 4,6,9,11 *", "day-of-month: no month given has such a day" },
};

/* Unix seconds of "YYYY-MM-DD HH:MM:SS" UTC. */
static int64_t
cron_utc(const char *s)
{
	struct tm tm;

	memset(&tm, 0, sizeof tm);
	assert_non_null(strptime(s, "%Y-%m-%d %H:%M:%S", &tm));
	return (int64_t)timegm(&tm);
}

/* Every case of the table gives its slot. */
static void
test_cron_next(void **state)
{
	const struct cron_case *k;
	struct cron		c;
	char		       *cause = NULL;
	size_t			i;
	int64_t			got;

	(void)state;
	for (i = 0; i < sizeof cron_cases / sizeof *cron_cases; i++) {
		k = &cron_cases[i];
		setenv("TZ", k->tz, 1);
		tzset();
		if (cron_parse(k->expr, &c, &cause) == -1)
			fail_msg("%s", cause);
		got = cron_next(&c, cron_utc(k->after) * 1000);
		if (got != cron_utc(k->next) * 1000)
			fail_msg("%s \"%s\" after %s: got %lld s, want %s",
			    k->tz, k->expr, k->after, (long long)(got / 1000),
			    k->next);
	}
}

/* Every refused expression names the expression, the field and why. */
static void
test_cron_refused(void **state)
{
	struct cron c;
	char	   *cause, *want;
	size_t	    i;

	(void)state;
	for (i = 0; i < sizeof cron_bads / sizeof *cron_bads; i++) {
		cause = NULL;
		assert_int_equal(cron_parse(cron_bads[i].expr, &c, &cause), -1);
		assert_non_null(cause);
		if (asprintf(&want, "cron \"%s\": %s", cron_bads[i].expr,
			cron_bads[i].why) < 0)
			fail();
		if (strncmp(cause, want, strlen(want)) != 0)
			fail_msg("got \"%s\", want \"%s\"", cause, want);
		free(want);
		free(cause);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cron_next),
		cmocka_unit_test(test_cron_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
