/* Logging: one line per message on stderr, "prog: tag: message". */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "log.h"

static const char     *log_prog = "hilab";
static enum log_level  log_max = LOG_LEVEL_INFO;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* Sets the program name printed first and the most verbose level shown. */
void
log_init(const char *progname, enum log_level level)
{
	log_prog = progname;
	log_max = level;
}

static void
log_vlog(enum log_level level, const char *tag, const char *fmt, va_list ap)
{
	static const char *names[] = { "warning", "info", "debug" };

	if (level > log_max)
		return;
	pthread_mutex_lock(&log_lock);
	if (level == LOG_LEVEL_WARN)
		fprintf(stderr, "%s: %s: %s: ", log_prog, names[level], tag);
	else
		fprintf(stderr, "%s: %s: ", log_prog, tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&log_lock);
}

void
log_warn(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_LEVEL_WARN, tag, fmt, ap);
	va_end(ap);
}

void
log_info(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_LEVEL_INFO, tag, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_LEVEL_DEBUG, tag, fmt, ap);
	va_end(ap);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", log_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}
