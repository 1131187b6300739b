/* Building a job's kernels: grouped by series, one cache, in job order. */
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_build.h"

/* Kernels of a job that share tree, base, series, config and toolchain. */
struct job_build_group {
	const struct job_kernel **members;
	size_t			  n;
};

/* Returns whether two optional strings are equal. */
static bool
job_build_same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Returns whether two kernels are variants of one build. */
static bool
job_build_same(const struct job_kernel *a, const struct job_kernel *b)
{
	size_t i;

	if (!job_build_same_str(a->git, b->git) ||
	    !job_build_same_str(a->base, b->base) ||
	    !job_build_same_str(a->series, b->series) ||
	    !job_build_same_str(a->config, b->config) ||
	    !job_build_same_str(a->arch, b->arch) ||
	    !job_build_same_str(a->cross_compile, b->cross_compile) ||
	    a->nfragments != b->nfragments)
		return false;
	for (i = 0; i < a->nfragments; i++)
		if (strcmp(a->fragments[i], b->fragments[i]) != 0)
			return false;
	return true;
}

/* Groups the job's built kernels; returns the groups (caller frees). */
static struct job_build_group *
job_build_groups(const struct job *job, size_t *n)
{
	struct job_build_group	*g = xcalloc(job->nkernels + 1, sizeof *g);
	const struct job_kernel *k;
	size_t			 i, j;

	*n = 0;
	for (i = 0; i < job->nkernels; i++) {
		k = &job->kernels[i];
		if (k->kind != JOB_KERNEL_BUILD)
			continue;
		for (j = 0; j < *n; j++)
			if (job_build_same(g[j].members[0], k))
				break;
		if (j == *n)
			(*n)++;
		g[j].members = xreallocarray(g[j].members, g[j].n + 1,
		    sizeof *g[j].members);
		g[j].members[g[j].n++] = k;
	}
	return g;
}

/* Fills the build spec of a group: a config file or a make target. */
static void
job_build_spec(const struct job_build_group *g, const struct job_build_opts *o,
    struct kbuild_spec *spec, struct kbuild_variant *v)
{
	const struct job_kernel *k = g->members[0];
	const char		*c = k->config;
	size_t			 i;

	memset(spec, 0, sizeof *spec);
	spec->git = k->git;
	spec->base = k->base;
	spec->series = k->series;
	if (c != NULL && *c == '/')
		spec->config = c;
	else
		spec->config_target = c;
	spec->fragments = (const char *const *)k->fragments;
	spec->nfragments = k->nfragments;
	spec->arch = k->arch;
	spec->cross_compile = k->cross_compile;
	spec->cache_dir = o->cache_dir;
	spec->work_dir = o->work_dir;
	spec->jobs = o->jobs;
	spec->tool_output = o->tool_output;
	for (i = 0; i < g->n; i++) {
		v[i].patches = g->members[i]->patches;
		v[i].n = g->members[i]->npatches;
	}
	spec->variants = v;
	spec->nvariants = g->n;
}

/* Appends what the members of a group became to *out. */
static void
job_build_collect(const struct job_build_group *g,
    const struct kbuild_result *r, struct job_built **out, size_t *n)
{
	struct job_built *b;
	size_t		  i;

	*out = xreallocarray(*out, *n + g->n, sizeof **out);
	for (i = 0; i < g->n; i++) {
		b = &(*out)[(*n)++];
		b->kernel = xstrdup(g->members[i]->name);
		b->variant = xstrdup(r[i].name);
		b->build_id = xstrdup(r[i].build_id);
		b->image = xstrdup(r[i].image);
		b->release = xstrdup(r[i].release != NULL ? r[i].release : "");
		b->cached = r[i].cached;
		b->seconds = r[i].seconds;
	}
}

/* Builds one group; -1 with *cause naming its kernels. */
static int
job_build_group(const struct job_build_group *g, const struct job_build_opts *o,
    struct job_built **out, size_t *n, char **cause)
{
	struct kbuild_variant *v = xcalloc(g->n, sizeof *v);
	struct kbuild_result  *r = NULL;
	struct kbuild_spec     spec;
	size_t		       nr = 0;
	char		      *why = NULL;
	int		       rc = -1;

	if (strstr(g->members[0]->git, "://") != NULL) {
		*cause = xasprintf(
		    "kernel \"%s\": git \"%s\": only a local "
		    "repository can be built (clone it, name its path)",
		    g->members[0]->name, g->members[0]->git);
		goto out;
	}
	job_build_spec(g, o, &spec, v);
	if (kernels_build_series(&spec, o->cb, o->arg, &r, &nr, &why) == -1) {
		*cause = xasprintf("kernel \"%s\"%s: %s", g->members[0]->name,
		    g->n > 1 ? " and its variants" : "", why);
		goto out;
	}
	job_build_collect(g, r, out, n);
	rc = 0;
out:
	free(why);
	kernels_results_free(r, nr);
	free(v);
	return rc;
}

/* Builds every built kernel of the job; see job_build.h. */
int
job_build_kernels(const struct job *job, const struct job_build_opts *o,
    struct job_built **out, size_t *n, char **cause)
{
	struct job_build_group *g;
	size_t			ng, i;
	int			rc = 0;

	*out = NULL;
	*n = 0;
	g = job_build_groups(job, &ng);
	for (i = 0; i < ng && rc == 0; i++)
		rc = job_build_group(&g[i], o, out, n, cause);
	for (i = 0; i < ng; i++)
		free(g[i].members);
	free(g);
	if (rc == -1) {
		job_built_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/* Frees results; accepts NULL. */
void
job_built_free(struct job_built *b, size_t n)
{
	size_t i;

	for (i = 0; b != NULL && i < n; i++) {
		free(b[i].kernel);
		free(b[i].variant);
		free(b[i].build_id);
		free(b[i].image);
		free(b[i].release);
	}
	free(b);
}

/* Returns the entry for a kernel name, or NULL. */
const struct job_built *
job_built_find(const struct job_built *b, size_t n, const char *kernel)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(b[i].kernel, kernel) == 0)
			return &b[i];
	return NULL;
}

/* Returns the results as a JSON array. */
json_t *
job_built_to_json(const struct job_built *b, size_t n)
{
	json_t *a = json_array();
	size_t	i;

	for (i = 0; i < n; i++)
		json_array_append_new(a,
		    json_pack("{s:s, s:s, s:s, s:s, s:s, "
			      "s:b, s:f}",
			"kernel", b[i].kernel, "variant", b[i].variant,
			"build_id", b[i].build_id, "image", b[i].image,
			"release", b[i].release, "cached", b[i].cached,
			"seconds", b[i].seconds));
	return a;
}

/* Reads results from job_built_to_json. */
int
job_built_from_json(json_t *a, struct job_built **out, size_t *n, char **cause)
{
	const char  *k, *v, *id, *img, *rel;
	json_error_t err;
	json_t	    *o;
	size_t	     i;
	int	     cached;

	*out = xcalloc(json_array_size(a) + 1, sizeof **out);
	*n = 0;
	json_array_foreach(a, i, o)
	{
		if (json_unpack_ex(o, &err, JSON_STRICT,
			"{s:s, s:s, s:s, s:s, "
			"s:s, s:b, s:F}",
			"kernel", &k, "variant", &v, "build_id", &id, "image",
			&img, "release", &rel, "cached", &cached, "seconds",
			&(*out)[*n].seconds) != 0) {
			*cause = xasprintf("built kernels: %s", err.text);
			return -1;
		}
		(*out)[*n].kernel = xstrdup(k);
		(*out)[*n].variant = xstrdup(v);
		(*out)[*n].build_id = xstrdup(id);
		(*out)[*n].image = xstrdup(img);
		(*out)[*n].release = xstrdup(rel);
		(*out)[(*n)++].cached = cached;
	}
	if (!json_is_array(a)) {
		*cause = xstrdup("built kernels: not an array");
		return -1;
	}
	return 0;
}
