/* Schema migrations guarded by PRAGMA user_version, one transaction each. */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "db/migrate.h"

/* Reads an integer from a single-value query; -1 on error. */
static int
migrate_int(sqlite3 *h, const char *sql, int64_t *out)
{
	sqlite3_stmt *s;
	int	      rc = -1;

	if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW) {
		*out = sqlite3_column_int64(s, 0);
		rc = 0;
	}
	sqlite3_finalize(s);
	return rc;
}

/* Sets *cause to `db "path": what: sqlite's message`; returns -1. */
static int
migrate_fail(sqlite3 *h, const char *path, const char *what, char **cause)
{
	*cause = xasprintf("db \"%s\": %s: %s", path, what, sqlite3_errmsg(h));
	return -1;
}

/* Refuses a database hilab did not make, or one newer than this program. */
static int
migrate_check(sqlite3 *h, const char *path, int64_t version, size_t n,
    char **cause)
{
	int64_t app, objects;

	if (migrate_int(h, "PRAGMA application_id", &app) == -1 ||
	    migrate_int(h, "SELECT count(*) FROM sqlite_master", &objects) ==
		-1)
		return migrate_fail(h, path, "read schema", cause);
	if (version == 0 && objects == 0)
		return 0;
	if (app != DB_APPLICATION_ID) {
		*cause = xasprintf("db \"%s\": not a hilab database "
				   "(application_id %lld)",
		    path, (long long)app);
		return -1;
	}
	if (version > (int64_t)n) {
		*cause = xasprintf("db \"%s\": schema version %lld is newer "
				   "than this program's %zu; upgrade hilab",
		    path, (long long)version, n);
		return -1;
	}
	return 0;
}

/*
 * Applies migration m (to version m->version) unless another connection
 * already did; all of it or nothing.
 */
static int
migrate_one(sqlite3 *h, const char *path, const struct db_migration *m,
    char **cause)
{
	int64_t version;
	char   *what = NULL, *sql = NULL;
	int	rc = -1;

	if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return migrate_fail(h, path, "begin migration", cause);
	if (migrate_int(h, "PRAGMA user_version", &version) == -1) {
		migrate_fail(h, path, "read user_version", cause);
		goto out;
	}
	if (version >= m->version) {
		rc = 0;
		goto out;
	}
	what = xasprintf("migration %s", m->name);
	sql = xasprintf("%s\n;PRAGMA user_version = %d;", m->sql, m->version);
	if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK) {
		migrate_fail(h, path, what, cause);
		goto out;
	}
	if (sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		migrate_fail(h, path, what, cause);
		goto out;
	}
	rc = 0;
out:
	if (!sqlite3_get_autocommit(h))
		sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
	free(what);
	free(sql);
	return rc;
}

/* Brings the database to version n; see db/migrate.h. */
int
db_migrate(sqlite3 *h, const char *path, const struct db_migration *m, size_t n,
    int readonly, char **cause)
{
	int64_t version;
	size_t	i;

	if (migrate_int(h, "PRAGMA user_version", &version) == -1)
		return migrate_fail(h, path, "read user_version", cause);
	if (migrate_check(h, path, version, n, cause) == -1)
		return -1;
	if (version == (int64_t)n)
		return 0;
	if (readonly) {
		*cause = xasprintf("db \"%s\": schema version %lld is older "
				   "than %zu; open it read-write to upgrade",
		    path, (long long)version, n);
		return -1;
	}
	for (i = (size_t)version; i < n; i++)
		if (migrate_one(h, path, &m[i], cause) == -1)
			return -1;
	return 0;
}
