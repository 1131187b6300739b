/*
 * Built kernels: a git tree, a base commit, a patch series and a config
 * turned into kernel images, one per variant of the series (base, patch 1,
 * patch 1+2, ...), kept in a cache keyed by a content hash.
 *
 * The variants of a series are built in order in one git worktree, so every
 * build after the first is incremental.  A variant already in the cache is
 * not built again.  Each build's KBUILD_BUILD_VERSION is its build id, so
 * "uname -v" on the booted kernel reads "#<build id> SMP ...".
 */
#ifndef HILAB_KERNELS_H
#define HILAB_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

/* The kernel cache; built kernels go into its "builds" directory. */
#define KERNELS_CACHE_ROOT   "/var/cache/hilab/kernels"
#define KERNELS_BUILD_ID_LEN 16 /* hex digits */

/* Called with each line of build progress (git, make output), no newline. */
typedef void (*kbuild_progress_cb)(const char *line, void *arg);

/* A variant given explicitly: a subset of the series' patches. */
struct kbuild_variant {
	const int *patches; /* patch numbers, ascending */
	size_t	   n;	    /* 0: the base alone */
};

struct kbuild_spec {
	const char	  *git;	   /* repository directory */
	const char	  *base;   /* commit-ish */
	const char	  *series; /* mbox or *.patch directory; or NULL */
	const char	  *config; /* a .config file, or NULL */
	const char	  *config_target; /* without config: NULL = defconfig */
	const char *const *fragments;	  /* merged in order, later wins */
	size_t		   nfragments;
	const char	  *arch; /* NULL: the host's; "x86_64", "arm64" */
	const char	  *cross_compile; /* NULL: the default for arch */
	const char	  *cache_dir; /* builds; NULL: kernels_cache_dir() */
	/* worktrees; NULL: HILAB_KERNEL_WORK, else cache_dir/.work */
	const char *work_dir;
	int	    jobs; /* make -jN; 0: online CPUs */
	/* Each line git and make print (also in build.log), or NULL. */
	kbuild_progress_cb tool_output;
	/* NULL: cumulative variants base, patch 1, ..., patch 1-N */
	const struct kbuild_variant *variants;
	size_t			     nvariants;
};

/* One built (or cached) variant. */
struct kbuild_result {
	char  *name;	/* "base", "patch 1", "patch 1+2", "patch 1-3" */
	int   *patches; /* its patch numbers */
	size_t npatches;
	char  *build_id; /* also the cache entry's directory name */
	char  *dir;	 /* the cache entry */
	char  *image;	 /* the kernel image in dir */
	char  *release;	 /* what "uname -r" will say */
	bool   cached;	 /* found in the cache, nothing built */
	double seconds;	 /* make time in this call; 0 when cached */
};

/*
 * Builds the variants of a series, or finds them in the cache.  Returns 0
 * with *variants (caller frees with kernels_results_free) and *n set, or -1
 * with *cause: a patch that does not apply names its number, subject, the
 * series file and the source file; a failed build names the variant and
 * carries the compiler's error lines.
 */
int  kernels_build_series(const struct kbuild_spec *, kbuild_progress_cb,
     void *arg, struct kbuild_result **variants, size_t *n, char **cause);
void kernels_results_free(struct kbuild_result *, size_t);
/* Returns a variant's name as tables show it (caller frees). */
char *kernels_variant_name(const int *patches, size_t n);
/*
 * Returns the directory of built kernels (caller frees): "builds" in
 * HILAB_KERNEL_CACHE, or in KERNELS_CACHE_ROOT.
 */
char *kernels_cache_dir(void);

/*
 * Returns the meta.json objects of every cache entry, oldest first (caller
 * decrefs), or NULL with *cause.
 */
json_t *kernels_cache_list(const char *cache_dir, char **cause);
/*
 * Returns the meta.json of the entry whose build id is id or starts with it
 * (caller decrefs), or NULL with *cause (unknown, ambiguous).
 */
json_t *kernels_cache_find(const char *cache_dir, const char *id, char **cause);

#endif
