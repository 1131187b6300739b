/*
 * The detached runner: a process of its own session that runs one RUN's
 * iterations, spools each RESULT (fsync'd) and then tells the serving
 * process through a pipe.  While a benchmark runs the runner only sleeps in
 * wait4(): no timers, polling or streaming, except one one-shot timer at
 * the deadline when the run has a timeout.
 */
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/observe.h"
#include "common/log.h"
#include "common/xmalloc.h"

struct runner {
	const char	      *dir;
	const struct run_spec *spec;
	char		      *outpath;
	int		       results; /* spool results file */
	int		       notify;	/* pipe to serve, or -1 */
	struct trace_probe    *trace;	/* the probe, or NULL */
	struct monitors	      *mon;	/* the monitors, or NULL */
	char		      *refused; /* why they could not start */
};

/* What one iteration measured. */
struct runner_iter {
	int64_t		   exit_status;
	int		   timed_out;
	uint64_t	   wall_ns;
	struct rusage	   ru;
	unsigned char	  *output;
	size_t		   outlen;
	int		   truncated;
	struct obs_samples samples; /* of the probe and monitors */
};

/* The benchmark's process group while it runs, for the handlers. */
static volatile pid_t	     runner_pgid;
static volatile sig_atomic_t runner_fired;
static volatile sig_atomic_t runner_cancelled;

/* At the deadline: kills the benchmark's whole process group. */
static void
runner_alarm_cb(int sig)
{
	(void)sig;
	if (runner_pgid > 0)
		kill(-runner_pgid, SIGKILL);
	runner_fired = 1;
}

/* SIGTERM (CANCEL): kills the running benchmark; no iteration follows. */
static void
runner_term_cb(int sig)
{
	(void)sig;
	if (runner_pgid > 0)
		kill(-runner_pgid, SIGKILL);
	runner_cancelled = 1;
}

/* Blocks (how = SIG_BLOCK) or unblocks SIGTERM around a fork. */
static void
runner_mask_term(int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(how, &set, NULL);
}

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t
runner_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Arms (ms > 0) or disarms (ms == 0) the one-shot deadline timer. */
static void
runner_timer(uint64_t ms)
{
	struct itimerval it;

	memset(&it, 0, sizeof it);
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* In the forked child: sets up stdio, cwd and signals, then execs. */
static void __attribute__((noreturn))
runner_child(const struct run_spec *spec, int outfd)
{
	sigset_t all;
	int	 null;

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if ((null = open("/dev/null", O_RDONLY)) != -1 && null != 0) {
		dup2(null, 0);
		close(null);
	}
	dup2(outfd, 1);
	dup2(outfd, 2);
	if (spec->cwd != NULL && chdir(spec->cwd) == -1) {
		dprintf(2, "hilab-agent: chdir \"%s\": %s\n", spec->cwd,
		    strerror(errno));
		_exit(127);
	}
	if (strcmp(spec->argv[0], "hilab-agent") == 0)
		execv("/proc/self/exe", spec->argv); /* see agent.h */
	else
		execvp(spec->argv[0], spec->argv);
	dprintf(2, "hilab-agent: exec \"%s\": %s\n", spec->argv[0],
	    strerror(errno));
	_exit(127);
}

/* Waits for the benchmark, killing its group at the timeout if any. */
static void
runner_wait(pid_t pid, uint64_t timeout_ms, struct runner_iter *it)
{
	int   status = 0;
	pid_t rc;

	runner_fired = 0;
	runner_pgid = pid;
	if (timeout_ms > 0)
		runner_timer(timeout_ms);
	runner_mask_term(SIG_UNBLOCK);
	while ((rc = wait4(pid, &status, 0, &it->ru)) == -1 && errno == EINTR)
		;
	if (timeout_ms > 0)
		runner_timer(0);
	runner_pgid = 0;
	it->timed_out = runner_fired;
	if (rc == -1)
		it->exit_status = 127;
	else if (WIFSIGNALED(status))
		it->exit_status = -(int64_t)WTERMSIG(status);
	else
		it->exit_status = WEXITSTATUS(status);
}

/* Appends up to len bytes of fd from offset off to the output. */
static void
runner_read_at(int fd, struct runner_iter *it, size_t len, off_t off)
{
	size_t	got = 0;
	ssize_t n;

	while (got < len) {
		n = pread(fd, it->output + it->outlen, len - got,
		    off + (off_t)got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		it->outlen += (size_t)n;
	}
}

/*
 * Reads the iteration's output file.  Past PROTO_MAX_OUTPUT, its head and
 * its tail (where tools print their results) with a line between saying
 * how much was left out.
 */
static void
runner_read_output(int fd, struct runner_iter *it)
{
	struct stat st;
	char	    mark[96];
	size_t	    size, half;
	int	    mlen;

	it->outlen = 0;
	it->truncated = 0;
	if (fstat(fd, &st) == -1)
		st.st_size = 0;
	size = (size_t)st.st_size;
	if (size <= PROTO_MAX_OUTPUT) {
		it->output = xmalloc(size + 1);
		runner_read_at(fd, it, size, 0);
		return;
	}
	it->truncated = 1;
	half = (PROTO_MAX_OUTPUT - sizeof mark) / 2;
	mlen = snprintf(mark, sizeof mark,
	    "\n[hilab-agent: %zu bytes of output left out here]\n",
	    size - 2 * half);
	it->output = xmalloc(PROTO_MAX_OUTPUT);
	runner_read_at(fd, it, half, 0);
	memcpy(it->output + it->outlen, mark, (size_t)mlen);
	it->outlen += (size_t)mlen;
	runner_read_at(fd, it, half, (off_t)(size - half));
}

/* Fails an iteration that could not be observed: why is its output. */
static void
runner_refuse(struct runner_iter *it, const char *why)
{
	free(it->output);
	it->output = (unsigned char *)xasprintf("hilab-agent: %s\n", why);
	it->outlen = strlen((char *)it->output);
	it->exit_status = 127;
	obs_clear(&it->samples);
}

/*
 * Right before the measured window: the probe set up, the monitors'
 * snapshots, then tracing on as the last step.
 */
static int
runner_observe_before(struct runner *r, char **cause)
{
	if (r->trace != NULL && trace_arm(r->trace, cause) == -1)
		return -1;
	if (r->mon != NULL && monitors_before(r->mon, cause) == -1)
		return -1;
	return r->trace != NULL ? trace_on(r->trace, 1, cause) : 0;
}

/* Right after it: tracing off first, the snapshots, then the reading. */
static int
runner_observe_after(struct runner *r, struct runner_iter *it, char **cause)
{
	if (r->trace != NULL && trace_on(r->trace, 0, cause) == -1)
		return -1;
	if (r->mon != NULL && monitors_after(r->mon, &it->samples, cause) == -1)
		return -1;
	if (r->trace != NULL &&
	    trace_disarm(r->trace, it->wall_ns, &it->samples, cause) == -1)
		return -1;
	return 0;
}

/*
 * Once the benchmark ended and the window closed: what it left running is
 * killed, and its output says so (nothing of it reaches a later
 * iteration).
 */
static void
runner_reap(pid_t pgid, const struct runner_iter *it, int fd)
{
	struct reap_report rep;

	reap_leftovers(pgid, !it->timed_out, &rep);
	if (rep.killed > 0)
		dprintf(fd,
		    "\nhilab-agent: killed %d process%s the benchmark left "
		    "running (the first: %s)\n",
		    rep.killed, rep.killed == 1 ? "" : "es", rep.first);
}

/*
 * Forks the benchmark and waits for it; the measured window.  Returns its
 * pid (its process group), or -1 when it could not start.
 */
static pid_t
runner_measure(struct runner *r, struct runner_iter *it, int fd)
{
	uint64_t t0;
	pid_t	 pid;

	runner_mask_term(SIG_BLOCK);
	t0 = runner_now_ns();
	if ((pid = fork()) == 0)
		runner_child(r->spec, fd);
	if (pid == -1) {
		dprintf(fd, "hilab-agent: fork: %s\n", strerror(errno));
		it->exit_status = 127;
		runner_mask_term(SIG_UNBLOCK);
	} else {
		setpgid(pid, pid);
		runner_wait(pid, r->spec->timeout_ms, it);
	}
	it->wall_ns = runner_now_ns() - t0;
	return pid;
}

/* Runs the benchmark once and measures it, observed as asked. */
static void
runner_iterate(struct runner *r, struct runner_iter *it)
{
	char *why = NULL;
	pid_t pid;
	int   fd;

	memset(it, 0, sizeof *it);
	if (r->refused != NULL) {
		runner_refuse(it, r->refused);
		return;
	}
	/* A new file each time: a leftover may hold the last one open. */
	unlink(r->outpath);
	fd = open(r->outpath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (runner_observe_before(r, &why) == 0) {
		pid = runner_measure(r, it, fd);
		runner_observe_after(r, it, &why);
		if (pid > 0)
			runner_reap(pid, it, fd);
	}
	if (fd != -1) {
		runner_read_output(fd, it);
		close(fd);
	}
	if (why != NULL)
		runner_refuse(it, why);
	free(why);
}

/* Microseconds of a timeval. */
static uint64_t
runner_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000u + tv->tv_usec;
}

/* Builds the RESULT frame of one iteration. */
static void
runner_result(const struct runner *r, uint64_t seq,
    const struct runner_iter *it, struct proto_buf *b)
{
	size_t i;

	proto_begin(b, PROTO_RESULT);
	proto_add_str(b, PROTO_T_RUN_ID, r->spec->run_id);
	proto_add_u64(b, PROTO_T_SEQ, seq);
	proto_add_u64(b, PROTO_T_WARMUP, seq < r->spec->warmups);
	proto_add_i64(b, PROTO_T_EXIT_STATUS, it->exit_status);
	proto_add_u64(b, PROTO_T_TIMED_OUT, it->timed_out != 0);
	proto_add_u64(b, PROTO_T_WALL_NS, it->wall_ns);
	proto_add_u64(b, PROTO_T_UTIME_US, runner_us(&it->ru.ru_utime));
	proto_add_u64(b, PROTO_T_STIME_US, runner_us(&it->ru.ru_stime));
	proto_add_u64(b, PROTO_T_MAXRSS_KB, it->ru.ru_maxrss);
	proto_add_bytes(b, PROTO_T_OUTPUT, it->output, it->outlen);
	proto_add_u64(b, PROTO_T_TRUNCATED, it->truncated != 0);
	for (i = 0; i < it->samples.n; i++)
		proto_add_str(b, PROTO_T_SAMPLE, it->samples.v[i]);
	proto_end(b);
}

/* Tells the serving process; stops telling it once it is gone. */
static void
runner_notify(struct runner *r, const struct proto_buf *b)
{
	if (r->notify == -1)
		return;
	if (proto_write_frame(r->notify, b) == -1) {
		close(r->notify);
		r->notify = -1;
	}
}

/* Runs warmups then iterations; returns the final state. */
static int
runner_loop(struct runner *r, uint64_t *count)
{
	struct runner_iter it;
	struct proto_buf   b;
	uint64_t	   seq, total;

	total = r->spec->warmups + r->spec->iterations;
	for (seq = 0; seq < total; seq++) {
		if (runner_cancelled)
			return PROTO_RUN_CANCELLED;
		runner_iterate(r, &it);
		if (runner_cancelled) {
			/* Killed half-way: not a measurement. */
			free(it.output);
			obs_clear(&it.samples);
			return PROTO_RUN_CANCELLED;
		}
		runner_result(r, seq, &it, &b);
		free(it.output);
		obs_clear(&it.samples);
		if (spool_append(r->results, &b) == -1) {
			log_warn("runner", "\"%s\": results: %s",
			    r->spec->run_id, strerror(errno));
			proto_buf_free(&b);
			return PROTO_RUN_FAILED;
		}
		(*count)++;
		runner_notify(r, &b);
		proto_buf_free(&b);
		if (r->refused != NULL)
			break; /* said once: nothing was measured */
	}
	return PROTO_RUN_DONE_OK;
}

/* Leaves the session: own session, no stdio of the ssh channel. */
static void
runner_detach(const char *dir, const char *run_id)
{
	char *log = spool_path(dir, run_id, "log");
	int   fd;

	setsid();
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
		close(fd);
	}
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd != -1) {
		dup2(fd, 2);
		close(fd);
	}
	free(log);
}

/* Starts the run's probe and monitors; r->refused says why not. */
static void
runner_observe_open(struct runner *r)
{
	char *why = NULL;

	if (r->spec->probes != NULL && r->spec->probes[0] != NULL &&
	    (r->trace = trace_open(r->spec->probes, r->spec->probe_method,
		 &why)) == NULL)
		r->refused = xasprintf("probe: %s", why);
	else if (r->spec->monitors != NULL && r->spec->monitors[0] != NULL &&
	    (r->mon = monitors_open(r->spec->monitors, &why)) == NULL)
		r->refused = xstrdup(why);
	free(why);
}

/* Ends the probe (tracefs back as found) and the monitors. */
static void
runner_observe_close(struct runner *r)
{
	char *why = NULL;

	if (trace_close(r->trace, &why) == -1)
		log_warn("runner", "\"%s\": probe: %s", r->spec->run_id, why);
	free(why);
	monitors_close(r->mon);
	free(r->refused);
}

/* The runner process: runs everything, writes the state file, exits. */
static void __attribute__((noreturn))
runner_main(const char *dir, const struct run_spec *spec, int notify)
{
	struct runner	 r = { dir, spec, NULL, -1, notify, NULL, NULL, NULL };
	struct sigaction sa;
	char		*path;
	uint64_t	 count = 0;
	int		 state = PROTO_RUN_FAILED;
	size_t		 i;

	runner_detach(dir, spec->run_id);
	reap_init();
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = runner_alarm_cb; /* no SA_RESTART: wakes wait4 */
	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = runner_term_cb;
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; spec->env[i] != NULL; i++)
		putenv(spec->env[i]);
	r.outpath = spool_path(dir, spec->run_id, "out");
	path = spool_path(dir, spec->run_id, "results");
	r.results = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (r.results == -1)
		log_warn("runner", "\"%s\": %s", path, strerror(errno));
	else {
		runner_observe_open(&r);
		state = runner_loop(&r, &count);
		runner_observe_close(&r);
	}
	unlink(r.outpath);
	spool_write_state(dir, spec->run_id, state, count);
	_exit(0);
}

/*
 * Creates the run's spool and forks its runner, which holds the spool lock
 * (taken here, before the fork, so the run never looks dead).  *notify is
 * the read end of the runner's pipe of RESULT frames.
 */
int
runner_start(const char *dir, const struct run_spec *spec, pid_t *pid,
    int *notify, char **cause)
{
	char *why = NULL;
	int   lockfd, p[2] = { -1, -1 }, rc = -1;

	if (spool_create(dir, spec->run_id, &lockfd, cause) == -1)
		goto out;
	if (pipe2(p, O_CLOEXEC) == -1 || (*pid = fork()) == -1) {
		*cause =
		    xasprintf("run \"%s\": %s", spec->run_id, strerror(errno));
		goto out;
	}
	if (*pid == 0) {
		close(p[0]);
		runner_main(dir, spec, p[1]);
	}
	*notify = p[0];
	p[0] = -1;
	spool_write_pid(dir, spec->run_id, *pid);
	rc = 0;
out:
	if (p[0] != -1)
		close(p[0]);
	if (p[1] != -1)
		close(p[1]);
	if (lockfd != -1)
		close(lockfd);
	if (rc == -1 && lockfd != -1 &&
	    spool_remove(dir, spec->run_id, &why) == -1) {
		log_warn("runner", "%s", why);
		free(why);
	}
	return rc;
}
