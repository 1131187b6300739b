/* Several connections on one file: leases, concurrent writers, backup. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>
#include <cmocka.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "tests/unit/db/dbtest.h"

#define WRITER_TXNS 300

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

/* Only one of two connections holds a lease until it is released. */
static void
test_lease_exclusive(void **state)
{
	struct db	  *a, *b;
	struct db_machine *m;
	char		  *cause = NULL;

	a = dbtest_open(*state, "hilab.db");
	b = dbtest_open(*state, "hilab.db");
	assert_int_equal(db_machine_upsert(a, "epyc", "ssh", "x86_64", &cause),
	    0);
	assert_int_equal(db_machine_lease(a, "epyc", "ctl-a", 60000, &cause),
	    1);
	assert_int_equal(db_machine_lease(b, "epyc", "ctl-b", 60000, &cause),
	    0);
	assert_int_equal(db_machine_lease(a, "epyc", "ctl-a", 60000, &cause),
	    0);
	assert_int_equal(db_machine_renew(b, "epyc", "ctl-b", 60000, &cause),
	    0);
	assert_int_equal(db_machine_release(b, "epyc", "ctl-b", &cause), 0);
	assert_int_equal(db_machine_renew(a, "epyc", "ctl-a", 60000, &cause),
	    1);
	m = db_machine_get(b, "epyc", &cause);
	assert_string_equal(m->lease_owner, "ctl-a");
	assert_true(m->lease_expires > db_now_ms() + 50000);
	db_machine_free(m);
	assert_int_equal(db_machine_release(a, "epyc", "ctl-a", &cause), 1);
	assert_int_equal(db_machine_lease(b, "epyc", "ctl-b", 60000, &cause),
	    1);
	assert_int_equal(db_machine_lease(a, "nosuch", "ctl-a", 1, &cause), -1);
	assert_non_null(strstr(cause, "lease machine: no machine \"nosuch\""));
	free(cause);
	db_close(a);
	db_close(b);
}

/* An expired lease can be taken; release_all frees an owner's leases. */
static void
test_lease_expiry(void **state)
{
	struct db *a, *b;
	char	  *cause = NULL;

	a = dbtest_open(*state, "hilab.db");
	b = dbtest_open(*state, "hilab.db");
	assert_int_equal(db_machine_upsert(a, "m1", "ssh", "x86_64", &cause),
	    0);
	assert_int_equal(db_machine_upsert(a, "m2", "ssh", "x86_64", &cause),
	    0);
	assert_int_equal(db_machine_lease(a, "m1", "ctl-a", 100, &cause), 1);
	assert_int_equal(db_machine_lease(b, "m1", "ctl-b", 100, &cause), 0);
	usleep(200 * 1000);
	assert_int_equal(db_machine_lease(b, "m1", "ctl-b", 60000, &cause), 1);
	assert_int_equal(db_machine_renew(a, "m1", "ctl-a", 60000, &cause), 0);
	assert_int_equal(db_machine_lease(b, "m2", "ctl-b", 60000, &cause), 1);
	assert_int_equal(db_machine_release_all(b, "ctl-b", &cause), 2);
	assert_int_equal(db_machine_lease(a, "m2", "ctl-a", 60000, &cause), 1);
	assert_null(cause);
	db_close(a);
	db_close(b);
}

struct writer {
	const char *dir;
	int64_t	    run;
	int	    errors;
	char	   *first_error;
};

/* One thread: its own connection, many small write transactions. */
static void *
writer_main(void *arg)
{
	struct writer	*w = arg;
	struct db_sample s = { 0 };
	struct db_result r = { 0 };
	struct db	*db;
	char		*cause = NULL;
	int		 i;

	db = dbtest_open(w->dir, "hilab.db");
	s.run = r.run = w->run;
	s.metric = "time";
	for (i = 0; i < WRITER_TXNS; i++) {
		s.iteration = r.seq = i;
		s.value = i;
		if (db_samples_insert(db, &s, 1, &cause) != 1 ||
		    db_run_result_insert(db, &r, &cause) != 1 ||
		    db_event_add(db, 0, w->run, NULL, DB_DEBUG, &cause,
			"seq %d", i) == -1) {
			if (w->errors++ == 0)
				w->first_error = cause;
			else
				free(cause);
			cause = NULL;
		}
	}
	db_close(db);
	return NULL;
}

/* Two threads write at once without a single busy error. */
static void
test_concurrent_writers(void **state)
{
	struct writer w[2] = { { 0 } };
	pthread_t     t[2];
	struct db    *db;
	char	     *path;
	int64_t	      ids[2];
	int	      i;

	db = dbtest_open(*state, "hilab.db");
	dbtest_fixture(db, "vm32", 2, ids);
	db_close(db);
	for (i = 0; i < 2; i++) {
		w[i].dir = *state;
		w[i].run = ids[i];
		assert_int_equal(pthread_create(&t[i], NULL, writer_main,
				     &w[i]),
		    0);
	}
	for (i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		if (w[i].errors != 0)
			fail_msg("writer %d: %d errors, first: %s", i,
			    w[i].errors, w[i].first_error);
	}
	if (!dbtest_have_cli())
		return;
	path = dbtest_path(*state, "hilab.db");
	assert_int_equal(dbtest_cli_int(path, "SELECT count(*) FROM samples;"),
	    2 * WRITER_TXNS);
	assert_int_equal(dbtest_cli_int(path, "SELECT count(*) FROM events;"),
	    2 * WRITER_TXNS);
	free(path);
}

/* Compares a table's row count in the live database and its copy. */
static void
assert_same_count(struct db *db, const char *copy, const char *table)
{
	sqlite3_stmt *s;
	char	     *sql;
	int64_t	      n;

	sql = xasprintf("SELECT count(*) FROM %s;", table);
	assert_int_equal(sqlite3_prepare_v2(db_sqlite(db), sql, -1, &s, NULL),
	    SQLITE_OK);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	n = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	assert_true(n > 0);
	assert_int_equal(dbtest_cli_int(copy, sql), n);
	free(sql);
}

/* A backup of a live WAL database is one sound file with every row. */
static void
test_backup(void **state)
{
	struct db_sample v[100];
	struct db	*db, *ro;
	char		*copy, *out, *cause = NULL;
	int64_t		 ids[3];
	int		 i;

	db = dbtest_open(*state, "hilab.db");
	dbtest_fixture(db, "vm32", 3, ids);
	for (i = 0; i < 100; i++)
		v[i] = (struct db_sample){ ids[i % 3], "time", i, i * 1.5 };
	assert_int_equal(db_samples_insert(db, v, 100, &cause), 100);
	assert_int_equal(db_event_add(db, 1, 0, NULL, DB_INFO, &cause, "hi"),
	    0);
	copy = dbtest_path(*state, "export/copy.db");
	assert_int_equal(db_backup(db, copy, &cause), 0);
	assert_int_equal(access(copy, F_OK), 0);
	ro = db_open_readonly(copy, &cause);
	assert_non_null(ro);
	db_close(ro);
	if (dbtest_have_cli()) {
		out = dbtest_cli(copy,
		    "PRAGMA integrity_check;\n"
		    "PRAGMA journal_mode;\n");
		assert_string_equal(out, "ok\ndelete\n");
		free(out);
		assert_same_count(db, copy, "samples");
		assert_same_count(db, copy, "runs");
		assert_same_count(db, copy, "jobs");
		assert_same_count(db, copy, "events");
	}
	db_close(db);
	free(copy);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lease_exclusive, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_lease_expiry, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_writers, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_backup, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
