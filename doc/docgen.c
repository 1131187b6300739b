/*
 * hilab-docgen: writes the man pages and bash completions that come from
 * the programs' option tables (cli/options.c, hilabd/options.c), at build
 * time, so that they always say what --help says.
 *
 *	hilab-docgen hilab.1 | hilabd.8 | hilab.bash | hilabd.bash
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"

#include "cli/options.h"
#include "common/args.h"
#include "common/paths.h"
#include "hilabd/options.h"

static const char *const docgen_files[] = {
	PATHS_MACHINES,
	"the inventory: one machine file per machine "
	"(hilab-machines(5))",
	PATHS_DB,
	"the database: jobs, runs, every sample, events",
	PATHS_SOCKET,
	"hilabd's control socket",
	HILAB_DATADIR "/benchmarks",
	"the benchmark catalog",
	HILAB_DOCDIR "/examples",
	"example job and machine files",
	HILAB_DOCDIR "/SCHEMA.md",
	"the database's tables and views",
	"/var/cache/hilab",
	"built kernels and benchmarks",
	NULL,
};

/* Where the lab's names come from, for completion. */
static const struct args_lookup docgen_lookups[] = {
	{ "machine", "machines list", "name" },
	{ "benchmark", "benchmarks list", "name" },
	{ "sweep", "sweep list", "name" },
	{ "job", "list", "id" },
	{ NULL, NULL, NULL },
};

/* The page's date: SOURCE_DATE_EPOCH's day (reproducible), or none. */
static const char *
docgen_date(void)
{
	static char buf[16];
	const char *e = getenv("SOURCE_DATE_EPOCH");
	time_t	    t;
	struct tm   tm;

	if (e == NULL || *e == '\0')
		return "";
	t = (time_t)strtoll(e, NULL, 10);
	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, sizeof buf, "%Y-%m-%d", &tm) == 0)
		return "";
	return buf;
}

int
main(int argc, char **argv)
{
	struct args_man page = { 1, docgen_date(), HILAB_VERSION, docgen_files,
		NULL };

	if (argc != 2) {
		fprintf(stderr,
		    "usage: hilab-docgen hilab.1 | hilabd.8 | "
		    "hilab.bash | hilabd.bash\n");
		return 2;
	}
	if (strcmp(argv[1], "hilab.1") == 0) {
		page.see_also = "hilabd(8), hilab-agent(8), hilab-machines(5), "
				"hilab-jobs(5)";
		args_man(stdout, &cli_prog, &page);
	} else if (strcmp(argv[1], "hilabd.8") == 0) {
		page.section = 8;
		page.see_also = "hilab(1), hilab-agent(8), hilab-machines(5), "
				"hilab-jobs(5), systemd.service(5)";
		args_man(stdout, &hilabd_prog, &page);
	} else if (strcmp(argv[1], "hilab.bash") == 0)
		args_bash(stdout, &cli_prog, docgen_lookups);
	else if (strcmp(argv[1], "hilabd.bash") == 0)
		args_bash(stdout, &hilabd_prog, NULL);
	else {
		fprintf(stderr, "hilab-docgen: unknown output \"%s\"\n",
		    argv[1]);
		return 2;
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}
