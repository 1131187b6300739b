/*
 * Adaptive iterations: what one group (job, machine, benchmark, params)
 * holds when a run of it ends, and the adaptive table the worker writes
 * after each round of the group (tables read it: db_adapt_of_jobs in
 * selection.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "db/db_int.h"

/* The group's runs that count, and the run that ends now (?5). */
#define ADAPT_RUNS                                                \
	"r.job = ?1 AND r.machine = ?2 AND r.benchmark = ?3 AND " \
	"r.params = ?4 AND ((" DB_SAMPLES_COUNT ") OR r.id = ?5) "

/* Binds the group of run r to ?1..?5. */
static void
adapt_bind(sqlite3_stmt *s, const struct db_run *r)
{
	sqlite3_bind_int64(s, 1, r->job);
	db_bind_text(s, 2, r->machine);
	db_bind_text(s, 3, r->benchmark);
	db_bind_text(s, 4, r->params);
	sqlite3_bind_int64(s, 5, r->id);
}

/* Reads the group's kernels: id, name, measured iterations. */
static int
adapt_kernels(struct db *db, const struct db_run *r, struct db_adapt_group *g,
    char **cause)
{
	static const char sql[] =
	    "SELECT r.kernel, k.name, SUM(r.iterations) FROM runs r "
	    "JOIN kernels k ON k.id = r.kernel WHERE " ADAPT_RUNS
	    "GROUP BY r.kernel ORDER BY MIN(r.round * 100000 + r.position)";
	struct db_adapt_kernel *k;
	sqlite3_stmt	       *s;
	int			rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	adapt_bind(s, r);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		g->v = xreallocarray(g->v, g->n + 1, sizeof *g->v);
		k = &g->v[g->n++];
		memset(k, 0, sizeof *k);
		k->kernel = sqlite3_column_int64(s, 0);
		k->name = db_column_text(s, 1);
		k->iterations = sqlite3_column_int(s, 2);
	}
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_fail(db, cause, "adaptive kernels");
}

/* Adds the metric's samples of the group's runs to each kernel. */
static int
adapt_samples(struct db *db, const struct db_run *r, const char *metric,
    struct db_adapt_group *g, char **cause)
{
	static const char sql[] =
	    "SELECT r.kernel, s.value FROM samples s JOIN runs r ON "
	    "r.id = s.run WHERE " ADAPT_RUNS "AND s.metric = ?6 "
	    "ORDER BY r.kernel, r.round, s.iteration, s.repeat";
	struct db_adapt_kernel *k;
	sqlite3_stmt	       *s;
	size_t			i;
	int			rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	adapt_bind(s, r);
	db_bind_text(s, 6, metric);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		for (i = 0; i < g->n; i++) {
			k = &g->v[i];
			if (k->kernel != sqlite3_column_int64(s, 0))
				continue;
			k->x = xreallocarray(k->x, k->n + 1, sizeof *k->x);
			k->x[k->n++] = sqlite3_column_double(s, 1);
		}
	}
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : db_fail(db, cause, "adaptive samples");
}

/* Counts the group's other runs still to end and its last round. */
static int
adapt_pending(struct db *db, const struct db_run *r, struct db_adapt_group *g,
    char **cause)
{
	static const char sql[] =
	    "SELECT COALESCE(SUM(state IN ('queued', 'running') AND "
	    "id != ?5), 0), COALESCE(MAX(round), 0) FROM runs WHERE "
	    "job = ?1 AND machine = ?2 AND benchmark = ?3 AND params = ?4";
	sqlite3_stmt *s;
	int	      rc;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	adapt_bind(s, r);
	if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		g->pending = sqlite3_column_int(s, 0);
		g->last_round = sqlite3_column_int(s, 1);
	}
	sqlite3_reset(s);
	return rc == SQLITE_ROW ? 0 : db_fail(db, cause, "adaptive runs");
}

/* Reads the group of run r as it ends; see db.h. */
int
db_adapt_group_get(struct db *db, const struct db_run *r, const char *metric,
    struct db_adapt_group *g, char **cause)
{
	memset(g, 0, sizeof *g);
	if (adapt_pending(db, r, g, cause) == -1 ||
	    adapt_kernels(db, r, g, cause) == -1 ||
	    adapt_samples(db, r, metric, g, cause) == -1) {
		db_adapt_group_clear(g);
		return -1;
	}
	return 0;
}

/* Frees what db_adapt_group_get filled. */
void
db_adapt_group_clear(struct db_adapt_group *g)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		free(g->v[i].name);
		free(g->v[i].x);
	}
	free(g->v);
	memset(g, 0, sizeof *g);
}

/* Writes one kernel's row of the adaptive table; see db.h. */
int
db_adapt_set(struct db *db, const struct db_adapt *a, char **cause)
{
	static const char sql[] =
	    "INSERT OR REPLACE INTO adaptive (job, machine, kernel, "
	    "benchmark, params, metric, statistic, iterations, precision, "
	    "target, min, max, reached, done, updated_at) VALUES (?1, ?2, "
	    "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)";
	sqlite3_stmt *s;

	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, a->job);
	db_bind_text(s, 2, a->machine);
	sqlite3_bind_int64(s, 3, a->kernel);
	db_bind_text(s, 4, a->benchmark);
	db_bind_text(s, 5, a->params);
	db_bind_text(s, 6, a->metric);
	db_bind_text(s, 7, a->statistic);
	sqlite3_bind_int(s, 8, a->iterations);
	if (isfinite(a->precision))
		sqlite3_bind_double(s, 9, a->precision);
	else
		sqlite3_bind_null(s, 9);
	sqlite3_bind_double(s, 10, a->target);
	sqlite3_bind_int(s, 11, a->min);
	sqlite3_bind_int(s, 12, a->max);
	sqlite3_bind_int(s, 13, a->reached);
	sqlite3_bind_int(s, 14, a->done);
	sqlite3_bind_int64(s, 15, db_now_ms());
	return db_exec_stmt(db, s, "set adaptive", cause);
}
