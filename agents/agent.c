/*
 * hilab-agent: the per-host agent.
 *
 *	hilab-agent [--dir DIR] serve	speak the protocol on stdin/stdout
 *	hilab-agent facts		print the host's facts
 *	hilab-agent probe NAME ARGS...	run a native probe (probe list)
 *	hilab-agent [--dir DIR] tune [--root ROOT] KEY=VALUE...
 *					apply a machine setup, hold it, restore
 *	hilab-agent --version
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#include "agents/agent.h"
#include "common/log.h"

/* Prints how to call the agent. */
static void __attribute__((noreturn)) agent_usage(int code)
{
	fprintf(code ? stderr : stdout,
	    "usage: hilab-agent [--dir DIR] serve\n"
	    "       hilab-agent facts\n"
	    "       hilab-agent probe list | NAME [ARGS...]\n"
	    "       hilab-agent [--dir DIR] tune [--root ROOT] KEY=VALUE...\n"
	    "       hilab-agent --version\n");
	exit(code);
}

/* "facts": prints every fact, absent ones marked. */
static int
agent_facts(void)
{
	struct fact *facts;
	size_t	     n;

	facts = facts_collect(&n);
	facts_print(stdout, facts, n);
	facts_free(facts, n);
	return fflush(stdout) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = { { "dir", required_argument, NULL,
						  'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' }, { NULL, 0, NULL, 0 } };
	const char		  *dir = AGENT_DEFAULT_DIR;
	int			   c;

	log_init("hilab-agent", LOG_LEVEL_INFO);
	while ((c = getopt_long(argc, argv, "+d:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'h':
			agent_usage(0);
		case 'V':
			printf("hilab-agent %s %s\n", HILAB_VERSION,
			    AGENT_ARCH);
			return 0;
		default:
			agent_usage(1);
		}
	}
	if (optind < argc && strcmp(argv[optind], "probe") == 0)
		return probe_main(argc - optind, argv + optind);
	if (optind < argc && strcmp(argv[optind], "tune") == 0)
		return tune_main(dir, argc - optind, argv + optind);
	if (optind + 1 != argc)
		agent_usage(1);
	if (strcmp(argv[optind], "serve") == 0)
		return serve_main(dir);
	if (strcmp(argv[optind], "facts") == 0)
		return agent_facts();
	agent_usage(1);
}
