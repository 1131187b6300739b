/*
 * A benchmark built on its host from a source tarball in the machine's
 * mirror directory: uploaded into <agent_dir>/bench/<name>, unpacked into
 * its src/ and built there by the catalog's build commands, which may
 * install into $PREFIX; .installed then holds the build's stamp: the
 * tarball's name and a hash of the build commands, so a changed catalog
 * entry is built again.  The entry's prepare command then runs in src/ for
 * each parameter combination the job plans on the machine.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/sha256.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/setup/setup.h"
#include "hilabd/worker_ctx.h"
#include "jobs/job.h"
#include "jobs/plan.h"
#include "machines/machine.h"
#include "machines/ssh.h"

/*
 * The stamp of a source build: "<tarball> <sha256 of the build>", 16 hex
 * digits of it (each command hashed with its NUL, so none run together).
 */
char *
install_source_stamp(const struct job_benchmark *b)
{
	struct sha256 *h = sha256_begin();
	char	       hex[SHA256_HEX_LEN + 1];
	size_t	       i;

	for (i = 0; b->install.build != NULL && b->install.build[i] != NULL;
	     i++)
		sha256_add(h, b->install.build[i],
		    strlen(b->install.build[i]) + 1);
	sha256_end(h, hex);
	return xasprintf("%s %.16s", b->install.source, hex);
}

/* Whether a prefix's stamp is of the catalog's build; see setup.h. */
bool
install_source_built(const struct job_benchmark *b, const char *source)
{
	char *stamp;
	bool  built;

	if (b->install.source == NULL || source == NULL)
		return false;
	stamp = install_source_stamp(b);
	built = strcmp(source, stamp) == 0;
	free(stamp);
	return built;
}

/* The script that unpacks a tarball into prefix/src and builds it. */
char *
install_source_script(const char *prefix, const struct job_benchmark *b)
{
	char  *qp = ssh_host_quote(prefix), *qs, *qt, *stamp, *s, *next;
	size_t i;

	stamp = install_source_stamp(b);
	qt = ssh_host_quote(stamp);
	free(stamp);
	qs = ssh_host_quote(b->install.source);
	s = xasprintf(
	    "set -e\ncd %s\nrm -rf src src.tmp .installed\n"
	    "mkdir -p src.tmp bin\ntar -xf %s -C src.tmp\nset -- src.tmp/*\n"
	    "if [ $# = 1 ] && [ -d \"$1\" ]; then mv \"$1\" src; "
	    "rmdir src.tmp; else mv src.tmp src; fi\ncd src\n"
	    "PREFIX=%s; export PREFIX\nset -x\n",
	    qp, qs, qp);
	for (i = 0; b->install.build != NULL && b->install.build[i] != NULL;
	     i++) {
		next = xasprintf("%s%s\n", s, b->install.build[i]);
		free(s);
		s = next;
	}
	next = xasprintf("%s{ set +x; } 2>/dev/null\n"
			 "printf '%%s\\n' %s >%s/.installed\n",
	    s, qt, qp);
	free(s);
	free(qt);
	free(qs);
	free(qp);
	return next;
}

/* The tarball's path in the mirror (caller frees), or NULL with *cause. */
char *
install_source_local(struct worker_ctx *ctx, const struct job_benchmark *b,
    char **cause)
{
	const char *mirror = ctx->w->machine->mirror;
	char	   *local;

	if (mirror == NULL) {
		*cause = xasprintf(
		    "host \"%s\": benchmark \"%s\": source "
		    "\"%s\" needs a mirror directory (\"mirror\" in the "
		    "machine file)",
		    worker_name(ctx), b->name, b->install.source);
		return NULL;
	}
	local = xasprintf("%s/%s", mirror, b->install.source);
	if (access(local, R_OK) == -1) {
		*cause = xasprintf("host \"%s\": benchmark \"%s\": \"%s\": "
				   "not in the mirror",
		    worker_name(ctx), b->name, local);
		free(local);
		return NULL;
	}
	return local;
}

/* Uploads the tarball from the mirror, unpacks and builds it. */
int
install_source_build(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, char **cause)
{
	char *prefix = setup_prefix(ctx, b), *local, *remote = NULL;
	char *script = NULL, *what = NULL;
	int   rc = -1;

	if ((local = install_source_local(ctx, b, cause)) == NULL)
		goto out;
	remote = xasprintf("%s/%s", prefix, b->install.source);
	setup_event(ctx, r, DB_INFO,
	    "benchmark \"%s\": installing from "
	    "source \"%s\" into \"%s\"",
	    b->name, local, prefix);
	if (setup_upload(ctx, local, remote, cause) == -1)
		goto out;
	script = install_source_script(prefix, b);
	what = xasprintf("build of \"%s\"", b->install.source);
	rc = install_script_run(ctx, r, b, what, script, cause);
out:
	free(what);
	free(script);
	free(remote);
	free(local);
	free(prefix);
	return rc;
}

/* Whether run i repeats the machine, benchmark and params of an earlier. */
static bool
install_prepare_seen(const struct plan *pl, size_t i)
{
	const struct plan_run *p = &pl->runs[i], *q;
	size_t		       j;

	for (j = 0; j < i; j++) {
		q = &pl->runs[j];
		if (q->benchmark_index == p->benchmark_index &&
		    strcmp(q->machine, p->machine) == 0 &&
		    strcmp(q->params, p->params) == 0)
			return true;
	}
	return false;
}

/* Appends the prepare command of run p, quoted, as a line of *script. */
static int
install_prepare_line(const struct job_benchmark *b, const struct plan_run *p,
    char **script, char **cause)
{
	char **argv = setup_argv(b, b->install.prepare, p, cause), *next;
	size_t i;

	if (argv == NULL)
		return -1;
	for (i = 0; argv[i] != NULL; i++)
		setup_append_word(script, argv[i]);
	next = xasprintf("%s\n", *script);
	free(*script);
	*script = next;
	plan_argv_free(argv);
	return 0;
}

/* The prepare script of the job's combinations on the machine; setup.h. */
int
install_prepare_script(struct worker_ctx *ctx, const struct job_benchmark *b,
    size_t bench, char **script, char **cause)
{
	const struct plan *pl = &ctx->plan;
	size_t		   i;

	*script = NULL;
	if (b->install.prepare == NULL)
		return 0;
	*script = xstrdup("set -e\ncd src\nset -x\n");
	for (i = 0; i < pl->n; i++) {
		if (pl->runs[i].benchmark_index != bench ||
		    strcmp(pl->runs[i].machine, worker_name(ctx)) != 0 ||
		    install_prepare_seen(pl, i))
			continue;
		if (install_prepare_line(b, &pl->runs[i], script, cause) ==
		    -1) {
			free(*script);
			*script = NULL;
			return -1;
		}
	}
	return 0;
}
