/*
 * What a job's report shows besides its tables: the machines it ran on,
 * its kernels and the environment of each (machine, kernel), each with
 * the facts the agent reported.
 */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "db/db_int.h"

/* Fills a machine or environment from a row: machine, kernel, facts. */
static void
report_facts_read(sqlite3_stmt *s, void *row)
{
	struct db_job_facts *f = row;

	f->machine = db_column_text(s, 0);
	f->kernel = db_column_text(s, 1);
	f->facts = db_column_text(s, 2);
}

/* Frees the strings of a machine or environment. */
static void
report_facts_clear(void *row)
{
	struct db_job_facts *f = row;

	free(f->machine);
	free(f->kernel);
	free(f->facts);
}

/* The rows of db_job_machines and db_job_environments. */
static const struct db_rows report_facts_rows = { sizeof(struct db_job_facts),
	report_facts_read, report_facts_clear };

/* Fills a kernel from a row: DB_KERNEL_COLUMNS, facts. */
static void
report_kernel_read(sqlite3_stmt *s, void *row)
{
	struct db_job_kernel *k = row;

	db_kernel_read(s, &k->kernel);
	k->facts = db_column_text(s, 8);
}

/* Frees the strings of a kernel of a job. */
static void
report_kernel_clear(void *row)
{
	struct db_job_kernel *k = row;

	db_kernel_clear(&k->kernel);
	free(k->facts);
}

/* The rows of db_job_kernels. */
static const struct db_rows report_kernel_rows = { sizeof(struct db_job_kernel),
	report_kernel_read, report_kernel_clear };

/* Reads every row of sql for job into a list described by t. */
static int
report_list(struct db *db, const char *sql, int64_t job,
    const struct db_rows *t, const char *what, void **out, size_t *n,
    char **cause)
{
	sqlite3_stmt *s;

	*out = NULL;
	*n = 0;
	if ((s = db_stmt(db, sql, cause)) == NULL)
		return -1;
	sqlite3_bind_int64(s, 1, job);
	return db_rows_read(db, s, t, what, out, n, cause);
}

/* Reads the machines or environments of sql for job. */
static int
report_facts_list(struct db *db, const char *sql, int64_t job, const char *what,
    struct db_job_facts **out, size_t *n, char **cause)
{
	void *rows;
	int   rc;

	rc = report_list(db, sql, job, &report_facts_rows, what, &rows, n,
	    cause);
	*out = rows;
	return rc;
}

/* The machines of a job with the facts of their last run in it. */
int
db_job_machines(struct db *db, int64_t job, struct db_job_facts **out,
    size_t *n, char **cause)
{
	static const char sql[] =
	    "SELECT r.machine, NULL, "
	    "COALESCE((SELECT r2.facts FROM runs r2 WHERE r2.job = ?1 AND "
	    "r2.machine = r.machine AND r2.facts IS NOT NULL ORDER BY r2.id "
	    "DESC LIMIT 1), m.facts) FROM runs r LEFT JOIN machines m "
	    "ON m.name = r.machine WHERE r.job = ?1 GROUP BY r.machine "
	    "ORDER BY MIN(r.id)";

	return report_facts_list(db, sql, job, "job machines", out, n, cause);
}

/* The kernels of a job in the order they first ran. */
int
db_job_kernels(struct db *db, int64_t job, struct db_job_kernel **out,
    size_t *n, char **cause)
{
	static const char sql[] =
	    "SELECT " DB_KERNEL_COLUMNS
	    ", (SELECT r2.facts FROM runs r2 WHERE r2.job = ?1 AND "
	    "r2.kernel = k.id AND r2.facts IS NOT NULL ORDER BY r2.id "
	    "LIMIT 1) FROM kernels k JOIN runs r ON r.kernel = k.id "
	    "WHERE r.job = ?1 GROUP BY k.id ORDER BY MIN(r.id)";
	void *rows;
	int   rc;

	rc = report_list(db, sql, job, &report_kernel_rows, "job kernels",
	    &rows, n, cause);
	*out = rows;
	return rc;
}

/* The facts of the first run of each (machine, kernel) of a job. */
int
db_job_environments(struct db *db, int64_t job, struct db_job_facts **out,
    size_t *n, char **cause)
{
	static const char sql[] =
	    "SELECT r.machine, k.name, r.facts, "
	    "MIN(r.id) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE "
	    "r.job = ?1 AND r.facts IS NOT NULL GROUP BY r.machine, r.kernel "
	    "ORDER BY 4";

	return report_facts_list(db, sql, job, "job environments", out, n,
	    cause);
}

/* Frees a list from db_job_machines or db_job_environments. */
void
db_job_facts_free(struct db_job_facts *v, size_t n)
{
	db_rows_free(&report_facts_rows, v, n);
}

/* Frees a list from db_job_kernels. */
void
db_job_kernels_free(struct db_job_kernel *v, size_t n)
{
	db_rows_free(&report_kernel_rows, v, n);
}
