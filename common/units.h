/*
 * Durations and sizes: the one grammar machine files, job files, the
 * catalog and command-line flags read, and the one form hilab prints.
 *
 * A duration is a bare number of seconds ("90") or numbers with units,
 * largest first and each unit once: "1d", "1h30m", "90s", "500ms" (units
 * d, h, m, s, ms).  A size is a number with a unit, K, M, G or T (powers of
 * 1024, either case): "512M"; a bare number is not a size.  Neither takes
 * blanks, signs or fractions.
 */
#ifndef HILAB_UNITS_H
#define HILAB_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* The longest duration the grammar reads: ten years, in milliseconds. */
#define UNITS_DURATION_MAX (3650LL * 86400 * 1000)
/* Room for any formatted duration or size, with its terminator. */
#define UNITS_STR_MAX	   32

/* How a flag's error names the grammar: "--every \"x\": not " TEXT. */
#define UNITS_DURATION_TEXT                                                \
	"a duration of 1ms or more such as \"90s\", \"5m\", \"1h30m\" or " \
	"\"1d\" (a bare number is seconds)"

/* Reads a duration into *ms; -1 if s is not one (or is too long). */
int units_parse_duration(const char *s, int64_t *ms);
/*
 * Formats ms as whole seconds ("90s", "86400s"), or milliseconds when it
 * is not whole seconds ("1500ms"), into buf; returns buf.
 */
char *units_format_duration(int64_t ms, char *buf, size_t size);
/*
 * Formats a measured time as units_format_duration does, rounded to whole
 * seconds from 10s on ("750ms", "9500ms", "42s"); returns buf.
 */
char *units_format_elapsed(int64_t ms, char *buf, size_t size);
/* Reads a size into *kib (KiB); -1 if s is not one. */
int units_parse_size(const char *s, uint64_t *kib);
/* Formats kib with the largest unit that divides it ("4G", "1536M"). */
char *units_format_size(uint64_t kib, char *buf, size_t size);

#endif
