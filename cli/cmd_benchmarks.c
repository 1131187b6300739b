/*
 * hilab benchmarks: the catalog, discoverable.  list gives every entry
 * with its parameters (type, default, sweep axis) and metrics (unit,
 * direction, statistic); show gives one entry as a normalized catalog
 * file (catalog_print), with its command, install and server.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "benchmarks/catalog.h"
#include "cli/cli.h"
#include "common/xmalloc.h"

/* n strings as a JSON array (empty when v is NULL). */
static json_t *
bench_strings(char *const *v, size_t n)
{
	json_t *a = json_array();
	size_t	i;

	for (i = 0; v != NULL && i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* The parameters of a benchmark as JSON. */
static json_t *
bench_params_json(const struct catalog_benchmark *b)
{
	const struct catalog_param *p;
	json_t			   *a = json_array();
	size_t			    i;

	for (i = 0; i < b->nparams; i++) {
		p = &b->params[i];
		json_array_append_new(a,
		    json_pack("{s:s, s:s, s:s?, s:o, s:s?}", "name", p->name,
			"type", catalog_param_type_name(p->type), "default",
			p->def, "axis", bench_strings(p->axis, p->naxis),
			"description", p->description));
	}
	return a;
}

/* The metrics of a benchmark as JSON. */
static json_t *
bench_metrics_json(const struct catalog_benchmark *b)
{
	const struct catalog_metric *m;
	json_t			    *a = json_array();
	size_t			     i;

	for (i = 0; i < b->nmetrics; i++) {
		m = &b->metrics[i];
		json_array_append_new(a,
		    json_pack("{s:s, s:s, s:s, s:s, s:s?, s:b}", "name",
			m->name, "unit", m->unit, "direction",
			catalog_direction_name(m->direction), "statistic",
			catalog_statistic_name(m->statistic), "label", m->label,
			"optional", m->optional));
	}
	return a;
}

/* How the tool is installed, as JSON. */
static json_t *
bench_install_json(const struct catalog_install *in)
{
	return json_pack("{s:s?, s:s?, s:o, s:o}", "package", in->package,
	    "source", in->source, "build", bench_strings(in->build, in->nbuild),
	    "prepare", bench_strings(in->prepare, in->nprepare));
}

/* The server the benchmark needs, as JSON: null when none. */
static json_t *
bench_server_json(const struct catalog_server *sv)
{
	if (sv->command == NULL)
		return json_null();
	return json_pack("{s:o, s:o}", "command",
	    bench_strings(sv->command, sv->ncommand), "port",
	    sv->port != 0 ? json_integer(sv->port) : json_null());
}

/* Adaptive iterations as JSON: null for a fixed count. */
static json_t *
bench_adaptive_json(const struct catalog_adapt *a)
{
	if (a->precision <= 0)
		return json_null();
	return json_pack("{s:i, s:i, s:f, s:s?}", "min", a->min, "max", a->max,
	    "precision", a->precision, "metric", a->metric);
}

/* A benchmark as JSON: the keys the README lists. */
static json_t *
bench_json(const struct catalog_benchmark *b)
{
	return json_pack("{s:s, s:s?, s:s, s:o, s:o, s:i, s:o, s:i, s:I, s:o, "
			 "s:o, s:s, s:s?, s:s?, s:o}",
	    "name", b->name, "description", b->description, "file", b->path,
	    "command", bench_strings(b->command, b->ncommand), "params",
	    bench_params_json(b), "iterations", (int)b->iterations, "adaptive",
	    bench_adaptive_json(&b->adaptive), "warmups", (int)b->warmups,
	    "timeout_ms", (json_int_t)b->timeout * 1000, "install",
	    bench_install_json(&b->install), "server",
	    bench_server_json(&b->server), "parser", b->parser, "parser_args",
	    b->parser_args, "parser_sample", b->parser_sample, "metrics",
	    bench_metrics_json(b));
}

/* "a, b, c": n strings joined (caller frees). */
static char *
bench_join(char *const *v, size_t n)
{
	char  *all = xstrdup(""), *next;
	size_t i;

	for (i = 0; i < n; i++) {
		next = xasprintf("%s%s%s", all, i > 0 ? ", " : "", v[i]);
		free(all);
		all = next;
	}
	return all;
}

/*
 * One parameter: "groups (integer, default 4), axis 1, 2, 4", then its
 * description on the lines below.
 */
static void
bench_print_param(const struct catalog_param *p)
{
	char *axis = bench_join(p->axis, p->naxis), *line;

	line = xasprintf("%s (%s, %s%s)%s%s", p->name,
	    catalog_param_type_name(p->type),
	    p->def != NULL ? "default " : "no default: a job gives it",
	    p->def != NULL ? p->def : "", p->naxis > 0 ? ", axis " : "", axis);
	printf("      ");
	args_wrap(stdout, line, 6, 8);
	if (p->description != NULL) {
		printf("          ");
		args_wrap(stdout, p->description, 10, 10);
	}
	free(line);
	free(axis);
}

/*
 * One metric: "time (s, lower is better), amean", then ", optional" and
 * the row label it has.
 */
static void
bench_print_metric(const struct catalog_metric *m)
{
	char *label = m->label != NULL ? xasprintf(", row \"%s\"", m->label)
				       : xstrdup("");
	char *line;

	line = xasprintf("%s (%s%s%s is better), %s%s%s", m->name, m->unit,
	    *m->unit != '\0' ? ", " : "", catalog_direction_name(m->direction),
	    catalog_statistic_name(m->statistic),
	    m->optional ? ", optional" : "", label);
	printf("      ");
	args_wrap(stdout, line, 6, 8);
	free(line);
	free(label);
}

/* One entry of the list: name, description, params and metrics. */
static void
bench_print(const struct catalog_benchmark *b)
{
	size_t i;

	printf("%s\n", b->name);
	if (b->description != NULL) {
		printf("    ");
		args_wrap(stdout, b->description, 4, 4);
	}
	printf("    params:%s\n", b->nparams == 0 ? " none" : "");
	for (i = 0; i < b->nparams; i++)
		bench_print_param(&b->params[i]);
	printf("    metrics:\n");
	for (i = 0; i < b->nmetrics; i++)
		bench_print_metric(&b->metrics[i]);
}

/* hilab benchmarks list: every entry of the catalog. */
int
cmd_benchmarks_list(const struct cli_options *o, const struct args *a)
{
	struct catalog *cat;
	json_t	       *arr = json_array();
	size_t		i;

	(void)a;
	if ((cat = cli_catalog(o)) == NULL) {
		json_decref(arr);
		return CLI_EXIT_USAGE;
	}
	for (i = 0; i < cat->n; i++) {
		if (o->json)
			json_array_append_new(arr, bench_json(&cat->v[i]));
		else {
			if (i > 0)
				putchar('\n');
			bench_print(&cat->v[i]);
		}
	}
	if (o->json)
		cli_print_json(arr);
	else
		json_decref(arr);
	catalog_free(cat);
	return CLI_EXIT_OK;
}

/*
 * Says that the catalog has no benchmark called name, with the closest
 * name it has, else every name it has.
 */
static int
bench_unknown(const struct catalog *cat, const char *name)
{
	char *hint = catalog_suggest(cat, name), *names = catalog_names(cat);

	if (*hint != '\0' || cat->n == 0)
		cli_error(CLI_EXIT_USAGE,
		    "benchmark \"%s\": no such benchmark%s", name,
		    cat->n == 0 ? "; the catalog is empty" : hint);
	else
		cli_error(CLI_EXIT_USAGE,
		    "benchmark \"%s\": no such benchmark; the catalog has: %s",
		    name, names);
	free(names);
	free(hint);
	return CLI_EXIT_USAGE;
}

/* hilab benchmarks show NAME: one entry, as a catalog file or JSON. */
int
cmd_benchmarks_show(const struct cli_options *o, const struct args *a)
{
	const struct catalog_benchmark *b;
	struct catalog		       *cat;
	int				rc = CLI_EXIT_OK;

	if ((cat = cli_catalog(o)) == NULL)
		return CLI_EXIT_USAGE;
	if ((b = catalog_find(cat, a->pos[0].text)) == NULL)
		rc = bench_unknown(cat, a->pos[0].text);
	else if (o->json)
		cli_print_json(bench_json(b));
	else
		catalog_print(stdout, b);
	catalog_free(cat);
	return rc;
}
