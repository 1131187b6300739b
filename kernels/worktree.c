/* The git worktree a series is built in: add, lock, checkout, git am. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "kernels/cache.h"
#include "kernels/series.h"
#include "kernels/worktree.h"

/* Commits made by git am are the same whoever and whenever builds. */
static char worktree_committer_name[] = "GIT_COMMITTER_NAME=hilab";
static char worktree_committer_email[] = "GIT_COMMITTER_EMAIL=hilab@localhost";

/* Runs git -C dir with the arguments in ap; returns its exit status. */
static int
worktree_vgit(const char *dir, spawn_line_cb cb, void *arg, char **output,
    char **cause, va_list ap)
{
	char *env[] = { worktree_committer_name, worktree_committer_email,
		NULL };
	struct spawn s = { .argv = NULL,
		.env = env,
		.cb = cb,
		.arg = arg,
		.log_fd = -1,
		.output = output };
	const char  *a;
	char	   **argv;
	size_t	     n = 3;
	int	     rc;

	argv = xcalloc(64, sizeof *argv);
	argv[0] = (char *)"git";
	argv[1] = (char *)"-C";
	argv[2] = (char *)dir;
	while ((a = va_arg(ap, const char *)) != NULL && n < 62)
		argv[n++] = (char *)a;
	s.argv = argv;
	rc = spawn_run(&s, cause);
	free(argv);
	return rc;
}

/* Runs git in the worktree; see worktree.h. */
int
worktree_git(struct worktree *wt, char **output, char **cause, ...)
{
	va_list ap;
	int	rc;

	va_start(ap, cause);
	rc = worktree_vgit(wt->dir, wt->cb, wt->arg, output, cause, ap);
	va_end(ap);
	return rc;
}

/* Runs git in another directory (the repository). */
static int
worktree_git_in(struct worktree *wt, const char *dir, char **cause, ...)
{
	va_list ap;
	int	rc;

	va_start(ap, cause);
	rc = worktree_vgit(dir, wt->cb, wt->arg, NULL, cause, ap);
	va_end(ap);
	return rc;
}

/* Takes the worktree's lock, saying so if another build holds it. */
static int
worktree_lock(struct worktree *wt, char **cause)
{
	char *path = xasprintf("%s.lock", wt->dir);
	int   rc = -1;

	wt->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (wt->lock_fd == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	if (flock(wt->lock_fd, LOCK_EX | LOCK_NB) == -1) {
		if (wt->cb != NULL)
			wt->cb("waiting for another build in the worktree",
			    wt->arg);
		if (flock(wt->lock_fd, LOCK_EX) == -1) {
			*cause = xasprintf("%s: %s", path, strerror(errno));
			goto out;
		}
	}
	rc = 0;
out:
	free(path);
	return rc;
}

/* Adds the worktree, or reuses the one there; leaves it at base. */
static int
worktree_prepare(struct worktree *wt, char **cause)
{
	char	   *ignore = NULL;
	struct stat st;
	int	    rc;

	if (stat(wt->dir, &st) == 0 &&
	    worktree_git(wt, NULL, &ignore, "rev-parse", "--git-dir", NULL) ==
		0) {
		worktree_git(wt, NULL, &ignore, "am", "--abort", NULL);
		free(ignore);
		ignore = NULL;
		rc = worktree_git(wt, NULL, cause, "checkout", "-q", "-f",
		    "--detach", wt->base, NULL);
		goto out;
	}
	free(ignore);
	ignore = NULL;
	if (stat(wt->dir, &st) == 0) {
		*cause =
		    xasprintf("%s: exists and is no git worktree", wt->dir);
		return -1;
	}
	worktree_git_in(wt, wt->repo, &ignore, "worktree", "prune", NULL);
	free(ignore);
	rc = worktree_git_in(wt, wt->repo, cause, "worktree", "add", "-f",
	    "--detach", wt->dir, wt->base, NULL);
out:
	if (rc > 0 && *cause == NULL)
		*cause = xasprintf("%s: cannot check out %s (git exited with "
				   "%d)",
		    wt->dir, wt->base, rc);
	return rc == 0 ? 0 : -1;
}

/* Opens the worktree of repo at base; see worktree.h. */
struct worktree *
worktree_open(const char *repo, const char *dir, const char *base,
    spawn_line_cb cb, void *arg, char **cause)
{
	struct worktree *wt = xcalloc(1, sizeof *wt);
	char		*parent = xstrdup(dir);

	wt->repo = xstrdup(repo);
	wt->dir = xstrdup(dir);
	wt->base = xstrdup(base);
	wt->lock_fd = -1;
	wt->cb = cb;
	wt->arg = arg;
	if (cache_mkdirs(dirname(parent), cause) == -1 ||
	    worktree_lock(wt, cause) == -1 ||
	    worktree_prepare(wt, cause) == -1) {
		worktree_close(wt);
		wt = NULL;
	}
	free(parent);
	return wt;
}

/* Drops the applied patches after the first keep. */
static void
worktree_truncate(struct worktree *wt, size_t keep)
{
	while (wt->napplied > keep)
		free(wt->commits[--wt->napplied]);
}

/* Releases the lock and frees; see worktree.h. */
void
worktree_close(struct worktree *wt)
{
	if (wt == NULL)
		return;
	worktree_truncate(wt, 0);
	if (wt->lock_fd != -1)
		close(wt->lock_fd);
	free(wt->applied);
	free(wt->commits);
	free(wt->repo);
	free(wt->dir);
	free(wt->base);
	free(wt);
}

/* Returns where git am says a patch failed: "file:line", or its error. */
static char *
worktree_am_failure(const char *output)
{
	const char *p, *nl, *first = NULL;
	size_t	    n;

	for (p = output; p != NULL && *p != '\0'; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		n = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (n > 21 && strncmp(p, "error: patch failed: ", 21) == 0)
			return xstrndup(p + 21, n - 21);
		if (first == NULL && strncmp(p, "error: ", 7) == 0)
			first = p;
	}
	if (first == NULL)
		return xstrdup("git am failed");
	return xstrndup(first + 7, strcspn(first + 7, "\n"));
}

/* Writes text to path; -1 with *cause. */
static int
worktree_write(const char *path, const char *text, size_t len, char **cause)
{
	size_t written;
	FILE  *f;

	if ((f = fopen(path, "w")) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	written = fwrite(text, 1, len, f);
	if (fclose(f) != 0 || written != len) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Sets *cause for a patch git am could not apply, then aborts the am. */
static void
worktree_am_abort(struct worktree *wt, const struct series *s,
    const struct series_patch *sp, const char *output, char **cause)
{
	char *where = worktree_am_failure(output), *ignore = NULL;

	*cause = xasprintf("%s: patch %d/%zu \"%s\" does not apply: %s "
			   "(git am aborted)",
	    sp->file, sp->number, s->n, sp->subject, where);
	worktree_git(wt, NULL, &ignore, "am", "--abort", NULL);
	free(ignore);
	free(where);
}

/* Applies one patch of the series with git am and records its commit. */
static int
worktree_apply(struct worktree *wt, const struct series *s, int number,
    char **cause)
{
	const struct series_patch *sp = &s->patches[number - 1];
	char *rev_parse[] = { (char *)"git", (char *)"rev-parse",
		(char *)"HEAD", NULL };
	char *path = xasprintf("%s.am", wt->dir), *out = NULL, *head;
	int   rc = -1;

	if (worktree_write(path, sp->text, sp->len, cause) == -1)
		goto out;
	rc = worktree_git(wt, &out, cause, "am", "-q",
	    "--committer-date-is-author-date", path, NULL);
	if (rc != 0) {
		if (rc > 0)
			worktree_am_abort(wt, s, sp, out, cause);
		rc = -1;
		goto out;
	}
	if ((head = spawn_line(wt->dir, rev_parse, cause)) == NULL) {
		rc = -1;
		goto out;
	}
	wt->applied =
	    xreallocarray(wt->applied, wt->napplied + 1, sizeof *wt->applied);
	wt->commits =
	    xreallocarray(wt->commits, wt->napplied + 1, sizeof *wt->commits);
	wt->applied[wt->napplied] = number;
	wt->commits[wt->napplied++] = head;
out:
	unlink(path);
	free(path);
	free(out);
	return rc;
}

/* Makes the tree base plus the given patches; see worktree.h. */
int
worktree_checkout(struct worktree *wt, const struct series *s,
    const int *patches, size_t n, char **cause)
{
	const char *commit;
	size_t	    keep = 0, i;

	while (keep < n && keep < wt->napplied &&
	    wt->applied[keep] == patches[keep])
		keep++;
	if (keep < wt->napplied) {
		commit = keep > 0 ? wt->commits[keep - 1] : wt->base;
		if (worktree_git(wt, NULL, cause, "checkout", "-q", "-f",
			"--detach", commit, NULL) != 0) {
			if (*cause == NULL)
				*cause = xasprintf("%s: cannot check out %s",
				    wt->dir, commit);
			return -1;
		}
		worktree_truncate(wt, keep);
	}
	for (i = keep; i < n; i++) {
		if (s == NULL || patches[i] < 1 || (size_t)patches[i] > s->n) {
			*cause = xasprintf("patch %d: not in the series",
			    patches[i]);
			return -1;
		}
		if (worktree_apply(wt, s, patches[i], cause) == -1)
			return -1;
	}
	return 0;
}
