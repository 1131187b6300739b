/* hilab wait and logs: follow a job until it ends; read its events. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/clock.h"
#include "common/units.h"
#include "db/db.h"

#define WAIT_POLL_MS 300
#define WAIT_BAR     30

/* Prints the progress of a job: a bar on a terminal, else a line. */
static void
wait_progress(const struct db_job *j, bool tty, int *last_done)
{
	int total = 0, ended, i, fill;

	for (i = 0; i < DB_NSTATES; i++)
		total += j->runs[i];
	ended = j->runs[DB_DONE] + j->runs[DB_FAILED] + j->runs[DB_CANCELLED];
	if (tty) {
		fill = total ? ended * WAIT_BAR / total : 0;
		printf("\rjob %lld [%-*.*s] %d/%d runs, %d failed  ",
		    (long long)j->id, WAIT_BAR, fill,
		    "##############################", ended, total,
		    j->runs[DB_FAILED]);
		fflush(stdout);
	} else if (ended != *last_done) {
		printf("job %lld: %d/%d runs ended, %d failed\n",
		    (long long)j->id, ended, total, j->runs[DB_FAILED]);
		fflush(stdout);
	}
	*last_done = ended;
}

/* Prints the job's kernel build steps logged since *after (on its own line). */
static void
wait_builds(struct db *db, const struct db_job *j, bool tty, int64_t *after)
{
	struct db_event *v;
	char		*cause = NULL;
	size_t		 n, i;

	if (db_event_list(db, j->id, *after, &v, &n, &cause) == -1) {
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		*after = v[i].id;
		if (strncmp(v[i].message, "kernel build: ", 14) == 0)
			printf("%sjob %lld: %s\n", tty ? "\r\033[K" : "",
			    (long long)j->id, v[i].message);
	}
	fflush(stdout);
	db_event_list_free(v, n);
}

/* True once the job reached an end state. */
static bool
wait_ended(const struct db_job *j)
{
	return j->state == DB_DONE || j->state == DB_FAILED ||
	    j->state == DB_CANCELLED;
}

#define WAIT_USAGE "usage: hilab wait [--timeout DURATION] JOB"

/* Parses "hilab wait [--timeout DURATION] JOB"; exits 2 if it is wrong. */
static int
wait_args(int argc, char **argv, long long *id, int64_t *timeout_ms)
{
	static const struct option longopts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 't')
			return cli_usage_error(WAIT_USAGE);
		if (units_parse_duration(optarg, timeout_ms) == -1 ||
		    *timeout_ms <= 0)
			return cli_usage_error(
			    "--timeout \"%s\": not " UNITS_DURATION_TEXT,
			    optarg);
	}
	if (optind != argc - 1 || (*id = cli_job_id(argv[optind])) == -1)
		return cli_usage_error(WAIT_USAGE);
	return 0;
}

int
cmd_wait(const struct cli_options *o, int argc, char **argv)
{
	struct timespec pause = { 0, WAIT_POLL_MS * 1000000L };
	bool		tty = isatty(STDOUT_FILENO);
	int64_t		timeout_ms = 0, start = clock_now_ms();
	char		waited[UNITS_STR_MAX];
	struct db_job  *j = NULL;
	struct db      *db;
	char	       *cause = NULL;
	int		last = -1, rc;
	int64_t		last_event = 0;
	long long	id;

	if (wait_args(argc, argv, &id, &timeout_ms) != 0)
		return CLI_EXIT_USAGE;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	for (;;) {
		db_job_free(j);
		if ((j = db_job_get(db, id, &cause)) == NULL) {
			rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
			goto out;
		}
		if (j->state == DB_QUEUED || last_event > 0)
			wait_builds(db, j, tty, &last_event);
		wait_progress(j, tty, &last);
		if (wait_ended(j))
			break;
		if (timeout_ms > 0 && clock_now_ms() - start >= timeout_ms) {
			rc = cli_error(CLI_EXIT_FAIL,
			    "job %lld: still %s after %s", id,
			    db_state_name(j->state),
			    units_format_duration(timeout_ms, waited,
				sizeof waited));
			goto out;
		}
		nanosleep(&pause, NULL);
	}
	printf("%sjob %lld %s%s%s\n", tty ? "\n" : "", id,
	    db_state_name(j->state), j->error ? ": " : "",
	    j->error ? j->error : "");
	rc = j->state == DB_DONE ? CLI_EXIT_OK : CLI_EXIT_FAIL;
out:
	free(cause);
	db_job_free(j);
	db_close(db);
	return rc;
}

int
cmd_logs(const struct cli_options *o, int argc, char **argv)
{
	struct db_event *v;
	struct db	*db;
	char		*cause = NULL, when[32];
	size_t		 n, i;
	long long	 id;
	time_t		 t;

	if (argc != 2 || (id = cli_job_id(argv[1])) == -1)
		return cli_usage_error("usage: hilab logs JOB");
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_event_list(db, id, 0, &v, &n, &cause) == -1) {
		db_close(db);
		return cli_error(CLI_EXIT_FAIL, "%s", cause);
	}
	for (i = 0; i < n; i++) {
		t = (time_t)(v[i].time / 1000);
		strftime(when, sizeof when, "%H:%M:%S", localtime(&t));
		printf("%s %-5s %s%s%s", when, db_level_name(v[i].level),
		    v[i].machine ? v[i].machine : "", v[i].machine ? " " : "",
		    v[i].run ? "" : "");
		if (v[i].run)
			printf("run %lld: ", (long long)v[i].run);
		printf("%s\n", v[i].message);
	}
	db_event_list_free(v, n);
	db_close(db);
	return CLI_EXIT_OK;
}
