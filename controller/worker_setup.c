/*
 * A benchmark made ready on its host before a run: its tool installed when
 * missing (install.c), the run's argv[0] resolved there, and the server it
 * needs started detached and stopped once the run is over (server.c).
 * Everything here talks to the host over the setup's own ssh session, which
 * stays idle while the benchmark is measured.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "controller/daemon.h"
#include "controller/setup.h"
#include "controller/worker.h"
#include "db/db.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/machine.h"
#include "machines/ssh.h"

/* Logs to stderr and to the run's events. */
void
setup_event(struct worker_ctx *ctx, const struct db_run *r,
    enum db_level level, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg, *cause = NULL;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (level >= DB_WARN)
		log_warn(worker_name(ctx), "%s", msg);
	else
		log_info(worker_name(ctx), "%s", msg);
	if (db_event_add(ctx->db, r->job, r->id, worker_name(ctx), level,
	    &cause, "%s", msg) == -1) {
		log_warn(worker_name(ctx), "%s", cause);
		free(cause);
	}
	free(msg);
}

/* The worker's setup state, made on first use. */
struct worker_setup *
setup_get(struct worker_ctx *ctx)
{
	if (ctx->setup == NULL)
		ctx->setup = xcalloc(1, sizeof *ctx->setup);
	return ctx->setup;
}

void
worker_setup_free(struct worker_ctx *ctx)
{
	struct worker_setup	*st = ctx->setup;

	if (st == NULL)
		return;
	ssh_host_close(st->h);
	install_tools_clear(st);
	free(st);
	ctx->setup = NULL;
}

void
worker_exec_clear(struct worker_exec *ex)
{
	plan_argv_free(ex->argv);
	free(ex->cwd);
	memset(ex, 0, sizeof *ex);
}

/*
 * Runs cmd on the host through the setup's own session, connecting (again,
 * once, after a dropped session or a reboot) as needed.
 */
int
setup_exec(struct worker_ctx *ctx, const char *cmd,
    struct ssh_host_result *res, char **cause)
{
	struct worker_setup	*st = setup_get(ctx);
	int			 attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		if (st->h == NULL && (st->h = ssh_host_connect(ctx->w->machine,
		    0, cause)) == NULL)
			return -1;
		if (ssh_host_exec(st->h, cmd, res, cause) == 0)
			return 0;
		ssh_host_close(st->h);
		st->h = NULL;
		if (attempt == 0) {
			free(*cause);
			*cause = NULL;
		}
	}
	return -1;
}

/* Runs cmd and hands back its stdout; a non-zero exit is an error. */
char *
setup_output(struct worker_ctx *ctx, const char *cmd, const char *what,
    char **cause)
{
	struct ssh_host_result	 res = { 0 };
	char			*out = NULL;

	if (setup_exec(ctx, cmd, &res, cause) == -1)
		return NULL;
	if (res.status != 0)
		*cause = xasprintf("host \"%s\": %s: exit %d: %s",
		    worker_name(ctx), what, res.status, res.err);
	else
		out = xstrdup(res.out);
	ssh_host_result_clear(&res);
	return out;
}

/* Uploads a local file to the host through the setup's session. */
int
setup_upload(struct worker_ctx *ctx, const char *local, const char *remote,
    char **cause)
{
	struct worker_setup	*st = setup_get(ctx);

	if (st->h == NULL && (st->h = ssh_host_connect(ctx->w->machine, 0,
	    cause)) == NULL)
		return -1;
	return ssh_host_upload(st->h, local, remote, 0644, cause);
}

/* The remote directory of the agent, its spool and the install prefixes. */
const char *
setup_agent_dir(const struct worker_ctx *ctx)
{
	const char	*d = ctx->w->machine->ssh.agent_dir;

	return d != NULL ? d : "/var/tmp/hilab";
}

/* The install prefix of a benchmark on the host (caller frees). */
char *
setup_prefix(const struct worker_ctx *ctx, const struct job_benchmark *b)
{
	return xasprintf("%s/bench/%s", setup_agent_dir(ctx), b->name);
}

/* Appends a shell-quoted copy of s and a space to *cmd. */
void
setup_append_word(char **cmd, const char *s)
{
	char	*q = ssh_host_quote(s), *next;

	next = xasprintf("%s%s ", *cmd, q);
	free(*cmd);
	free(q);
	*cmd = next;
}

/* Cuts the next line off *s (NULL at the end). */
char *
setup_next_line(char **s)
{
	char	*line = *s, *nl;

	if (line == NULL || *line == '\0')
		return NULL;
	if ((nl = strchr(line, '\n')) != NULL) {
		*nl = '\0';
		*s = nl + 1;
	} else
		*s = line + strlen(line);
	return line;
}

/*
 * The run's benchmark, from the job the worker planned it with; the tools
 * found are forgotten when another job starts.
 */
static const struct job_benchmark *
setup_benchmark(struct worker_ctx *ctx, const struct db_run *r,
    const struct plan_run *p, char **cause)
{
	struct worker_setup	*st = setup_get(ctx);

	if (st->job_id != r->job) {
		install_tools_clear(st);
		st->job_id = r->job;
	}
	if (ctx->job == NULL || ctx->plan_job != r->job ||
	    p->benchmark_index >= ctx->job->nbenchmarks) {
		*cause = xasprintf("run %lld: benchmark %zu not in the planned "
		    "job", (long long)r->id, p->benchmark_index);
		return NULL;
	}
	return &ctx->job->benchmarks[p->benchmark_index];
}

/* Whether the benchmark needs anything of this step. */
static bool
setup_needed(const struct job_benchmark *b)
{
	if (!b->resolved || b->argv == NULL || b->argv[0] == NULL)
		return false;
	if (b->server.argv != NULL)
		return true;
	if (strcmp(b->argv[0], "hilab-agent") == 0)
		return false;	/* the agent runs its own probes */
	return b->install.package != NULL || b->install.source != NULL;
}

/* Fills ex: argv with argv[0] resolved, the source tree as cwd. */
static void
setup_fill_exec(struct worker_ctx *ctx, const struct job_benchmark *b,
    const struct plan_run *p, const struct setup_tool *t,
    struct worker_exec *ex)
{
	char	*prefix = setup_prefix(ctx, b);
	size_t	 n, i;

	for (n = 0; p->argv[n] != NULL; n++)
		;
	ex->argv = xcalloc(n + 1, sizeof *ex->argv);
	for (i = 0; i < n; i++)
		ex->argv[i] = xstrdup(i == 0 && t->path ? t->path : p->argv[i]);
	if (t->in_prefix)
		ex->cwd = xasprintf("%s/src", prefix);
	free(prefix);
}

int
worker_setup_begin(struct worker_ctx *ctx, const struct db_run *r,
    const struct plan_run *p, struct worker_exec *ex, char **cause)
{
	const struct job_benchmark	*b;
	const struct setup_tool		*t;
	int				 rc = -1;

	memset(ex, 0, sizeof *ex);
	if ((b = setup_benchmark(ctx, r, p, cause)) == NULL)
		return -1;
	if (!setup_needed(b))
		return 0;
	if ((t = install_tool(ctx, r, p, b, cause)) == NULL)
		goto out;
	setup_fill_exec(ctx, b, p, t, ex);
	if (b->server.argv == NULL)
		rc = 0;
	else
		rc = server_start(ctx, r, b, p, t->server, ex->cwd ? ex->cwd :
		    setup_agent_dir(ctx), cause);
out:
	if (rc == -1) {
		worker_setup_end(ctx, r);
		worker_exec_clear(ex);
	}
	return rc;
}

void
worker_setup_end(struct worker_ctx *ctx, const struct db_run *r)
{
	struct worker_setup	*st = ctx->setup;

	if (st == NULL || !st->server_up)
		return;
	server_stop(ctx, r);
	st->server_up = false;
}

void
worker_setup_sweep(struct worker_ctx *ctx, const struct db_run *r)
{
	setup_get(ctx)->server_up = true;
	worker_setup_end(ctx, r);
}
