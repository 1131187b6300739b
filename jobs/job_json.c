/*
 * A job's normalized JSON as stored in the database (job_to_json,
 * job_from_json); job_print.c writes its YAML.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/xmalloc.h"
#include "jobs/job.h"

#define JOB_JSON_FORMAT 1

/* Adds key: string to obj unless s is NULL. */
static void
job_json_set_str(json_t *obj, const char *key, const char *s)
{
	if (s != NULL)
		json_object_set_new(obj, key, json_string(s));
}

/* Returns a JSON array of strings. */
static json_t *
job_json_strings(char **v, size_t n)
{
	json_t *a = json_array();
	size_t	i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* Returns a JSON array of integers. */
static json_t *
job_json_ints(const int *v, size_t n)
{
	json_t *a = json_array();
	size_t	i;

	for (i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

/* Returns the JSON of one kernel. */
static json_t *
job_json_kernel(const struct job_kernel *k)
{
	json_t *o = json_object();

	json_object_set_new(o, "name", json_string(k->name));
	json_object_set_new(o, "kind",
	    json_string(job_kernel_kind_name(k->kind)));
	job_json_set_str(o, "image", k->image);
	job_json_set_str(o, "initrd", k->initrd);
	job_json_set_str(o, "dtb", k->dtb);
	job_json_set_str(o, "modules", k->modules);
	job_json_set_str(o, "cmdline", k->cmdline);
	job_json_set_str(o, "git", k->git);
	job_json_set_str(o, "base", k->base);
	job_json_set_str(o, "series", k->series);
	if (k->kind == JOB_KERNEL_BUILD)
		json_object_set_new(o, "patches",
		    job_json_ints(k->patches, k->npatches));
	job_json_set_str(o, "config", k->config);
	if (k->nfragments > 0)
		json_object_set_new(o, "fragments",
		    job_json_strings(k->fragments, k->nfragments));
	job_json_set_str(o, "arch", k->arch);
	job_json_set_str(o, "cross_compile", k->cross_compile);
	return o;
}

/* Returns the JSON of a benchmark's metrics. */
static json_t *
job_json_metrics(const struct job_benchmark *b)
{
	json_t *a = json_array(), *o;
	size_t	i;

	for (i = 0; i < b->nmetrics; i++) {
		o = json_pack("{s:s, s:s, s:s, s:s}", "name",
		    b->metrics[i].name, "unit", b->metrics[i].unit, "direction",
		    b->metrics[i].direction, "statistic",
		    b->metrics[i].statistic);
		job_json_set_str(o, "label", b->metrics[i].label);
		if (b->metrics[i].optional)
			json_object_set_new(o, "optional", json_true());
		json_array_append_new(a, o);
	}
	return a;
}

/* Sets key to the strings of v, NULL-terminated, unless there are none. */
static void
job_json_set_strv(json_t *o, const char *key, char **v)
{
	size_t n;

	for (n = 0; v != NULL && v[n] != NULL; n++)
		;
	if (n > 0)
		json_object_set_new(o, key, job_json_strings(v, n));
}

/* Adds how the tool is installed and the server it needs, when said. */
static void
job_json_setup(json_t *o, const struct job_benchmark *b)
{
	json_t *in, *sv;
	size_t	n;

	if (b->install.package != NULL || b->install.source != NULL) {
		in = json_object();
		job_json_set_str(in, "package", b->install.package);
		job_json_set_str(in, "source", b->install.source);
		job_json_set_strv(in, "build", b->install.build);
		job_json_set_strv(in, "prepare", b->install.prepare);
		json_object_set_new(o, "install", in);
	}
	if (b->server.argv == NULL)
		return;
	for (n = 0; b->server.argv[n] != NULL; n++)
		;
	sv = json_object();
	json_object_set_new(sv, "command", job_json_strings(b->server.argv, n));
	if (b->server.port > 0)
		json_object_set_new(sv, "port", json_integer(b->server.port));
	json_object_set_new(o, "server", sv);
}

/* Adds a benchmark's adaptive iterations, when it has them. */
static void
job_json_adaptive(json_t *o, const struct job_benchmark *b)
{
	const struct job_adapt *a = &b->adaptive;
	json_t		       *v;

	if (a->precision <= 0)
		return;
	v = json_pack("{s:i, s:i, s:f}", "min", a->min, "max", a->max,
	    "precision", a->precision);
	job_json_set_str(v, "metric", a->metric);
	json_object_set_new(o, "adaptive", v);
}

/* Returns the JSON of one benchmark. */
static json_t *
job_json_benchmark(const struct job_benchmark *b)
{
	json_t *o = json_object(), *params = json_object();
	size_t	i, argc;

	json_object_set_new(o, "name", json_string(b->name));
	json_object_set_new(o, "custom", json_boolean(b->custom));
	job_json_set_str(o, "kernel", b->kernel);
	for (i = 0; i < b->nparams; i++)
		json_object_set_new(params, b->params[i].key,
		    job_json_strings(b->params[i].values,
			b->params[i].nvalues));
	json_object_set_new(o, "params", params);
	if (b->iterations != -1)
		json_object_set_new(o, "iterations",
		    json_integer(b->iterations));
	job_json_adaptive(o, b);
	if (b->warmups != -1)
		json_object_set_new(o, "warmups", json_integer(b->warmups));
	if (b->timeout_ms != -1)
		json_object_set_new(o, "timeout_ms",
		    json_integer(b->timeout_ms));
	job_json_set_strv(o, "probes", b->probes);
	job_json_set_str(o, "probe_method", b->probe_method);
	job_json_set_strv(o, "monitors", b->monitors);
	if (!b->resolved)
		return o;
	for (argc = 0; b->argv[argc] != NULL; argc++)
		;
	json_object_set_new(o, "command", job_json_strings(b->argv, argc));
	json_object_set_new(o, "parser", json_string(b->parser));
	job_json_set_str(o, "parser_args", b->parser_args);
	job_json_set_str(o, "parser_sample", b->parser_sample);
	json_object_set_new(o, "metrics", job_json_metrics(b));
	job_json_setup(o, b);
	return o;
}

/* Adds the job's machine setup, when it asks for any. */
static void
job_json_machine_setup(json_t *o, const struct job *job)
{
	const char *words[JOB_SETUP_NCONTROLS][2];
	json_t	   *v;
	size_t	    i, n = job_setup_words(&job->setup, words);

	if (n == 0)
		return;
	v = json_object();
	for (i = 0; i < n; i++)
		json_object_set_new(v, words[i][0], json_string(words[i][1]));
	json_object_set_new(o, "setup", v);
}

/* Returns the normalized JSON of a job (caller frees). */
char *
job_to_json(const struct job *job)
{
	json_t *o = json_object(), *a;
	char   *s, *out;
	size_t	i;

	json_object_set_new(o, "format", json_integer(JOB_JSON_FORMAT));
	json_object_set_new(o, "name", json_string(job->name));
	job_json_set_str(o, "description", job->description);
	json_object_set_new(o, "machines",
	    job_json_strings(job->machines, job->nmachines));
	a = json_array();
	for (i = 0; i < job->nkernels; i++)
		json_array_append_new(a, job_json_kernel(&job->kernels[i]));
	json_object_set_new(o, "kernels", a);
	job_json_set_str(o, "cmdline", job->cmdline);
	json_object_set_new(o, "rounds", json_integer(job->rounds));
	json_object_set_new(o, "order",
	    json_string(job_order_name(job->order)));
	json_object_set_new(o, "seed", json_integer(job->seed));
	job_json_machine_setup(o, job);
	a = json_array();
	for (i = 0; i < job->nbenchmarks; i++)
		json_array_append_new(a,
		    job_json_benchmark(&job->benchmarks[i]));
	json_object_set_new(o, "benchmarks", a);
	s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	out = xstrdup(s);
	free(s);
	return out;
}

/* Sets *cause to a JSON error about what; returns -1. */
static int
job_json_fail(char **cause, const char *what, const char *why)
{
	if (*cause == NULL)
		*cause = xasprintf("job json: %s: %s", what, why);
	return -1;
}

/* Copies a JSON array of strings (non-empty ones); -1 on a wrong type. */
static int
job_json_get_strings(json_t *a, bool nonempty, char ***v, size_t *n,
    const char *what, char **cause)
{
	json_t *item;
	size_t	i;

	if (!json_is_array(a) || (nonempty && json_array_size(a) == 0))
		return job_json_fail(cause, what, "expected a non-empty array");
	*v = xcalloc(json_array_size(a) + 1, sizeof **v);
	json_array_foreach(a, i, item)
	{
		if (!json_is_string(item))
			return job_json_fail(cause, what, "expected strings");
		(*v)[(*n)++] = xstrdup(json_string_value(item));
	}
	return 0;
}

/* Returns a copy of s, or NULL for NULL. */
static char *
job_json_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* Parses the kind name of a kernel; -1 if unknown. */
static int
job_json_kind(const char *s)
{
	int k;

	for (k = JOB_KERNEL_RUNNING; k <= JOB_KERNEL_BUILD; k++)
		if (strcmp(job_kernel_kind_name(k), s) == 0)
			return k;
	return -1;
}

/* Reads a kernel's patch list: numbers, or a count as older jobs had. */
static int
job_json_patches_get(json_t *v, struct job_kernel *k, char **cause)
{
	json_t *p;
	size_t	i;
	long	n;

	if (v == NULL)
		return 0;
	if (json_is_integer(v) && (n = (long)json_integer_value(v)) >= 0) {
		k->patches = xcalloc((size_t)n + 1, sizeof *k->patches);
		for (; k->npatches < (size_t)n; k->npatches++)
			k->patches[k->npatches] = (int)k->npatches + 1;
		return 0;
	}
	if (!json_is_array(v))
		return job_json_fail(cause, "kernel", "bad patches");
	k->patches = xcalloc(json_array_size(v) + 1, sizeof *k->patches);
	json_array_foreach(v, i, p)
	{
		if (!json_is_integer(p) || json_integer_value(p) < 1)
			return job_json_fail(cause, "kernel", "bad patches");
		k->patches[k->npatches++] = (int)json_integer_value(p);
	}
	return 0;
}

/* Reads a kernel's config fragments. */
static int
job_json_fragments_get(json_t *v, struct job_kernel *k, char **cause)
{
	json_t *p;
	size_t	i;

	if (v == NULL)
		return 0;
	if (!json_is_array(v))
		return job_json_fail(cause, "kernel", "bad fragments");
	k->fragments = xcalloc(json_array_size(v) + 1, sizeof *k->fragments);
	json_array_foreach(v, i, p)
	{
		if (!json_is_string(p))
			return job_json_fail(cause, "kernel", "bad fragments");
		k->fragments[k->nfragments++] = xstrdup(json_string_value(p));
	}
	return 0;
}

/* Reads one kernel. */
static int
job_json_kernel_get(json_t *o, struct job_kernel *k, char **cause)
{
	const char  *name, *kind, *image = NULL, *initrd = NULL, *dtb = NULL;
	const char  *modules = NULL, *cmdline = NULL, *git = NULL, *base = NULL;
	const char  *series = NULL, *config = NULL, *arch = NULL;
	const char  *cross = NULL;
	json_t	    *patches = NULL, *fragments = NULL;
	json_error_t err;

	if (json_unpack_ex(o, &err, JSON_STRICT,
		"{s:s, s:s, s?s, s?s, s?s, s?s, s?s, "
		"s?s, s?s, s?s, s?o, s?s, s?o, s?s, s?s}",
		"name", &name, "kind", &kind, "image", &image, "initrd",
		&initrd, "dtb", &dtb, "modules", &modules, "cmdline", &cmdline,
		"git", &git, "base", &base, "series", &series, "patches",
		&patches, "config", &config, "fragments", &fragments, "arch",
		&arch, "cross_compile", &cross) != 0)
		return job_json_fail(cause, "kernel", err.text);
	if (job_json_kind(kind) == -1 || *name == '\0')
		return job_json_fail(cause, "kernel", "bad name or kind");
	k->name = xstrdup(name);
	k->kind = (enum job_kernel_kind)job_json_kind(kind);
	k->image = job_json_dup(image);
	k->initrd = job_json_dup(initrd);
	k->dtb = job_json_dup(dtb);
	k->modules = job_json_dup(modules);
	k->cmdline = job_json_dup(cmdline);
	k->git = job_json_dup(git);
	k->base = job_json_dup(base);
	k->series = job_json_dup(series);
	k->config = job_json_dup(config);
	k->arch = job_json_dup(arch);
	k->cross_compile = job_json_dup(cross);
	if (job_json_patches_get(patches, k, cause) == -1)
		return -1;
	return job_json_fragments_get(fragments, k, cause);
}

/* Reads a benchmark's params object (keys already sorted on write). */
static int
job_json_params_get(json_t *o, struct job_benchmark *b, char **cause)
{
	const char *key;
	json_t	   *v;

	if (!json_is_object(o))
		return job_json_fail(cause, "params", "expected an object");
	b->params = xcalloc(json_object_size(o), sizeof *b->params);
	json_object_foreach(o, key, v)
	{
		if (b->nparams > 0 &&
		    strcmp(b->params[b->nparams - 1].key, key) >= 0)
			return job_json_fail(cause, key, "params not sorted");
		b->params[b->nparams].key = xstrdup(key);
		if (job_json_get_strings(v, true, &b->params[b->nparams].values,
			&b->params[b->nparams].nvalues, key, cause) == -1) {
			b->nparams++;
			return -1;
		}
		b->nparams++;
	}
	return 0;
}

/* Reads a benchmark's metrics array. */
static int
job_json_metrics_get(json_t *a, struct job_benchmark *b, char **cause)
{
	const char	  *name, *unit, *dir, *stat, *label = NULL;
	struct job_metric *m;
	json_error_t	   err;
	json_t		  *item;
	size_t		   i;
	int		   optional = 0;

	if (!json_is_array(a) || json_array_size(a) == 0)
		return job_json_fail(cause, "metrics", "expected an array");
	b->metrics = xcalloc(json_array_size(a), sizeof *b->metrics);
	json_array_foreach(a, i, item)
	{
		if (json_unpack_ex(item, &err, JSON_STRICT,
			"{s:s, s:s, s:s, s:s, s?:s, s?b}", "name", &name,
			"unit", &unit, "direction", &dir, "statistic", &stat,
			"label", &label, "optional", &optional) != 0)
			return job_json_fail(cause, "metric", err.text);
		m = &b->metrics[b->nmetrics++];
		m->name = xstrdup(name);
		m->unit = xstrdup(unit);
		m->direction = xstrdup(dir);
		m->statistic = xstrdup(stat);
		m->label = label != NULL ? xstrdup(label) : NULL;
		m->optional = optional;
		label = NULL;
		optional = 0;
	}
	return 0;
}

/* Reads the resolved part of a benchmark: command, parser, metrics. */
static int
job_json_resolved_get(json_t *cmd, json_t *metrics, struct job_benchmark *b,
    char **cause)
{
	size_t argc = 0;

	if (cmd == NULL && metrics == NULL && b->parser == NULL &&
	    b->parser_args == NULL && b->parser_sample == NULL)
		return 0; /* not resolved against a catalog */
	if (cmd == NULL || metrics == NULL || b->parser == NULL ||
	    b->iterations < 1 || b->warmups < 0 || b->timeout_ms < 1)
		return job_json_fail(cause, b->name, "incomplete benchmark");
	if (job_json_get_strings(cmd, true, &b->argv, &argc, "command",
		cause) == -1 ||
	    job_json_metrics_get(metrics, b, cause) == -1)
		return -1;
	b->resolved = true;
	return 0;
}

/* Reads how the tool is installed and the server it needs, if there. */
static int
job_json_setup_get(json_t *in, json_t *sv, struct job_benchmark *b,
    char **cause)
{
	const char  *package = NULL, *source = NULL;
	json_t	    *build = NULL, *prepare = NULL, *cmd;
	json_error_t err;
	size_t	     n = 0;

	if (in != NULL &&
	    json_unpack_ex(in, &err, JSON_STRICT, "{s?s, s?s, s?o, s?o}",
		"package", &package, "source", &source, "build", &build,
		"prepare", &prepare) != 0)
		return job_json_fail(cause, "install", err.text);
	b->install.package = job_json_dup(package);
	b->install.source = job_json_dup(source);
	if (build != NULL &&
	    job_json_get_strings(build, true, &b->install.build, &n, "build",
		cause) == -1)
		return -1;
	n = 0;
	if (prepare != NULL &&
	    job_json_get_strings(prepare, true, &b->install.prepare, &n,
		"prepare", cause) == -1)
		return -1;
	if (sv == NULL)
		return 0;
	if (json_unpack_ex(sv, &err, JSON_STRICT, "{s:o, s?i}", "command", &cmd,
		"port", &b->server.port) != 0)
		return job_json_fail(cause, "server", err.text);
	if (b->server.port < 0 || b->server.port > 65535)
		return job_json_fail(cause, "server", "bad port");
	n = 0;
	return job_json_get_strings(cmd, true, &b->server.argv, &n, "server",
	    cause);
}

/* Reads a benchmark's adaptive iterations, if there. */
static int
job_json_adaptive_get(json_t *v, struct job_benchmark *b, char **cause)
{
	struct job_adapt *a = &b->adaptive;
	const char	 *metric = NULL;
	json_error_t	  err;

	if (v == NULL)
		return 0;
	if (json_unpack_ex(v, &err, JSON_STRICT, "{s:i, s:i, s:F, s?s}", "min",
		&a->min, "max", &a->max, "precision", &a->precision, "metric",
		&metric) != 0)
		return job_json_fail(cause, "adaptive", err.text);
	if (a->min < 2 || a->max < a->min || !(a->precision > 0))
		return job_json_fail(cause, "adaptive",
		    "bad min, max or precision");
	a->metric = job_json_dup(metric);
	return 0;
}

/* Reads one benchmark. */
static int
job_json_benchmark_get(json_t *o, struct job_benchmark *b, char **cause)
{
	const char  *name, *parser = NULL, *args = NULL, *sample = NULL;
	const char  *kernel = NULL, *method = NULL;
	json_t	    *params, *cmd = NULL, *metrics = NULL;
	json_t	    *install = NULL, *server = NULL, *adaptive = NULL;
	json_t	    *probes = NULL, *monitors = NULL;
	json_error_t err;
	json_int_t   timeout = -1;
	int	     custom;
	size_t	     np = 0, nm = 0;

	b->iterations = b->warmups = -1;
	if (json_unpack_ex(o, &err, JSON_STRICT,
		"{s:s, s:b, s:o, s?i, s?o, s?i, s?I, s?o, s?s, s?s, s?s, s?o, "
		"s?o, s?o, s?o, s?s, s?o, s?s}",
		"name", &name, "custom", &custom, "params", &params,
		"iterations", &b->iterations, "adaptive", &adaptive, "warmups",
		&b->warmups, "timeout_ms", &timeout, "command", &cmd, "parser",
		&parser, "parser_args", &args, "parser_sample", &sample,
		"metrics", &metrics, "install", &install, "server", &server,
		"probes", &probes, "probe_method", &method, "monitors",
		&monitors, "kernel", &kernel) != 0)
		return job_json_fail(cause, "benchmark", err.text);
	b->name = xstrdup(name);
	b->custom = custom;
	b->timeout_ms = (long)timeout;
	b->parser = job_json_dup(parser);
	b->parser_args = job_json_dup(args);
	b->parser_sample = job_json_dup(sample);
	b->kernel = job_json_dup(kernel);
	b->probe_method = job_json_dup(method);
	if (job_json_params_get(params, b, cause) == -1 ||
	    (probes != NULL &&
		job_json_get_strings(probes, true, &b->probes, &np, "probes",
		    cause) == -1) ||
	    (monitors != NULL &&
		job_json_get_strings(monitors, true, &b->monitors, &nm,
		    "monitors", cause) == -1) ||
	    job_json_adaptive_get(adaptive, b, cause) == -1 ||
	    job_json_setup_get(install, server, b, cause) == -1)
		return -1;
	return job_json_resolved_get(cmd, metrics, b, cause);
}

/* Reads the kernels and benchmarks arrays. */
static int
job_json_lists_get(json_t *kernels, json_t *benches, struct job *job,
    char **cause)
{
	json_t *item;
	size_t	i;

	if (!json_is_array(kernels) || json_array_size(kernels) == 0 ||
	    !json_is_array(benches) || json_array_size(benches) == 0)
		return job_json_fail(cause, "job",
		    "expected kernels and "
		    "benchmarks arrays");
	job->kernels = xcalloc(json_array_size(kernels), sizeof *job->kernels);
	json_array_foreach(kernels, i,
	    item) if (job_json_kernel_get(item, &job->kernels[job->nkernels++],
			  cause) == -1) return -1;
	job->benchmarks =
	    xcalloc(json_array_size(benches), sizeof *job->benchmarks);
	json_array_foreach(benches, i,
	    item) if (job_json_benchmark_get(item,
			  &job->benchmarks[job->nbenchmarks++],
			  cause) == -1) return -1;
	return 0;
}

/* Reads the job's machine setup, if there. */
static int
job_json_machine_setup_get(json_t *v, struct job *job, char **cause)
{
	const char  *g = NULL, *b = NULL, *s = NULL, *t = NULL, *c = NULL;
	json_error_t err;

	if (v == NULL)
		return 0;
	if (json_unpack_ex(v, &err, JSON_STRICT, "{s?s, s?s, s?s, s?s, s?s}",
		"governor", &g, "boost", &b, "smt", &s, "thp", &t, "cstates",
		&c) != 0)
		return job_json_fail(cause, "setup", err.text);
	job->setup.governor = job_json_dup(g);
	job->setup.boost = job_json_dup(b);
	job->setup.smt = job_json_dup(s);
	job->setup.thp = job_json_dup(t);
	job->setup.cstates = job_json_dup(c);
	return 0;
}

/* Reads the top-level object into job. */
static int
job_json_root_get(json_t *o, struct job *job, char **cause)
{
	const char  *name, *desc = NULL, *order, *cmdline = NULL;
	json_t	    *machines, *kernels, *benches, *setup = NULL;
	json_error_t err;
	json_int_t   seed;
	int	     format, i;

	if (json_unpack_ex(o, &err, JSON_STRICT,
		"{s:i, s:s, s?s, s:o, s:o, "
		"s?s, s:i, s:s, s:I, s?o, s:o}",
		"format", &format, "name", &name, "description", &desc,
		"machines", &machines, "kernels", &kernels, "cmdline", &cmdline,
		"rounds", &job->rounds, "order", &order, "seed", &seed, "setup",
		&setup, "benchmarks", &benches) != 0)
		return job_json_fail(cause, "job", err.text);
	if (job_json_machine_setup_get(setup, job, cause) == -1)
		return -1;
	if (format != JOB_JSON_FORMAT)
		return job_json_fail(cause, "format", "unsupported version");
	for (i = JOB_ORDER_ALTERNATE; i <= JOB_ORDER_RANDOM; i++)
		if (strcmp(job_order_name(i), order) == 0)
			job->order = (enum job_order)i;
	if (strcmp(job_order_name(job->order), order) != 0 || job->rounds < 1 ||
	    seed < 0 || seed > UINT32_MAX)
		return job_json_fail(cause, "job", "bad order, rounds or seed");
	job->seed = (uint32_t)seed;
	job->name = xstrdup(name);
	job->description = job_json_dup(desc);
	job->cmdline = job_json_dup(cmdline);
	if (job_json_get_strings(machines, true, &job->machines,
		&job->nmachines, "machines", cause) == -1)
		return -1;
	return job_json_lists_get(kernels, benches, job, cause);
}

/* Parses JSON from job_to_json; NULL with *cause on any error. */
struct job *
job_from_json(const char *text, char **cause)
{
	struct job  *job = NULL;
	json_error_t err;
	json_t	    *o;

	*cause = NULL;
	if ((o = json_loads(text, JSON_REJECT_DUPLICATES, &err)) == NULL) {
		*cause = xasprintf("job json: line %d: %s", err.line, err.text);
		return NULL;
	}
	job = xcalloc(1, sizeof *job);
	if (job_json_root_get(o, job, cause) == -1) {
		job_free(job);
		job = NULL;
	}
	json_decref(o);
	return job;
}
