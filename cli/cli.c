/*
 * What every command of the CLI shares: errors and their exit codes, JSON
 * and time printing, the database, the nudge to hilabd, job ids.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"
#include "common/control.h"
#include "db/db.h"

/* Prints "hilab: " and the message to stderr. */
static void
cli_vwarn(const char *fmt, va_list ap)
{
	fputs("hilab: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* Prints "hilab: " and the message, and points at --help. */
int
cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vwarn(fmt, ap);
	va_end(ap);
	fputs("\n(see 'hilab --help')\n", stderr);
	return CLI_EXIT_USAGE;
}

/* Prints "hilab: " and the message; returns code. */
int
cli_error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vwarn(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* Prints v on stdout, indented, keys sorted. */
void
cli_print_json(json_t *v)
{
	json_dumpf(v, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
	fputc('\n', stdout);
}

/* Formats a unix-ms time as local "YYYY-mm-dd HH:MM:SS", or "-" for 0. */
void
cli_time(int64_t ms, char *buf, size_t size)
{
	time_t	  t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms == 0 || localtime_r(&t, &tm) == NULL)
		snprintf(buf, size, "-");
	else
		strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

/* Opens the database for the CLI; prints why not. */
struct db *
cli_db_open(const struct cli_options *o, bool write)
{
	struct db *db;
	char	  *cause = NULL;

	db = write ? db_open(o->db_path, &cause)
		   : db_open_readonly(o->db_path, &cause);
	if (db == NULL) {
		fprintf(stderr, "hilab: %s\n", cause);
		free(cause);
	}
	return db;
}

/* Tells hilabd there is new work; false if it is not running. */
bool
cli_nudge(const struct cli_options *o)
{
	char *reply, *cause = NULL;

	if ((reply = control_call(o->socket_path, "nudge", &cause)) == NULL) {
		free(cause);
		return false;
	}
	free(reply);
	return true;
}

/* Parses a job id argument; -1 if it is not one. */
long long
cli_job_id(const char *s)
{
	char	 *end;
	long long v;

	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || v <= 0)
		return -1;
	return v;
}
