/*
 * Logging: one line per message on stderr, "prog: tag: message", or with
 * stamps (a daemon's log) "YYYY-mm-dd HH:MM:SS.mmm prog[pid] level tag:
 * message".
 */
#include <sys/time.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "log.h"

static const char     *log_prog = "hilab";
static enum log_level  log_max = LOG_LEVEL_INFO;
static bool	       log_stamps;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
/* A line's level as stamped; -v's lines are info lines. */
static const char *const log_names[] = { "error", "warn", "info", "info",
	"debug" };

/* Sets the program name printed first and the most verbose level shown. */
void
log_init(const char *progname, enum log_level level)
{
	log_prog = progname;
	log_max = level;
}

/* Turns the time, pid and level at the start of lines on or off. */
void
log_set_stamps(bool on)
{
	log_stamps = on;
}

/* Writes "YYYY-mm-dd HH:MM:SS.mmm prog[pid] level " (lock held). */
static void
log_stamp(const char *level)
{
	struct timeval tv;
	struct tm      tm;
	char	       when[32];

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
	fprintf(stderr, "%s.%03ld %s[%ld] %s ", when, (long)tv.tv_usec / 1000,
	    log_prog, (long)getpid(), level);
}

/* Writes one message at level, if the level set shows it. */
static void
log_vlog(enum log_level level, const char *tag, const char *fmt, va_list ap)
{
	if (level > log_max)
		return;
	pthread_mutex_lock(&log_lock);
	if (log_stamps) {
		log_stamp(log_names[level]);
		fprintf(stderr, "%s: ", tag);
	} else if (level == LOG_LEVEL_WARN)
		fprintf(stderr, "%s: warning: %s: ", log_prog, tag);
	else if (level == LOG_LEVEL_ERROR)
		fprintf(stderr, "%s: error: %s: ", log_prog, tag);
	else
		fprintf(stderr, "%s: %s: ", log_prog, tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&log_lock);
}

/* Logs what failed. */
void
log_error(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_LEVEL_ERROR, tag, fmt, ap);
	va_end(ap);
}

/* Logs what went wrong but was got over. */
void
log_warn(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_LEVEL_WARN, tag, fmt, ap);
	va_end(ap);
}

/* Logs what happens. */
void
log_info(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_LEVEL_INFO, tag, fmt, ap);
	va_end(ap);
}

/* Logs the details -v asks for. */
void
log_verbose(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_LEVEL_VERBOSE, tag, fmt, ap);
	va_end(ap);
}

/* Logs what -d asks for. */
void
log_debug(const char *tag, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vlog(LOG_LEVEL_DEBUG, tag, fmt, ap);
	va_end(ap);
}

/* Logs and exits 1. */
void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pthread_mutex_lock(&log_lock);
	if (log_stamps)
		log_stamp(log_names[LOG_LEVEL_ERROR]);
	fprintf(stderr, "%s: ", log_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&log_lock);
	va_end(ap);
	exit(1);
}
