/*
 * Metric rows: a benchmark's metrics as the rows of one table, labelled
 * from the catalog (cpuset-hotplug) or a job's custom metrics, on a
 * database built through the db API and the planner with the STATS.md
 * vectors as samples; and the metric label through job JSON and YAML.
 * Probe tables: the calibration noted under them, with and without its
 * own tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchmarks/catalog.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "report/compare.h"
#include "report/render.h"
#include "report/select.h"

/* STATS.md V3, V1 and V2: medians 17 -> 14.5, 2.10 -> 1.98, 1000 -> 1040. */
static const double v3_base[] = { 16, 18, 17, 16, 20, 17 };
static const double v3_new[] = { 14, 15, 14, 16, 15, 14 };
static const double v1_base[] = { 2.10, 2.05, 2.20, 2.15, 2.00 };
static const double v1_new[] = { 1.95, 2.00, 1.90, 2.05, 1.98 };
static const double v2_base[] = { 1000, 1020, 980, 1010, 990 };
static const double v2_new[] = { 1030, 1050, 1045, 1025, 1040 };

/* The vector of a metric under a kernel: V3, V1, V2 by metric order. */
struct vec {
	const double *x;
	size_t	      n;
};

static const char job_hotplug[] =
    "name: hotplug\n"
    "machines: [lab1]\n"
    "kernels:\n"
    "  - {name: base, image: /srv/kernels/base/vmlinuz}\n"
    "  - {name: patched, image: /srv/kernels/patched/vmlinuz}\n"
    "cmdline: rt_group_sched=0\n"
    "benchmarks:\n"
    "  - name: cpuset-hotplug\n"
    "    params: {cgroups: %s, switches: 6, hotplug: 5, cpu: last}\n";

static const char job_mixed[] =
    "name: mixed\n"
    "machines: [lab1]\n"
    "kernels:\n"
    "  - {name: base, image: /srv/kernels/base/vmlinuz}\n"
    "  - {name: patched, image: /srv/kernels/patched/vmlinuz}\n"
    "benchmarks:\n"
    "  - name: probe\n"
    "    command: [probe]\n"
    "    parser: keyvalue\n"
    "    metrics:\n"
    "      - {name: a_ms, unit: ms, direction: lower, label: \"op a\"}\n"
    "      - {name: bw, unit: MB/s, direction: higher, label: bandwidth}\n"
    "      - {name: b_ms, unit: ms, direction: lower}\n";

static const char job_probed[] =
    "name: probed\n"
    "machines: [lab1]\n"
    "kernels:\n"
    "  - {name: base, image: /srv/kernels/base/vmlinuz}\n"
    "  - {name: patched, image: /srv/kernels/patched/vmlinuz}\n"
    "benchmarks:\n"
    "  - name: probed\n"
    "    command: [probed]\n"
    "    parser: keyvalue\n"
    "    metrics:\n"
    "      - {name: probe.f.ns_per_call, unit: ns, direction: lower}\n"
    "      - {name: probe.calibration.empty_ns, unit: ns, direction: lower}\n"
    "      - {name: probe.calibration.overhead_ns, unit: ns, direction: "
    "lower}\n";

struct fixture {
	char		path[64];
	struct db      *db;
	struct catalog *cat;
	long long	single; /* cpuset-hotplug, one parameter set */
	long long	sweep;	/* cgroups [0, 1000] */
	long long	mixed;	/* three custom metrics, two units */
	long long	probed; /* a probe's figure and its calibration */
};

/* The samples of metric number m of a benchmark under kernel k. */
static struct vec
vector(size_t m, size_t k)
{
	static const struct vec v[3][2] = {
		{ { v3_base, 6 }, { v3_new, 6 } },
		{ { v1_base, 5 }, { v1_new, 5 } },
		{ { v2_base, 5 }, { v2_new, 5 } },
	};

	return v[m % 3][k % 2];
}

/* Stores the vectors of every metric of a planned run, then marks it done. */
static void
run_store(struct fixture *f, const struct job_benchmark *b, int64_t run,
    size_t kernel)
{
	struct db_result res = { .run = run };
	struct db_sample s = { .run = run };
	struct vec	 v;
	char		*cause = NULL;
	size_t		 m, i;

	assert_int_equal(db_run_result_insert(f->db, &res, &cause), 1);
	for (m = 0; m < b->nmetrics; m++) {
		v = vector(m, kernel);
		for (i = 0; i < v.n; i++) {
			s.metric = b->metrics[m].name;
			s.repeat = (int64_t)i;
			s.value = v.x[i];
			assert_int_equal(db_samples_insert(f->db, &s, 1,
					     &cause),
			    1);
		}
	}
	assert_int_equal(db_run_set_state(f->db, run, DB_RUNNING, NULL, &cause),
	    0);
	assert_int_equal(db_run_set_state(f->db, run, DB_DONE, NULL, &cause),
	    0);
}

/* Inserts the kernels and metrics of a job; kernel ids into ids. */
static void
job_kernels(struct fixture *f, const struct job *job, int64_t *ids)
{
	const struct job_metric *m;
	char			*cause = NULL;
	size_t			 i, j;

	for (i = 0; i < job->nkernels; i++) {
		ids[i] = db_kernel_upsert(f->db, job->kernels[i].name, NULL,
		    "{\"kind\":\"image\"}", &cause);
		assert_true(ids[i] > 0);
	}
	for (i = 0; i < job->nbenchmarks; i++)
		for (j = 0; j < job->benchmarks[i].nmetrics; j++) {
			m = &job->benchmarks[i].metrics[j];
			assert_int_equal(db_metric_upsert(f->db, m->name,
					     m->unit, m->direction,
					     m->statistic, &cause),
			    0);
		}
}

/* Queues, plans and fills a job as hilab submit and hilabd would. */
static long long
job_store(struct fixture *f, const char *text)
{
	struct plan   plan = { 0 };
	struct db_run r;
	struct job   *job;
	char	     *cause = NULL, *json;
	int64_t	      id, kernels[2], run;
	size_t	      i;

	job = job_load_string("job.yaml", text, strlen(text), f->cat, NULL,
	    &cause);
	if (job == NULL)
		fail_msg("%s", cause);
	json = job_to_json(job);
	id = db_job_insert(f->db, job->name, "job.yaml", json, &cause);
	assert_true(id > 0);
	assert_int_equal(plan_build(job, &plan, &cause), 0);
	job_kernels(f, job, kernels);
	for (i = 0; i < plan.n; i++) {
		memset(&r, 0, sizeof r);
		r.job = id;
		r.machine = plan.runs[i].machine;
		r.kernel = kernels[plan.runs[i].kernel_index];
		r.benchmark = plan.runs[i].benchmark;
		r.params = plan.runs[i].params;
		r.position = plan.runs[i].position;
		r.iterations = 1;
		assert_true((run = db_run_insert(f->db, &r, &cause)) > 0);
		run_store(f, &job->benchmarks[plan.runs[i].benchmark_index],
		    run, plan.runs[i].kernel_index);
	}
	free(json);
	plan_free(&plan);
	job_free(job);
	return id;
}

static int
setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	const char     *src = getenv("HILAB_SRCDIR");
	char	       *cause = NULL, *dir, *text;
	int		fd;

	if (src == NULL)
		return -1;
	dir = xasprintf("%s/benchmarks", src);
	f->cat = catalog_load(dir, &cause);
	free(dir);
	snprintf(f->path, sizeof f->path, "/tmp/hilab-rows.XXXXXX");
	if (f->cat == NULL || (fd = mkstemp(f->path)) == -1)
		return -1;
	close(fd);
	if ((f->db = db_open(f->path, &cause)) == NULL ||
	    db_machine_upsert(f->db, "lab1", "ssh", "x86_64", &cause) == -1)
		return -1;
	text = xasprintf(job_hotplug, "1000");
	f->single = job_store(f, text);
	free(text);
	text = xasprintf(job_hotplug, "[0, 1000]");
	f->sweep = job_store(f, text);
	free(text);
	f->mixed = job_store(f, job_mixed);
	f->probed = job_store(f, job_probed);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char	       *p;

	db_close(f->db);
	catalog_free(f->cat);
	unlink(f->path);
	p = xasprintf("%s-wal", f->path);
	unlink(p);
	free(p);
	p = xasprintf("%s-shm", f->path);
	unlink(p);
	free(p);
	free(f);
	return 0;
}

/* Selects the tables of one job with a row mode. */
static void
select_job(struct fixture *f, long long job, enum select_rows rows,
    struct select_result *r)
{
	struct select_query q = { .jobs = &job, .njobs = 1, .rows = rows };
	char		   *cause = NULL;

	if (select_tables(f->db, &q, r, &cause) == -1)
		fail_msg("%s", cause);
}

/* Checks a row's label, base and patched medians and change. */
static void
check_row(const struct compare_table *t, size_t row, const char *name,
    double base, double patched)
{
	assert_string_equal(t->rows[row].name, name);
	assert_int_equal(t->rows[row].cells[0].n, vector(row, 0).n);
	assert_float_equal(t->rows[row].cells[0].value, base, 1e-9);
	assert_float_equal(t->rows[row].cells[1].value, patched, 1e-9);
	assert_float_equal(t->rows[row].cells[1].delta,
	    100 * (patched - base) / base, 1e-9);
}

/* Labelled metrics and one parameter set: one table, a row per metric. */
static void
test_auto_metric_rows(void **state)
{
	struct fixture		   *f = *state;
	struct select_result	    r;
	const struct compare_table *t;

	select_job(f, f->single, SELECT_ROWS_AUTO, &r);
	assert_int_equal(r.n, 1);
	t = r.v[0].table;
	assert_string_equal(t->title, "cpuset-hotplug");
	assert_string_equal(t->metric,
	    "cgroups=1000,cpu=last,hotplug=5,"
	    "switches=6");
	assert_string_equal(t->case_label, "operation");
	assert_string_equal(t->unit, "ms");
	assert_int_equal(t->stat, COMPARE_MEDIAN);
	assert_int_equal(t->ncolumns, 2);
	assert_string_equal(t->columns[0], "base");
	assert_string_equal(t->columns[1], "patched");
	assert_int_equal(t->nrows, 3);
	/* The catalog's order, not the alphabetical one. */
	check_row(t, 0, "change partition root", 17, 14.5);
	check_row(t, 1, "cpu offline", 2.10, 1.98);
	check_row(t, 2, "cpu online", 1000, 1040);
	assert_string_equal(r.v[0].metrics[0], "partition_switch_ms");
	assert_string_equal(r.v[0].metrics[2], "cpu_online_ms");
	assert_string_equal(r.v[0].params[1], t->metric);
	assert_null(r.v[0].swept);
	/* STATS.md V3: Mann-Whitney U exact p 0.0065. */
	assert_int_equal(t->rows[0].cells[1].mark, '*');
	select_result_clear(&r);
}

/* Parameter rows stay what they were: a table per metric. */
static void
test_params_rows(void **state)
{
	struct fixture	    *f = *state;
	struct select_result r;

	select_job(f, f->single, SELECT_ROWS_PARAMS, &r);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.v[0].table->metric, "cpu_offline_ms");
	assert_string_equal(r.v[2].table->metric, "partition_switch_ms");
	assert_string_equal(r.v[2].table->case_label, "Case");
	assert_int_equal(r.v[2].table->nrows, 1);
	assert_float_equal(r.v[2].table->rows[0].cells[1].value, 14.5, 1e-9);
	assert_null(r.v[0].metrics);
	select_result_clear(&r);
}

/* Reads a printed row: label, two cells and the change. */
static void
check_printed(const char *text, const char *label, double base, double patched)
{
	const char *line = strstr(text, label);
	double	    b, p, c;
	char	    mark[2] = "";

	assert_non_null(line);
	assert_true(line == text || line[-1] == '\n');
	assert_true(sscanf(line + strlen(label), " %lf %lf %lf%%%1[*~]", &b, &p,
			&c, mark) >= 3);
	assert_float_equal(b, base, 0.0051 * base);
	assert_float_equal(p, patched, 0.0051 * patched);
	assert_float_equal(c, round(100 * (patched - base) / base), 1e-9);
}

/* The change style prints the seed-0 layout. */
static void
test_change_style(void **state)
{
	struct fixture	    *f = *state;
	struct select_result r;
	char		    *text = NULL, *cause = NULL;
	size_t		     len = 0;
	FILE		    *mem;

	select_job(f, f->single, SELECT_ROWS_AUTO, &r);
	assert_non_null(mem = open_memstream(&text, &len));
	assert_int_equal(render_print(r.v[0].table, "change", mem, &cause), 0);
	fclose(mem);
	print_message("%s", text);
	assert_true(strncmp(text, "cpuset-hotplug: ", 16) == 0);
	assert_non_null(strstr(text, " (ms), lower is better, Median\n"));
	assert_true(strncmp(strchr(text, '\n') + 1, "operation ", 10) == 0);
	assert_non_null(strstr(text, " base (ms) patched (ms)\n"));
	check_printed(text, "change partition root", 17, 14.5);
	check_printed(text, "cpu offline", 2.10, 1.98);
	check_printed(text, "cpu online", 1000, 1040);
	assert_true(strstr(text, "cpu offline") < strstr(text, "cpu online"));
	free(text);
	select_result_clear(&r);
}

/* A sweep keeps parameter rows unless metric rows are asked for. */
static void
test_sweep(void **state)
{
	struct fixture	    *f = *state;
	struct select_result r;

	select_job(f, f->sweep, SELECT_ROWS_AUTO, &r);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.v[0].table->rows[0].name, "0-cgroups");
	select_result_clear(&r);
	select_job(f, f->sweep, SELECT_ROWS_METRIC, &r);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.v[0].table->metric,
	    "cgroups=0,cpu=last,hotplug=5,switches=6");
	assert_string_equal(r.v[1].table->metric,
	    "cgroups=1000,cpu=last,hotplug=5,switches=6");
	assert_int_equal(r.v[1].table->nrows, 3);
	check_row(r.v[1].table, 0, "change partition root", 17, 14.5);
	select_result_clear(&r);
}

/* Metrics of other units or directions go to tables of their own. */
static void
test_mixed_kinds(void **state)
{
	struct fixture		   *f = *state;
	struct select_result	    r;
	const struct compare_table *t;

	select_job(f, f->mixed, SELECT_ROWS_AUTO, &r);
	assert_int_equal(r.n, 2);
	t = r.v[0].table;
	assert_string_equal(t->unit, "ms");
	assert_int_equal(t->nrows, 2);
	assert_int_equal(t->stat, COMPARE_AMEAN);
	assert_string_equal(t->rows[0].name, "op a");
	assert_float_equal(t->rows[0].cells[0].value, 104.0 / 6, 1e-9);
	assert_float_equal(t->rows[0].cells[1].value, 88.0 / 6, 1e-9);
	assert_string_equal(t->rows[1].name, "b_ms");
	assert_float_equal(t->rows[1].cells[1].value, 1038, 1e-9);
	t = r.v[1].table;
	assert_string_equal(t->unit, "MB/s");
	assert_int_equal(t->dir, COMPARE_HIGHER_BETTER);
	assert_string_equal(t->rows[0].name, "bandwidth");
	assert_float_equal(t->rows[0].cells[1].value, 1.976, 1e-9);
	assert_string_equal(t->metric, "default");
	select_result_clear(&r);
}

/*
 * The notes of the probe's table: its calibration's medians per column,
 * STATS.md V1 (empty call) and V2 (overhead).
 */
static void
check_probe_notes(const struct compare_table *t)
{
	static const char *const want[] = {
		"base: a call of an empty function reads 2 ns; recording adds "
		"1000 ns to each call",
		"patched: a call of an empty function reads 2 ns; recording "
		"adds 1040 ns to each call",
	};
	size_t i, j;

	assert_string_equal(t->metric, "probe.f.ns_per_call");
	for (i = 0; i < 2; i++) {
		for (j = 0; j < t->nnotes && strcmp(t->notes[j], want[i]); j++)
			;
		if (j == t->nnotes)
			fail_msg("no note \"%s\"", want[i]);
	}
}

/* A probe's table notes its calibration, shown or not. */
static void
test_probe_notes(void **state)
{
	struct fixture		   *f = *state;
	struct select_query	    q = { .jobs = &f->probed,
			.njobs = 1,
			.metric = "probe.f.ns_per_call" };
	struct select_result	    r;
	const struct compare_table *t;
	char			   *cause = NULL;
	size_t			    i;

	select_job(f, f->probed, SELECT_ROWS_PARAMS, &r);
	assert_int_equal(r.n, 3);
	for (i = 0; i < r.n; i++) {
		t = r.v[i].table;
		if (strcmp(t->metric, "probe.calibration.empty_ns") == 0)
			assert_float_equal(t->rows[0].cells[1].value, 9.88 / 5,
			    1e-9); /* its own table too: V1's mean */
		else if (strcmp(t->metric, "probe.calibration.overhead_ns") ==
		    0)
			assert_float_equal(t->rows[0].cells[1].value, 1038,
			    1e-9);
		else
			check_probe_notes(t);
	}
	select_result_clear(&r);
	if (select_tables(f->db, &q, &r, &cause) == -1)
		fail_msg("%s", cause);
	assert_int_equal(r.n, 1);
	check_probe_notes(r.v[0].table);
	select_result_clear(&r);
}

/* The label lives in the catalog, the job JSON and the printed job. */
static void
test_label_job(void **state)
{
	struct fixture		       *f = *state;
	const struct catalog_benchmark *cb =
	    catalog_find(f->cat, "cpuset-hotplug");
	struct job *a, *b, *c;
	char	   *cause = NULL, *json, *yaml = NULL;
	size_t	    len = 0;
	FILE	   *mem;

	assert_non_null(cb);
	assert_string_equal(cb->metrics[1].label, "cpu offline");
	a = job_load_string("j.yaml", job_mixed, strlen(job_mixed), f->cat,
	    NULL, &cause);
	assert_non_null(a);
	json = job_to_json(a);
	assert_non_null(strstr(json, "\"label\""));
	assert_non_null(b = job_from_json(json, &cause));
	assert_string_equal(b->benchmarks[0].metrics[1].label, "bandwidth");
	assert_null(b->benchmarks[0].metrics[2].label);
	assert_non_null(mem = open_memstream(&yaml, &len));
	job_print(mem, b);
	fclose(mem);
	c = job_load_string("p.yaml", yaml, len, f->cat, NULL, &cause);
	if (c == NULL)
		fail_msg("%s\n%s", cause, yaml);
	assert_string_equal(c->benchmarks[0].metrics[0].label, "op a");
	assert_null(c->benchmarks[0].metrics[2].label);
	free(json);
	free(yaml);
	job_free(a);
	job_free(b);
	job_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_auto_metric_rows),
		cmocka_unit_test(test_params_rows),
		cmocka_unit_test(test_change_style),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_mixed_kinds),
		cmocka_unit_test(test_label_job),
		cmocka_unit_test(test_probe_notes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
