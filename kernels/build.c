/* Building the variants of a series: setup, variants, cache, worktree. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/spawn.h"
#include "common/xmalloc.h"
#include "kernels/build.h"
#include "kernels/cache.h"
#include "kernels/kconfig.h"
#include "kernels/series.h"
#include "kernels/worktree.h"

/* Reports a progress line through the caller's callback. */
void
build_progress(struct build *b, const char *fmt, ...)
{
	va_list ap;
	char   *line;

	if (b->cb == NULL)
		return;
	va_start(ap, fmt);
	line = xvasprintf(fmt, ap);
	va_end(ap);
	b->cb(line, b->arg);
	free(line);
}

/* Runs "rm -rf path". */
void
build_remove(const char *path)
{
	char *argv[] = { (char *)"rm", (char *)"-rf", (char *)path, NULL };
	struct spawn s = { .argv = argv, .log_fd = -1 };
	char	    *cause = NULL;

	spawn_run(&s, &cause);
	free(cause);
}

/* Appends a range of patch numbers to a name being built. */
static void
build_name_range(FILE *m, int first, int last, int *parts)
{
	if ((*parts)++ > 0)
		fputc('+', m);
	if (last - first >= 2)
		fprintf(m, "%d-%d", first, last);
	else if (last > first)
		fprintf(m, "%d+%d", first, last);
	else
		fprintf(m, "%d", first);
}

/* Returns a variant's name as tables show it; see kernels.h. */
char *
kernels_variant_name(const int *patches, size_t n)
{
	char  *text = NULL;
	size_t size = 0, i, start;
	int    parts = 0;
	FILE  *m;

	if (n == 0)
		return xstrdup("base");
	if ((m = open_memstream(&text, &size)) == NULL)
		abort();
	fputs("patch ", m);
	for (start = 0, i = 1; i <= n; i++) {
		if (i < n && patches[i] == patches[i - 1] + 1)
			continue;
		build_name_range(m, patches[start], patches[i - 1], &parts);
		start = i;
	}
	fclose(m);
	return text;
}

/* Frees results; accepts NULL. */
void
kernels_results_free(struct kbuild_result *r, size_t n)
{
	size_t i;

	for (i = 0; r != NULL && i < n; i++) {
		free(r[i].name);
		free(r[i].patches);
		free(r[i].build_id);
		free(r[i].dir);
		free(r[i].image);
		free(r[i].release);
	}
	free(r);
}

/* Picks ARCH, the image target and CROSS_COMPILE for the spec. */
static int
build_arch(struct build *b, char **cause)
{
	const char    *arch = b->spec->arch, *triple, *host = "";
	struct utsname u;
	int	       x86;

	if (uname(&u) == 0)
		host = strcmp(u.machine, "aarch64") == 0 ? "arm64" : u.machine;
	if (arch == NULL)
		arch = host;
	x86 = strcmp(arch, "x86_64") == 0 || strcmp(arch, "x86") == 0 ||
	    strcmp(arch, "i386") == 0;
	if (x86) {
		b->target = "bzImage";
		b->image = "arch/x86/boot/bzImage";
		triple = "x86_64-linux-gnu-";
	} else if (strcmp(arch, "arm64") == 0) {
		b->target = "Image";
		b->image = "arch/arm64/boot/Image";
		triple = "aarch64-linux-gnu-";
	} else {
		*cause = xasprintf("arch \"%s\": not supported (x86_64, arm64)",
		    arch);
		return -1;
	}
	b->arch = xstrdup(arch);
	if (b->spec->cross_compile != NULL)
		b->cross = xstrdup(b->spec->cross_compile);
	else if (x86 ==
	    (strcmp(host, "x86_64") == 0 || strcmp(host, "i686") == 0))
		b->cross = xstrdup("");
	else
		b->cross = xstrdup(triple);
	return 0;
}

/* Reads the compiler's version line and the base commit id. */
static int
build_versions(struct build *b, char **cause)
{
	char *gcc = xasprintf("%sgcc", b->cross);
	char *cc_argv[] = { gcc, (char *)"--version", NULL };
	char *rev = xasprintf("%s^{commit}", b->spec->base);
	char *git_argv[] = { (char *)"git", (char *)"-C", b->repo,
		(char *)"rev-parse", (char *)"--verify", (char *)"--quiet", rev,
		NULL };
	char *why = NULL;
	int   rc = -1;

	if ((b->compiler = spawn_line(NULL, cc_argv, &why)) == NULL) {
		*cause = xasprintf("compiler \"%s\": %s", gcc, why);
		goto out;
	}
	if ((b->base = spawn_line(NULL, git_argv, &why)) == NULL) {
		*cause = xasprintf("repository \"%s\": unknown commit \"%s\"",
		    b->spec->git, b->spec->base);
		goto out;
	}
	rc = 0;
out:
	free(why);
	free(gcc);
	free(rev);
	return rc;
}

/* Reads a whole text file; NULL with *cause. */
static char *
build_read(const char *path, char **cause)
{
	char  *text = NULL;
	size_t size = 0;
	FILE  *f, *m;
	int    ch;

	if ((f = fopen(path, "r")) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	if ((m = open_memstream(&text, &size)) == NULL)
		abort();
	while ((ch = getc(f)) != EOF)
		putc(ch, m);
	fclose(m);
	if (ferror(f)) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* Adds a part to the config inputs of the input key. */
static void
build_config_part(struct build *b, char *part)
{
	b->configs =
	    xreallocarray(b->configs, b->nconfigs + 1, sizeof *b->configs);
	b->configs[b->nconfigs++] = part;
}

/* Reads the given .config and the fragments (merged into b->wanted). */
static int
build_configs(struct build *b, char **cause)
{
	const struct kbuild_spec *sp = b->spec;
	struct kconfig		 *frag;
	char			 *text;
	size_t			  i;

	if (sp->config != NULL) {
		if ((b->config_text = build_read(sp->config, cause)) == NULL)
			return -1;
		build_config_part(b, xasprintf("file\n%s", b->config_text));
	} else
		build_config_part(b,
		    xasprintf("target %s",
			sp->config_target != NULL ? sp->config_target
						  : "defconfig"));
	b->wanted = xcalloc(1, sizeof *b->wanted);
	for (i = 0; i < sp->nfragments; i++) {
		if ((text = build_read(sp->fragments[i], cause)) == NULL)
			return -1;
		frag = kconfig_parse(sp->fragments[i], text, cause);
		build_config_part(b, xasprintf("fragment\n%s", text));
		free(text);
		if (frag == NULL)
			return -1;
		kconfig_merge(b->wanted, frag);
		kconfig_free(frag);
	}
	return 0;
}

/* Resolves everything the variants share: paths, tools, base, series. */
static int
build_setup(struct build *b, char **cause)
{
	const struct kbuild_spec *sp = b->spec;
	const char		 *env;
	char			  path[PATH_MAX];
	long			  cpus;

	if (sp->git == NULL || sp->base == NULL) {
		*cause = xstrdup("kernel build: needs a repository and a base");
		return -1;
	}
	if (realpath(sp->git, path) == NULL) {
		*cause = xasprintf("repository \"%s\": %s", sp->git,
		    strerror(errno));
		return -1;
	}
	b->repo = xstrdup(path);
	b->cache_dir = sp->cache_dir != NULL ? xstrdup(sp->cache_dir)
					     : kernels_cache_dir();
	if (sp->work_dir != NULL)
		b->work_dir = xstrdup(sp->work_dir);
	else if ((env = getenv("HILAB_KERNEL_WORK")) != NULL && *env != '\0')
		b->work_dir = xstrdup(env);
	else
		b->work_dir = xasprintf("%s/.work", b->cache_dir);
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	b->jobs = sp->jobs > 0 ? sp->jobs : cpus > 0 ? (int)cpus : 1;
	if (build_arch(b, cause) == -1 || build_versions(b, cause) == -1)
		return -1;
	if (sp->series != NULL &&
	    (b->series = series_load(sp->series, cause)) == NULL)
		return -1;
	return build_configs(b, cause);
}

/* Adds a variant with the given patches (copied). */
static void
build_add_variant(struct build *b, const int *patches, size_t n)
{
	struct build_variant *v;

	b->v = xreallocarray(b->v, b->nv + 1, sizeof *b->v);
	v = &b->v[b->nv++];
	memset(v, 0, sizeof *v);
	v->patches = xcalloc(n + 1, sizeof *v->patches);
	if (n > 0)
		memcpy(v->patches, patches, n * sizeof *patches);
	v->n = n;
	v->name = kernels_variant_name(patches, n);
}

/* Checks an explicit variant's patch numbers against the series. */
static int
build_check_variant(struct build *b, const struct kbuild_variant *kv,
    char **cause)
{
	size_t i, total = b->series != NULL ? b->series->n : 0;

	for (i = 0; i < kv->n; i++) {
		if (kv->patches[i] < 1 || (size_t)kv->patches[i] > total) {
			*cause = xasprintf("variant %zu: patch %d: the series "
					   "%s has %zu patches",
			    b->nv + 1, kv->patches[i],
			    b->spec->series != NULL ? b->spec->series
						    : "(none)",
			    total);
			return -1;
		}
		if (i > 0 && kv->patches[i] <= kv->patches[i - 1]) {
			*cause = xasprintf("variant %zu: patch numbers must "
					   "ascend",
			    b->nv + 1);
			return -1;
		}
	}
	return 0;
}

/* Expands the spec's variants, or the cumulative ones of the series. */
static int
build_expand(struct build *b, char **cause)
{
	const struct kbuild_spec *sp = b->spec;
	size_t i, total = b->series != NULL ? b->series->n : 0;
	int   *all = xcalloc(total + 1, sizeof *all);

	for (i = 0; i < total; i++)
		all[i] = (int)i + 1;
	for (i = 0; sp->variants == NULL && i <= total; i++)
		build_add_variant(b, all, i);
	free(all);
	for (i = 0; sp->variants != NULL && i < sp->nvariants; i++) {
		if (build_check_variant(b, &sp->variants[i], cause) == -1)
			return -1;
		build_add_variant(b, sp->variants[i].patches,
		    sp->variants[i].n);
	}
	if (b->nv == 0) {
		*cause = xstrdup("kernel build: no variants");
		return -1;
	}
	return 0;
}

/* Fills a cache key for a variant; configs are the input or final ones. */
static void
build_key(struct build *b, struct build_variant *v, struct cache_key *k,
    const char **configs, size_t nconfigs)
{
	size_t i;

	memset(k, 0, sizeof *k);
	k->base = b->base;
	k->patches = xcalloc(v->n + 1, sizeof *k->patches);
	for (i = 0; i < v->n; i++)
		k->patches[i] = b->series->patches[v->patches[i] - 1].hash;
	k->npatches = v->n;
	k->configs = configs;
	k->nconfigs = nconfigs;
	k->arch = b->arch;
	k->cross_compile = b->cross;
	k->compiler = b->compiler;
}

/* Returns a variant's build id for its final .config; see build.h. */
char *
build_id(struct build *b, struct build_variant *v, const char *config)
{
	struct cache_key k;
	char		*hash;

	build_key(b, v, &k, &config, 1);
	hash = cache_key_hash(&k);
	hash[KERNELS_BUILD_ID_LEN] = '\0';
	free(k.patches);
	return hash;
}

/* Computes the variant's input key and looks it up in the cache. */
static int
build_lookup(struct build *b, struct build_variant *v)
{
	struct cache_key k;
	json_t		*meta = NULL;
	char		*id;

	build_key(b, v, &k, (const char **)b->configs, b->nconfigs);
	v->input_key = cache_key_hash(&k);
	free(k.patches);
	if ((id = cache_input_get(b->cache_dir, v->input_key)) != NULL)
		meta = cache_meta_load(b->cache_dir, id);
	free(id);
	if (meta == NULL)
		return 0;
	build_result_from_meta(v->res, b->cache_dir, meta);
	free(v->res->name);
	v->res->name = xstrdup(v->name);
	json_decref(meta);
	build_progress(b, "%s: cached as %s", v->name, v->res->build_id);
	return 1;
}

/* Returns the worktree's path for this repository and target. */
static char *
build_worktree_path(struct build *b)
{
	char  hash[SERIES_HASH_LEN + 1];
	char *key = xasprintf("%s\n%s\n%s", b->repo, b->arch, b->cross);

	series_hash(key, strlen(key), hash);
	free(key);
	hash[KERNELS_BUILD_ID_LEN] = '\0';
	return xasprintf("%s/%s", b->work_dir, hash);
}

/* Opens the worktree and checks that every missing variant applies. */
static int
build_open_tree(struct build *b, const int *missing, char **cause)
{
	char		     *dir = build_worktree_path(b);
	struct build_variant *v;
	size_t		      i;
	int		      rc = -1;

	build_progress(b, "worktree %s at %.12s", dir, b->base);
	b->wt = worktree_open(b->repo, dir, b->base, b->spec->tool_output,
	    b->arg, cause);
	if (b->wt == NULL)
		goto out;
	for (i = 0; i < b->nv; i++) {
		v = &b->v[i];
		if (missing[i] &&
		    worktree_checkout(b->wt, b->series, v->patches, v->n,
			cause) == -1)
			goto out;
	}
	rc = 0;
out:
	free(dir);
	return rc;
}

/* Builds the variants the cache did not have, in order, in one tree. */
static int
build_missing(struct build *b, char **cause)
{
	int *missing = xcalloc(b->nv, sizeof *missing), any = 0, rc = -1;
	struct build_variant *v;
	size_t		      i;

	for (i = 0; i < b->nv; i++)
		any |= missing[i] = !build_lookup(b, &b->v[i]);
	if (!any) {
		rc = 0;
		goto out;
	}
	if (build_open_tree(b, missing, cause) == -1)
		goto out;
	for (i = 0; i < b->nv; i++) {
		v = &b->v[i];
		if (!missing[i])
			continue;
		if (worktree_checkout(b->wt, b->series, v->patches, v->n,
			cause) == -1 ||
		    build_variant_make(b, v, cause) == -1)
			goto out;
	}
	rc = 0;
out:
	free(missing);
	return rc;
}

/* Frees the build state (not the results). */
static void
build_free(struct build *b)
{
	size_t i;

	worktree_close(b->wt);
	series_free(b->series);
	kconfig_free(b->wanted);
	for (i = 0; i < b->nconfigs; i++)
		free(b->configs[i]);
	free(b->configs);
	for (i = 0; i < b->nv; i++) {
		free(b->v[i].patches);
		free(b->v[i].name);
		free(b->v[i].input_key);
	}
	free(b->v);
	free(b->repo);
	free(b->base);
	free(b->arch);
	free(b->cross);
	free(b->compiler);
	free(b->cache_dir);
	free(b->work_dir);
	free(b->config_text);
}

/* Builds the variants of a series; see kernels.h. */
int
kernels_build_series(const struct kbuild_spec *spec, kbuild_progress_cb cb,
    void *arg, struct kbuild_result **variants, size_t *n, char **cause)
{
	struct build	      b = { .spec = spec, .cb = cb, .arg = arg };
	struct kbuild_result *res = NULL;
	size_t		      i;
	int		      rc = -1;

	*variants = NULL;
	*n = 0;
	if (build_setup(&b, cause) == -1 || build_expand(&b, cause) == -1)
		goto out;
	res = xcalloc(b.nv, sizeof *res);
	for (i = 0; i < b.nv; i++)
		b.v[i].res = &res[i];
	if (build_missing(&b, cause) == -1)
		goto out;
	*variants = res;
	*n = b.nv;
	res = NULL;
	rc = 0;
out:
	kernels_results_free(res, b.nv);
	build_free(&b);
	return rc;
}
