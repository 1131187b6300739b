/* The samples and metrics tables. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "common/cause.h"
#include "common/xmalloc.h"
#include "db/db_int.h"

/* Inserts each sample with the prepared statement; counts the new ones. */
static int64_t
samples_step(struct db *db, const struct db_sample *v, size_t n, char **cause)
{
	static const char sql[] = "INSERT OR IGNORE INTO samples "
				  "(run, metric, iteration, repeat, value) "
				  "VALUES (?1, ?2, ?3, ?4, ?5)";
	sqlite3_stmt	 *s;
	int64_t		  added = 0;
	size_t		  i;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (isnan(v[i].value))
			return causef(cause,
			    "db \"%s\": insert sample: run %" PRId64
			    " metric \"%s\" iteration %" PRId64
			    ": value is not a number",
			    db->path, v[i].run, v[i].metric, v[i].iteration);
		sqlite3_bind_int64(s, 1, v[i].run);
		db_bind_text(s, 2, v[i].metric);
		sqlite3_bind_int64(s, 3, v[i].iteration);
		sqlite3_bind_int64(s, 4, v[i].repeat);
		sqlite3_bind_double(s, 5, v[i].value);
		if (db_exec_stmt(db, s, "insert sample", cause) == -1)
			return -1;
		added += sqlite3_changes(db->h);
	}
	return added;
}

/* Stores a batch of samples in one transaction; returns how many new. */
int64_t
db_samples_insert(struct db *db, const struct db_sample *v, size_t n,
    char **cause)
{
	int	own = sqlite3_get_autocommit(db->h);
	int64_t added;

	if (own && db_begin(db, cause) == -1)
		return -1;
	added = samples_step(db, v, n, cause);
	if (own) {
		if (added == -1)
			db_rollback(db, NULL);
		else if (db_commit(db, cause) == -1) {
			db_rollback(db, NULL);
			added = -1;
		}
	}
	return added;
}

/* The values of one metric of a run by iteration. */
int
db_samples_get(struct db *db, int64_t run, const char *metric, double **values,
    size_t *n, char **cause)
{
	static const char sql[] =
	    "SELECT value FROM samples "
	    "WHERE run = ?1 AND metric = ?2 ORDER BY iteration, repeat";
	sqlite3_stmt *s;
	size_t	      cap = 0;
	int	      rc;

	*values = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	db_bind_text(s, 2, metric);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap == 0 ? 64 : cap * 2;
			*values = xreallocarray(*values, cap, sizeof **values);
		}
		(*values)[(*n)++] = sqlite3_column_double(s, 0);
	}
	sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		free(*values);
		*values = NULL;
		*n = 0;
		return db_fail(db, cause, "get samples");
	}
	return 0;
}

/* Adds or updates what a metric means. */
int
db_metric_upsert(struct db *db, const char *name, const char *unit,
    const char *direction, const char *statistic, char **cause)
{
	static const char sql[] =
	    "INSERT INTO metrics (name, unit, "
	    "direction, statistic) VALUES (?1, ?2, ?3, ?4) "
	    "ON CONFLICT (name) DO UPDATE SET unit = excluded.unit, "
	    "direction = excluded.direction, statistic = excluded.statistic";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	db_bind_text(s, 1, name);
	db_bind_text(s, 2, unit != NULL ? unit : "");
	db_bind_text(s, 3, direction);
	db_bind_text(s, 4, statistic);
	return db_exec_stmt(db, s, "upsert metric", cause);
}

/* Fills m from a row of the means query. */
static void
means_read(sqlite3_stmt *s, void *row)
{
	struct db_mean *m = row;

	m->metric = db_column_text(s, 0);
	m->mean = sqlite3_column_double(s, 1);
	m->n = sqlite3_column_int64(s, 2);
}

/* Frees the strings of m. */
static void
means_clear(void *row)
{
	free(((struct db_mean *)row)->metric);
}

static const struct db_rows means_rows = { sizeof(struct db_mean), means_read,
	means_clear };

/* Every metric a run stored, with its mean and count, by name. */
int
db_run_means(struct db *db, int64_t run, struct db_mean **out, size_t *n,
    char **cause)
{
	static const char sql[] =
	    "SELECT metric, AVG(value), COUNT(*) FROM samples WHERE run = ?1 "
	    "GROUP BY metric ORDER BY metric";
	sqlite3_stmt *s;
	void	     *rows = NULL;
	int	      rc;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, run);
	rc = db_rows_read(db, s, &means_rows, "read means", &rows, n, cause);
	*out = rows;
	return rc;
}

/* Frees a list from db_run_means; accepts NULL. */
void
db_means_free(struct db_mean *v, size_t n)
{
	db_rows_free(&means_rows, v, n);
}
