/* The hilab command: shared options and the subcommand table. */
#ifndef HILAB_CLI_H
#define HILAB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Exit codes, documented in the README. */
#define CLI_EXIT_OK	     0 /* done; for wait: the job succeeded */
#define CLI_EXIT_FAIL	     1 /* the job or the check failed */
#define CLI_EXIT_USAGE	     2 /* bad arguments or bad input file */
#define CLI_EXIT_UNAVAILABLE 3 /* database or daemon unreachable */

struct cli_options {
	const char *db_path;	  /* --db, HILAB_DB */
	const char *socket_path;  /* --socket, HILAB_SOCKET */
	const char *machines_dir; /* --machines, HILAB_MACHINES */
	const char *catalog_dir;  /* --catalog, HILAB_CATALOG */
	bool	    json;	  /* --json */
};

struct cli_command {
	const char *name;
	const char *usage;
	int (*fn)(const struct cli_options *, int, char **);
};

/* Prints "hilab: message" to stderr and returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct db;
struct json_t;
/* Opens the database (read-only unless write); prints why not. */
struct db *cli_db_open(const struct cli_options *, bool write);
/* Tells hilabd there is new work; false if it is not running. */
bool cli_nudge(const struct cli_options *);
/* Parses a job id; -1 if the text is not one. */
long long cli_job_id(const char *);
/* Prints a JSON value, indented, with a final newline, to stdout. */
void cli_print_json(struct json_t *);
/* Formats a unix-ms time as local "YYYY-mm-dd HH:MM:SS", or "-" for 0. */
void cli_time(int64_t ms, char *buf, size_t size);

int cmd_machines(const struct cli_options *, int, char **);
int cmd_jobs(const struct cli_options *, int, char **);
int cmd_submit(const struct cli_options *, int, char **);
int cmd_list(const struct cli_options *, int, char **);
int cmd_status(const struct cli_options *, int, char **);
int cmd_wait(const struct cli_options *, int, char **);
int cmd_cancel(const struct cli_options *, int, char **);
int cmd_logs(const struct cli_options *, int, char **);
int cmd_compare(const struct cli_options *, int, char **);
int cmd_export(const struct cli_options *, int, char **);
int cmd_report(const struct cli_options *, int, char **);
int cmd_plot(const struct cli_options *, int, char **);
int cmd_query(const struct cli_options *, int, char **);
int cmd_kernels(const struct cli_options *, int, char **);
int cmd_sweep(const struct cli_options *, int, char **);

#endif
