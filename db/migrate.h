/* Schema migrations: the db/schema/NNN_name.sql files, built in. */
#ifndef HILAB_DB_MIGRATE_H
#define HILAB_DB_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>

#define DB_APPLICATION_ID 1751737442 /* 'hilb' */

struct db_migration {
	int	    version; /* NNN of the file name */
	const char *name;    /* "001_init" */
	const char *sql;
};

/* Generated at build time from db/schema/ (db/schema_embed.c). */
extern const struct db_migration db_migrations[];
extern const size_t		 db_migrations_count;

/*
 * Brings the database h (named path in messages) to version n, applying
 * each missing migration in its own transaction; refuses a database newer
 * than n or not made by hilab.  With readonly, any missing migration is an
 * error instead.
 */
int db_migrate(sqlite3 *h, const char *path, const struct db_migration *,
    size_t n, int readonly, char **cause);

#endif
