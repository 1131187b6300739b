/*
 * Drives the agent client against a real sshd and hilab-agent for
 * agent.sh.  Machine options as in driver.c, then AGENT_DIR and:
 *	connect			print "uploaded=0|1 arch=ARCH"; exit 3: refused
 *	facts			print "key=value" or "key absent" per fact
 *	run [-e NEEDLE] [-x CMD] RUN_ID ITERATIONS WARMUPS ARGV...
 *				stream a run; each result must exit 0 and
 *				contain NEEDLE; CMD runs after the first
 *				result, and the run must then be cut off
 *				(exit 4 once the drop is seen)
 *	fetch RUN_ID FROM_SEQ WAIT	replay results
 *	ack RUN_ID
 *	reuse RUN_ID		a run with an id in use is refused, and the
 *				connection still answers
 *	overhead N		per-iteration cost of "true" through the agent
 *				against N bare ssh commands
 * Results print as "result seq=N warmup=W exit=E wall_ms=T", the end as
 * "done state=S".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "machines/agent_client.h"
#include "machines/ssh.h"
#include "tests/integration/driver.h"

/* What the result callback checks and does. */
struct itest_run {
	const char *needle;  /* each output must contain it */
	const char *cut_cmd; /* run after the first result */
	unsigned    seen;
	uint64_t    wall_ns; /* sum over results */
	bool	    quiet;
};

/* Connects or dies with the cause. */
static struct agent_conn *
itest_connect(const struct machine *m, const char *dir)
{
	struct agent_conn *c;
	char		  *cause = NULL;

	if ((c = agent_connect(m, dir, &cause)) == NULL)
		driver_die("%s", cause);
	return c;
}

/* Prints and checks one result; runs the cut command after the first. */
static int
itest_result_cb(const struct agent_result *r, void *arg)
{
	struct itest_run *run = arg;

	if (r == NULL) /* a second of silence */
		return 0;
	if (!run->quiet)
		printf("result seq=%llu warmup=%d exit=%lld wall_ms=%.3f "
		       "utime_us=%llu bytes=%zu\n",
		    (unsigned long long)r->seq, r->warmup,
		    (long long)r->exit_status, r->wall_ns / 1e6,
		    (unsigned long long)r->utime_us, r->output_len);
	if (r->exit_status != 0 || r->timed_out)
		driver_die("result %llu: exit %lld%s: %s",
		    (unsigned long long)r->seq, (long long)r->exit_status,
		    r->timed_out ? " (timed out)" : "", r->output);
	if (run->needle != NULL && strstr(r->output, run->needle) == NULL)
		driver_die("result %llu: no \"%s\" in output: %s",
		    (unsigned long long)r->seq, run->needle, r->output);
	if (strlen(r->output) != r->output_len)
		driver_die("result %llu: output length %zu, string %zu",
		    (unsigned long long)r->seq, r->output_len,
		    strlen(r->output));
	run->wall_ns += r->wall_ns;
	if (run->seen++ == 0 && run->cut_cmd != NULL) {
		fflush(stdout);
		if (system(run->cut_cmd) != 0)
			driver_die("cut command failed: %s", run->cut_cmd);
		printf("cut after the first result\n");
	}
	fflush(stdout);
	return 0;
}

static int
itest_cmd_connect(const struct machine *m, const char *dir)
{
	struct agent_conn *c;
	char		  *cause = NULL;
	uint64_t	   t0 = driver_now_ns(), t1;

	if ((c = agent_connect(m, dir, &cause)) == NULL) {
		printf("%s\n", cause);
		free(cause);
		return 3;
	}
	t1 = driver_now_ns();
	printf("uploaded=%d arch=%s\n", agent_uploaded(c), agent_arch(c));
	agent_close(c);
	fprintf(stderr, "agent_connect %.1f ms, agent_close %.1f ms\n",
	    (double)(t1 - t0) / 1e6, (double)(driver_now_ns() - t1) / 1e6);
	return 0;
}

static int
itest_cmd_facts(const struct machine *m, const char *dir)
{
	struct agent_conn *c = itest_connect(m, dir);
	struct agent_facts f;
	char		  *cause = NULL;
	size_t		   i;

	if (agent_facts(c, &f, &cause) != 0)
		driver_die("%s", cause);
	for (i = 0; i < f.n; i++) {
		if (f.v[i].value != NULL)
			printf("%s=%s\n", f.v[i].key, f.v[i].value);
		else
			printf("%s absent\n", f.v[i].key);
	}
	if (f.n > 0 && agent_facts_get(&f, f.v[0].key) != f.v[0].value)
		driver_die("agent_facts_get does not find \"%s\"", f.v[0].key);
	if (agent_facts_get(&f, "no.such.fact") != NULL)
		driver_die("agent_facts_get finds an unknown key");
	agent_facts_clear(&f);
	agent_close(c);
	return 0;
}

static int
itest_cmd_run(const struct machine *m, const char *dir, int argc, char **argv)
{
	struct itest_run      run = { 0 };
	struct agent_run_spec spec = { 0 };
	struct agent_conn    *c;
	char		     *cause = NULL;
	int		      ch, state = 0, rc;

	optind = 1;
	while ((ch = getopt(argc, argv, "+e:x:")) != -1) {
		if (ch == 'e')
			run.needle = optarg;
		else if (ch == 'x')
			run.cut_cmd = optarg;
		else
			driver_usage("itest-agent");
	}
	if (argc - optind < 4)
		driver_usage("itest-agent");
	spec.run_id = argv[optind];
	spec.iterations = (unsigned)atoi(argv[optind + 1]);
	spec.warmups = (unsigned)atoi(argv[optind + 2]);
	spec.argv = argv + optind + 3;
	spec.timeout_ms = 120000;
	c = itest_connect(m, dir);
	rc = agent_run(c, &spec, itest_result_cb, &run, &state, &cause);
	agent_close(c);
	if (run.cut_cmd != NULL) {
		if (rc == 0)
			driver_die("run ended normally despite the cut "
				   "(%u results)",
			    run.seen);
		printf("dropped after %u results: %s\n", run.seen, cause);
		free(cause);
		return 4;
	}
	if (rc != 0)
		driver_die("%s", cause);
	printf("done state=%d results=%u\n", state, run.seen);
	return 0;
}

static int
itest_cmd_fetch(const struct machine *m, const char *dir, const char *run_id,
    uint64_t from, bool wait)
{
	struct itest_run   run = { 0 };
	struct agent_conn *c = itest_connect(m, dir);
	char		  *cause = NULL;
	int		   state = 0;

	if (agent_fetch(c, run_id, from, wait, itest_result_cb, &run, &state,
		&cause) != 0)
		driver_die("%s", cause);
	printf("done state=%d results=%u\n", state, run.seen);
	agent_close(c);
	return 0;
}

static int
itest_cmd_ack(const struct machine *m, const char *dir, const char *run_id)
{
	struct agent_conn *c = itest_connect(m, dir);
	char		  *cause = NULL;

	if (agent_ack(c, run_id, &cause) != 0)
		driver_die("%s", cause);
	printf("acked %s\n", run_id);
	agent_close(c);
	return 0;
}

static int
itest_cmd_reuse(const struct machine *m, const char *dir, const char *run_id)
{
	char *const	      argv[] = { "true", NULL };
	struct agent_run_spec spec = { run_id, argv, 1, 0, 0, NULL, NULL };
	struct agent_conn    *c = itest_connect(m, dir);
	struct agent_facts    f;
	char		     *cause = NULL;
	int		      state;

	if (agent_run(c, &spec, itest_result_cb, NULL, &state, &cause) == 0)
		driver_die("run \"%s\" started twice", run_id);
	printf("refused: %s\n", cause);
	free(cause);
	if (agent_facts(c, &f, &cause) != 0)
		driver_die("after a refused run: %s", cause);
	printf("facts after it: %zu\n", f.n);
	agent_facts_clear(&f);
	agent_close(c);
	return 0;
}

/* Times n bare "true" commands over one ssh session; ns per command. */
static double
itest_bare_loop(const struct machine *m, int n)
{
	struct ssh_host	      *h;
	struct ssh_host_result res;
	char		      *cause = NULL;
	uint64_t	       t0;
	int		       i;

	if ((h = ssh_host_connect(m, 0, &cause)) == NULL)
		driver_die("%s", cause);
	t0 = driver_now_ns();
	for (i = 0; i < n; i++) {
		if (ssh_host_exec(h, "true", &res, &cause) != 0)
			driver_die("%s", cause);
		ssh_host_result_clear(&res);
	}
	t0 = driver_now_ns() - t0;
	ssh_host_close(h);
	return (double)t0 / n;
}

static int
itest_cmd_overhead(const struct machine *m, const char *dir, int n)
{
	char *const	      argv[] = { "true", NULL };
	struct itest_run      run = { .quiet = true };
	struct agent_run_spec spec = { "overhead", argv, (unsigned)n, 0, 0,
		NULL, NULL };
	struct agent_conn    *c;
	char		     *cause = NULL;
	uint64_t	      t0, t1;
	int		      state;
	double		      bare;

	c = itest_connect(m, dir);
	t0 = driver_now_ns();
	if (agent_run(c, &spec, itest_result_cb, &run, &state, &cause) != 0)
		driver_die("%s", cause);
	t1 = driver_now_ns();
	if (agent_ack(c, "overhead", &cause) != 0)
		driver_die("%s", cause);
	agent_close(c);
	bare = itest_bare_loop(m, n);
	printf("agent: %.3f ms per iteration of true (%d iterations, of which "
	       "%.3f ms inside the iteration), bare ssh loop: %.3f ms per "
	       "command\n",
	    (double)(t1 - t0) / n / 1e6, n, (double)run.wall_ns / n / 1e6,
	    bare / 1e6);
	return 0;
}

int
main(int argc, char **argv)
{
	struct machine m;
	const char    *dir, *cmd;
	int	       flags, i, rc = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	i = driver_machine(&m, &flags, argc, argv);
	if (i + 1 >= argc)
		driver_usage(argv[0]);
	dir = argv[i++];
	cmd = argv[i++];
	if (strcmp(cmd, "connect") == 0)
		rc = itest_cmd_connect(&m, dir);
	else if (strcmp(cmd, "facts") == 0)
		rc = itest_cmd_facts(&m, dir);
	else if (strcmp(cmd, "run") == 0)
		rc = itest_cmd_run(&m, dir, argc - i + 1, argv + i - 1);
	else if (strcmp(cmd, "fetch") == 0 && i + 2 < argc)
		rc = itest_cmd_fetch(&m, dir, argv[i],
		    strtoull(argv[i + 1], NULL, 10), atoi(argv[i + 2]) != 0);
	else if (strcmp(cmd, "ack") == 0 && i < argc)
		rc = itest_cmd_ack(&m, dir, argv[i]);
	else if (strcmp(cmd, "reuse") == 0 && i < argc)
		rc = itest_cmd_reuse(&m, dir, argv[i]);
	else if (strcmp(cmd, "overhead") == 0 && i < argc)
		rc = itest_cmd_overhead(&m, dir, atoi(argv[i]));
	else
		driver_usage(argv[0]);
	driver_machine_free(&m);
	return rc;
}
