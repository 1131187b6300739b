/* The watch that wakes a reader at a commit (db/watch.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "tests/unit/db/dbtest.h"

/* Writes a file named name in dir. */
static void
touch(const char *dir, const char *name)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs("x\n", f);
	fclose(f);
	free(p);
}

/*
 * A commit wakes the watch, also one made before the wait; other files of
 * the directory, even one whose name starts with the database's, do not.
 */
static void
test_commit_wakes(void **state)
{
	struct db_watch *w;
	struct db	*db;
	char		*dir = dbtest_tmpdir(), *path, *cause = NULL;

	(void)state;
	db = dbtest_open(dir, "hilab.db");
	path = xasprintf("%s/hilab.db", dir);
	w = db_watch_open(path, &cause);
	assert_non_null(w);
	assert_false(db_watch_wait(w, 20));
	assert_int_equal(db_machine_upsert(db, "m", "ssh", "x86_64", &cause),
	    0);
	assert_true(db_watch_wait(w, 10000));
	assert_false(db_watch_wait(w, 20));
	touch(dir, "notes.txt");
	touch(dir, "hilab.dbx");
	assert_false(db_watch_wait(w, 50));
	touch(dir, "hilab.db-journal");
	assert_true(db_watch_wait(w, 10000));
	db_watch_close(w);
	db_close(db);
	dbtest_rmtree(dir);
	free(path);
	free(dir);
}

/* A directory that is not there: no watch, and the cause names it. */
static void
test_missing_dir(void **state)
{
	char *cause = NULL;

	(void)state;
	assert_null(db_watch_open("/nonexistent-dir/hilab.db", &cause));
	assert_non_null(strstr(cause, "\"/nonexistent-dir\""));
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_commit_wakes),
		cmocka_unit_test(test_missing_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
