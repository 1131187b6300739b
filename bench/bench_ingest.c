/*
 * bench_ingest: how fast samples go into SQLite through db/ (the path
 * hilabd uses), in batches of a given size, against a raw prepared insert
 * of the same rows and batches into a plain rowid table and into a table
 * of the samples' own key, each in a database of its own with db/'s
 * pragmas, in one run; and how fast a per-(run, metric) summary reads
 * them back.
 *
 *	bench_ingest [-n SAMPLES] [-b BATCH] [-r RUNS] [DBFILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "common/xmalloc.h"
#include "db/db.h"

/* The plain table a raw insert is measured against. */
#define BENCH_RAW_ROWID                                                   \
	"CREATE TABLE raw (run INTEGER, metric TEXT, iteration INTEGER, " \
	"repeat INTEGER, value REAL)"
/* A raw insert into a table of the samples' own key and shape. */
#define BENCH_RAW_KEY                                                          \
	"CREATE TABLE raw (run INTEGER NOT NULL, metric TEXT NOT NULL, "       \
	"iteration INTEGER NOT NULL, repeat INTEGER NOT NULL, value REAL NOT " \
	"NULL, PRIMARY KEY (run, metric, iteration, repeat)) WITHOUT ROWID"

static double
bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
bench_die(const char *what, char *cause)
{
	fprintf(stderr, "bench_ingest: %s: %s\n", what, cause);
	exit(1);
}

/* Makes a job with nruns runs to hang the samples on. */
static int64_t *
bench_runs(struct db *db, int nruns)
{
	struct db_run r = { .machine = "bench",
		.benchmark = "hackbench",
		.params = "groups=1",
		.iterations = 1 };
	int64_t	     *ids = xcalloc(nruns, sizeof *ids);
	char	     *cause = NULL;
	int	      i;

	if (db_machine_upsert(db, "bench", "ssh", "x86_64", &cause) == -1 ||
	    (r.job = db_job_insert(db, "bench", NULL, "{}", &cause)) == -1 ||
	    (r.kernel = db_kernel_upsert(db, "base", NULL, "{}", &cause)) == -1)
		bench_die("setup", cause);
	for (i = 0; i < nruns; i++) {
		r.position = i;
		if ((ids[i] = db_run_insert(db, &r, &cause)) == -1)
			bench_die("run", cause);
	}
	return ids;
}

/*
 * Inserts n samples run after run (as results arrive) in batches; returns
 * seconds.
 */
static double
bench_insert(struct db *db, const int64_t *runs, int nruns, long n, long batch)
{
	struct db_sample *v = xcalloc(batch, sizeof *v);
	char		 *cause = NULL;
	double		  t0 = bench_now();
	long		  i, k, per = (n + nruns - 1) / nruns;

	for (i = 0; i < n; i += batch) {
		for (k = 0; k < batch && i + k < n; k++) {
			v[k].run = runs[(i + k) / per];
			v[k].metric = "time";
			v[k].iteration = (i + k) % per;
			v[k].value = 1.0 + (double)((i + k) % 97) / 100.0;
		}
		if (db_samples_insert(db, v, k, &cause) == -1)
			bench_die("insert", cause);
	}
	free(v);
	return bench_now() - t0;
}

/* Runs SQL on a raw connection or dies. */
static void
bench_sql(sqlite3 *h, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(h, sql, NULL, NULL, &err) != SQLITE_OK)
		bench_die(sql, xstrdup(err != NULL ? err : "?"));
}

/*
 * The same rows and batches by a raw prepared INSERT into a table made by
 * create, in database file (WAL, synchronous NORMAL as db/ has them);
 * returns seconds.
 */
static double
bench_raw(const char *file, const char *create, int nruns, long n, long batch)
{
	sqlite3	     *h;
	sqlite3_stmt *s;
	long	      i, per = (n + nruns - 1) / nruns;
	double	      t0;

	if (sqlite3_open(file, &h) != SQLITE_OK)
		bench_die(file, xstrdup(sqlite3_errmsg(h)));
	bench_sql(h, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
	bench_sql(h, create);
	if (sqlite3_prepare_v2(h,
		"INSERT INTO raw (run, metric, iteration, repeat, value) "
		"VALUES (?1, ?2, ?3, 0, ?4)",
		-1, &s, NULL) != SQLITE_OK)
		bench_die("raw insert", xstrdup(sqlite3_errmsg(h)));
	t0 = bench_now();
	for (i = 0; i < n; i++) {
		if (i % batch == 0)
			bench_sql(h, "BEGIN");
		sqlite3_bind_int64(s, 1, 1 + i / per);
		sqlite3_bind_text(s, 2, "time", -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 3, i % per);
		sqlite3_bind_double(s, 4, 1.0 + (double)(i % 97) / 100.0);
		if (sqlite3_step(s) != SQLITE_DONE)
			bench_die("raw insert", xstrdup(sqlite3_errmsg(h)));
		sqlite3_reset(s);
		if (i % batch == batch - 1 || i == n - 1)
			bench_sql(h, "COMMIT");
	}
	t0 = bench_now() - t0;
	sqlite3_finalize(s);
	sqlite3_close(h);
	return t0;
}

/* Removes the databases of a run in a directory of its own, and it. */
static void
bench_remove(const char *dir, const char *file, const char *rowid,
    const char *keyed)
{
	const char *dbs[] = { file, rowid, keyed };
	char	   *p;
	size_t	    i, k;

	for (i = 0; i < 3; i++)
		for (k = 0; k < 3; k++) {
			p = xasprintf("%s%s", dbs[i],
			    (const char *[]){ "", "-wal", "-shm" }[k]);
			unlink(p);
			free(p);
		}
	rmdir(dir);
}

/* Mean and sd of every (run, metric) in one query; returns seconds. */
static double
bench_summary(struct db *db, int *groups)
{
	sqlite3_stmt *st;
	double	      t0 = bench_now();

	*groups = 0;
	if (sqlite3_prepare_v2(db_sqlite(db),
		"SELECT run, metric, AVG(value), "
		"COUNT(*), SUM(value * value) FROM samples GROUP BY run, metric",
		-1, &st, NULL) != SQLITE_OK)
		bench_die("summary", xstrdup(sqlite3_errmsg(db_sqlite(db))));
	while (sqlite3_step(st) == SQLITE_ROW)
		(*groups)++;
	sqlite3_finalize(st);
	return bench_now() - t0;
}

int
main(int argc, char **argv)
{
	char	   path[] = "/tmp/hilab-bench-XXXXXX", *file, *cause = NULL;
	char	  *rowid, *keyed;
	int64_t	  *runs;
	long	   n = 1000000, batch = 1000;
	int	   nruns = 1000, c, groups;
	double	   ins, sum, raw_rowid, raw_key;
	struct db *db;

	while ((c = getopt(argc, argv, "n:b:r:")) != -1) {
		switch (c) {
		case 'n':
			n = atol(optarg);
			break;
		case 'b':
			batch = atol(optarg);
			break;
		case 'r':
			nruns = atoi(optarg);
			break;
		default:
			fprintf(stderr,
			    "usage: bench_ingest [-n SAMPLES] "
			    "[-b BATCH] [-r RUNS] [DBFILE]\n");
			return 2;
		}
	}
	if (n <= 0 || batch <= 0 || nruns <= 0)
		bench_die("arguments", xstrdup("must be positive"));
	file = optind < argc ? xstrdup(argv[optind])
			     : xasprintf("%s/bench.db", mkdtemp(path));
	if ((db = db_open(file, &cause)) == NULL)
		bench_die("open", cause);
	rowid = xasprintf("%s.rowid", file);
	keyed = xasprintf("%s.key", file);
	raw_rowid = bench_raw(rowid, BENCH_RAW_ROWID, nruns, n, batch);
	runs = bench_runs(db, nruns);
	ins = bench_insert(db, runs, nruns, n, batch);
	free(runs);
	raw_key = bench_raw(keyed, BENCH_RAW_KEY, nruns, n, batch);
	sum = bench_summary(db, &groups);
	printf("ingest: %ld samples in batches of %ld: %.3f s, %.0f rows/s\n",
	    n, batch, ins, n / ins);
	printf("raw rowid: %.0f rows/s; raw same key: %.0f rows/s\n",
	    n / raw_rowid, n / raw_key);
	printf("ratio: %.2f of raw rowid, %.2f of raw same key\n",
	    raw_rowid / ins, raw_key / ins);
	printf("summary: %d (run, metric) groups: %.3f s\n", groups, sum);
	db_close(db);
	if (optind == argc)
		bench_remove(path, file, rowid, keyed);
	free(rowid);
	free(keyed);
	free(file);
	return 0;
}
