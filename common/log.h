/* Logging to stderr with a component tag; levels set once by main(). */
#ifndef HILAB_LOG_H
#define HILAB_LOG_H

enum log_level { LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

void log_init(const char *progname, enum log_level);
void log_warn(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void log_info(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void log_debug(const char *tag, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints and exits 1: for main() and broken invariants only. */
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2)))
__attribute__((noreturn));

#endif
