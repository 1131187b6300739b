/*
 * The benchmarks of a job file: catalog entries resolved against the
 * catalog, and custom commands with their parser and metrics (declared as
 * the catalog declares its own, catalog_read_metrics).
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "benchmarks/catalog.h"
#include "benchmarks/parse.h"
#include "common/conf.h"
#include "common/suggest.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_yaml.h"
#include "jobs/plan.h"

#define JOB_TIMEOUT_TEXT \
	"a duration from 1ms to 7d such as \"10s\" or \"500ms\""

/* A benchmark entry as read: the benchmark and what is read after. */
struct job_bench_in {
	struct job_benchmark b;
	int		     timeout_ms; /* conf_parse_duration's int */
	yaml_node_t	    *metrics;	 /* read for a custom command only */
};

/* Whether s is a parameter name: 1 to 64 letters, digits and '_'. */
static bool
job_param_name_ok(const char *s)
{
	size_t i;

	if (*s == '\0' || strlen(s) > CONF_MAX_NAME)
		return false;
	for (i = 0; s[i] != '\0'; i++)
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
job_param_add(struct conf_file *f, yaml_node_t *n, struct job_param *p)
{
	const char *s;
	size_t	    i;

	if (n->type != YAML_SCALAR_NODE || n->data.scalar.length == 0) {
		conf_error(f, n,
		    "parameter \"%s\": values must be non-empty strings or "
		    "numbers",
		    p->key);
		return;
	}
	s = (const char *)n->data.scalar.value;
	if (n->data.scalar.length > JOB_MAX_PARAM_VALUE) {
		conf_error(f, n,
		    "parameter \"%s\": a value is longer than " CONF_STR(
			JOB_MAX_PARAM_VALUE) " bytes",
		    p->key);
		return;
	}
	for (i = 0; i < p->nvalues; i++)
		if (strcmp(p->values[i], s) == 0) {
			conf_error(f, n,
			    "parameter \"%s\": duplicate value \"%s\"", p->key,
			    s);
			return;
		}
	p->values = xreallocarray(p->values, p->nvalues + 1, sizeof *p->values);
	p->values[p->nvalues++] = xstrdup(s);
}

/* Reads one parameter: a value or a non-empty list of values. */
static void
job_param(struct conf_file *f, yaml_node_t *key, yaml_node_t *v, void *arg)
{
	struct job_benchmark *b = arg;
	const char	     *name = (const char *)key->data.scalar.value;
	struct job_param     *p;
	size_t		      i;

	if (!job_param_name_ok(name)) {
		conf_error(f, key,
		    "parameter \"%.*s\": names are 1 to " CONF_STR(
			CONF_MAX_NAME) " letters, digits and '_'",
		    CONF_MAX_NAME, name);
		return;
	}
	b->params = xreallocarray(b->params, b->nparams + 1, sizeof *b->params);
	p = &b->params[b->nparams++];
	memset(p, 0, sizeof *p);
	p->key = xstrdup(name);
	if (v->type == YAML_SEQUENCE_NODE && conf_seq_len(v) == 0)
		conf_error(f, key, "parameter \"%s\": empty list", name);
	if (v->type != YAML_SEQUENCE_NODE)
		job_param_add(f, v, p);
	for (i = 0; v->type == YAML_SEQUENCE_NODE && i < conf_seq_len(v); i++)
		job_param_add(f, conf_seq_item(f, v, i), p);
}

/* "params": a mapping of names to values or lists of values. */
static void
job_read_params(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	struct job_benchmark *b = dst;

	if (v->type != YAML_MAPPING_NODE) {
		conf_expect(f, k, v, "a mapping");
		return;
	}
	conf_pairs(f, v, job_param, b);
	if (b->nparams > 0)
		qsort(b->params, b->nparams, sizeof *b->params, job_param_cmp);
}

/* Copies the catalog's form of adaptive iterations into a job's. */
static void
job_adapt_set(struct job_benchmark *b, const struct catalog_adapt *a)
{
	free(b->adaptive.metric);
	b->adaptive.min = a->min;
	b->adaptive.max = a->max;
	b->adaptive.precision = a->precision;
	b->adaptive.metric = a->metric != NULL ? xstrdup(a->metric) : NULL;
}

/* "iterations": a count, or adaptive iterations read as the catalog's. */
static void
job_read_iterations(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct job_benchmark *b = dst;
	struct catalog_adapt  a = { 0 };

	catalog_read_iterations(f, k, v, &b->iterations, &a);
	if (a.precision > 0)
		job_adapt_set(b, &a);
	catalog_adapt_clear(&a);
}

#define BIN(f) offsetof(struct job_bench_in, f)
#define BEN(f) offsetof(struct job_bench_in, b.f)

static const struct conf_key job_bench_keys[] = {
	{ .name = "name",
	    .parse = conf_parse_name,
	    .off = BEN(name),
	    .flags = CONF_REQUIRED },
	{ .name = "params", .parse = job_read_params, .off = BIN(b) },
	{ .name = "iterations",
	    .parse = job_read_iterations,
	    .off = BIN(b),
	    .min = 1,
	    .max = JOB_MAX_COUNT },
	{ .name = "warmups",
	    .parse = conf_parse_int,
	    .off = BEN(warmups),
	    .min = 0,
	    .max = JOB_MAX_COUNT },
	{ .name = "timeout",
	    .parse = conf_parse_duration,
	    .off = BIN(timeout_ms),
	    .min = 1,
	    .max = CATALOG_MAX_TIMEOUT_MS,
	    .expect = JOB_TIMEOUT_TEXT },
	{ .name = "command",
	    .parse = conf_parse_strv,
	    .off = BEN(argv),
	    .flags = CONF_EMPTY_OK,
	    .expect = "a non-empty list (argv)" },
	{ .name = "parser", .parse = conf_parse_str, .off = BEN(parser) },
	{ .name = "kernel", .parse = conf_parse_str, .off = BEN(kernel) },
	{ .name = "parser_args",
	    .parse = conf_parse_str,
	    .off = BEN(parser_args) },
	{ .name = "parser_sample",
	    .parse = conf_parse_str,
	    .off = BEN(parser_sample) },
	{ .name = "metrics", .parse = conf_parse_node, .off = BIN(metrics) },
	{ .name = "probes", .parse = job_read_probes, .off = BIN(b) },
	{ .name = "monitors",
	    .parse = job_read_monitors,
	    .off = BEN(monitors) },
	{ .name = NULL },
};

/* Returns the parameter called key, or NULL. */
static struct job_param *
job_find_param(struct job_benchmark *b, const char *key)
{
	size_t i;

	for (i = 0; i < b->nparams; i++)
		if (strcmp(b->params[i].key, key) == 0)
			return &b->params[i];
	return NULL;
}

/* Adds n catalog metrics to a benchmark, their enums named. */
static void
job_metrics_add(struct job_benchmark *b, const struct catalog_metric *cm,
    size_t n)
{
	struct job_metric *m;
	size_t		   i;

	b->metrics =
	    xreallocarray(b->metrics, b->nmetrics + n + 1, sizeof *b->metrics);
	for (i = 0; i < n; i++) {
		m = &b->metrics[b->nmetrics++];
		m->name = xstrdup(cm[i].name);
		m->unit = xstrdup(cm[i].unit);
		m->direction = xstrdup(catalog_direction_name(cm[i].direction));
		m->statistic = xstrdup(catalog_statistic_name(cm[i].statistic));
		m->label = cm[i].label ? xstrdup(cm[i].label) : NULL;
		m->optional = cm[i].optional;
	}
}

/*
 * Checks a custom command's template: each {name} must be a parameter and
 * each parameter must be used.
 */
static void
job_check_placeholders(struct conf_file *f, yaml_node_t *k,
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
			conf_error(f, k, "\"command\": argument %zu: %s", i + 1,
			    cause);
			free(cause);
		}
	for (i = 0; i < b->nparams; i++)
		if (!used[i])
			conf_error(f, k,
			    "\"command\": parameter \"%s\" is not "
			    "used",
			    b->params[i].key);
	free(keys);
	free(used);
}

/*
 * Refuses a parameter inside the script of a shell run with -c, where its
 * value would be read as shell code: it goes after the script as a word,
 * the script reading "$1".  k is where to report; what names the command.
 */
static void
job_check_shell(struct conf_file *f, yaml_node_t *k, const char *what,
    const struct job_benchmark *b)
{
	const char **keys = xcalloc(b->nparams + 1, sizeof *keys);
	bool	    *used = xcalloc(b->nparams + 1, sizeof *used);
	char	    *cause = NULL;
	long	     s = plan_shell_script(b->argv);
	size_t	     i;

	for (i = 0; i < b->nparams; i++)
		keys[i] = b->params[i].key;
	if (s != -1 &&
	    plan_expand_arg(b->argv[s], keys, NULL, b->nparams, used, NULL,
		&cause) == -1)
		free(cause);
	for (i = 0; s != -1 && i < b->nparams; i++)
		if (used[i]) {
			conf_error(f, k,
			    "%s: argument %ld: parameter \"{%s}\" inside a "
			    "shell script; pass it as a word after the script "
			    "and use \"$1\"",
			    what, s + 1, keys[i]);
			break;
		}
	free(keys);
	free(used);
}

/* A custom command's "metrics", read as the catalog reads its own. */
static void
job_read_metrics(struct conf_file *f, yaml_node_t *n, struct job_bench_in *in)
{
	static const struct conf_key key = { .name = "metrics" };
	struct catalog_metric	    *cm = NULL;
	size_t			     ncm = 0, nerrs = f->ld->nerrs;

	if (in->metrics == NULL) {
		conf_error(f, n,
		    "benchmark \"%s\": a custom command needs \"metrics\"",
		    in->b.name);
		return;
	}
	catalog_read_metrics(f, &key, in->metrics, true, &cm, &ncm);
	if (f->ld->nerrs == nerrs)
		job_metrics_add(&in->b, cm, ncm);
	catalog_metrics_free(cm, ncm);
}

/* Checks the parts of a custom command: command, parser, metrics. */
static void
job_check_custom(struct conf_file *f, yaml_node_t *n, struct job_bench_in *in)
{
	struct job_benchmark *b = &in->b;
	yaml_node_t	     *k;

	b->custom = true;
	if (conf_map_value(f, n, "parser") == NULL)
		conf_error(f, n,
		    "benchmark \"%s\": a custom command needs \"parser\"",
		    b->name);
	else if (b->parser != NULL && parse_find(b->parser) == NULL)
		conf_error(f, conf_node(f, conf_map_pair(f, n, "parser")->key),
		    "unknown parser \"%s\"", b->parser);
	job_read_metrics(f, n, in);
	if (b->argv != NULL) {
		k = conf_node(f, conf_map_pair(f, n, "command")->key);
		job_check_placeholders(f, k, b);
		job_check_shell(f, k, "\"command\"", b);
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
job_check_not_custom(struct conf_file *f, yaml_node_t *n)
{
	static const char *only[] = { "parser", "parser_args", "parser_sample",
		"metrics", NULL };
	yaml_node_pair_t  *p;
	size_t		   i;

	for (i = 0; only[i] != NULL; i++)
		if ((p = conf_map_pair(f, n, only[i])) != NULL)
			conf_error(f, conf_node(f, p->key),
			    "\"%s\" is only for a custom \"command\"", only[i]);
}

/* Returns the key node of parameter key in a benchmark's params. */
static yaml_node_t *
job_param_node(struct conf_file *f, yaml_node_t *n, const char *key)
{
	yaml_node_t	 *params = conf_map_value(f, n, "params");
	yaml_node_pair_t *p = conf_map_pair(f, params, key);

	return p != NULL ? conf_node(f, p->key) : n;
}

/* Adds the catalog's default of a parameter the job does not set. */
static void
job_param_default(struct conf_file *f, yaml_node_t *n,
    const struct catalog_param *cp, struct job_benchmark *b)
{
	struct job_param *p;

	if (job_find_param(b, cp->name) != NULL)
		return;
	if (cp->def == NULL) {
		conf_error(f, n,
		    "benchmark \"%s\": parameter \"%s\" has no default: give "
		    "it in \"params\"",
		    b->name, cp->name);
		return;
	}
	p = &b->params[b->nparams++];
	p->key = xstrdup(cp->name);
	p->values = xcalloc(1, sizeof *p->values);
	p->values[0] = xstrdup(cp->def);
	p->nvalues = 1;
}

/*
 * Returns the node of the value of parameter key (a value of its list)
 * that reads as value, else the parameter's key node.
 */
static yaml_node_t *
job_param_value_node(struct conf_file *f, yaml_node_t *n, const char *key,
    const char *value)
{
	yaml_node_t	 *params = conf_map_value(f, n, "params"), *v, *item;
	yaml_node_pair_t *p = conf_map_pair(f, params, key);
	size_t		  i;

	if (p == NULL)
		return n;
	v = conf_node(f, p->value);
	if (v->type == YAML_SCALAR_NODE)
		return v;
	for (i = 0; v->type == YAML_SEQUENCE_NODE && i < conf_seq_len(v); i++) {
		item = conf_seq_item(f, v, i);
		if (item->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)item->data.scalar.value, value) == 0)
			return item;
	}
	return conf_node(f, p->key);
}

/* Reports each value of a job's parameter that is not of cp's type. */
static void
job_param_typed(struct conf_file *f, yaml_node_t *n,
    const struct catalog_param *cp, const struct job_benchmark *b,
    const struct job_param *p)
{
	const char *what;
	size_t	    i;

	for (i = 0; i < p->nvalues; i++)
		if ((what = catalog_param_check(cp, p->values[i])) != NULL)
			conf_error(f,
			    job_param_value_node(f, n, p->key, p->values[i]),
			    "parameter \"%s\" of %s: \"%s\" is not %s", p->key,
			    b->name, p->values[i], what);
}

/* Says that the catalog's cb has no parameter key, and what it may be. */
static void
job_unknown_param(struct conf_file *f, yaml_node_t *n,
    const struct catalog_benchmark *cb, const char *key)
{
	struct suggest s;
	char	      *hint;
	size_t	       i;

	suggest_init(&s, key);
	for (i = 0; i < cb->nparams; i++)
		suggest_add(&s, cb->params[i].name);
	hint = suggest_hint(&s);
	conf_error(f, job_param_node(f, n, key),
	    "benchmark \"%s\": unknown parameter \"%s\"%s", cb->name, key,
	    hint);
	free(hint);
}

/* Checks the job's parameters against the catalog's; adds defaults. */
static void
job_resolve_params(struct conf_file *f, yaml_node_t *n,
    const struct catalog_benchmark *cb, struct job_benchmark *b)
{
	const struct catalog_param *cp;
	size_t			    i;

	for (i = 0; i < b->nparams; i++)
		if ((cp = catalog_param_find(cb, b->params[i].key)) == NULL)
			job_unknown_param(f, n, cb, b->params[i].key);
		else
			job_param_typed(f, n, cp, b, &b->params[i]);
	b->params = xreallocarray(b->params, b->nparams + cb->nparams + 1,
	    sizeof *b->params);
	for (i = 0; i < cb->nparams; i++)
		job_param_default(f, n, &cb->params[i], b);
	if (b->nparams > 0)
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
	b->install.prepare =
	    job_copy_strings(cb->install.prepare, cb->install.nprepare);
	b->server.argv =
	    job_copy_strings(cb->server.command, cb->server.ncommand);
	b->server.port = (int)cb->server.port;
}

/* Copies the catalog's command, parser, metrics and run counts. */
static void
job_resolve_copy(const struct catalog_benchmark *cb, struct job_benchmark *b)
{
	b->argv = job_copy_strings(cb->command, cb->ncommand);
	conf_set_str(&b->parser, cb->parser);
	free(b->parser_args);
	b->parser_args = cb->parser_args ? xstrdup(cb->parser_args) : NULL;
	free(b->parser_sample);
	b->parser_sample =
	    cb->parser_sample ? xstrdup(cb->parser_sample) : NULL;
	job_metrics_add(b, cb->metrics, cb->nmetrics);
	if (b->iterations == -1) {
		b->iterations = (int)cb->iterations;
		job_adapt_set(b, &cb->adaptive);
	}
	if (b->warmups == -1)
		b->warmups = (int)cb->warmups;
	if (b->timeout_ms == -1)
		b->timeout_ms = (long)cb->timeout * 1000;
}

/*
 * Reports a benchmark the catalog does not have, with the closest name it
 * has, else every name it has.
 */
static void
job_benchmark_unknown(struct conf_file *f, yaml_node_t *n,
    const struct catalog *cat, const char *name)
{
	yaml_node_t *key = conf_node(f, conf_map_pair(f, n, "name")->key);
	char	    *hint = catalog_suggest(cat, name), *names;

	if (*hint != '\0' || cat->n == 0) {
		conf_error(f, key, "unknown benchmark \"%s\"%s%s", name, hint,
		    cat->n == 0 ? "; the catalog is empty" : "");
		free(hint);
		return;
	}
	names = catalog_names(cat);
	conf_error(f, key, "unknown benchmark \"%s\"; the catalog has: %s",
	    name, names);
	free(names);
	free(hint);
}

/* Resolves a catalog benchmark: command template, parser, metrics. */
static void
job_resolve(struct conf_file *f, yaml_node_t *n, struct job_benchmark *b)
{
	struct job_ctx		       *ctx = f->arg;
	const struct catalog_benchmark *cb;

	if ((cb = catalog_find(ctx->catalog, b->name)) == NULL) {
		job_benchmark_unknown(f, n, ctx->catalog, b->name);
		return;
	}
	job_resolve_params(f, n, cb, b);
	job_resolve_copy(cb, b);
	job_resolve_setup(cb, b);
	job_check_shell(f, conf_node(f, conf_map_pair(f, n, "name")->key),
	    "the catalog's \"command\"", b);
	b->resolved = true;
}

/*
 * Checks the metric of adaptive iterations, a declared metric that is not
 * a pattern (the benchmark's first required one by default).
 */
static void
job_check_adaptive(struct conf_file *f, yaml_node_t *n, struct job_benchmark *b)
{
	struct job_adapt *a = &b->adaptive;
	size_t		  i;

	if (a->precision <= 0 || !b->resolved)
		return;
	for (i = 0; a->metric == NULL && i < b->nmetrics; i++)
		if (job_metric_required(&b->metrics[i]))
			a->metric = xstrdup(b->metrics[i].name);
	if (a->metric == NULL) {
		conf_error_key(f, n, "iterations",
		    "benchmark \"%s\": adaptive iterations need \"metric\": "
		    "the benchmark has no required metric",
		    b->name);
		return;
	}
	for (i = 0; i < b->nmetrics; i++)
		if (strcmp(b->metrics[i].name, a->metric) == 0 &&
		    strchr(a->metric, '*') == NULL)
			return;
	conf_error_key(f, n, "iterations",
	    "benchmark \"%s\": adaptive iterations: \"%s\" is not one of "
	    "its metrics",
	    b->name, a->metric);
}

/* Parses one benchmark, a mapping: a catalog entry or a custom command. */
static void
job_benchmark(struct conf_file *f, yaml_node_t *n, struct job *job)
{
	struct job_ctx	   *ctx = f->arg;
	struct job_bench_in in = { .timeout_ms = -1 };

	in.b.iterations = in.b.warmups = -1;
	conf_mapping(f, n, job_bench_keys, &in, "benchmarks");
	in.b.timeout_ms = in.timeout_ms;
	if (in.b.name == NULL)
		in.b.name = xstrdup("");
	if (conf_map_value(f, n, "command") != NULL)
		job_check_custom(f, n, &in);
	else {
		job_check_not_custom(f, n);
		if (ctx->catalog != NULL && *in.b.name != '\0')
			job_resolve(f, n, &in.b);
	}
	job_check_adaptive(f, n, &in.b);
	if (in.b.resolved)
		job_observe_declare(&in.b);
	job->benchmarks[job->nbenchmarks++] = in.b;
}

/* "benchmarks": a non-empty list of benchmarks. */
void
job_read_benchmarks(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct job  *job = dst;
	yaml_node_t *item;
	size_t	     i;

	if (conf_seq(f, k, v, "a non-empty list") == NULL)
		return;
	job->benchmarks = xcalloc(conf_seq_len(v), sizeof *job->benchmarks);
	for (i = 0; i < conf_seq_len(v); i++) {
		item = conf_seq_item(f, v, i);
		if (item->type == YAML_MAPPING_NODE)
			job_benchmark(f, item, job);
		else
			conf_error(f, item, "benchmark must be a mapping");
	}
}
