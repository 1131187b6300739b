/*
 * An install script run on the host, detached from the ssh session, in its
 * own session (so its process group can be stopped) and in the benchmark's
 * prefix: install.pid names it while it runs, its output goes to
 * install.log and its exit status to install.rc, which the worker polls.
 * A cancel of the run's job stops it there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/daemon.h"
#include "hilabd/setup/setup.h"
#include "hilabd/worker_ctx.h"
#include "jobs/job.h"
#include "machines/ssh.h"

#define INSTALL_MS	   (30 * 60 * 1000) /* per install */
#define INSTALL_POLL_MS	   250
#define INSTALL_LEASE_MS   (10 * 60 * 1000)
#define INSTALL_TAIL_LINES 15 /* of the install log, in errors */

/* Starts script detached on the host, its output in dir/install.log. */
static int
install_script_start(struct worker_ctx *ctx, const char *dir,
    const char *script, char **cause)
{
	char *qd = ssh_host_quote(dir), *qs = ssh_host_quote(script);
	char *cmd, *out;
	int   rc;

	cmd = xasprintf(
	    "mkdir -p %s && cd %s && rm -f install.rc install.log "
	    "install.pid && { S=; command -v setsid >/dev/null && S=setsid; "
	    "$S sh -c 'sh -c \"$1\" >install.log 2>&1; echo $? "
	    ">install.rc.new; mv install.rc.new install.rc' sh %s "
	    "</dev/null >/dev/null 2>&1 & pid=$!; "
	    "echo \"$pid " SETUP_START_TIME_SH "\" >install.pid; }",
	    qd, qd, qs);
	out = setup_output(ctx, cmd, "starting the install", cause);
	rc = out != NULL ? 0 : -1;
	free(cmd);
	free(qd);
	free(qs);
	free(out);
	return rc;
}

/*
 * Stops the install still running in dir on the host (its process group)
 * and returns what it stopped, "install (pid N)", or NULL.
 */
static char *
install_script_stop(struct worker_ctx *ctx, const char *dir)
{
	char *q = ssh_host_quote(dir), *cmd, *out, *cause = NULL;

	cmd = xasprintf("cd %s 2>/dev/null || exit 0; f=install.pid; "
			"[ -f \"$f\" ] || exit 0; " SETUP_KILL_SH "; exit 0",
	    q);
	if ((out = setup_output(ctx, cmd, "stopping the install", &cause)) ==
	    NULL) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
	} else if (*out == '\0') {
		free(out);
		out = NULL;
	} else
		out[strcspn(out, "\n")] = '\0';
	free(cmd);
	free(q);
	return out;
}

/* Sleeps for ms milliseconds. */
static void
install_script_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Renews the machine's lease during a long install. */
static void
install_script_renew(struct worker_ctx *ctx)
{
	char *cause = NULL;

	if (db_machine_renew(ctx->db, worker_name(ctx), ctx->w->owner,
		INSTALL_LEASE_MS, &cause) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
	}
}

/*
 * Polls dir/install.rc until the script ends, checking between polls that
 * the run's job is not cancelled.  Returns 0 with its exit status, 1 when
 * the job was cancelled (the script still runs), or -1 with *cause.
 */
static int
install_script_wait(struct worker_ctx *ctx, const struct db_run *r,
    const char *dir, int *status, char **cause)
{
	char *qd = ssh_host_quote(dir), *cmd, *out;
	long  waited;
	int   rc = -1;

	cmd = xasprintf("cat %s/install.rc 2>/dev/null; exit 0", qd);
	for (waited = 0; waited < INSTALL_MS; waited += INSTALL_POLL_MS) {
		if ((out = setup_output(ctx, cmd, "waiting for the install",
			 cause)) == NULL)
			break;
		if (*out != '\0')
			*status = atoi(out);
		rc = *out != '\0' ? 0 : -1;
		free(out);
		if (rc == 0)
			break;
		if (worker_cancel_requested(ctx, r->job)) {
			rc = 1;
			break;
		}
		if (waited % 60000 == 0)
			install_script_renew(ctx);
		install_script_sleep_ms(INSTALL_POLL_MS);
	}
	if (rc == -1 && *cause == NULL)
		*cause = xasprintf("host \"%s\": install still running after "
				   "%d s",
		    worker_name(ctx), INSTALL_MS / 1000);
	free(cmd);
	free(qd);
	return rc;
}

/* The last n lines of text (a pointer into it). */
static const char *
install_script_tail(const char *text, int n)
{
	const char *p = text + strlen(text);

	while (p > text && p[-1] == '\n')
		p--;
	while (p > text) {
		if (p[-1] == '\n' && --n == 0)
			break;
		p--;
	}
	return p;
}

/*
 * Records the output of the script that ended in dir with status in the
 * run's events; a failure sets *cause with the log's last lines.
 */
static int
install_script_report(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, const char *what, const char *dir,
    int status, char **cause)
{
	char *q = ssh_host_quote(dir), *cmd, *log;

	cmd = xasprintf("tail -c 65536 %s/install.log", q);
	log = setup_output(ctx, cmd, "reading the install log", cause);
	free(cmd);
	free(q);
	if (log == NULL)
		return -1;
	setup_event(ctx, r, status == 0 ? DB_INFO : DB_ERROR,
	    "benchmark \"%s\": %s: exit %d; output:\n%s", b->name, what, status,
	    install_script_tail(log, 40));
	if (status != 0)
		*cause = xasprintf("host \"%s\": benchmark \"%s\": %s failed "
				   "(exit %d): %s",
		    worker_name(ctx), b->name, what, status,
		    install_script_tail(log, INSTALL_TAIL_LINES));
	free(log);
	return status == 0 ? 0 : -1;
}

/* Stops the script of a cancelled job and says so in *cause. */
static void
install_script_cancel(struct worker_ctx *ctx, const struct job_benchmark *b,
    const char *what, const char *dir, char **cause)
{
	char *stopped = install_script_stop(ctx, dir);

	*cause = xasprintf("host \"%s\": benchmark \"%s\": %s cancelled%s%s",
	    worker_name(ctx), b->name, what,
	    stopped != NULL ? "; stopped " : "",
	    stopped != NULL ? stopped : "");
	free(stopped);
}

/* Runs an install script on the host; see setup.h. */
int
install_script_run(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, const char *what, const char *script,
    char **cause)
{
	char *dir = setup_prefix(ctx, b);
	int   status = -1, rc = -1;

	if (install_script_start(ctx, dir, script, cause) == -1)
		goto out;
	switch (install_script_wait(ctx, r, dir, &status, cause)) {
	case 0:
		rc = install_script_report(ctx, r, b, what, dir, status, cause);
		break;
	case 1:
		install_script_cancel(ctx, b, what, dir, cause);
		break;
	}
out:
	free(dir);
	return rc;
}
