/*
 * A benchmark's tool on its host: looked up (in the install prefix's source
 * tree, its bin, then on PATH), installed when missing or not built from
 * the catalog's tarball (install_source.c, install_deb.c; for a machine
 * with "build_on: controller", built there and uploaded by
 * install_controller.c), looked up again, and a build on the host prepared
 * for the job's parameters.  What was found, or why the install failed, is
 * kept per job, boot and benchmark.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/setup/setup.h"
#include "hilabd/worker_ctx.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/machine.h"
#include "machines/ssh.h"

#define INSTALL_NO_PATH "-"

/* The lines a look-up prints: tool, server, installed source. */
struct install_found {
	char *tool;	 /* NULL if not found */
	char *server;	 /* NULL if not found */
	char *source;	 /* the stamp of the prefix's build, or NULL */
	char *archive;	 /* the controller's archive unpacked there, or NULL */
	bool  installed; /* not found at first: installed now */
};

/* Forgets the tools found for the current job. */
void
install_tools_clear(struct worker_setup *st)
{
	size_t i;

	for (i = 0; i < st->ntools; i++) {
		free(st->tools[i].path);
		free(st->tools[i].server);
		free(st->tools[i].error);
	}
	free(st->tools);
	st->tools = NULL;
	st->ntools = 0;
}

/*
 * The command that finds the tool and the server on the host: each looked
 * up from the prefix's source tree, in the prefix's bin, then on PATH,
 * printed as an absolute path or "-"; then the stamp of the build the
 * prefix holds and the controller's archive unpacked there (or "-").
 */
static char *
install_which_cmd(const char *prefix, const char *tool, const char *server)
{
	char *qp = ssh_host_quote(prefix), *cmd, *words = xstrdup("");

	setup_append_word(&words, tool);
	setup_append_word(&words, server != NULL ? server : INSTALL_NO_PATH);
	cmd = xasprintf(
	    "cd %s/src 2>/dev/null || cd /; "
	    "for a in %s; do p=$(PATH=%s/bin:$PATH; command -v \"$a\" "
	    "2>/dev/null) || p=; case $p in /*) ;; ?*) p=$(pwd)/$p ;; esac; "
	    "if [ -n \"$p\" ] && [ -f \"$p\" ] && [ -x \"$p\" ]; then "
	    "echo \"$p\"; else echo -; fi; done; "
	    "for f in .installed .archive; do s=$(head -n 1 %s/$f 2>/dev/null); "
	    "echo \"${s:--}\"; done; exit 0",
	    qp, words, qp, qp);
	free(qp);
	free(words);
	return cmd;
}

/* Returns a copy of a found path, NULL for "-" or nothing. */
static char *
install_found_path(char *line)
{
	if (line == NULL || *line == '\0' || strcmp(line, INSTALL_NO_PATH) == 0)
		return NULL;
	return xstrdup(line);
}

/* Frees what a look-up found and zeroes it. */
static void
install_found_clear(struct install_found *f)
{
	free(f->tool);
	free(f->server);
	free(f->source);
	free(f->archive);
	memset(f, 0, sizeof *f);
}

/* Looks the tool and the server up on the host. */
static int
install_which(struct worker_ctx *ctx, const struct job_benchmark *b,
    const char *server, struct install_found *f, char **cause)
{
	char *prefix = setup_prefix(ctx, b), *cmd, *out, *s;

	cmd = install_which_cmd(prefix, b->argv[0], server);
	out =
	    setup_output(ctx, cmd, "looking for the benchmark's tools", cause);
	free(cmd);
	free(prefix);
	if (out == NULL)
		return -1;
	s = out;
	f->tool = install_found_path(setup_next_line(&s));
	f->server = install_found_path(setup_next_line(&s));
	f->source = install_found_path(setup_next_line(&s));
	f->archive = install_found_path(setup_next_line(&s));
	free(out);
	return 0;
}

/*
 * Whether what was found will do: the server (if any) is there, and the
 * tool is there, built from the catalog's tarball for a source install, or
 * a bare command name on the host's PATH; for a build on the controller
 * (pre), the prefix holds that very archive.
 */
static bool
install_found_enough(const struct job_benchmark *b, const char *server,
    const struct install_found *f, const struct install_prefix *pre)
{
	bool built;

	if (server != NULL && f->server == NULL)
		return false;
	if (f->tool == NULL)
		return false;
	if (b->install.source == NULL)
		return true;
	built = install_source_built(b, f->source);
	if (pre->archive != NULL)
		return built && f->archive != NULL &&
		    strcmp(f->archive, pre->hex) == 0;
	return built || strchr(b->argv[0], '/') == NULL;
}

/* Installs the benchmark as its catalog entry says (nothing to do: 0). */
static int
install_run(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, const struct install_prefix *pre,
    char **cause)
{
	if (pre->archive != NULL)
		return install_controller_upload(ctx, r, b, pre, cause);
	if (b->install.source != NULL)
		return install_source_build(ctx, r, b, cause);
	if (b->install.package != NULL)
		return install_deb_package(ctx, r, b, cause);
	return 0;
}

/*
 * Runs the prepare command of a benchmark built on the host for the job's
 * parameter combinations on the machine (a build on the controller holds
 * them already; a tool not built here has none to run).
 */
static int
install_prepare(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, size_t bench, const struct install_found *f,
    const struct install_prefix *pre, char **cause)
{
	char *script, *what;
	int   rc;

	if (pre->archive != NULL || f->tool == NULL ||
	    !install_source_built(b, f->source))
		return 0;
	if (install_prepare_script(ctx, b, bench, &script, cause) == -1)
		return -1;
	if (script == NULL)
		return 0;
	what = xasprintf("prepare of \"%s\"", b->name);
	rc = install_script_run(ctx, r, b, what, script, cause);
	free(what);
	free(script);
	return rc;
}

/*
 * Finds the tools, installs them when missing, finds them again; then
 * prepares a build on the host for the job.
 */
static int
install_find(struct worker_ctx *ctx, const struct db_run *r, size_t bench,
    const struct job_benchmark *b, struct install_found *f,
    const struct install_prefix *pre, char **cause)
{
	const char *srv = b->server.argv ? b->server.argv[0] : NULL;

	if (install_which(ctx, b, srv, f, cause) == -1)
		return -1;
	if (install_found_enough(b, srv, f, pre))
		return install_prepare(ctx, r, b, bench, f, pre, cause);
	install_found_clear(f);
	if (install_run(ctx, r, b, pre, cause) == -1)
		return -1;
	f->installed = true;
	if (install_which(ctx, b, srv, f, cause) == -1 ||
	    install_prepare(ctx, r, b, bench, f, pre, cause) == -1)
		return -1;
	if (f->tool == NULL || (srv != NULL && f->server == NULL))
		*cause = xasprintf("host \"%s\": benchmark \"%s\": \"%s\" not "
				   "found on the host%s",
		    worker_name(ctx), b->name,
		    f->tool == NULL ? b->argv[0] : srv,
		    b->install.source || b->install.package
			? " after its install"
			: "");
	return *cause != NULL ? -1 : 0;
}

/* Whether the machine gets the benchmark built on the controller. */
static bool
install_on_controller(const struct machine *m, const struct job_benchmark *b)
{
	return m->build_on == MACHINE_BUILD_CONTROLLER &&
	    b->install.source != NULL;
}

/* The tool already looked for on this boot, or NULL. */
static struct setup_tool *
install_tool_known(struct worker_setup *st, const struct db_run *r,
    const struct plan_run *p)
{
	struct setup_tool *t;
	size_t		   i;

	for (i = 0; i < st->ntools; i++) {
		t = &st->tools[i];
		if (t->kernel == r->kernel && t->round == r->round &&
		    t->bench == p->benchmark_index)
			return t;
	}
	return NULL;
}

/* The run's tool, found or installed once per job, boot and benchmark. */
const struct setup_tool *
install_tool(struct worker_ctx *ctx, const struct db_run *r,
    const struct plan_run *p, const struct job_benchmark *b, char **cause)
{
	struct worker_setup  *st = setup_get(ctx);
	struct setup_tool    *t;
	struct install_found  f = { 0 };
	struct install_prefix pre = { 0 };

	if ((t = install_tool_known(st, r, p)) != NULL) {
		if (t->error == NULL)
			return t;
		*cause = xstrdup(t->error);
		return NULL;
	}
	st->tools = xreallocarray(st->tools, st->ntools + 1, sizeof *st->tools);
	t = &st->tools[st->ntools++];
	memset(t, 0, sizeof *t);
	t->kernel = r->kernel;
	t->round = r->round;
	t->bench = p->benchmark_index;
	if ((install_on_controller(ctx->w->machine, b) &&
		install_controller_prefix(ctx, r, b, p->benchmark_index, &pre,
		    cause) == -1) ||
	    install_find(ctx, r, p->benchmark_index, b, &f, &pre, cause) ==
		-1) {
		install_found_clear(&f);
		free(pre.archive);
		t->error = xstrdup(*cause);
		return NULL;
	}
	free(pre.archive);
	t->path = f.tool;
	t->server = f.server;
	t->installed = f.installed;
	t->in_prefix = install_source_built(b, f.source);
	free(f.source);
	free(f.archive);
	return t;
}
