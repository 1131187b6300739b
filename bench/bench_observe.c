/*
 * bench_observe: the cost of probes and monitors on a benchmark, from a
 * hilab database: the samples of metric of two benchmarks of one job
 * (the same command without and with probes or monitors, interleaved by
 * rounds) compared with the Mann-Whitney U test.  Prints n, the medians,
 * their difference in percent and p.
 *
 *	bench_observe DB JOB OFF_BENCHMARK ON_BENCHMARK METRIC
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/xmalloc.h"
#include "report/stats.h"

/* The values of metric of benchmark in job, in *x (caller frees). */
static size_t
bench_values(sqlite3 *db, long long job, const char *benchmark,
    const char *metric, double **x)
{
	sqlite3_stmt *s;
	size_t	      n = 0;

	*x = NULL;
	if (sqlite3_prepare_v2(db,
		"SELECT s.value FROM samples s JOIN runs r ON r.id = s.run "
		"WHERE r.job = ?1 AND r.benchmark = ?2 AND s.metric = ?3 "
		"AND r.state = 'done'",
		-1, &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_int64(s, 1, job);
	sqlite3_bind_text(s, 2, benchmark, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, metric, -1, SQLITE_STATIC);
	while (sqlite3_step(s) == SQLITE_ROW) {
		*x = xreallocarray(*x, n + 1, sizeof **x);
		(*x)[n++] = sqlite3_column_double(s, 0);
	}
	sqlite3_finalize(s);
	return n;
}

int
main(int argc, char **argv)
{
	struct stats_summary off, on;
	struct stats_test    t;
	sqlite3		    *db;
	double		    *a, *b;
	size_t		     na, nb;

	if (argc != 6) {
		fprintf(stderr, "usage: bench_observe DB JOB OFF ON METRIC\n");
		return 2;
	}
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		fprintf(stderr, "bench_observe: \"%s\": cannot open\n",
		    argv[1]);
		return 1;
	}
	na = bench_values(db, atoll(argv[2]), argv[3], argv[5], &a);
	nb = bench_values(db, atoll(argv[2]), argv[4], argv[5], &b);
	sqlite3_close(db);
	if (na < 2 || nb < 2) {
		fprintf(stderr, "bench_observe: too few samples (%zu, %zu)\n",
		    na, nb);
		return 1;
	}
	stats_summarize(a, na, &off);
	stats_summarize(b, nb, &on);
	stats_mwu(a, na, b, nb, STATS_MWU_AUTO, &t);
	printf("%s: off n=%zu median %.4g (CV %.1f%%), on n=%zu median %.4g "
	       "(CV %.1f%%), difference %+.2f%%, Mann-Whitney p=%.3g\n",
	    argv[5], na, off.median, off.cv, nb, on.median, on.cv,
	    100.0 * (on.median - off.median) / off.median, t.p);
	free(a);
	free(b);
	return 0;
}
