/*
 * "hilab-agent probe watch --seconds N [-- COMMAND ARGS...]": a window of
 * N seconds for the run's probes and monitors to watch, with nothing of
 * its own in it but, when given, a workload: COMMAND runs in its own
 * process group from the start of the window and is stopped at its end
 * (SIGTERM, SIGKILL 5 s later).  Prints "watched_s=" the window's length;
 * a workload that fails before the end fails the probe, one that ends
 * early with status 0 ends the window there.
 */
#include <sys/wait.h>

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agents/agent.h"

#define WATCH_MAX_S  86400
#define WATCH_KILL_S 5

/* Prints how to call the probe. */
static void
watch_usage(void)
{
	fprintf(stderr,
	    "usage: hilab-agent probe watch --seconds N "
	    "[-- COMMAND ARGS...]\n");
}

/* Starts the workload in its own process group; -1 if it cannot. */
static pid_t
watch_spawn(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		setpgid(0, 0);
		execvp(argv[0], argv);
		fprintf(stderr, "hilab-agent: probe watch: exec \"%s\": %s\n",
		    argv[0], strerror(errno));
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

/* Sleeps about 10 ms, or less if a signal comes. */
static void
watch_nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/*
 * Waits until the window is over, a stop signal comes or the workload
 * ends (*status then set, *ended 1).
 */
static void
watch_window(uint64_t end_ns, pid_t pid, int *status, int *ended)
{
	while (probe_now_ns() < end_ns && probe_stop == 0) {
		if (pid > 0 && waitpid(pid, status, WNOHANG) == pid) {
			*ended = 1;
			return;
		}
		watch_nap();
	}
}

/* Stops the workload's group: SIGTERM, then SIGKILL after a grace. */
static void
watch_stop(pid_t pid)
{
	uint64_t end = probe_now_ns() + WATCH_KILL_S * 1000000000ull;
	int	 status;

	kill(-pid, SIGTERM);
	while (probe_now_ns() < end) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		watch_nap();
	}
	kill(-pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/* Reads the options; *cmd is the workload's argv, or NULL. */
static int
watch_args(int argc, char **argv, unsigned long *seconds, char ***cmd)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	char *cause = NULL;
	int   c;

	optind = 0; /* the agent's main() used getopt before */
	*seconds = 0;
	while ((c = getopt_long(argc, argv, "+", opts, NULL)) != -1) {
		if (c != 's' ||
		    probe_uint("seconds", optarg, WATCH_MAX_S, seconds,
			&cause) == -1) {
			if (cause != NULL)
				fprintf(stderr,
				    "hilab-agent: probe watch: %s\n", cause);
			free(cause);
			watch_usage();
			return -1;
		}
	}
	if (*seconds == 0) {
		fprintf(stderr,
		    "hilab-agent: probe watch: --seconds N (1 to "
		    "%d) is required\n",
		    WATCH_MAX_S);
		return -1;
	}
	*cmd = optind < argc ? argv + optind : NULL;
	return 0;
}

int
probe_watch_main(int argc, char **argv)
{
	unsigned long seconds;
	char	    **cmd;
	uint64_t      t0;
	pid_t	      pid = 0;
	int	      status = 0, ended = 0;

	if (watch_args(argc, argv, &seconds, &cmd) == -1)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	probe_signals();
	t0 = probe_now_ns();
	if (cmd != NULL && (pid = watch_spawn(cmd)) == -1) {
		fprintf(stderr, "hilab-agent: probe watch: fork: %s\n",
		    strerror(errno));
		return 1;
	}
	watch_window(t0 + seconds * 1000000000ull, pid, &status, &ended);
	printf("watched_s=%.3f\n", (double)(probe_now_ns() - t0) / 1e9);
	if (pid > 0 && !ended)
		watch_stop(pid);
	if (probe_stop != 0) {
		fprintf(stderr,
		    "hilab-agent: probe watch: stopped by signal "
		    "%d\n",
		    (int)probe_stop);
		return 1;
	}
	if (ended && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		fprintf(stderr,
		    "hilab-agent: probe watch: the workload \"%s\" failed "
		    "before the window ended (%s %d)\n",
		    cmd[0], WIFEXITED(status) ? "exit" : "signal",
		    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return 1;
	}
	return 0;
}
