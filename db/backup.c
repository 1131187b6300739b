/* Consistent copies of a live database with the online backup API. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

#define BACKUP_TRIES 50 /* 100 ms apart: the source busy for 5 s */

/* Copies every page of db into the open connection to. */
static int
backup_copy(struct db *db, sqlite3 *to, const char *path, char **cause)
{
	sqlite3_backup *b;
	int		rc, tries = 0;

	if ((b = sqlite3_backup_init(to, "main", db->h, "main")) == NULL)
		return causef(cause, "db \"%s\": backup to \"%s\": %s",
		    db->path, path, sqlite3_errmsg(to));
	while ((rc = sqlite3_backup_step(b, -1)) == SQLITE_BUSY ||
	    rc == SQLITE_LOCKED) {
		if (++tries == BACKUP_TRIES)
			break;
		sqlite3_sleep(100);
	}
	sqlite3_backup_finish(b);
	if (rc != SQLITE_DONE)
		return causef(cause, "db \"%s\": backup to \"%s\": %s",
		    db->path, path, sqlite3_errstr(rc));
	return 0;
}

/*
 * Writes a consistent copy of the database to path (through path.tmp and
 * a rename), in rollback-journal mode so that it is one self-contained
 * file that opens anywhere, read-only media included.
 */
int
db_backup(struct db *db, const char *path, char **cause)
{
	sqlite3 *to = NULL;
	char	*tmp;
	int	 rc = -1;

	if (db_mkdir_parents(path, cause) == -1)
		return -1;
	tmp = xasprintf("%s.tmp", path);
	unlink(tmp);
	if (db_create_private(tmp, cause) == -1)
		goto out;
	if (sqlite3_open_v2(tmp, &to,
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
		NULL) != SQLITE_OK) {
		causef(cause, "db \"%s\": backup to \"%s\": %s", db->path, tmp,
		    sqlite3_errmsg(to));
		goto out;
	}
	if (backup_copy(db, to, path, cause) == -1)
		goto out;
	if (sqlite3_exec(to, "PRAGMA journal_mode = DELETE", NULL, NULL,
		NULL) != SQLITE_OK) {
		causef(cause, "db \"%s\": backup to \"%s\": journal mode: %s",
		    db->path, path, sqlite3_errmsg(to));
		goto out;
	}
	if (sqlite3_close(to) != SQLITE_OK) {
		causef(cause, "db \"%s\": backup to \"%s\": close: %s",
		    db->path, path, sqlite3_errmsg(to));
		goto out;
	}
	to = NULL;
	if (rename(tmp, path) == -1) {
		causef(cause, "db \"%s\": backup to \"%s\": rename: %s",
		    db->path, path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (to != NULL)
		sqlite3_close(to);
	if (rc == -1)
		unlink(tmp);
	free(tmp);
	return rc;
}
