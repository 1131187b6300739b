/* Benchmark catalog: YAML files in, validated benchmarks out. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "benchmarks/catalog.h"
#include "benchmarks/parse.h"
#include "common/xmalloc.h"

#define CATALOG_ITERATIONS 10
#define CATALOG_TIMEOUT	   600

static const char *catalog_directions[] = { "higher", "lower" };
static const char *catalog_statistics[] = { "amean", "hmean", "gmean",
	"median" };

/* One file being read: its path, document and the errors so far. */
struct catalog_ctx {
	const char	*path;
	yaml_document_t *doc;
	char		*errors;
	int		 nerrors;
};

/* Names a direction. */
const char *
catalog_direction_name(enum catalog_direction d)
{
	return (catalog_directions[d]);
}

/* Names a statistic. */
const char *
catalog_statistic_name(enum catalog_statistic s)
{
	return (catalog_statistics[s]);
}

/* Appends one error line; line and col are 0-based as libyaml gives them. */
static void
catalog_error_at(struct catalog_ctx *ctx, size_t line, size_t col,
    const char *fmt, ...)
{
	char   *msg, *all;
	va_list ap;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	all = xasprintf("%s%s%s:%zu:%zu: %s", ctx->errors ? ctx->errors : "",
	    ctx->errors ? "\n" : "", ctx->path, line + 1, col + 1, msg);
	free(ctx->errors);
	free(msg);
	ctx->errors = all;
	ctx->nerrors++;
}

#define catalog_error(ctx, node, ...)                    \
	catalog_error_at((ctx), (node)->start_mark.line, \
	    (node)->start_mark.column, __VA_ARGS__)

/* Returns the text of a scalar node, or NULL after an error. */
static const char *
catalog_scalar(struct catalog_ctx *ctx, yaml_node_t *node, const char *what)
{
	if (node->type != YAML_SCALAR_NODE) {
		catalog_error(ctx, node, "\"%s\": expected a value", what);
		return (NULL);
	}
	return ((const char *)node->data.scalar.value);
}

/* Copies a scalar into *out (replacing what was there). */
static void
catalog_string(struct catalog_ctx *ctx, yaml_node_t *node, const char *what,
    char **out)
{
	const char *s;

	if ((s = catalog_scalar(ctx, node, what)) == NULL)
		return;
	free(*out);
	*out = xstrdup(s);
}

/* Reads a count or a number of seconds: digits only, at most 1e9. */
static void
catalog_uint(struct catalog_ctx *ctx, yaml_node_t *node, const char *what,
    unsigned *out)
{
	const char   *s;
	char	     *end;
	unsigned long v;

	if ((s = catalog_scalar(ctx, node, what)) == NULL)
		return;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (!isdigit((unsigned char)*s) || *end != '\0' || errno != 0 ||
	    v > 1000000000UL) {
		catalog_error(ctx, node,
		    "\"%s\": \"%s\" is not a whole "
		    "number",
		    what, s);
		return;
	}
	*out = (unsigned)v;
}

/* Reads a sequence of scalars (or one scalar) into a string array. */
static void
catalog_list(struct catalog_ctx *ctx, yaml_node_t *node, const char *what,
    char ***out, size_t *n)
{
	yaml_node_item_t *it;
	yaml_node_t	 *item;
	const char	 *s;

	if (node->type == YAML_SCALAR_NODE) {
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		(*out)[(*n)++] = xstrdup((const char *)node->data.scalar.value);
		return;
	}
	if (node->type != YAML_SEQUENCE_NODE) {
		catalog_error(ctx, node, "\"%s\": expected a list", what);
		return;
	}
	for (it = node->data.sequence.items.start;
	     it < node->data.sequence.items.top; it++) {
		item = yaml_document_get_node(ctx->doc, *it);
		if ((s = catalog_scalar(ctx, item, what)) == NULL)
			continue;
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		(*out)[(*n)++] = xstrdup(s);
	}
}

/* Checks that node is a mapping. */
static int
catalog_is_map(struct catalog_ctx *ctx, yaml_node_t *node, const char *what)
{
	if (node->type == YAML_MAPPING_NODE)
		return (1);
	catalog_error(ctx, node, "\"%s\": expected a mapping", what);
	return (0);
}

/* Returns the value of key in a mapping node, or NULL. */
static yaml_node_t *
catalog_map_get(struct catalog_ctx *ctx, yaml_node_t *map, const char *key)
{
	yaml_node_pair_t *p;
	yaml_node_t	 *k;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		k = yaml_document_get_node(ctx->doc, p->key);
		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, key) == 0)
			return (yaml_document_get_node(ctx->doc, p->value));
	}
	return (NULL);
}

/* Finds a word in a table of names; returns its index or -1. */
static int
catalog_word(const char *s, const char **names, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0)
			return (i);
	}
	return (-1);
}

/* Reads one metric: {name, unit, direction, statistic, label}. */
static void
catalog_metric(struct catalog_ctx *ctx, yaml_node_t *node,
    struct catalog_metric *m)
{
	yaml_node_pair_t *p;
	yaml_node_t	 *k, *v;
	const char	 *key, *s;
	int		  w, have = 0;

	memset(m, 0, sizeof *m);
	if (!catalog_is_map(ctx, node, "metrics"))
		return;
	for (p = node->data.mapping.pairs.start;
	     p < node->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(ctx->doc, p->key);
		v = yaml_document_get_node(ctx->doc, p->value);
		if ((key = catalog_scalar(ctx, k, "metrics")) == NULL)
			continue;
		if (strcmp(key, "name") == 0)
			catalog_string(ctx, v, key, &m->name);
		else if (strcmp(key, "unit") == 0)
			catalog_string(ctx, v, key, &m->unit);
		else if (strcmp(key, "label") == 0)
			catalog_string(ctx, v, key, &m->label);
		else if (strcmp(key, "direction") == 0 ||
		    strcmp(key, "statistic") == 0) {
			have |= key[0] == 'd' ? 1 : 2;
			if ((s = catalog_scalar(ctx, v, key)) == NULL)
				continue;
			w = key[0] == 'd'
			    ? catalog_word(s, catalog_directions, 2)
			    : catalog_word(s, catalog_statistics, 4);
			if (w < 0) {
				catalog_error(ctx, v,
				    "\"%s\": unknown value "
				    "\"%s\"",
				    key, s);
				continue;
			}
			if (key[0] == 'd')
				m->direction = (enum catalog_direction)w;
			else
				m->statistic = (enum catalog_statistic)w;
		} else
			catalog_error(ctx, k, "unknown key \"%s\"", key);
	}
	if (m->name == NULL)
		catalog_error(ctx, node, "metric: missing \"name\"");
	if (m->unit == NULL)
		m->unit = xstrdup("");
	if (!(have & 1))
		catalog_error(ctx, node, "metric \"%s\": missing \"direction\"",
		    m->name ? m->name : "");
}

/* Reads the metrics list. */
static void
catalog_metrics(struct catalog_ctx *ctx, yaml_node_t *node,
    struct catalog_benchmark *b)
{
	yaml_node_item_t *it;

	if (node->type != YAML_SEQUENCE_NODE) {
		catalog_error(ctx, node, "\"metrics\": expected a list");
		return;
	}
	for (it = node->data.sequence.items.start;
	     it < node->data.sequence.items.top; it++) {
		b->metrics = xreallocarray(b->metrics, b->nmetrics + 1,
		    sizeof *b->metrics);
		catalog_metric(ctx, yaml_document_get_node(ctx->doc, *it),
		    &b->metrics[b->nmetrics++]);
	}
}

/* Reads one parameter: a value (the default) or {default, axis}. */
static void
catalog_param(struct catalog_ctx *ctx, yaml_node_t *node,
    struct catalog_param *prm)
{
	yaml_node_pair_t *p;
	yaml_node_t	 *k, *v;
	const char	 *key;

	if (node->type == YAML_SCALAR_NODE) {
		catalog_string(ctx, node, prm->name, &prm->def);
		return;
	}
	if (!catalog_is_map(ctx, node, prm->name))
		return;
	for (p = node->data.mapping.pairs.start;
	     p < node->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(ctx->doc, p->key);
		v = yaml_document_get_node(ctx->doc, p->value);
		if ((key = catalog_scalar(ctx, k, prm->name)) == NULL)
			continue;
		if (strcmp(key, "default") == 0)
			catalog_string(ctx, v, key, &prm->def);
		else if (strcmp(key, "axis") == 0)
			catalog_list(ctx, v, key, &prm->axis, &prm->naxis);
		else if (strcmp(key, "description") != 0)
			catalog_error(ctx, k,
			    "param \"%s\": unknown key "
			    "\"%s\"",
			    prm->name, key);
	}
}

/* Reads the params mapping: name -> param. */
static void
catalog_params(struct catalog_ctx *ctx, yaml_node_t *node,
    struct catalog_benchmark *b)
{
	yaml_node_pair_t     *p;
	yaml_node_t	     *k;
	struct catalog_param *prm;
	const char	     *name;

	if (!catalog_is_map(ctx, node, "params"))
		return;
	for (p = node->data.mapping.pairs.start;
	     p < node->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(ctx->doc, p->key);
		if ((name = catalog_scalar(ctx, k, "params")) == NULL)
			continue;
		if (catalog_param_find(b, name) != NULL) {
			catalog_error(ctx, k, "param \"%s\": defined twice",
			    name);
			continue;
		}
		b->params =
		    xreallocarray(b->params, b->nparams + 1, sizeof *b->params);
		prm = &b->params[b->nparams++];
		memset(prm, 0, sizeof *prm);
		prm->name = xstrdup(name);
		catalog_param(ctx, yaml_document_get_node(ctx->doc, p->value),
		    prm);
	}
}

/* Reads install: a package name, or {package} or {source, build}. */
static void
catalog_install(struct catalog_ctx *ctx, yaml_node_t *node,
    struct catalog_install *in)
{
	yaml_node_pair_t *p;
	yaml_node_t	 *k, *v;
	const char	 *key;

	if (node->type == YAML_SCALAR_NODE) {
		catalog_string(ctx, node, "install", &in->package);
		return;
	}
	if (!catalog_is_map(ctx, node, "install"))
		return;
	for (p = node->data.mapping.pairs.start;
	     p < node->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(ctx->doc, p->key);
		v = yaml_document_get_node(ctx->doc, p->value);
		if ((key = catalog_scalar(ctx, k, "install")) == NULL)
			continue;
		if (strcmp(key, "package") == 0)
			catalog_string(ctx, v, key, &in->package);
		else if (strcmp(key, "source") == 0)
			catalog_string(ctx, v, key, &in->source);
		else if (strcmp(key, "build") == 0)
			catalog_list(ctx, v, key, &in->build, &in->nbuild);
		else
			catalog_error(ctx, k, "install: unknown key \"%s\"",
			    key);
	}
	if ((in->package == NULL) == (in->source == NULL))
		catalog_error(ctx, node,
		    "install: give either \"package\" or "
		    "\"source\"");
}

/*
 * Reads server: an argv list, or {command: [argv], port: N} where port is
 * the TCP port the server listens on once it is ready.
 */
static void
catalog_server(struct catalog_ctx *ctx, yaml_node_t *node,
    struct catalog_server *sv)
{
	yaml_node_pair_t *p;
	yaml_node_t	 *k, *v;
	const char	 *key;

	if (node->type == YAML_SEQUENCE_NODE) {
		catalog_list(ctx, node, "server", &sv->command, &sv->ncommand);
		return;
	}
	if (!catalog_is_map(ctx, node, "server"))
		return;
	for (p = node->data.mapping.pairs.start;
	     p < node->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(ctx->doc, p->key);
		v = yaml_document_get_node(ctx->doc, p->value);
		if ((key = catalog_scalar(ctx, k, "server")) == NULL)
			continue;
		if (strcmp(key, "command") == 0 &&
		    v->type == YAML_SEQUENCE_NODE)
			catalog_list(ctx, v, key, &sv->command, &sv->ncommand);
		else if (strcmp(key, "command") == 0)
			catalog_error(ctx, v,
			    "server: \"command\": expected a "
			    "list of arguments");
		else if (strcmp(key, "port") == 0)
			catalog_uint(ctx, v, key, &sv->port);
		else
			catalog_error(ctx, k, "server: unknown key \"%s\"",
			    key);
	}
	if (sv->port > 65535)
		catalog_error(ctx, node,
		    "server: \"port\": %u is not a TCP "
		    "port",
		    sv->port);
}

/* Reads one top-level key of a benchmark file. */
static void
catalog_key(struct catalog_ctx *ctx, const char *key, yaml_node_t *k,
    yaml_node_t *v, struct catalog_benchmark *b)
{
	if (strcmp(key, "name") == 0)
		catalog_string(ctx, v, key, &b->name);
	else if (strcmp(key, "description") == 0)
		catalog_string(ctx, v, key, &b->description);
	else if (strcmp(key, "command") == 0) {
		if (v->type == YAML_SEQUENCE_NODE)
			catalog_list(ctx, v, key, &b->command, &b->ncommand);
		else
			catalog_error(ctx, v,
			    "\"command\": expected a list "
			    "of arguments");
	} else if (strcmp(key, "params") == 0)
		catalog_params(ctx, v, b);
	else if (strcmp(key, "iterations") == 0)
		catalog_uint(ctx, v, key, &b->iterations);
	else if (strcmp(key, "warmups") == 0)
		catalog_uint(ctx, v, key, &b->warmups);
	else if (strcmp(key, "timeout") == 0)
		catalog_uint(ctx, v, key, &b->timeout);
	else if (strcmp(key, "install") == 0)
		catalog_install(ctx, v, &b->install);
	else if (strcmp(key, "server") == 0)
		catalog_server(ctx, v, &b->server);
	else if (strcmp(key, "parser") == 0)
		catalog_string(ctx, v, key, &b->parser);
	else if (strcmp(key, "parser_args") == 0)
		catalog_string(ctx, v, key, &b->parser_args);
	else if (strcmp(key, "metrics") == 0)
		catalog_metrics(ctx, v, b);
	else
		catalog_error(ctx, k, "unknown key \"%s\"", key);
}

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
	struct catalog_ctx	       *ctx;
	yaml_node_t		       *node;
	const struct catalog_benchmark *b;
};

/* Template callback at load: every placeholder must be a param. */
static const char *
catalog_check_cb(void *arg, const char *name)
{
	struct catalog_check *ck = arg;

	if (catalog_param_find(ck->b, name) == NULL)
		catalog_error(ck->ctx, ck->node,
		    "command: unknown placeholder "
		    "\"{%s}\"",
		    name);
	return ("");
}

/* Checks the placeholders of an argv template against the params. */
static void
catalog_check_command(struct catalog_ctx *ctx, yaml_node_t *cmd,
    const struct catalog_benchmark *b, char **argv, size_t argc)
{
	struct catalog_check ck = { ctx, cmd, b };
	yaml_node_item_t    *it;
	size_t		     i = 0;

	for (it = cmd->data.sequence.items.start;
	     it < cmd->data.sequence.items.top && i < argc; it++, i++) {
		ck.node = yaml_document_get_node(ctx->doc, *it);
		if (catalog_template(argv[i], NULL, catalog_check_cb, &ck) != 0)
			catalog_error(ctx, ck.node,
			    "command: lone brace in "
			    "\"%s\" (write {{ or }} for a brace)",
			    argv[i]);
	}
}

/* Checks the server's command: given, and placeholders known. */
static void
catalog_check_server(struct catalog_ctx *ctx, yaml_node_t *server,
    const struct catalog_benchmark *b)
{
	yaml_node_t *cmd = server;

	if (server->type == YAML_MAPPING_NODE)
		cmd = catalog_map_get(ctx, server, "command");
	if (b->server.ncommand == 0) {
		catalog_error(ctx, server, "server: \"command\": empty");
		return;
	}
	if (cmd != NULL && cmd->type == YAML_SEQUENCE_NODE)
		catalog_check_command(ctx, cmd, b, b->server.command,
		    b->server.ncommand);
}

static const char *catalog_required[] = { "name", "command", "install",
	"parser", "metrics" };
#define CATALOG_NREQUIRED (sizeof catalog_required / sizeof catalog_required[0])

/* Checks what a whole file must have once every key is read. */
static void
catalog_check(struct catalog_ctx *ctx, yaml_node_t *root, yaml_node_t *cmd,
    yaml_node_t *parser, const int *seen, const struct catalog_benchmark *b)
{
	size_t i;

	for (i = 0; i < CATALOG_NREQUIRED; i++) {
		if (!seen[i])
			catalog_error(ctx, root, "missing \"%s\"",
			    catalog_required[i]);
	}
	if (cmd != NULL && cmd->type == YAML_SEQUENCE_NODE)
		catalog_check_command(ctx, cmd, b, b->command, b->ncommand);
	if (b->parser != NULL && parse_find(b->parser) == NULL)
		catalog_error(ctx, parser, "parser \"%s\": unknown parser",
		    b->parser);
	if (seen[1] && b->ncommand == 0)
		catalog_error(ctx, cmd, "\"command\": empty");
	if (seen[4] && b->nmetrics == 0)
		catalog_error(ctx, root, "\"metrics\": empty");
	if (b->iterations == 0)
		catalog_error(ctx, root, "\"iterations\": must be at least 1");
}

/* Reads the document root into b. */
static void
catalog_root(struct catalog_ctx *ctx, yaml_node_t *root,
    struct catalog_benchmark *b)
{
	yaml_node_pair_t *p;
	yaml_node_t	 *k, *v, *cmd = NULL, *parser = NULL, *server = NULL;
	const char	 *key;
	int		  seen[CATALOG_NREQUIRED] = { 0 };
	size_t		  i;

	b->iterations = CATALOG_ITERATIONS;
	b->timeout = CATALOG_TIMEOUT;
	if (root == NULL) {
		catalog_error_at(ctx, 0, 0, "empty file");
		return;
	}
	if (!catalog_is_map(ctx, root, "benchmark"))
		return;
	for (p = root->data.mapping.pairs.start;
	     p < root->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(ctx->doc, p->key);
		v = yaml_document_get_node(ctx->doc, p->value);
		if ((key = catalog_scalar(ctx, k, "benchmark")) == NULL)
			continue;
		for (i = 0; i < CATALOG_NREQUIRED; i++)
			seen[i] |= strcmp(key, catalog_required[i]) == 0;
		if (strcmp(key, "command") == 0)
			cmd = v;
		else if (strcmp(key, "parser") == 0)
			parser = v;
		else if (strcmp(key, "server") == 0)
			server = v;
		catalog_key(ctx, key, k, v, b);
	}
	catalog_check(ctx, root, cmd, parser, seen, b);
	if (server != NULL && server->type != YAML_SCALAR_NODE)
		catalog_check_server(ctx, server, b);
}

/* Frees what one benchmark holds. */
static void
catalog_benchmark_clear(struct catalog_benchmark *b)
{
	size_t i;

	free(b->name);
	free(b->description);
	free(b->path);
	catalog_argv_free(b->command);
	for (i = 0; i < b->nparams; i++) {
		free(b->params[i].name);
		free(b->params[i].def);
		catalog_argv_free(b->params[i].axis);
	}
	free(b->params);
	free(b->install.package);
	free(b->install.source);
	catalog_argv_free(b->install.build);
	catalog_argv_free(b->server.command);
	free(b->parser);
	free(b->parser_args);
	for (i = 0; i < b->nmetrics; i++) {
		free(b->metrics[i].name);
		free(b->metrics[i].unit);
		free(b->metrics[i].label);
	}
	free(b->metrics);
	memset(b, 0, sizeof *b);
}

/* Ends each string array with NULL so it can serve as an argv. */
static void
catalog_terminate(struct catalog_benchmark *b)
{
	size_t i;

	b->command = xreallocarray(b->command, b->ncommand + 1, sizeof(char *));
	b->command[b->ncommand] = NULL;
	b->install.build = xreallocarray(b->install.build,
	    b->install.nbuild + 1, sizeof(char *));
	b->install.build[b->install.nbuild] = NULL;
	if (b->server.command != NULL) {
		b->server.command = xreallocarray(b->server.command,
		    b->server.ncommand + 1, sizeof(char *));
		b->server.command[b->server.ncommand] = NULL;
	}
	for (i = 0; i < b->nparams; i++) {
		b->params[i].axis = xreallocarray(b->params[i].axis,
		    b->params[i].naxis + 1, sizeof(char *));
		b->params[i].axis[b->params[i].naxis] = NULL;
	}
}

/* Parses one file into b; returns the number of errors added to ctx. */
static int
catalog_read(struct catalog_ctx *ctx, FILE *f, struct catalog_benchmark *b)
{
	yaml_parser_t	parser;
	yaml_document_t doc;
	int		before = ctx->nerrors;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		catalog_error_at(ctx, parser.problem_mark.line,
		    parser.problem_mark.column, "%s",
		    parser.problem ? parser.problem : "yaml error");
		yaml_parser_delete(&parser);
		return (ctx->nerrors - before);
	}
	ctx->doc = &doc;
	catalog_root(ctx, yaml_document_get_root_node(&doc), b);
	catalog_terminate(b);
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return (ctx->nerrors - before);
}

/* Adds the benchmark of one file to cat; errors go to ctx. */
static void
catalog_add_file(struct catalog *cat, struct catalog_ctx *ctx, const char *path)
{
	const struct catalog_benchmark *first;
	struct catalog_benchmark	b;
	FILE			       *f;

	memset(&b, 0, sizeof b);
	ctx->path = path;
	if ((f = fopen(path, "r")) == NULL) {
		catalog_error_at(ctx, 0, 0, "%s", strerror(errno));
		return;
	}
	if (catalog_read(ctx, f, &b) != 0) {
		catalog_benchmark_clear(&b);
		fclose(f);
		return;
	}
	fclose(f);
	if ((first = catalog_find(cat, b.name)) != NULL) {
		catalog_error_at(ctx, 0, 0,
		    "benchmark \"%s\": already "
		    "defined in %s",
		    b.name, first->path);
		catalog_benchmark_clear(&b);
		return;
	}
	b.path = xstrdup(path);
	cat->v = xreallocarray(cat->v, cat->n + 1, sizeof *cat->v);
	cat->v[cat->n++] = b;
}

/* Hands back the catalog, or NULL and the errors. */
static struct catalog *
catalog_finish(struct catalog *cat, struct catalog_ctx *ctx, char **cause)
{
	if (ctx->nerrors == 0)
		return (cat);
	*cause = ctx->errors;
	catalog_free(cat);
	return (NULL);
}

/* Loads one benchmark file. */
struct catalog *
catalog_load_file(const char *path, char **cause)
{
	struct catalog_ctx ctx;
	struct catalog	  *cat = xcalloc(1, sizeof *cat);

	memset(&ctx, 0, sizeof ctx);
	catalog_add_file(cat, &ctx, path);
	return (catalog_finish(cat, &ctx, cause));
}

/* Keeps the names ending in ".yaml" for scandir(). */
static int
catalog_yaml_filter(const struct dirent *d)
{
	size_t l = strlen(d->d_name);

	return (d->d_name[0] != '.' && l > 5 &&
	    strcmp(d->d_name + l - 5, ".yaml") == 0);
}

/* Loads every *.yaml file of dir. */
struct catalog *
catalog_load(const char *dir, char **cause)
{
	struct catalog_ctx ctx;
	struct catalog	  *cat;
	struct dirent	 **names;
	char		  *path;
	int		   n, i;

	*cause = NULL;
	if ((n = scandir(dir, &names, catalog_yaml_filter, alphasort)) < 0) {
		*cause = xasprintf("%s: %s", dir, strerror(errno));
		return (NULL);
	}
	cat = xcalloc(1, sizeof *cat);
	memset(&ctx, 0, sizeof ctx);
	for (i = 0; i < n; i++) {
		path = xasprintf("%s/%s", dir, names[i]->d_name);
		catalog_add_file(cat, &ctx, path);
		free(path);
		free(names[i]);
	}
	free(names);
	return (catalog_finish(cat, &ctx, cause));
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
	char **p;

	for (p = argv; p != NULL && *p != NULL; p++)
		free(*p);
	free(argv);
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
