/*
 * The kernel artifact cache.  Layout under the cache directory:
 *   <build id>/            one entry per built variant
 *     bzImage | Image      the kernel image
 *     System.map  config  build.log  meta.json
 *     modules.tar.gz       when CONFIG_MODULES=y
 *   .inputs/<input key>    the build id the inputs led to (a text file)
 *   .work/                 git worktrees (unless work_dir is given)
 * The build id is the first KERNELS_BUILD_ID_LEN hex digits of the sha256
 * of the base commit, the patches, the final .config, ARCH, CROSS_COMPILE
 * and the compiler version.  The input key is the same over the config as
 * given (file text or make target, fragments), so a lookup needs no tree.
 */
#ifndef HILAB_KERNELS_CACHE_H
#define HILAB_KERNELS_CACHE_H

#include <stddef.h>

#include <jansson.h>

/* What a cache key is computed from. */
struct cache_key {
	const char  *base;    /* commit id */
	const char **patches; /* content hashes, in order */
	size_t	     npatches;
	const char **configs; /* config texts (or target names) */
	size_t	     nconfigs;
	const char  *arch;
	const char  *cross_compile; /* "" when native */
	const char  *compiler;	    /* "gcc --version" first line */
};

/* Returns the sha256 hex of the key's canonical text (caller frees). */
char *cache_key_hash(const struct cache_key *);
/* Returns the build id the input key led to, or NULL. */
char *cache_input_get(const char *cache_dir, const char *input_key);
/* Records that the input key led to the build id; -1 with *cause. */
int cache_input_put(const char *cache_dir, const char *input_key,
    const char *build_id, char **cause);
/* Returns the entry's meta.json, or NULL if it is not (fully) there. */
json_t *cache_meta_load(const char *cache_dir, const char *build_id);
/* Creates dir and its parents; -1 with *cause. */
int cache_mkdirs(const char *dir, char **cause);

#endif
