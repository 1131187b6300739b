/*
 * Job files: YAML read against key tables by the configuration engine
 * (common/conf.h) into a validated struct job.  Every error is collected
 * with its position and reported at once, sorted by position.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include <yaml.h>

#include "common/conf.h"
#include "common/suggest.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_yaml.h"
#include "jobs/plan.h"
#include "machines/machine.h"

#define JOB(f) offsetof(struct job, f)

static const char *const job_order_names[] = { "alternate", "fixed", "random",
	NULL };

/* Returns the machine of inv called name, or NULL. */
static const struct machine *
job_inventory_find(const struct inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; i < inv->n; i++)
		if (strcmp(inv->machines[i]->name, name) == 0)
			return inv->machines[i];
	return NULL;
}

/* " (did you mean \"x\"?)" naming inv's machine closest to name, or "". */
static char *
job_machine_hint(const struct inventory *inv, const char *name)
{
	struct suggest s;
	size_t	       i;

	suggest_init(&s, name);
	for (i = 0; i < inv->n; i++)
		suggest_add(&s, inv->machines[i]->name);
	return suggest_hint(&s);
}

/* Adds one machine name to the job unless it is a duplicate or unknown. */
static void
job_add_machine(struct conf_file *f, yaml_node_t *item, struct job *job)
{
	struct job_ctx *ctx = f->arg;
	const char     *s = (const char *)item->data.scalar.value;
	char	       *hint;
	size_t		i;

	for (i = 0; i < job->nmachines; i++)
		if (strcmp(job->machines[i], s) == 0)
			break;
	if (i < job->nmachines)
		conf_error(f, item, "duplicate machine \"%s\"", s);
	else if (ctx->inventory != NULL &&
	    job_inventory_find(ctx->inventory, s) == NULL) {
		hint = job_machine_hint(ctx->inventory, s);
		conf_error(f, item, "unknown machine \"%s\"%s", s, hint);
		free(hint);
	} else
		job->machines[job->nmachines++] = xstrdup(s);
}

/* "machines": a non-empty list of known, unique machine names. */
static void
job_read_machines(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	struct job  *job = dst;
	yaml_node_t *item;
	size_t	     i;

	if (conf_seq(f, k, v, "a non-empty list") == NULL)
		return;
	job->machines = xcalloc(conf_seq_len(v), sizeof(*job->machines));
	for (i = 0; i < conf_seq_len(v); i++) {
		item = conf_seq_item(f, v, i);
		if (item->type != YAML_SCALAR_NODE ||
		    item->data.scalar.length == 0)
			conf_error(f, item, "machine must be a non-empty name");
		else
			job_add_machine(f, item, job);
	}
}

/* "seed": a number from 0 to 2^32 - 1 into a uint32_t. */
static void
job_read_seed(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	struct job_ctx *ctx = f->arg;
	long long	n;

	if (!conf_number(f, k, v, &n))
		return;
	*(uint32_t *)dst = (uint32_t)n;
	ctx->seed_given = true;
}

static const struct conf_key job_keys[] = {
	{ .name = "name",
	    .parse = conf_parse_name,
	    .off = JOB(name),
	    .flags = CONF_REQUIRED },
	{ .name = "description",
	    .parse = conf_parse_str,
	    .off = JOB(description) },
	{ .name = "machines",
	    .parse = job_read_machines,
	    .flags = CONF_REQUIRED },
	{ .name = "kernels", .parse = job_read_kernels },
	{ .name = "benchmarks",
	    .parse = job_read_benchmarks,
	    .flags = CONF_REQUIRED },
	{ .name = "rounds",
	    .parse = conf_parse_int,
	    .off = JOB(rounds),
	    .min = 1,
	    .max = JOB_MAX_COUNT },
	{ .name = "order",
	    .parse = conf_parse_enum,
	    .off = JOB(order),
	    .choices = job_order_names },
	{ .name = "seed",
	    .parse = job_read_seed,
	    .off = JOB(seed),
	    .min = 0,
	    .max = UINT32_MAX },
	{ .name = "cmdline", .parse = conf_parse_str, .off = JOB(cmdline) },
	{ .name = "setup", .parse = job_read_setup, .off = JOB(setup) },
	{ .name = "monitors",
	    .parse = job_read_monitors,
	    .off = JOB(monitors) },
	{ .name = NULL },
};

/* Returns the first kernel a machine must boot (not "running"), or NULL. */
static const struct job_kernel *
job_kernel_to_boot(const struct job *job)
{
	size_t i;

	for (i = 0; i < job->nkernels; i++)
		if (job->kernels[i].kind != JOB_KERNEL_RUNNING)
			return &job->kernels[i];
	return NULL;
}

/*
 * Whether the machine item names can only run its own kernel: kind ssh
 * without "boot".  *m is that machine, or NULL if item names none.
 */
static bool
job_machine_fixed(const struct inventory *inv, const yaml_node_t *item,
    const struct machine **m)
{
	*m = NULL;
	if (item->type == YAML_SCALAR_NODE)
		*m = job_inventory_find(inv,
		    (const char *)item->data.scalar.value);
	return *m != NULL && (*m)->kind == MACHINE_SSH &&
	    (*m)->boot.method == MACHINE_BOOT_NONE;
}

/*
 * Refuses an ssh machine without a "boot" section when the job has a kernel
 * to boot: it can only run the kernel it has.
 */
static void
job_check_boot(struct conf_file *f, yaml_node_t *root, const struct job *job)
{
	const struct job_kernel *k = job_kernel_to_boot(job);
	struct job_ctx		*ctx = f->arg;
	const struct machine	*m;
	yaml_node_t		*seq, *item;
	size_t			 i;

	if (k == NULL || ctx->inventory == NULL ||
	    (seq = conf_map_value(f, root, "machines")) == NULL ||
	    seq->type != YAML_SEQUENCE_NODE)
		return;
	for (i = 0; i < conf_seq_len(seq); i++) {
		item = conf_seq_item(f, seq, i);
		if (!job_machine_fixed(ctx->inventory, item, &m))
			continue;
		conf_error(f, item,
		    "machine \"%s\" cannot boot kernel \"%s\": %s has no "
		    "\"boot\" section, so it runs only its own kernel",
		    m->name, k->name, m->file != NULL ? m->file : "its file");
	}
}

/* A seed needs a random order; a random order without one draws it. */
static void
job_check_order(struct conf_file *f, yaml_node_t *root, struct job_ctx *ctx)
{
	struct job *job = ctx->job;

	if (ctx->seed_given && job->order != JOB_ORDER_RANDOM)
		conf_error(f, conf_node(f, conf_map_pair(f, root, "seed")->key),
		    "\"seed\" needs \"order: random\"");
	else if (!ctx->seed_given && job->order == JOB_ORDER_RANDOM &&
	    getrandom(&job->seed, sizeof job->seed, 0) != sizeof job->seed)
		job->seed = (uint32_t)time(NULL);
}

/* Whether b runs under k; see jobs/job.h. */
bool
job_benchmark_runs_on(const struct job_benchmark *b, const struct job_kernel *k)
{
	return b->kernel == NULL || strcmp(b->kernel, k->name) == 0;
}

/* A benchmark's "kernel" must name a kernel of the job. */
static void
job_check_bench_kernels(struct conf_file *f, yaml_node_t *root,
    const struct job *job)
{
	yaml_node_t *seq = conf_map_value(f, root, "benchmarks"), *item;
	size_t	     i;

	for (i = 0; seq != NULL && i < job->nbenchmarks; i++) {
		if (job->benchmarks[i].kernel == NULL ||
		    job_find_kernel(job, job->benchmarks[i].kernel) != NULL)
			continue;
		item = conf_node(f, seq->data.sequence.items.start[i]);
		conf_error(f,
		    conf_node(f, conf_map_pair(f, item, "kernel")->value),
		    "kernel \"%s\": not a kernel of the job",
		    job->benchmarks[i].kernel);
	}
}

/*
 * The job's "monitors" go to every benchmark that names none of its own
 * (a benchmark's own list replaces the job's), their metrics declared.
 */
static void
job_share_monitors(struct job *job)
{
	struct job_benchmark *b;
	size_t		      i;

	for (i = 0; job->monitors != NULL && i < job->nbenchmarks; i++) {
		b = &job->benchmarks[i];
		if (b->monitors != NULL)
			continue;
		b->monitors = conf_strv_dup(job->monitors);
		if (b->resolved)
			job_observe_declare(b);
	}
}

/*
 * Refuses a job of more runs than JOB_MAX_RUNS, at the file's start: hilabd
 * plans them all at once.  Counted once the rest reads well.
 */
static void
job_check_count(struct conf_file *f, const struct job *job)
{
	char *cause = NULL;

	if (f->ld->nerrs == 0 && plan_check_count(job, &cause) == -1) {
		conf_error(f, NULL, "%s", cause);
		free(cause);
	}
}

/* Reads the document's root, a mapping, into the job. */
static void
job_root(struct conf_file *f, yaml_node_t *root)
{
	struct job_ctx *ctx = f->arg;

	if ((root = conf_root_map(f, root)) == NULL)
		return;
	conf_mapping(f, root, job_keys, ctx->job, NULL);
	if (conf_map_value(f, root, "kernels") == NULL)
		job_kernel_add_running(ctx->job);
	job_share_monitors(ctx->job);
	job_check_boot(f, root, ctx->job);
	job_check_order(f, root, ctx);
	job_check_bench_kernels(f, root, ctx->job);
	job_check_count(f, ctx->job);
}

static const struct conf_kind job_kind = { "job", job_root };

/* A job with its defaults: one round, alternate order. */
static struct job *
job_new(void)
{
	struct job *job = xcalloc(1, sizeof(*job));

	job->rounds = 1;
	return job;
}

/* The job, or NULL with every error in *cause. */
static struct job *
job_finish(struct conf_loader *ld, struct job *job, char **cause)
{
	if (conf_finish(ld, cause) == 0)
		return job;
	job_free(job);
	return NULL;
}

/* Parses job text already in memory; name is used in error messages. */
struct job *
job_load_string(const char *name, const char *text, size_t len,
    const struct catalog *catalog, const struct inventory *inventory,
    char **cause)
{
	struct conf_loader ld = { 0 };
	struct job_ctx	   ctx = { catalog, inventory, job_new(), false };

	conf_load_text(&ld, name, text, len, &job_kind, &ctx);
	return job_finish(&ld, ctx.job, cause);
}

/* Parses and validates a job file. */
struct job *
job_load(const char *path, const struct catalog *catalog,
    const struct inventory *inventory, char **cause)
{
	struct conf_loader ld = { 0 };
	struct job_ctx	   ctx = { catalog, inventory, job_new(), false };

	conf_load_file(&ld, path, &job_kind, &ctx);
	return job_finish(&ld, ctx.job, cause);
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

/* Whether every measured iteration must produce the metric. */
bool
job_metric_required(const struct job_metric *m)
{
	return !m->optional && strchr(m->name, '*') == NULL;
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
	conf_strv_free(b->argv);
	free(b->parser);
	free(b->parser_args);
	free(b->parser_sample);
	free(b->kernel);
	conf_strv_free(b->probes);
	free(b->probe_method);
	conf_strv_free(b->monitors);
	free(b->adaptive.metric);
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
	conf_strv_free(b->install.build);
	conf_strv_free(b->install.prepare);
	conf_strv_free(b->server.argv);
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
	job_setup_clear(&job->setup);
	conf_strv_free(job->monitors);
	free(job);
}
