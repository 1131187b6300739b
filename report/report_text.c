/*
 * The text of hilab report (report/report_text.h): one job as plain text
 * ready for a mailing-list post: the machines with their topology, the
 * kernels, the environment, one table per benchmark metric (the numbers
 * of hilab compare), notes, and the command and job file that reproduce
 * it.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "jobs/job.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/report_text.h"
#include "report/select.h"

#define REPORT_WIDTH	   79
/* How many failed runs the notes name. */
#define REPORT_FAILED_RUNS 5

/* The facts shown in the environment block, with their labels. */
static const char *report_env_keys[][2] = {
	{ "cpufreq.governor", "governor" },
	{ "cpufreq.driver", "cpufreq driver" },
	{ "cpufreq.boost", "boost" },
	{ "intel_pstate.no_turbo", "no_turbo" },
	{ "smt.active", "SMT active" },
	{ "smt.control", "SMT control" },
	{ "thp.enabled", "THP" },
	{ "cpuidle.driver", "cpuidle" },
	{ "clocksource", "clocksource" },
	{ "mitigations", "mitigations" },
	{ "kernel.cmdline", "cmdline" },
};
#define REPORT_NENV (sizeof report_env_keys / sizeof report_env_keys[0])

/* The environment of one (machine, kernel). */
struct report_env {
	char *name; /* "machine, kernel" */
	char *values[REPORT_NENV];
};

/* Prints "label: value" at indent, wrapping words under the value. */
static void
report_field(FILE *fp, int indent, const char *label, const char *value)
{
	int	    col, start, len;
	const char *p = value != NULL ? value : "absent";

	col = fprintf(fp, "%*s%s: ", indent, "", label);
	start = col;
	while (*(p += strspn(p, " ")) != '\0') {
		len = (int)strcspn(p, " ");
		if (col > start && col + 1 + len > REPORT_WIDTH) {
			fprintf(fp, "\n%*s", start, "");
			col = start;
		} else if (col > start) {
			fputc(' ', fp);
			col++;
		}
		fwrite(p, 1, (size_t)len, fp);
		col += len;
		p += len;
	}
	fputc('\n', fp);
}

/* A fact of a JSON facts object, or NULL when absent (caller frees). */
static char *
report_fact(json_t *facts, const char *key)
{
	json_t *v = json_object_get(facts, key);

	return json_is_string(v) ? xstrdup(json_string_value(v)) : NULL;
}

/* Loads a facts JSON text; an empty object when there is none. */
static json_t *
report_facts(const char *text)
{
	json_t *o = text != NULL ? json_loads(text, 0, NULL) : NULL;

	if (!json_is_object(o)) {
		json_decref(o);
		o = json_object();
	}
	return o;
}

/* "1 socket", "2 sockets" from a fact ("? sockets" when absent). */
static char *
report_count(json_t *f, const char *key, const char *what)
{
	const char *v = json_string_value(json_object_get(f, key));

	if (v == NULL)
		return xasprintf("? %ss", what);
	return xasprintf("%s %s%s", v, what, strcmp(v, "1") ? "s" : "");
}

/*
 * Prints a machine's LLC groups, those its machine file declared when the
 * kernel showed others, and an arm64 machine's clusters of cores (x86
 * kernels make one of every core's threads: nothing to read there).
 */
static void
report_groups(FILE *fp, json_t *f)
{
	const char *llc =
	    json_string_value(json_object_get(f, "topo.llc_groups"));
	const char *arch;
	char	   *s, *a;
	size_t	    groups = 1;

	for (s = (char *)llc; s != NULL && *s != '\0'; s++)
		groups += *s == ';';
	s = llc ? xasprintf("%zu (%s)", groups, llc) : xstrdup("unknown");
	report_field(fp, 4, "LLC groups", s);
	free(s);
	if ((a = report_fact(f, "topo.llc_groups_expected")) != NULL) {
		s = xasprintf("%s, not as seen", a);
		report_field(fp, 4, "machine file says", s);
		free(s);
		free(a);
	}
	arch = json_string_value(json_object_get(f, "arch"));
	a = arch != NULL && strcmp(arch, "aarch64") == 0
	    ? report_fact(f, "topo.cluster_groups")
	    : NULL;
	if (a != NULL) {
		report_field(fp, 4, "clusters", a);
		free(a);
	}
}

/* Prints one machine: model, topology, NUMA, cache groups, memory. */
static void
report_machine(FILE *fp, const char *name, json_t *f)
{
	const char *mem = json_string_value(json_object_get(f, "mem.total_kb"));
	char	   *s, *a, *b, *c, *d;

	s = report_fact(f, "cpu.model");
	a = report_fact(f, "arch");
	fprintf(fp, "  %s: %s%s%s%s\n", name, s ? s : "unknown CPU",
	    a ? " (" : "", a ? a : "", a ? ")" : "");
	free(s);
	free(a);
	a = report_count(f, "topo.sockets", "socket");
	b = report_count(f, "topo.cores_per_socket", "core");
	c = report_count(f, "topo.threads_per_core", "thread");
	d = report_fact(f, "cpu.online_list");
	s = xasprintf("%s x %s x %s, CPUs %s online", a, b, c, d ? d : "?");
	report_field(fp, 4, "topology", s);
	free(a), free(b), free(c), free(d), free(s);
	a = report_count(f, "numa.nodes", "node");
	d = report_fact(f, "numa.node_list");
	s = xasprintf("%s (%s)", a, d ? d : "?");
	report_field(fp, 4, "NUMA", s);
	free(a), free(d), free(s);
	report_groups(fp, f);
	s = mem ? xasprintf("%.1f GiB", strtod(mem, NULL) / 1048576)
		: xstrdup("unknown");
	report_field(fp, 4, "memory", s);
	free(s);
}

/* Prints the machines of the job, from the facts of their last run. */
static int
report_machines(FILE *fp, struct db *db, int64_t job, char **cause)
{
	struct db_job_facts *v;
	json_t		    *f;
	size_t		     n, i;

	if (db_job_machines(db, job, &v, &n, cause) == -1)
		return -1;
	fputs("Machines\n", fp);
	for (i = 0; i < n; i++) {
		f = report_facts(v[i].facts);
		report_machine(fp, v[i].machine, f);
		json_decref(f);
	}
	db_job_facts_free(v, n);
	return 0;
}

/* Describes where a kernel comes from, from kernels.spec; see .h. */
char *
report_kernel_source(const char *spec)
{
	json_t	   *o = report_facts(spec);
	const char *kind = json_string_value(json_object_get(o, "kind"));
	const char *git = json_string_value(json_object_get(o, "git"));
	const char *base = json_string_value(json_object_get(o, "base"));
	const char *series = json_string_value(json_object_get(o, "series"));
	const char *image = json_string_value(json_object_get(o, "image"));
	json_int_t  n = json_integer_value(json_object_get(o, "patches"));
	char	   *s, *p;

	if (kind != NULL && strcmp(kind, "build") == 0) {
		p = series == NULL ? xstrdup("")
		    : n < 0	   ? xasprintf(" + every patch of %s", series)
		    : n == 0	   ? xasprintf(" + no patch of %s", series)
				   : xasprintf(" + patches 1-%lld of %s",
					 (long long)n, series);
		s = xasprintf("built from %s at %s%s", git ? git : "?",
		    base ? base : "?", p);
		free(p);
	} else if (kind != NULL && strcmp(kind, "image") == 0)
		s = xasprintf("image %s", image ? image : "?");
	else
		s = xstrdup("the kernel the machine runs");
	json_decref(o);
	return s;
}

/* Prints one kernel of the job. */
static void
report_kernel(FILE *fp, const struct db_job_kernel *k)
{
	json_t	   *f = report_facts(k->facts);
	char	   *rel = report_fact(f, "kernel.release");
	char	   *ver = report_fact(f, "kernel.version");
	char	   *cmd = report_fact(f, "kernel.cmdline");
	char	   *src = report_kernel_source(k->kernel.spec);
	const char *asked = k->kernel.cmdline;

	fprintf(fp, "  %s\n", k->kernel.name);
	report_field(fp, 4, "release",
	    k->kernel.release != NULL ? k->kernel.release : rel);
	report_field(fp, 4, "version",
	    k->kernel.version != NULL ? k->kernel.version : ver);
	report_field(fp, 4, "source", src);
	if (asked != NULL && *asked != '\0')
		report_field(fp, 4, "cmdline", asked);
	else
		report_field(fp, 4, "cmdline",
		    cmd ? "as booted (see "
			  "Environment)"
			: NULL);
	free(rel), free(ver), free(cmd), free(src);
	json_decref(f);
}

/* Prints the kernels of the job in the order they first ran. */
static int
report_kernels(FILE *fp, struct db *db, int64_t job, char **cause)
{
	struct db_job_kernel *v;
	size_t		      n, i;

	if (db_job_kernels(db, job, &v, &n, cause) == -1)
		return -1;
	fputs("Kernels\n", fp);
	for (i = 0; i < n; i++)
		report_kernel(fp, &v[i]);
	db_job_kernels_free(v, n);
	return 0;
}

/*
 * Mitigations without the "Not affected" entries, which are counted
 * (caller frees).  Entries are ';'-separated; "; " stays inside one.
 */
static char *
report_mitigations(const char *v)
{
	char	   *out = xstrdup(""), *t;
	const char *p = v, *q;
	size_t	    len, skipped = 0;

	while (*p != '\0') {
		for (len = 0;
		     p[len] != '\0' && (p[len] != ';' || p[len + 1] == ' ');
		     len++)
			;
		q = memchr(p, '=', len);
		if (q != NULL && (size_t)(p + len - q - 1) == 12 &&
		    strncmp(q + 1, "Not affected", 12) == 0)
			skipped++;
		else if (len > 0) {
			t = xasprintf("%s%s%.*s", out, *out ? "; " : "",
			    (int)len, p);
			free(out);
			out = t;
		}
		p += len + (p[len] != '\0');
	}
	t = xasprintf("%s%s(%zu not affected)", out, *out ? "; " : "", skipped);
	free(out);
	return t;
}

/* Fills an environment from facts: the shown keys, normalized. */
static void
report_env_fill(struct report_env *e, json_t *f)
{
	char  *v, *p;
	size_t i;

	for (i = 0; i < REPORT_NENV; i++) {
		v = report_fact(f, report_env_keys[i][0]);
		if (v != NULL &&
		    strcmp(report_env_keys[i][0], "mitigations") == 0) {
			p = report_mitigations(v);
			free(v);
			v = p;
		}
		if (v != NULL &&
		    strcmp(report_env_keys[i][0], "kernel.cmdline") == 0 &&
		    strncmp(v, "BOOT_IMAGE=", 11) == 0) {
			p = xstrdup(
			    v + strcspn(v, " ") + (v[strcspn(v, " ")] != '\0'));
			free(v);
			v = p;
		}
		e->values[i] = v;
	}
}

/* Returns 1 if two environments show the same values. */
static int
report_env_same(const struct report_env *a, const struct report_env *b)
{
	size_t i;

	for (i = 0; i < REPORT_NENV; i++) {
		if ((a->values[i] == NULL) != (b->values[i] == NULL) ||
		    (a->values[i] != NULL &&
			strcmp(a->values[i], b->values[i]) != 0))
			return 0;
	}
	return 1;
}

/* Prints the environment once if identical, else per machine, kernel. */
static void
report_env_print(FILE *fp, const struct report_env *e, size_t n)
{
	size_t i, j;
	int    same = 1;

	for (i = 1; i < n && same; i++)
		same = report_env_same(&e[0], &e[i]);
	fprintf(fp, "Environment%s\n",
	    n == 0     ? ": no run has started"
		: same ? " (the same on every machine and kernel)"
		       : "");
	for (i = 0; i < n; i++) {
		if (!same)
			fprintf(fp, "  %s\n", e[i].name);
		for (j = 0; j < REPORT_NENV; j++)
			report_field(fp, same ? 2 : 4, report_env_keys[j][1],
			    e[i].values[j]);
		if (same)
			break;
	}
}

/* Prints the environment block from the first run of each pair. */
static int
report_environment(FILE *fp, struct db *db, int64_t job, char **cause)
{
	struct db_job_facts *v;
	struct report_env   *e;
	json_t		    *f;
	size_t		     i, j, n;

	if (db_job_environments(db, job, &v, &n, cause) == -1)
		return -1;
	e = xcalloc(n + 1, sizeof *e);
	for (i = 0; i < n; i++) {
		e[i].name = xasprintf("%s, %s", v[i].machine, v[i].kernel);
		f = report_facts(v[i].facts);
		report_env_fill(&e[i], f);
		json_decref(f);
	}
	db_job_facts_free(v, n);
	report_env_print(fp, e, n);
	for (i = 0; i < n; i++) {
		for (j = 0; j < REPORT_NENV; j++)
			free(e[i].values[j]);
		free(e[i].name);
	}
	free(e);
	return 0;
}

/* Prints one table per benchmark metric in the chosen style. */
static int
report_results(FILE *fp, struct db *db, int64_t job, const char *style,
    char **cause)
{
	long long	     id = job;
	struct select_query  q = { .jobs = &id,
		 .njobs = 1,
		 .rows = SELECT_ROWS_AUTO,
		 .monitors = true };
	struct select_result r;
	size_t		     i;
	int		     rc = 0;

	if (select_tables(db, &q, &r, cause) < 0)
		return -1;
	fprintf(fp, "Results (columns: %ss)\n", select_by_name(r.by));
	if (r.n == 0)
		fputs("  no samples yet\n", fp);
	for (i = 0; i < r.n && rc == 0; i++) {
		fputc('\n', fp);
		rc = render_print(r.v[i].table, style, fp, cause);
	}
	if (rc == 0)
		report_observed_print(fp, &r);
	select_result_clear(&r);
	return rc;
}

/* Prints one failed run of the job with its kernel's name. */
static int
report_failed(FILE *fp, struct db *db, const struct db_run *r, char **cause)
{
	struct db_kernel *k;
	char		 *s;

	if ((k = db_kernel_get(db, r->kernel, cause)) == NULL)
		return -1;
	s = xasprintf("%s, %s, %s %s: %s", r->machine, k->name, r->benchmark,
	    r->params, r->error != NULL ? r->error : "");
	report_field(fp, 2, "failed run", s);
	free(s);
	db_kernel_free(k);
	return 0;
}

/* Prints the state of the job's runs and the first failures. */
static int
report_notes(FILE *fp, struct db *db, const struct db_job *j, char **cause)
{
	struct db_run *v;
	char	      *s;
	size_t	       n, k;
	int	       rc = 0, i, total = 0;

	for (i = 0; i < DB_NSTATES; i++)
		total += j->runs[i];
	fputs("Notes\n", fp);
	s = xasprintf("%s; %d runs: %d done, %d failed, %d cancelled, %d "
		      "queued, %d running",
	    db_state_name(j->state), total, j->runs[DB_DONE],
	    j->runs[DB_FAILED], j->runs[DB_CANCELLED], j->runs[DB_QUEUED],
	    j->runs[DB_RUNNING]);
	report_field(fp, 2, "job", s);
	free(s);
	if (j->error != NULL)
		report_field(fp, 2, "error", j->error);
	if (db_run_list_failed(db, j->id, REPORT_FAILED_RUNS, &v, &n, cause) ==
	    -1)
		return -1;
	for (k = 0; k < n && rc == 0; k++)
		rc = report_failed(fp, db, &v[k], cause);
	db_run_list_free(v, n);
	return rc;
}

/* Prints the command and the normalized job file that reproduce the job. */
static int
report_reproduce(FILE *fp, const struct db_job *j, char **cause)
{
	struct job *job;
	const char *file = j->file ? j->file : "job.yaml", *base;
	char	   *text = NULL, *p, *nl;
	size_t	    len = 0;
	FILE	   *mem;

	if ((job = job_from_json(j->spec, cause)) == NULL)
		return -1;
	base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
	if ((mem = open_memstream(&text, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	job_print(mem, job);
	fclose(mem);
	job_free(job);
	fprintf(fp, "Reproduce\n  hilab submit %s\n\n  where %s is:\n\n", base,
	    base);
	for (p = text; *p != '\0'; p = nl + (*nl != '\0')) {
		nl = p + strcspn(p, "\n");
		fprintf(fp, "%s%.*s\n", nl > p ? "    " : "", (int)(nl - p), p);
	}
	free(text);
	return 0;
}

/* Prints every section of the report of job j; see report_text.h. */
int
report_text_print(FILE *fp, struct db *db, const struct db_job *j,
    const char *style, char **cause)
{
	fprintf(fp, "hilab report: job %lld \"%s\"\n\n", (long long)j->id,
	    j->name);
	if (report_machines(fp, db, j->id, cause) == -1 ||
	    (fputc('\n', fp), report_kernels(fp, db, j->id, cause)) == -1 ||
	    (fputc('\n', fp), report_environment(fp, db, j->id, cause)) == -1)
		return -1;
	fputc('\n', fp);
	if (report_results(fp, db, j->id, style, cause) == -1)
		return -1;
	fputc('\n', fp);
	if (report_notes(fp, db, j, cause) == -1)
		return -1;
	fputc('\n', fp);
	return report_reproduce(fp, j, cause);
}
