/* hilab submit and jobs check: job files in, the queue or a check out. */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "cli/cli.h"
#include "db/db.h"
#include "jobs/job.h"

/* What jobs check --json prints: the file and the job as it is stored. */
static json_t *
jobs_check_json(const char *path, const struct job *job)
{
	char   *text = job_to_json(job);
	json_t *stored = json_loads(text, 0, NULL);

	free(text);
	return json_pack("{s:s, s:b, s:o}", "file", path, "valid", 1, "job",
	    stored != NULL ? stored : json_null());
}

/* hilab jobs check FILE: the job normalized (YAML), or as stored (JSON). */
int
cmd_jobs_check(const struct cli_options *o, const struct args *a)
{
	const char *path = a->pos[0].text;
	struct job *job;

	if ((job = cli_job_load(o, path)) == NULL)
		return CLI_EXIT_USAGE;
	if (o->json)
		cli_print_json(jobs_check_json(path, job));
	else
		job_print(stdout, job);
	job_free(job);
	return CLI_EXIT_OK;
}

/* Says what was queued, and whether hilabd heard of it. */
static void
submit_print(const struct cli_options *o, int64_t id, const struct job *job)
{
	bool up = cli_nudge(o);

	if (o->json)
		cli_print_json(json_pack("{s:I, s:s, s:b}", "job",
		    (json_int_t)id, "name", job->name, "hilabd", up));
	else
		printf("job %lld queued: %s\n", (long long)id, job->name);
	if (!up)
		fprintf(stderr,
		    "hilab: hilabd is not answering at \"%s\"; "
		    "the job waits in the queue\n",
		    o->socket_path);
}

/* hilab submit JOB_FILE: checks, resolves and queues a job. */
int
cmd_submit(const struct cli_options *o, const struct args *a)
{
	const char *path = a->pos[0].text;
	struct job *job;
	struct db  *db;
	char	   *json, *cause = NULL;
	int64_t	    id = -1;

	if ((job = cli_job_load(o, path)) == NULL)
		return CLI_EXIT_USAGE;
	json = job_to_json(job);
	if ((db = cli_db_open(o, true)) == NULL)
		goto out;
	if ((id = db_job_insert(db, job->name, path, json, &cause)) == -1)
		fprintf(stderr, "hilab: %s\n", cause);
	else
		submit_print(o, id, job);
out:
	free(cause);
	free(json);
	job_free(job);
	db_close(db);
	return id == -1 ? CLI_EXIT_UNAVAILABLE : CLI_EXIT_OK;
}
