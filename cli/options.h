/*
 * The grammar of hilab as data (cli/options.c): every command and
 * subcommand with its arguments, its options and their types, a summary,
 * the exit codes and the environment.  It drives parsing, usage errors and
 * --help (common/args.h), and holds all that man pages and shell
 * completion need, so a generator can link it alone.
 */
#ifndef HILAB_CLI_OPTIONS_H
#define HILAB_CLI_OPTIONS_H

#include "common/args.h"

/* Exit codes of hilab; cli_prog.exits says what each means. */
#define CLI_EXIT_OK	     0 /* done; for wait: the job is done */
#define CLI_EXIT_FAIL	     1 /* the job or the request failed */
#define CLI_EXIT_USAGE	     2 /* bad arguments, a bad file, no such thing */
#define CLI_EXIT_UNAVAILABLE 3 /* the database or hilabd cannot be reached */
#define CLI_EXIT_TIMEOUT     4 /* wait --timeout passed first */

/* The handler of each leaf command (args_cmd.id). */
enum cli_cmd_id {
	CLI_SUBMIT,
	CLI_LIST,
	CLI_STATUS,
	CLI_WAIT,
	CLI_CANCEL,
	CLI_LOGS,
	CLI_COMPARE,
	CLI_REPORT,
	CLI_PLOT,
	CLI_QUERY,
	CLI_EXPORT,
	CLI_MACHINES_CHECK,
	CLI_MACHINES_LIST,
	CLI_MACHINES_POWER,
	CLI_MACHINES_SET,
	CLI_JOBS_CHECK,
	CLI_BENCHMARKS_LIST,
	CLI_BENCHMARKS_SHOW,
	CLI_KERNELS_LIST,
	CLI_KERNELS_SHOW,
	CLI_KERNELS_BUILD,
	CLI_SWEEP_ADD,
	CLI_SWEEP_LIST,
	CLI_SWEEP_SHOW,
	CLI_SWEEP_RM,
	CLI_SWEEP_ENABLE,
	CLI_SWEEP_DISABLE,
	CLI_BISECT_START,
	CLI_BISECT_LIST,
	CLI_BISECT_SHOW,
	CLI_BISECT_CANCEL,
	CLI_HELP,
	CLI_NCMDS
};

extern const struct args_prog cli_prog;

/* The choices of options that name a library's values (checked by tests). */
extern const char *const cli_styles[];	      /* compare --style */
extern const char *const cli_report_styles[]; /* report --style */
extern const char *const cli_by[];	      /* compare --by */
extern const char *const cli_rows[];	      /* compare --rows */
extern const char *const cli_statistics[];    /* compare --statistic */
extern const char *const cli_plot_formats[];  /* plot --format */
extern const char *const cli_query_formats[]; /* query --format */
extern const char *const cli_power_actions[]; /* machines power */
extern const char *const cli_healths[];	      /* machines set */

#endif
