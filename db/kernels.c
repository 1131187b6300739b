/* The kernels table: kernel variants keyed by name and spec. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

/*
 * The spec's identity: 64-bit FNV-1a of its text in hex.  It only tells
 * specs of the same name apart (a handful per job), not adversarial input.
 */
static void
kernel_hash(const char *spec, char out[17])
{
	uint64_t	     h = 0xcbf29ce484222325ULL;
	const unsigned char *p;

	for (p = (const unsigned char *)spec; *p != '\0'; p++) {
		h ^= *p;
		h *= 0x100000001b3ULL;
	}
	snprintf(out, 17, "%016" PRIx64, h);
}

/* Returns the id of the kernel (name, spec), adding it if new. */
int64_t
db_kernel_upsert(struct db *db, const char *name, const char *cmdline,
    const char *spec, char **cause)
{
	static const char sql[] =
	    "INSERT INTO kernels (name, cmdline, "
	    "spec, spec_hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5) "
	    "ON CONFLICT (name, spec_hash) DO UPDATE SET "
	    "cmdline = excluded.cmdline RETURNING id, spec = ?3";
	sqlite3_stmt *s;
	char	      hash[17];
	int64_t	      id = -1;

	kernel_hash(spec, hash);
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, cmdline);
	db_bind_text(s, 3, spec);
	db_bind_text(s, 4, hash);
	sqlite3_bind_int64(s, 5, db_now_ms());
	if (sqlite3_step(s) != SQLITE_ROW)
		db_fail(db, cause, "upsert kernel");
	else if (sqlite3_column_int(s, 1) == 0)
		causef(cause,
		    "db \"%s\": upsert kernel \"%s\": spec hash %s "
		    "collides with another spec",
		    db->path, name, hash);
	else
		id = sqlite3_column_int64(s, 0);
	sqlite3_reset(s);
	return id;
}

/* Records what the booted kernel reported (uname -r, uname -v). */
int
db_kernel_set_version(struct db *db, int64_t id, const char *release,
    const char *version, char **cause)
{
	static const char sql[] = "UPDATE kernels SET release = ?2, "
				  "version = ?3 WHERE id = ?1";
	sqlite3_stmt	 *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	db_bind_text(s, 2, release);
	db_bind_text(s, 3, version);
	if (db_exec_stmt(db, s, "set kernel version", cause) == -1)
		return -1;
	if (sqlite3_changes(db->h) == 0)
		return causef(cause,
		    "db \"%s\": set kernel version: no kernel "
		    "%" PRId64,
		    db->path, id);
	return 0;
}

/* Fills k from the DB_KERNEL_COLUMNS of a row. */
void
db_kernel_read(sqlite3_stmt *s, struct db_kernel *k)
{
	k->id = sqlite3_column_int64(s, 0);
	k->name = db_column_text(s, 1);
	k->release = db_column_text(s, 2);
	k->version = db_column_text(s, 3);
	k->cmdline = db_column_text(s, 4);
	k->spec = db_column_text(s, 5);
	k->spec_hash = db_column_text(s, 6);
	k->created_at = sqlite3_column_int64(s, 7);
}

/* Returns one kernel, or NULL with *cause set. */
struct db_kernel *
db_kernel_get(struct db *db, int64_t id, char **cause)
{
	static const char sql[] =
	    "SELECT " DB_KERNEL_COLUMNS "FROM kernels k WHERE k.id = ?1";
	struct db_kernel *k = NULL;
	sqlite3_stmt	 *s;
	int		  rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return NULL;
	sqlite3_bind_int64(s, 1, id);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		k = xcalloc(1, sizeof *k);
		db_kernel_read(s, k);
	} else if (rc == SQLITE_DONE)
		causef(cause, "db \"%s\": no kernel %" PRId64, db->path, id);
	else
		db_fail(db, cause, "get kernel");
	sqlite3_reset(s);
	return k;
}

/* Frees the strings of k. */
void
db_kernel_clear(struct db_kernel *k)
{
	free(k->name);
	free(k->release);
	free(k->version);
	free(k->cmdline);
	free(k->spec);
	free(k->spec_hash);
}

/* Frees a kernel from db_kernel_get; accepts NULL. */
void
db_kernel_free(struct db_kernel *k)
{
	if (k == NULL)
		return;
	db_kernel_clear(k);
	free(k);
}
