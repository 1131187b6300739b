/* Connections: open, setup, statement cache, transactions and errors. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "db/db_int.h"
#include "db/migrate.h"

#define DB_BUSY_TIMEOUT_MS 5000

static const char *db_state_names[] = { "queued", "running", "done", "failed",
	"cancelled" };
static const char *db_health_names[] = { "good", "unknown", "bad",
	"maintenance" };
static const char *db_level_names[] = { "debug", "info", "warn", "error" };

/* The schema version this program writes. */
int
db_schema_version(void)
{
	return (int)db_migrations_count;
}

/* The schema's word for a state. */
const char *
db_state_name(enum db_state s)
{
	return (unsigned)s < DB_NSTATES ? db_state_names[s] : "?";
}

/* Parses a state word; 0 or -1. */
int
db_state_parse(const char *s, enum db_state *out)
{
	int i;

	for (i = 0; i < DB_NSTATES; i++)
		if (s != NULL && strcmp(s, db_state_names[i]) == 0) {
			*out = i;
			return 0;
		}
	return -1;
}

/* The schema's word for a health state. */
const char *
db_health_name(enum db_health h)
{
	return (unsigned)h <= DB_HEALTH_MAINTENANCE ? db_health_names[h] : "?";
}

/* Parses a health word; 0 or -1. */
int
db_health_parse(const char *s, enum db_health *out)
{
	int i;

	for (i = 0; i <= DB_HEALTH_MAINTENANCE; i++)
		if (s != NULL && strcmp(s, db_health_names[i]) == 0) {
			*out = i;
			return 0;
		}
	return -1;
}

/* The schema's word for an event level. */
const char *
db_level_name(enum db_level l)
{
	return (unsigned)l <= DB_ERROR ? db_level_names[l] : "?";
}

/* Unix time in milliseconds. */
int64_t
db_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sets *cause to `db "path": what: sqlite's message`; returns -1. */
int
db_fail(struct db *db, char **cause, const char *what)
{
	return causef(cause, "db \"%s\": %s: %s", db->path, what,
	    sqlite3_errmsg(db->h));
}

/* Binds text, or NULL for a NULL pointer; the text must outlive the step. */
void
db_bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v == NULL)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_text(s, i, v, -1, SQLITE_STATIC);
}

/* Binds v, or NULL when v is 0. */
void
db_bind_opt(sqlite3_stmt *s, int i, int64_t v)
{
	if (v == 0)
		sqlite3_bind_null(s, i);
	else
		sqlite3_bind_int64(s, i, v);
}

/* A copy of a text column, or NULL for SQL NULL. */
char *
db_column_text(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);

	return t == NULL ? NULL : xstrdup((const char *)t);
}

/* Reads every row of a bound statement; see db_int.h. */
int
db_rows_read(struct db *db, sqlite3_stmt *s, const struct db_rows *t,
    const char *what, void **out, size_t *n, char **cause)
{
	char *rows = NULL;
	int   rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		rows = xreallocarray(rows, *n + 1, t->size);
		t->read(s, rows + (*n)++ * t->size);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		db_rows_free(t, rows, *n);
		*n = 0;
		return db_fail(db, cause, what);
	}
	*out = rows;
	return 0;
}

/* Frees n rows from db_rows_read; accepts NULL. */
void
db_rows_free(const struct db_rows *t, void *rows, size_t n)
{
	size_t i;

	for (i = 0; rows != NULL && i < n; i++)
		t->clear((char *)rows + i * t->size);
	free(rows);
}

/* Returns the connection's reset statement for sql, preparing it once. */
sqlite3_stmt *
db_stmt(struct db *db, const char *sql, char **cause)
{
	struct db_cached *c;
	size_t		  i;

	for (i = 0; i < db->ncache; i++)
		if (db->cache[i].sql == sql) {
			sqlite3_reset(db->cache[i].stmt);
			sqlite3_clear_bindings(db->cache[i].stmt);
			return db->cache[i].stmt;
		}
	db->cache = xreallocarray(db->cache, db->ncache + 1, sizeof *c);
	c = &db->cache[db->ncache];
	if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT,
		&c->stmt, NULL) != SQLITE_OK) {
		db_fail(db, cause, "prepare");
		return NULL;
	}
	c->sql = sql;
	db->ncache++;
	return c->stmt;
}

/* Steps a statement expecting no row; resets it. */
int
db_exec_stmt(struct db *db, sqlite3_stmt *s, const char *what, char **cause)
{
	int rc;

	rc = sqlite3_step(s);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		db_fail(db, cause, what);
	sqlite3_reset(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : -1;
}

/* Runs SQL text without results (pragmas, transaction control). */
static int
db_exec(struct db *db, const char *sql, const char *what, char **cause)
{
	if (sqlite3_exec(db->h, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(db, cause, what);
	return 0;
}

/* Creates every missing directory above path (mkdir -p of its dirname). */
int
db_mkdir_parents(const char *path, char **cause)
{
	char *dir, *p;
	int   rc = -1;

	dir = xstrdup(path);
	for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
			*cause = xasprintf("db \"%s\": mkdir \"%s\": %s", path,
			    dir, strerror(errno));
			goto out;
		}
		*p = '/';
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/*
 * Creates path empty with mode DB_FILE_MODE (less the umask) unless it
 * exists: SQLite makes a new database 0644, and gives its WAL and
 * shared-memory files the database's own mode.
 */
int
db_create_private(const char *path, char **cause)
{
	int fd =
	    open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, DB_FILE_MODE);

	if (fd == -1 && errno != EEXIST) {
		*cause =
		    xasprintf("db \"%s\": create: %s", path, strerror(errno));
		return -1;
	}
	if (fd != -1)
		close(fd);
	return 0;
}

/* Sets up a new connection: WAL, synchronous, foreign keys, busy timeout. */
static int
db_setup(struct db *db, char **cause)
{
	sqlite3_stmt *s;
	const char   *mode;
	int	      rc = -1;

	sqlite3_extended_result_codes(db->h, 1);
	sqlite3_busy_timeout(db->h, DB_BUSY_TIMEOUT_MS);
	if (db_exec(db, "PRAGMA foreign_keys = ON", "foreign keys", cause) ==
	    -1)
		return -1;
	if (db->readonly)
		return 0;
	if (sqlite3_prepare_v2(db->h, "PRAGMA journal_mode = WAL", -1, &s,
		NULL) != SQLITE_OK)
		return db_fail(db, cause, "journal mode");
	if (sqlite3_step(s) != SQLITE_ROW) {
		db_fail(db, cause, "journal mode");
		goto out;
	}
	mode = (const char *)sqlite3_column_text(s, 0);
	if (mode == NULL ||
	    (strcmp(mode, "wal") != 0 && strcmp(mode, "memory") != 0)) {
		causef(cause, "db \"%s\": journal mode: got \"%s\", not wal",
		    db->path, mode != NULL ? mode : "");
		goto out;
	}
	rc = db_exec(db, "PRAGMA synchronous = NORMAL", "synchronous", cause);
out:
	sqlite3_finalize(s);
	return rc;
}

int
db_cache_limit(struct db *db, int kib, char **cause)
{
	char sql[64];

	snprintf(sql, sizeof sql, "PRAGMA cache_size = -%d", kib);
	return db_exec(db, sql, "cache size", cause);
}

/* Opens path with flags, sets the connection up and migrates it. */
static struct db *
db_open_flags(const char *path, int flags, char **cause)
{
	struct db *db;

	db = xcalloc(1, sizeof *db);
	db->path = xstrdup(path);
	db->readonly = (flags & SQLITE_OPEN_READONLY) != 0;
	if (sqlite3_open_v2(path, &db->h, flags | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		db_fail(db, cause, "open");
		goto fail;
	}
	if (db_setup(db, cause) == -1)
		goto fail;
	if (db_migrate(db->h, path, db_migrations, db_migrations_count,
		db->readonly, cause) == -1)
		goto fail;
	return db;
fail:
	db_close(db);
	return NULL;
}

/* Opens and migrates a database, creating it and its directory if needed. */
struct db *
db_open(const char *path, char **cause)
{
	if (strcmp(path, ":memory:") != 0 &&
	    (db_mkdir_parents(path, cause) == -1 ||
		db_create_private(path, cause) == -1))
		return NULL;
	return db_open_flags(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
	    cause);
}

/* Opens an existing database of this schema version read-only. */
struct db *
db_open_readonly(const char *path, char **cause)
{
	return db_open_flags(path, SQLITE_OPEN_READONLY, cause);
}

/* Closes a connection and its cached statements; accepts NULL. */
void
db_close(struct db *db)
{
	size_t i;

	if (db == NULL)
		return;
	for (i = 0; i < db->ncache; i++)
		sqlite3_finalize(db->cache[i].stmt);
	free(db->cache);
	sqlite3_close(db->h);
	free(db->path);
	free(db);
}

/* The file this connection opened. */
const char *
db_path(struct db *db)
{
	return db->path;
}

/* The SQLite connection, for ad-hoc read-only queries. */
struct sqlite3 *
db_sqlite(struct db *db)
{
	return db->h;
}

/* Starts a write transaction, taking the write lock now. */
int
db_begin(struct db *db, char **cause)
{
	return db_exec(db, "BEGIN IMMEDIATE", "begin", cause);
}

/* Commits the open transaction. */
int
db_commit(struct db *db, char **cause)
{
	return db_exec(db, "COMMIT", "commit", cause);
}

/* Rolls back the open transaction, if there is one. */
int
db_rollback(struct db *db, char **cause)
{
	if (sqlite3_get_autocommit(db->h))
		return 0;
	return db_exec(db, "ROLLBACK", "rollback", cause);
}
