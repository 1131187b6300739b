/*
 * A benchmark's Debian package installed on its host: its .deb and those
 * of its missing dependencies uploaded from the machine's mirror directory
 * and installed with dpkg -i, or, when the mirror has no .deb of it (or
 * the host no dpkg), apt-get install on the host.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/setup/setup.h"
#include "hilabd/worker_ctx.h"
#include "jobs/job.h"
#include "machines/machine.h"
#include "machines/ssh.h"

#define INSTALL_MAX_DEBS 200 /* packages one install may upload */

/* The list of .deb files an install uploads, and what it looked at. */
struct install_debs {
	char **seen; /* package names looked up */
	size_t nseen;
	char **remote; /* uploaded files, in dependency-first order */
	size_t nremote;
};

/* Frees the lists and zeroes them. */
static void
install_debs_clear(struct install_debs *d)
{
	size_t i;

	for (i = 0; i < d->nseen; i++)
		free(d->seen[i]);
	for (i = 0; i < d->nremote; i++)
		free(d->remote[i]);
	free(d->seen);
	free(d->remote);
	memset(d, 0, sizeof *d);
}

/* Whether name is a .deb of package pkg for arch (or "all"). */
static bool
install_deb_matches(const char *name, const char *pkg, const char *arch)
{
	size_t n = strlen(name), p = strlen(pkg);
	char  *all, *own;
	bool   yes;

	if (n <= p + 5 || strncmp(name, pkg, p) != 0 || name[p] != '_')
		return false;
	all = xasprintf("_all.deb");
	own = xasprintf("_%s.deb", arch);
	yes = (n > strlen(own) && strcmp(name + n - strlen(own), own) == 0) ||
	    (n > strlen(all) && strcmp(name + n - strlen(all), all) == 0);
	free(all);
	free(own);
	return yes;
}

/* The newest-sorting .deb of pkg in the mirror (caller frees), or NULL. */
static char *
install_deb_find(const char *mirror, const char *pkg, const char *arch)
{
	struct dirent **names;
	char	       *found = NULL;
	int		n, i;

	if ((n = scandir(mirror, &names, NULL, alphasort)) < 0)
		return NULL;
	for (i = 0; i < n; i++) {
		if (install_deb_matches(names[i]->d_name, pkg, arch)) {
			free(found);
			found = xstrdup(names[i]->d_name);
		}
		free(names[i]);
	}
	free(names);
	return found;
}

/*
 * Adds the package names of one line of dpkg-deb's Depends-style fields
 * ("Depends: a (>= 1), b | c", or a continuation line) to *list.
 */
static void
install_deb_deps(char *line, char ***list, size_t *n)
{
	char *item, *save = NULL, *end;

	if (*line != ' ' && *line != '\t' && (line = strchr(line, ':')) == NULL)
		return;
	for (item = strtok_r(line + 1, ",", &save); item != NULL;
	     item = strtok_r(NULL, ",", &save)) {
		item += strspn(item, " \t");
		end = item + strcspn(item, " \t(|:");
		if (end == item)
			continue;
		*list = xreallocarray(*list, *n + 1, sizeof **list);
		(*list)[(*n)++] = xstrndup(item, (size_t)(end - item));
	}
}

/*
 * The dependencies of an uploaded .deb that the host lacks: each first
 * alternative not installed according to dpkg on the host.
 */
static int
install_deb_missing(struct worker_ctx *ctx, const char *remote, char ***list,
    size_t *n, char **cause)
{
	char *q = ssh_host_quote(remote), *cmd, *out, *s, *line;

	cmd = xasprintf("dpkg-deb -f %s Pre-Depends Depends", q);
	out = setup_output(ctx, cmd, "reading a package's dependencies", cause);
	free(cmd);
	free(q);
	if (out == NULL)
		return -1;
	s = out;
	while ((line = setup_next_line(&s)) != NULL)
		install_deb_deps(line, list, n);
	free(out);
	return 0;
}

/* Whether pkg is installed on the host. */
static int
install_deb_installed(struct worker_ctx *ctx, const char *pkg, bool *yes,
    char **cause)
{
	char *q = ssh_host_quote(pkg), *cmd, *out;

	cmd = xasprintf("dpkg-query -W -f='${db:Status-Abbrev}' %s "
			"2>/dev/null; exit 0",
	    q);
	out = setup_output(ctx, cmd, "asking dpkg", cause);
	free(cmd);
	free(q);
	if (out == NULL)
		return -1;
	*yes = strncmp(out, "ii", 2) == 0;
	free(out);
	return 0;
}

/* Whether pkg was already looked at; marks it. */
static bool
install_debs_seen(struct install_debs *d, const char *pkg)
{
	size_t i;

	for (i = 0; i < d->nseen; i++)
		if (strcmp(d->seen[i], pkg) == 0)
			return true;
	d->seen = xreallocarray(d->seen, d->nseen + 1, sizeof *d->seen);
	d->seen[d->nseen++] = xstrdup(pkg);
	return false;
}

/*
 * Uploads pkg's .deb from the mirror and, first, those of its missing
 * dependencies that the mirror has.  A package not in the mirror is left
 * to dpkg, which names it if the host lacks it.
 */
static int
install_debs_add(struct worker_ctx *ctx, struct install_debs *d,
    const char *pkg, const char *arch, char **cause)
{
	const char *mirror = ctx->w->machine->mirror;
	char	   *file, *local, *remote, **deps = NULL;
	size_t	    ndeps = 0, i;
	bool	    installed;
	int	    rc = -1;

	if (install_debs_seen(d, pkg) || d->nseen > INSTALL_MAX_DEBS ||
	    (file = install_deb_find(mirror, pkg, arch)) == NULL)
		return 0;
	local = xasprintf("%s/%s", mirror, file);
	remote = xasprintf("%s/debs/%s", setup_agent_dir(ctx), file);
	if (setup_upload(ctx, local, remote, cause) == -1 ||
	    install_deb_missing(ctx, remote, &deps, &ndeps, cause) == -1)
		goto out;
	for (i = 0; i < ndeps; i++) {
		if (install_deb_installed(ctx, deps[i], &installed, cause) ==
			-1 ||
		    (!installed &&
			install_debs_add(ctx, d, deps[i], arch, cause) == -1))
			goto out;
	}
	d->remote = xreallocarray(d->remote, d->nremote + 1, sizeof *d->remote);
	d->remote[d->nremote++] = remote;
	remote = NULL;
	rc = 0;
out:
	for (i = 0; i < ndeps; i++)
		free(deps[i]);
	free(deps);
	free(remote);
	free(local);
	free(file);
	return rc;
}

/* The script installing the uploaded .deb files with dpkg. */
static char *
install_deb_script(const struct install_debs *d)
{
	char *s = xstrdup("DEBIAN_FRONTEND=noninteractive; export "
			  "DEBIAN_FRONTEND\nset -x\ndpkg -i "),
	     *q, *next;
	size_t i;

	for (i = 0; i < d->nremote; i++) {
		q = ssh_host_quote(d->remote[i]);
		next = xasprintf("%s%s ", s, q);
		free(s);
		free(q);
		s = next;
	}
	next = xasprintf("%s\n", s);
	free(s);
	return next;
}

/* The host's Debian architecture, or NULL when it has no dpkg. */
static char *
install_deb_arch(struct worker_ctx *ctx)
{
	char *cause = NULL, *out;

	out = setup_output(ctx, "dpkg --print-architecture", "dpkg", &cause);
	free(cause);
	if (out != NULL)
		out[strcspn(out, "\n")] = '\0';
	if (out != NULL && *out == '\0') {
		free(out);
		out = NULL;
	}
	return out;
}

/* The script installing pkg with apt-get on the host. */
static char *
install_deb_apt_script(const char *pkg)
{
	return xasprintf("command -v apt-get >/dev/null || { echo "
			 "'no .deb of \"%s\" in the mirror and no apt-get'; "
			 "exit 127; }\nset -x\nDEBIAN_FRONTEND=noninteractive "
			 "apt-get install -y --no-install-recommends %s\n",
	    pkg, pkg);
}

/*
 * Installs a Debian package: its .deb and missing dependencies from the
 * mirror with dpkg -i, or else apt-get on the host.
 */
int
install_deb_package(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, char **cause)
{
	const char	   *pkg = b->install.package;
	struct install_debs d = { 0 };
	char		   *arch = install_deb_arch(ctx), *script, *what;
	int		    rc = -1;

	if (arch != NULL && ctx->w->machine->mirror != NULL &&
	    install_debs_add(ctx, &d, pkg, arch, cause) == -1)
		goto out;
	if (d.nremote > 0) {
		script = install_deb_script(&d);
		what = xasprintf("dpkg install of \"%s\" from the mirror", pkg);
	} else {
		script = install_deb_apt_script(pkg);
		what = xasprintf("apt-get install of \"%s\"", pkg);
	}
	setup_event(ctx, r, DB_INFO, "benchmark \"%s\": %s", b->name, what);
	rc = install_script_run(ctx, r, b, what, script, cause);
	free(script);
	free(what);
out:
	install_debs_clear(&d);
	free(arch);
	return rc;
}
