/* Helpers for the db unit tests: temp dirs, sqlite3 CLI, fixtures. */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "tests/unit/db/dbtest.h"

/* A fresh temporary directory under $TMPDIR. */
char *
dbtest_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char	   *dir;

	dir = xasprintf("%s/hilab-db-test.XXXXXX", base ? base : "/tmp");
	assert_non_null(mkdtemp(dir));
	return dir;
}

/* Removes one entry on the way up. */
static int
dbtest_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* Removes dir and everything in it. */
void
dbtest_rmtree(const char *dir)
{
	nftw(dir, dbtest_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* dir/name, allocated. */
char *
dbtest_path(const char *dir, const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

/* Opens dir/name read-write or fails the test. */
struct db *
dbtest_open(const char *dir, const char *name)
{
	struct db *db;
	char	  *path, *cause = NULL;

	path = dbtest_path(dir, name);
	db = db_open(path, &cause);
	if (db == NULL)
		fail_msg("%s", cause);
	free(path);
	return db;
}

/* Whether the sqlite3 command-line shell is installed. */
int
dbtest_have_cli(void)
{
	return system("sqlite3 -version >/dev/null 2>&1") == 0;
}

/* Runs `sqlite3 -batch path` with sql on stdin; returns its stdout. */
char *
dbtest_cli(const char *path, const char *sql)
{
	char  *cmd, *sqlfile, *out;
	FILE  *f;
	size_t n, len = 0;

	sqlfile = xasprintf("%s.cli.sql", path);
	assert_non_null(f = fopen(sqlfile, "w"));
	fputs(sql, f);
	fclose(f);
	cmd = xasprintf("sqlite3 -batch '%s' < '%s'", path, sqlfile);
	assert_non_null(f = popen(cmd, "r"));
	out = xmalloc(65536);
	while ((n = fread(out + len, 1, 65535 - len, f)) > 0)
		len += n;
	out[len] = '\0';
	assert_int_equal(pclose(f), 0);
	unlink(sqlfile);
	free(sqlfile);
	free(cmd);
	return out;
}

/* Runs a single-value query through the sqlite3 shell as an integer. */
int64_t
dbtest_cli_int(const char *path, const char *sql)
{
	char   *out;
	int64_t v;

	out = dbtest_cli(path, sql);
	v = strtoll(out, NULL, 10);
	free(out);
	return v;
}

/* A machine, kernel, job and n runs on it: returns the job id. */
int64_t
dbtest_fixture(struct db *db, const char *machine, int nruns, int64_t *run_ids)
{
	struct db_run r = { 0 };
	char	     *cause = NULL;
	int64_t	      job, kernel, id;
	int	      i;

	if (db_machine_upsert(db, machine, "libvirt", "x86_64", &cause) == -1)
		fail_msg("%s", cause);
	kernel = db_kernel_upsert(db, "base", "quiet",
	    "{\"tree\":\"linux\",\"base\":\"v6.8\",\"patches\":[]}", &cause);
	if (kernel == -1)
		fail_msg("%s", cause);
	job = db_job_insert(db, "seed0", "jobs/seed0.yaml",
	    "{\"benchmarks\":[{\"name\":\"hackbench\",\"metrics\":"
	    "[{\"name\":\"time\",\"unit\":\"s\",\"direction\":"
	    "\"lower\",\"statistic\":\"amean\"}]}]}",
	    &cause);
	if (job == -1)
		fail_msg("%s", cause);
	r.job = job;
	r.machine = (char *)machine;
	r.kernel = kernel;
	r.benchmark = "hackbench";
	r.iterations = 5;
	r.warmups = 1;
	for (i = 0; i < nruns; i++) {
		r.params = i % 2 ? "groups=4" : "groups=2";
		r.round = i / 2;
		r.position = i % 2;
		if ((id = db_run_insert(db, &r, &cause)) == -1)
			fail_msg("%s", cause);
		if (run_ids != NULL)
			run_ids[i] = id;
	}
	return job;
}

/* cmocka setup: a struct dbtest with a fresh database in *state. */
int
dbtest_setup(void **state)
{
	struct dbtest *f = xcalloc(1, sizeof *f);

	f->dir = dbtest_tmpdir();
	f->path = dbtest_path(f->dir, "hilab.db");
	f->db = dbtest_open(f->dir, "hilab.db");
	*state = f;
	return 0;
}

/* cmocka teardown of dbtest_setup: closes and removes the database. */
int
dbtest_teardown(void **state)
{
	struct dbtest *f = *state;

	db_close(f->db);
	dbtest_rmtree(f->dir);
	free(f->dir);
	free(f->path);
	free(f->cause);
	free(f);
	return 0;
}

/* Asserts that f->cause holds text, then clears it. */
void
dbtest_expect_cause(struct dbtest *f, const char *text)
{
	assert_non_null(f->cause);
	if (strstr(f->cause, text) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", f->cause, text);
	free(f->cause);
	f->cause = NULL;
}
