/*
 * Builds a results database through the same path hilabd takes: jobs
 * parsed against the catalog and planned into runs, kernels and metrics
 * upserted, runs started with the host's facts (captured from the real
 * agent: the file given holds `hilab-agent facts` output), results and
 * samples stored.
 *
 *	results-mkdb DB FACTS
 *
 * Job 1 "vectors": base and "patch 1" over 5 rounds (boots), hackbench
 * groups=1 holds STATS.md V1, groups=2 V1 doubled, tbench V2.
 * Job 2 "hackbench-real": hackbench run here for real, its output stored
 * with hilabd/ingest.c.
 * Job 3 "envdiff": V1 again, with "patch 1" runs reporting another
 * cpufreq.governor than the host.
 * Job 4 "rate": a custom benchmark whose metric "time" is higher-is-better
 * (V1; declared by name after a pattern that also matches it), with an
 * undeclared metric "extra" beside it.
 * Job 5 "netperf": netperf throughput (Mbit/s, V2), a name tbench shares.
 * Job 6 "two-machines": hackbench V1 on lab1 and lab2.
 * Job 7 "failed": a done run with a sample, a failed run; the job failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "benchmarks/catalog.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/ingest.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/agent_client.h"

static const double v1_base[] = { 2.10, 2.05, 2.20, 2.15, 2.00 };
static const double v1_new[] = { 1.95, 2.00, 1.90, 2.05, 1.98 };
static const double v2_base[] = { 1000, 1020, 980, 1010, 990 };
static const double v2_new[] = { 1030, 1050, 1045, 1025, 1040 };

static const char job_vectors[] =
    "name: vectors\n"
    "description: STATS.md vectors V1 and V2\n"
    "machines: [lab1]\n"
    "kernels:\n"
    "  - {name: base, image: /srv/kernels/base/vmlinuz}\n"
    "  - {name: patch 1, image: /srv/kernels/patch1/vmlinuz,\n"
    "     cmdline: isolcpus=1}\n"
    "rounds: 5\n"
    "benchmarks:\n"
    "  - name: hackbench\n"
    "    params: {groups: [1, 2], loops: 100}\n"
    "    iterations: 1\n"
    "    warmups: 0\n"
    "  - name: tbench\n"
    "    params: {clients: 4, duration: 10}\n"
    "    iterations: 1\n"
    "    warmups: 0\n";

static const char job_real[] = "name: hackbench-real\n"
			       "machines: [lab1]\n"
			       "benchmarks:\n"
			       "  - name: hackbench\n"
			       "    params: {groups: [1, 2], loops: 50}\n"
			       "    iterations: 3\n"
			       "    warmups: 1\n";

static const char job_rate[] =
    "name: rate\n"
    "machines: [lab1]\n"
    "kernels:\n"
    "  - {name: base, image: /srv/kernels/base-r/vmlinuz}\n"
    "  - {name: patch 1, image: /srv/kernels/patch1-r/vmlinuz}\n"
    "rounds: 5\n"
    "benchmarks:\n"
    "  - name: rate\n"
    "    command: [rate]\n"
    "    parser: keyvalue\n"
    "    iterations: 1\n"
    "    metrics:\n"
    "      - {name: \"ti*\", unit: ticks, direction: lower}\n"
    "      - {name: time, unit: runs/s, direction: higher,\n"
    "         statistic: median}\n";

static const char job_netperf[] =
    "name: netperf\n"
    "machines: [lab1]\n"
    "kernels:\n"
    "  - {name: base, image: /srv/kernels/base-n/vmlinuz}\n"
    "  - {name: patch 1, image: /srv/kernels/patch1-n/vmlinuz}\n"
    "rounds: 5\n"
    "benchmarks:\n"
    "  - name: netperf\n"
    "    params: {duration: 10}\n"
    "    iterations: 1\n";

static const char job_two_machines[] =
    "name: two-machines\n"
    "machines: [lab1, lab2]\n"
    "kernels:\n"
    "  - {name: base, image: /srv/kernels/base-m/vmlinuz}\n"
    "  - {name: patch 1, image: /srv/kernels/patch1-m/vmlinuz}\n"
    "rounds: 5\n"
    "benchmarks:\n"
    "  - name: hackbench\n"
    "    params: {groups: 1, loops: 100}\n"
    "    iterations: 1\n"
    "    warmups: 0\n";

static const char job_failed[] = "name: failed\n"
				 "machines: [lab1]\n"
				 "benchmarks:\n"
				 "  - name: hackbench\n"
				 "    params: {groups: [1, 2], loops: 100}\n"
				 "    iterations: 1\n"
				 "    warmups: 0\n";

static const char job_envdiff[] =
    "name: envdiff\n"
    "machines: [lab1]\n"
    "kernels:\n"
    "  - {name: base, image: /srv/kernels/base-b/vmlinuz}\n"
    "  - {name: patch 1, image: /srv/kernels/patch1-b/vmlinuz}\n"
    "rounds: 5\n"
    "benchmarks:\n"
    "  - name: hackbench\n"
    "    params: {groups: 1, loops: 100}\n"
    "    iterations: 1\n"
    "    warmups: 0\n";

/* Stops the program with a message. */
static void __attribute__((noreturn)) die(const char *what, char *cause)
{
	fprintf(stderr, "results-mkdb: %s: %s\n", what, cause ? cause : "");
	exit(1);
}

/* Reads `hilab-agent facts` output into agent facts. */
static void
facts_read(const char *path, struct agent_facts *f)
{
	char   line[8192], *eq;
	FILE  *fp;
	size_t len;

	if ((fp = fopen(path, "r")) == NULL)
		die(path, "cannot open");
	while (fgets(line, sizeof line, fp) != NULL) {
		len = strcspn(line, "\n");
		line[len] = '\0';
		f->v = xreallocarray(f->v, f->n + 1, sizeof *f->v);
		if ((eq = strchr(line, '=')) != NULL) {
			f->v[f->n].key = xstrndup(line, (size_t)(eq - line));
			f->v[f->n].value = xstrdup(eq + 1);
		} else if (len > 9 &&
		    strcmp(line + len - 9, " (absent)") == 0) {
			f->v[f->n].key = xstrndup(line, len - 9);
			f->v[f->n].value = NULL;
		} else
			die(path, line);
		f->n++;
	}
	fclose(fp);
}

/* Sets a fact's value (NULL: absent). */
static void
facts_set(struct agent_facts *f, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		if (strcmp(f->v[i].key, key) == 0) {
			free(f->v[i].value);
			f->v[i].value = value ? xstrdup(value) : NULL;
			return;
		}
	}
	die(key, "no such fact");
}

/* Queues a job as hilab submit does and plans it as hilabd does. */
static int64_t
job_add(struct db *db, const struct catalog *cat, const char *text,
    struct job **job, struct plan *plan, int64_t **kernels)
{
	char   *cause = NULL, *json, *spec, *cmdline;
	int64_t id;
	size_t	i, j;

	if ((*job = job_load_string("job.yaml", text, strlen(text), cat, NULL,
		 &cause)) == NULL)
		die("job", cause);
	json = job_to_json(*job);
	if ((id = db_job_insert(db, (*job)->name, "jobs/job.yaml", json,
		 &cause)) == -1)
		die("job insert", cause);
	free(json);
	if (plan_build(*job, plan, &cause) == -1)
		die("plan", cause);
	for (i = 0; i < (*job)->nbenchmarks; i++)
		for (j = 0; j < (*job)->benchmarks[i].nmetrics; j++) {
			struct job_metric *m =
			    &(*job)->benchmarks[i].metrics[j];

			if (db_metric_upsert(db, m->name, m->unit, m->direction,
				m->statistic, &cause) == -1)
				die("metric", cause);
		}
	*kernels = xcalloc((*job)->nkernels, sizeof **kernels);
	for (i = 0; i < (*job)->nkernels; i++) {
		struct job_kernel *k = &(*job)->kernels[i];

		cmdline = job_kernel_cmdline(*job, k);
		spec = xasprintf("{\"image\":%s%s%s,\"kind\":\"%s\","
				 "\"patches\":%zu}",
		    k->image ? "\"" : "", k->image ? k->image : "null",
		    k->image ? "\"" : "", job_kernel_kind_name(k->kind),
		    k->npatches);
		if (((*kernels)[i] = db_kernel_upsert(db, k->name, cmdline,
			 spec, &cause)) == -1)
			die("kernel", cause);
		free(cmdline);
		free(spec);
	}
	if (db_job_set_state(db, id, DB_RUNNING, NULL, &cause) == -1)
		die("job state", cause);
	return id;
}

/* Inserts a planned run and starts it with the facts. */
static int64_t
run_add(struct db *db, int64_t job, const struct plan_run *p, int64_t kernel,
    const struct agent_facts *f)
{
	struct db_run r;
	char	     *cause = NULL, *facts, *rid;
	int64_t	      id;

	memset(&r, 0, sizeof r);
	r.job = job;
	r.machine = p->machine;
	r.kernel = kernel;
	r.benchmark = p->benchmark;
	r.params = p->params;
	r.round = r.boot = p->round;
	r.position = p->position;
	r.iterations = p->iterations;
	r.warmups = p->warmups;
	if ((id = db_run_insert(db, &r, &cause)) == -1)
		die("run", cause);
	facts = ingest_facts_json(f);
	rid = xasprintf("j%lld-r%lld", (long long)job, (long long)id);
	if (db_run_start(db, id, rid, facts, &cause) == -1 ||
	    db_kernel_set_version(db, kernel,
		agent_facts_get(f, "kernel.release"),
		agent_facts_get(f, "kernel.version"), &cause) == -1)
		die("run start", cause);
	free(facts);
	free(rid);
	return id;
}

/* Stores given values of one metric as a run's iterations. */
static void
run_values(struct db *db, int64_t run, const char *metric, const double *x,
    size_t n)
{
	struct db_result res = { .run = run };
	struct db_sample s = { 0 };
	char		*cause = NULL;
	size_t		 i;

	for (i = 0; i < n; i++) {
		res.seq = (int64_t)i;
		s.run = run;
		s.metric = metric;
		s.iteration = (int64_t)i;
		s.value = x[i];
		if (db_run_result_insert(db, &res, &cause) == -1 ||
		    db_samples_insert(db, &s, 1, &cause) == -1)
			die("samples", cause);
	}
	if (db_run_set_state(db, run, DB_DONE, NULL, &cause) == -1)
		die("run done", cause);
}

/* Stores a sample of a metric the run's benchmark does not declare. */
static void
run_extra(struct db *db, int64_t run, double v)
{
	struct db_sample s = { .run = run, .metric = "extra", .value = v };
	char		*cause = NULL;

	if (db_samples_insert(db, &s, 1, &cause) == -1)
		die("extra sample", cause);
}

/* Job 7: one run done with a sample, the other failed, the job failed. */
static void
build_failed(struct db *db, const struct catalog *cat, struct agent_facts *f)
{
	struct job *job;
	struct plan plan = { 0 };
	char	   *cause = NULL;
	int64_t	   *kernels, id, run;
	double	    v = 3.0;

	id = job_add(db, cat, job_failed, &job, &plan, &kernels);
	run = run_add(db, id, &plan.runs[0], kernels[0], f);
	run_values(db, run, "time", &v, 1);
	run = run_add(db, id, &plan.runs[1], kernels[0], f);
	if (db_run_set_state(db, run, DB_FAILED, "exit status 1", &cause) ==
		-1 ||
	    db_job_set_state(db, id, DB_FAILED, "some runs failed", &cause) ==
		-1)
		die("failed job", cause);
	free(kernels);
	job_free(job);
	plan_free(&plan);
}

/* The value of round r of a vector run: groups=2 doubles V1. */
static void
vector_sample(const struct plan_run *p, int is_base, double *v,
    const char **metric)
{
	int r = p->round;

	if (strcmp(p->benchmark, "tbench") == 0 ||
	    strcmp(p->benchmark, "netperf") == 0) {
		*metric = "throughput";
		*v = is_base ? v2_base[r] : v2_new[r];
		return;
	}
	*metric = "time";
	*v = is_base ? v1_base[r] : v1_new[r];
	if (strstr(p->params, "groups=2") != NULL)
		*v *= 2;
}

/*
 * A job of the vectors, patch 1 optionally on other facts; custom
 * benchmarks also get samples of a metric they do not declare ("extra").
 */
static void
build_vectors(struct db *db, const struct catalog *cat, const char *text,
    struct agent_facts *f, const char *governor)
{
	struct job *job;
	struct plan plan = { 0 };
	const char *metric, *host = agent_facts_get(f, "cpufreq.governor");
	char	   *saved = host ? xstrdup(host) : NULL, *cause = NULL;
	int64_t	   *kernels, job_id, run;
	double	    v;
	size_t	    i;

	job_id = job_add(db, cat, text, &job, &plan, &kernels);
	for (i = 0; i < plan.n; i++) {
		const struct plan_run *p = &plan.runs[i];

		facts_set(f, "cpufreq.governor",
		    p->kernel_index == 1 && governor ? governor : saved);
		run = run_add(db, job_id, p, kernels[p->kernel_index], f);
		vector_sample(p, p->kernel_index == 0, &v, &metric);
		if (job->benchmarks[p->benchmark_index].custom)
			run_extra(db, run, v * 10);
		run_values(db, run, metric, &v, 1);
	}
	facts_set(f, "cpufreq.governor", saved);
	if (db_job_set_state(db, job_id, DB_DONE, NULL, &cause) == -1)
		die("job done", cause);
	free(saved);
	free(kernels);
	job_free(job);
	plan_free(&plan);
}

/* Runs one iteration of a planned command here, capturing its output. */
static char *
run_here(const struct plan_run *p, int64_t *exit_status, uint64_t *wall)
{
	char	       *cmd = xstrdup(""), *t, *out = NULL;
	struct timespec a, b;
	size_t		len = 0, n;
	char		buf[4096];
	FILE	       *fp;
	int		i, st;

	for (i = 0; p->argv[i] != NULL; i++) {
		t = xasprintf("%s '%s'", cmd, p->argv[i]);
		free(cmd);
		cmd = t;
	}
	t = xasprintf("%s 2>&1", cmd);
	free(cmd);
	clock_gettime(CLOCK_MONOTONIC, &a);
	if ((fp = popen(t, "r")) == NULL)
		die(t, "popen");
	while ((n = fread(buf, 1, sizeof buf, fp)) > 0) {
		out = xreallocarray(out, len + n + 1, 1);
		memcpy(out + len, buf, n);
		len += n;
	}
	st = pclose(fp);
	clock_gettime(CLOCK_MONOTONIC, &b);
	free(t);
	*exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	*wall = (uint64_t)((b.tv_sec - a.tv_sec) * 1000000000LL +
	    (b.tv_nsec - a.tv_nsec));
	if (out == NULL)
		out = xstrdup("");
	out[len] = '\0';
	return out;
}

/* Job 2: hackbench for real, stored through hilabd/ingest.c. */
static void
build_real(struct db *db, const struct catalog *cat, struct agent_facts *f)
{
	struct agent_result res;
	struct job	   *job;
	struct plan	    plan = { 0 };
	char		   *cause = NULL, *problem = NULL, *out;
	int64_t		   *kernels, job_id, run;
	size_t		    i;
	int		    k;

	job_id = job_add(db, cat, job_real, &job, &plan, &kernels);
	for (i = 0; i < plan.n; i++) {
		run = run_add(db, job_id, &plan.runs[i], kernels[0], f);
		for (k = 0; k < plan.runs[i].warmups + plan.runs[i].iterations;
		     k++) {
			memset(&res, 0, sizeof res);
			res.seq = (uint64_t)k;
			res.warmup = k < plan.runs[i].warmups;
			out = run_here(&plan.runs[i], &res.exit_status,
			    &res.wall_ns);
			res.output = out;
			res.output_len = strlen(out);
			if (ingest_result(db, run, &plan.runs[i], &res,
				&problem, &cause) == -1 ||
			    problem != NULL)
				die("ingest", cause ? cause : problem);
			free(out);
		}
		if (db_run_set_state(db, run, DB_DONE, NULL, &cause) == -1)
			die("run done", cause);
	}
	if (db_job_set_state(db, job_id, DB_DONE, NULL, &cause) == -1)
		die("job done", cause);
	free(kernels);
	job_free(job);
	plan_free(&plan);
}

int
main(int argc, char **argv)
{
	struct agent_facts f = { 0 };
	struct catalog	  *cat;
	struct db	  *db;
	const char	  *src = getenv("HILAB_SRCDIR"), *gov;
	char		  *cause = NULL, *dir;

	if (argc != 3 || src == NULL) {
		fprintf(stderr,
		    "usage: results-mkdb DB FACTS (HILAB_SRCDIR "
		    "set)\n");
		return 2;
	}
	facts_read(argv[2], &f);
	dir = xasprintf("%s/benchmarks", src);
	if ((cat = catalog_load(dir, &cause)) == NULL)
		die(dir, cause);
	if ((db = db_open(argv[1], &cause)) == NULL ||
	    db_machine_upsert(db, "lab1", "ssh", "x86_64", &cause) == -1 ||
	    db_machine_upsert(db, "lab2", "ssh", "x86_64", &cause) == -1)
		die(argv[1], cause);
	build_vectors(db, cat, job_vectors, &f, NULL);
	build_real(db, cat, &f);
	gov = agent_facts_get(&f, "cpufreq.governor");
	build_vectors(db, cat, job_envdiff, &f,
	    gov != NULL && strcmp(gov, "powersave") == 0 ? "performance"
							 : "powersave");
	build_vectors(db, cat, job_rate, &f, NULL);
	build_vectors(db, cat, job_netperf, &f, NULL);
	build_vectors(db, cat, job_two_machines, &f, NULL);
	build_failed(db, cat, &f);
	db_close(db);
	catalog_free(cat);
	agent_facts_clear(&f);
	free(dir);
	return 0;
}
