/*
 * The grammar of hilab as data: every command, argument and option with
 * its type and a summary, the exit codes and the environment (see
 * cli/options.h).  Nothing here runs; cli/hilab.c maps each command's id
 * to its handler.
 */
#include <stddef.h>

#include "cli/options.h"
#include "common/paths.h"

const char *const cli_styles[] = { "amd", "change", "pct", "meansd", "markdown",
	"csv", "json", NULL };
const char *const cli_report_styles[] = { "amd", "change", "pct", "meansd",
	"markdown", NULL };
const char *const cli_by[] = { "auto", "kernel", "machine", "job", NULL };
const char *const cli_rows[] = { "params", "metric", "auto", NULL };
const char *const cli_statistics[] = { "amean", "hmean", "gmean", "median",
	NULL };
const char *const cli_plot_formats[] = { "png", "svg", NULL };
const char *const cli_query_formats[] = { "text", "csv", "json", NULL };
const char *const cli_power_actions[] = { "on", "off", "cycle", "status",
	NULL };
const char *const cli_healths[] = { "good", "unknown", "bad", "maintenance",
	NULL };

static const struct args_opt cli_global[] = {
	{ "db", 0, ARGS_FILE, "FILE", NULL, 0, PATHS_DB_HELP },
	{ "socket", 0, ARGS_FILE, "PATH", NULL, 0, PATHS_SOCKET_HELP },
	{ "machines", 0, ARGS_DIR, "DIR", NULL, 0, PATHS_MACHINES_HELP },
	{ "catalog", 0, ARGS_DIR, "DIR", NULL, 0,
	    "the benchmark catalog (HILAB_CATALOG)" },
	{ "json", 0, ARGS_FLAG, NULL, NULL, 0,
	    "print JSON (the keys are in the README); errors stay text on "
	    "stderr" },
	{ "help", 'h', ARGS_FLAG, NULL, NULL, 0,
	    "show the help of the command named, and exit" },
	{ "version", 0, ARGS_FLAG, NULL, NULL, 0,
	    "print the version and exit" },
	{ NULL },
};

static const struct args_pos cli_job_arg[] = {
	{ "JOB", ARGS_JOB, NULL, 0, "a job id, as hilab list shows it" },
	{ NULL },
};

static const struct args_pos cli_submit_args[] = {
	{ "JOB_FILE", ARGS_FILE, NULL, 0,
	    "a job file (YAML): machines, kernels, benchmarks" },
	{ NULL },
};

static const struct args_opt cli_wait_opts[] = {
	{ "timeout", 0, ARGS_DURATION, "DURATION", NULL, 0,
	    "give up after this long (exit 4); the job goes on" },
	{ NULL },
};

static const struct args_opt cli_compare_opts[] = {
	{ "job", 0, ARGS_JOB, "JOB", NULL, ARGS_REPEAT,
	    "a job to compare (default: the newest done job); the first "
	    "job's first kernel is the base" },
	{ "by", 0, ARGS_CHOICE, "BY", cli_by, 0,
	    "what the columns are (default auto)" },
	{ "rows", 0, ARGS_CHOICE, "ROWS", cli_rows, 0,
	    "one row per parameter set or per metric (default auto)" },
	{ "benchmark", 0, ARGS_BENCHMARK, "NAME", NULL, 0,
	    "only this benchmark" },
	{ "metric", 0, ARGS_TEXT, "NAME", NULL, 0, "only this metric" },
	{ "base", 0, ARGS_TEXT, "NAME", NULL, 0,
	    "the column to compare the others with" },
	{ "pool", 0, ARGS_FLAG, NULL, NULL, 0,
	    "allow cells that pool machines, kernels or jobs" },
	{ "monitors", 0, ARGS_FLAG, NULL, NULL, 0,
	    "the monitors' deltas too, under the benchmark's tables" },
	{ "style", 0, ARGS_CHOICE, "STYLE", cli_styles, 0,
	    "how tables look (default amd; --json: json)" },
	{ "statistic", 0, ARGS_CHOICE, "S", cli_statistics, 0,
	    "the statistic of every cell (default: each metric's own)" },
	{ NULL },
};

static const struct args_opt cli_report_opts[] = {
	{ "style", 0, ARGS_CHOICE, "STYLE", cli_report_styles, 0,
	    "how its tables look (default amd)" },
	{ NULL },
};

static const struct args_opt cli_plot_opts[] = {
	{ "format", 0, ARGS_CHOICE, "FORMAT", cli_plot_formats, 0,
	    "the image format (default png)" },
	{ "output", 0, ARGS_DIR, "DIR", NULL, 0,
	    "where the files go (default .)" },
	{ "benchmark", 0, ARGS_BENCHMARK, "NAME", NULL, 0,
	    "only this benchmark" },
	{ "metric", 0, ARGS_TEXT, "NAME", NULL, 0,
	    "only this metric (a probe's or a monitor's too)" },
	{ "monitors", 0, ARGS_FLAG, NULL, NULL, 0, "the monitors' deltas too" },
	{ NULL },
};

static const struct args_pos cli_query_args[] = {
	{ "SQL", ARGS_SQL, NULL, 0,
	    "one read-only statement, e.g. over the views v_runs and "
	    "v_samples (db/SCHEMA.md)" },
	{ NULL },
};

static const struct args_opt cli_query_opts[] = {
	{ "format", 0, ARGS_CHOICE, "FORMAT", cli_query_formats, 0,
	    "how rows print (default text; --json: json)" },
	{ "timeout", 0, ARGS_DURATION, "DURATION", NULL, 0,
	    "stop the statement after this long (default 30s)" },
	{ "max-rows", 0, ARGS_INT, "N", NULL, 0,
	    "stop past this many rows (default 1000000; 0: no limit)" },
	{ NULL },
};

static const struct args_pos cli_export_args[] = {
	{ "FILE", ARGS_FILE, NULL, 0, "the copy to write" },
	{ NULL },
};

static const struct args_pos cli_dir_arg[] = {
	{ "DIR", ARGS_DIR, NULL, ARGS_OPTIONAL,
	    "an inventory directory or one machine file (default: --machines)" },
	{ NULL },
};

static const struct args_pos cli_power_args[] = {
	{ "NAME", ARGS_MACHINE, NULL, 0, "a machine of the inventory" },
	{ "ACTION", ARGS_CHOICE, cli_power_actions, 0,
	    "switch the power or read its state" },
	{ NULL },
};

static const struct args_pos cli_set_args[] = {
	{ "NAME", ARGS_MACHINE, NULL, 0, "a machine of the inventory" },
	{ "HEALTH", ARGS_CHOICE, cli_healths, 0,
	    "maintenance or bad: it takes no runs; good: it takes them again" },
	{ NULL },
};

static const struct args_opt cli_set_opts[] = {
	{ "reason", 0, ARGS_TEXT, "TEXT", NULL, 0,
	    "why, shown by machines list and status" },
	{ NULL },
};

static const struct args_cmd cli_machines[] = {
	{ "check", CLI_MACHINES_CHECK,
	    "validate machine files and print them normalized",
	    "Every error is reported as file:line:col; the output reads back "
	    "as the same machines.",
	    cli_dir_arg, NULL, NULL },
	{ "list", CLI_MACHINES_LIST, "the machines of the inventory", NULL,
	    NULL, NULL, NULL },
	{ "power", CLI_MACHINES_POWER,
	    "switch a machine's power through its BMC (IPMI) or power "
	    "commands",
	    NULL, cli_power_args, NULL, NULL },
	{ "set", CLI_MACHINES_SET, "set a machine's health",
	    "A machine in maintenance or bad takes no runs (its queued runs "
	    "wait, and hilab status says why) until it is set good.",
	    cli_set_args, cli_set_opts, NULL },
	{ NULL },
};

static const struct args_pos cli_file_arg[] = {
	{ "FILE", ARGS_FILE, NULL, 0, "a job file (YAML)" },
	{ NULL },
};

static const struct args_cmd cli_jobs[] = {
	{ "check", CLI_JOBS_CHECK,
	    "validate a job file against the catalog and the inventory and "
	    "print it normalized",
	    NULL, cli_file_arg, NULL, NULL },
	{ NULL },
};

static const struct args_pos cli_benchmark_arg[] = {
	{ "NAME", ARGS_BENCHMARK, NULL, 0, "a benchmark of the catalog" },
	{ NULL },
};

static const struct args_cmd cli_benchmarks[] = {
	{ "list", CLI_BENCHMARKS_LIST,
	    "the benchmarks of the catalog: parameters and metrics", NULL, NULL,
	    NULL, NULL },
	{ "show", CLI_BENCHMARKS_SHOW,
	    "one benchmark: command, parameters with types and defaults, "
	    "metrics, install and server",
	    "Printed as a normalized catalog file.", cli_benchmark_arg, NULL,
	    NULL },
	{ NULL },
};

static const struct args_pos cli_kernel_arg[] = {
	{ "ID", ARGS_KERNEL, NULL, 0, "a build id or its first letters" },
	{ NULL },
};

static const struct args_cmd cli_kernels[] = {
	{ "list", CLI_KERNELS_LIST, "the kernels of the build cache", NULL,
	    NULL, NULL, NULL },
	{ "show", CLI_KERNELS_SHOW,
	    "one cached kernel: its tree, patches, config and build log", NULL,
	    cli_kernel_arg, NULL, NULL },
	{ "build", CLI_KERNELS_BUILD,
	    "build (or find in the cache) the kernels a job file names", NULL,
	    cli_file_arg, NULL, NULL },
	{ NULL },
};

static const struct args_pos cli_sweep_add_args[] = {
	{ "NAME", ARGS_TEXT, NULL, 0, "the new sweep's name" },
	{ "FILE", ARGS_FILE, NULL, 0, "the job file, re-read at each slot" },
	{ NULL },
};

static const struct args_opt cli_sweep_add_opts[] = {
	{ "every", 0, ARGS_DURATION, "DURATION", NULL, ARGS_ONE_OF,
	    "how often the job is queued" },
	{ "cron", 0, ARGS_CRON, "EXPR", NULL, ARGS_ONE_OF,
	    "when, as the 5 fields of crontab(5) in local time: minute hour "
	    "day-of-month month day-of-week (\"0 3 * * 1-5\")" },
	{ "at", 0, ARGS_TIME, "HH:MM", NULL, 0,
	    "the local time of day the --every slots are aligned to", "every" },
	{ "confirm-rounds", 0, ARGS_INT, "N", NULL, 0,
	    "rounds of each side in the A/B job that confirms a suspected "
	    "change (2 or more; default 3)" },
	{ "mbox", 0, ARGS_TEXT, "FILE", NULL, 0,
	    "append a mail to this mbox file for a confirmed regression or a "
	    "failed job" },
	{ "mail-command", 0, ARGS_TEXT, "WORD", NULL, ARGS_REPEAT,
	    "pipe that mail to this command, one --mail-command per argv "
	    "word, no shell (--mail-command /usr/sbin/sendmail "
	    "--mail-command -oi --mail-command dev@example.org)" },
	{ "bisect", 0, ARGS_INT, "N", NULL, 0,
	    "bisect each confirmed regression between the commits of its two "
	    "jobs' kernel (built from one git tree), with a budget of N "
	    "samples (10 or more); the result is mailed" },
	{ NULL },
};

static const struct args_pos cli_sweep_arg[] = {
	{ "NAME", ARGS_SWEEP, NULL, 0,
	    "a sweep, as hilab sweep list shows it" },
	{ NULL },
};

static const struct args_cmd cli_sweep[] = {
	{ "add", CLI_SWEEP_ADD, "queue a job file on a schedule",
	    "hilabd re-reads the file at each slot (every --every, or at each "
	    "--cron time; slots missed while it was down run once), queues it "
	    "unless the previous job still runs, and looks for change points "
	    "in each series of the sweep's done jobs. A suspected change is "
	    "re-measured by an interleaved A/B job of the last good kernel "
	    "and the suspect; a confirmed regression, or a failed job, is "
	    "mailed to --mbox and --mail-command.",
	    cli_sweep_add_args, cli_sweep_add_opts, NULL },
	{ "list", CLI_SWEEP_LIST, "every sweep, its schedule and last job",
	    NULL, NULL, NULL, NULL },
	{ "show", CLI_SWEEP_SHOW, "a sweep, its jobs, regressions and events",
	    NULL, cli_sweep_arg, NULL, NULL },
	{ "rm", CLI_SWEEP_RM, "remove a sweep (its jobs stay)", NULL,
	    cli_sweep_arg, NULL, NULL },
	{ "enable", CLI_SWEEP_ENABLE, "queue a sweep again", NULL,
	    cli_sweep_arg, NULL, NULL },
	{ "disable", CLI_SWEEP_DISABLE, "stop queueing a sweep", NULL,
	    cli_sweep_arg, NULL, NULL },
	{ NULL },
};

static const struct args_pos cli_bisect_start_args[] = {
	{ "FILE", ARGS_FILE, NULL, 0,
	    "a job file: its kernel built from git says how each commit is "
	    "built and booted, its benchmark what is measured" },
	{ NULL },
};

static const struct args_opt cli_bisect_start_opts[] = {
	{ "good", 0, ARGS_TEXT, "COMMIT", NULL, ARGS_REQUIRED,
	    "the last commit known good" },
	{ "bad", 0, ARGS_TEXT, "COMMIT", NULL, ARGS_REQUIRED,
	    "a commit known bad; good must be an ancestor (the commits "
	    "between are those of its first parents)" },
	{ "tree", 0, ARGS_DIR, "DIR", NULL, 0,
	    "the git tree (default: the job's kernel's)" },
	{ "machine", 0, ARGS_MACHINE, "NAME", NULL, 0,
	    "the machine, if the job names several" },
	{ "benchmark", 0, ARGS_BENCHMARK, "NAME", NULL, 0,
	    "the benchmark, if the job has several; each of its parameters "
	    "must have one value" },
	{ "metric", 0, ARGS_TEXT, "NAME", NULL, 0,
	    "the metric (default: the benchmark's first)" },
	{ "budget", 0, ARGS_INT, "N", NULL, 0,
	    "samples at most, ends included (default 400)" },
	{ "confidence", 0, ARGS_TEXT, "P", NULL, 0,
	    "the posterior needed to name the first bad commit (default "
	    "0.995)" },
	{ "name", 0, ARGS_TEXT, "NAME", NULL, 0,
	    "the bisection's name (default: the job's)" },
	{ NULL },
};

static const struct args_pos cli_bisect_arg[] = {
	{ "ID", ARGS_INT, NULL, 0,
	    "a bisection, as hilab bisect list shows it" },
	{ NULL },
};

static const struct args_cmd cli_bisect[] = {
	{ "start", CLI_BISECT_START,
	    "find the first bad commit between a good and a bad one",
	    "hilabd measures the ends until they differ, then one commit per "
	    "step job, built, booted and measured between one run of each end "
	    "on the machine (so drift between steps is taken out), and after "
	    "each step picks the commit that splits its belief about where "
	    "the change is most evenly. It ends when one commit (or a range of commits "
	    "that do not build and the one after them) holds the confidence, "
	    "when the ends do not differ, or when the budget is spent.",
	    cli_bisect_start_args, cli_bisect_start_opts, NULL },
	{ "list", CLI_BISECT_LIST, "every bisection and its state", NULL, NULL,
	    NULL, NULL },
	{ "show", CLI_BISECT_SHOW,
	    "a bisection: its result, the evidence of every commit measured, "
	    "its events",
	    NULL, cli_bisect_arg, NULL, NULL },
	{ "cancel", CLI_BISECT_CANCEL,
	    "end a bisection; its step job is cancelled", NULL, cli_bisect_arg,
	    NULL, NULL },
	{ NULL },
};

static const struct args_pos cli_help_args[] = {
	{ "COMMAND", ARGS_COMMAND, NULL, ARGS_OPTIONAL | ARGS_REPEAT,
	    "a command, and a subcommand" },
	{ NULL },
};

static const struct args_cmd cli_commands[] = {
	{ "submit", CLI_SUBMIT,
	    "queue a job (durable even while hilabd is down)",
	    "The job file is checked against the catalog and the inventory, "
	    "resolved and stored; hilabd plans it into runs.",
	    cli_submit_args, NULL, NULL },
	{ "list", CLI_LIST, "jobs with their state and run counts", NULL, NULL,
	    NULL, NULL },
	{ "status", CLI_STATUS, "a job and each of its runs", NULL, cli_job_arg,
	    NULL, NULL },
	{ "wait", CLI_WAIT,
	    "follow a job to its end: runs, iterations, time left",
	    "Exits 0 when the job is done, 1 when it failed or was cancelled, "
	    "4 when --timeout passed, and 3 when hilabd stops answering its "
	    "control socket for 5 seconds (the job itself goes on once hilabd "
	    "is back). On a terminal one line is redrawn; otherwise a line is "
	    "printed at each change.",
	    cli_job_arg, cli_wait_opts, NULL },
	{ "cancel", CLI_CANCEL, "stop a job; its machines are freed", NULL,
	    cli_job_arg, NULL, NULL },
	{ "logs", CLI_LOGS,
	    "a job's story: plan, builds, boots, installs, runs, results, "
	    "errors",
	    NULL, cli_job_arg, NULL, NULL },
	{ "compare", CLI_COMPARE,
	    "comparison tables: one per benchmark metric, a column per "
	    "kernel, machine or job",
	    "Without --job the newest done job is compared. A selection that "
	    "would pool several machines, kernels or jobs into one cell is "
	    "refused unless --pool.",
	    NULL, cli_compare_opts, NULL },
	{ "report", CLI_REPORT,
	    "an LKML-ready text of a job: machines, kernels, environment, "
	    "tables, and the job file that reproduces it",
	    NULL, cli_job_arg, cli_report_opts, NULL },
	{ "plot", CLI_PLOT,
	    "charts of a job: the statistic per parameter and kernel with 95% "
	    "CI error bars",
	    NULL, cli_job_arg, cli_plot_opts, NULL },
	{ "query", CLI_QUERY, "read-only SQL over the database", NULL,
	    cli_query_args, cli_query_opts, NULL },
	{ "export", CLI_EXPORT,
	    "a consistent copy of the database (SQLite backup API)", NULL,
	    cli_export_args, NULL, NULL },
	{ "machines", -1, "the lab inventory", NULL, NULL, NULL, cli_machines },
	{ "jobs", -1, "job files", NULL, NULL, NULL, cli_jobs },
	{ "benchmarks", -1, "the benchmark catalog", NULL, NULL, NULL,
	    cli_benchmarks },
	{ "kernels", -1,
	    "kernels built from git and mbox series, cached by content hash",
	    NULL, NULL, NULL, cli_kernels },
	{ "sweep", -1, "scheduled regression sweeps", NULL, NULL, NULL,
	    cli_sweep },
	{ "bisect", -1,
	    "noise-aware bisection: the first bad commit of a range, measured",
	    NULL, NULL, NULL, cli_bisect },
	{ "help", CLI_HELP, "the help of a command", NULL, cli_help_args, NULL,
	    NULL },
	{ NULL },
};

static const struct args_exit cli_exits[] = {
	{ CLI_EXIT_OK, "success; for wait: the job is done" },
	{ CLI_EXIT_FAIL,
	    "the job or the request failed; for wait: the job failed or was "
	    "cancelled" },
	{ CLI_EXIT_USAGE,
	    "bad arguments, a bad input file (file:line:col), or a job, "
	    "machine, benchmark or sweep that does not exist" },
	{ CLI_EXIT_UNAVAILABLE, "the database or hilabd could not be reached" },
	{ CLI_EXIT_TIMEOUT, "wait --timeout passed before the job ended" },
	{ 0, NULL },
};

static const struct args_env cli_env[] = {
	{ "HILAB_DB", "the database (--db)" },
	{ "HILAB_SOCKET", "hilabd's control socket (--socket)" },
	{ "HILAB_MACHINES", "the inventory directory (--machines)" },
	{ "HILAB_CATALOG", "the benchmark catalog directory (--catalog)" },
	{ "HILAB_KERNEL_CACHE",
	    "the kernel build cache (default /var/cache/hilab/kernels)" },
	{ NULL, NULL },
};

const struct args_prog cli_prog = {
	"hilab",
	"the command line of the lab: submit jobs, follow them, compare "
	"kernels",
	"hilab queues jobs in the database, where hilabd takes them, and "
	"reads what was measured from it: tables, reports and plots whose "
	"direction, unit and statistic come from what each job declared. A "
	"job submitted while hilabd is down waits for it; a cancel is "
	"recorded and hilabd is nudged over its control socket, which hilab "
	"wait also watches.",
	cli_global,
	cli_commands,
	cli_exits,
	cli_env,
};
