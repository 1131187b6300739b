/*
 * Power drivers: ipmitool against a BMC, or the machine file's commands.
 * Both run a child process with its output (stdout and stderr) collected
 * and a deadline, and differ in the command and how status is read.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cause.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "machines/power.h"

#define POWER_CMD_MS	60000 /* one command, ipmitool's retries included */
#define POWER_SETTLE_MS 20000 /* on/off until the status reads so */
#define POWER_POLL_MS	250
#define POWER_GAP_MS	2000 /* off to on in a cycle made of both */
#define POWER_DIP_MS	5000 /* a cycle until the status reads off */
#define POWER_OUT_MAX	4096 /* output kept for messages */

struct power_ops {
	int (*set)(struct power *, enum power_action, char **cause);
	/* NULL: the driver cannot read the power state */
	int (*status)(struct power *, bool *on, char **cause);
};

struct power {
	const struct power_ops *ops;
	const struct machine   *m;
	char		       *what;	/* "BMC host:port", "power command" */
	bool			cycles; /* has its own cycle (not off, on) */
};

static const char *power_names[] = { "on", "off", "cycle" };

const char *
power_action_name(enum power_action a)
{
	return power_names[a];
}

int
power_action_parse(const char *s, enum power_action *a)
{
	int i;

	for (i = POWER_ON; i <= POWER_CYCLE; i++) {
		if (strcmp(s, power_names[i]) == 0) {
			*a = (enum power_action)i;
			return 0;
		}
	}
	return -1;
}

const char *
power_what(const struct power *p)
{
	return p->what;
}

/* In the child: stdin from /dev/null, output to fd, its own group, exec. */
static void
power_child(char *const argv[], int fd)
{
	static const char msg[] = "cannot execute\n";
	int		  null;

	setpgid(0, 0);
	signal(SIGPIPE, SIG_DFL);
	if ((null = open("/dev/null", O_RDONLY)) != -1)
		dup2(null, STDIN_FILENO);
	dup2(fd, STDOUT_FILENO);
	dup2(fd, STDERR_FILENO);
	execvp(argv[0], argv);
	if (write(fd, msg, sizeof msg - 1) < 0)
		_exit(127);
	_exit(127);
}

/*
 * Reads the child's output until it closes it or the deadline passes;
 * keeps the first POWER_OUT_MAX bytes.  Returns false on the deadline.
 */
static bool
power_collect(int fd, long long deadline, char *out, size_t *len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char	      buf[1024];
	ssize_t	      n;
	long long     left;

	for (;;) {
		if ((left = deadline - clock_now_ms()) <= 0)
			return false;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			return false;
		if ((n = read(fd, buf, sizeof buf)) == 0)
			return true;
		if (n == -1) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return true;
		}
		if ((size_t)n > POWER_OUT_MAX - *len)
			n = (ssize_t)(POWER_OUT_MAX - *len);
		memcpy(out + *len, buf, (size_t)n);
		*len += (size_t)n;
	}
}

/* Waits for the child; its exit status, or 128+N for signal N. */
static int
power_reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/*
 * Runs argv with its output in *out (caller frees).  Returns its exit
 * status, or -1 with *cause when it could not run or timed out.
 */
static int
power_exec(const struct power *p, char *const argv[], char **out, char **cause)
{
	char  *buf = xcalloc(1, POWER_OUT_MAX + 1);
	size_t len = 0;
	int    fds[2] = { -1, -1 }, rc = -1;
	pid_t  pid;

	*out = NULL;
	if (pipe2(fds, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		causef(cause, "machine \"%s\": %s: %s: %s", p->m->name, p->what,
		    argv[0], strerror(errno));
		goto out;
	}
	if (pid == 0)
		power_child(argv, fds[1]);
	close(fds[1]);
	fds[1] = -1;
	if (!power_collect(fds[0], clock_now_ms() + POWER_CMD_MS, buf, &len)) {
		kill(-pid, SIGKILL);
		power_reap(pid);
		causef(cause, "machine \"%s\": %s: %s: timed out after %d s",
		    p->m->name, p->what, argv[0], POWER_CMD_MS / 1000);
		goto out;
	}
	rc = power_reap(pid);
	*out = buf;
	buf = NULL;
out:
	free(buf);
	if (fds[0] != -1)
		close(fds[0]);
	if (fds[1] != -1)
		close(fds[1]);
	return rc;
}

/* The output on one line: lines joined by "; ", blanks trimmed. */
static char *
power_oneline(const char *out)
{
	char	   *s = xcalloc(1, strlen(out) + 1), *d = s;
	const char *c;
	bool	    sep = false;

	for (c = out; *c != '\0'; c++) {
		if (*c == '\n' || *c == '\r') {
			sep = d != s;
			continue;
		}
		if (sep && !isspace((unsigned char)*c)) {
			d = stpcpy(d, "; ");
			sep = false;
		}
		if (!sep && (d != s || !isspace((unsigned char)*c)))
			*d++ = isprint((unsigned char)*c) ? *c : '?';
	}
	while (d > s && isspace((unsigned char)d[-1]))
		d--;
	*d = '\0';
	return s;
}

/*
 * Runs a driver command: 0 with *out (caller frees) when it exited 0,
 * else -1 with *cause naming the program, its exit and its output.
 */
static int
power_run(const struct power *p, char *const argv[], char **out, char **cause)
{
	char *line;
	int   rc;

	if ((rc = power_exec(p, argv, out, cause)) == -1)
		return -1;
	if (rc == 0)
		return 0;
	line = power_oneline(*out);
	if (*line == '\0')
		causef(cause, "machine \"%s\": %s: %s: exit %d", p->m->name,
		    p->what, argv[0], rc);
	else
		causef(cause, "machine \"%s\": %s: %s: %s (exit %d)",
		    p->m->name, p->what, argv[0], line, rc);
	free(line);
	free(*out);
	*out = NULL;
	return -1;
}

/* Polls the status until it reads want; -1 with *cause past the limit. */
static int
power_settle(struct power *p, bool want, char **cause)
{
	long long deadline = clock_now_ms() + POWER_SETTLE_MS;
	bool	  on;

	if (p->ops->status == NULL)
		return 0;
	for (;;) {
		if (p->ops->status(p, &on, cause) == -1)
			return -1;
		if (on == want)
			return 0;
		if (clock_now_ms() >= deadline)
			break;
		clock_sleep_ms(POWER_POLL_MS);
	}
	causef(cause, "machine \"%s\": %s: power still %s %d s after \"%s\"",
	    p->m->name, p->what, on ? "on" : "off", POWER_SETTLE_MS / 1000,
	    want ? "on" : "off");
	return -1;
}

/*
 * After a cycle: polls until the status reads off, for a moment at most
 * (a quick cycle may never read off), so that a caller waiting for the
 * machine does not find it still up from before.
 */
static void
power_dip(struct power *p)
{
	long long deadline = clock_now_ms() + POWER_DIP_MS;
	char	 *cause = NULL;
	bool	  on = true;

	while (on && clock_now_ms() < deadline) {
		if (p->ops->status(p, &on, &cause) == -1) {
			log_debug(p->m->name, "%s", cause);
			free(cause);
			return;
		}
		if (on)
			clock_sleep_ms(POWER_POLL_MS);
	}
}

/* ipmitool's argv for "chassis power VERB" (free with free()). */
static char **
power_ipmi_argv(const struct power *p, const char *verb, char *num[2])
{
	const struct machine_ipmi *ip = &p->m->power.ipmi;
	char			 **v = xcalloc(20, sizeof *v);
	size_t			   n = 0;

	num[0] = xasprintf("%d", ip->port);
	num[1] = xasprintf("%d", ip->cipher);
	v[n++] = (char *)"ipmitool";
	v[n++] = (char *)"-I";
	v[n++] = ip->interface;
	if (strcmp(ip->interface, "lanplus") == 0) {
		v[n++] = (char *)"-C";
		v[n++] = num[1];
	}
	v[n++] = (char *)"-H";
	v[n++] = ip->host;
	v[n++] = (char *)"-p";
	v[n++] = num[0];
	v[n++] = (char *)"-U";
	v[n++] = ip->user;
	v[n++] = (char *)"-f";
	v[n++] = ip->password_file;
	v[n++] = (char *)"chassis";
	v[n++] = (char *)"power";
	v[n++] = (char *)verb;
	return v;
}

/* Runs "ipmitool ... chassis power VERB"; *out as power_run's. */
static int
power_ipmi_run(struct power *p, const char *verb, char **out, char **cause)
{
	char *num[2], **argv = power_ipmi_argv(p, verb, num);
	int   rc;

	log_debug(p->m->name, "power: ipmitool chassis power %s (%s)", verb,
	    p->what);
	rc = power_run(p, argv, out, cause);
	free(num[0]);
	free(num[1]);
	free(argv);
	return rc;
}

/* Reads "Chassis Power is on|off" from the BMC. */
static int
power_ipmi_status(struct power *p, bool *on, char **cause)
{
	char *out, *line;
	int   rc = 0;

	if (power_ipmi_run(p, "status", &out, cause) == -1)
		return -1;
	if (strstr(out, "Chassis Power is on") != NULL)
		*on = true;
	else if (strstr(out, "Chassis Power is off") != NULL)
		*on = false;
	else {
		line = power_oneline(out);
		causef(cause,
		    "machine \"%s\": %s: ipmitool: unexpected status \"%s\"",
		    p->m->name, p->what, line);
		free(line);
		rc = -1;
	}
	free(out);
	return rc;
}

/* Asks the BMC for on, off or cycle. */
static int
power_ipmi_set(struct power *p, enum power_action a, char **cause)
{
	char *out;

	if (power_ipmi_run(p, power_action_name(a), &out, cause) == -1)
		return -1;
	free(out);
	return 0;
}

/* Runs one of the machine file's power commands. */
static int
power_cmd_run(struct power *p, char **argv, char **out, char **cause)
{
	log_debug(p->m->name, "power: %s", argv[0]);
	return power_run(p, argv, out, cause);
}

/* Reads "on" or "off" from the status command's output. */
static int
power_cmd_status(struct power *p, bool *on, char **cause)
{
	char *out, *line;
	int   rc = 0;

	if (power_cmd_run(p, p->m->power.command.status, &out, cause) == -1)
		return -1;
	line = power_oneline(out);
	if (strcmp(line, "on") == 0)
		*on = true;
	else if (strcmp(line, "off") == 0)
		*on = false;
	else {
		causef(cause,
		    "machine \"%s\": %s: %s printed \"%s\", not on or off",
		    p->m->name, p->what, p->m->power.command.status[0], line);
		rc = -1;
	}
	free(line);
	free(out);
	return rc;
}

/* Runs the on, off or cycle command; a cycle without one is off, on. */
static int
power_cmd_set(struct power *p, enum power_action a, char **cause)
{
	const struct machine_power_commands *c = &p->m->power.command;
	char				   **argv = a == POWER_ON ? c->on
					  : a == POWER_OFF	  ? c->off
								  : c->cycle;
	char				    *out;

	if (argv == NULL) {
		if (power_cmd_set(p, POWER_OFF, cause) == -1)
			return -1;
		clock_sleep_ms(POWER_GAP_MS);
		return power_cmd_set(p, POWER_ON, cause);
	}
	if (power_cmd_run(p, argv, &out, cause) == -1)
		return -1;
	free(out);
	return 0;
}

static const struct power_ops power_ipmi_ops = {
	.set = power_ipmi_set,
	.status = power_ipmi_status,
};

static const struct power_ops power_cmd_ops = {
	.set = power_cmd_set,
	.status = power_cmd_status,
};

static const struct power_ops power_cmd_nostatus_ops = {
	.set = power_cmd_set,
	.status = NULL,
};

struct power *
power_open(const struct machine *m, char **cause)
{
	const struct machine_ipmi *ip = &m->power.ipmi;
	struct power		  *p;

	if (m->power.kind == MACHINE_POWER_NONE) {
		*cause = xasprintf("machine \"%s\": no power control (no "
				   "\"power\" in %s)",
		    m->name, m->file ? m->file : "its file");
		return NULL;
	}
	p = xcalloc(1, sizeof *p);
	p->m = m;
	if (m->power.kind == MACHINE_POWER_COMMAND) {
		p->what = xstrdup("power command");
		p->ops = m->power.command.status ? &power_cmd_ops
						 : &power_cmd_nostatus_ops;
		p->cycles = m->power.command.cycle != NULL;
		return p;
	}
	p->what = xasprintf("BMC %s:%d", ip->host, ip->port);
	p->ops = &power_ipmi_ops;
	p->cycles = true;
	if (access(ip->password_file, R_OK) == -1) {
		causef(cause, "machine \"%s\": %s: password file \"%s\": %s",
		    p->m->name, p->what, ip->password_file, strerror(errno));
		power_close(p);
		return NULL;
	}
	return p;
}

int
power_set(struct power *p, enum power_action a, char **cause)
{
	bool on = true;

	if (a == POWER_CYCLE && p->ops->status != NULL) {
		if (p->ops->status(p, &on, cause) == -1)
			return -1;
		if (!on)
			a = POWER_ON; /* nothing to cycle */
	}
	if (p->ops->set(p, a, cause) == -1)
		return -1;
	if (a != POWER_CYCLE)
		return power_settle(p, a == POWER_ON, cause);
	if (p->cycles && p->ops->status != NULL)
		power_dip(p);
	return 0;
}

int
power_status(struct power *p, bool *on, char **cause)
{
	if (p->ops->status == NULL) {
		causef(cause, "machine \"%s\": %s: no \"status\" command in %s",
		    p->m->name, p->what,
		    p->m->file ? p->m->file : "the machine file");
		return -1;
	}
	return p->ops->status(p, on, cause);
}

void
power_close(struct power *p)
{
	if (p == NULL)
		return;
	free(p->what);
	free(p);
}
