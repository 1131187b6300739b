/*
 * A bisection as text (bisect/report.h): what hilab bisect show prints and
 * what a sweep's mail says of a bisection it started.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "bisect/load.h"
#include "bisect/report.h"
#include "db/db.h"

/* The verdict of commit c in the evidence table. */
const char *
bisect_verdict_of(struct bisect_loaded *l, size_t c)
{
	double p;

	if (bisect_search_skipped(l->search, c))
		return "no build";
	p = bisect_search_p_bad(l->search, c);
	return p <= 0.01 ? "good" : p >= 0.99 ? "bad" : "unsure";
}

/* Prints the evidence table: every commit measured or skipped. */
static void
report_evidence(FILE *fp, struct bisect_loaded *l)
{
	char   id[13], mean[32];
	size_t c;

	fprintf(fp, "\n  %5s %-12s %5s %12s %7s %-8s %s\n", "#", "commit", "n",
	    "mean", "P(bad)", "verdict", "subject");
	for (c = 0; c <= l->n; c++) {
		if (bisect_search_count(l->search, c) == 0 &&
		    !bisect_search_skipped(l->search, c))
			continue;
		bisect_short(l->commits[c], id);
		if (bisect_search_count(l->search, c) > 0)
			snprintf(mean, sizeof mean, "%.4g",
			    bisect_search_mean(l->search, c));
		else
			snprintf(mean, sizeof mean, "-");
		fprintf(fp, "  %5zu %-12s %5zu %12s %7.3f %-8s %s%s\n", c, id,
		    bisect_search_count(l->search, c), mean,
		    bisect_search_p_bad(l->search, c), bisect_verdict_of(l, c),
		    c == 0	    ? "(good end) "
			: c == l->n ? "(bad end) "
				    : "",
		    l->subjects[c]);
	}
}

/* Prints the result line of an ended bisection from its result JSON. */
static void
report_result(FILE *fp, const struct db_bisect *b,
    const struct bisect_loaded *l)
{
	json_t *r = b->result ? json_loads(b->result, 0, NULL) : NULL;
	size_t	f = (size_t)json_integer_value(json_object_get(r, "first"));
	size_t	t = (size_t)json_integer_value(json_object_get(r, "last"));
	double	g = json_number_value(json_object_get(r, "good"));
	double	d = json_number_value(json_object_get(r, "bad"));
	char	a[13], z[13];

	if (r != NULL && f <= l->n && t <= l->n &&
	    json_object_get(r, "first") != NULL) {
		bisect_short(l->commits[f], a);
		bisect_short(l->commits[t], z);
		if (f == t)
			fprintf(fp, "  first bad commit: %s \"%s\"\n", a,
			    l->subjects[f]);
		else
			fprintf(fp, "  first bad commit: one of %s..%s\n", a,
			    z);
		fprintf(fp,
		    "  posterior %.3f; good %.4g, bad %.4g (%+.1f%%), sd "
		    "%.3g; %lld samples\n",
		    json_number_value(json_object_get(r, "mass")), g, d,
		    100 * (d - g) / g,
		    json_number_value(json_object_get(r, "sd")),
		    (long long)json_integer_value(
			json_object_get(r, "samples")));
	}
	if (b->why != NULL)
		fprintf(fp, "  why: %s\n", b->why);
	json_decref(r);
}

void
bisect_report_print(FILE *fp, const struct db_bisect *b,
    struct bisect_loaded *l)
{
	fprintf(fp, "bisection %lld \"%s\": %s\n", (long long)b->id, b->name,
	    b->state);
	fprintf(fp,
	    "  %s %s%s%s on %s; %zu commits of %s after %.12s, up to "
	    "%.12s; budget %lld samples, confidence %.3g\n",
	    b->benchmark, b->metric, *b->params ? " " : "", b->params,
	    b->machine, l->n, b->tree, l->commits[0], l->commits[l->n],
	    (long long)b->budget, b->confidence);
	report_result(fp, b, l);
	report_evidence(fp, l);
}
