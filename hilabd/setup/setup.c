/*
 * What every file of the setup step shares: its events, its own ssh
 * session to the host (commands, output, uploads), where things go on the
 * host, and a run's parameters put into a benchmark's argv templates.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/setup/setup.h"
#include "hilabd/worker_ctx.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/machine.h"
#include "machines/ssh.h"

/* Logs to stderr and to the run's events, printf-style. */
void
setup_event(struct worker_ctx *ctx, const struct db_run *r, enum db_level level,
    const char *fmt, ...)
{
	va_list ap;
	char   *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	worker_event(ctx, r, level, msg);
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

/*
 * Runs cmd on the host through the setup's own session, connecting (again,
 * once, after a dropped session or a reboot) as needed.
 */
int
setup_exec(struct worker_ctx *ctx, const char *cmd, struct ssh_host_result *res,
    char **cause)
{
	struct worker_setup *st = setup_get(ctx);
	int		     attempt;

	for (attempt = 0; attempt < 2; attempt++) {
		if (st->h == NULL &&
		    (st->h = ssh_host_connect(ctx->w->machine, 0, cause)) ==
			NULL)
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
	struct ssh_host_result res = { 0 };
	char		      *out = NULL;

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
	struct worker_setup *st = setup_get(ctx);

	if (st->h == NULL &&
	    (st->h = ssh_host_connect(ctx->w->machine, 0, cause)) == NULL)
		return -1;
	return ssh_host_upload(st->h, local, remote, 0644, cause);
}

/* The remote directory of the agent, its spool and the install prefixes. */
const char *
setup_agent_dir(const struct worker_ctx *ctx)
{
	const char *d = ctx->w->machine->ssh.agent_dir;

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
	char *q = ssh_host_quote(s), *next;

	next = xasprintf("%s%s ", *cmd, q);
	free(*cmd);
	free(q);
	*cmd = next;
}

/* Cuts the next line off *s (NULL at the end). */
char *
setup_next_line(char **s)
{
	char *line = *s, *nl;

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
 * The value of parameter i at s: one of its values followed by ",<next
 * key>=", or by the end for the last parameter; NULL if none is.
 */
static const char *
setup_param_value(const struct job_benchmark *b, size_t i, const char *s)
{
	const char *v, *found = NULL;
	char	   *sep;
	size_t	    j, len;

	sep = i + 1 < b->nparams ? xasprintf(",%s=", b->params[i + 1].key)
				 : xstrdup("");
	for (j = 0; j < b->params[i].nvalues && found == NULL; j++) {
		v = b->params[i].values[j];
		len = strlen(v);
		if (strncmp(s, v, len) == 0 &&
		    strncmp(s + len, sep, strlen(sep)) == 0 &&
		    (*sep != '\0' || s[len] == '\0'))
			found = v;
	}
	free(sep);
	return found;
}

/*
 * Splits a run's "key=value,..." into the keys and values of the
 * benchmark's parameters, in order; false if they do not match.
 */
static bool
setup_param_split(const struct job_benchmark *b, const char *s,
    const char **keys, const char **values)
{
	size_t i, len;

	for (i = 0; i < b->nparams; i++) {
		keys[i] = b->params[i].key;
		len = strlen(keys[i]);
		if (strncmp(s, keys[i], len) != 0 || s[len] != '=')
			return false;
		s += len + 1;
		if ((values[i] = setup_param_value(b, i, s)) == NULL)
			return false;
		s += strlen(values[i]) + (i + 1 < b->nparams);
	}
	return true;
}

/* Expands an argv template of the benchmark with the run's parameters. */
char **
setup_argv(const struct job_benchmark *b, char *const *tmpl,
    const struct plan_run *p, char **cause)
{
	const char **keys, **values;
	char	   **argv = NULL;

	keys = xcalloc(b->nparams + 1, sizeof *keys);
	values = xcalloc(b->nparams + 1, sizeof *values);
	if (!setup_param_split(b, p->params, keys, values))
		*cause = xasprintf("run parameters \"%s\" do not match the "
				   "job",
		    p->params);
	else
		argv = plan_expand_argv(tmpl, keys, values, b->nparams, cause);
	free(keys);
	free(values);
	return argv;
}
