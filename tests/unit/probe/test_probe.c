/*
 * Tests of the agent's native probes, run through the real hilab-agent
 * binary on this machine.
 *
 * Usage: test-probe AGENT basic	probe list, refusals, a missing
 *					controller, the catalog entry and the
 *					runner's "hilab-agent" hook
 *	  test-probe AGENT cgroup	real cpuset-hotplug runs: exits 77
 *					unless root with cgroup v2 offering
 *					cpu and cpuset and 2 or more CPUs
 *
 * CPUs of this machine are taken offline only when it has more than 2.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
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

#include "benchmarks/catalog.h"
#include "benchmarks/parse.h"
#include "common/proto.h"
#include "common/xmalloc.h"
#include "tests/lib/skip.h"

#define SYS_CPU "/sys/devices/system/cpu"
#define PREFIX	"hilab-probe-"

static const char *agent_path;
static char	  *cg_root; /* the cgroup2 mount, or NULL */

/* One probe process and the files its stdout and stderr go to. */
struct prun {
	pid_t pid;
	char  out[32];
	char  err[32];
	char *stdout_text;
	char *stderr_text;
	int   code; /* exit code, -signal if killed */
};

/* Reads a whole file, trailing newline kept; NULL if unreadable. */
static char *
slurp(const char *path)
{
	char   *buf = xmalloc(1);
	size_t	len = 0;
	ssize_t n;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		free(buf);
		return NULL;
	}
	do {
		buf = xreallocarray(buf, len + 4097, 1);
		n = read(fd, buf + len, 4096);
		len += n > 0 ? (size_t)n : 0;
	} while (n > 0);
	close(fd);
	buf[len] = '\0';
	return buf;
}

/* The first line of a sysfs or cgroup file, newline cut. */
static char *
read_line(const char *path)
{
	char *s = slurp(path);

	if (s != NULL)
		s[strcspn(s, "\n")] = '\0';
	return s;
}

/* Starts "hilab-agent probe ARGS..." with stdout and stderr in files. */
static void
prun_start(struct prun *r, const char *const *args)
{
	const char *argv[32] = { "hilab-agent", "probe" };
	int	    i, fo, fe;

	memset(r, 0, sizeof *r);
	for (i = 0; args[i] != NULL && i < 29; i++)
		argv[i + 2] = args[i];
	strcpy(r->out, "/tmp/probe-out.XXXXXX");
	strcpy(r->err, "/tmp/probe-err.XXXXXX");
	assert_true((fo = mkstemp(r->out)) != -1);
	assert_true((fe = mkstemp(r->err)) != -1);
	r->pid = fork();
	assert_true(r->pid != -1);
	if (r->pid == 0) {
		setpgid(0, 0); /* killed as a group, like the runner does */
		dup2(fo, 1);
		dup2(fe, 2);
		execv(agent_path, (char *const *)argv);
		_exit(126);
	}
	close(fo);
	close(fe);
}

/* Waits for the probe and reads what it printed. */
static void
prun_wait(struct prun *r)
{
	int status;

	assert_int_equal(waitpid(r->pid, &status, 0), r->pid);
	r->code = WIFSIGNALED(status) ? -WTERMSIG(status) : WEXITSTATUS(status);
	r->stdout_text = slurp(r->out);
	r->stderr_text = slurp(r->err);
	assert_non_null(r->stdout_text);
	assert_non_null(r->stderr_text);
}

/* Runs a probe to its end. */
static void
prun(struct prun *r, const char *const *args)
{
	prun_start(r, args);
	prun_wait(r);
}

/* Frees what a probe run holds and removes its files. */
static void
prun_free(struct prun *r)
{
	unlink(r->out);
	unlink(r->err);
	free(r->stdout_text);
	free(r->stderr_text);
}

/* Fails unless the run failed (exit 1) saying want on stderr. */
static void
expect_error(const struct prun *r, const char *want)
{
	if (r->code != 1 || strstr(r->stderr_text, want) == NULL)
		fail_msg("exit %d, stderr \"%s\": expected exit 1 and \"%s\"",
		    r->code, r->stderr_text, want);
}

/* The first cgroup2 mount of /proc/self/mounts, or NULL. */
static char *
cgroup2_mount(void)
{
	struct mntent *e;
	char	      *dir = NULL;
	FILE	      *f;

	if ((f = setmntent("/proc/self/mounts", "r")) == NULL)
		return NULL;
	while (dir == NULL && (e = getmntent(f)) != NULL) {
		if (strcmp(e->mnt_type, "cgroup2") == 0)
			dir = xstrdup(e->mnt_dir);
	}
	endmntent(f);
	return dir;
}

/* Whether word is a blank-separated word of list. */
static int
has_word(const char *list, const char *word)
{
	const char *p = list;
	size_t	    len = strlen(word);

	while (p != NULL && (p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return 1;
		p += len;
	}
	return 0;
}

/* The controllers the cgroup2 root offers ("" if none or no cgroup2). */
static char *
root_controllers(void)
{
	char *path, *s;

	if (cg_root == NULL)
		return xstrdup("");
	path = xasprintf("%s/cgroup.controllers", cg_root);
	s = read_line(path);
	free(path);
	return s != NULL ? s : xstrdup("");
}

/* How many hilab-probe-* cgroups the cgroup2 root holds. */
static int
leftovers(void)
{
	struct dirent *d;
	DIR	      *dp;
	int	       n = 0;

	if (cg_root == NULL || (dp = opendir(cg_root)) == NULL)
		return 0;
	while ((d = readdir(dp)) != NULL)
		n += strncmp(d->d_name, PREFIX, strlen(PREFIX)) == 0;
	closedir(dp);
	return n;
}

/* The online CPUs: their count, and the highest in *last. */
static int
online_cpus(int *last)
{
	char *s = read_line(SYS_CPU "/online"), *p;
	long  lo, hi;
	int   n = 0;

	assert_non_null(s);
	for (p = s, *last = 0; *p != '\0'; p += *p == ',') {
		lo = hi = strtol(p, &p, 10);
		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		n += hi - lo + 1;
		*last = (int)hi;
	}
	free(s);
	return n;
}

/* "probe list" names every probe; an unknown probe is an error. */
static void
test_list(void **state)
{
	static const char *const list[] = { "list", NULL };
	static const char *const bad[] = { "no-such-probe", NULL };
	struct prun		 r;

	(void)state;
	prun(&r, list);
	assert_int_equal(r.code, 0);
	assert_non_null(strstr(r.stdout_text, "cpuset-hotplug "));
	prun_free(&r);
	prun(&r, bad);
	expect_error(&r, "probe \"no-such-probe\": unknown probe");
	prun_free(&r);
}

/* CPU 0, a CPU that does not exist and bad numbers are refused early. */
static void
test_refusals(void **state)
{
	char	    nosuch[32], *possible;
	const char *cpu0[] = { "cpuset-hotplug", "--cgroups", "10",
		"--switches", "2", "--hotplug", "0", "--cpu", "0", NULL };
	const char *none[] = { "cpuset-hotplug", "--hotplug", "0", "--cpu",
		nosuch, NULL };
	const char *num[] = { "cpuset-hotplug", "--cgroups", "x", NULL };
	const char *root[] = { "cpuset-hotplug", "--root", "/tmp", NULL };
	struct prun r;

	(void)state;
	possible = read_line(SYS_CPU "/possible");
	assert_non_null(possible);
	snprintf(nosuch, sizeof nosuch, "%ld",
	    strtol(possible + strcspn(possible, "-") + 1, NULL, 10) + 1);
	free(possible);
	prun(&r, cpu0);
	expect_error(&r, "cpu 0 is refused");
	assert_string_equal(r.stdout_text, "");
	prun_free(&r);
	prun(&r, none);
	expect_error(&r, "no such CPU");
	prun_free(&r);
	prun(&r, num);
	expect_error(&r, "\"--cgroups\": \"x\": not a number");
	prun_free(&r);
	prun(&r, root);
	expect_error(&r, "\"/tmp\": not a cgroup2 directory");
	prun_free(&r);
	assert_int_equal(leftovers(), 0);
}

/* Without cgroup2, or without its cpu or cpuset, the error names it. */
static void
test_missing(void **state)
{
	const char *args[] = { "cpuset-hotplug", "--switches", "2", "--hotplug",
		"0", "--cpu", "last", NULL };
	char	   *have = root_controllers(), want[64];
	const char *c[] = { "cpu", "cpuset" };
	struct prun r;
	int	    last, i;

	(void)state;
	if (online_cpus(&last) < 2 ||
	    (has_word(have, "cpu") && has_word(have, "cpuset"))) {
		free(have);
		skip_machine("this host has both controllers (or one CPU)");
	}
	prun(&r, args);
	if (cg_root == NULL)
		expect_error(&r, "no cgroup2 mount");
	for (i = 0; cg_root != NULL && i < 2; i++) {
		snprintf(want, sizeof want, "controller \"%s\" missing (",
		    c[i]);
		if (!has_word(have, c[i]))
			expect_error(&r, want);
	}
	printf("# this machine: %s", r.stderr_text);
	prun_free(&r);
	free(have);
}

/* The catalog entry loads and expands to the probe's argv. */
static void
test_catalog(void **state)
{
	static const char *const	names[] = { "partition_switch_ms",
		       "cpu_offline_ms", "cpu_online_ms" };
	static const char *const	want[] = { "hilab-agent", "probe",
		       "cpuset-hotplug", "--cgroups", "4000", "--switches", "20",
		       "--hotplug", "16", "--cpu", "31", NULL };
	const struct catalog_setting	set[] = { { "cgroups", "4000" },
		   { "switches", "20" }, { "hotplug", "16" }, { "cpu", "31" } };
	const struct catalog_benchmark *b;
	struct catalog		       *cat;
	char			       *dir, *cause = NULL, **argv;
	size_t				i;

	(void)state;
	dir = xasprintf("%s/benchmarks", getenv("HILAB_SRCDIR"));
	if ((cat = catalog_load(dir, &cause)) == NULL)
		fail_msg("%s", cause);
	assert_non_null(b = catalog_find(cat, "cpuset-hotplug"));
	assert_string_equal(b->parser, "keyvalue");
	assert_int_equal(b->iterations, 1);
	assert_int_equal(b->warmups, 0);
	assert_int_equal(b->nmetrics, 3);
	for (i = 0; i < 3; i++) {
		assert_string_equal(b->metrics[i].name, names[i]);
		assert_string_equal(b->metrics[i].unit, "ms");
		assert_int_equal(b->metrics[i].direction, CATALOG_LOWER);
		assert_int_equal(b->metrics[i].statistic, CATALOG_MEDIAN);
	}
	assert_int_equal(catalog_expand_argv(b, set, 4, &argv, &cause), 0);
	for (i = 0; want[i] != NULL; i++)
		assert_string_equal(argv[i], want[i]);
	assert_null(argv[i]);
	catalog_argv_free(argv);
	catalog_free(cat);
	free(dir);
}

/* Sends one finished frame to the agent. */
static void
send_frame(int fd, struct proto_buf *b)
{
	proto_end(b);
	assert_int_equal(proto_write_frame(fd, b), 0);
	proto_buf_free(b);
}

/* Receives one message of the given type; the caller frees *payload. */
static void
recv_msg(int fd, int type, struct proto_msg *m, unsigned char **payload)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	char	      err[256];
	size_t	      len;

	assert_int_equal(poll(&pfd, 1, 30000), 1);
	if (proto_read_frame(fd, payload, &len, err, sizeof err) != 0 ||
	    proto_decode(*payload, len, m, err, sizeof err) != 0)
		fail_msg("bad frame from the agent: %s", err);
	if ((int)m->type != type)
		fail_msg("expected %s, got %s", proto_type_name(type),
		    proto_type_name(m->type));
}

/* Starts "hilab-agent --dir dir serve" on pipes; *to and *from are ours. */
static pid_t
serve_start(const char *dir, int *to, int *from)
{
	int   in[2], out[2];
	pid_t pid;

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execl(agent_path, "hilab-agent", "--dir", dir, "serve",
		    (char *)NULL);
		_exit(126);
	}
	close(in[0]);
	close(out[1]);
	*to = in[1];
	*from = out[0];
	return pid;
}

/* Runs argv once through the agent's runner; returns its output. */
static char *
serve_run_once(int to, int from, const char *const *argv, int64_t *status)
{
	struct proto_buf b;
	struct proto_msg m;
	unsigned char	*p;
	char		*output;

	proto_begin(&b, PROTO_RUN);
	proto_add_str(&b, PROTO_T_RUN_ID, "hook");
	for (; *argv != NULL; argv++)
		proto_add_str(&b, PROTO_T_ARGV, *argv);
	proto_add_str(&b, PROTO_T_ENV, "PATH=/nonexistent");
	proto_add_u64(&b, PROTO_T_ITERATIONS, 1);
	proto_add_u64(&b, PROTO_T_WARMUPS, 0);
	send_frame(to, &b);
	recv_msg(from, PROTO_RUN_STARTED, &m, &p);
	proto_msg_clear(&m);
	free(p);
	recv_msg(from, PROTO_RESULT, &m, &p);
	assert_int_equal(proto_get_i64(&m, PROTO_T_EXIT_STATUS, status), 0);
	output = proto_get_str(&m, PROTO_T_OUTPUT);
	proto_msg_clear(&m);
	free(p);
	recv_msg(from, PROTO_RUN_DONE, &m, &p);
	proto_msg_clear(&m);
	free(p);
	return output;
}

/* Removes the agent's spool directory of the hook test. */
static void
serve_cleanup(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/*
 * A RUN of argv[0] "hilab-agent" runs the agent itself, even with no
 * hilab-agent on PATH: the runner's hook, as a catalog command uses it.
 */
static void
test_runner_hook(void **state)
{
	static const char *const argv[] = { "hilab-agent", "probe", "list",
		NULL };
	struct proto_buf	 b;
	struct proto_msg	 m;
	unsigned char		*p;
	char			 dir[] = "/tmp/probe-hook.XXXXXX", *out;
	int64_t			 status = -1;
	int			 to, from, st;
	pid_t			 pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	pid = serve_start(dir, &to, &from);
	proto_begin(&b, PROTO_HELLO);
	proto_add_u64(&b, PROTO_T_VERSION, PROTO_VERSION);
	send_frame(to, &b);
	recv_msg(from, PROTO_HELLO, &m, &p);
	proto_msg_clear(&m);
	free(p);
	out = serve_run_once(to, from, argv, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(out, "cpuset-hotplug "));
	free(out);
	proto_begin(&b, PROTO_BYE);
	send_frame(to, &b);
	close(to);
	close(from);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	serve_cleanup(dir);
}

/* The number of samples of metric in res, each checked to be > 0. */
static size_t
samples(const struct parse_result *res, const char *metric, double *sum)
{
	size_t i, n = 0;

	for (i = 0, *sum = 0; i < res->n; i++) {
		if (strcmp(res->v[i].name, metric) != 0)
			continue;
		assert_true(res->v[i].value > 0);
		*sum += res->v[i].value;
		n++;
	}
	return n;
}

/* Checks the samples of a finished run: M switches, K of each hotplug. */
static void
check_samples(const struct prun *r, size_t m, size_t k)
{
	struct parse_result res = { NULL, 0 };
	char		   *cause = NULL;
	double		    sw, off, on;

	if (parse_output("keyvalue", NULL, r->stdout_text,
		strlen(r->stdout_text), &res, &cause) == -1)
		fail_msg("%s", cause);
	assert_int_equal(samples(&res, "partition_switch_ms", &sw), m);
	assert_int_equal(samples(&res, "cpu_offline_ms", &off), k);
	assert_int_equal(samples(&res, "cpu_online_ms", &on), k);
	assert_int_equal(res.n, m + 2 * k);
	printf("# mean partition switch %.3f ms", sw / m);
	if (k > 0)
		printf(", offline %.3f ms, online %.3f ms", off / k, on / k);
	printf("\n");
	parse_result_clear(&res);
}

/*
 * A real run with 1000 cgroups: M switch samples, K hotplug samples when
 * this machine has more than 2 CPUs, and nothing left behind.
 */
static void
test_run(void **state)
{
	const char *args[] = { "cpuset-hotplug", "--cgroups", "1000",
		"--switches", "6", "--hotplug", "0", "--cpu", "last", NULL };
	char	   *before, *after, *line;
	struct prun r;
	int	    last;

	(void)state;
	if (online_cpus(&last) > 2)
		args[6] = "2";
	before = read_line(SYS_CPU "/online");
	prun(&r, args);
	if (r.code != 0)
		fail_msg("exit %d: %s", r.code, r.stderr_text);
	check_samples(&r, 6, args[6][0] - '0');
	assert_non_null(strstr(r.stdout_text, "# cgroups=1000 cpus="));
	assert_non_null(line = strstr(r.stdout_text, "# created 1000 "));
	printf("%.*s\n", (int)strcspn(line, "\n"), line);
	assert_int_equal(leftovers(), 0);
	after = read_line(SYS_CPU "/online");
	assert_string_equal(before, after);
	free(before);
	free(after);
	prun_free(&r);
}

/* Waits up to 60 s for cond(arg); returns whether it came true. */
static int
wait_for(int (*cond)(const void *), const void *arg)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int		i;

	for (i = 0; i < 3000; i++) {
		if (cond(arg))
			return 1;
		nanosleep(&ts, NULL);
	}
	return 0;
}

/* Whether the probe made its 100th task group. */
static int
made_groups(const void *arg)
{
	const struct prun *r = arg;
	char		  *path;
	int		   ok;

	path = xasprintf("%s/" PREFIX "%ld/g100", cg_root, (long)r->pid);
	ok = access(path, F_OK) == 0;
	free(path);
	return ok;
}

/* Whether the probe printed a second line of the metric in *arg. */
static int
printed_twice(const void *arg)
{
	const char *const *a = arg;
	char		  *out = slurp(a[0]), *p;
	int		   ok;

	p = out != NULL ? strstr(out, a[1]) : NULL;
	ok = p != NULL && strstr(p + 1, a[1]) != NULL;
	free(out);
	return ok;
}

/* Whether no probe cgroup is left and the CPUs are as in *arg. */
static int
all_back(const void *arg)
{
	char *now = read_line(SYS_CPU "/online");
	int   ok;

	ok = leftovers() == 0 && strcmp(now, arg) == 0;
	free(now);
	return ok;
}

/* A probe stopped by sig while it makes a million cgroups. */
static void
stop_creating(int sig)
{
	const char *args[] = { "cpuset-hotplug", "--cgroups", "1000000",
		"--switches", "2", "--hotplug", "0", NULL };
	char	   *cpus = read_line(SYS_CPU "/online");
	struct prun r;

	prun_start(&r, args);
	assert_true(wait_for(made_groups, &r));
	kill(-r.pid, sig);
	prun_wait(&r);
	if (sig == SIGTERM) {
		expect_error(&r, "stopped by signal 15");
		assert_int_equal(leftovers(), 0);
	} else
		assert_int_equal(r.code, -SIGKILL);
	assert_true(wait_for(all_back, cpus));
	free(cpus);
	prun_free(&r);
}

/* SIGTERM while creating: the probe cleans up and fails. */
static void
test_term_creating(void **state)
{
	(void)state;
	stop_creating(SIGTERM);
}

/* SIGKILL while creating (as the runner's cancel): the guardian cleans. */
static void
test_kill_creating(void **state)
{
	(void)state;
	stop_creating(SIGKILL);
}

/* A probe stopped by sig after its second sample of metric. */
static void
stop_measuring(int sig, const char *metric, const char *hotplug)
{
	const char *args[] = { "cpuset-hotplug", "--cgroups", "100",
		"--switches", "1000000", "--hotplug", hotplug, NULL };
	char	   *cpus = read_line(SYS_CPU "/online");
	const char *arg[2];
	struct prun r;

	if (hotplug[0] != '0')
		args[4] = "0";
	prun_start(&r, args);
	arg[0] = r.out;
	arg[1] = metric;
	assert_true(wait_for(printed_twice, arg));
	kill(-r.pid, sig);
	prun_wait(&r);
	if (sig == SIGTERM) {
		expect_error(&r, "stopped by signal 15");
		assert_true(all_back(cpus));
	} else
		assert_int_equal(r.code, -SIGKILL);
	assert_true(wait_for(all_back, cpus));
	free(cpus);
	prun_free(&r);
}

/* SIGTERM between partition switches: partition member, cgroups gone. */
static void
test_term_switching(void **state)
{
	(void)state;
	stop_measuring(SIGTERM, "partition_switch_ms=", "0");
}

/* SIGKILL between switches and between hotplugs: the guardian cleans. */
static void
test_kill_measuring(void **state)
{
	int last;

	(void)state;
	stop_measuring(SIGKILL, "partition_switch_ms=", "0");
	if (online_cpus(&last) > 2)
		stop_measuring(SIGKILL, "cpu_offline_ms=", "1000000");
}

/* Makes cgroup root/hilab-probe-<pid> and its child *sub; returns it. */
static char *
make_probe_cgroup(pid_t pid, char **sub)
{
	char *dir = xasprintf("%s/" PREFIX "%ld", cg_root, (long)pid);

	*sub = xasprintf("%s/g0", dir);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkdir(*sub, 0755), 0);
	return dir;
}

/* A dead probe's cgroup is removed at the start, a live one's is not. */
static void
test_stale(void **state)
{
	const char *args[] = { "cpuset-hotplug", "--cgroups", "3", "--switches",
		"2", "--hotplug", "0", NULL };
	char	   *dead, *live, *dead_sub, *sub, *note;
	struct prun r;
	pid_t	    pid;

	(void)state;
	if ((pid = fork()) == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	dead = make_probe_cgroup(pid, &dead_sub);
	live = make_probe_cgroup(getpid(), &sub);
	prun(&r, args);
	if (r.code != 0)
		fail_msg("exit %d: %s", r.code, r.stderr_text);
	note = xasprintf("# removing stale %s\n", dead);
	assert_non_null(strstr(r.stdout_text, note));
	assert_int_equal(access(dead, F_OK), -1);
	assert_int_equal(access(live, F_OK), 0);
	assert_int_equal(rmdir(sub), 0);
	assert_int_equal(rmdir(live), 0);
	assert_int_equal(leftovers(), 0);
	free(dead_sub);
	free(sub);
	free(note);
	free(live);
	free(dead);
	prun_free(&r);
}

/* Why real probe runs cannot happen here, or NULL if they can. */
static char *
cgroup_unusable(void)
{
	char *have, *why = NULL;
	int   last;

	if (geteuid() != 0)
		return xstrdup("not root");
	if (cg_root == NULL)
		return xstrdup("no cgroup2 mount");
	have = root_controllers();
	if (!has_word(have, "cpu") || !has_word(have, "cpuset"))
		why = xasprintf("cgroup2 \"%s\" offers \"%s\", not both cpu "
				"and cpuset",
		    cg_root, have);
	else if (online_cpus(&last) < 2)
		why = xstrdup("fewer than 2 online CPUs");
	free(have);
	return why;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest basic[] = {
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_catalog),
		cmocka_unit_test(test_runner_hook),
	};
	const struct CMUnitTest cgroup[] = {
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_term_creating),
		cmocka_unit_test(test_term_switching),
		cmocka_unit_test(test_kill_creating),
		cmocka_unit_test(test_kill_measuring),
	};
	char *why;
	int   rc;

	if (argc != 3) {
		fprintf(stderr, "usage: test-probe AGENT basic|cgroup\n");
		return 2;
	}
	agent_path = argv[1];
	cg_root = cgroup2_mount();
	if (strcmp(argv[2], "basic") == 0)
		rc = cmocka_run_group_tests(basic, NULL, NULL);
	else if ((why = cgroup_unusable()) != NULL) {
		printf("skip: real cpuset-hotplug runs: %s\n", why);
		free(why);
		rc = 77;
	} else
		rc = cmocka_run_group_tests(cgroup, NULL, NULL);
	free(cg_root);
	return rc;
}
