/* Migrations, connection setup, refusals and the views. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>
#include <cmocka.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "db/migrate.h"
#include "tests/lib/skip.h"
#include "tests/unit/db/dbtest.h"

/* Creates the test's temporary directory. */
static int
setup(void **state)
{
	*state = dbtest_tmpdir();
	return 0;
}

/* Removes the test's temporary directory. */
static int
teardown(void **state)
{
	dbtest_rmtree(*state);
	free(*state);
	return 0;
}

/* Reads a single integer through the connection. */
static int64_t
query_int(struct db *db, const char *sql)
{
	sqlite3_stmt *s;
	int64_t	      v;

	assert_int_equal(sqlite3_prepare_v2(db_sqlite(db), sql, -1, &s, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* A new database in a new directory gets every migration and the setup. */
static void
test_create(void **state)
{
	struct db *db;
	char	  *path, *cause = NULL;

	path = dbtest_path(*state, "a/b/hilab.db");
	db = db_open(path, &cause);
	assert_non_null(db);
	assert_null(cause);
	assert_int_equal(query_int(db, "PRAGMA user_version"),
	    db_schema_version());
	assert_int_equal(db_schema_version(), (int)db_migrations_count);
	assert_int_equal(query_int(db, "PRAGMA application_id"),
	    DB_APPLICATION_ID);
	assert_int_equal(query_int(db, "PRAGMA foreign_keys"), 1);
	assert_int_equal(query_int(db, "PRAGMA synchronous"), 1);
	assert_int_equal(query_int(db, "PRAGMA busy_timeout"), 5000);
	assert_int_equal(
	    query_int(db,
		"SELECT count(*) FROM sqlite_master "
		"WHERE name IN ('machines', 'kernels', 'jobs', 'runs', "
		"'run_results', 'samples', 'metrics', 'events', 'v_runs', "
		"'v_samples', 'adaptive')"),
	    11);
	db_close(db);
	if (dbtest_have_cli()) {
		char *mode = dbtest_cli(path, "PRAGMA journal_mode;");
		assert_string_equal(mode, "wal\n");
		free(mode);
	}
	free(path);
}

/* Opening again changes nothing and keeps the data. */
static void
test_reopen(void **state)
{
	struct db *db;
	char	  *cause = NULL;
	int64_t	   job;

	db = dbtest_open(*state, "hilab.db");
	job = db_job_insert(db, "j", NULL, "{}", &cause);
	assert_true(job > 0);
	db_close(db);
	db = dbtest_open(*state, "hilab.db");
	assert_int_equal(query_int(db, "PRAGMA user_version"),
	    db_schema_version());
	assert_int_equal(query_int(db, "SELECT count(*) FROM jobs"), 1);
	db_close(db);
}

/* A database written by a newer hilab is refused, untouched. */
static void
test_newer_refused(void **state)
{
	struct db *db;
	sqlite3	  *h;
	char	  *path, *sql, *cause = NULL;

	db = dbtest_open(*state, "hilab.db");
	db_close(db);
	path = dbtest_path(*state, "hilab.db");
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	sql = xasprintf("PRAGMA user_version = %d", db_schema_version() + 1);
	assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	assert_null(db_open(path, &cause));
	assert_non_null(cause);
	assert_non_null(strstr(cause, "is newer than this program"));
	assert_non_null(strstr(cause, path));
	free(cause);
	cause = NULL;
	assert_null(db_open_readonly(path, &cause));
	assert_non_null(strstr(cause, "newer"));
	free(cause);
	free(sql);
	free(path);
}

/* An SQLite file of another program is refused. */
static void
test_foreign_refused(void **state)
{
	sqlite3 *h;
	char	*path, *cause = NULL;

	path = dbtest_path(*state, "other.db");
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h, "CREATE TABLE t (x)", NULL, NULL,
			     NULL),
	    SQLITE_OK);
	sqlite3_close(h);
	assert_null(db_open(path, &cause));
	assert_non_null(strstr(cause, "not a hilab database"));
	free(cause);
	free(path);
}

/* Makes a version-1 database: with the sqlite3 shell from the file. */
static void
make_v1(const char *path)
{
	const char *src = getenv("HILAB_SRCDIR");
	sqlite3	   *h;
	char	   *sql;

	if (src != NULL && dbtest_have_cli()) {
		sql = xasprintf(".read %s/db/schema/%s.sql\n"
				"PRAGMA user_version = 1;\n",
		    src, db_migrations[0].name);
		free(dbtest_cli(path, sql));
	} else {
		sql = xasprintf("%s\n;PRAGMA user_version = 1;",
		    db_migrations[0].sql);
		assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
		assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL),
		    SQLITE_OK);
		sqlite3_close(h);
	}
	free(sql);
}

/* A version-1 database is upgraded on open, keeping its rows. */
static void
test_upgrade_from_v1(void **state)
{
	struct db *db;
	sqlite3	  *h;
	char	  *path, *cause = NULL;

	path = dbtest_path(*state, "old.db");
	make_v1(path);
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
			     "INSERT INTO jobs (name, spec, "
			     "submitted_at) VALUES ('old', '{}', 1)",
			     NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(h);
	assert_null(db_open_readonly(path, &cause));
	assert_non_null(strstr(cause, "is older than"));
	free(cause);
	cause = NULL;
	db = db_open(path, &cause);
	assert_non_null(db);
	assert_int_equal(query_int(db, "PRAGMA user_version"),
	    db_schema_version());
	assert_int_equal(query_int(db,
			     "SELECT count(*) FROM sqlite_master "
			     "WHERE type = 'view'"),
	    3);
	assert_int_equal(query_int(db, "SELECT count(*) FROM jobs"), 1);
	db_close(db);
	free(path);
}

/* A migration that fails half-way leaves nothing of itself behind. */
static void
test_failed_migration_rolls_back(void **state)
{
	const struct db_migration m[] = {
		{ 1, "001_ok", "CREATE TABLE a (x);" },
		{ 2, "002_bad",
		    "CREATE TABLE b (x); INSERT INTO nope VALUES (1);" },
	};
	sqlite3	     *h;
	char	     *path, *cause = NULL;
	int64_t	      v = -1;
	sqlite3_stmt *s;

	path = dbtest_path(*state, "bad.db");
	assert_int_equal(sqlite3_open(path, &h), SQLITE_OK);
	assert_int_equal(db_migrate(h, path, m, 2, 0, &cause), -1);
	assert_non_null(strstr(cause, "migration 002_bad: no such table"));
	sqlite3_prepare_v2(h,
	    "SELECT (SELECT user_version FROM "
	    "pragma_user_version) * 10 + (SELECT count(*) FROM sqlite_master "
	    "WHERE name = 'b')",
	    -1, &s, NULL);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	assert_int_equal(v, 10); /* version 1, no table b */
	sqlite3_close(h);
	free(cause);
	free(path);
}

/* Every .sql file in db/schema of the source tree is built in, in order. */
static void
test_all_files_embedded(void **state)
{
	const char    *src = getenv("HILAB_SRCDIR");
	struct dirent *e;
	DIR	      *d;
	char	      *dir;
	size_t	       n = 0, len, i;
	int	       found;

	if (src == NULL)
		skip_missing("HILAB_SRCDIR is not set");
	dir = xasprintf("%s/db/schema", src);
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 4, ".sql") != 0)
			continue;
		n++;
		found = 0;
		for (i = 0; i < db_migrations_count; i++)
			if (strncmp(db_migrations[i].name, e->d_name,
				len - 4) == 0 &&
			    db_migrations[i].name[len - 4] == '\0')
				found = 1;
		if (!found)
			fail_msg("db/schema/%s is not in db/meson.build",
			    e->d_name);
	}
	closedir(d);
	assert_int_equal(n, db_migrations_count);
	for (i = 0; i < db_migrations_count; i++)
		assert_int_equal(db_migrations[i].version, (int)i + 1);
	free(dir);
}

/* The views join runs and samples with job, machine, kernel and metric. */
static void
test_views(void **state)
{
	struct db_sample v[3];
	struct db	*db;
	char		*cause = NULL, *path, *out;
	int64_t		 runs[2];

	db = dbtest_open(*state, "hilab.db");
	dbtest_fixture(db, "vm32", 2, runs);
	/* a later job's declaration in the cache does not change this one's */
	assert_int_equal(db_metric_upsert(db, "time", "ms", "higher", "median",
			     &cause),
	    0);
	v[0] = (struct db_sample){ runs[1], "time", 0, 1.5 };
	v[1] = (struct db_sample){ runs[1], "time", 1, 2.5 };
	v[2] = (struct db_sample){ runs[1], "undeclared", 0, 7 };
	assert_int_equal(db_samples_insert(db, v, 3, &cause), 3);
	assert_int_equal(
	    query_int(db,
		"SELECT count(*) FROM v_runs WHERE "
		"job_name = 'seed0' AND machine = 'vm32' AND kernel = 'base'"),
	    2);
	db_close(db);
	if (!dbtest_have_cli())
		skip_missing("the sqlite3 program (Debian package sqlite3)");
	path = dbtest_path(*state, "hilab.db");
	out = dbtest_cli(path,
	    ".mode list\nSELECT job_name, machine, kernel, "
	    "benchmark, params, round, metric, unit, direction, statistic, "
	    "iteration, value FROM v_samples ORDER BY metric, iteration;");
	assert_string_equal(out,
	    "seed0|vm32|base|hackbench|groups=4|0|time|s|lower|amean|0|1.5\n"
	    "seed0|vm32|base|hackbench|groups=4|0|time|s|lower|amean|1|2.5\n"
	    "seed0|vm32|base|hackbench|groups=4|0|undeclared||||0|7.0\n");
	free(out);
	free(path);
}

/* A read-only connection reads but cannot write. */
static void
test_readonly(void **state)
{
	struct db *db;
	char	  *path, *cause = NULL;

	db = dbtest_open(*state, "hilab.db");
	assert_true(db_job_insert(db, "j", NULL, "{}", &cause) > 0);
	db_close(db);
	path = dbtest_path(*state, "hilab.db");
	db = db_open_readonly(path, &cause);
	assert_non_null(db);
	assert_int_equal(query_int(db, "SELECT count(*) FROM jobs"), 1);
	assert_int_equal(db_job_insert(db, "k", NULL, "{}", &cause), -1);
	assert_non_null(strstr(cause,
	    "insert job: attempt to write a "
	    "readonly database"));
	free(cause);
	db_close(db);
	cause = NULL;
	free(path);
	path = dbtest_path(*state, "missing.db");
	assert_null(db_open_readonly(path, &cause));
	assert_non_null(strstr(cause, "open: unable to open"));
	free(cause);
	free(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_create, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_foreign_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_upgrade_from_v1, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_failed_migration_rolls_back, setup, teardown),
		cmocka_unit_test(test_all_files_embedded),
		cmocka_unit_test_setup_teardown(test_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_readonly, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
