/*
 * hilab: the command line of the lab: argv -> request -> renderer.  The
 * line is read against the table of cli/options.c; each command's id
 * selects its handler here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "common/paths.h"
#include "common/xmalloc.h"
#include "config.h"

static int cli_help(const struct cli_options *, const struct args *);

static const cli_handler cli_handlers[CLI_NCMDS] = {
	[CLI_SUBMIT] = cmd_submit,
	[CLI_LIST] = cmd_list,
	[CLI_STATUS] = cmd_status,
	[CLI_WAIT] = cmd_wait,
	[CLI_CANCEL] = cmd_cancel,
	[CLI_LOGS] = cmd_logs,
	[CLI_COMPARE] = cmd_compare,
	[CLI_REPORT] = cmd_report,
	[CLI_PLOT] = cmd_plot,
	[CLI_QUERY] = cmd_query,
	[CLI_EXPORT] = cmd_export,
	[CLI_MACHINES_CHECK] = cmd_machines_check,
	[CLI_MACHINES_LIST] = cmd_machines_list,
	[CLI_MACHINES_POWER] = cmd_machines_power,
	[CLI_MACHINES_SET] = cmd_machines_set,
	[CLI_JOBS_CHECK] = cmd_jobs_check,
	[CLI_BENCHMARKS_LIST] = cmd_benchmarks_list,
	[CLI_BENCHMARKS_SHOW] = cmd_benchmarks_show,
	[CLI_KERNELS_LIST] = cmd_kernels_list,
	[CLI_KERNELS_SHOW] = cmd_kernels_show,
	[CLI_KERNELS_BUILD] = cmd_kernels_build,
	[CLI_SWEEP_ADD] = cmd_sweep_add,
	[CLI_SWEEP_LIST] = cmd_sweep_list,
	[CLI_SWEEP_SHOW] = cmd_sweep_show,
	[CLI_SWEEP_RM] = cmd_sweep_change,
	[CLI_SWEEP_ENABLE] = cmd_sweep_change,
	[CLI_SWEEP_DISABLE] = cmd_sweep_change,
	[CLI_BISECT_START] = cmd_bisect_start,
	[CLI_BISECT_LIST] = cmd_bisect_list,
	[CLI_BISECT_SHOW] = cmd_bisect_show,
	[CLI_BISECT_CANCEL] = cmd_bisect_cancel,
	[CLI_HELP] = cli_help,
};

/* hilab help [COMMAND [SUBCOMMAND]]: the help of the commands named. */
static int
cli_help(const struct cli_options *o, const struct args *a)
{
	char	  **argv = xcalloc(a->npos + 3, sizeof *argv);
	struct args h;
	char	   *cause = NULL;
	size_t	    i;
	int	    rc = CLI_EXIT_OK;

	(void)o;
	argv[0] = (char *)"hilab";
	for (i = 0; i < a->npos; i++)
		argv[i + 1] = (char *)a->pos[i].text;
	if (args_parse(&cli_prog, (int)a->npos + 1, argv, &h, &cause) == -1 &&
	    h.cmd == NULL)
		rc = cli_error(CLI_EXIT_USAGE, "help: %s", cause);
	else
		args_help(stdout, &h);
	free(cause);
	args_clear(&h);
	free(argv);
	return rc;
}

/* Prints a usage error, the command's usage and where to read more. */
static int
cli_usage(const struct args *a, const char *cause)
{
	char *name = args_name(a);

	fprintf(stderr, "hilab: %s\n", cause);
	args_usage(stderr, a);
	fprintf(stderr, "(see '%s --help')\n", name);
	free(name);
	return CLI_EXIT_USAGE;
}

/* The paths and --json of the line, over the environment's. */
static void
cli_options_fill(struct cli_options *o, const struct args *a)
{
	paths_defaults(&o->db_path, &o->socket_path, &o->machines_dir,
	    &o->catalog_dir);
	o->db_path = args_text(a, "db", o->db_path);
	o->socket_path = args_text(a, "socket", o->socket_path);
	o->machines_dir = args_text(a, "machines", o->machines_dir);
	o->catalog_dir = args_text(a, "catalog", o->catalog_dir);
	o->json = args_flag(a, "json");
}

/* hilab --version, as text or JSON. */
static int
cli_version(const struct cli_options *o)
{
	if (o->json)
		cli_print_json(json_pack("{s:s}", "version", HILAB_VERSION));
	else
		printf("hilab %s\n", HILAB_VERSION);
	return CLI_EXIT_OK;
}

/* Reads the line against the table and runs its command. */
int
main(int argc, char **argv)
{
	struct cli_options o = { 0 };
	struct args	   a;
	char		  *cause = NULL;
	int		   rc;

	if (args_parse(&cli_prog, argc, argv, &a, &cause) == -1)
		rc = cli_usage(&a, cause);
	else if (a.help) {
		args_help(stdout, &a);
		rc = CLI_EXIT_OK;
	} else {
		cli_options_fill(&o, &a);
		if (args_flag(&a, "version"))
			rc = cli_version(&o);
		else if (a.cmd == NULL) {
			args_help(stderr, &a);
			rc = CLI_EXIT_USAGE;
		} else
			rc = cli_handlers[a.cmd->id](&o, &a);
	}
	free(cause);
	args_clear(&a);
	return rc;
}
