/*
 * Job files: YAML parsed into a validated struct job.  Every error is
 * collected with its position and reported at once, sorted by position.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <yaml.h>

#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_yaml.h"
#include "machines/machine.h"

#define JOB_MAX_DURATION_MS (7L * 24 * 3600 * 1000)

static const char *job_top_keys[] = { "name", "description", "machines",
	"kernels", "benchmarks", "rounds", "order", "seed", "cmdline", NULL };
static const char *job_order_names[] = { "alternate", "fixed", "random", NULL };

/* Records one error at a node's position. */
void
job_err(struct job_ctx *ctx, const yaml_node_t *node, const char *fmt, ...)
{
	struct job_error *e;
	va_list		  ap;

	ctx->errs = xreallocarray(ctx->errs, ctx->nerrs + 1, sizeof *ctx->errs);
	e = &ctx->errs[ctx->nerrs];
	e->line = node != NULL ? node->start_mark.line + 1 : 1;
	e->col = node != NULL ? node->start_mark.column + 1 : 1;
	e->seq = ctx->nerrs++;
	va_start(ap, fmt);
	e->msg = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Orders errors by position, then by the order they were found. */
static int
job_err_cmp(const void *a, const void *b)
{
	const struct job_error *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Joins the collected errors into one message, one per line. */
static char *
job_err_join(struct job_ctx *ctx)
{
	char  *out = xstrdup(""), *next;
	size_t i;

	qsort(ctx->errs, ctx->nerrs, sizeof *ctx->errs, job_err_cmp);
	for (i = 0; i < ctx->nerrs; i++) {
		next = xasprintf("%s%s%s:%zu:%zu: %s", out, i ? "\n" : "",
		    ctx->file, ctx->errs[i].line, ctx->errs[i].col,
		    ctx->errs[i].msg);
		free(out);
		out = next;
	}
	return out;
}

/* Frees the collected errors. */
static void
job_err_free(struct job_ctx *ctx)
{
	size_t i;

	for (i = 0; i < ctx->nerrs; i++)
		free(ctx->errs[i].msg);
	free(ctx->errs);
}

/* Returns the index of s in a NULL-terminated list, or -1. */
int
job_lookup(const char **list, const char *s)
{
	int i;

	for (i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], s) == 0)
			return i;
	return -1;
}

/* Returns the names of a NULL-terminated list joined by ", ". */
char *
job_join(const char **list)
{
	char  *out = xstrdup(""), *next;
	size_t i;

	for (i = 0; list[i] != NULL; i++) {
		next = xasprintf("%s%s%s", out, i ? ", " : "", list[i]);
		free(out);
		out = next;
	}
	return out;
}

/* Returns a node by index. */
yaml_node_t *
job_node(struct job_ctx *ctx, int index)
{
	return yaml_document_get_node(&ctx->doc, index);
}

/* Returns a scalar node's text, or NULL for any other node. */
const char *
job_text(const yaml_node_t *n)
{
	if (n == NULL || n->type != YAML_SCALAR_NODE)
		return NULL;
	return (const char *)n->data.scalar.value;
}

/* Returns the number of items of a sequence node. */
size_t
job_seq_len(const yaml_node_t *n)
{
	return n->data.sequence.items.top - n->data.sequence.items.start;
}

/* Returns item i of a sequence node. */
yaml_node_t *
job_seq_item(struct job_ctx *ctx, const yaml_node_t *n, size_t i)
{
	return job_node(ctx, n->data.sequence.items.start[i]);
}

/* Checks that a node is a mapping with only known, unique scalar keys. */
int
job_map_check(struct job_ctx *ctx, yaml_node_t *n, const char *what,
    const char **keys)
{
	yaml_node_pair_t *p, *q;
	const char	 *k;

	if (n->type != YAML_MAPPING_NODE) {
		job_err(ctx, n, "%s must be a mapping", what);
		return -1;
	}
	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		k = job_text(job_node(ctx, p->key));
		if (k == NULL)
			job_err(ctx, job_node(ctx, p->key),
			    "%s: keys must "
			    "be strings",
			    what);
		else if (keys != NULL && job_lookup(keys, k) == -1)
			job_err(ctx, job_node(ctx, p->key),
			    "unknown key "
			    "\"%s\" in %s",
			    k, what);
		for (q = n->data.mapping.pairs.start; k != NULL && q < p; q++)
			if (job_text(job_node(ctx, q->key)) != NULL &&
			    strcmp(job_text(job_node(ctx, q->key)), k) == 0) {
				job_err(ctx, job_node(ctx, p->key),
				    "duplicate key \"%s\"", k);
				break;
			}
	}
	return 0;
}

/* Returns the value of key in a mapping (first one), and its key node. */
yaml_node_t *
job_map_get(struct job_ctx *ctx, yaml_node_t *n, const char *key,
    yaml_node_t **keynode)
{
	yaml_node_pair_t *p;
	const char	 *k;

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++) {
		k = job_text(job_node(ctx, p->key));
		if (k != NULL && strcmp(k, key) == 0) {
			if (keynode != NULL)
				*keynode = job_node(ctx, p->key);
			return job_node(ctx, p->value);
		}
	}
	return NULL;
}

/* Returns a copy of a non-empty string value, or NULL after an error. */
char *
job_get_string(struct job_ctx *ctx, yaml_node_t *map, const char *key,
    bool required, const char *what)
{
	yaml_node_t *k, *v;
	const char  *s;

	v = job_map_get(ctx, map, key, &k);
	if (v == NULL) {
		if (required)
			job_err(ctx, map, "%s: missing key \"%s\"", what, key);
		return NULL;
	}
	s = job_text(v);
	if (s == NULL || *s == '\0') {
		job_err(ctx, k, "\"%s\" must be a non-empty string", key);
		return NULL;
	}
	return xstrdup(s);
}

/* Parses a decimal integer in [min, max]; -1 if it is not one. */
int
job_read_int(const char *s, long min, long max, long *out)
{
	char *end;
	long  v;

	if (s == NULL || *s == '\0' || *s == ' ')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Reads an integer value of key into *out; keeps *out if key is absent. */
void
job_get_int(struct job_ctx *ctx, yaml_node_t *map, const char *key, long min,
    long max, long *out)
{
	yaml_node_t *k, *v;

	v = job_map_get(ctx, map, key, &k);
	if (v == NULL)
		return;
	if (job_read_int(job_text(v), min, max, out) == -1)
		job_err(ctx, k,
		    "\"%s\" must be an integer from %ld to "
		    "%ld%s%s%s",
		    key, min, max, job_text(v) ? ", not \"" : "",
		    job_text(v) ? job_text(v) : "", job_text(v) ? "\"" : "");
}

/* Parses "30s", "500ms", "5m", "1h" or plain seconds; -1 if invalid. */
long
job_read_duration(const char *s)
{
	static const struct {
		const char *suffix;
		long	    ms;
	} units[] = { { "ms", 1 }, { "s", 1000 }, { "m", 60000 },
		{ "h", 3600000 }, { "", 1000 } };
	char  *end;
	long   v;
	size_t i;

	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0)
		return -1;
	for (i = 0; i < sizeof units / sizeof units[0]; i++) {
		if (strcmp(end, units[i].suffix) != 0)
			continue;
		if (v <= 0 || v > JOB_MAX_DURATION_MS / units[i].ms)
			return -1;
		return v * units[i].ms;
	}
	return -1;
}

/* Returns the name of an order. */
const char *
job_order_name(enum job_order o)
{
	if ((unsigned)o > JOB_ORDER_RANDOM)
		return "unknown";
	return job_order_names[o];
}

/* Returns the name of a kernel kind. */
const char *
job_kernel_kind_name(enum job_kernel_kind k)
{
	switch (k) {
	case JOB_KERNEL_RUNNING:
		return "running";
	case JOB_KERNEL_IMAGE:
		return "image";
	case JOB_KERNEL_BUILD:
		return "build";
	}
	return "unknown";
}

/* Returns the kernel's command line plus the job's (caller frees). */
char *
job_kernel_cmdline(const struct job *job, const struct job_kernel *k)
{
	const char *a = k->cmdline, *b = job->cmdline;

	if (a != NULL && b != NULL)
		return xasprintf("%s %s", a, b);
	return xstrdup(a != NULL ? a : b != NULL ? b : "");
}

/* Returns the job's kernel called name, or NULL. */
struct job_kernel *
job_find_kernel(const struct job *job, const char *name)
{
	size_t i;

	for (i = 0; i < job->nkernels; i++)
		if (strcmp(job->kernels[i].name, name) == 0)
			return &job->kernels[i];
	return NULL;
}

/* Frees the contents of a benchmark. */
static void
job_benchmark_clear(struct job_benchmark *b)
{
	size_t i, j;

	free(b->name);
	for (i = 0; i < b->nparams; i++) {
		free(b->params[i].key);
		for (j = 0; j < b->params[i].nvalues; j++)
			free(b->params[i].values[j]);
		free(b->params[i].values);
	}
	free(b->params);
	for (i = 0; b->argv != NULL && b->argv[i] != NULL; i++)
		free(b->argv[i]);
	free(b->argv);
	free(b->parser);
	free(b->parser_args);
	for (i = 0; i < b->nmetrics; i++) {
		free(b->metrics[i].name);
		free(b->metrics[i].unit);
		free(b->metrics[i].direction);
		free(b->metrics[i].statistic);
		free(b->metrics[i].label);
	}
	free(b->metrics);
	free(b->install.package);
	free(b->install.source);
	for (i = 0; b->install.build != NULL && b->install.build[i] != NULL;
	     i++)
		free(b->install.build[i]);
	free(b->install.build);
	for (i = 0; b->server.argv != NULL && b->server.argv[i] != NULL; i++)
		free(b->server.argv[i]);
	free(b->server.argv);
}

/* Frees a job; NULL is fine. */
void
job_free(struct job *job)
{
	size_t i;

	if (job == NULL)
		return;
	free(job->name);
	free(job->description);
	for (i = 0; i < job->nmachines; i++)
		free(job->machines[i]);
	free(job->machines);
	for (i = 0; i < job->nkernels; i++)
		job_kernel_clear(&job->kernels[i]);
	free(job->kernels);
	for (i = 0; i < job->nbenchmarks; i++)
		job_benchmark_clear(&job->benchmarks[i]);
	free(job->benchmarks);
	free(job->cmdline);
	free(job);
}

/* Returns a value of a sequence node or NULL after an error. */
yaml_node_t *
job_get_seq(struct job_ctx *ctx, yaml_node_t *map, const char *key,
    bool required, yaml_node_t **keynode)
{
	yaml_node_t *v;

	v = job_map_get(ctx, map, key, keynode);
	if (v == NULL) {
		if (required)
			job_err(ctx, map, "job: missing key \"%s\"", key);
		return NULL;
	}
	if (v->type != YAML_SEQUENCE_NODE || job_seq_len(v) == 0) {
		job_err(ctx, *keynode, "\"%s\" must be a non-empty list", key);
		return NULL;
	}
	return v;
}

/* Returns whether inv has a machine called name. */
static bool
job_inventory_has(const struct inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; i < inv->n; i++)
		if (strcmp(inv->machines[i]->name, name) == 0)
			return true;
	return false;
}

/* Parses machines: a non-empty list of known, unique machine names. */
static void
job_read_machines(struct job_ctx *ctx, yaml_node_t *root, struct job *job)
{
	yaml_node_t *k, *seq, *item;
	const char  *s;
	size_t	     i, j;

	if ((seq = job_get_seq(ctx, root, "machines", true, &k)) == NULL)
		return;
	job->machines = xcalloc(job_seq_len(seq), sizeof *job->machines);
	for (i = 0; i < job_seq_len(seq); i++) {
		item = job_seq_item(ctx, seq, i);
		if ((s = job_text(item)) == NULL || *s == '\0') {
			job_err(ctx, item, "machine must be a non-empty name");
			continue;
		}
		for (j = 0; j < job->nmachines; j++)
			if (strcmp(job->machines[j], s) == 0)
				break;
		if (j < job->nmachines)
			job_err(ctx, item, "duplicate machine \"%s\"", s);
		else if (ctx->inventory != NULL &&
		    !job_inventory_has(ctx->inventory, s))
			job_err(ctx, item, "unknown machine \"%s\"", s);
		else
			job->machines[job->nmachines++] = xstrdup(s);
	}
}

/* Parses order and seed; picks a seed for a random order without one. */
static void
job_read_order(struct job_ctx *ctx, yaml_node_t *root, struct job *job)
{
	yaml_node_t *k, *v, *sk;
	long	     seed = -1;
	int	     o;

	if ((v = job_map_get(ctx, root, "order", &k)) != NULL) {
		o = job_text(v) ? job_lookup(job_order_names, job_text(v)) : -1;
		if (o == -1)
			job_err(ctx, k,
			    "\"order\" must be alternate, fixed "
			    "or random");
		else
			job->order = (enum job_order)o;
	}
	job_get_int(ctx, root, "seed", 0, UINT32_MAX, &seed);
	if (seed != -1 && job->order != JOB_ORDER_RANDOM &&
	    job_map_get(ctx, root, "seed", &sk) != NULL)
		job_err(ctx, sk, "\"seed\" needs \"order: random\"");
	if (seed != -1)
		job->seed = (uint32_t)seed;
	else if (job->order == JOB_ORDER_RANDOM &&
	    getrandom(&job->seed, sizeof job->seed, 0) != sizeof job->seed)
		job->seed = (uint32_t)time(NULL);
}

/* Parses the top-level mapping into job. */
static void
job_read_root(struct job_ctx *ctx, yaml_node_t *root, struct job *job)
{
	long rounds = 1;

	if (job_map_check(ctx, root, "job", job_top_keys) == -1)
		return;
	job->name = job_get_string(ctx, root, "name", true, "job");
	job->description =
	    job_get_string(ctx, root, "description", false, "job");
	job_read_machines(ctx, root, job);
	job_read_kernels(ctx, root, job);
	job_read_benchmarks(ctx, root, job);
	job_get_int(ctx, root, "rounds", 1, JOB_MAX_COUNT, &rounds);
	job->rounds = (int)rounds;
	job_read_order(ctx, root, job);
	job->cmdline = job_get_string(ctx, root, "cmdline", false, "job");
}

/* Loads the YAML document; reports a syntax error. */
static int
job_load_doc(struct job_ctx *ctx, const char *text, size_t len)
{
	yaml_parser_t parser;
	yaml_node_t   mark;
	int	      rc = -1;

	yaml_parser_initialize(&parser);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &ctx->doc)) {
		memset(&mark, 0, sizeof mark);
		mark.start_mark = parser.problem_mark;
		job_err(ctx, &mark, "%s",
		    parser.problem ? parser.problem : "invalid YAML");
		goto out;
	}
	if (yaml_document_get_root_node(&ctx->doc) == NULL) {
		yaml_document_delete(&ctx->doc);
		job_err(ctx, NULL, "empty job file");
		goto out;
	}
	rc = 0;
out:
	yaml_parser_delete(&parser);
	return rc;
}

/* Parses job text already in memory; name is used in error messages. */
struct job *
job_load_string(const char *name, const char *text, size_t len,
    const struct catalog *catalog, const struct inventory *inventory,
    char **cause)
{
	struct job_ctx ctx = { .file = name,
		.catalog = catalog,
		.inventory = inventory };
	struct job    *job = NULL;

	if (job_load_doc(&ctx, text, len) == -1)
		goto out;
	job = xcalloc(1, sizeof *job);
	job->rounds = 1;
	job_read_root(&ctx, yaml_document_get_root_node(&ctx.doc), job);
	yaml_document_delete(&ctx.doc);
out:
	if (ctx.nerrs != 0) {
		*cause = job_err_join(&ctx);
		job_free(job);
		job = NULL;
	}
	job_err_free(&ctx);
	return job;
}

/* Reads a whole file into memory; NULL with *cause on error. */
static char *
job_read_file(const char *path, size_t *len, char **cause)
{
	FILE  *f;
	char  *buf = NULL;
	size_t size = 0;

	if ((f = fopen(path, "r")) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	*len = 0;
	for (;;) {
		buf = xreallocarray(buf, size + 4096, 1);
		size += 4096;
		*len += fread(buf + *len, 1, size - *len, f);
		if (*len < size)
			break;
	}
	if (ferror(f)) {
		*cause = xasprintf("%s: read error", path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Parses and validates a job file. */
struct job *
job_load(const char *path, const struct catalog *catalog,
    const struct inventory *inventory, char **cause)
{
	struct job *job;
	char	   *text;
	size_t	    len;

	if ((text = job_read_file(path, &len, cause)) == NULL)
		return NULL;
	job = job_load_string(path, text, len, catalog, inventory, cause);
	free(text);
	return job;
}
