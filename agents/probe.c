/*
 * Native probes: measurements that no packaged tool makes, run as
 * "hilab-agent probe NAME ARGS...".  A probe prints "key=value" samples
 * (one line per measured operation) and "# " comment lines on stdout, for
 * the keyvalue parser, and its errors on stderr; it exits 0 on success.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/xmalloc.h"

/* The probes, ended by an entry with a NULL name. */
const struct probe probe_table[] = {
	{ "cpuset-hotplug",
	    "cpuset partition-root switches and CPU "
	    "offline/online times with N cpu cgroups",
	    probe_cpuset_main },
	{ "watch",
	    "a window of N seconds for the run's probes and monitors, "
	    "with a workload in it if given",
	    probe_watch_main },
	{ NULL, NULL, NULL }
};

volatile sig_atomic_t probe_stop;

/* Remembers the first stop signal; the probe's loops look at it. */
static void
probe_stop_cb(int sig)
{
	if (probe_stop == 0)
		probe_stop = sig;
}

/* SIGTERM, SIGINT and SIGHUP stop the probe (it cleans up and fails). */
void
probe_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = probe_stop_cb; /* no SA_RESTART: wakes flock() */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t
probe_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/* Milliseconds, to print with "%.3f" (microsecond resolution). */
double
probe_ms(uint64_t ns)
{
	return (double)(ns / 1000) / 1000.0;
}

/*
 * Writes value to a control file (sysfs, cgroupfs) in one write(),
 * truncating it (a regular file may stand for one in tests).
 */
int
probe_write(const char *path, const char *value, char **cause)
{
	size_t	len = strlen(value);
	ssize_t n;
	int	fd, rc = -1;

	if ((fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)) == -1) {
		*cause = xasprintf("\"%s\": %s", path, strerror(errno));
		goto out;
	}
	if ((n = write(fd, value, len)) != (ssize_t)len) {
		*cause = xasprintf("\"%s\": write \"%s\": %s", path, value,
		    n == -1 ? strerror(errno) : "short write");
		goto out;
	}
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	return rc;
}

/* Reads a number option's value: digits only, at most max. */
int
probe_uint(const char *opt, const char *s, unsigned long max, unsigned long *v,
    char **cause)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0 || *v > max) {
		*cause = xasprintf("option \"--%s\": \"%s\": not a number "
				   "from 0 to %lu",
		    opt, s, max);
		return -1;
	}
	return 0;
}

/* Prints the probes. */
static int
probe_list(void)
{
	const struct probe *p;

	for (p = probe_table; p->name != NULL; p++)
		printf("%-16s %s\n", p->name, p->summary);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* "probe NAME ARGS...": argv[0] is "probe"; returns the exit code. */
int
probe_main(int argc, char **argv)
{
	const struct probe *p;

	if (argc < 2) {
		fprintf(stderr,
		    "usage: hilab-agent probe list\n"
		    "       hilab-agent probe NAME [ARGS...]\n");
		return 1;
	}
	if (strcmp(argv[1], "list") == 0)
		return probe_list();
	for (p = probe_table; p->name != NULL; p++) {
		if (strcmp(p->name, argv[1]) == 0)
			return p->fn(argc - 1, argv + 1);
	}
	fprintf(stderr,
	    "hilab-agent: probe \"%s\": unknown probe (see "
	    "\"hilab-agent probe list\")\n",
	    argv[1]);
	return 1;
}
