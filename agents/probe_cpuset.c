/*
 * The cpuset-hotplug probe: with N cpu cgroups (task groups) on the host,
 * times M cpuset partition-root switches and K CPU offline/online
 * operations, each of which rebuilds the scheduler domains.
 *
 * Layout, under the cgroup2 root R (+cpu +cpuset in R's subtree_control):
 *
 *	R/hilab-probe-<pid>		cpuset.cpus = C; its partition is
 *					switched between "root" and "member"
 *	R/hilab-probe-<pid>/g<i>	N task groups: cpu controller only
 *
 * The switched cgroup sits right under the root partition, so each switch
 * changes the root partition's CPUs and its sched domain is rebuilt: every
 * active CPU moves to a new root domain.  The task groups have no cpuset
 * of their own, so cpuset's hierarchy walk does not grow with N.
 *
 * Cleanup always runs: on success, on every error and on SIGTERM, SIGINT
 * or SIGHUP.  Against SIGKILL (the runner's cancel and timeout kill the
 * whole process group) a guardian process in its own session waits on a
 * pipe and cleans up if the probe dies without saying it is done.  Probes
 * take turns through a lock on the cgroup2 root, which the guardian holds
 * too, so a new probe never races a guardian's cleanup.
 */
#include <sys/utsname.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/log.h"
#include "common/xmalloc.h"

#define CPUSET_SYS_CPU	   "/sys/devices/system/cpu"
#define CPUSET_MAX_GROUPS  1000000ul
#define CPUSET_MAX_OPS	   1000000ul
#define CPUSET_CONTROLLERS "cpu cpuset"

struct cpuset_probe {
	unsigned long ngroups;
	unsigned long nswitches;
	unsigned long nhotplug;
	unsigned long cpu;
	size_t	      ncpus;	 /* online CPUs */
	const char   *want_root; /* --root, or NULL */
	char	     *root;	 /* the cgroup2 directory */
	char	     *dir;	 /* root/hilab-probe-<pid> */
	char	     *online;	 /* cpuC/online if hotplugging */
	pid_t	      pid;
	int	      lockfd;
	struct guard  guard; /* cleans up if the probe is killed */
};

/* Prints how to call the probe. */
static void
probe_cpuset_usage(void)
{
	fprintf(stderr,
	    "usage: hilab-agent probe cpuset-hotplug "
	    "[--cgroups N] [--switches M] [--hotplug K]\n"
	    "           [--cpu C|last] [--root CGROUP2_DIR]\n");
}

/* Whether a signal stopped the probe; if so, says so in *cause. */
static int
probe_cpuset_stopped(char **cause)
{
	int sig = probe_stop;

	if (sig == 0)
		return 0;
	*cause = xasprintf("stopped by signal %d (%s)", sig, strsignal(sig));
	return 1;
}

/* Reads the online CPUs; sets ncpus and *last (the highest). */
static int
probe_cpuset_online(struct cpuset_probe *p, struct cpulist *online,
    unsigned long *last, char **cause)
{
	char  *s;
	size_t i;

	s = facts_read(CPUSET_SYS_CPU "/online");
	if (s == NULL || cpulist_parse(s, online) == -1) {
		*cause = xstrdup("\"" CPUSET_SYS_CPU "/online\": cannot read");
		free(s);
		return -1;
	}
	free(s);
	p->ncpus = cpulist_count(online);
	for (i = 0, *last = 0; i < online->n; i++) {
		if (online->set[i])
			*last = i;
	}
	return 0;
}

/* Checks that the CPU arg (a number or "last") may be used; sets cpu. */
static int
probe_cpuset_cpu(struct cpuset_probe *p, const char *arg, char **cause)
{
	struct cpulist online;
	unsigned long  last;
	char	      *path = NULL;
	int	       rc = -1;

	if (probe_cpuset_online(p, &online, &last, cause) == -1)
		return -1;
	if (strcmp(arg, "last") == 0)
		p->cpu = last;
	else if (probe_uint("cpu", arg, 1u << 20, &p->cpu, cause) == -1)
		goto out;
	path = xasprintf(CPUSET_SYS_CPU "/cpu%lu", p->cpu);
	if (p->nhotplug > 0)
		p->online = xasprintf("%s/online", path);
	if (p->cpu == 0)
		*cause = xstrdup("cpu 0 is refused: the probe never takes "
				 "the boot CPU away");
	else if (access(path, F_OK) == -1)
		*cause =
		    xasprintf("cpu %lu: no such CPU (no \"%s\")", p->cpu, path);
	else if (!cpulist_has(&online, p->cpu))
		*cause = xasprintf("cpu %lu is offline", p->cpu);
	else if (p->online != NULL && access(p->online, W_OK) == -1)
		*cause = xasprintf("cpu %lu cannot go offline: \"%s\": %s",
		    p->cpu, p->online, strerror(errno));
	else
		rc = 0;
out:
	free(path);
	cpulist_free(&online);
	return rc;
}

/* Reads one option's number. */
static int
probe_cpuset_opt(int c, const char *arg, struct cpuset_probe *p, char **cause)
{
	switch (c) {
	case 'n':
		return probe_uint("cgroups", arg, CPUSET_MAX_GROUPS,
		    &p->ngroups, cause);
	case 's':
		return probe_uint("switches", arg, CPUSET_MAX_OPS,
		    &p->nswitches, cause);
	case 'k':
		return probe_uint("hotplug", arg, CPUSET_MAX_OPS, &p->nhotplug,
		    cause);
	}
	probe_cpuset_usage();
	*cause = xstrdup("bad arguments");
	return -1;
}

/* Parses the arguments and checks the CPU. */
static int
probe_cpuset_args(struct cpuset_probe *p, int argc, char **argv, char **cause)
{
	static const struct option opts[] = {
		{ "cgroups", required_argument, NULL, 'n' },
		{ "switches", required_argument, NULL, 's' },
		{ "hotplug", required_argument, NULL, 'k' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, 'r' }, { NULL, 0, NULL, 0 }
	};
	const char *cpu = "last";
	int	    c;

	optind = 0; /* the agent's main() used getopt before */
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c == 'c')
			cpu = optarg;
		else if (c == 'r')
			p->want_root = optarg;
		else if (probe_cpuset_opt(c, optarg, p, cause) == -1)
			return -1;
	}
	if (optind != argc) {
		probe_cpuset_usage();
		*cause = xasprintf("unexpected argument \"%s\"", argv[optind]);
		return -1;
	}
	return probe_cpuset_cpu(p, cpu, cause);
}

/* Puts everything back: the CPU online, partitions member, cgroups gone. */
static int
probe_cpuset_cleanup(struct cpuset_probe *p, char **cause)
{
	char *state, *why = NULL;
	int   rc = 0;

	if (p->online != NULL && (state = facts_read(p->online)) != NULL) {
		if (strcmp(state, "0") == 0 &&
		    probe_write(p->online, "1", cause) == -1)
			rc = -1;
		free(state);
	}
	if (p->dir != NULL && probe_cgroup_remove(p->dir, &why) == -1) {
		if (rc == 0)
			*cause = why;
		else
			free(why);
		rc = -1;
	}
	return rc;
}

/* The guardian's cleanup: the probe's, after the probe died. */
static int
probe_cpuset_guard_cleanup(void *arg, char **cause)
{
	return probe_cpuset_cleanup(arg, cause);
}

/* Prints what the probe is about to do, as comments. */
static void
probe_cpuset_header(const struct cpuset_probe *p)
{
	struct utsname u;

	if (uname(&u) == -1)
		strcpy(u.release, "unknown");
	printf("# cgroups=%lu cpus=%zu cpu=%lu switches=%lu hotplug=%lu\n",
	    p->ngroups, p->ncpus, p->cpu, p->nswitches, p->nhotplug);
	printf("# kernel=%s cgroup2=%s dir=%s\n", u.release, p->root, p->dir);
}

/* Makes the N task groups and prints how long that took. */
static int
probe_cpuset_groups(const struct cpuset_probe *p, char **cause)
{
	uint64_t      t0 = probe_now_ns();
	unsigned long i;
	char	     *dir;
	int	      rc = 0;

	for (i = 0; rc == 0 && i < p->ngroups; i++) {
		if (probe_cpuset_stopped(cause))
			return -1;
		dir = xasprintf("%s/g%lu", p->dir, i);
		rc = probe_cgroup_make(dir, cause);
		free(dir);
	}
	if (rc == 0)
		printf("# created %lu cgroups in %.3f ms\n", p->ngroups,
		    probe_ms(probe_now_ns() - t0));
	return rc;
}

/* Makes the probe's cgroups and gives the switched one its CPU. */
static int
probe_cpuset_setup(struct cpuset_probe *p, char **cause)
{
	char *prs, *path, cpu[32];
	int   rc;

	if (probe_cgroup_enable(p->root, CPUSET_CONTROLLERS, cause) == -1 ||
	    probe_cgroup_make(p->dir, cause) == -1 ||
	    probe_cgroup_enable(p->dir, "cpu", cause) == -1)
		return -1;
	if ((prs = probe_cgroup_read(p->dir, "cpuset.cpus.partition")) ==
	    NULL) {
		*cause = xasprintf("\"%s\": no cpuset.cpus.partition: the "
				   "kernel has no cpuset partitions",
		    p->dir);
		return -1;
	}
	free(prs);
	snprintf(cpu, sizeof cpu, "%lu", p->cpu);
	path = xasprintf("%s/cpuset.cpus", p->dir);
	rc = probe_write(path, cpu, cause);
	free(path);
	if (rc == 0)
		rc = probe_cpuset_groups(p, cause);
	return rc;
}

/* Checks that the partition now reads want ("root invalid (...)" not). */
static int
probe_cpuset_partition_is(const struct cpuset_probe *p, const char *want,
    char **cause)
{
	char *prs = probe_cgroup_read(p->dir, "cpuset.cpus.partition");
	int   rc = 0;

	if (prs == NULL || strcmp(prs, want) != 0) {
		*cause = xasprintf("\"%s/cpuset.cpus.partition\": \"%s\" "
				   "after writing \"%s\"",
		    p->dir, prs ? prs : "(unreadable)", want);
		rc = -1;
	}
	free(prs);
	return rc;
}

/* Switches the partition M times, root then member, timing each write. */
static int
probe_cpuset_switch(const struct cpuset_probe *p, char **cause)
{
	const char   *to;
	uint64_t      t0, ns;
	unsigned long i;
	char	     *path;
	int	      rc = -1;

	path = xasprintf("%s/cpuset.cpus.partition", p->dir);
	for (i = 0; i < p->nswitches; i++) {
		if (probe_cpuset_stopped(cause))
			goto out;
		to = i % 2 == 0 ? "root" : "member";
		t0 = probe_now_ns();
		if (probe_write(path, to, cause) == -1)
			goto out;
		ns = probe_now_ns() - t0;
		if (probe_cpuset_partition_is(p, to, cause) == -1)
			goto out;
		printf("partition_switch_ms=%.3f\n", probe_ms(ns));
	}
	rc = 0;
out:
	free(path);
	return rc;
}

/* Writes value to the CPU's online file; returns the time it took. */
static int
probe_cpuset_set_online(const struct cpuset_probe *p, const char *value,
    uint64_t *ns, char **cause)
{
	uint64_t t0 = probe_now_ns();
	char	*why = NULL;

	if (probe_write(p->online, value, &why) == -1) {
		*cause = xasprintf("cpu %lu cannot go %s: %s", p->cpu,
		    value[0] == '0' ? "offline" : "online", why);
		free(why);
		return -1;
	}
	*ns = probe_now_ns() - t0;
	return 0;
}

/* Takes the CPU offline and back online K times, timing each. */
static int
probe_cpuset_hotplug(const struct cpuset_probe *p, char **cause)
{
	unsigned long i;
	uint64_t      ns;

	for (i = 0; i < p->nhotplug; i++) {
		if (probe_cpuset_stopped(cause) ||
		    probe_cpuset_set_online(p, "0", &ns, cause) == -1)
			return -1;
		printf("cpu_offline_ms=%.3f\n", probe_ms(ns));
		if (probe_cpuset_set_online(p, "1", &ns, cause) == -1)
			return -1;
		printf("cpu_online_ms=%.3f\n", probe_ms(ns));
	}
	return 0;
}

/* Sets up, measures and always cleans up; 0 if all of it went well. */
static int
probe_cpuset_measure(struct cpuset_probe *p, char **cause)
{
	char *why = NULL;
	int   rc = -1;

	if (probe_cpuset_setup(p, cause) == 0 &&
	    probe_cpuset_switch(p, cause) == 0 &&
	    probe_cpuset_hotplug(p, cause) == 0)
		rc = 0;
	if (probe_cpuset_cleanup(p, &why) == -1) {
		if (rc == 0)
			*cause = xasprintf("cleanup: %s", why);
		else
			fprintf(stderr,
			    "hilab-agent: probe cpuset-hotplug: "
			    "cleanup: %s\n",
			    why);
		free(why);
		return -1; /* the guardian tries once more */
	}
	/* Done: the guardian exits without cleaning (if still there). */
	guard_end(&p->guard, 1);
	return rc;
}

/* "probe cpuset-hotplug ...": returns the exit code. */
int
probe_cpuset_main(int argc, char **argv)
{
	struct cpuset_probe p;
	char		   *cause = NULL;
	int		    rc = -1;

	memset(&p, 0, sizeof p);
	p.lockfd = -1;
	p.guard = (struct guard){ .cleanup = probe_cpuset_guard_cleanup,
		.arg = &p,
		.what = "probe cpuset-hotplug",
		.fd = -1 };
	p.pid = getpid();
	setvbuf(stdout, NULL, _IOLBF, 0);
	probe_signals();
	if (probe_cpuset_args(&p, argc, argv, &cause) == -1 ||
	    (p.root = probe_cgroup_root(p.want_root, &cause)) == NULL ||
	    probe_cgroup_check(p.root, CPUSET_CONTROLLERS, &cause) == -1)
		goto out;
	p.dir = xasprintf("%s/" PROBE_CGROUP_PREFIX "%ld", p.root, (long)p.pid);
	probe_cpuset_header(&p);
	if ((p.lockfd = probe_cgroup_lock(p.root, &cause)) == -1 ||
	    probe_cgroup_reap(p.root, &cause) == -1 ||
	    guard_start(&p.guard, &cause) == -1)
		goto out;
	rc = probe_cpuset_measure(&p, &cause);
out:
	if (cause != NULL)
		fprintf(stderr, "hilab-agent: probe cpuset-hotplug: %s\n",
		    cause);
	guard_end(&p.guard, 0);
	if (p.lockfd != -1)
		close(p.lockfd);
	free(cause);
	free(p.online);
	free(p.dir);
	free(p.root);
	return rc == 0 && fflush(stdout) == 0 ? 0 : 1;
}
