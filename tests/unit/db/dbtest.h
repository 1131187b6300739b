/* Helpers for the db unit tests: temp dirs, sqlite3 CLI, fixtures. */
#ifndef HILAB_TESTS_DBTEST_H
#define HILAB_TESTS_DBTEST_H

#include <stdint.h>

#include "db/db.h"

/* A fresh temporary directory; removed with everything in it by rmtree. */
char *dbtest_tmpdir(void);
void  dbtest_rmtree(const char *dir);
/* dir/name, allocated. */
char *dbtest_path(const char *dir, const char *name);
/* Opens dir/name read-write or fails the test. */
struct db *dbtest_open(const char *dir, const char *name);

/* Whether the sqlite3 command-line shell is installed. */
int dbtest_have_cli(void);
/* Runs `sqlite3 -batch path` with sql on stdin; returns its stdout. */
char *dbtest_cli(const char *path, const char *sql);
/* Runs a single-value query through the sqlite3 shell as an integer. */
int64_t dbtest_cli_int(const char *path, const char *sql);

/* A fresh database in a temporary directory, and the last call's cause. */
struct dbtest {
	char	  *dir;
	char	  *path; /* dir/hilab.db */
	struct db *db;
	char	  *cause;
};

/* cmocka setup and teardown of a struct dbtest in *state. */
int dbtest_setup(void **state);
int dbtest_teardown(void **state);
/* Asserts that the last call failed with a cause holding text; clears it. */
void dbtest_expect_cause(struct dbtest *, const char *text);

/* A machine, kernel, job and n runs on it: returns the job id. */
int64_t dbtest_fixture(struct db *, const char *machine, int nruns,
    int64_t *run_ids);

#endif
