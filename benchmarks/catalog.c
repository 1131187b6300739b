/*
 * Benchmark catalog: YAML files read against key tables by the
 * configuration engine (common/conf.h) into validated benchmarks, and the
 * command templates a run expands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "benchmarks/catalog.h"
#include "benchmarks/parse.h"
#include "common/conf.h"
#include "common/suggest.h"
#include "common/xmalloc.h"

#define CATALOG_ITERATIONS 10
#define CATALOG_TIMEOUT	   600 /* seconds */
#define CATALOG_ARGV	   "a list of arguments"
/* The catalog keeps its timeouts in seconds. */
#define CATALOG_TIMEOUT_TEXT \
	"a duration of whole seconds from 1s to 7d such as \"90s\" or \"5m\""

/* Drops the final newlines a folded or literal block leaves. */
static void
catalog_trim(char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	while (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
}

/* One string, or a sequence of them, into *out (NULL-terminated) and *n. */
static void
catalog_parse_list(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, char ***out, size_t *n)
{
	const char *s;

	if (v->type != YAML_SCALAR_NODE)
		conf_parse_strv(f, k, v, out);
	else if ((s = conf_scalar(f, k, v, k->expect)) == NULL)
		return;
	else if (*s == '\0' && !(k->flags & CONF_EMPTY_OK))
		conf_expect(f, k, v, k->expect);
	else {
		conf_strv_free(*out);
		*out = xcalloc(2, sizeof(**out));
		(*out)[0] = xstrdup(s);
	}
	*n = conf_strv_len(*out);
}

/* A param's "axis": the values a sweep goes through. */
static void
catalog_parse_axis(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct catalog_param *prm = dst;

	catalog_parse_list(f, k, v, &prm->axis, &prm->naxis);
}

static const char *const catalog_param_types[] = { "string", "integer",
	"number", NULL };

#define PRM(f) offsetof(struct catalog_param, f)

static const struct conf_key catalog_param_keys[] = {
	{ .name = "type",
	    .parse = conf_parse_enum,
	    .off = PRM(type),
	    .choices = catalog_param_types },
	{ .name = "default",
	    .parse = conf_parse_str,
	    .off = PRM(def),
	    .flags = CONF_EMPTY_OK },
	{ .name = "axis",
	    .parse = catalog_parse_axis,
	    .flags = CONF_EMPTY_OK,
	    .expect = "a value or a list of values" },
	{ .name = "description",
	    .parse = conf_parse_str,
	    .off = PRM(description) },
	{ .name = NULL },
};

/* Names a parameter type. */
const char *
catalog_param_type_name(enum catalog_param_type t)
{
	return (catalog_param_types[t]);
}

/* Whether s is -?[0-9]+, followed, if point, by an optional .[0-9]+. */
static bool
catalog_numeric(const char *s, bool point)
{
	size_t n;

	s += *s == '-';
	if ((n = strspn(s, "0123456789")) == 0)
		return (false);
	s += n;
	if (point && *s == '.' && (n = strspn(s + 1, "0123456789")) > 0)
		s += n + 1;
	return (*s == '\0');
}

/* NULL when value is of the parameter's type, else what it is not. */
const char *
catalog_param_check(const struct catalog_param *p, const char *value)
{
	if (p->type == CATALOG_INTEGER && !catalog_numeric(value, false))
		return ("an integer");
	if (p->type == CATALOG_NUMBER && !catalog_numeric(value, true))
		return ("a number");
	return (NULL);
}

/* Reports a default or axis value (at node v) not of the param's type. */
static void
catalog_param_value(struct conf_file *f, const struct catalog_param *prm,
    yaml_node_t *v, const char *value)
{
	const char *what;

	if (v != NULL && value != NULL &&
	    (what = catalog_param_check(prm, value)) != NULL)
		conf_error(f, v, "parameter \"%s\": \"%s\" is not %s",
		    prm->name, value, what);
}

/* Checks a mapping param's default and axis values against its type. */
static void
catalog_param_types_check(struct conf_file *f, yaml_node_t *v,
    const struct catalog_param *prm)
{
	yaml_node_t *axis = conf_map_value(f, v, "axis");
	size_t	     i;

	catalog_param_value(f, prm, conf_map_value(f, v, "default"), prm->def);
	if (axis != NULL && axis->type == YAML_SCALAR_NODE && prm->naxis == 1)
		catalog_param_value(f, prm, axis, prm->axis[0]);
	for (i = 0; axis != NULL && axis->type == YAML_SEQUENCE_NODE &&
	     i < prm->naxis && i < conf_seq_len(axis);
	     i++)
		catalog_param_value(f, prm, conf_seq_item(f, axis, i),
		    prm->axis[i]);
}

/*
 * Reads one parameter: a value (its default, a string), nothing (no
 * default: a job must give it) or {type, default, axis, description}.
 */
static void
catalog_param(struct conf_file *f, yaml_node_t *key, yaml_node_t *v, void *arg)
{
	struct catalog_benchmark *b = arg;
	struct catalog_param	 *prm;
	struct conf_key		  k = { .flags = CONF_EMPTY_OK };

	k.name = (const char *)key->data.scalar.value;
	b->params =
	    xreallocarray(b->params, b->nparams + 1, sizeof(*b->params));
	prm = &b->params[b->nparams++];
	memset(prm, 0, sizeof(*prm));
	prm->name = xstrdup(k.name);
	if (v->type == YAML_MAPPING_NODE) {
		conf_mapping(f, v, catalog_param_keys, prm, prm->name);
		catalog_trim(prm->description);
		catalog_param_types_check(f, v, prm);
	} else if (v->type == YAML_SCALAR_NODE && !conf_is_null(v))
		conf_parse_str(f, &k, v, &prm->def);
	else if (!conf_is_null(v))
		conf_expect(f, &k, v, "a default value or a mapping");
}

/* "params": a mapping of names to a default or {default, axis}. */
static void
catalog_parse_params(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	if (v->type != YAML_MAPPING_NODE) {
		conf_expect(f, k, v, "a mapping");
		return;
	}
	conf_pairs(f, v, catalog_param, dst);
}

/* An install's "build": shell commands run in the unpacked tree. */
static void
catalog_parse_build(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct catalog_install *in = dst;

	catalog_parse_list(f, k, v, &in->build, &in->nbuild);
}

/* An install's "prepare": an argv template, params as the command's. */
static void
catalog_parse_prepare(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct catalog_install *in = dst;

	conf_parse_strv(f, k, v, &in->prepare);
	in->nprepare = conf_strv_len(in->prepare);
}

#define INS(f) offsetof(struct catalog_install, f)

static const struct conf_key catalog_install_keys[] = {
	{ .name = "package", .parse = conf_parse_str, .off = INS(package) },
	{ .name = "source", .parse = conf_parse_str, .off = INS(source) },
	{ .name = "build",
	    .parse = catalog_parse_build,
	    .expect = "a command or a list of commands" },
	{ .name = "prepare",
	    .parse = catalog_parse_prepare,
	    .expect = CATALOG_ARGV },
	{ .name = NULL },
};

/* "install": a package name, or {package} or {source, build}. */
static void
catalog_parse_install(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct catalog_install *in = dst;

	if (v->type == YAML_SCALAR_NODE) {
		conf_parse_str(f, k, v, &in->package);
		return;
	}
	if (v->type != YAML_MAPPING_NODE) {
		conf_expect(f, k, v, "a package name or a mapping");
		return;
	}
	conf_mapping(f, v, catalog_install_keys, in, k->name);
	if ((in->package == NULL) == (in->source == NULL))
		conf_error(f, v,
		    "install: give either \"package\" or \"source\"");
	else if (in->prepare != NULL && in->source == NULL)
		conf_error_key(f, v, "prepare",
		    "install: \"prepare\" needs \"source\": it runs in the "
		    "built tree");
}

/* A server's "command": its argv template. */
static void
catalog_parse_server_command(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct catalog_server *sv = dst;

	conf_parse_strv(f, k, v, &sv->command);
	sv->ncommand = conf_strv_len(sv->command);
}

#define SRV(f) offsetof(struct catalog_server, f)

static const struct conf_key catalog_server_keys[] = {
	{ .name = "command",
	    .parse = catalog_parse_server_command,
	    .flags = CONF_REQUIRED | CONF_EMPTY_OK,
	    .expect = CATALOG_ARGV },
	{ .name = "port",
	    .parse = conf_parse_int,
	    .off = SRV(port),
	    .min = 0,
	    .max = 65535 },
	{ .name = NULL },
};

/*
 * "server": an argv list, or {command: [argv], port: N} where port is the
 * TCP port the server listens on once it is ready.
 */
static void
catalog_parse_server(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct conf_key cmd = *k;

	if (v->type == YAML_MAPPING_NODE)
		conf_mapping(f, v, catalog_server_keys, dst, k->name);
	else if (v->type == YAML_SEQUENCE_NODE) {
		cmd.flags = CONF_EMPTY_OK;
		cmd.expect = CATALOG_ARGV;
		catalog_parse_server_command(f, &cmd, v, dst);
	} else
		conf_expect(f, k, v, "a list of arguments or a mapping");
}

/* The benchmark's "command": its argv template. */
static void
catalog_parse_command(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct catalog_benchmark *b = dst;

	conf_parse_strv(f, k, v, &b->command);
	b->ncommand = conf_strv_len(b->command);
}

/* "timeout": a duration in [k->min, k->max], kept in whole seconds. */
static void
catalog_parse_timeout(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	size_t nerrs = f->ld->nerrs;
	int    ms = 0;

	conf_parse_duration(f, k, v, &ms);
	if (f->ld->nerrs != nerrs)
		return;
	if (ms % 1000 != 0)
		conf_expect(f, k, v, k->expect);
	else
		*(unsigned *)dst = (unsigned)(ms / 1000);
}

/* A benchmark's "metrics". */
static void
catalog_parse_metrics(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct catalog_benchmark *b = dst;

	catalog_read_metrics(f, k, v, false, &b->metrics, &b->nmetrics);
}

/* A benchmark's "iterations": a count or adaptive iterations. */
static void
catalog_parse_iterations(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct catalog_benchmark *b = dst;
	int			  n = (int)b->iterations;

	catalog_read_iterations(f, k, v, &n, &b->adaptive);
	b->iterations = (unsigned)n;
}

#define CB(f) offsetof(struct catalog_benchmark, f)

static const struct conf_key catalog_keys[] = {
	{ .name = "name",
	    .parse = conf_parse_name,
	    .off = CB(name),
	    .flags = CONF_REQUIRED },
	{ .name = "description",
	    .parse = conf_parse_str,
	    .off = CB(description) },
	{ .name = "command",
	    .parse = catalog_parse_command,
	    .flags = CONF_REQUIRED | CONF_EMPTY_OK,
	    .expect = CATALOG_ARGV },
	{ .name = "params", .parse = catalog_parse_params },
	{ .name = "iterations",
	    .parse = catalog_parse_iterations,
	    .min = 1,
	    .max = CATALOG_MAX_COUNT },
	{ .name = "warmups",
	    .parse = conf_parse_int,
	    .off = CB(warmups),
	    .min = 0,
	    .max = CATALOG_MAX_COUNT },
	{ .name = "timeout",
	    .parse = catalog_parse_timeout,
	    .off = CB(timeout),
	    .min = 1000,
	    .max = CATALOG_MAX_TIMEOUT_MS,
	    .expect = CATALOG_TIMEOUT_TEXT },
	{ .name = "install",
	    .parse = catalog_parse_install,
	    .off = CB(install),
	    .flags = CONF_REQUIRED },
	{ .name = "server", .parse = catalog_parse_server, .off = CB(server) },
	{ .name = "parser",
	    .parse = conf_parse_str,
	    .off = CB(parser),
	    .flags = CONF_REQUIRED },
	{ .name = "parser_args",
	    .parse = conf_parse_str,
	    .off = CB(parser_args) },
	{ .name = "parser_sample",
	    .parse = conf_parse_str,
	    .off = CB(parser_sample) },
	{ .name = "metrics",
	    .parse = catalog_parse_metrics,
	    .flags = CONF_REQUIRED },
	{ .name = NULL },
};

/*
 * Scans the placeholders of one template argument. With values, builds
 * the expanded text in *out; without, only checks the syntax. Returns the
 * placeholder names found through cb, -1 on a lone brace.
 */
static int
catalog_template(const char *t, char		 **out,
    const char *(*cb)(void *, const char *), void *arg)
{
	size_t	    n = strlen(t), o = 0, cap = n + 1, l;
	const char *close, *val;
	char	   *buf = xmalloc(cap), *name;

	while (*t != '\0') {
		if ((t[0] == '{' && t[1] == '{') ||
		    (t[0] == '}' && t[1] == '}')) {
			buf[o++] = *t;
			t += 2;
			continue;
		}
		if (*t == '}')
			goto bad;
		if (*t != '{') {
			buf[o++] = *t++;
			continue;
		}
		close = strchr(t, '}');
		l = close != NULL ? (size_t)(close - t - 1) : 0;
		if (l == 0 ||
		    strspn(t + 1,
			"abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != l)
			goto bad;
		name = xstrndup(t + 1, l);
		val = cb(arg, name);
		free(name);
		l = val != NULL ? strlen(val) : 0;
		cap += l;
		buf = xreallocarray(buf, cap, 1);
		if (val != NULL)
			memcpy(buf + o, val, l);
		o += l;
		t = close + 1;
	}
	buf[o] = '\0';
	if (out != NULL)
		*out = buf;
	else
		free(buf);
	return (0);
bad:
	free(buf);
	return (-1);
}

/* What a template check needs to report an undeclared placeholder. */
struct catalog_check {
	struct conf_file	       *f;
	yaml_node_t		       *node;
	const struct catalog_benchmark *b;
	const char		       *key; /* the template's key */
};

/* Template callback at load: every placeholder must be a param. */
static const char *
catalog_check_cb(void *arg, const char *name)
{
	struct catalog_check *ck = arg;

	if (catalog_param_find(ck->b, name) == NULL)
		conf_error(ck->f, ck->node, "%s: unknown placeholder \"{%s}\"",
		    ck->key, name);
	return ("");
}

/* Checks the placeholders of an argv template (key's, read from seq). */
static void
catalog_check_command(struct conf_file *f, yaml_node_t *seq,
    const struct catalog_benchmark *b, char **argv, const char *key)
{
	struct catalog_check ck = { f, NULL, b, key };
	size_t		     i;

	for (i = 0; argv[i] != NULL && i < conf_seq_len(seq); i++) {
		ck.node = conf_seq_item(f, seq, i);
		if (catalog_template(argv[i], NULL, catalog_check_cb, &ck) != 0)
			conf_error(f, ck.node,
			    "%s: lone brace in \"%s\" (write {{ or }} for a "
			    "brace)",
			    key, argv[i]);
	}
}

/*
 * Checks the templates, the parser and the metric of adaptive iterations
 * once every key is read.
 */
static void
catalog_check(struct conf_file *f, yaml_node_t *root,
    const struct catalog_benchmark *b)
{
	yaml_node_t *server = conf_map_value(f, root, "server");
	yaml_node_t *install = conf_map_value(f, root, "install");

	if (b->command != NULL)
		catalog_check_command(f, conf_map_value(f, root, "command"), b,
		    b->command, "command");
	if (server != NULL && server->type == YAML_MAPPING_NODE)
		server = conf_map_value(f, server, "command");
	if (b->server.command != NULL && server != NULL)
		catalog_check_command(f, server, b, b->server.command,
		    "command");
	if (install != NULL && install->type == YAML_MAPPING_NODE)
		install = conf_map_value(f, install, "prepare");
	if (b->install.prepare != NULL && install != NULL)
		catalog_check_command(f, install, b, b->install.prepare,
		    "prepare");
	if (b->parser != NULL && parse_find(b->parser) == NULL)
		conf_error_key(f, root, "parser",
		    "parser \"%s\": unknown parser", b->parser);
	if (b->adaptive.metric != NULL &&
	    (strchr(b->adaptive.metric, '*') != NULL ||
		catalog_metric_find(b->metrics, b->nmetrics,
		    b->adaptive.metric) == NULL))
		conf_error_key(f, root, "iterations",
		    "adaptive iterations: \"%s\" is not one of its metrics",
		    b->adaptive.metric);
}

/* Frees what one benchmark holds. */
static void
catalog_benchmark_clear(struct catalog_benchmark *b)
{
	size_t i;

	free(b->name);
	free(b->description);
	free(b->path);
	conf_strv_free(b->command);
	for (i = 0; i < b->nparams; i++) {
		free(b->params[i].name);
		free(b->params[i].def);
		conf_strv_free(b->params[i].axis);
		free(b->params[i].description);
	}
	free(b->params);
	free(b->install.package);
	free(b->install.source);
	conf_strv_free(b->install.build);
	conf_strv_free(b->install.prepare);
	conf_strv_free(b->server.command);
	free(b->parser);
	free(b->parser_args);
	free(b->parser_sample);
	catalog_metrics_free(b->metrics, b->nmetrics);
	catalog_adapt_clear(&b->adaptive);
	memset(b, 0, sizeof *b);
}

/*
 * Adds the benchmark of a file read without errors (since nerrs) to cat,
 * unless an earlier file has its name.
 */
static void
catalog_add(struct conf_file *f, struct catalog *cat,
    struct catalog_benchmark *b, size_t nerrs)
{
	const struct catalog_benchmark *first;

	if (f->ld->nerrs != nerrs) {
		catalog_benchmark_clear(b);
		return;
	}
	if ((first = catalog_find(cat, b->name)) != NULL) {
		conf_error_at(f, 0, 0,
		    "benchmark \"%s\": already defined in %s", b->name,
		    first->path);
		catalog_benchmark_clear(b);
		return;
	}
	b->path = xstrdup(f->path);
	cat->v = xreallocarray(cat->v, cat->n + 1, sizeof *cat->v);
	cat->v[cat->n++] = *b;
}

/* Reads the document root, one benchmark, into the catalog. */
static void
catalog_root(struct conf_file *f, yaml_node_t *root)
{
	struct catalog_benchmark b = { .iterations = CATALOG_ITERATIONS,
		.timeout = CATALOG_TIMEOUT };
	size_t			 nerrs = f->ld->nerrs;

	if ((root = conf_root_map(f, root)) == NULL)
		return;
	conf_mapping(f, root, catalog_keys, &b, NULL);
	catalog_trim(b.description);
	catalog_check(f, root, &b);
	catalog_add(f, f->arg, &b, nerrs);
}

static const struct conf_kind catalog_kind = { "benchmark", catalog_root };

/* Hands back the catalog, or NULL and every error. */
static struct catalog *
catalog_finish(struct conf_loader *ld, struct catalog *cat, char **cause)
{
	*cause = NULL;
	if (conf_finish(ld, cause) == 0)
		return (cat);
	catalog_free(cat);
	return (NULL);
}

/* Loads one benchmark file. */
struct catalog *
catalog_load_file(const char *path, char **cause)
{
	struct conf_loader ld = { 0 };
	struct catalog	  *cat = xcalloc(1, sizeof *cat);

	conf_load_file(&ld, path, &catalog_kind, cat);
	return (catalog_finish(&ld, cat, cause));
}

/* Loads every *.yaml file of dir. */
struct catalog *
catalog_load(const char *dir, char **cause)
{
	struct conf_loader ld = { 0 };
	struct catalog	  *cat = xcalloc(1, sizeof *cat);

	conf_load_dir(&ld, dir, &catalog_kind, cat);
	return (catalog_finish(&ld, cat, cause));
}

/* Frees a catalog; cat may be NULL. */
void
catalog_free(struct catalog *cat)
{
	size_t i;

	if (cat == NULL)
		return;
	for (i = 0; i < cat->n; i++)
		catalog_benchmark_clear(&cat->v[i]);
	free(cat->v);
	free(cat);
}

/* Returns the benchmark called name, or NULL. */
const struct catalog_benchmark *
catalog_find(const struct catalog *cat, const char *name)
{
	size_t i;

	for (i = 0; cat != NULL && name != NULL && i < cat->n; i++) {
		if (strcmp(cat->v[i].name, name) == 0)
			return (&cat->v[i]);
	}
	return (NULL);
}

/* Names the benchmark of cat closest to name; see catalog.h. */
char *
catalog_suggest(const struct catalog *cat, const char *name)
{
	struct suggest s;
	size_t	       i;

	suggest_init(&s, name);
	for (i = 0; cat != NULL && i < cat->n; i++)
		suggest_add(&s, cat->v[i].name);
	return (suggest_hint(&s));
}

/* Joins the names of cat's benchmarks with ", ". */
char *
catalog_names(const struct catalog *cat)
{
	char  *all = xstrdup(""), *next;
	size_t i;

	for (i = 0; cat != NULL && i < cat->n; i++) {
		next =
		    xasprintf("%s%s%s", all, i > 0 ? ", " : "", cat->v[i].name);
		free(all);
		all = next;
	}
	return (all);
}

/* Returns the param called name, or NULL. */
const struct catalog_param *
catalog_param_find(const struct catalog_benchmark *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nparams; i++) {
		if (strcmp(b->params[i].name, name) == 0)
			return (&b->params[i]);
	}
	return (NULL);
}

/* Frees a NULL-terminated string array. */
void
catalog_argv_free(char **argv)
{
	conf_strv_free(argv);
}

/* What an expansion looks values up in, and the names that failed. */
struct catalog_expand {
	const struct catalog_benchmark *b;
	const struct catalog_setting   *settings;
	size_t				nsettings;
	char			       *unknown; /* "\"a\", \"b\"" */
	char			       *missing;
};

/* Appends a quoted name to a list unless it is there already. */
static void
catalog_note(char **list, const char *name)
{
	char *q = xasprintf("\"%s\"", name), *all;

	if (*list != NULL && strstr(*list, q) != NULL) {
		free(q);
		return;
	}
	all = xasprintf("%s%s%s", *list ? *list : "", *list ? ", " : "", q);
	free(*list);
	free(q);
	*list = all;
}

/* Template callback at expansion: the setting, else the default. */
static const char *
catalog_expand_cb(void *arg, const char *name)
{
	struct catalog_expand	   *ex = arg;
	const struct catalog_param *prm;
	size_t			    i;

	if ((prm = catalog_param_find(ex->b, name)) == NULL) {
		catalog_note(&ex->unknown, name);
		return (NULL);
	}
	for (i = ex->nsettings; i > 0; i--) {
		if (strcmp(ex->settings[i - 1].name, name) == 0)
			return (ex->settings[i - 1].value);
	}
	if (prm->def == NULL)
		catalog_note(&ex->missing, name);
	return (prm->def);
}

/* Names what made an expansion fail. */
static char *
catalog_expand_cause(const struct catalog_benchmark *b,
    struct catalog_expand *ex, const char *badset, const char *lone)
{
	if (badset != NULL)
		return (xasprintf("benchmark \"%s\": unknown param \"%s\"",
		    b->name, badset));
	if (lone != NULL)
		return (xasprintf("benchmark \"%s\": lone brace in \"%s\"",
		    b->name, lone));
	if (ex->unknown != NULL)
		return (xasprintf("benchmark \"%s\": unknown placeholder %s",
		    b->name, ex->unknown));
	return (xasprintf("benchmark \"%s\": missing param %s", b->name,
	    ex->missing));
}

/* Builds the argv of a benchmark; see catalog.h. */
int
catalog_expand_argv(const struct catalog_benchmark *b,
    const struct catalog_setting *settings, size_t nsettings, char ***argv,
    char **cause)
{
	struct catalog_expand ex = { b, settings, nsettings, NULL, NULL };
	const char	     *badset = NULL, *lone = NULL;
	char		    **v;
	size_t		      i;
	int		      rc = -1;

	*argv = NULL;
	for (i = 0; i < nsettings && badset == NULL; i++) {
		if (catalog_param_find(b, settings[i].name) == NULL)
			badset = settings[i].name;
	}
	v = xcalloc(b->ncommand + 1, sizeof *v);
	for (i = 0; i < b->ncommand && badset == NULL; i++) {
		if (catalog_template(b->command[i], &v[i], catalog_expand_cb,
			&ex) != 0) {
			lone = b->command[i];
			break;
		}
	}
	if (badset != NULL || lone != NULL || ex.unknown != NULL ||
	    ex.missing != NULL || b->ncommand == 0) {
		*cause = b->ncommand == 0
		    ? xasprintf("benchmark \"%s\": no "
				"command",
			  b->name)
		    : catalog_expand_cause(b, &ex, badset, lone);
		catalog_argv_free(v);
		goto out;
	}
	*argv = v;
	rc = 0;
out:
	free(ex.unknown);
	free(ex.missing);
	return (rc);
}
