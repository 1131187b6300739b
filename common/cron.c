/* Cron schedules: the five crontab(5) fields and the next slot after a time. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/cause.h"
#include "common/cron.h"
#include "common/xmalloc.h"

/* How many days ahead cron_next looks: past the longest leap-year gap. */
#define CRON_HORIZON_DAYS (366 * 9)

static const char *const cron_months[] = { "jan", "feb", "mar", "apr", "may",
	"jun", "jul", "aug", "sep", "oct", "nov", "dec", NULL };
static const char *const cron_days[] = { "sun", "mon", "tue", "wed", "thu",
	"fri", "sat", NULL };

/* One field: its name in messages, its range and names (value lo first). */
struct cron_field {
	const char	  *name;
	int		   lo, hi;
	const char *const *names;
};

static const struct cron_field cron_fields[5] = {
	{ "minute", 0, 59, NULL },
	{ "hour", 0, 23, NULL },
	{ "day-of-month", 1, 31, NULL },
	{ "month", 1, 12, cron_months },
	{ "day-of-week", 0, 7, cron_days },
};

/* Reads a number or a name of f at *p; -1 with *why when there is none. */
static int
cron_value(const struct cron_field *f, const char **p, char **why)
{
	const char *s = *p;
	char	   *end;
	long	    v;
	int	    i;

	if (isdigit((unsigned char)*s)) {
		v = strtol(s, &end, 10);
		*p = end;
		if (v < f->lo || v > f->hi) {
			*why = xasprintf("%ld is out of range %d-%d", v, f->lo,
			    f->hi);
			return -1;
		}
		return (int)v;
	}
	for (i = 0; f->names != NULL && f->names[i] != NULL; i++)
		if (strncasecmp(s, f->names[i], 3) == 0 &&
		    !isalpha((unsigned char)s[3])) {
			*p = s + 3;
			return f->lo == 1 ? i + 1 : i;
		}
	*why = xasprintf("\"%.*s\" is not a %s", (int)strcspn(s, ",-/"), s,
	    f->names != NULL ? "number or a name" : "number");
	return -1;
}

/* Reads "/n" at *p into *step (1 when absent); -1 with *why. */
static int
cron_step(const struct cron_field *f, const char **p, int *step, char **why)
{
	char *end;
	long  v;

	*step = 1;
	if (**p != '/')
		return 0;
	v = strtol(*p + 1, &end, 10);
	if (end == *p + 1 || v < 1 || v > f->hi - f->lo + 1) {
		*why = xasprintf("step \"%.*s\" is not a number 1-%d",
		    (int)strcspn(*p + 1, ","), *p + 1, f->hi - f->lo + 1);
		return -1;
	}
	*p = end;
	*step = (int)v;
	return 0;
}

/* Reads one item of a list ("*", "a", "a-b", each maybe "/n") into bits. */
static int
cron_item(const struct cron_field *f, const char **p, uint64_t *bits,
    char **why)
{
	int lo, hi, step, v;

	if (**p == '*') {
		lo = f->lo;
		hi = f->names == cron_days ? 6 : f->hi;
		(*p)++;
	} else if ((lo = hi = cron_value(f, p, why)) == -1)
		return -1;
	else if (**p == '-') {
		(*p)++;
		if ((hi = cron_value(f, p, why)) == -1)
			return -1;
		if (hi < lo) {
			*why = xasprintf("range %d-%d runs backwards", lo, hi);
			return -1;
		}
	} else if (**p == '/')
		hi = f->hi;
	if (cron_step(f, p, &step, why) == -1)
		return -1;
	for (v = lo; v <= hi; v += step)
		*bits |= (uint64_t)1 << v;
	return 0;
}

/* Reads a whole field of text (a comma list) into bits; -1 with *why. */
static int
cron_field_parse(const struct cron_field *f, const char *text, uint64_t *bits,
    char **why)
{
	const char *p = text;

	*bits = 0;
	for (;;) {
		if (*p == ',' || *p == '\0') {
			*why = xstrdup("an empty item in the list");
			return -1;
		}
		if (cron_item(f, &p, bits, why) == -1)
			return -1;
		if (*p == '\0')
			break;
		if (*p != ',') {
			*why = xasprintf("unexpected \"%s\"", p);
			return -1;
		}
		p++;
	}
	if (f->names == cron_days && (*bits & (1u << 7)))
		*bits = (*bits & ~(uint64_t)(1u << 7)) | 1u;
	return 0;
}

/* The days of month (1-12) in a leap year. */
static int
cron_month_days(int month)
{
	static const int days[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30,
		31 };

	return days[month - 1];
}

/* Whether a day-of-month-only expression matches any date at all. */
static bool
cron_possible(const struct cron *c)
{
	int m, d;

	if (c->mday_any || !c->wday_any)
		return true;
	for (m = 1; m <= 12; m++)
		for (d = 1; d <= cron_month_days(m); d++)
			if ((c->month >> m & 1) && (c->mday >> d & 1))
				return true;
	return false;
}

/* Splits text at blanks into at most 6 fields; returns how many. */
static int
cron_split(char *text, char *field[6])
{
	char *save = NULL, *t;
	int   n = 0;

	for (t = strtok_r(text, " \t", &save); t != NULL && n < 6;
	     t = strtok_r(NULL, " \t", &save))
		field[n++] = t;
	return n;
}

/* Reads the five fields; see common/cron.h. */
int
cron_read(const char *text, struct cron *c, char **why)
{
	char	*copy = xstrdup(text), *field[6], *err = NULL;
	uint64_t bits[5];
	int	 n, i, rc = -1;

	memset(c, 0, sizeof *c);
	if ((n = cron_split(copy, field)) != 5) {
		*why = xasprintf("expected 5 fields (minute hour day-of-month "
				 "month day-of-week), found %d%s",
		    n, n > 5 ? " or more" : "");
		goto out;
	}
	for (i = 0; i < 5; i++)
		if (cron_field_parse(&cron_fields[i], field[i], &bits[i],
			&err) == -1) {
			*why = xasprintf("%s: %s", cron_fields[i].name, err);
			goto out;
		}
	c->minute = bits[0];
	c->hour = (uint32_t)bits[1];
	c->mday = (uint32_t)bits[2];
	c->month = (uint16_t)bits[3];
	c->wday = (uint8_t)bits[4];
	c->mday_any = field[2][0] == '*';
	c->wday_any = field[4][0] == '*';
	if (!cron_possible(c))
		*why = xstrdup("day-of-month: no month given has such a day");
	else
		rc = 0;
out:
	free(err);
	free(copy);
	return rc;
}

/* Parses the five fields; see common/cron.h. */
int
cron_parse(const char *text, struct cron *c, char **cause)
{
	char *why = NULL;

	if (cron_read(text, c, &why) == 0)
		return 0;
	causef(cause, "cron \"%s\": %s", text, why);
	free(why);
	return -1;
}

/* Whether the day of tm (normalized, with tm_wday) matches. */
static bool
cron_day_matches(const struct cron *c, const struct tm *tm)
{
	bool mday = c->mday >> tm->tm_mday & 1,
	     wday = c->wday >> tm->tm_wday & 1;

	if (!(c->month >> (tm->tm_mon + 1) & 1))
		return false;
	if (c->mday_any || c->wday_any)
		return mday && wday;
	return mday || wday;
}

/*
 * The first instant (unix s) the local clock reads day's date at h:m, or
 * -1 when it never does (skipped by a DST change).
 */
static int64_t
cron_slot(const struct tm *day, int h, int m)
{
	struct tm tm, back;
	time_t	  t;
	int64_t	  best = -1;
	int	  dst;

	for (dst = 1; dst >= 0; dst--) {
		tm = *day;
		tm.tm_hour = h;
		tm.tm_min = m;
		tm.tm_sec = 0;
		tm.tm_isdst = dst;
		if ((t = mktime(&tm)) == (time_t)-1 ||
		    localtime_r(&t, &back) == NULL)
			continue;
		if (back.tm_mon != day->tm_mon ||
		    back.tm_mday != day->tm_mday || back.tm_hour != h ||
		    back.tm_min != m || back.tm_isdst != dst)
			continue;
		if (best == -1 || (int64_t)t < best)
			best = (int64_t)t;
	}
	return best;
}

/* The first slot of a matching day after after_ms, or -1. */
static int64_t
cron_day_next(const struct cron *c, const struct tm *day, int64_t after_ms)
{
	int64_t t;
	int	h, m;

	for (h = 0; h < 24; h++) {
		if (!(c->hour >> h & 1))
			continue;
		for (m = 0; m < 60; m++)
			if ((c->minute >> m & 1) &&
			    (t = cron_slot(day, h, m)) != -1 &&
			    t * 1000 > after_ms)
				return t * 1000;
	}
	return -1;
}

/* The next slot; see common/cron.h. */
int64_t
cron_next(const struct cron *c, int64_t after_ms)
{
	struct tm start, day;
	time_t	  t = (time_t)(after_ms / 1000);
	int64_t	  next;
	int	  d;

	if (localtime_r(&t, &start) == NULL)
		return -1;
	for (d = 0; d < CRON_HORIZON_DAYS; d++) {
		memset(&day, 0, sizeof day);
		day.tm_year = start.tm_year;
		day.tm_mon = start.tm_mon;
		day.tm_mday = start.tm_mday + d;
		day.tm_hour = 12;
		day.tm_isdst = -1;
		if (mktime(&day) == (time_t)-1)
			return -1;
		if (cron_day_matches(c, &day) &&
		    (next = cron_day_next(c, &day, after_ms)) != -1)
			return next;
	}
	return -1;
}
