/*
 * The kernels of a job file: "running", prebuilt images, and kernels built
 * from a git tree, a base commit and a patch series.  "variants" expands one
 * built entry into several kernels: "cumulative" gives base, patch 1,
 * patch 1+2, ..., or a list of patch lists names the subsets.  Relative
 * paths are taken from the job file's directory and stored absolute, so a
 * queued job means the same files whatever directory hilabd runs in.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_yaml.h"
#include "kernels/kernels.h"
#include "kernels/series.h"

#define JOB_MAX_PATCHES 10000

/* A kernel entry as read, before its patches and variants are expanded. */
struct job_kernel_in {
	struct job_kernel k;
	yaml_node_t	 *patches;
	yaml_node_t	 *variants;
};

static const char *const job_kernel_arches[] = { "x86_64", "arm64", NULL };

/* Frees the contents of a kernel. */
void
job_kernel_clear(struct job_kernel *k)
{
	size_t i;

	free(k->name);
	free(k->image);
	free(k->initrd);
	free(k->dtb);
	free(k->modules);
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
	dst->dtb = job_kernel_dup(src->dtb);
	dst->modules = job_kernel_dup(src->modules);
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

/*
 * A path of the job file as stored: a relative one is taken from the
 * file's directory, an absolute one or a URL stays as it is.
 */
static char *
job_kernel_abs(struct conf_file *f, const char *path)
{
	if (*path == '/' || strstr(path, "://") != NULL)
		return xstrdup(path);
	return conf_path_resolve(f->dir, path);
}

/* Reads a string into dst (a char *) as resolve makes it. */
static void
job_read_resolved(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst, char *(*resolve)(struct conf_file *, const char *))
{
	char *s = NULL;

	conf_parse_str(f, k, v, &s);
	if (s == NULL)
		return;
	free(*(char **)dst);
	*(char **)dst = resolve(f, s);
	free(s);
}

/*
 * "image", "initrd", "modules", "git", "series": a path of the job file,
 * or a URL.
 */
static void
job_read_kpath(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	job_read_resolved(f, k, v, dst, job_kernel_abs);
}

/* Returns whether a config names a make target such as "tinyconfig". */
static bool
job_kernel_config_target(struct conf_file *f, const char *config)
{
	char  *path;
	size_t len = strlen(config);
	bool   target;

	if (strchr(config, '/') != NULL || len <= 6 ||
	    strcmp(config + len - 6, "config") != 0)
		return false;
	path = job_kernel_abs(f, config);
	target = access(path, F_OK) != 0;
	free(path);
	return target;
}

/* A config as stored: a make target as it is, else a path. */
static char *
job_kernel_config(struct conf_file *f, const char *config)
{
	if (job_kernel_config_target(f, config))
		return xstrdup(config);
	return job_kernel_abs(f, config);
}

/* "config": a make target, or a config file of the job file. */
static void
job_read_config(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	job_read_resolved(f, k, v, dst, job_kernel_config);
}

/* "fragments": config fragment files, in the order they are merged. */
static void
job_read_fragments(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	struct job_kernel *kern = dst;
	char		 **list = NULL, *abs;
	size_t		   i;

	conf_parse_strv(f, k, v, &list);
	for (i = 0; list != NULL && list[i] != NULL; i++) {
		abs = job_kernel_abs(f, list[i]);
		free(list[i]);
		list[i] = abs;
	}
	kern->fragments = list;
	kern->nfragments = conf_strv_len(list);
}

#define KIN(f) offsetof(struct job_kernel_in, f)
#define KER(f) offsetof(struct job_kernel_in, k.f)

static const struct conf_key job_kernel_keys[] = {
	{ .name = "name", .parse = conf_parse_label, .off = KER(name) },
	{ .name = "image", .parse = job_read_kpath, .off = KER(image) },
	{ .name = "initrd", .parse = job_read_kpath, .off = KER(initrd) },
	{ .name = "dtb", .parse = job_read_kpath, .off = KER(dtb) },
	{ .name = "modules", .parse = job_read_kpath, .off = KER(modules) },
	{ .name = "cmdline", .parse = conf_parse_str, .off = KER(cmdline) },
	{ .name = "git", .parse = job_read_kpath, .off = KER(git) },
	{ .name = "base", .parse = conf_parse_str, .off = KER(base) },
	{ .name = "series", .parse = job_read_kpath, .off = KER(series) },
	{ .name = "patches", .parse = conf_parse_node, .off = KIN(patches) },
	{ .name = "variants", .parse = conf_parse_node, .off = KIN(variants) },
	{ .name = "config", .parse = job_read_config, .off = KER(config) },
	{ .name = "fragments", .parse = job_read_fragments, .off = KIN(k) },
	{ .name = "arch", .parse = conf_parse_str, .off = KER(arch) },
	{ .name = "cross_compile",
	    .parse = conf_parse_str,
	    .off = KER(cross_compile) },
	{ .name = NULL },
};

/* Returns whether the kernel's build can target arch. */
static bool
job_kernel_arch_ok(const char *arch)
{
	size_t i;

	for (i = 0; job_kernel_arches[i] != NULL; i++)
		if (strcmp(job_kernel_arches[i], arch) == 0)
			return true;
	return false;
}

/* Checks which kind a kernel mapping describes and its key combination. */
static void
job_kernel_kind(struct conf_file *f, yaml_node_t *n, struct job_kernel *k)
{
	if (k->image != NULL && k->git != NULL)
		conf_error(f, n,
		    "kernel \"%s\": \"image\" and \"git\" are "
		    "exclusive",
		    k->name);
	else if (k->image == NULL && k->git == NULL)
		conf_error(f, n, "kernel \"%s\": needs \"image\" or \"git\"",
		    k->name);
	k->kind = k->git != NULL ? JOB_KERNEL_BUILD : JOB_KERNEL_IMAGE;
	if (k->modules != NULL && k->image == NULL)
		conf_error(f, n,
		    "kernel \"%s\": \"modules\" needs \"image\" (built "
		    "kernels bring their own)",
		    k->name);
	if (k->git != NULL && k->base == NULL)
		conf_error(f, n, "kernel \"%s\": \"git\" needs \"base\"",
		    k->name);
	if (k->git == NULL &&
	    (k->base != NULL || k->series != NULL || k->config != NULL ||
		k->nfragments > 0 || k->arch != NULL ||
		k->cross_compile != NULL))
		conf_error(f, n,
		    "kernel \"%s\": \"base\", \"series\", "
		    "\"config\", \"fragments\", \"arch\" and \"cross_compile\" "
		    "need \"git\"",
		    k->name);
	if (k->arch != NULL && !job_kernel_arch_ok(k->arch))
		conf_error(f, n,
		    "kernel \"%s\": arch \"%s\" is not supported "
		    "(x86_64, arm64)",
		    k->name, k->arch);
}

/* Returns how many patches the series has; -1 after an error. */
static long
job_kernel_series_len(struct conf_file *f, yaml_node_t *n,
    const struct job_kernel *k)
{
	struct series *s;
	char	      *cause = NULL;
	long	       len;

	if (k->series == NULL)
		return 0;
	if ((s = series_load(k->series, &cause)) == NULL) {
		conf_error_key(f, n, "series", "kernel \"%s\": %s", k->name,
		    cause);
		free(cause);
		return -1;
	}
	len = (long)s->n;
	series_free(s);
	return len;
}

/* Reads one patch number of a list into *out; -1 after an error. */
static int
job_kernel_patch_number(struct conf_file *f, const struct conf_key *pk,
    yaml_node_t *item, const struct job_kernel *k, long total, long prev,
    long *out)
{
	long long n;

	if (!conf_number(f, pk, item, &n))
		return -1;
	*out = (long)n;
	if (*out > total) {
		conf_error(f, item,
		    "kernel \"%s\": patch %ld, but the series has %ld", k->name,
		    *out, total);
		return -1;
	}
	if (*out <= prev) {
		conf_error(f, item,
		    "kernel \"%s\": patch numbers must be ascending and unique",
		    k->name);
		return -1;
	}
	return 0;
}

/* Reads a patch count N, the first N patches of the series. */
static int
job_kernel_patch_count(struct conf_file *f, const struct conf_key *pk,
    yaml_node_t *v, const struct job_kernel *k, long total, int **patches,
    size_t *n)
{
	long long count;
	long	  i;

	if (!conf_number(f, pk, v, &count))
		return -1;
	if (count > total) {
		conf_error(f, v,
		    "kernel \"%s\": patches must be a count (at most the "
		    "series' length) or a list of patch numbers",
		    k->name);
		return -1;
	}
	*patches = xcalloc((size_t)count + 1, sizeof **patches);
	for (i = 0; i < count; i++)
		(*patches)[(*n)++] = (int)i + 1;
	return 0;
}

/*
 * Reads a patch list of key: N (the first N patches) or a list of patch
 * numbers.  Returns 0 with *patches (caller frees) and *n, or -1 after an
 * error.
 */
static int
job_kernel_patch_list(struct conf_file *f, const char *key, yaml_node_t *v,
    const struct job_kernel *k, long total, int **patches, size_t *n)
{
	struct conf_key pk = { .name = key, .min = 0, .max = JOB_MAX_PATCHES };
	long		num, prev = 0;
	size_t		i;

	*n = 0;
	*patches = NULL;
	if (v->type == YAML_SCALAR_NODE)
		return job_kernel_patch_count(f, &pk, v, k, total, patches, n);
	if (v->type != YAML_SEQUENCE_NODE) {
		conf_error(f, v,
		    "kernel \"%s\": a patch list must be a count or a list of "
		    "patch numbers",
		    k->name);
		return -1;
	}
	pk.min = 1;
	*patches = xcalloc(conf_seq_len(v) + 1, sizeof **patches);
	for (i = 0; i < conf_seq_len(v); i++) {
		if (job_kernel_patch_number(f, &pk, conf_seq_item(f, v, i), k,
			total, prev, &num) == -1)
			return -1;
		(*patches)[(*n)++] = (int)(prev = num);
	}
	return 0;
}

/* Reads "patches"; without it a series is applied whole. */
static void
job_kernel_patches(struct conf_file *f, yaml_node_t *n,
    struct job_kernel_in *ki, long total)
{
	struct job_kernel *k = &ki->k;
	long		   i;

	if (ki->patches != NULL) {
		if (k->series == NULL)
			conf_error(f,
			    conf_node(f, conf_map_pair(f, n, "patches")->key),
			    "kernel \"%s\": \"patches\" needs \"series\"",
			    k->name);
		else if (job_kernel_patch_list(f, "patches", ki->patches, k,
			     total, &k->patches, &k->npatches) == -1) {
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

/* Adds a parsed kernel to the job unless its name is taken. */
static void
job_kernel_add(struct conf_file *f, yaml_node_t *n, struct job *job,
    struct job_kernel *k)
{
	if (*k->name != '\0' && job_find_kernel(job, k->name) != NULL) {
		conf_error(f, n, "duplicate kernel \"%s\"", k->name);
		job_kernel_clear(k);
		return;
	}
	job->kernels = xreallocarray(job->kernels, job->nkernels + 1,
	    sizeof *job->kernels);
	job->kernels[job->nkernels++] = *k;
}

/* Adds one variant of a template kernel: its patches, its name. */
static void
job_kernel_variant(struct conf_file *f, yaml_node_t *n, struct job *job,
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
	job_kernel_add(f, n, job, &k);
}

/* Adds the kernel the machine runs now to the job. */
void
job_kernel_add_running(struct job *job)
{
	job->kernels = xreallocarray(job->kernels, job->nkernels + 1,
	    sizeof *job->kernels);
	memset(&job->kernels[job->nkernels], 0, sizeof *job->kernels);
	job->kernels[job->nkernels++].name = xstrdup(JOB_KERNEL_RUNNING_NAME);
}

/* Expands "variants: cumulative": base, patch 1, patch 1+2, ... */
static void
job_kernel_cumulative(struct conf_file *f, yaml_node_t *n, struct job *job,
    const struct job_kernel *tpl, long total, bool named)
{
	int   *patches;
	size_t np;
	long   j;

	for (j = 0; j <= total; j++) {
		patches = xcalloc((size_t)j + 1, sizeof *patches);
		for (np = 0; np < (size_t)j; np++)
			patches[np] = (int)np + 1;
		job_kernel_variant(f, n, job, tpl, named, patches, np);
	}
}

/* Expands "variants": "cumulative" or a list of patch lists. */
static void
job_kernel_variants(struct conf_file *f, yaml_node_t *n, yaml_node_t *v,
    struct job *job, const struct job_kernel *tpl, long total, bool named)
{
	int   *patches;
	size_t np, i;

	if (v->type == YAML_SCALAR_NODE &&
	    strcmp((const char *)v->data.scalar.value, "cumulative") == 0) {
		job_kernel_cumulative(f, n, job, tpl, total, named);
		return;
	}
	if (v->type != YAML_SEQUENCE_NODE || conf_seq_len(v) == 0) {
		conf_error(f, v,
		    "kernel \"%s\": \"variants\" must be \"cumulative\" or a "
		    "list of patch lists",
		    tpl->name);
		return;
	}
	for (i = 0; i < conf_seq_len(v); i++) {
		if (job_kernel_patch_list(f, "variants", conf_seq_item(f, v, i),
			tpl, total, &patches, &np) == 0)
			job_kernel_variant(f, n, job, tpl, named, patches, np);
		else
			free(patches);
	}
}

/*
 * Names an entry without "name" in messages: the variants of its series
 * ("variants of good.mbox"); an entry that needs a name gets "".
 */
static char *
job_kernel_unnamed(const struct job_kernel_in *ki)
{
	const char *series = ki->k.series;

	if (ki->variants == NULL)
		return xstrdup("");
	if (series == NULL)
		return xstrdup("variants of the base");
	if (strrchr(series, '/') != NULL)
		series = strrchr(series, '/') + 1;
	return xasprintf("variants of %s", series);
}

/*
 * Checks the name of an entry: given unless it has variants, not the
 * running kernel's.  Returns whether it was given.
 */
static bool
job_kernel_name(struct conf_file *f, yaml_node_t *n, struct job_kernel_in *ki)
{
	bool named = ki->k.name != NULL;

	if (conf_map_value(f, n, "name") == NULL && ki->variants == NULL)
		conf_error(f, n,
		    "missing required key \"name\" in \"kernels\"");
	if (!named)
		ki->k.name = job_kernel_unnamed(ki);
	else if (strcmp(ki->k.name, JOB_KERNEL_RUNNING_NAME) == 0)
		conf_error(f, n,
		    "kernel name \"running\" is reserved for the running kernel");
	return named;
}

/* Checks how "variants" goes with the other keys; expands it if it can. */
static void
job_kernel_expand(struct conf_file *f, yaml_node_t *n, struct job *job,
    struct job_kernel_in *ki, long total, bool named)
{
	yaml_node_t *key = conf_node(f, conf_map_pair(f, n, "variants")->key);

	if (ki->k.kind != JOB_KERNEL_BUILD)
		conf_error(f, key, "kernel \"%s\": \"variants\" needs \"git\"",
		    ki->k.name);
	else if (ki->patches != NULL)
		conf_error(f, key,
		    "kernel \"%s\": \"variants\" and \"patches\" are exclusive",
		    ki->k.name);
	else if (total != -1)
		job_kernel_variants(f, n, ki->variants, job, &ki->k, total,
		    named);
}

/* Parses one kernel mapping and adds it (or its variants) to the job. */
static void
job_kernel_parse_map(struct conf_file *f, yaml_node_t *n, struct job *job)
{
	struct job_kernel_in ki = { 0 };
	long		     total;
	bool		     named;

	conf_mapping(f, n, job_kernel_keys, &ki, "kernels");
	named = job_kernel_name(f, n, &ki);
	job_kernel_kind(f, n, &ki.k);
	/*
	 * The series is read to expand it, or to check patch numbers when
	 * it is there: a job may name a series to be fetched later.
	 */
	total = JOB_MAX_PATCHES;
	if (ki.k.kind == JOB_KERNEL_BUILD &&
	    (ki.variants != NULL || ki.patches == NULL ||
		(ki.k.series != NULL && access(ki.k.series, F_OK) == 0)))
		total = job_kernel_series_len(f, n, &ki.k);
	if (total != -1 && ki.k.kind == JOB_KERNEL_BUILD)
		job_kernel_patches(f, n, &ki, total);
	if (ki.variants == NULL) {
		job_kernel_add(f, n, job, &ki.k);
		return;
	}
	job_kernel_expand(f, n, job, &ki, total, named);
	job_kernel_clear(&ki.k);
}

/* Parses one kernel: "running" or a mapping. */
static void
job_kernel_parse(struct conf_file *f, yaml_node_t *n, struct job *job)
{
	struct job_kernel k = { 0 };
	const char	 *s;

	if (n->type == YAML_MAPPING_NODE) {
		job_kernel_parse_map(f, n, job);
		return;
	}
	if (n->type != YAML_SCALAR_NODE) {
		conf_error(f, n, "kernel must be a mapping");
		return;
	}
	s = (const char *)n->data.scalar.value;
	if (strcmp(s, JOB_KERNEL_RUNNING_NAME) != 0) {
		conf_error(f, n,
		    "kernel \"%s\": must be \"running\" or a mapping", s);
		return;
	}
	k.name = xstrdup(JOB_KERNEL_RUNNING_NAME);
	job_kernel_add(f, n, job, &k);
}

/* "kernels": a non-empty list of unique kernels. */
void
job_read_kernels(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	size_t i;

	if (conf_seq(f, k, v, "a non-empty list") == NULL)
		return;
	for (i = 0; i < conf_seq_len(v); i++)
		job_kernel_parse(f, conf_seq_item(f, v, i), dst);
}
