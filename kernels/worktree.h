/*
 * The git worktree a series is built in: added once (git worktree add
 * --detach), locked while in use, moved between variants with git checkout
 * and git am so that only the files a patch touches change.
 */
#ifndef HILAB_KERNELS_WORKTREE_H
#define HILAB_KERNELS_WORKTREE_H

#include <stddef.h>

#include "common/spawn.h"

struct series;

struct worktree {
	char	     *repo;
	char	     *dir;
	char	     *base; /* base commit id */
	int	      lock_fd;
	int	     *applied; /* patch numbers on top of base */
	char	    **commits; /* the commit after each */
	size_t	      napplied;
	spawn_line_cb cb;
	void	     *arg;
};

/*
 * Opens (adding it if needed) the worktree dir of repo, waits for its lock
 * and checks out base (a commit id).  Returns NULL with *cause on failure.
 */
struct worktree *worktree_open(const char *repo, const char *dir,
    const char *base, spawn_line_cb, void *, char **cause);
/*
 * Makes the tree base plus the given patches of the series, in order,
 * reusing the patches already applied.  A patch that does not apply is
 * aborted (git am --abort) and named in *cause with the file it failed on.
 */
int worktree_checkout(struct worktree *, const struct series *,
    const int *patches, size_t n, char **cause);
/* Releases the lock and frees; the worktree stays for the next build. */
void worktree_close(struct worktree *);
/* Runs git with argv (after "git -C dir") and returns its exit status. */
int worktree_git(struct worktree *, char **output, char **cause, ...)
    __attribute__((sentinel));

#endif
