/*
 * The normalized job as YAML, itself a valid job file, through the
 * configuration engine's emitter (common/conf_emit.h): `hilab jobs check`
 * and the job a report reproduces.  What a catalog entry resolved to is
 * shown as comments.
 */
#include <stdio.h>
#include <stdlib.h>

#include "benchmarks/catalog.h"
#include "common/conf_emit.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "jobs/job.h"

/* Emits a kernel's patch list: "patches: [1, 2]". */
static void
job_print_patches(struct conf_emit *e, const struct job_kernel *k)
{
	size_t i;

	conf_emit_key(e, "patches");
	conf_emit_seq(e, true);
	for (i = 0; i < k->npatches; i++)
		conf_emit_int(e, NULL, k->patches[i]);
	conf_emit_end(e);
}

/* Emits one kernel as a sequence item. */
static void
job_print_kernel(struct conf_emit *e, const struct job_kernel *k)
{
	if (k->kind == JOB_KERNEL_RUNNING) {
		conf_emit_str(e, NULL, JOB_KERNEL_RUNNING_NAME);
		return;
	}
	conf_emit_map(e, false);
	conf_emit_str(e, "name", k->name);
	conf_emit_str(e, "image", k->image);
	conf_emit_str(e, "initrd", k->initrd);
	conf_emit_str(e, "dtb", k->dtb);
	conf_emit_str(e, "modules", k->modules);
	conf_emit_str(e, "git", k->git);
	conf_emit_str(e, "base", k->base);
	conf_emit_str(e, "series", k->series);
	if (k->series != NULL)
		job_print_patches(e, k);
	conf_emit_str(e, "config", k->config);
	if (k->nfragments > 0)
		conf_emit_strv(e, "fragments", k->fragments, k->nfragments);
	conf_emit_str(e, "arch", k->arch);
	conf_emit_str(e, "cross_compile", k->cross_compile);
	conf_emit_str(e, "cmdline", k->cmdline);
	conf_emit_end(e);
}

/* Emits the parameters: a value, or a flow list for a sweep. */
static void
job_print_params(struct conf_emit *e, const struct job_benchmark *b)
{
	size_t i;

	if (b->nparams == 0)
		return;
	conf_emit_key(e, "params");
	conf_emit_map(e, false);
	for (i = 0; i < b->nparams; i++)
		if (b->params[i].nvalues == 1)
			conf_emit_str(e, b->params[i].key,
			    b->params[i].values[0]);
		else
			conf_emit_strv(e, b->params[i].key, b->params[i].values,
			    b->params[i].nvalues);
	conf_emit_end(e);
}

/* The number of strings of a NULL-terminated vector (NULL: 0). */
static size_t
job_print_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

/* Emits how the tool is installed and the server it needs, if said. */
static void
job_print_setup(struct conf_emit *e, const struct job_benchmark *b)
{
	size_t n;

	if (b->install.package != NULL || b->install.source != NULL) {
		conf_emit_key(e, "install");
		conf_emit_map(e, true);
		if (b->install.package != NULL)
			conf_emit_str(e, "package", b->install.package);
		else
			conf_emit_str(e, "source", b->install.source);
		if ((n = job_print_len(b->install.build)) > 0)
			conf_emit_strv(e, "build", b->install.build, n);
		if ((n = job_print_len(b->install.prepare)) > 0)
			conf_emit_strv(e, "prepare", b->install.prepare, n);
		conf_emit_end(e);
	}
	if (b->server.argv == NULL)
		return;
	conf_emit_key(e, "server");
	conf_emit_map(e, true);
	conf_emit_strv(e, "command", b->server.argv,
	    job_print_len(b->server.argv));
	if (b->server.port > 0)
		conf_emit_int(e, "port", b->server.port);
	conf_emit_end(e);
}

/* Emits the command, parser, metrics and setup of a benchmark. */
static void
job_print_resolved(struct conf_emit *e, const struct job_benchmark *b)
{
	const struct job_metric *m;
	size_t			 i;

	conf_emit_strv(e, "command", b->argv, job_print_len(b->argv));
	conf_emit_str(e, "parser", b->parser);
	conf_emit_str(e, "parser_args", b->parser_args);
	conf_emit_str(e, "parser_sample", b->parser_sample);
	conf_emit_key(e, "metrics");
	conf_emit_seq(e, false);
	for (i = 0; i < b->nmetrics; i++) {
		m = &b->metrics[i];
		conf_emit_map(e, true);
		conf_emit_str(e, "name", m->name);
		conf_emit_str(e, "unit", m->unit);
		conf_emit_str(e, "direction", m->direction);
		conf_emit_str(e, "statistic", m->statistic);
		conf_emit_str(e, "label", m->label);
		if (m->optional)
			conf_emit_bool(e, "optional", true);
		conf_emit_end(e);
	}
	conf_emit_end(e);
	job_print_setup(e, b);
}

/*
 * Emits what a catalog entry resolved to as comment lines: the stored job
 * carries it, but a job file names the entry and takes it from the catalog.
 */
static void
job_print_catalog(struct conf_emit *e, const struct job_benchmark *b)
{
	struct conf_emit *sub;
	char		 *text = NULL, *comment;
	size_t		  len = 0;
	FILE		 *mem;

	if ((mem = open_memstream(&text, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	sub = conf_emit_open(mem);
	conf_emit_map(sub, false);
	job_print_resolved(sub, b);
	conf_emit_end(sub);
	conf_emit_close(sub);
	fclose(mem);
	if (len > 0 && text[len - 1] == '\n')
		text[len - 1] = '\0';
	comment = xasprintf("from the catalog:\n%s", text);
	conf_emit_comment(e, comment);
	free(comment);
	free(text);
}

/* Emits "iterations": a count, or {min, max, precision, metric}. */
static void
job_print_iterations(struct conf_emit *e, const struct job_benchmark *b)
{
	const struct job_adapt *a = &b->adaptive;
	struct catalog_adapt ca = { a->min, a->max, a->precision, a->metric };

	if (b->iterations != -1 || a->precision > 0)
		catalog_emit_iterations(e, b->iterations, &ca);
}

/* Emits "probes" and "monitors", when the benchmark has them. */
static void
job_print_observe(struct conf_emit *e, const struct job_benchmark *b)
{
	size_t i;

	if (b->probes != NULL) {
		conf_emit_key(e, "probes");
		conf_emit_seq(e, true);
		for (i = 0; b->probes[i] != NULL; i++) {
			conf_emit_map(e, true);
			conf_emit_str(e, "function", b->probes[i]);
			if (b->probe_method != NULL)
				conf_emit_str(e, "method", b->probe_method);
			conf_emit_end(e);
		}
		conf_emit_end(e);
	}
	if (b->monitors != NULL)
		conf_emit_strv(e, "monitors", b->monitors,
		    conf_strv_len(b->monitors));
}

/* Emits one benchmark as a sequence item. */
static void
job_print_benchmark(struct conf_emit *e, const struct job_benchmark *b)
{
	conf_emit_map(e, false);
	conf_emit_str(e, "name", b->name);
	if (b->kernel != NULL)
		conf_emit_str(e, "kernel", b->kernel);
	job_print_params(e, b);
	job_print_iterations(e, b);
	if (b->warmups != -1)
		conf_emit_int(e, "warmups", b->warmups);
	if (b->timeout_ms != -1)
		conf_emit_duration(e, "timeout", b->timeout_ms);
	job_print_observe(e, b);
	if (b->resolved && b->custom)
		job_print_resolved(e, b);
	else if (b->resolved)
		job_print_catalog(e, b);
	conf_emit_end(e);
}

/* Emits the job's machine setup, when it asks for any. */
static void
job_print_machine_setup(struct conf_emit *e, const struct job *job)
{
	const char *words[JOB_SETUP_NCONTROLS][2];
	size_t	    i, n = job_setup_words(&job->setup, words);

	if (n == 0)
		return;
	conf_emit_key(e, "setup");
	conf_emit_map(e, true);
	for (i = 0; i < n; i++)
		conf_emit_str(e, words[i][0], words[i][1]);
	conf_emit_end(e);
}

/* Prints the normalized job as YAML (itself a valid job file). */
void
job_print(FILE *fp, const struct job *job)
{
	struct conf_emit *e = conf_emit_open(fp);
	size_t		  i;

	conf_emit_map(e, false);
	conf_emit_str(e, "name", job->name);
	conf_emit_str(e, "description", job->description);
	conf_emit_strv(e, "machines", job->machines, job->nmachines);
	conf_emit_key(e, "kernels");
	conf_emit_seq(e, false);
	for (i = 0; i < job->nkernels; i++)
		job_print_kernel(e, &job->kernels[i]);
	conf_emit_end(e);
	conf_emit_str(e, "cmdline", job->cmdline);
	conf_emit_int(e, "rounds", job->rounds);
	conf_emit_str(e, "order", job_order_name(job->order));
	if (job->order == JOB_ORDER_RANDOM)
		conf_emit_int(e, "seed", job->seed);
	job_print_machine_setup(e, job);
	conf_emit_key(e, "benchmarks");
	conf_emit_seq(e, false);
	for (i = 0; i < job->nbenchmarks; i++)
		job_print_benchmark(e, &job->benchmarks[i]);
	conf_emit_end(e);
	conf_emit_end(e);
	conf_emit_close(e);
}
