/* Internals shared by the db/ sources: the connection and its helpers. */
#ifndef HILAB_DB_INT_H
#define HILAB_DB_INT_H

#include <sqlite3.h>
#include <stdarg.h>
#include <stdint.h>

#include "db/db.h"

/* One prepared statement kept for the life of the connection. */
struct db_cached {
	const char   *sql; /* the caller's static text: the key */
	sqlite3_stmt *stmt;
};

struct db {
	sqlite3		 *h;
	char		 *path;
	int		  readonly;
	struct db_cached *cache;
	size_t		  ncache;
};

/*
 * The one rule of the samples that count (db.h, db/selection.c), over
 * runs r: done and not superseded.
 */
#define DB_SAMPLES_COUNT "r.state = 'done' AND r.retried_as IS NULL "

/* Returns the connection's reset statement for sql, preparing it once. */
sqlite3_stmt *db_stmt(struct db *, const char *sql, char **cause);
/* Steps a statement expecting no row; resets it. */
int db_exec_stmt(struct db *, sqlite3_stmt *, const char *what, char **cause);
/* Sets *cause to `db "path": what: sqlite's message`; returns -1. */
int db_fail(struct db *, char **cause, const char *what);

/* Creates every missing directory above path. */
int db_mkdir_parents(const char *path, char **cause);
/*
 * A new database, its WAL and shared memory: never anybody else's (job
 * specs and outputs are in it); the group's as far as the umask allows:
 * 0640 under the usual 022, 0660 under hilabd.service's 0007, so that the
 * members of the group hilab run the command line.
 */
#define DB_FILE_MODE 0660
/* Creates path, empty and DB_FILE_MODE, unless it exists. */
int db_create_private(const char *path, char **cause);

/* Where an event belongs: ids may be 0, machine NULL. */
struct db_event_at {
	int64_t	    job;
	int64_t	    run;
	int64_t	    sweep;
	const char *machine;
	int64_t	    bisect;
};

/* The columns db_event_collect reads, in its order. */
#define DB_EVENT_SELECT \
	"SELECT id, time, job, run, machine, level, message FROM events "

/* Inserts one event. */
int db_event_insert(struct db *, const struct db_event_at *, enum db_level,
    const char *msg, char **cause);
/* db_event_insert with the message formatted from fmt and ap. */
int db_event_vinsert(struct db *, const struct db_event_at *, enum db_level,
    char **cause, const char *fmt, va_list ap);
/* Reads every row of a bound DB_EVENT_SELECT statement into *out. */
int db_event_collect(struct db *, sqlite3_stmt *, struct db_event **out,
    size_t *n, char **cause);
/*
 * The events the static statement sql (DB_EVENT_SELECT with ?1) selects
 * for id, into *out.
 */
int db_events_of(struct db *, const char *sql, int64_t id,
    struct db_event **out, size_t *n, char **cause);

/* How db_rows_read turns the rows of one table into an array of structs. */
struct db_rows {
	size_t size;				 /* one row's struct */
	void (*read)(sqlite3_stmt *, void *row); /* fills a row */
	void (*clear)(void *row);		 /* frees a row's contents */
};

/*
 * Reads every row of a bound statement.  Returns 0 with *out (caller frees
 * with db_rows_free) and *n, or -1 with *cause naming what (e.g. "list
 * jobs").
 */
int db_rows_read(struct db *, sqlite3_stmt *, const struct db_rows *,
    const char *what, void **out, size_t *n, char **cause);
/* Frees n rows from db_rows_read; accepts NULL. */
void db_rows_free(const struct db_rows *, void *rows, size_t n);

void db_bind_text(sqlite3_stmt *, int, const char *);
/* Binds v, or NULL when v is 0 (ids and times). */
void  db_bind_opt(sqlite3_stmt *, int, int64_t);
char *db_column_text(sqlite3_stmt *, int);

/* The columns db_kernel_read reads, in its order, of kernels k. */
#define DB_KERNEL_COLUMNS                                         \
	"k.id, k.name, k.release, k.version, k.cmdline, k.spec, " \
	"k.spec_hash, k.created_at "

/* Fills k from the DB_KERNEL_COLUMNS at the start of a row. */
void db_kernel_read(sqlite3_stmt *, struct db_kernel *k);
/* Frees the strings of k. */
void db_kernel_clear(struct db_kernel *k);

/* A table whose rows move through enum db_state (jobs, runs). */
struct db_state_table {
	const char *name; /* "job", "run" in messages */
	/* ?1 id, ?2 to, ?3 and ?4 allowed from, ?5 error, ?6 now */
	const char *update_sql;
	const char *state_sql;	      /* ?1 id -> state */
	unsigned    from[DB_NSTATES]; /* allowed sources per target */
};

/* Moves row id of t to state to if the transition is allowed. */
int db_state_set(struct db *, const struct db_state_table *, int64_t id,
    enum db_state to, const char *error, char **cause);
/* Explains why row id of t could not go to state to; returns -1. */
int db_state_refused(struct db *, const struct db_state_table *, int64_t id,
    enum db_state to, char **cause);

#endif
