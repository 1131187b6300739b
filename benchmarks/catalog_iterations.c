/*
 * A benchmark's "iterations", in the catalog and in job files alike: a
 * fixed count, or adaptive iterations {min, max, precision, metric} that
 * run until the 95% CI half-width of the metric's statistic is within
 * precision of it (never looking at another kernel's samples).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "benchmarks/catalog.h"
#include "common/conf.h"
#include "common/conf_emit.h"
#include "common/xmalloc.h"

#define ITER_PRECISION "a percentage from 0.01% to 50% such as \"2%\""

/* "precision": a percentage such as "2%" into a fraction (0.02). */
static void
catalog_parse_precision(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	const char *s = conf_scalar(f, k, v, ITER_PRECISION);
	char	   *end = NULL;
	double	    pct;

	if (s == NULL)
		return;
	pct = strtod(s, &end);
	if (end == s || strcmp(end, "%") != 0 || !(pct >= 0.01 && pct <= 50)) {
		conf_expect(f, k, v, ITER_PRECISION);
		return;
	}
	*(double *)dst = pct / 100;
}

#define ADA(f) offsetof(struct catalog_adapt, f)

static const struct conf_key catalog_adapt_keys[] = {
	{ .name = "min",
	    .parse = conf_parse_int,
	    .off = ADA(min),
	    .flags = CONF_REQUIRED,
	    .min = 2,
	    .max = CATALOG_MAX_COUNT },
	{ .name = "max",
	    .parse = conf_parse_int,
	    .off = ADA(max),
	    .flags = CONF_REQUIRED,
	    .min = 2,
	    .max = CATALOG_MAX_COUNT },
	{ .name = "precision",
	    .parse = catalog_parse_precision,
	    .off = ADA(precision),
	    .flags = CONF_REQUIRED },
	{ .name = "metric", .parse = conf_parse_str, .off = ADA(metric) },
	{ .name = NULL },
};

/* Reads "iterations": a count, or a mapping of adaptive iterations. */
void
catalog_read_iterations(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, int *iterations, struct catalog_adapt *a)
{
	struct catalog_adapt got = { 0 };
	size_t		     nerrs = f->ld->nerrs;

	if (v->type != YAML_MAPPING_NODE) {
		conf_parse_int(f, k, v, iterations);
		return;
	}
	conf_mapping(f, v, catalog_adapt_keys, &got, k->name);
	if (f->ld->nerrs == nerrs && got.min > got.max)
		conf_error_key(f, v, "max",
		    "\"iterations\": \"max\" %d is less than \"min\" %d",
		    got.max, got.min);
	if (f->ld->nerrs != nerrs) {
		free(got.metric);
		return;
	}
	catalog_adapt_clear(a);
	*a = got;
	*iterations = got.min;
}

/* Frees the metric name of a and zeroes it (a fixed count again). */
void
catalog_adapt_clear(struct catalog_adapt *a)
{
	free(a->metric);
	memset(a, 0, sizeof *a);
}

/* Formats a precision fraction as the percentage a file gives: "2%". */
char *
catalog_precision_text(double precision)
{
	return xasprintf("%.6g%%", precision * 100);
}

/* Emits "iterations": the count, or the mapping of adaptive iterations. */
void
catalog_emit_iterations(struct conf_emit *e, int iterations,
    const struct catalog_adapt *a)
{
	char *pct;

	if (a->precision <= 0) {
		conf_emit_int(e, "iterations", iterations);
		return;
	}
	conf_emit_key(e, "iterations");
	conf_emit_map(e, true);
	conf_emit_int(e, "min", a->min);
	conf_emit_int(e, "max", a->max);
	pct = catalog_precision_text(a->precision);
	conf_emit_str(e, "precision", pct);
	free(pct);
	conf_emit_str(e, "metric", a->metric);
	conf_emit_end(e);
}
