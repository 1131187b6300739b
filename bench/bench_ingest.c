/*
 * bench_ingest: how fast samples go into SQLite through db/ (the path
 * hilabd uses), in batches of a given size, and how fast a per-(run,
 * metric) summary reads them back.
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
	long	   n = 1000000, batch = 1000;
	int	   nruns = 1000, c, groups;
	double	   ins, sum;
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
	ins = bench_insert(db, bench_runs(db, nruns), nruns, n, batch);
	sum = bench_summary(db, &groups);
	printf("ingest: %ld samples in batches of %ld: %.3f s, %.0f rows/s\n",
	    n, batch, ins, n / ins);
	printf("summary: %d (run, metric) groups: %.3f s\n", groups, sum);
	db_close(db);
	free(file);
	return 0;
}
