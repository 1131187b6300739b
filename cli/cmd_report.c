/*
 * hilab report: one job as plain text ready for a mailing-list post: the
 * machines with their topology, the kernels, the environment, one table
 * per benchmark metric (the numbers of hilab compare), notes, and the
 * command and job file that reproduce it.  Lines stay within 80 columns
 * where the content allows it; the output has no tabs.
 */
#include <getopt.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "jobs/job.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/select.h"

#define REPORT_WIDTH 79

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

/* Prints one machine: model, topology, NUMA, LLC groups, memory. */
static void
report_machine(FILE *fp, const char *name, json_t *f)
{
	const char *llc =
	    json_string_value(json_object_get(f, "topo.llc_groups"));
	const char *mem = json_string_value(json_object_get(f, "mem.total_kb"));
	char	   *s, *a, *b, *c, *d;
	size_t	    groups = 1;

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
	for (a = (char *)llc; a != NULL && *a != '\0'; a++)
		groups += *a == ';';
	s = llc ? xasprintf("%zu (%s)", groups, llc) : xstrdup("unknown");
	report_field(fp, 4, "LLC groups", s);
	free(s);
	s = mem ? xasprintf("%.1f GiB", strtod(mem, NULL) / 1048576)
		: xstrdup("unknown");
	report_field(fp, 4, "memory", s);
	free(s);
}

/* Prints the machines of the job, from the facts of their last run. */
static int
report_machines(FILE *fp, sqlite3 *sq, long long job)
{
	static const char sql[] =
	    "SELECT r.machine, COALESCE((SELECT "
	    "r2.facts FROM runs r2 WHERE r2.job = ?1 AND r2.machine = "
	    "r.machine AND r2.facts IS NOT NULL ORDER BY r2.id DESC LIMIT 1), "
	    "m.facts) FROM runs r LEFT JOIN machines m ON m.name = r.machine "
	    "WHERE r.job = ?1 GROUP BY r.machine ORDER BY MIN(r.id)";
	sqlite3_stmt *st;
	json_t	     *f;
	int	      rc;

	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	fputs("Machines\n", fp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		f = report_facts((const char *)sqlite3_column_text(st, 1));
		report_machine(fp, (const char *)sqlite3_column_text(st, 0), f);
		json_decref(f);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Describes where a kernel comes from, from kernels.spec (caller frees). */
static char *
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

/* Prints one kernel row of the kernels query. */
static void
report_kernel(FILE *fp, sqlite3_stmt *st)
{
	json_t *f = report_facts((const char *)sqlite3_column_text(st, 5));
	char   *rel = report_fact(f, "kernel.release");
	char   *ver = report_fact(f, "kernel.version");
	char   *cmd = report_fact(f, "kernel.cmdline");
	char   *src =
	    report_kernel_source((const char *)sqlite3_column_text(st, 4));
	const char *asked = (const char *)sqlite3_column_text(st, 3);

	fprintf(fp, "  %s\n", sqlite3_column_text(st, 0));
	report_field(fp, 4, "release",
	    sqlite3_column_text(st, 1)
		? (const char *)sqlite3_column_text(st, 1)
		: rel);
	report_field(fp, 4, "version",
	    sqlite3_column_text(st, 2)
		? (const char *)sqlite3_column_text(st, 2)
		: ver);
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
report_kernels(FILE *fp, sqlite3 *sq, long long job)
{
	static const char sql[] =
	    "SELECT k.name, k.release, k.version, "
	    "k.cmdline, k.spec, (SELECT r2.facts FROM runs r2 WHERE r2.job = "
	    "?1 AND r2.kernel = k.id AND r2.facts IS NOT NULL ORDER BY r2.id "
	    "LIMIT 1) FROM kernels k JOIN runs r ON r.kernel = k.id "
	    "WHERE r.job = ?1 GROUP BY k.id ORDER BY MIN(r.id)";
	sqlite3_stmt *st;
	int	      rc;

	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	fputs("Kernels\n", fp);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		report_kernel(fp, st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
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
report_environment(FILE *fp, sqlite3 *sq, long long job)
{
	static const char sql[] =
	    "SELECT r.machine, k.name, r.facts, "
	    "MIN(r.id) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE "
	    "r.job = ?1 AND r.facts IS NOT NULL GROUP BY r.machine, r.kernel "
	    "ORDER BY 4";
	struct report_env *e = NULL;
	sqlite3_stmt	  *st;
	json_t		  *f;
	size_t		   i, j, n = 0;
	int		   rc;

	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, job);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		e = xreallocarray(e, n + 1, sizeof *e);
		e[n].name = xasprintf("%s, %s", sqlite3_column_text(st, 0),
		    sqlite3_column_text(st, 1));
		f = report_facts((const char *)sqlite3_column_text(st, 2));
		report_env_fill(&e[n++], f);
		json_decref(f);
	}
	sqlite3_finalize(st);
	report_env_print(fp, e, n);
	for (i = 0; i < n; i++) {
		for (j = 0; j < REPORT_NENV; j++)
			free(e[i].values[j]);
		free(e[i].name);
	}
	free(e);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Prints one table per benchmark metric in the chosen style. */
static int
report_results(FILE *fp, sqlite3 *sq, long long job, const char *style,
    char **cause)
{
	struct select_query  q = { .jobs = &job,
		 .njobs = 1,
		 .rows = SELECT_ROWS_AUTO };
	struct select_result r;
	size_t		     i;
	int		     rc = 0;

	if (select_tables(sq, &q, &r, cause) == -1)
		return -1;
	fprintf(fp, "Results (columns: %ss)\n", select_by_name(r.by));
	if (r.n == 0)
		fputs("  no samples yet\n", fp);
	for (i = 0; i < r.n && rc == 0; i++) {
		fputc('\n', fp);
		rc = render_print(r.v[i].table, style, fp, cause);
	}
	select_result_clear(&r);
	return rc;
}

/* Prints the state of the job's runs and the first failures. */
static int
report_notes(FILE *fp, sqlite3 *sq, const struct db_job *j)
{
	static const char sql[] =
	    "SELECT r.id, r.machine, k.name, "
	    "r.benchmark, r.params, COALESCE(r.error, '') FROM runs r JOIN "
	    "kernels k ON k.id = r.kernel WHERE r.job = ?1 AND r.state = "
	    "'failed' ORDER BY r.id LIMIT 5";
	sqlite3_stmt *st;
	char	     *s;
	int	      rc, i, total = 0;

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
	if (sqlite3_prepare_v2(sq, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, j->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s = xasprintf("%s, %s, %s %s: %s", sqlite3_column_text(st, 1),
		    sqlite3_column_text(st, 2), sqlite3_column_text(st, 3),
		    sqlite3_column_text(st, 4), sqlite3_column_text(st, 5));
		report_field(fp, 2, "failed run", s);
		free(s);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
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

/* Writes text to stdout with every tab expanded to spaces. */
static void
report_untab(const char *text)
{
	size_t col = 0;

	for (; *text != '\0'; text++) {
		if (*text == '\t') {
			do
				putchar(' ');
			while (++col % 8 != 0);
			continue;
		}
		putchar(*text);
		col = *text == '\n' ? 0 : col + 1;
	}
}

/* Prints every section of the report into fp. */
static int
report_write(FILE *fp, sqlite3 *sq, const struct db_job *j, const char *style,
    char **cause)
{
	fprintf(fp, "hilab report: job %lld \"%s\"\n\n", (long long)j->id,
	    j->name);
	if (report_machines(fp, sq, j->id) == -1 ||
	    (fputc('\n', fp), report_kernels(fp, sq, j->id)) == -1 ||
	    (fputc('\n', fp), report_environment(fp, sq, j->id)) == -1) {
		*cause = xasprintf("job %lld: %s", (long long)j->id,
		    sqlite3_errmsg(sq));
		return -1;
	}
	fputc('\n', fp);
	if (report_results(fp, sq, j->id, style, cause) == -1)
		return -1;
	fputc('\n', fp);
	if (report_notes(fp, sq, j) == -1) {
		*cause = xasprintf("job %lld: %s", (long long)j->id,
		    sqlite3_errmsg(sq));
		return -1;
	}
	fputc('\n', fp);
	return report_reproduce(fp, j, cause);
}

/* Parses the report options. */
static int
report_args(int argc, char **argv, long long *job, const char **style)
{
	static const struct option longopts[] = {
		{ "style", required_argument, NULL, 's' }, { NULL, 0, NULL, 0 }
	};
	static const char *styles[] = { "amd", "change", "pct", "meansd",
		"markdown", NULL };
	int		   c, i;

	optind = 0; /* reinitialize GNU getopt: options may follow JOB */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 's')
			return CLI_EXIT_USAGE;
		for (i = 0; styles[i] != NULL && strcmp(styles[i], optarg); i++)
			;
		if (styles[i] == NULL)
			return cli_usage_error(
			    "--style: \"%s\" is not amd, "
			    "change, pct, meansd or markdown",
			    optarg);
		*style = optarg;
	}
	if (argc - optind != 1 || (*job = cli_job_id(argv[optind])) == -1)
		return cli_usage_error("usage: hilab report JOB [--style "
				       "amd|change|pct|meansd|markdown]");
	return 0;
}

int
cmd_report(const struct cli_options *o, int argc, char **argv)
{
	const char    *style = "amd";
	struct db_job *j = NULL;
	char	      *cause = NULL, *text = NULL;
	size_t	       len = 0;
	long long      id;
	struct db     *db;
	FILE	      *mem;
	int	       rc;

	if ((rc = report_args(argc, argv, &id, &style)) != 0)
		return rc;
	if ((db = cli_db_open(o, false)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if ((j = db_job_get(db, id, &cause)) == NULL) {
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
		goto out;
	}
	if ((mem = open_memstream(&text, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	rc = report_write(mem, db_sqlite(db), j, style, &cause);
	fclose(mem);
	if (rc == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else
		report_untab(text);
	if (rc == 0 && fflush(stdout) != 0)
		rc = cli_error(CLI_EXIT_FAIL, "report: write: output error");
out:
	free(text);
	free(cause);
	db_job_free(j);
	db_close(db);
	return rc;
}
