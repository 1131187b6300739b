/* hilab submit, jobs check, list, status, cancel: the job queue. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/catalog.h"
#include "cli/cli.h"
#include "common/control.h"
#include "db/db.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/inventory.h"

/* Warns, line by line, of parser_samples that lack a required metric. */
static void
jobs_check_samples(const char *path, const struct job *job)
{
	char  *msg, *line, *save = NULL;
	size_t i;

	for (i = 0; i < job->nbenchmarks; i++) {
		if ((msg = plan_check_sample(&job->benchmarks[i])) == NULL)
			continue;
		for (line = strtok_r(msg, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(stderr, "%s: warning: %s\n", path, line);
		free(msg);
	}
}

/* Loads and validates a job file against the catalog and inventory. */
static struct job *
jobs_load(const struct cli_options *o, const char *path)
{
	struct catalog	 *cat = NULL;
	struct inventory *inv = NULL;
	struct job	 *job = NULL;
	char		 *cause = NULL;

	if ((cat = catalog_load(o->catalog_dir, &cause)) == NULL ||
	    (inv = inventory_load(o->machines_dir, &cause)) == NULL)
		goto out;
	if ((job = job_load(path, cat, inv, &cause)) != NULL)
		jobs_check_samples(path, job);
out:
	if (cause != NULL)
		fprintf(stderr, "%s\n", cause);
	free(cause);
	catalog_free(cat);
	inventory_free(inv);
	return job;
}

int
cmd_jobs(const struct cli_options *o, int argc, char **argv)
{
	struct job *job;

	if (argc != 3 || strcmp(argv[1], "check") != 0)
		return cli_usage_error("usage: hilab jobs check FILE");
	if ((job = jobs_load(o, argv[2])) == NULL)
		return CLI_EXIT_USAGE;
	job_print(stdout, job);
	job_free(job);
	return CLI_EXIT_OK;
}

int
cmd_submit(const struct cli_options *o, int argc, char **argv)
{
	struct job *job;
	struct db  *db;
	char	   *json, *cause = NULL;
	int64_t	    id;

	if (argc != 2)
		return cli_usage_error("usage: hilab submit JOB.yaml");
	if ((job = jobs_load(o, argv[1])) == NULL)
		return CLI_EXIT_USAGE;
	json = job_to_json(job);
	if ((db = cli_db_open(o, true)) == NULL) {
		id = -1;
		goto out;
	}
	if ((id = db_job_insert(db, job->name, argv[1], json, &cause)) == -1)
		fprintf(stderr, "hilab: %s\n", cause);
	else if (o->json)
		printf("{\"job\": %lld}\n", (long long)id);
	else
		printf("job %lld queued: %s\n", (long long)id, job->name);
	if (id != -1 && !cli_nudge(o))
		fprintf(stderr,
		    "hilab: hilabd is not answering at \"%s\"; "
		    "the job waits in the queue\n",
		    o->socket_path);
out:
	free(cause);
	free(json);
	job_free(job);
	db_close(db);
	return id == -1 ? CLI_EXIT_UNAVAILABLE : CLI_EXIT_OK;
}
