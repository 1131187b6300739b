/*
 * Cron schedules: the five fields of crontab(5), "minute hour day-of-month
 * month day-of-week", each "*", a value, a range "a-b", a list "a,b-c" and
 * a step "/n" after "*", a range or a value (a value with a step runs to
 * the field's end).  Months may be jan..dec and weekdays sun..sat (0 and 7
 * are Sunday).  When both day fields are restricted (neither starts with
 * "*"), a day matches if either does.  Slots are in local time: a local
 * time a DST change skips does not run that day, one it repeats runs once.
 */
#ifndef HILAB_CRON_H
#define HILAB_CRON_H

#include <stdbool.h>
#include <stdint.h>

/* A parsed expression: one bit per allowed value of each field. */
struct cron {
	uint64_t minute;   /* bits 0..59 */
	uint32_t hour;	   /* bits 0..23 */
	uint32_t mday;	   /* bits 1..31 */
	uint16_t month;	   /* bits 1..12 */
	uint8_t	 wday;	   /* bits 0..6, Sunday 0 */
	bool	 mday_any; /* the day-of-month field starts with '*' */
	bool	 wday_any; /* the day-of-week field starts with '*' */
};

/*
 * Parses text into c: 0, or -1 with *cause naming the expression, the
 * field and why ("cron \"0 3 * * 1-8\": day-of-week: 8 is out of range
 * 0-7"); an expression no date can ever match is refused too.
 */
int cron_parse(const char *text, struct cron *c, char **cause);
/* cron_parse with *why alone ("day-of-week: 8 is out of range 0-7"). */
int cron_read(const char *text, struct cron *c, char **why);
/* The first slot strictly after after_ms (unix ms), or -1 if none soon. */
int64_t cron_next(const struct cron *c, int64_t after_ms);

#endif
