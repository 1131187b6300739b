/*
 * Tests of the real hilab-agent binary: spawned as "hilab-agent --dir TMP
 * serve" on pipes, spoken to with the protocol codec, checked against this
 * machine and against what the runs it starts really do.
 *
 * Usage: test-agent AGENT_BINARY [sanitized|plain]
 */
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"
#include "tests/lib/skip.h"

static const char *agent_path;
static int	   agent_sanitized;

/* One spawned "hilab-agent serve" and the test's ends of its pipes. */
struct agent {
	pid_t pid;
	int   to;   /* its stdin */
	int   from; /* its stdout */
	char  dir[64];
};

/* A received message and the payload its fields point into. */
struct reply {
	struct proto_msg m;
	unsigned char	*payload;
};

/* Nanoseconds of CLOCK_MONOTONIC. */
static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Starts an agent serving on pipes with its spool in dir. */
static void
agent_spawn(struct agent *a, const char *dir)
{
	int in[2], out[2];

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	if (dir != a->dir)
		snprintf(a->dir, sizeof a->dir, "%s", dir);
	a->pid = fork();
	assert_true(a->pid != -1);
	if (a->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(agent_path, "hilab-agent", "--dir", dir, "serve",
		    (char *)NULL);
		_exit(126);
	}
	close(in[0]);
	close(out[1]);
	a->to = in[1];
	a->from = out[0];
}

/* Starts an agent in a new temporary directory. */
static void
agent_spawn_tmp(struct agent *a)
{
	char dir[] = "/tmp/hilab-agent-test.XXXXXX";

	assert_non_null(mkdtemp(dir));
	agent_spawn(a, dir);
}

/* Sends a finished frame. */
static void
agent_send(struct agent *a, struct proto_buf *b)
{
	proto_end(b);
	assert_int_equal(proto_write_frame(a->to, b), 0);
	proto_buf_free(b);
}

/* Receives and decodes one message; fails the test after 30 s. */
static void
agent_recv(struct agent *a, struct reply *r)
{
	struct pollfd pfd = { a->from, POLLIN, 0 };
	char	      err[256];
	size_t	      len;

	assert_int_equal(poll(&pfd, 1, 30000), 1);
	if (proto_read_frame(a->from, &r->payload, &len, err, sizeof err) != 0)
		fail_msg("no frame from the agent: %s", err);
	if (proto_decode(r->payload, len, &r->m, err, sizeof err) == -1)
		fail_msg("bad frame from the agent: %s", err);
}

/* Receives a message that must be of the given type. */
static void
agent_expect(struct agent *a, struct reply *r, int type)
{
	char *msg;

	agent_recv(a, r);
	if (r->m.type != type) {
		msg = proto_get_str(&r->m, PROTO_T_MESSAGE);
		fail_msg("expected %s, got %s (%s)", proto_type_name(type),
		    proto_type_name(r->m.type), msg ? msg : "");
	}
}

/* Frees a reply. */
static void
reply_free(struct reply *r)
{
	proto_msg_clear(&r->m);
	free(r->payload);
	r->payload = NULL;
}

/* An unsigned field of a reply, which must be there. */
static uint64_t
reply_u64(const struct reply *r, enum proto_tag tag)
{
	uint64_t v = 0;

	assert_int_equal(proto_get_u64(&r->m, tag, &v), 0);
	return v;
}

/* Waits for the agent to exit; returns its exit code, -signal if killed. */
static int
agent_wait(struct agent *a)
{
	int status;

	close(a->to);
	close(a->from);
	assert_int_equal(waitpid(a->pid, &status, 0), a->pid);
	if (WIFSIGNALED(status))
		return -WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Removes one file or directory of a tree. */
static int
rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Removes a temporary directory tree. */
static void
rm_tree(const char *dir)
{
	nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Sends HELLO with a version. */
static void
send_hello(struct agent *a, uint64_t version)
{
	struct proto_buf b;

	proto_begin(&b, PROTO_HELLO);
	proto_add_u64(&b, PROTO_T_VERSION, version);
	agent_send(a, &b);
}

/* Exchanges HELLO. */
static void
agent_hello(struct agent *a)
{
	struct reply r;

	send_hello(a, PROTO_VERSION);
	agent_expect(a, &r, PROTO_HELLO);
	assert_int_equal(reply_u64(&r, PROTO_T_VERSION), PROTO_VERSION);
	reply_free(&r);
}

/* Sends a request without fields. */
static void
send_empty(struct agent *a, int type)
{
	struct proto_buf b;

	proto_begin(&b, type);
	agent_send(a, &b);
}

/* Ends a session with BYE; the agent must exit 0. */
static void
agent_bye(struct agent *a)
{
	send_empty(a, PROTO_BYE);
	assert_int_equal(agent_wait(a), 0);
}

/* HELLO answers with our version, the agent's version and its arch. */
static void
test_hello(void **state)
{
	struct agent   a;
	struct reply   r;
	struct utsname u;
	char	      *s;

	(void)state;
	agent_spawn_tmp(&a);
	send_hello(&a, PROTO_VERSION);
	agent_expect(&a, &r, PROTO_HELLO);
	assert_int_equal(reply_u64(&r, PROTO_T_VERSION), PROTO_VERSION);
	s = proto_get_str(&r.m, PROTO_T_AGENT_VERSION);
	assert_non_null(s);
	assert_true(strlen(s) > 0);
	free(s);
	assert_int_equal(uname(&u), 0);
	s = proto_get_str(&r.m, PROTO_T_ARCH);
	assert_string_equal(s, u.machine);
	free(s);
	reply_free(&r);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* An unsupported version gets an ERROR and the agent leaves. */
static void
test_version_mismatch(void **state)
{
	struct agent a;
	struct reply r;
	char	    *s;

	(void)state;
	agent_spawn_tmp(&a);
	send_hello(&a, PROTO_VERSION + 1);
	agent_expect(&a, &r, PROTO_ERROR);
	s = proto_get_str(&r.m, PROTO_T_MESSAGE);
	assert_non_null(strstr(s, "version"));
	free(s);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 1);
	rm_tree(a.dir);
}

/* Anything but HELLO first, and unexpected types later, drop the peer. */
static void
test_unexpected(void **state)
{
	struct agent a;
	struct reply r;

	(void)state;
	agent_spawn_tmp(&a);
	send_empty(&a, PROTO_FACTS_REQ);
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 2);
	agent_spawn(&a, a.dir);
	agent_hello(&a);
	send_hello(&a, PROTO_VERSION);
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 2);
	agent_spawn(&a, a.dir);
	agent_hello(&a);
	send_empty(&a, PROTO_STATUS);
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 2);
	rm_tree(a.dir);
}

/* Writes raw bytes to the agent, then expects ERROR and exit 2. */
static void
expect_dropped(const unsigned char *bytes, size_t len, int close_after)
{
	struct agent a;
	struct reply r;

	agent_spawn_tmp(&a);
	agent_hello(&a);
	assert_int_equal(write(a.to, bytes, len), (ssize_t)len);
	if (close_after) {
		close(a.to);
		a.to = open("/dev/null", O_WRONLY);
	}
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 2);
	rm_tree(a.dir);
}

/* Garbage, oversized and short frames get ERROR and exit 2; EOF exit 0. */
static void
test_garbage(void **state)
{
	static const unsigned char garbage[] = { 0, 0, 0, 8, 0xde, 0xad, 0xbe,
		0xef, 0x00, 0x01, 0x02, 0x03 };
	static const unsigned char huge[] = { 0x7f, 0xff, 0xff, 0xff, 0, 1 };
	static const unsigned char shortf[] = { 0, 0, 0, 20, 0, 14, 0, 0 };
	static const unsigned char trailing[] = { 0, 0, 0, 5, 0, 14, 0, 0, 0 };
	struct agent		   a;

	(void)state;
	expect_dropped(garbage, sizeof garbage, 0);
	expect_dropped(huge, sizeof huge, 0);
	expect_dropped(shortf, sizeof shortf, 1);
	expect_dropped(trailing, sizeof trailing, 0);
	agent_spawn_tmp(&a);
	agent_hello(&a);
	assert_int_equal(agent_wait(&a), 0);
	rm_tree(a.dir);
}

/* The facts received, as parallel key/value arrays (value NULL = absent). */
struct facts {
	char *key[64];
	char *value[64];
	int   n;
};

/* Asks for the facts. */
static void
get_facts(struct agent *a, struct facts *f)
{
	struct reply r;
	uint16_t     i;

	send_empty(a, PROTO_FACTS_REQ);
	agent_expect(a, &r, PROTO_FACTS);
	memset(f, 0, sizeof *f);
	for (i = 0; i < r.m.nfields; i += 2) {
		assert_true(f->n < 64);
		f->key[f->n] = proto_field_str(&r.m.fields[i]);
		f->value[f->n++] = proto_field_str(&r.m.fields[i + 1]);
	}
	reply_free(&r);
}

/* A fact's value; the key must have been reported (maybe absent). */
static const char *
fact(const struct facts *f, const char *key)
{
	int i;

	for (i = 0; i < f->n; i++) {
		if (strcmp(f->key[i], key) == 0)
			return f->value[i];
	}
	fail_msg("fact \"%s\" not reported", key);
	return NULL;
}

/* A fact that must be present, as a number. */
static long long
fact_num(const struct facts *f, const char *key)
{
	const char *v = fact(f, key);
	char	   *end;
	long long   n;

	if (v == NULL)
		fail_msg("fact \"%s\" absent", key);
	n = strtoll(v, &end, 10);
	if (*v == '\0' || *end != '\0')
		fail_msg("fact \"%s\" = \"%s\": not a number", key, v);
	return n;
}

/* Reads a whole small file, trailing newline cut. */
static char *
slurp(const char *path)
{
	char   buf[4096];
	FILE  *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return strdup(buf);
}

/* A fact is absent exactly when its source file is missing. */
static void
check_file_fact(const struct facts *f, const char *key, const char *path)
{
	const char *v = fact(f, key);
	char	   *want = slurp(path);

	if (want == NULL && v != NULL)
		fail_msg("%s = \"%s\" but %s is missing", key, v, path);
	if (want != NULL && (v == NULL || strcmp(v, want) != 0))
		fail_msg("%s = \"%s\", %s says \"%s\"", key, v ? v : "(absent)",
		    path, want);
	free(want);
}

/* The number of CPUs a list like "0-3;8-11" names. */
static long
count_cpus(const char *s)
{
	long  lo, hi, n = 0;
	char *end;

	while (*s != '\0') {
		lo = strtol(s, &end, 10);
		hi = *end == '-' ? strtol(end + 1, &end, 10) : lo;
		n += hi - lo + 1;
		s = *end != '\0' ? end + 1 : end;
	}
	return n;
}

/* Checks the topology facts add up to the CPUs online. */
static void
check_topology(const struct facts *f)
{
	long long   online = fact_num(f, "cpu.online");
	const char *llc = fact(f, "topo.llc_groups");

	assert_int_equal(online, sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(count_cpus(fact(f, "cpu.online_list")), online);
	assert_int_equal(fact_num(f, "topo.sockets") *
		fact_num(f, "topo.cores_per_socket") *
		fact_num(f, "topo.threads_per_core"),
	    online);
	assert_true(fact_num(f, "topo.dies") >= 1);
	if (llc != NULL)
		assert_int_equal(count_cpus(llc), online);
	else
		assert_int_equal(access("/sys/devices/system/cpu/cpu0/cache",
				     F_OK),
		    -1);
}

/* Checks the NUMA and memory facts against /sys and sysinfo(2). */
static void
check_numa_mem(const struct facts *f)
{
	struct sysinfo si;
	glob_t	       g;
	size_t	       nodes = 0;

	if (glob("/sys/devices/system/node/node[0-9]*", 0, NULL, &g) == 0)
		nodes = g.gl_pathc;
	globfree(&g);
	if (access("/sys/devices/system/node", F_OK) == -1)
		assert_null(fact(f, "numa.nodes"));
	else {
		assert_int_equal(fact_num(f, "numa.nodes"), nodes);
		assert_int_equal(count_cpus(fact(f, "numa.node_list")), nodes);
	}
	assert_int_equal(sysinfo(&si), 0);
	assert_int_equal(fact_num(f, "mem.total_kb"),
	    (long long)si.totalram * si.mem_unit / 1024);
}

/* The facts match this machine; absent ones are really missing here. */
static void
test_facts(void **state)
{
	struct agent   a;
	struct facts   f;
	struct utsname u;
	int	       i;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	get_facts(&a, &f);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(fact(&f, "kernel.release"), u.release);
	assert_string_equal(fact(&f, "kernel.version"), u.version);
	assert_string_equal(fact(&f, "arch"), u.machine);
	check_file_fact(&f, "boot_id", "/proc/sys/kernel/random/boot_id");
	check_file_fact(&f, "kernel.cmdline", "/proc/cmdline");
	check_file_fact(&f, "cpufreq.governor",
	    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	check_file_fact(&f, "cpufreq.boost",
	    "/sys/devices/system/cpu/cpufreq/boost");
	check_file_fact(&f, "intel_pstate.no_turbo",
	    "/sys/devices/system/cpu/intel_pstate/no_turbo");
	check_file_fact(&f, "smt.control",
	    "/sys/devices/system/cpu/smt/control");
	check_file_fact(&f, "clocksource",
	    "/sys/devices/system/clocksource/"
	    "clocksource0/current_clocksource");
	check_topology(&f);
	check_numa_mem(&f);
	assert_non_null(fact(&f, "cpu.model"));
	assert_int_equal(f.n, 29);
	for (i = 0; i < f.n; i++) {
		free(f.key[i]);
		free(f.value[i]);
	}
	agent_bye(&a);
	rm_tree(a.dir);
}

/* "hilab-agent facts" prints the same facts people-readably. */
static void
test_facts_cli(void **state)
{
	struct agent a;
	struct facts f;
	char	     cmd[512], line[8192], want[8192];
	FILE	    *p;
	int	     i = 0;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	get_facts(&a, &f);
	agent_bye(&a);
	snprintf(cmd, sizeof cmd, "'%s' facts", agent_path);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(line, sizeof line, p) != NULL) {
		assert_true(i < f.n);
		if (f.value[i] == NULL)
			snprintf(want, sizeof want, "%s (absent)\n", f.key[i]);
		else
			snprintf(want, sizeof want, "%s=%s\n", f.key[i],
			    f.value[i]);
		assert_string_equal(line, want);
		free(f.key[i]);
		free(f.value[i]);
		i++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(i, f.n);
	rm_tree(a.dir);
}

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
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_version_mismatch),
		cmocka_unit_test(test_unexpected),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_facts_cli),
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
	static char path[4096];
	const char *dir;

	if (argc > 1)
		agent_path = argv[1];
	else if ((dir = getenv("HILAB_AGENT_DIR")) != NULL) {
		snprintf(path, sizeof path, "%s/hilab-agent", dir);
		agent_path = path;
	} else {
		fprintf(stderr, "usage: test-agent AGENT [sanitized|plain]\n");
		return 2;
	}
	agent_sanitized = argc > 2 && strcmp(argv[2], "sanitized") == 0;
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
