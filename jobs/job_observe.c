/*
 * What a benchmark of a job watches in the kernel beside its own output:
 * "probes: [{function: select_task_rq_fair}]" (per-call times of kernel
 * functions; "method: kprobe" or "method: function_graph" picks how, the
 * same for every probe of the benchmark, else the agent picks what the
 * kernel offers) and "monitors: [schedstat, vmstat]" (counter deltas per
 * iteration), and the metrics their samples are declared as.
 */
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_yaml.h"

#define JOB_MAX_PROBES 16
#define JOB_FN_MAX     128

/* How the samples of probes and monitors are declared (observe.h). */
static const struct {
	const char *name, *unit, *direction, *statistic;
} job_observe_metrics[] = {
	{ "probe.*.ns_per_call", "ns", "lower", "amean" },
	{ "probe.*.net_ns", "ns", "lower", "amean" },
	{ "probe.*.net_p50_ns", "ns", "lower", "median" },
	{ "probe.*.p50_ns", "ns", "lower", "median" },
	{ "probe.*.p99_ns", "ns", "lower", "median" },
	{ "probe.*.calls", "calls", "lower", "amean" },
	{ "probe.*.cpu_pct", "%", "lower", "amean" },
	{ "probe.calibration.*", "ns", "lower", "median" },
	{ "probe.lost", "events", "lower", "amean" },
	{ "probe.method.*", "flag", "lower", "amean" },
	/* Before "mon.*": the first pattern that matches declares. */
	{ "mon.schedstat.*_ns", "ns", "lower", "amean" },
	{ "mon.cpufreq.*", "kHz", "higher", "amean" },
	{ "mon.*", "events", "lower", "amean" },
};
#define JOB_NOBSERVE \
	(sizeof job_observe_metrics / sizeof job_observe_metrics[0])

/* Whether s is a kernel symbol: letters, digits, '_' and '.'. */
static bool
job_symbol_ok(const char *s)
{
	size_t n = strspn(s,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");

	return n > 0 && n < JOB_FN_MAX && s[n] == '\0' && s[0] != '.';
}

/* The keys of one probe. */
struct job_probe {
	char *function;
	char *method; /* NULL: the agent's choice */
};

static const struct conf_key job_probe_keys[] = {
	{ .name = "function",
	    .parse = conf_parse_str,
	    .off = offsetof(struct job_probe, function),
	    .flags = CONF_REQUIRED },
	{ .name = "method",
	    .parse = conf_parse_str,
	    .off = offsetof(struct job_probe, method) },
	{ .name = NULL },
};

/*
 * Checks a probe's method: one of proto_probe_methods, the same as the
 * benchmark's other probes; the first one named is kept in *method.
 */
static void
job_probe_method(struct conf_file *f, yaml_node_t *item, char *m, char **method)
{
	if (!proto_probe_method_known(m))
		conf_error_key(f, item, "method",
		    "probe method \"%s\": unknown (function_graph, kprobe)", m);
	else if (*method == NULL)
		*method = xstrdup(m);
	else if (strcmp(*method, m) != 0)
		conf_error_key(f, item, "method",
		    "probe method \"%s\": the benchmark's probes use \"%s\"; "
		    "one method per benchmark",
		    m, *method);
	free(m);
}

/* Reads one probe into v[*n] and checks its function's name. */
static void
job_probe(struct conf_file *f, yaml_node_t *item, char **v, size_t *n,
    char **method)
{
	struct job_probe p = { 0 };
	size_t		 i;

	conf_mapping(f, item, job_probe_keys, &p, "probes");
	if (p.method != NULL)
		job_probe_method(f, item, p.method, method);
	if (p.function == NULL)
		return;
	if (!job_symbol_ok(p.function))
		conf_error_key(f, item, "function",
		    "probe \"%s\": not a kernel function name", p.function);
	for (i = 0; i < *n; i++)
		if (strcmp(v[i], p.function) == 0)
			conf_error_key(f, item, "function",
			    "probe \"%s\": listed twice", p.function);
	v[(*n)++] = p.function;
}

/* "probes": a sequence of {function: NAME, method: METHOD}. */
void
job_read_probes(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	struct job_benchmark *b = dst;
	char		    **fns;
	yaml_node_t	     *item;
	size_t		      i, n = 0;

	if (conf_seq(f, k, v, "a sequence such as [{function: schedule}]") ==
	    NULL)
		return;
	if (conf_seq_len(v) > JOB_MAX_PROBES) {
		conf_error(f, v, "\"probes\": at most %d functions",
		    JOB_MAX_PROBES);
		return;
	}
	fns = xcalloc(conf_seq_len(v) + 1, sizeof *fns);
	for (i = 0; i < conf_seq_len(v); i++) {
		item = conf_seq_item(f, v, i);
		if (item->type == YAML_MAPPING_NODE)
			job_probe(f, item, fns, &n, &b->probe_method);
		else
			conf_expect(f, k, item, "a mapping {function: NAME}");
	}
	conf_strv_free(b->probes);
	b->probes = fns;
}

/* "monitors": a sequence of monitor names. */
void
job_read_monitors(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	char ***out = dst;
	size_t	i, j;

	conf_parse_strv(f, k, v, dst);
	for (i = 0; *out != NULL && (*out)[i] != NULL; i++) {
		if (!proto_monitor_known((*out)[i]))
			conf_error(f, conf_seq_item(f, v, i),
			    "monitor \"%s\": unknown monitor (schedstat, "
			    "vmstat, interrupts, softirqs, cpufreq, "
			    "perf-stat)",
			    (*out)[i]);
		for (j = 0; j < i; j++)
			if (strcmp((*out)[j], (*out)[i]) == 0)
				conf_error(f, conf_seq_item(f, v, i),
				    "monitor \"%s\": listed twice", (*out)[i]);
	}
}

/* Whether b declares a metric of that name. */
static bool
job_declares(const struct job_benchmark *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nmetrics; i++)
		if (strcmp(b->metrics[i].name, name) == 0)
			return true;
	return false;
}

/* Declares the metrics of b's probe and monitor samples, once. */
void
job_observe_declare(struct job_benchmark *b)
{
	struct job_metric *m;
	size_t		   i;
	bool		   probes = b->probes != NULL && b->probes[0] != NULL;
	bool monitors = b->monitors != NULL && b->monitors[0] != NULL;

	for (i = 0; i < JOB_NOBSERVE; i++) {
		if (job_declares(b, job_observe_metrics[i].name) ||
		    (strncmp(job_observe_metrics[i].name, "mon.", 4) == 0
			    ? !monitors
			    : !probes))
			continue;
		b->metrics = xreallocarray(b->metrics, b->nmetrics + 1,
		    sizeof *b->metrics);
		m = &b->metrics[b->nmetrics++];
		m->name = xstrdup(job_observe_metrics[i].name);
		m->unit = xstrdup(job_observe_metrics[i].unit);
		m->direction = xstrdup(job_observe_metrics[i].direction);
		m->statistic = xstrdup(job_observe_metrics[i].statistic);
		m->label = NULL;
		m->optional = true;
	}
}
