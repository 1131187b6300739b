/*
 * Tests of the runs of the real hilab-agent binary: spawned as
 * "hilab-agent --dir TMP serve" on pipes, spoken to with the protocol codec,
 * checked against what the runs it starts really do.
 *
 * Usage: test-agent-run AGENT_BINARY [sanitized|plain]
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"
#include "tests/lib/skip.h"
#include "tests/unit/agent/agent_test.h"

/* A run request. */
struct run {
	const char *id;
	const char *argv[8];
	uint64_t    iterations, warmups, timeout_ms;
	const char *cwd;
	const char *env;
};

/* Sends RUN and expects RUN_STARTED; returns the runner's pid. */
static pid_t
start_run(struct agent *a, const struct run *run)
{
	struct proto_buf b;
	struct reply	 r;
	pid_t		 pid;
	int		 i;

	proto_begin(&b, PROTO_RUN);
	proto_add_str(&b, PROTO_T_RUN_ID, run->id);
	for (i = 0; run->argv[i] != NULL; i++)
		proto_add_str(&b, PROTO_T_ARGV, run->argv[i]);
	proto_add_u64(&b, PROTO_T_ITERATIONS, run->iterations);
	proto_add_u64(&b, PROTO_T_WARMUPS, run->warmups);
	if (run->timeout_ms > 0)
		proto_add_u64(&b, PROTO_T_TIMEOUT_MS, run->timeout_ms);
	if (run->cwd != NULL)
		proto_add_str(&b, PROTO_T_CWD, run->cwd);
	if (run->env != NULL)
		proto_add_str(&b, PROTO_T_ENV, run->env);
	agent_send(a, &b);
	agent_expect(a, &r, PROTO_RUN_STARTED);
	pid = reply_u64(&r, PROTO_T_PID);
	assert_true(pid > 0);
	reply_free(&r);
	return pid;
}

/* One RESULT, decoded. */
struct result {
	uint64_t seq, warmup, timed_out, wall_ns;
	int64_t	 exit_status;
	char	*output;
};

/* Receives one RESULT of the run. */
static void
get_result(struct agent *a, const char *id, struct result *res)
{
	struct reply r;
	char	    *s;

	agent_expect(a, &r, PROTO_RESULT);
	s = proto_get_str(&r.m, PROTO_T_RUN_ID);
	assert_string_equal(s, id);
	free(s);
	res->seq = reply_u64(&r, PROTO_T_SEQ);
	res->warmup = reply_u64(&r, PROTO_T_WARMUP);
	res->timed_out = reply_u64(&r, PROTO_T_TIMED_OUT);
	res->wall_ns = reply_u64(&r, PROTO_T_WALL_NS);
	assert_int_equal(proto_get_i64(&r.m, PROTO_T_EXIT_STATUS,
			     &res->exit_status),
	    0);
	res->output = proto_get_str(&r.m, PROTO_T_OUTPUT);
	assert_int_equal(reply_u64(&r, PROTO_T_TRUNCATED), 0);
	reply_free(&r);
}

/* Receives RUN_DONE and checks its state; returns its count. */
static uint64_t
get_done(struct agent *a, const char *id, int state)
{
	struct reply r;
	uint64_t     count;
	char	    *s;

	agent_expect(a, &r, PROTO_RUN_DONE);
	s = proto_get_str(&r.m, PROTO_T_RUN_ID);
	assert_string_equal(s, id);
	free(s);
	assert_int_equal(reply_u64(&r, PROTO_T_STATE), state);
	count = reply_u64(&r, PROTO_T_COUNT);
	reply_free(&r);
	return count;
}

/* Warmups then iterations: seq, warmup flag, exit code, output, cwd, env. */
static void
test_run_results(void **state)
{
	struct run    run = { "r1",
		   { "/bin/sh", "-c",
		       "n=$(cat n 2>/dev/null || echo 0); echo $((n + 1)) > n; "
			  "echo \"out$n $HILAB_T\"; echo err >&2; exit $((n + 3))",
		       NULL },
		   3, 2, 0, NULL, "HILAB_T=hello" };
	struct agent  a;
	struct result res;
	char	      want[64];
	uint64_t      i;

	(void)state;
	agent_spawn_tmp(&a);
	run.cwd = a.dir;
	agent_hello(&a);
	start_run(&a, &run);
	for (i = 0; i < 5; i++) {
		get_result(&a, "r1", &res);
		assert_int_equal(res.seq, i);
		assert_int_equal(res.warmup, i < 2);
		assert_int_equal(res.exit_status, i + 3);
		assert_int_equal(res.timed_out, 0);
		snprintf(want, sizeof want, "out%llu hello\nerr\n",
		    (unsigned long long)i);
		assert_string_equal(res.output, want);
		free(res.output);
	}
	assert_int_equal(get_done(&a, "r1", PROTO_RUN_DONE_OK), 5);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* Runs one iteration of argv and returns its result. */
static void
run_once(struct agent *a, const char *id, const char *const *argv,
    uint64_t timeout_ms, struct result *res)
{
	struct run run = { id, { NULL }, 1, 0, timeout_ms, NULL, NULL };
	int	   i;

	for (i = 0; argv[i] != NULL; i++)
		run.argv[i] = argv[i];
	start_run(a, &run);
	get_result(a, id, res);
	assert_int_equal(get_done(a, id, PROTO_RUN_DONE_OK), 1);
}

/* Exec failures, signals and no shell: argv goes to execvp as is. */
static void
test_run_statuses(void **state)
{
	static const char *const nosuch[] = { "/nonexistent/prog", NULL };
	static const char *const killed[] = { "/bin/sh", "-c", "kill -TERM $$",
		NULL };
	static const char *const literal[] = { "echo", "$HOME", "a;b", NULL };
	struct agent		 a;
	struct result		 res;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	run_once(&a, "nosuch", nosuch, 0, &res);
	assert_int_equal(res.exit_status, 127);
	assert_non_null(strstr(res.output, "exec \"/nonexistent/prog\""));
	free(res.output);
	run_once(&a, "killed", killed, 0, &res);
	assert_int_equal(res.exit_status, -SIGTERM);
	free(res.output);
	run_once(&a, "literal", literal, 0, &res);
	assert_int_equal(res.exit_status, 0);
	assert_string_equal(res.output, "$HOME a;b\n");
	free(res.output);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* A run of sleep 0.3 measures about 0.3 s of wall time. */
static void
test_run_wall(void **state)
{
	static const char *const argv[] = { "sleep", "0.3", NULL };
	struct agent		 a;
	struct result		 res;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	run_once(&a, "wall", argv, 0, &res);
	assert_int_equal(res.exit_status, 0);
	assert_true(res.wall_ns >= 300000000u);
	assert_true(res.wall_ns < 5000000000u); /* room for a loaded machine */
	free(res.output);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* True if the process is gone (or a zombie nobody reaped yet). */
static int
process_gone(pid_t pid)
{
	char path[64], *stat, *p;
	int  gone;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((stat = slurp(path)) == NULL)
		return 1;
	p = strrchr(stat, ')');
	gone = p != NULL && p[1] == ' ' && p[2] == 'Z';
	free(stat);
	return gone;
}

/* A timeout kills the benchmark's whole process group at the deadline. */
static void
test_timeout(void **state)
{
	static const char *const argv[] = { "/bin/sh", "-c",
		"sleep 100 & echo $!; wait", NULL };
	struct agent		 a;
	struct result		 res;
	uint64_t		 t0;
	pid_t			 child;
	int			 i;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	t0 = now_ns();
	run_once(&a, "slow", argv, 200, &res);
	assert_true(now_ns() - t0 < 20000000000u);
	assert_int_equal(res.timed_out, 1);
	assert_int_equal(res.exit_status, -SIGKILL);
	assert_true(res.wall_ns >= 200000000u);
	assert_true(res.wall_ns < 10000000000u);
	child = atoi(res.output);
	assert_true(child > 0);
	for (i = 0; i < 100 && !process_gone(child); i++)
		usleep(10000);
	assert_true(process_gone(child));
	free(res.output);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* Sends STATUS_REQ (for one run, or all) and expects a STATUS. */
static void
get_status(struct agent *a, const char *id, struct reply *r)
{
	struct proto_buf b;

	proto_begin(&b, PROTO_STATUS_REQ);
	if (id != NULL)
		proto_add_str(&b, PROTO_T_RUN_ID, id);
	agent_send(a, &b);
	agent_expect(a, r, PROTO_STATUS);
}

/* The state a STATUS gives a run; -1 if it does not list it. */
static int
status_of(const struct reply *r, const char *id, uint64_t *count)
{
	uint16_t i;

	for (i = 0; i + 2 < r->m.nfields; i += 3) {
		if (r->m.fields[i].len == strlen(id) &&
		    memcmp(r->m.fields[i].data, id, strlen(id)) == 0) {
			*count = r->m.fields[i + 2].u;
			return r->m.fields[i + 1].u;
		}
	}
	return -1;
}

/* Sends FETCH. */
static void
send_fetch(struct agent *a, const char *id, uint64_t from, int wait)
{
	struct proto_buf b;

	proto_begin(&b, PROTO_FETCH);
	proto_add_str(&b, PROTO_T_RUN_ID, id);
	proto_add_u64(&b, PROTO_T_FROM_SEQ, from);
	if (wait)
		proto_add_u64(&b, PROTO_T_WAIT, 1);
	agent_send(a, &b);
}

/* Sends ACK and expects ACKED (or ERROR if the agent refuses). */
static void
send_ack(struct agent *a, const char *id, int type)
{
	struct proto_buf b;
	struct reply	 r;

	proto_begin(&b, PROTO_ACK);
	proto_add_str(&b, PROTO_T_RUN_ID, id);
	agent_send(a, &b);
	agent_expect(a, &r, type);
	reply_free(&r);
}

/* After the first result the serving agent is killed; the run goes on. */
static void
start_and_drop(struct agent *a)
{
	struct run    run = { "drop", { "sleep", "0.2", NULL }, 4, 1, 0, NULL,
		   NULL };
	struct result res;

	agent_spawn_tmp(a);
	agent_hello(a);
	start_run(a, &run);
	get_result(a, "drop", &res);
	assert_int_equal(res.seq, 0);
	free(res.output);
	kill(a->pid, SIGKILL);
	assert_int_equal(agent_wait(a), -SIGKILL);
}

/* FETCH with WAIT on a new agent returns every iteration once, in order. */
static void
test_drop_fetch(void **state)
{
	struct agent  a;
	struct reply  r;
	struct result res;
	uint64_t      i, count;

	(void)state;
	start_and_drop(&a);
	agent_spawn(&a, a.dir);
	agent_hello(&a);
	get_status(&a, "drop", &r);
	assert_int_equal(status_of(&r, "drop", &count), PROTO_RUN_RUNNING);
	assert_true(count >= 1 && count < 5);
	reply_free(&r);
	send_ack(&a, "drop", PROTO_ERROR);
	send_fetch(&a, "drop", 0, 1);
	for (i = 0; i < 5; i++) {
		get_result(&a, "drop", &res);
		assert_int_equal(res.seq, i);
		assert_int_equal(res.warmup, i == 0);
		assert_int_equal(res.exit_status, 0);
		assert_true(res.wall_ns >= 200000000u);
		free(res.output);
	}
	assert_int_equal(get_done(&a, "drop", PROTO_RUN_DONE_OK), 5);
	send_fetch(&a, "drop", 3, 0);
	get_result(&a, "drop", &res);
	assert_int_equal(res.seq, 3);
	free(res.output);
	get_result(&a, "drop", &res);
	assert_int_equal(res.seq, 4);
	free(res.output);
	assert_int_equal(get_done(&a, "drop", PROTO_RUN_DONE_OK), 5);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* STATUS lists runs; ACK deletes the spool; unknown runs say UNKNOWN. */
static void
test_status_ack(void **state)
{
	static const char *const argv[] = { "true", NULL };
	struct agent		 a;
	struct reply		 r;
	struct result		 res;
	struct stat		 st;
	uint64_t		 count;
	char			 path[128];

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	run_once(&a, "one", argv, 0, &res);
	free(res.output);
	run_once(&a, "two", argv, 0, &res);
	free(res.output);
	get_status(&a, NULL, &r);
	assert_int_equal(r.m.nfields, 6);
	assert_int_equal(status_of(&r, "one", &count), PROTO_RUN_DONE_OK);
	assert_int_equal(count, 1);
	assert_int_equal(status_of(&r, "two", &count), PROTO_RUN_DONE_OK);
	reply_free(&r);
	snprintf(path, sizeof path, "%s/spool/one", a.dir);
	assert_int_equal(stat(path, &st), 0);
	send_ack(&a, "one", PROTO_ACKED);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	get_status(&a, "one", &r);
	assert_int_equal(status_of(&r, "one", &count), PROTO_RUN_UNKNOWN);
	assert_int_equal(count, 0);
	reply_free(&r);
	send_fetch(&a, "one", 0, 1);
	assert_int_equal(get_done(&a, "one", PROTO_RUN_UNKNOWN), 0);
	get_status(&a, NULL, &r);
	assert_int_equal(r.m.nfields, 3);
	reply_free(&r);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* A run id in use is refused and the session goes on. */
static void
test_run_id_taken(void **state)
{
	static const char *const argv[] = { "true", NULL };
	struct run run = { "same", { "false", NULL }, 1, 0, 0, NULL, NULL };
	struct proto_buf b;
	struct agent	 a;
	struct reply	 r;
	struct result	 res;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	run_once(&a, "same", argv, 0, &res);
	free(res.output);
	proto_begin(&b, PROTO_RUN);
	proto_add_str(&b, PROTO_T_RUN_ID, run.id);
	proto_add_str(&b, PROTO_T_ARGV, run.argv[0]);
	proto_add_u64(&b, PROTO_T_ITERATIONS, 1);
	proto_add_u64(&b, PROTO_T_WARMUPS, 0);
	agent_send(&a, &b);
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	/* The first run's results are untouched. */
	send_fetch(&a, "same", 0, 0);
	get_result(&a, "same", &res);
	assert_int_equal(res.exit_status, 0);
	free(res.output);
	assert_int_equal(get_done(&a, "same", PROTO_RUN_DONE_OK), 1);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* Appends the first bytes of a frame to the run's results: a torn write. */
static void
tear_results(const char *dir, const char *id)
{
	static const unsigned char torn[] = { 0, 0, 1, 0, 0, PROTO_RESULT, 0 };
	char			   path[128];
	int			   fd;

	snprintf(path, sizeof path, "%s/spool/%s/results", dir, id);
	assert_true((fd = open(path, O_WRONLY | O_APPEND)) != -1);
	assert_int_equal(write(fd, torn, sizeof torn), (ssize_t)sizeof torn);
	close(fd);
}

/* A killed runner leaves a FAILED run; a torn last record is ignored. */
static void
test_runner_killed(void **state)
{
	struct run run = { "dies", { "sleep", "0.05", NULL }, 1000, 0, 0, NULL,
		NULL };
	struct agent  a;
	struct result res;
	uint64_t      count, i;
	pid_t	      runner;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	runner = start_run(&a, &run);
	get_result(&a, "dies", &res);
	free(res.output);
	get_result(&a, "dies", &res);
	free(res.output);
	kill(runner, SIGKILL);
	/* Results it sent before dying may still be in the pipe. */
	for (;;) {
		struct reply r;

		agent_recv(&a, &r);
		if (r.m.type == PROTO_RUN_DONE) {
			assert_int_equal(reply_u64(&r, PROTO_T_STATE),
			    PROTO_RUN_FAILED);
			count = reply_u64(&r, PROTO_T_COUNT);
			reply_free(&r);
			break;
		}
		assert_int_equal(r.m.type, PROTO_RESULT);
		reply_free(&r);
	}
	assert_true(count >= 2);
	tear_results(a.dir, "dies");
	send_fetch(&a, "dies", 0, 1);
	for (i = 0; i < count; i++) {
		get_result(&a, "dies", &res);
		assert_int_equal(res.seq, i);
		free(res.output);
	}
	assert_int_equal(get_done(&a, "dies", PROTO_RUN_FAILED), count);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* Runs /bin/true n times by fork+exec+wait4 here; mean ns per run. */
static uint64_t
direct_runs(int n)
{
	uint64_t t0 = now_ns();
	pid_t	 pid;
	int	 i, status;

	for (i = 0; i < n; i++) {
		if ((pid = fork()) == 0) {
			execl("/bin/true", "true", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &status, 0);
	}
	return (now_ns() - t0) / n;
}

/* The agent's cost per iteration next to a bare fork+exec+wait loop. */
static void
test_overhead(void **state)
{
	struct run    run = { "cost", { "/bin/true", NULL }, 200, 0, 0, NULL,
		   NULL };
	struct agent  a;
	struct result res;
	uint64_t      t0, total, wall = 0, direct;
	int	      i;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	direct = direct_runs(200);
	t0 = now_ns();
	start_run(&a, &run);
	for (i = 0; i < 200; i++) {
		get_result(&a, "cost", &res);
		wall += res.wall_ns;
		free(res.output);
	}
	get_done(&a, "cost", PROTO_RUN_DONE_OK);
	total = now_ns() - t0;
	print_message("agent: %.3f ms per iteration end to end, WALL_NS mean "
		      "%.3f ms; bare fork+exec+wait %.3f ms\n",
	    total / 200 / 1e6, wall / 200 / 1e6, direct / 1e6);
	/* What WALL_NS measures is inside what the whole loop took. */
	assert_true(wall < total);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* The agent is a static executable: no program interpreter. */
static void
test_static(void **state)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int	   fd, i;

	(void)state;
	if (agent_sanitized)
		skip_machine("a sanitized build links the agent dynamically");
	assert_true((fd = open(agent_path, O_RDONLY)) != -1);
	assert_int_equal(pread(fd, &eh, sizeof eh, 0), (ssize_t)sizeof eh);
	assert_memory_equal(eh.e_ident, ELFMAG, SELFMAG);
	assert_int_equal(eh.e_ident[EI_CLASS], ELFCLASS64);
	assert_true(eh.e_phnum > 0);
	for (i = 0; i < eh.e_phnum; i++) {
		assert_int_equal(pread(fd, &ph, sizeof ph,
				     eh.e_phoff + (off_t)i * eh.e_phentsize),
		    (ssize_t)sizeof ph);
		if (ph.p_type == PT_INTERP)
			fail_msg("\"%s\" has a program interpreter: dynamic",
			    agent_path);
	}
	close(fd);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_results),
		cmocka_unit_test(test_run_statuses),
		cmocka_unit_test(test_run_wall),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_drop_fetch),
		cmocka_unit_test(test_status_ack),
		cmocka_unit_test(test_run_id_taken),
		cmocka_unit_test(test_runner_killed),
		cmocka_unit_test(test_overhead),
		cmocka_unit_test(test_static),
	};

	if (agent_test_args(argc, argv, "test-agent-run") == -1)
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
