/* hilab: the command line of the lab: argv -> request -> renderer. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/paths.h"
#include "config.h"

static const struct cli_command cli_commands[] = {
	{ "submit", "submit JOB.yaml", cmd_submit },
	{ "list", "list", cmd_list },
	{ "status", "status JOB", cmd_status },
	{ "wait", "wait JOB", cmd_wait },
	{ "cancel", "cancel JOB", cmd_cancel },
	{ "logs", "logs JOB", cmd_logs },
	{ "compare",
	    "compare [--job ID]... [--by job|machine|kernel] "
	    "[--rows params|metric|auto] [--benchmark NAME] [--metric NAME] "
	    "[--style STYLE] [--statistic S]",
	    cmd_compare },
	{ "report", "report JOB [--style amd|change|pct|meansd|markdown]",
	    cmd_report },
	{ "plot",
	    "plot JOB [--format png|svg] [--output DIR] "
	    "[--benchmark NAME]",
	    cmd_plot },
	{ "query", "query SQL [--format text|csv|json]", cmd_query },
	{ "export", "export FILE", cmd_export },
	{ "machines",
	    "machines check [DIR] | machines list | "
	    "machines power NAME on|off|cycle|status | "
	    "machines set NAME good|unknown|bad|maintenance [--reason TEXT]",
	    cmd_machines },
	{ "jobs", "jobs check FILE", cmd_jobs },
	{ "kernels", "kernels list | show ID | build FILE", cmd_kernels },
	{ "sweep",
	    "sweep add NAME FILE --every DURATION [--at HH:MM] | "
	    "list | show NAME | rm NAME | enable NAME | disable NAME",
	    cmd_sweep },
};

/* Prints the list of subcommands. */
static void
cli_help(FILE *f)
{
	size_t i;

	fprintf(f,
	    "usage: hilab [--db FILE] [--socket PATH] [--machines DIR] "
	    "[--catalog DIR] [--json] COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof cli_commands / sizeof cli_commands[0]; i++)
		fprintf(f, "  hilab %s\n", cli_commands[i].usage);
}

/* Parses the global options that stand before the subcommand. */
static int
cli_parse_options(int argc, char **argv, struct cli_options *o)
{
	static const struct option longopts[] = { { "db", required_argument,
						      NULL, 'D' },
		{ "socket", required_argument, NULL, 'S' },
		{ "machines", required_argument, NULL, 'M' },
		{ "catalog", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 } };
	int			   c;

	paths_defaults(&o->db_path, &o->socket_path, &o->machines_dir,
	    &o->catalog_dir);
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			o->db_path = optarg;
			break;
		case 'S':
			o->socket_path = optarg;
			break;
		case 'M':
			o->machines_dir = optarg;
			break;
		case 'C':
			o->catalog_dir = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			cli_help(stdout);
			exit(0);
		case 'V':
			printf("hilab %s\n", HILAB_VERSION);
			exit(0);
		default:
			return -1;
		}
	}
	return optind;
}

int
main(int argc, char **argv)
{
	struct cli_options o = { 0 };
	int		   first;
	size_t		   i;

	if ((first = cli_parse_options(argc, argv, &o)) < 0)
		return cli_usage_error("bad option");
	if (first >= argc) {
		cli_help(stderr);
		return CLI_EXIT_USAGE;
	}
	for (i = 0; i < sizeof cli_commands / sizeof cli_commands[0]; i++) {
		if (strcmp(argv[first], cli_commands[i].name) == 0) {
			optind = 0;
			return cli_commands[i].fn(&o, argc - first,
			    argv + first);
		}
	}
	return cli_usage_error("unknown command \"%s\"", argv[first]);
}
