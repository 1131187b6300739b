/* hilab logs: a job's story as the controller recorded it. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/cli.h"
#include "db/db.h"

/* Prints one event: local time of day, level, machine, run, message. */
static void
logs_print(const struct db_event *e)
{
	time_t	  t = (time_t)(e->time / 1000);
	struct tm tm;
	char	  when[32] = "-";

	if (localtime_r(&t, &tm) != NULL)
		strftime(when, sizeof when, "%H:%M:%S", &tm);
	printf("%s %-5s ", when, db_level_name(e->level));
	if (e->machine != NULL)
		printf("%s ", e->machine);
	if (e->run != 0)
		printf("run %lld: ", (long long)e->run);
	printf("%s\n", e->message);
}

/* hilab logs JOB: every event of the job, oldest first. */
int
cmd_logs(const struct cli_options *o, const struct args *a)
{
	struct db_event *v = NULL;
	struct db_job	*j = NULL;
	struct db	*db;
	char		*cause = NULL;
	json_t		*arr;
	size_t		 n = 0, i;
	int		 rc;

	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((rc = cli_job(db, a->pos[0].num, &j)) != 0)
		goto out;
	if (db_event_list(db, j->id, 0, &v, &n, &cause) == -1) {
		rc = cli_error(CLI_EXIT_UNAVAILABLE, "%s", cause);
		goto out;
	}
	if (o->json) {
		arr = json_array();
		for (i = 0; i < n; i++)
			json_array_append_new(arr, cli_event_json(&v[i]));
		cli_print_json(arr);
	} else
		for (i = 0; i < n; i++)
			logs_print(&v[i]);
out:
	free(cause);
	db_event_list_free(v, n);
	db_job_free(j);
	db_close(db);
	return rc;
}
