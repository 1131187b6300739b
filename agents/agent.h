/*
 * hilab-agent: the per-host agent.  It speaks the protocol of
 * common/proto.h on stdin/stdout, reports the host's facts, runs benchmarks
 * in a runner detached from the session and spools their results under
 * DIR/spool/<run_id>/:
 *
 *	lock	 held (flock LOCK_EX) by the runner for its whole life
 *	results	 RESULT frames, appended and fsync'd one by one
 *	state	 "<state> <count>\n", written atomically when the runner ends
 *	out	 the current iteration's stdout+stderr
 *	log	 the runner's own stderr
 *	pid	 the runner's pid, for CANCEL
 */
#ifndef HILAB_AGENT_H
#define HILAB_AGENT_H

#include <sys/types.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/cpulist.h"
#include "common/proto.h"

#define AGENT_DEFAULT_DIR "/var/tmp/hilab"

#if defined(__x86_64__)
#define AGENT_ARCH "x86_64"
#elif defined(__aarch64__)
#define AGENT_ARCH "aarch64"
#elif defined(__i386__)
#define AGENT_ARCH "i686"
#elif defined(__riscv) && __riscv_xlen == 64
#define AGENT_ARCH "riscv64"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define AGENT_ARCH "ppc64le"
#elif defined(__s390x__)
#define AGENT_ARCH "s390x"
#else
#error "unknown target architecture"
#endif

/* Exit codes of serve. */
#define AGENT_EXIT_OK	   0
#define AGENT_EXIT_REFUSED 1 /* version not supported, I/O error */
#define AGENT_EXIT_PROTO   2 /* the peer broke the protocol */

/* What one RUN request asks for, decoded. */
struct run_spec {
	char	*run_id;
	char   **argv; /* NULL-terminated */
	char   **env;  /* NULL-terminated "K=V" */
	char	*cwd;  /* or NULL */
	uint64_t iterations;
	uint64_t warmups;
	uint64_t timeout_ms;   /* 0 = none */
	char   **probes;       /* NULL-terminated kernel functions timed */
	char	*probe_method; /* how, or NULL: what the kernel offers */
	char   **monitors;     /* NULL-terminated monitor names */
};

/* topo.c: topology facts; each takes an unused argument, NULL if absent. */
char *topo_online_count(const char *);
char *topo_sockets(const char *);
char *topo_dies(const char *);
char *topo_cores_per_socket(const char *);
char *topo_threads_per_core(const char *);
char *topo_llc_groups(const char *);
char *topo_cluster_groups(const char *);
char *topo_numa_nodes(const char *);
char *topo_numa_node_list(const char *);

/* facts.c */
char *facts_read(const char *path);
struct fact {
	const char *key;
	char	   *value; /* NULL if the host lacks it */
};
struct fact *facts_collect(size_t *n);
void	     facts_free(struct fact *, size_t);
void	     facts_add(struct proto_buf *, const struct fact *, size_t);
void	     facts_print(FILE *, const struct fact *, size_t);

/* spool.c */
char *spool_run_dir(const char *dir, const char *run_id);
char *spool_path(const char *dir, const char *run_id, const char *file);
int   spool_create(const char *dir, const char *run_id, int *lockfd,
      char **cause);
int   spool_exists(const char *dir, const char *run_id);
int   spool_state(const char *dir, const char *run_id, int *state,
      uint64_t *count);
int   spool_write_state(const char *dir, const char *run_id, int state,
      uint64_t count);
int   spool_append(int fd, const struct proto_buf *);
/*
 * Why a run failed on the host, or NULL if nothing says: a full
 * filesystem under dir (named, with what is free), the runner's last
 * warning.
 */
char *spool_failure(const char *dir, const char *run_id);
void  spool_write_pid(const char *dir, const char *run_id, pid_t);
pid_t spool_read_pid(const char *dir, const char *run_id);
/* Called per spooled RESULT; non-zero stops the walk and is returned. */
typedef int (*spool_result_cb)(const unsigned char *payload, size_t len,
    const struct proto_msg *, void				   *arg);
int    spool_results(const char *dir, const char *run_id, spool_result_cb cb,
       void *arg, uint64_t *count);
int    spool_wait(const char *dir, const char *run_id);
int    spool_remove(const char *dir, const char *run_id, char **cause);
char **spool_list(const char *dir, size_t *n);
const char *spool_state_name(int state);

/* reap.c: what a benchmark left running, killed once it ended. */
struct reap_report {
	int  killed;	/* live leftovers killed */
	char first[96]; /* "PID (comm)" of the first */
};
/* Makes the calling process a child subreaper (its orphans' parent). */
void reap_init(void);
/*
 * Kills what is left of process group pgid and every child but guardians
 * (GUARD_NAME: they end by themselves, after putting the host back).  The
 * group's live members are counted unless !counted (a timeout killed the
 * group already), the other children when they were alive.
 */
void reap_leftovers(pid_t pgid, int counted, struct reap_report *);

/*
 * runner.c.  A RUN whose argv[0] is exactly "hilab-agent" runs this agent
 * binary itself (exec of /proc/self/exe, argv unchanged), so a catalog
 * command such as ["hilab-agent", "probe", ...] works wherever the agent
 * was uploaded.  Any other argv[0] goes to execvp() as is.
 */
int runner_start(const char *dir, const struct run_spec *, pid_t *pid,
    int *notify, char **cause);

/*
 * probe.c: native probes, "hilab-agent probe NAME ARGS..." and
 * "hilab-agent probe list".  A probe prints "key=value" samples and "# "
 * comments on stdout, errors on stderr, and returns its exit code.
 */
struct probe {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv); /* argv[0]: name */
};
extern const struct probe    probe_table[]; /* ends with a NULL name */
extern volatile sig_atomic_t probe_stop;    /* the stop signal, or 0 */
int	 probe_main(int argc, char **argv); /* argv[0]: "probe" */
void	 probe_signals(void);
uint64_t probe_now_ns(void);
double	 probe_ms(uint64_t ns);
int	 probe_write(const char *path, const char *value, char **cause);
int	 probe_uint(const char *opt, const char *s, unsigned long max,
	 unsigned long *v, char **cause);

/*
 * probe_cgroup.c: cgroup v2 for probes, whose cgroups are named
 * "hilab-probe-<pid>".  remove and reap go on after an error and leave the
 * first one in *cause, which must be NULL on entry.
 */
#define PROBE_CGROUP_PREFIX "hilab-probe-"
char *probe_cgroup_root(const char *want, char **cause);
char *probe_cgroup_read(const char *dir, const char *file);
int   probe_cgroup_check(const char *dir, const char *ctrls, char **cause);
int   probe_cgroup_enable(const char *dir, const char *ctrls, char **cause);
int   probe_cgroup_make(const char *dir, char **cause);
int   probe_cgroup_remove(const char *dir, char **cause);
pid_t probe_cgroup_pid(const char *name);
int   probe_cgroup_reap(const char *root, char **cause);
int   probe_cgroup_lock(const char *root, char **cause);

/*
 * guard.c: a guardian process of its own session that runs cleanup(arg)
 * if its parent dies (SIGKILL too) before guard_end(g, 1); it keeps the
 * parent's fds, so a lock of the parent stays held until it is gone.
 */
struct guard {
	int (*cleanup)(void *arg, char **cause);
	void	   *arg;
	const char *what; /* "tune" in its messages */
	int	    fd;	  /* the pipe to it, or -1 */
};
/* A guardian's process name (comm). */
#define GUARD_NAME "hilab-guardian" /* spared by the runner's reaper */
int  guard_start(struct guard *, char **cause);
void guard_end(struct guard *, int cleaned);

/*
 * tune_controls.c: the controls of a machine setup.  A plan is what one
 * KEY=VALUE writes (files under root, "" for the host), or why the host
 * does not offer it (absent).
 */
struct tune_change {
	char *path;
	char *value;
};
struct tune_plan {
	const char	   *key;
	char		   *value;
	char		   *was; /* the first file's value now, or NULL */
	struct tune_change *v;
	size_t		    n;
	char		   *absent; /* why the host lacks it, or NULL */
};
/* Plans key=value into p; -1 with *cause for an unknown key or value. */
int  tune_control_plan(const char *root, const char *key, const char *value,
     struct tune_plan *p, char **cause);
void tune_plan_clear(struct tune_plan *);
/* The order controls apply in (key's place), or -1 for no such key. */
int tune_control_index(const char *key);
/* A control file's value: the [selected] word of a list, else all of it. */
char *tune_read(const char *path);

/* tune.c: "tune [--root DIR] KEY=VALUE...", applied and held. */
int tune_main(const char *dir, int argc, char **argv);

/* probe_cpuset.c */
int probe_cpuset_main(int argc, char **argv);
/* probe_watch.c: "probe watch --seconds N [-- COMMAND...]". */
int probe_watch_main(int argc, char **argv);

/* serve.c */
int serve_main(const char *dir);

#endif
