/*
 * The kernels of a job file: "running", prebuilt images, and kernels built
 * from a git tree, a base commit and a patch series.  "variants" expands one
 * built entry into several kernels: "cumulative" gives base, patch 1,
 * patch 1+2, ..., or a list of patch lists names the subsets.  Relative
 * paths are taken from the job file's directory and stored absolute, so a
 * queued job means the same files whatever directory hilabd runs in.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_yaml.h"
#include "kernels/kernels.h"
#include "kernels/series.h"

#define JOB_MAX_PATCHES 10000

static const char *job_kernel_keys[] = { "name", "image", "initrd", "cmdline",
	"git", "base", "series", "patches", "variants", "config", "fragments",
	"arch", "cross_compile", NULL };
static const char *job_kernel_arches[] = { "x86_64", "arm64", NULL };

/* Frees the contents of a kernel. */
void
job_kernel_clear(struct job_kernel *k)
{
	size_t i;

	free(k->name);
	free(k->image);
	free(k->initrd);
	free(k->cmdline);
	free(k->git);
	free(k->base);
	free(k->series);
	free(k->patches);
	free(k->config);
	for (i = 0; i < k->nfragments; i++)
		free(k->fragments[i]);
	free(k->fragments);
	free(k->arch);
	free(k->cross_compile);
}

/* Returns a copy of s, or NULL. */
static char *
job_kernel_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* Copies kernel src into dst (deep). */
static void
job_kernel_copy(struct job_kernel *dst, const struct job_kernel *src)
{
	size_t i;

	memset(dst, 0, sizeof *dst);
	dst->name = job_kernel_dup(src->name);
	dst->kind = src->kind;
	dst->image = job_kernel_dup(src->image);
	dst->initrd = job_kernel_dup(src->initrd);
	dst->cmdline = job_kernel_dup(src->cmdline);
	dst->git = job_kernel_dup(src->git);
	dst->base = job_kernel_dup(src->base);
	dst->series = job_kernel_dup(src->series);
	dst->config = job_kernel_dup(src->config);
	dst->arch = job_kernel_dup(src->arch);
	dst->cross_compile = job_kernel_dup(src->cross_compile);
	dst->npatches = src->npatches;
	dst->patches = xcalloc(src->npatches + 1, sizeof *dst->patches);
	if (src->npatches > 0)
		memcpy(dst->patches, src->patches,
		    src->npatches * sizeof *dst->patches);
	dst->nfragments = src->nfragments;
	dst->fragments = xcalloc(src->nfragments + 1, sizeof *dst->fragments);
	for (i = 0; i < src->nfragments; i++)
		dst->fragments[i] = xstrdup(src->fragments[i]);
}

/* Returns the directory relative paths start from (caller frees). */
static char *
job_kernel_dir(const struct job_ctx *ctx)
{
	char *copy, *dir, cwd[PATH_MAX], real[PATH_MAX];

	if (getcwd(cwd, sizeof cwd) == NULL)
		strcpy(cwd, "/");
	if (ctx->file == NULL || strchr(ctx->file, '/') == NULL ||
	    strncmp(ctx->file, "<", 1) == 0)
		return xstrdup(cwd);
	copy = xstrdup(ctx->file);
	if (realpath(copy, real) != NULL) {
		free(copy);
		copy = xstrdup(real);
	}
	dir = *copy == '/' ? xstrdup(dirname(copy))
			   : xasprintf("%s/%s", cwd, dirname(copy));
	free(copy);
	return dir;
}

/* Makes a path of the job file absolute; a URL stays as it is. */
static char *
job_kernel_path(const struct job_ctx *ctx, char *path)
{
	char *dir, *abs;

	if (path == NULL || *path == '/' || strstr(path, "://") != NULL)
		return path;
	dir = job_kernel_dir(ctx);
	abs = xasprintf("%s/%s", dir, path);
	free(dir);
	free(path);
	return abs;
}

/* Returns whether a config names a make target such as "tinyconfig". */
static bool
job_kernel_config_target(const struct job_ctx *ctx, const char *config)
{
	char  *path;
	size_t len = strlen(config);
	bool   target;

	if (strchr(config, '/') != NULL || len <= 6 ||
	    strcmp(config + len - 6, "config") != 0)
		return false;
	path = job_kernel_path(ctx, xstrdup(config));
	target = access(path, F_OK) != 0;
	free(path);
	return target;
}

/* Reads "fragments": a list of config fragment files. */
static void
job_kernel_fragments(struct job_ctx *ctx, yaml_node_t *n, struct job_kernel *k)
{
	yaml_node_t *seq, *key, *item;
	const char  *s;
	size_t	     i;

	if ((seq = job_get_seq(ctx, n, "fragments", false, &key)) == NULL)
		return;
	k->fragments = xcalloc(job_seq_len(seq) + 1, sizeof *k->fragments);
	for (i = 0; i < job_seq_len(seq); i++) {
		item = job_seq_item(ctx, seq, i);
		if ((s = job_text(item)) == NULL || *s == '\0') {
			job_err(ctx, item,
			    "kernel \"%s\": a fragment must be "
			    "a file name",
			    k->name);
			continue;
		}
		k->fragments[k->nfragments++] =
		    job_kernel_path(ctx, xstrdup(s));
	}
}

/* Checks which kind a kernel mapping describes and its key combination. */
static void
job_kernel_kind(struct job_ctx *ctx, yaml_node_t *n, struct job_kernel *k)
{
	if (k->image != NULL && k->git != NULL)
		job_err(ctx, n,
		    "kernel \"%s\": \"image\" and \"git\" are "
		    "exclusive",
		    k->name);
	else if (k->image == NULL && k->git == NULL)
		job_err(ctx, n, "kernel \"%s\": needs \"image\" or \"git\"",
		    k->name);
	k->kind = k->git != NULL ? JOB_KERNEL_BUILD : JOB_KERNEL_IMAGE;
	if (k->initrd != NULL && k->image == NULL)
		job_err(ctx, n, "kernel \"%s\": \"initrd\" needs \"image\"",
		    k->name);
	if (k->git != NULL && k->base == NULL)
		job_err(ctx, n, "kernel \"%s\": \"git\" needs \"base\"",
		    k->name);
	if (k->git == NULL &&
	    (k->base != NULL || k->series != NULL || k->config != NULL ||
		k->nfragments > 0 || k->arch != NULL ||
		k->cross_compile != NULL))
		job_err(ctx, n,
		    "kernel \"%s\": \"base\", \"series\", "
		    "\"config\", \"fragments\", \"arch\" and \"cross_compile\" "
		    "need \"git\"",
		    k->name);
	if (k->arch != NULL && job_lookup(job_kernel_arches, k->arch) == -1)
		job_err(ctx, n,
		    "kernel \"%s\": arch \"%s\" is not supported "
		    "(x86_64, arm64)",
		    k->name, k->arch);
}

/* Returns how many patches the series has; -1 after an error. */
static long
job_kernel_series_len(struct job_ctx *ctx, yaml_node_t *n,
    const struct job_kernel *k)
{
	struct series *s;
	char	      *cause = NULL;
	long	       len;

	if (k->series == NULL)
		return 0;
	if ((s = series_load(k->series, &cause)) == NULL) {
		job_err(ctx, job_map_get(ctx, n, "series", NULL),
		    "kernel "
		    "\"%s\": %s",
		    k->name, cause);
		free(cause);
		return -1;
	}
	len = (long)s->n;
	series_free(s);
	return len;
}

/* Reads one patch number of a list into *out; -1 after an error. */
static int
job_kernel_patch_number(struct job_ctx *ctx, yaml_node_t *item,
    const struct job_kernel *k, long total, long prev, long *out)
{
	if (job_read_int(job_text(item), 1, JOB_MAX_PATCHES, out) == -1) {
		job_err(ctx, item,
		    "kernel \"%s\": a patch number must be an "
		    "integer from 1",
		    k->name);
		return -1;
	}
	if (*out > total) {
		job_err(ctx, item,
		    "kernel \"%s\": patch %ld, but the series "
		    "has %ld",
		    k->name, *out, total);
		return -1;
	}
	if (*out <= prev) {
		job_err(ctx, item,
		    "kernel \"%s\": patch numbers must be "
		    "ascending and unique",
		    k->name);
		return -1;
	}
	return 0;
}

/*
 * Reads a patch list: N (the first N patches) or a list of patch numbers.
 * Returns 0 with *patches (caller frees) and *n, or -1 after an error.
 */
static int
job_kernel_patch_list(struct job_ctx *ctx, yaml_node_t *v,
    const struct job_kernel *k, long total, int **patches, size_t *n)
{
	long num, prev = 0, i, count;

	*n = 0;
	*patches = NULL;
	if (v->type == YAML_SCALAR_NODE) {
		if (job_read_int(job_text(v), 0, JOB_MAX_PATCHES, &count) ==
			-1 ||
		    count > total) {
			job_err(ctx, v,
			    "kernel \"%s\": patches must be a "
			    "count (at most the series' length) or a list of "
			    "patch numbers",
			    k->name);
			return -1;
		}
		*patches = xcalloc((size_t)count + 1, sizeof **patches);
		for (i = 0; i < count; i++)
			(*patches)[(*n)++] = (int)i + 1;
		return 0;
	}
	if (v->type != YAML_SEQUENCE_NODE) {
		job_err(ctx, v,
		    "kernel \"%s\": a patch list must be a count "
		    "or a list of patch numbers",
		    k->name);
		return -1;
	}
	*patches = xcalloc(job_seq_len(v) + 1, sizeof **patches);
	for (i = 0; i < (long)job_seq_len(v); i++) {
		if (job_kernel_patch_number(ctx,
			job_seq_item(ctx, v, (size_t)i), k, total, prev,
			&num) == -1)
			return -1;
		(*patches)[(*n)++] = (int)(prev = num);
	}
	return 0;
}

/* Reads "patches"; without it a series is applied whole. */
static void
job_kernel_patches(struct job_ctx *ctx, yaml_node_t *n, struct job_kernel *k,
    long total)
{
	yaml_node_t *v, *key;
	long	     i;

	if ((v = job_map_get(ctx, n, "patches", &key)) != NULL) {
		if (k->series == NULL)
			job_err(ctx, key,
			    "kernel \"%s\": \"patches\" needs "
			    "\"series\"",
			    k->name);
		else if (job_kernel_patch_list(ctx, v, k, total, &k->patches,
			     &k->npatches) == -1) {
			free(k->patches);
			k->patches = NULL;
			k->npatches = 0;
		}
		return;
	}
	k->patches = xcalloc((size_t)total + 1, sizeof *k->patches);
	for (i = 0; i < total; i++)
		k->patches[k->npatches++] = (int)i + 1;
}

/* Reads the string keys of a kernel mapping. */
static void
job_kernel_strings(struct job_ctx *ctx, yaml_node_t *n, struct job_kernel *k)
{
	k->image = job_kernel_path(ctx,
	    job_get_string(ctx, n, "image", false, "kernel"));
	k->initrd = job_kernel_path(ctx,
	    job_get_string(ctx, n, "initrd", false, "kernel"));
	k->cmdline = job_get_string(ctx, n, "cmdline", false, "kernel");
	k->git = job_kernel_path(ctx,
	    job_get_string(ctx, n, "git", false, "kernel"));
	k->base = job_get_string(ctx, n, "base", false, "kernel");
	k->series = job_kernel_path(ctx,
	    job_get_string(ctx, n, "series", false, "kernel"));
	k->config = job_get_string(ctx, n, "config", false, "kernel");
	if (k->config != NULL && !job_kernel_config_target(ctx, k->config))
		k->config = job_kernel_path(ctx, k->config);
	k->arch = job_get_string(ctx, n, "arch", false, "kernel");
	k->cross_compile =
	    job_get_string(ctx, n, "cross_compile", false, "kernel");
}

/* Adds a parsed kernel to the job unless its name is taken. */
static void
job_kernel_add(struct job_ctx *ctx, yaml_node_t *n, struct job *job,
    struct job_kernel *k)
{
	if (*k->name != '\0' && job_find_kernel(job, k->name) != NULL) {
		job_err(ctx, n, "duplicate kernel \"%s\"", k->name);
		job_kernel_clear(k);
		return;
	}
	job->kernels = xreallocarray(job->kernels, job->nkernels + 1,
	    sizeof *job->kernels);
	job->kernels[job->nkernels++] = *k;
}

/* Adds one variant of a template kernel: its patches, its name. */
static void
job_kernel_variant(struct job_ctx *ctx, yaml_node_t *n, struct job *job,
    const struct job_kernel *tpl, bool named, int *patches, size_t npatches)
{
	struct job_kernel k;
	char		 *name = kernels_variant_name(patches, npatches);

	job_kernel_copy(&k, tpl);
	free(k.patches);
	k.patches = patches;
	k.npatches = npatches;
	free(k.name);
	k.name = named ? xasprintf("%s %s", tpl->name, name) : xstrdup(name);
	free(name);
	job_kernel_add(ctx, n, job, &k);
}

/* Expands "variants": "cumulative" or a list of patch lists. */
static void
job_kernel_variants(struct job_ctx *ctx, yaml_node_t *n, yaml_node_t *v,
    struct job *job, const struct job_kernel *tpl, long total, bool named)
{
	const char *s = job_text(v);
	int	   *patches;
	size_t	    np, i;
	long	    j;

	if (s != NULL && strcmp(s, "cumulative") == 0) {
		for (j = 0; j <= total; j++) {
			patches = xcalloc((size_t)j + 1, sizeof *patches);
			for (np = 0; np < (size_t)j; np++)
				patches[np] = (int)np + 1;
			job_kernel_variant(ctx, n, job, tpl, named, patches,
			    np);
		}
		return;
	}
	if (v->type != YAML_SEQUENCE_NODE || job_seq_len(v) == 0) {
		job_err(ctx, v,
		    "kernel \"%s\": \"variants\" must be "
		    "\"cumulative\" or a list of patch lists",
		    tpl->name);
		return;
	}
	for (i = 0; i < job_seq_len(v); i++) {
		if (job_kernel_patch_list(ctx, job_seq_item(ctx, v, i), tpl,
			total, &patches, &np) == 0)
			job_kernel_variant(ctx, n, job, tpl, named, patches,
			    np);
		else
			free(patches);
	}
}

/*
 * Names an entry without "name" in messages: the variants of its series
 * ("variants of good.mbox"); an entry that needs a name gets "".
 */
static char *
job_kernel_unnamed(struct job_ctx *ctx, yaml_node_t *n, bool variants)
{
	const char *series;

	if (!variants)
		return xstrdup("");
	series = job_text(job_map_get(ctx, n, "series", NULL));
	if (series == NULL)
		return xstrdup("variants of the base");
	if (strrchr(series, '/') != NULL)
		series = strrchr(series, '/') + 1;
	return xasprintf("variants of %s", series);
}

/* Parses one kernel mapping and adds it (or its variants) to the job. */
static void
job_kernel_parse_map(struct job_ctx *ctx, yaml_node_t *n, struct job *job)
{
	struct job_kernel k = { 0 };
	yaml_node_t	 *variants, *key;
	long		  total;
	bool		  named;

	if (job_map_check(ctx, n, "kernel", job_kernel_keys) == -1)
		return;
	variants = job_map_get(ctx, n, "variants", &key);
	k.name = job_get_string(ctx, n, "name", variants == NULL, "kernel");
	named = k.name != NULL;
	if (!named)
		k.name = job_kernel_unnamed(ctx, n, variants != NULL);
	else if (strcmp(k.name, JOB_KERNEL_RUNNING_NAME) == 0)
		job_err(ctx, n,
		    "kernel name \"running\" is reserved for the "
		    "running kernel");
	job_kernel_strings(ctx, n, &k);
	job_kernel_fragments(ctx, n, &k);
	job_kernel_kind(ctx, n, &k);
	/*
	 * The series is read to expand it, or to check patch numbers when
	 * it is there: a job may name a series to be fetched later.
	 */
	total = JOB_MAX_PATCHES;
	if (k.kind == JOB_KERNEL_BUILD &&
	    (variants != NULL || job_map_get(ctx, n, "patches", NULL) == NULL ||
		(k.series != NULL && access(k.series, F_OK) == 0)))
		total = job_kernel_series_len(ctx, n, &k);
	if (total != -1 && k.kind == JOB_KERNEL_BUILD)
		job_kernel_patches(ctx, n, &k, total);
	if (variants != NULL && k.kind != JOB_KERNEL_BUILD)
		job_err(ctx, key, "kernel \"%s\": \"variants\" needs \"git\"",
		    k.name);
	else if (variants != NULL && job_map_get(ctx, n, "patches", NULL))
		job_err(ctx, key,
		    "kernel \"%s\": \"variants\" and "
		    "\"patches\" are exclusive",
		    k.name);
	else if (variants != NULL && total != -1)
		job_kernel_variants(ctx, n, variants, job, &k, total, named);
	if (variants == NULL) {
		job_kernel_add(ctx, n, job, &k);
		return;
	}
	job_kernel_clear(&k);
}

/* Parses one kernel: "running" or a mapping. */
static void
job_kernel_parse(struct job_ctx *ctx, yaml_node_t *n, struct job *job)
{
	struct job_kernel k = { 0 };
	const char	 *s;

	if ((s = job_text(n)) == NULL) {
		job_kernel_parse_map(ctx, n, job);
		return;
	}
	if (strcmp(s, JOB_KERNEL_RUNNING_NAME) != 0) {
		job_err(ctx, n,
		    "kernel \"%s\": must be \"running\" or a "
		    "mapping",
		    s);
		return;
	}
	k.name = xstrdup(JOB_KERNEL_RUNNING_NAME);
	job_kernel_add(ctx, n, job, &k);
}

/* Parses kernels: a list of unique kernels, by default [running]. */
void
job_read_kernels(struct job_ctx *ctx, yaml_node_t *root, struct job *job)
{
	struct job_kernel k = { 0 };
	yaml_node_t	 *key, *seq;
	size_t		  i;

	if ((seq = job_get_seq(ctx, root, "kernels", false, &key)) == NULL) {
		if (job_map_get(ctx, root, "kernels", NULL) != NULL)
			return;
		k.name = xstrdup(JOB_KERNEL_RUNNING_NAME);
		job_kernel_add(ctx, root, job, &k);
		return;
	}
	for (i = 0; i < job_seq_len(seq); i++)
		job_kernel_parse(ctx, job_seq_item(ctx, seq, i), job);
}
