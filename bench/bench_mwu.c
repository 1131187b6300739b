/*
 * bench_mwu: two lists of numbers (one a line, in files A and B) compared
 * as the tables compare samples: n, medians, B's median over A's and the
 * Mann-Whitney p.  One line:
 *
 *	bench_mwu A B	->	n_a n_b median_a median_b ratio p
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/xmalloc.h"
#include "report/stats.h"

/* The numbers of file path, in *x (caller frees); returns how many. */
static size_t
mwu_read(const char *path, double **x)
{
	FILE  *f;
	size_t n = 0;
	double v;

	*x = NULL;
	if ((f = fopen(path, "r")) == NULL) {
		perror(path);
		exit(1);
	}
	while (fscanf(f, "%lf", &v) == 1) {
		*x = xreallocarray(*x, n + 1, sizeof **x);
		(*x)[n++] = v;
	}
	fclose(f);
	return n;
}

int
main(int argc, char **argv)
{
	struct stats_summary sa, sb;
	struct stats_test    t;
	double		    *a, *b;
	size_t		     na, nb;

	if (argc != 3) {
		fprintf(stderr, "usage: bench_mwu A B\n");
		return 2;
	}
	na = mwu_read(argv[1], &a);
	nb = mwu_read(argv[2], &b);
	if (na < 2 || nb < 2) {
		fprintf(stderr, "bench_mwu: too few numbers (%zu, %zu)\n", na,
		    nb);
		return 1;
	}
	stats_summarize(a, na, &sa);
	stats_summarize(b, nb, &sb);
	stats_mwu(a, na, b, nb, STATS_MWU_AUTO, &t);
	printf("%zu %zu %.6g %.6g %.4f %.3g\n", na, nb, sa.median, sb.median,
	    sb.median / sa.median, t.p);
	free(a);
	free(b);
	return 0;
}
