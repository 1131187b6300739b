/*
 * The hilab command: what every command shares (cli.c) and the handlers
 * of the commands of cli/options.c.  A handler gets the global options and
 * the parsed line, checked against the table already, and returns an exit
 * code (cli/options.h).
 */
#ifndef HILAB_CLI_H
#define HILAB_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli/options.h"
#include "common/args.h"

struct catalog;
struct compare_table;
struct db;
struct db_event;
struct db_job;
struct inventory;
struct job;
struct select_result;
struct json_t;

struct cli_options {
	const char *db_path;	  /* --db, HILAB_DB */
	const char *socket_path;  /* --socket, HILAB_SOCKET */
	const char *machines_dir; /* --machines, HILAB_MACHINES */
	const char *catalog_dir;  /* --catalog, HILAB_CATALOG */
	bool	    json;	  /* --json */
};

typedef int (*cli_handler)(const struct cli_options *, const struct args *);

/* Prints "hilab: message" to stderr and returns code. */
int cli_error(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints a cause (one or more lines) as it is and returns code. */
int cli_cause(int code, char *cause);

/* Opens the database (read-only unless write); prints why not. */
struct db *cli_db_open(const struct cli_options *, bool write);
/*
 * Reads job id into *j.  Returns 0, or prints why not and returns the exit
 * code: CLI_EXIT_USAGE for a job that does not exist ("job 12: no such
 * job"), CLI_EXIT_UNAVAILABLE when the database failed.
 */
int cli_job(struct db *, int64_t id, struct db_job **j);
/* Loads the inventory and the catalog; prints every error (NULL then). */
struct inventory *cli_inventory(const char *dir);
struct catalog	 *cli_catalog(const struct cli_options *);
/*
 * Loads a job file against the catalog and the inventory, printing every
 * error and each warning about its parser samples; NULL on errors.
 */
struct job *cli_job_load(const struct cli_options *, const char *path);
/*
 * Says that no samples match (CLI_EXIT_FAIL) and, for a --benchmark that
 * is not in the catalog, the closest that is.
 */
int cli_no_samples(const struct cli_options *, const char *benchmark);
/* Tells hilabd there is new work; false if it is not running. */
bool cli_nudge(const struct cli_options *);

/* Prints a JSON value (taking it), indented, keys sorted, to stdout. */
void cli_print_json(struct json_t *);
/* A unix-ms time as JSON: null for 0 (unset). */
struct json_t *cli_time_json(int64_t ms);
/* A job as JSON: the keys the README lists for list, status and wait. */
struct json_t *cli_job_json(const struct db_job *);
/* An event as JSON: the keys the README lists for logs and sweep show. */
struct json_t *cli_event_json(const struct db_event *);
/* The tables of a selection as an array of pointers (caller frees it). */
struct compare_table **cli_select_tables(const struct select_result *);
/* Formats a unix-ms time as local "YYYY-mm-dd HH:MM:SS", or "-" for 0. */
void cli_time(int64_t ms, char *buf, size_t size);

int cmd_submit(const struct cli_options *, const struct args *);
int cmd_list(const struct cli_options *, const struct args *);
int cmd_status(const struct cli_options *, const struct args *);
int cmd_wait(const struct cli_options *, const struct args *);
int cmd_cancel(const struct cli_options *, const struct args *);
int cmd_logs(const struct cli_options *, const struct args *);
int cmd_compare(const struct cli_options *, const struct args *);
int cmd_report(const struct cli_options *, const struct args *);
int cmd_plot(const struct cli_options *, const struct args *);
int cmd_query(const struct cli_options *, const struct args *);
int cmd_export(const struct cli_options *, const struct args *);
int cmd_machines_check(const struct cli_options *, const struct args *);
int cmd_machines_list(const struct cli_options *, const struct args *);
int cmd_machines_power(const struct cli_options *, const struct args *);
int cmd_machines_set(const struct cli_options *, const struct args *);
int cmd_jobs_check(const struct cli_options *, const struct args *);
int cmd_benchmarks_list(const struct cli_options *, const struct args *);
int cmd_benchmarks_show(const struct cli_options *, const struct args *);
int cmd_kernels_list(const struct cli_options *, const struct args *);
int cmd_kernels_show(const struct cli_options *, const struct args *);
int cmd_kernels_build(const struct cli_options *, const struct args *);
int cmd_sweep_add(const struct cli_options *, const struct args *);
int cmd_sweep_list(const struct cli_options *, const struct args *);
int cmd_sweep_show(const struct cli_options *, const struct args *);
int cmd_bisect_start(const struct cli_options *, const struct args *);
int cmd_bisect_list(const struct cli_options *, const struct args *);
int cmd_bisect_show(const struct cli_options *, const struct args *);
int cmd_bisect_cancel(const struct cli_options *, const struct args *);
/* sweep rm, enable and disable: the command's name says which. */
int cmd_sweep_change(const struct cli_options *, const struct args *);

#endif
