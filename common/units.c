/* Durations and sizes: see units.h for the grammar. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"

/* The units of a duration, largest first: the order they must come in. */
static const struct {
	const char *name;
	int64_t	    ms;
} units_durations[] = {
	{ "d", 86400000 },
	{ "h", 3600000 },
	{ "m", 60000 },
	{ "s", 1000 },
	{ "ms", 1 },
};
#define UNITS_NDURATIONS (sizeof units_durations / sizeof units_durations[0])

/* Reads the digits at *s into *n, stopping past max; -1 if there are none. */
static int
units_digits(const char **s, uint64_t max, uint64_t *n)
{
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -1;
	for (*n = 0; *p >= '0' && *p <= '9'; p++) {
		*n = *n * 10 + (uint64_t)(*p - '0');
		if (*n > max)
			return -1;
	}
	*s = p;
	return 0;
}

/* The index of the unit s starts with, at or after first; -1 if none. */
static int
units_duration_unit(const char *s, size_t first, size_t *len)
{
	size_t i, n;

	/* "ms" before "m": the longer name wins. */
	if (strncmp(s, "ms", 2) == 0 && first < UNITS_NDURATIONS) {
		*len = 2;
		return (int)UNITS_NDURATIONS - 1;
	}
	for (i = first; i < UNITS_NDURATIONS; i++) {
		n = strlen(units_durations[i].name);
		if (strncmp(s, units_durations[i].name, n) == 0) {
			*len = n;
			return (int)i;
		}
	}
	return -1;
}

/* Reads a duration into *ms; see units.h. */
int
units_parse_duration(const char *s, int64_t *ms)
{
	uint64_t n, total = 0, max = (uint64_t)UNITS_DURATION_MAX;
	size_t	 first = 0, len;
	int	 u;

	if (units_digits(&s, max, &n) == -1)
		return -1;
	if (*s == '\0') {
		if (n > max / 1000)
			return -1;
		*ms = (int64_t)n * 1000;
		return 0;
	}
	for (;;) {
		if ((u = units_duration_unit(s, first, &len)) == -1 ||
		    n > (max - total) / (uint64_t)units_durations[u].ms)
			return -1;
		total += n * (uint64_t)units_durations[u].ms;
		first = (size_t)u + 1;
		if (*(s += len) == '\0')
			break;
		if (units_digits(&s, max, &n) == -1)
			return -1;
	}
	*ms = (int64_t)total;
	return 0;
}

/* Formats ms in seconds, or milliseconds when not whole seconds. */
char *
units_format_duration(int64_t ms, char *buf, size_t size)
{
	if (ms % 1000 == 0)
		snprintf(buf, size, "%" PRId64 "s", ms / 1000);
	else
		snprintf(buf, size, "%" PRId64 "ms", ms);
	return buf;
}

/* Formats a measured time: to the ms below 10s, else in whole seconds. */
char *
units_format_elapsed(int64_t ms, char *buf, size_t size)
{
	if (ms >= 10000)
		ms = (ms + 500) / 1000 * 1000;
	return units_format_duration(ms, buf, size);
}

/* Reads a size with its unit into *kib. */
int
units_parse_size(const char *s, uint64_t *kib)
{
	static const char units[] = "KMGT";
	const char	 *u;
	uint64_t	  n;

	if (units_digits(&s, UINT64_MAX / 1024, &n) == -1 || s[0] == '\0' ||
	    s[1] != '\0' ||
	    (u = strchr(units, toupper((unsigned char)s[0]))) == NULL)
		return -1;
	for (; u > units; u--) {
		if (n > UINT64_MAX / 1024)
			return -1;
		n *= 1024;
	}
	*kib = n;
	return 0;
}

/* Formats kib with the largest unit that divides it. */
char *
units_format_size(uint64_t kib, char *buf, size_t size)
{
	const char *units = "KMGT";

	while (units[1] != '\0' && kib != 0 && kib % 1024 == 0) {
		kib /= 1024;
		units++;
	}
	snprintf(buf, size, "%" PRIu64 "%c", kib, units[0]);
	return buf;
}
