/*
 * A sweep that follows a branch (sweeper_follow) on real git trees made
 * here: a clone whose job names origin/main, its kernel pinned to the
 * commit the branch is at; nothing new since the last job means no job; a
 * commit pushed upstream means one once hilabd's fetch thread (fetcher.c)
 * fetched the clone, which it does when asked and away from the caller; a
 * fetch that fails says why; a base that names nothing is an error naming
 * the tree.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/fetcher.h"
#include "hilabd/sweeper.h"
#include "jobs/job.h"
#include "tests/lib/skip.h"

#define GIT "git -c user.name=Dev -c user.email=dev@localhost "

static char dir[] = "/tmp/hilab-follow.XXXXXX";
static bool made; /* dir was made (mkdtemp may put an X in it) */

/* Runs a shell command of the test (which it frees) or fails. */
static void
sh(char *cmd)
{
	int rc = system(cmd);

	if (rc != 0)
		fail_msg("%s: failed (status %d%s%s)", cmd, rc,
		    rc == -1 ? ", " : "", rc == -1 ? strerror(errno) : "");
	free(cmd);
}

/* True if git is a program on PATH (looked up without a shell). */
static bool
have_git(void)
{
	const char *path = getenv("PATH");
	char	   *copy, *d, *save = NULL, *file;
	bool	    found = false;

	copy = xstrdup(path != NULL ? path : "/usr/bin:/bin");
	for (d = strtok_r(copy, ":", &save); d != NULL && !found;
	     d = strtok_r(NULL, ":", &save)) {
		file = xasprintf("%s/git", d);
		found = access(file, X_OK) == 0;
		free(file);
	}
	free(copy);
	return found;
}

/* The commit the upstream tree's main is at. */
static char *
upstream_head(void)
{
	char  *cmd = xasprintf("git -C %s/up rev-parse main", dir), line[64];
	FILE  *fp = popen(cmd, "r");
	size_t n;

	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof line, fp));
	pclose(fp);
	free(cmd);
	n = strcspn(line, "\n");
	return xstrndup(line, n);
}

/* The job of the sweep: one kernel built from the clone at base. */
static struct job *
job_at(const char *base)
{
	char *
	    text = xasprintf(
	       "name: tip\nmachines: [m]\nkernels:\n  - {name: tip, git: %s/down, "
	       "base: %s}\nbenchmarks:\n  - {name: nap, command: [sleep, "
	       "\"1\"], parser: regex, parser_args: \"x=x ([0-9]+)\", "
	       "metrics: [{name: x, unit: s, direction: lower}]}\n",
	       dir, base),
	   *cause = NULL;
	struct job *job =
	    job_load_string("tip.yaml", text, strlen(text), NULL, NULL, &cause);

	if (job == NULL)
		fail_msg("%s", cause);
	free(text);
	return job;
}

/* Makes an upstream tree with one commit and a clone of it. */
static int
setup(void **state)
{
	(void)state;
	if (!have_git())
		return 0;
	if (mkdtemp(dir) == NULL)
		return -1;
	made = true;
	sh(xasprintf(GIT "init -q -b main %s/up && " GIT "-C %s/up commit -q "
			 "--allow-empty -m one && git clone -q %s/up %s/down",
	    dir, dir, dir, dir));
	return 0;
}

/* Removes the trees. */
static int
teardown(void **state)
{
	(void)state;
	if (made)
		sh(xasprintf("rm -rf %s", dir));
	return 0;
}

/*
 * Polls f for the clone fetched since since_ms until it is no longer busy
 * (10 s at most); how many polls said busy into *busy.
 */
static enum fetcher_state
fetched(struct fetcher *f, int64_t since_ms, int *busy, char **cause)
{
	char		  *down = xasprintf("%s/down", dir);
	enum fetcher_state st;
	int		   i;

	*busy = 0;
	for (i = 0; i < 1000; i++) {
		if ((st = fetcher_poll(f, down, since_ms, cause)) !=
		    FETCHER_BUSY)
			break;
		(*busy)++;
		clock_sleep_ms(10);
	}
	free(down);
	return st;
}

/* Pinned, unchanged, fetched anew, and an unknown base. */
static void
test_follow(void **state)
{
	struct job     *job;
	struct fetcher *f;
	char	       *cause = NULL, *head, *last;
	int		busy;

	(void)state;
	if (!made)
		skip_missing("git is not installed");
	job = job_at("origin/main");
	assert_int_equal(sweeper_follow(job, NULL, &cause), 1);
	head = upstream_head();
	assert_string_equal(job->kernels[0].base, head);
	last = job_to_json(job);
	job_free(job);
	job = job_at("origin/main");
	assert_int_equal(sweeper_follow(job, last, &cause), 0);
	assert_string_equal(job->kernels[0].base, head);
	job_free(job);
	free(head);
	sh(xasprintf(GIT "-C %s/up commit -q --allow-empty -m two", dir));
	/* Unfetched, the clone's origin/main has not moved. */
	job = job_at("origin/main");
	assert_int_equal(sweeper_follow(job, last, &cause), 0);
	job_free(job);
	assert_non_null(f = fetcher_start(&cause));
	assert_int_equal(fetched(f, db_now_ms(), &busy, &cause), FETCHER_READY);
	assert_true(busy >= 1);
	job = job_at("origin/main");
	assert_int_equal(sweeper_follow(job, last, &cause), 1);
	head = upstream_head();
	assert_string_equal(job->kernels[0].base, head);
	job_free(job);
	/* Its remote gone, the next fetch fails and says so. */
	sh(xasprintf("git -C %s/down remote set-url origin %s/gone", dir, dir));
	assert_int_equal(fetched(f, db_now_ms(), &busy, &cause),
	    FETCHER_FAILED);
	assert_non_null(strstr(cause, "/down\": git fetch: "));
	free(cause);
	cause = NULL;
	fetcher_stop(f);
	job = job_at("no-such-branch");
	assert_int_equal(sweeper_follow(job, last, &cause), -1);
	assert_non_null(strstr(cause,
	    "/down\": unknown commit "
	    "\"no-such-branch\""));
	free(cause);
	job_free(job);
	free(head);
	free(last);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_follow),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
