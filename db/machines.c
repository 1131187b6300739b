/* The machines table: inventory rows, facts, health and leases. */
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

#define MACHINE_COLUMNS                                            \
	"name, kind, arch, facts, facts_at, health, lease_owner, " \
	"lease_expires, updated_at, health_reason, health_at, "    \
	"check_due, checks_failed"

/* Runs an UPDATE of one machine by name and fails if there is none. */
static int
machine_update(struct db *db, sqlite3_stmt *s, const char *name,
    const char *what, char **cause)
{
	if (db_exec_stmt(db, s, what, cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return causef(cause, "db \"%s\": %s: no machine \"%s\"",
		    db->path, what, name);
	return 0;
}

/* Adds a machine from the inventory or updates its kind and arch. */
int
db_machine_upsert(struct db *db, const char *name, const char *kind,
    const char *arch, char **cause)
{
	static const char sql[] =
	    "INSERT INTO machines (name, kind, arch, updated_at) "
	    "VALUES (?1, ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE SET "
	    "kind = excluded.kind, arch = excluded.arch, "
	    "updated_at = excluded.updated_at";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, kind);
	db_bind_text(s, 3, arch);
	sqlite3_bind_int64(s, 4, db_now_ms());
	return db_exec_stmt(db, s, "upsert machine", cause);
}

/* Records the facts of the last connect (JSON). */
int
db_machine_set_facts(struct db *db, const char *name, const char *facts,
    char **cause)
{
	static const char sql[] = "UPDATE machines SET facts = ?2, "
				  "facts_at = ?3 WHERE name = ?1";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, facts);
	sqlite3_bind_int64(s, 3, db_now_ms());
	return machine_update(db, s, name, "set machine facts", cause);
}

/*
 * Records a machine's health and why (reason may be NULL); good ends a due
 * check, unknown makes one due, and both start the count of failures
 * again.
 */
int
db_machine_set_health(struct db *db, const char *name, enum db_health h,
    const char *reason, char **cause)
{
	static const char sql[] =
	    "UPDATE machines SET health = ?2, health_reason = ?3, "
	    "health_at = ?4, check_due = CASE ?2 WHEN 'good' THEN 0 "
	    "WHEN 'unknown' THEN 1 ELSE check_due END, checks_failed = "
	    "CASE WHEN ?2 IN ('good', 'unknown') THEN 0 ELSE checks_failed "
	    "END WHERE name = ?1";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, db_health_name(h));
	db_bind_text(s, 3, reason);
	sqlite3_bind_int64(s, 4, db_now_ms());
	return machine_update(db, s, name, "set machine health", cause);
}

/*
 * The machine's agent answered: unknown with no check due (never seen
 * before) becomes good; health set by hand or by a recovery stays, in the
 * same statement, so a concurrent "machines set" is never overwritten.
 */
int
db_machine_answered(struct db *db, const char *name, char **cause)
{
	static const char sql[] =
	    "UPDATE machines SET health = 'good', health_at = ?2 "
	    "WHERE name = ?1 AND health = 'unknown' AND check_due = 0";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	sqlite3_bind_int64(s, 2, db_now_ms());
	return db_exec_stmt(db, s, "record a machine that answered", cause);
}

/*
 * Records a recovery: the machine's health is unknown (reason says why)
 * until a health check passes.
 */
int
db_machine_recovered(struct db *db, const char *name, const char *reason,
    char **cause)
{
	static const char sql[] =
	    "UPDATE machines SET health = 'unknown', health_reason = ?2, "
	    "health_at = ?3, check_due = 1, checks_failed = 0 "
	    "WHERE name = ?1";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, reason);
	sqlite3_bind_int64(s, 3, db_now_ms());
	return machine_update(db, s, name, "record a recovery", cause);
}

/*
 * Counts a failed health check; the max-th makes the machine bad (reason
 * says why).  Returns the failures so far, or -1.
 */
int
db_machine_check_failed(struct db *db, const char *name, const char *reason,
    int max, char **cause)
{
	static const char sql[] =
	    "UPDATE machines SET checks_failed = checks_failed + 1, "
	    "health_reason = ?2, health_at = ?4, "
	    "health = CASE WHEN checks_failed + 1 >= ?3 THEN 'bad' "
	    "ELSE health END, check_due = CASE WHEN checks_failed + 1 >= ?3 "
	    "THEN 0 ELSE check_due END WHERE name = ?1 "
	    "RETURNING checks_failed";
	sqlite3_stmt *s;
	int	      rc, n = -1;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, reason);
	sqlite3_bind_int(s, 3, max);
	sqlite3_bind_int64(s, 4, db_now_ms());
	if ((rc = sqlite3_step(s)) == SQLITE_ROW)
		n = sqlite3_column_int(s, 0);
	else if (rc == SQLITE_DONE)
		causef(cause,
		    "db \"%s\": count a health check: no machine "
		    "\"%s\"",
		    db->path, name);
	else
		db_fail(db, cause, "count a health check");
	sqlite3_reset(s);
	return n;
}

static void machine_clear(void *);

/* Fills m from a row of MACHINE_COLUMNS. */
static void
machine_read(sqlite3_stmt *s, void *row)
{
	struct db_machine *m = row;
	char		  *health;

	m->name = db_column_text(s, 0);
	m->kind = db_column_text(s, 1);
	m->arch = db_column_text(s, 2);
	m->facts = db_column_text(s, 3);
	m->facts_at = sqlite3_column_int64(s, 4);
	health = db_column_text(s, 5);
	if (db_health_parse(health, &m->health) == -1)
		m->health = DB_HEALTH_UNKNOWN;
	free(health);
	m->lease_owner = db_column_text(s, 6);
	m->lease_expires = sqlite3_column_int64(s, 7);
	m->updated_at = sqlite3_column_int64(s, 8);
	m->health_reason = db_column_text(s, 9);
	m->health_at = sqlite3_column_int64(s, 10);
	m->check_due = sqlite3_column_int(s, 11) != 0;
	m->checks_failed = sqlite3_column_int(s, 12);
}

/* The machines table's rows for db_rows_read. */
static const struct db_rows machine_rows = { sizeof(struct db_machine),
	machine_read, machine_clear };

/* Reads the rows of a bound statement into a list of machines. */
static int
machine_list(struct db *db, sqlite3_stmt *s, const char *what,
    struct db_machine **out, size_t *n, char **cause)
{
	void *rows;
	int   rc;

	rc = db_rows_read(db, s, &machine_rows, what, &rows, n, cause);
	*out = rows;
	return rc;
}

/* Returns one machine, or NULL with *cause set. */
struct db_machine *
db_machine_get(struct db *db, const char *name, char **cause)
{
	static const char sql[] =
	    "SELECT " MACHINE_COLUMNS " FROM machines WHERE name = ?1";
	struct db_machine *m = NULL;
	sqlite3_stmt	  *s;
	int		   rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	db_bind_text(s, 1, name);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		m = xcalloc(1, sizeof *m);
		machine_read(s, m);
	} else if (rc == SQLITE_DONE)
		causef(cause, "db \"%s\": no machine \"%s\"", db->path, name);
	else
		db_fail(db, cause, "get machine");
	sqlite3_reset(s);
	return m;
}

/* Every machine by name. */
int
db_machine_list(struct db *db, struct db_machine **out, size_t *n, char **cause)
{
	static const char sql[] =
	    "SELECT " MACHINE_COLUMNS " FROM machines ORDER BY name";
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	return machine_list(db, s, "list machines", out, n, cause);
}

/* Frees the strings of m. */
static void
machine_clear(void *row)
{
	struct db_machine *m = row;

	free(m->name);
	free(m->kind);
	free(m->arch);
	free(m->facts);
	free(m->lease_owner);
	free(m->health_reason);
}

/* Frees a machine from db_machine_get; accepts NULL. */
void
db_machine_free(struct db_machine *m)
{
	if (m == NULL)
		return;
	machine_clear(m);
	free(m);
}

/* The machine called name in a list from db_machine_list, or NULL. */
const struct db_machine *
db_machine_find(const struct db_machine *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

/* Frees a list from db_machine_list. */
void
db_machine_list_free(struct db_machine *m, size_t n)
{
	db_rows_free(&machine_rows, m, n);
}

/* Steps a lease UPDATE; 1 when it changed the row, 0 if not, -1 error. */
static int
machine_lease_step(struct db *db, sqlite3_stmt *s, const char *name,
    const char *what, char **cause)
{
	static const char sql[] = "SELECT 1 FROM machines "
				  "WHERE name = ?1";
	sqlite3_stmt	 *q;
	int		  rc;

	if (db_exec_stmt(db, s, what, cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) > 0)
		return 1;
	if ((q = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(q, 1, name);
	rc = sqlite3_step(q);
	sqlite3_reset(q);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return causef(cause, "db \"%s\": %s: no machine \"%s\"",
		    db->path, what, name);
	return db_fail(db, cause, what);
}

/*
 * Runs a lease update whose parameters are (name, owner, now, ttl_ms):
 * 1 if it changed the row, 0 if not, -1 on error.
 */
static int
machine_lease_update(struct db *db, const char *sql, const char *name,
    const char *owner, int64_t ttl_ms, const char *what, char **cause)
{
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, owner);
	sqlite3_bind_int64(s, 3, db_now_ms());
	sqlite3_bind_int64(s, 4, ttl_ms);
	return machine_lease_step(db, s, name, what, cause);
}

/*
 * Leases a machine if it is free or its lease expired, and it is neither
 * bad nor in maintenance.
 */
int
db_machine_lease(struct db *db, const char *name, const char *owner,
    int64_t ttl_ms, char **cause)
{
	return machine_lease_update(db,
	    "UPDATE machines SET "
	    "lease_owner = ?2, lease_expires = ?3 + ?4 WHERE name = ?1 AND "
	    "(lease_owner IS NULL OR lease_expires <= ?3) AND "
	    "health NOT IN ('bad', 'maintenance')",
	    name, owner, ttl_ms, "lease machine", cause);
}

/* Extends a lease this owner holds. */
int
db_machine_renew(struct db *db, const char *name, const char *owner,
    int64_t ttl_ms, char **cause)
{
	return machine_lease_update(db,
	    "UPDATE machines SET "
	    "lease_expires = ?3 + ?4 WHERE name = ?1 AND lease_owner = ?2",
	    name, owner, ttl_ms, "renew lease", cause);
}

/* Gives a lease back if owner holds it. */
int
db_machine_release(struct db *db, const char *name, const char *owner,
    char **cause)
{
	static const char sql[] = "UPDATE machines SET "
				  "lease_owner = NULL, lease_expires = NULL "
				  "WHERE name = ?1 AND lease_owner = ?2";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, owner);
	return machine_lease_step(db, s, name, "release lease", cause);
}

/* Gives back every lease of an owner; returns how many. */
int64_t
db_machine_release_all(struct db *db, const char *owner, char **cause)
{
	static const char sql[] =
	    "UPDATE machines SET "
	    "lease_owner = NULL, lease_expires = NULL WHERE lease_owner = ?1";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, owner);
	if (db_exec_stmt(db, s, "release leases", cause) == -1)
		return -1;
	return sqlite3_changes(db->h);
}
