/*
 * hilabd's bisector on a real SQLite database built through the db API:
 * a step that fails because its commit did not build (never planned) or
 * boot (a run says so) is skipped; one that fails for another reason (the
 * machine away, the benchmark failing) is not the commit's: the commit is
 * measured again, and after three such failures the bisection fails, and
 * a bisection a sweep started mails that failure, with its evidence.  A
 * step job measures its commit between the ends, each sample read under
 * the commit its kernel is named after.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <jansson.h>

#include "bisect/load.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/bisector.h"
#include "tests/lib/slurp.h"

static const char spec[] =
    "{\"name\":\"b\",\"machines\":[\"vm\"],\"kernels\":[{\"name\":\"k\","
    "\"git\":\"/srv/linux\",\"base\":\"x\"}],\"benchmarks\":[{\"name\":"
    "\"hackbench\",\"params\":{\"groups\":[\"1\"]},\"metrics\":[{\"name\":"
    "\"time\",\"unit\":\"s\",\"direction\":\"lower\"}]}]}";

struct fixture {
	struct db *db;
	int64_t	   bisect;
	int64_t	   kernel[5]; /* named c0..c4, as the commits */
	char	   dir[32];
	char	  *mbox;
};

/* How a step job ends without a sample. */
enum step_end { NEVER_PLANNED, BOOT_FAILED, MACHINE_AWAY };

static int
setup(void **state)
{
	struct fixture	*f = xcalloc(1, sizeof *f);
	struct db_sweep	 w = { .name = (char *)"nightly",
		 .file = (char *)"/srv/jobs/nightly.yaml",
		 .interval_ms = 86400000,
		 .at_minute = -1 };
	struct db_bisect b = { .name = (char *)"nightly-bisect-1",
		.spec = (char *)spec,
		.machine = (char *)"vm",
		.benchmark = (char *)"hackbench",
		.params = (char *)"groups=1",
		.metric = (char *)"time",
		.tree = (char *)"/srv/linux",
		.commits = (char *)"[\"c0\",\"c1\",\"c2\",\"c3\",\"c4\"]",
		.subjects = (char *)"[\"s0\",\"s1\",\"s2\",\"s3\",\"s4\"]",
		.budget = 100,
		.confidence = 0.995 };
	char		*cause = NULL, name[3];
	int		 i;

	strcpy(f->dir, "/tmp/hilab-bisector-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->mbox = w.mbox = xasprintf("%s/mbox", f->dir);
	if ((f->db = db_open(":memory:", &cause)) == NULL ||
	    db_machine_upsert(f->db, "vm", "libvirt", "x86_64", &cause) == -1 ||
	    (b.sweep = db_sweep_add(f->db, &w, &cause)) == -1 ||
	    (f->bisect = db_bisect_add(f->db, &b, &cause)) == -1)
		fail_msg("%s", cause);
	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "c%d", i);
		if ((f->kernel[i] = db_kernel_upsert(f->db, name, NULL, "{}",
			 &cause)) == -1)
			fail_msg("%s", cause);
	}
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char	       *cmd = xasprintf("rm -rf %s", f->dir);

	db_close(f->db);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(f->mbox);
	free(f);
	return 0;
}

/* A job of the bisection measuring commit c, running. */
static int64_t
step_add(struct fixture *f, int64_t c)
{
	char   *cause = NULL;
	int64_t job;

	if ((job = db_job_insert(f->db, "step", NULL, spec, &cause)) == -1 ||
	    db_bisect_step_add(f->db, f->bisect, job, c, &cause) == -1 ||
	    db_job_set_state(f->db, job, DB_RUNNING, NULL, &cause) == -1)
		fail_msg("%s", cause);
	return job;
}

/* A run of job on vm under commit c's kernel, started. */
static int64_t
run_add(struct fixture *f, int64_t job, int64_t c)
{
	struct db_run r = { .job = job,
		.machine = "vm",
		.kernel = f->kernel[c],
		.benchmark = "hackbench",
		.params = "groups=1",
		.iterations = 3 };
	char	     *cause = NULL, *agent;
	int64_t	      id;

	agent = xasprintf("j%lld-%lld", (long long)job, (long long)c);
	if ((id = db_run_insert(f->db, &r, &cause)) == -1 ||
	    db_run_start(f->db, id, agent, NULL, &cause) == -1)
		fail_msg("%s", cause);
	free(agent);
	return id;
}

/* Ends job of commit c failed the way e says, without a sample of c. */
static void
step_fail(struct fixture *f, int64_t job, int64_t c, enum step_end e)
{
	char   *cause = NULL;
	int64_t run;

	if (e != NEVER_PLANNED) {
		run = run_add(f, job, c);
		if ((e == BOOT_FAILED &&
			db_run_set_boot_failed(f->db, run, &cause) == -1) ||
		    db_run_set_state(f->db, run, DB_FAILED,
			e == BOOT_FAILED ? "kernel panic"
					 : "vm: ssh: connection refused",
			&cause) == -1)
			fail_msg("%s", cause);
	}
	if (db_job_set_state(f->db, job, DB_FAILED, "x", &cause) == -1)
		fail_msg("%s", cause);
}

/* A done run of job under commit c's kernel with samples x. */
static void
samples_add(struct fixture *f, int64_t job, int64_t c, const double *x,
    size_t n)
{
	struct db_sample s = { .run = run_add(f, job, c), .metric = "time" };
	char		*cause = NULL;
	size_t		 i;

	for (i = 0; i < n; i++) {
		s.iteration = (int64_t)i;
		s.value = x[i];
		if (db_samples_insert(f->db, &s, 1, &cause) != 1)
			fail_msg("%s", cause);
	}
	if (db_run_set_state(f->db, s.run, DB_DONE, NULL, &cause) == -1)
		fail_msg("%s", cause);
}

/* Ends job done (running first, if the bisector just queued it). */
static void
job_done(struct fixture *f, int64_t job)
{
	struct db_job *j;
	char	      *cause = NULL;

	if ((j = db_job_get(f->db, job, &cause)) == NULL ||
	    (j->state == DB_QUEUED &&
		db_job_set_state(f->db, job, DB_RUNNING, NULL, &cause) == -1) ||
	    db_job_set_state(f->db, job, DB_DONE, NULL, &cause) == -1)
		fail_msg("%s", cause);
	db_job_free(j);
}

/* The bisection read back into l. */
static struct db_bisect *
loaded(struct fixture *f, struct bisect_loaded *l)
{
	struct db_bisect *b;
	char		 *cause = NULL;

	if ((b = db_bisect_get(f->db, f->bisect, &cause)) == NULL ||
	    bisect_load(f->db, b, l, &cause) == -1)
		fail_msg("%s", cause);
	return b;
}

/*
 * Samples land under the commit their kernel is named after; a commit that
 * did not build or boot is skipped; the machine's failure is not its.
 */
static void
test_load_classifies(void **state)
{
	static const double  x[] = { 1.0, 1.1, 0.9 }, y[] = { 2.0 };
	struct fixture	    *f = *state;
	struct bisect_loaded l;
	struct db_bisect    *b;
	int64_t		     away, job;

	job = step_add(f, 0);
	samples_add(f, job, 0, x, 3);
	samples_add(f, job, 4, y, 1);
	job_done(f, job);
	step_fail(f, step_add(f, 2), 2, NEVER_PLANNED);
	job = step_add(f, 3);
	samples_add(f, job, 0, x, 1);
	step_fail(f, job, 3, BOOT_FAILED);
	step_fail(f, away = step_add(f, 1), 1, MACHINE_AWAY);
	b = loaded(f, &l);
	assert_int_equal(bisect_search_count(l.search, 0), 4);
	assert_int_equal(bisect_search_count(l.search, 4), 1);
	assert_int_equal(bisect_search_count(l.search, 3), 0);
	assert_true(bisect_search_skipped(l.search, 2));
	assert_true(bisect_search_skipped(l.search, 3));
	assert_false(bisect_search_skipped(l.search, 1));
	assert_int_equal(l.stray_job, away);
	assert_int_equal(l.stray_commit, 1);
	assert_int_equal(l.strays, 1);
	assert_int_equal(l.end_job, 0);
	bisect_loaded_clear(&l);
	db_bisect_free(b);
}

/* The newest step of the bisection: its job and commit. */
static int64_t
newest(struct fixture *f, int64_t *commit, size_t *n)
{
	struct db_bisect_step *s;
	char		      *cause = NULL;
	int64_t		       job;

	if (db_bisect_steps(f->db, f->bisect, &s, n, &cause) == -1)
		fail_msg("%s", cause);
	assert_true(*n > 0);
	job = s[*n - 1].job;
	*commit = s[*n - 1].commit;
	free(s);
	return job;
}

/*
 * An end whose step fails with its machine away is measured again, twice;
 * the third such failure fails the bisection, naming the job and the
 * error, and the failure is mailed through the sweep with the evidence.
 */
static void
test_tick_strays(void **state)
{
	struct fixture	 *f = *state;
	struct db_bisect *b;
	char		 *mail, *cause = NULL, *want;
	int64_t		  job, commit, end;
	size_t		  n, k;

	bisector_tick(f->db);
	job = newest(f, &end, &n);
	assert_int_equal(n, 1);
	assert_int_equal(end, 0);
	for (k = 1; k <= 3; k++) {
		step_fail(f, job, 0, MACHINE_AWAY);
		bisector_tick(f->db);
		if (k < 3) {
			int64_t again = newest(f, &commit, &n);

			assert_int_equal(n, k + 1);
			assert_int_equal(commit, end);
			assert_true(again > job);
			job = again;
		}
	}
	assert_int_equal(newest(f, &commit, &n), job);
	assert_int_equal(n, 3);
	if ((b = db_bisect_get(f->db, f->bisect, &cause)) == NULL)
		fail_msg("%s", cause);
	assert_string_equal(b->state, "failed");
	want = xasprintf("3 step jobs failed with commits that built and "
			 "booted, the last job %lld of commit c%lld: vm: ssh: "
			 "connection refused",
	    (long long)job, (long long)commit);
	assert_string_equal(b->why, want);
	if ((mail = test_slurp(f->mbox, NULL)) == NULL)
		mail = xstrdup(""); /* no mail: the checks below fail */
	assert_non_null(strstr(mail,
	    "Subject: [hilab] sweep nightly: "
	    "bisection 1 failed: hackbench time on "
	    "vm"));
	assert_non_null(strstr(mail, want));
	assert_non_null(strstr(mail, "verdict"));
	free(mail);
	free(want);
	db_bisect_free(b);
}

/*
 * Job's spec in short, into out: "kernels c0 c2 c4; benchmarks c0*1 c2
 * c4*1", each benchmark by its kernel and the iterations it sets, if any.
 */
static void
spec_summary(struct fixture *f, int64_t job, char *out, size_t size)
{
	struct db_job *j;
	json_t	      *o, *v, *it;
	char	      *cause = NULL;
	size_t	       i, len;

	if ((j = db_job_get(f->db, job, &cause)) == NULL)
		fail_msg("%s", cause);
	o = json_loads(j->spec, 0, NULL);
	len = (size_t)snprintf(out, size, "kernels");
	json_array_foreach(json_object_get(o, "kernels"), i, v) len +=
	    (size_t)snprintf(out + len, size - len, " %s",
		json_string_value(json_object_get(v, "name")));
	len += (size_t)snprintf(out + len, size - len, "; benchmarks");
	json_array_foreach(json_object_get(o, "benchmarks"), i, v)
	{
		len += (size_t)snprintf(out + len, size - len, " %s",
		    json_string_value(json_object_get(v, "kernel")));
		if ((it = json_object_get(v, "iterations")) != NULL)
			len += (size_t)snprintf(out + len, size - len, "*%lld",
			    (long long)json_integer_value(it));
	}
	json_decref(o);
	db_job_free(j);
}

/*
 * The ends' own step runs both as the template says; once they differ, a
 * step job measures a commit between them: its kernels are the good end,
 * the commit and the bad end; the ends run once each, the commit as the
 * template says.
 */
static void
test_tick_step_between_ends(void **state)
{
	static const double good[] = { 1.0, 1.02, 0.98, 1.01, 0.99, 1.0 };
	static const double bad[] = { 2.0, 2.02, 1.98, 2.01, 1.99, 2.0 };
	struct fixture	   *f = *state;
	int64_t		    job, commit;
	size_t		    n;
	char		    got[128], want[128];

	bisector_tick(f->db);
	job = newest(f, &commit, &n);
	spec_summary(f, job, got, sizeof got);
	assert_string_equal(got, "kernels c0 c4; benchmarks c0 c4");
	samples_add(f, job, 0, good, 6);
	samples_add(f, job, 4, bad, 6);
	job_done(f, job);
	bisector_tick(f->db);
	job = newest(f, &commit, &n);
	assert_int_equal(n, 2);
	assert_true(commit >= 1 && commit <= 3);
	spec_summary(f, job, got, sizeof got);
	snprintf(want, sizeof want,
	    "kernels c0 c%lld c4; benchmarks c0*1 c%lld c4*1",
	    (long long)commit, (long long)commit);
	assert_string_equal(got, want);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_load_classifies, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tick_strays, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tick_step_between_ends,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
