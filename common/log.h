/* Logging to stderr with a component tag; levels set once by main(). */
#ifndef HILAB_LOG_H
#define HILAB_LOG_H

#include <stdbool.h>

/* From the least to the most said: the level set shows it and those above. */
enum log_level {
	LOG_LEVEL_ERROR,   /* what failed */
	LOG_LEVEL_WARN,	   /* what went wrong but was got over */
	LOG_LEVEL_INFO,	   /* what happens: the default */
	LOG_LEVEL_VERBOSE, /* each result stored, each control request (-v) */
	LOG_LEVEL_DEBUG	   /* what the libraries see (-d) */
};

void log_init(const char *progname, enum log_level);
/*
 * Starts every line with the local time to the millisecond, the program
 * and its pid, and the level ("error", "warn", "info", "debug"): for a
 * daemon, whose stderr is its log.  Off: "prog: tag: message".
 */
void log_set_stamps(bool);
void log_error(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void log_warn(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void log_info(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* An info line shown from LOG_LEVEL_VERBOSE on (-v). */
void log_verbose(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void log_debug(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints (as an error line) and exits 1: for main() and broken invariants. */
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));

#endif
