/*
 * The server a benchmark needs on its host (catalog key "server", e.g.
 * tbench_srv for tbench): started detached in its own session before the
 * run, with a pid file in <agent_dir>/servers, checked to listen on its
 * port, and its process group stopped after the run, or after a resume
 * for what a stopped controller left.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/setup/setup.h"
#include "hilabd/worker_ctx.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/ssh.h"

/*
 * The command that stops every server recorded in dir/servers: each pid
 * file names a pid and its start time, so a pid used again since is left
 * alone.  The process group goes (TERM, then KILL after 3 s).
 */
static char *
server_stop_cmd(const char *dir)
{
	char *q = ssh_host_quote(dir), *cmd;

	cmd = xasprintf(
	    "cd %s/servers 2>/dev/null || exit 0; "
	    "for f in *.pid; do [ -f \"$f\" ] || continue; " SETUP_KILL_SH
	    "; done; exit 0",
	    q);
	free(q);
	return cmd;
}

/* Stops the servers recorded on the host; logs what it stopped. */
void
server_stop(struct worker_ctx *ctx, const struct db_run *r)
{
	char *cmd = server_stop_cmd(setup_agent_dir(ctx)), *out, *s, *l;
	char *cause = NULL;

	if ((out = setup_output(ctx, cmd, "stopping servers", &cause)) ==
	    NULL) {
		setup_event(ctx, r, DB_WARN, "%s", cause);
		free(cause);
	}
	s = out;
	while ((l = setup_next_line(&s)) != NULL)
		setup_event(ctx, r, DB_INFO, "server %s stopped", l);
	free(out);
	free(cmd);
}

/*
 * The command that starts a server detached in its own session, records
 * "pid starttime" and waits (5 s at most) for it to listen on port, or
 * 0.2 s without a port, checking it stays alive.
 */
static char *
server_start_cmd(const char *dir, const char *cwd, const char *name,
    char **argv, int port)
{
	char  *qd = ssh_host_quote(dir), *qc = ssh_host_quote(cwd);
	char  *qn = ssh_host_quote(name), *words = xstrdup(""), *cmd;
	char  *ready;
	size_t i;

	for (i = 0; argv[i] != NULL; i++)
		setup_append_word(&words, argv[i]);
	if (port > 0)
		ready = xasprintf("grep -q ':%04X [0-9A-F]*:[0-9A-F]* 0A ' "
				  "/proc/net/tcp /proc/net/tcp6 2>/dev/null",
		    port);
	else
		ready = xstrdup("[ $i -ge 2 ]");
	cmd = xasprintf(
	    "mkdir -p %s/servers && cd %s || exit 1; "
	    "log=%s/servers/%s; S=; command -v setsid >/dev/null && S=setsid; "
	    "$S %s </dev/null >\"$log.log\" 2>&1 & pid=$!; "
	    "st=" SETUP_START_TIME_SH "; "
	    "echo \"$pid $st\" >\"$log.pid\"; i=0; while [ $i -lt 50 ]; do "
	    "kill -0 $pid 2>/dev/null || break; if %s; then echo $pid; "
	    "exit 0; fi; sleep 0.1; i=$((i+1)); done; "
	    "kill -0 $pid 2>/dev/null && echo 'not listening after 5 s' || "
	    "echo 'exited'; tail -n 5 \"$log.log\"; exit 1",
	    qd, qc, qd, qn, words, ready);
	free(ready);
	free(words);
	free(qn);
	free(qc);
	free(qd);
	return cmd;
}

/* Starts the server with argv on the host and checks it is up. */
static int
server_run(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, char **argv, const char *cwd, char **cause)
{
	struct ssh_host_result res = { 0 };
	char		      *cmd;
	int		       rc = -1;

	server_stop(ctx, r); /* whatever a stopped controller left */
	cmd = server_start_cmd(setup_agent_dir(ctx), cwd, b->name, argv,
	    b->server.port);
	setup_get(ctx)->server_up = true;
	if (setup_exec(ctx, cmd, &res, cause) == 0) {
		if (res.status == 0) {
			setup_event(ctx, r, DB_INFO,
			    "server \"%s\" started "
			    "(pid %.*s)",
			    argv[0], (int)strcspn(res.out, "\n"), res.out);
			rc = 0;
		} else
			*cause = xasprintf("host \"%s\": benchmark \"%s\": "
					   "server \"%s\" did not come up: %s",
			    worker_name(ctx), b->name, argv[0], res.out);
	}
	ssh_host_result_clear(&res);
	free(cmd);
	return rc;
}

/* Starts the benchmark's server for the run; see setup.h. */
int
server_start(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, const struct plan_run *p, const char *path,
    const char *cwd, char **cause)
{
	char **argv;
	int    rc;

	if ((argv = setup_argv(b, b->server.argv, p, cause)) == NULL)
		return -1;
	if (path != NULL) {
		free(argv[0]);
		argv[0] = xstrdup(path);
	}
	rc = server_run(ctx, r, b, argv, cwd, cause);
	plan_argv_free(argv);
	return rc;
}
