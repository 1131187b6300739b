/* Internal to kernels/: the state of one kernels_build_series call. */
#ifndef HILAB_KERNELS_BUILD_H
#define HILAB_KERNELS_BUILD_H

#include <stddef.h>

#include "kernels/kernels.h"

struct kconfig;
struct series;
struct worktree;

/* One variant to produce. */
struct build_variant {
	int		     *patches;
	size_t		      n;
	char		     *name;
	char		     *input_key;
	struct kbuild_result *res;
};

struct build {
	const struct kbuild_spec *spec;
	kbuild_progress_cb	  cb;
	void			 *arg;
	struct series		 *series;
	char			 *repo;	 /* absolute */
	char			 *base;	 /* commit id */
	char			 *arch;	 /* ARCH= */
	char			 *cross; /* CROSS_COMPILE=, "" native */
	char			 *compiler;
	char			 *cache_dir;
	char			 *work_dir;
	const char		 *target;      /* bzImage, Image */
	const char		 *image;       /* arch/x86/boot/bzImage */
	char			 *config_text; /* spec->config's text */
	char			**configs;     /* input key parts */
	size_t			  nconfigs;
	struct kconfig		 *wanted; /* the fragments merged */
	int			  jobs;
	struct worktree		 *wt;
	struct build_variant	 *v;
	size_t			  nv;
};

/* Reports a progress line through the caller's callback. */
void build_progress(struct build *, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * Configures and builds one variant in the worktree (already at its source)
 * and stores its artifacts; fills v->res.  -1 with *cause.
 */
int build_variant_make(struct build *, struct build_variant *, char **cause);
/* Returns a variant's build id for its final .config (caller frees). */
char *build_id(struct build *, struct build_variant *, const char *config);
/* Fills a result from a cache entry's meta.json. */
void build_result_from_meta(struct kbuild_result *, const char *cache_dir,
    json_t *meta);
/* Runs "rm -rf path". */
void build_remove(const char *path);

#endif
