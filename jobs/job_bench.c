/*
 * The benchmarks of a job file: catalog entries resolved against the
 * catalog, and custom commands with their parser and metrics.
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "benchmarks/catalog.h"
#include "benchmarks/parse.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_yaml.h"
#include "jobs/plan.h"

static const char *job_bench_keys[] = { "name", "params", "iterations",
	"warmups", "timeout", "command", "parser", "parser_args", "metrics",
	NULL };
static const char *job_metric_keys[] = { "name", "unit", "direction",
	"statistic", "label", NULL };
static const char *job_directions[] = { "lower", "higher", NULL };
static const char *job_statistics[] = { "amean", "hmean", "gmean", "median",
	NULL };

/* Returns whether s is a parameter name: letters, digits and '_'. */
static bool
job_param_name_ok(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return false;
	for (i = 0; i < len; i++)
		if (!(s[i] >= 'a' && s[i] <= 'z') &&
		    !(s[i] >= 'A' && s[i] <= 'Z') &&
		    !(s[i] >= '0' && s[i] <= '9') && s[i] != '_')
			return false;
	return true;
}

/* Orders parameters by key. */
static int
job_param_cmp(const void *a, const void *b)
{
	return strcmp(((const struct job_param *)a)->key,
	    ((const struct job_param *)b)->key);
}

/* Adds a value to a parameter unless it is a duplicate. */
static void
job_param_add(struct job_ctx *ctx, yaml_node_t *n, struct job_param *p)
{
	const char *s = job_text(n);
	size_t	    i;

	if (s == NULL || *s == '\0') {
		job_err(ctx, n,
		    "parameter \"%s\": values must be non-empty "
		    "strings or numbers",
		    p->key);
		return;
	}
	for (i = 0; i < p->nvalues; i++)
		if (strcmp(p->values[i], s) == 0) {
			job_err(ctx, n,
			    "parameter \"%s\": duplicate value "
			    "\"%s\"",
			    p->key, s);
			return;
		}
	p->values = xreallocarray(p->values, p->nvalues + 1, sizeof *p->values);
	p->values[p->nvalues++] = xstrdup(s);
}

/* Parses one parameter: a value or a non-empty list of values. */
static void
job_read_param(struct job_ctx *ctx, yaml_node_t *k, yaml_node_t *v,
    struct job_benchmark *b)
{
	struct job_param *p;
	const char	 *key = job_text(k);
	size_t		  i;

	if (!job_param_name_ok(key, strlen(key))) {
		job_err(ctx, k,
		    "parameter \"%s\": names are letters, digits "
		    "and '_'",
		    key);
		return;
	}
	p = &b->params[b->nparams];
	p->key = xstrdup(key);
	if (v->type == YAML_SEQUENCE_NODE && job_seq_len(v) == 0)
		job_err(ctx, k, "parameter \"%s\": empty list", key);
	if (v->type == YAML_SEQUENCE_NODE)
		for (i = 0; i < job_seq_len(v); i++)
			job_param_add(ctx, job_seq_item(ctx, v, i), p);
	else
		job_param_add(ctx, v, p);
	b->nparams++;
}

/* Parses params: a mapping of names to values or lists of values. */
static void
job_read_params(struct job_ctx *ctx, yaml_node_t *n, struct job_benchmark *b)
{
	yaml_node_pair_t *p;
	size_t		  count;

	if ((n = job_map_get(ctx, n, "params", NULL)) == NULL)
		return;
	if (job_map_check(ctx, n, "\"params\"", NULL) == -1)
		return;
	count = n->data.mapping.pairs.top - n->data.mapping.pairs.start;
	b->params = xcalloc(count, sizeof *b->params);
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		if (job_text(job_node(ctx, p->key)) == NULL ||
		    job_map_get(ctx, n, job_text(job_node(ctx, p->key)),
			NULL) != job_node(ctx, p->value))
			continue; /* reported by job_map_check */
		job_read_param(ctx, job_node(ctx, p->key),
		    job_node(ctx, p->value), b);
	}
	qsort(b->params, b->nparams, sizeof *b->params, job_param_cmp);
}

/* Returns the parameter called key, or NULL. */
static struct job_param *
job_find_param(struct job_benchmark *b, const char *key, size_t len)
{
	size_t i;

	for (i = 0; i < b->nparams; i++)
		if (strlen(b->params[i].key) == len &&
		    strncmp(b->params[i].key, key, len) == 0)
			return &b->params[i];
	return NULL;
}

/* Parses a custom command: a non-empty list of strings. */
static void
job_read_command(struct job_ctx *ctx, yaml_node_t *map, struct job_benchmark *b)
{
	yaml_node_t *k, *seq, *item;
	size_t	     i;

	if ((seq = job_map_get(ctx, map, "command", &k)) == NULL)
		return;
	if (seq->type != YAML_SEQUENCE_NODE || job_seq_len(seq) == 0) {
		job_err(ctx, k, "\"command\" must be a non-empty list (argv)");
		return;
	}
	b->argv = xcalloc(job_seq_len(seq) + 1, sizeof *b->argv);
	for (i = 0; i < job_seq_len(seq); i++) {
		item = job_seq_item(ctx, seq, i);
		if (job_text(item) == NULL)
			job_err(ctx, item,
			    "\"command\": arguments must be "
			    "strings");
		b->argv[i] = xstrdup(job_text(item) ? job_text(item) : "");
	}
}

/*
 * Checks a custom command's template: each {name} must be a parameter and
 * each parameter must be used.
 */
static void
job_check_placeholders(struct job_ctx *ctx, yaml_node_t *k,
    struct job_benchmark *b)
{
	const char **keys = xcalloc(b->nparams + 1, sizeof *keys);
	bool	    *used = xcalloc(b->nparams + 1, sizeof *used);
	char	    *cause;
	size_t	     i;

	for (i = 0; i < b->nparams; i++)
		keys[i] = b->params[i].key;
	for (i = 0; b->argv[i] != NULL; i++)
		if (plan_expand_arg(b->argv[i], keys, NULL, b->nparams, used,
			NULL, &cause) == -1) {
			job_err(ctx, k, "\"command\": argument %zu: %s", i + 1,
			    cause);
			free(cause);
		}
	for (i = 0; i < b->nparams; i++)
		if (!used[i])
			job_err(ctx, k,
			    "\"command\": parameter \"%s\" is not "
			    "used",
			    b->params[i].key);
	free(keys);
	free(used);
}

/* Reads a metric's key that must be one of a list of names. */
static char *
job_get_choice(struct job_ctx *ctx, yaml_node_t *n, const char *key,
    const char **choices, const char *dflt)
{
	yaml_node_t *k;
	char	    *s, *list;

	if (job_map_get(ctx, n, key, &k) == NULL && dflt != NULL)
		return xstrdup(dflt);
	s = job_get_string(ctx, n, key, true, "metric");
	if (s != NULL && job_lookup(choices, s) == -1) {
		list = job_join(choices);
		job_err(ctx, k, "\"%s\": unknown value \"%s\" (%s)", key, s,
		    list);
		free(list);
		free(s);
		s = NULL;
	}
	return s;
}

/* Parses one metric of a custom command. */
static void
job_read_metric(struct job_ctx *ctx, yaml_node_t *n, struct job_metric *m)
{
	if (job_map_check(ctx, n, "metric", job_metric_keys) == -1)
		return;
	m->name = job_get_string(ctx, n, "name", true, "metric");
	m->unit = job_get_string(ctx, n, "unit", true, "metric");
	m->direction =
	    job_get_choice(ctx, n, "direction", job_directions, NULL);
	m->statistic =
	    job_get_choice(ctx, n, "statistic", job_statistics, "amean");
	m->label = job_get_string(ctx, n, "label", false, "metric");
}

/* Parses the metrics of a custom command: a non-empty list, unique names. */
static void
job_read_metrics(struct job_ctx *ctx, yaml_node_t *map, struct job_benchmark *b)
{
	yaml_node_t *k, *seq, *item;
	size_t	     i, j;

	if ((seq = job_map_get(ctx, map, "metrics", &k)) == NULL) {
		job_err(ctx, map,
		    "benchmark \"%s\": a custom command needs "
		    "\"metrics\"",
		    b->name);
		return;
	}
	if (seq->type != YAML_SEQUENCE_NODE || job_seq_len(seq) == 0) {
		job_err(ctx, k, "\"metrics\" must be a non-empty list");
		return;
	}
	b->metrics = xcalloc(job_seq_len(seq), sizeof *b->metrics);
	for (i = 0; i < job_seq_len(seq); i++) {
		item = job_seq_item(ctx, seq, i);
		job_read_metric(ctx, item, &b->metrics[b->nmetrics++]);
		for (j = 0; j + 1 < b->nmetrics; j++)
			if (b->metrics[i].name != NULL &&
			    b->metrics[j].name != NULL &&
			    strcmp(b->metrics[i].name, b->metrics[j].name) == 0)
				job_err(ctx, item, "duplicate metric \"%s\"",
				    b->metrics[i].name);
	}
}

/* Parses the parts of a custom command: command, parser, metrics. */
static void
job_read_custom(struct job_ctx *ctx, yaml_node_t *n, struct job_benchmark *b)
{
	yaml_node_t *k;

	b->custom = true;
	job_read_command(ctx, n, b);
	b->parser = job_get_string(ctx, n, "parser", false, "benchmark");
	if (job_map_get(ctx, n, "parser", &k) == NULL)
		job_err(ctx, n,
		    "benchmark \"%s\": a custom command needs "
		    "\"parser\"",
		    b->name);
	else if (b->parser != NULL && parse_find(b->parser) == NULL)
		job_err(ctx, k, "unknown parser \"%s\"", b->parser);
	b->parser_args =
	    job_get_string(ctx, n, "parser_args", false, "benchmark");
	job_read_metrics(ctx, n, b);
	if (b->argv != NULL) {
		job_map_get(ctx, n, "command", &k);
		job_check_placeholders(ctx, k, b);
	}
	if (b->iterations == -1)
		b->iterations = JOB_DEFAULT_ITERATIONS;
	if (b->warmups == -1)
		b->warmups = JOB_DEFAULT_WARMUPS;
	if (b->timeout_ms == -1)
		b->timeout_ms = JOB_DEFAULT_TIMEOUT_MS;
	b->resolved =
	    b->argv != NULL && b->parser != NULL && b->metrics != NULL;
}

/* Reports keys that only a custom command may have. */
static void
job_check_not_custom(struct job_ctx *ctx, yaml_node_t *n,
    const struct job_benchmark *b)
{
	static const char *only[] = { "parser", "parser_args", "metrics",
		NULL };
	yaml_node_t	  *k;
	size_t		   i;

	for (i = 0; only[i] != NULL; i++)
		if (job_map_get(ctx, n, only[i], &k) != NULL)
			job_err(ctx, k,
			    "\"%s\" is only for a custom "
			    "\"command\"",
			    only[i]);
}

/* Parses the timeout of a benchmark into b->timeout_ms. */
static void
job_read_timeout(struct job_ctx *ctx, yaml_node_t *n, struct job_benchmark *b)
{
	yaml_node_t *k, *v;

	if ((v = job_map_get(ctx, n, "timeout", &k)) == NULL)
		return;
	b->timeout_ms = job_read_duration(job_text(v));
	if (b->timeout_ms == -1)
		job_err(ctx, k,
		    "\"timeout\" must be a duration (\"90s\", "
		    "\"500ms\", \"5m\", \"1h\", or seconds)%s%s%s",
		    job_text(v) ? ", not \"" : "",
		    job_text(v) ? job_text(v) : "", job_text(v) ? "\"" : "");
}

/* Returns the key node of parameter key in a benchmark's params. */
static yaml_node_t *
job_param_node(struct job_ctx *ctx, yaml_node_t *n, const char *key)
{
	yaml_node_t *params, *k = n;

	params = job_map_get(ctx, n, "params", &k);
	if (params != NULL && params->type == YAML_MAPPING_NODE)
		job_map_get(ctx, params, key, &k);
	return k;
}

/* Checks the job's parameters against the catalog's; adds defaults. */
static void
job_resolve_params(struct job_ctx *ctx, yaml_node_t *n,
    const struct catalog_benchmark *cb, struct job_benchmark *b)
{
	const struct catalog_param *cp;
	struct job_param	   *p;
	size_t			    i;

	for (i = 0; i < b->nparams; i++)
		if (catalog_param_find(cb, b->params[i].key) == NULL)
			job_err(ctx, job_param_node(ctx, n, b->params[i].key),
			    "benchmark \"%s\": unknown parameter \"%s\"",
			    b->name, b->params[i].key);
	b->params = xreallocarray(b->params, b->nparams + cb->nparams + 1,
	    sizeof *b->params);
	for (i = 0; i < cb->nparams; i++) {
		cp = &cb->params[i];
		if (job_find_param(b, cp->name, strlen(cp->name)) != NULL)
			continue;
		if (cp->def == NULL) {
			job_err(ctx, n,
			    "benchmark \"%s\": parameter \"%s\" "
			    "has no default: give it in \"params\"",
			    b->name, cp->name);
			continue;
		}
		p = &b->params[b->nparams++];
		p->key = xstrdup(cp->name);
		p->values = xcalloc(1, sizeof *p->values);
		p->values[0] = xstrdup(cp->def);
		p->nvalues = 1;
	}
	qsort(b->params, b->nparams, sizeof *b->params, job_param_cmp);
}

/* Returns a NULL-terminated copy of n strings, or NULL when n is 0. */
static char **
job_copy_strings(char *const *v, size_t n)
{
	char **out;
	size_t i;

	if (n == 0)
		return NULL;
	out = xcalloc(n + 1, sizeof *out);
	for (i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

/* Copies how the catalog installs the tool and the server it needs. */
static void
job_resolve_setup(const struct catalog_benchmark *cb, struct job_benchmark *b)
{
	b->install.package =
	    cb->install.package ? xstrdup(cb->install.package) : NULL;
	b->install.source =
	    cb->install.source ? xstrdup(cb->install.source) : NULL;
	b->install.build =
	    job_copy_strings(cb->install.build, cb->install.nbuild);
	b->server.argv =
	    job_copy_strings(cb->server.command, cb->server.ncommand);
	b->server.port = (int)cb->server.port;
}

/* Copies the catalog's command, parser, metrics and run counts. */
static void
job_resolve_copy(const struct catalog_benchmark *cb, struct job_benchmark *b)
{
	struct job_metric *m;
	size_t		   i;

	b->argv = xcalloc(cb->ncommand + 1, sizeof *b->argv);
	for (i = 0; i < cb->ncommand; i++)
		b->argv[i] = xstrdup(cb->command[i]);
	b->parser = xstrdup(cb->parser);
	b->parser_args = cb->parser_args ? xstrdup(cb->parser_args) : NULL;
	b->metrics = xcalloc(cb->nmetrics + 1, sizeof *b->metrics);
	for (i = 0; i < cb->nmetrics; i++) {
		m = &b->metrics[b->nmetrics++];
		m->name = xstrdup(cb->metrics[i].name);
		m->unit = xstrdup(cb->metrics[i].unit);
		m->direction =
		    xstrdup(catalog_direction_name(cb->metrics[i].direction));
		m->statistic =
		    xstrdup(catalog_statistic_name(cb->metrics[i].statistic));
		m->label =
		    cb->metrics[i].label ? xstrdup(cb->metrics[i].label) : NULL;
	}
	if (b->iterations == -1)
		b->iterations = (int)cb->iterations;
	if (b->warmups == -1)
		b->warmups = (int)cb->warmups;
	if (b->timeout_ms == -1)
		b->timeout_ms = (long)cb->timeout * 1000;
}

/* Resolves a catalog benchmark: command template, parser, metrics. */
static void
job_resolve(struct job_ctx *ctx, yaml_node_t *n, struct job_benchmark *b)
{
	const struct catalog_benchmark *cb;
	yaml_node_t		       *k;

	if ((cb = catalog_find(ctx->catalog, b->name)) == NULL) {
		job_map_get(ctx, n, "name", &k);
		job_err(ctx, k, "unknown benchmark \"%s\"", b->name);
		return;
	}
	job_resolve_params(ctx, n, cb, b);
	job_resolve_copy(cb, b);
	job_resolve_setup(cb, b);
	b->resolved = true;
}

/* Parses one benchmark: a catalog entry or a custom command. */
static void
job_read_benchmark(struct job_ctx *ctx, yaml_node_t *n, struct job_benchmark *b)
{
	long iterations = -1, warmups = -1;

	b->timeout_ms = -1;
	if (job_map_check(ctx, n, "benchmark", job_bench_keys) == -1) {
		b->name = xstrdup("");
		return;
	}
	b->name = job_get_string(ctx, n, "name", true, "benchmark");
	if (b->name == NULL)
		b->name = xstrdup("");
	job_read_params(ctx, n, b);
	job_get_int(ctx, n, "iterations", 1, JOB_MAX_COUNT, &iterations);
	job_get_int(ctx, n, "warmups", 0, JOB_MAX_COUNT, &warmups);
	b->iterations = (int)iterations;
	b->warmups = (int)warmups;
	job_read_timeout(ctx, n, b);
	if (job_map_get(ctx, n, "command", NULL) != NULL)
		job_read_custom(ctx, n, b);
	else {
		job_check_not_custom(ctx, n, b);
		if (ctx->catalog != NULL && *b->name != '\0')
			job_resolve(ctx, n, b);
	}
}

/* Parses benchmarks: a non-empty list. */
void
job_read_benchmarks(struct job_ctx *ctx, yaml_node_t *root, struct job *job)
{
	yaml_node_t *k, *seq;
	size_t	     i;

	if ((seq = job_get_seq(ctx, root, "benchmarks", true, &k)) == NULL)
		return;
	job->benchmarks = xcalloc(job_seq_len(seq), sizeof *job->benchmarks);
	for (i = 0; i < job_seq_len(seq); i++)
		job_read_benchmark(ctx, job_seq_item(ctx, seq, i),
		    &job->benchmarks[job->nbenchmarks++]);
}
