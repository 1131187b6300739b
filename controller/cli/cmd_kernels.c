/* hilab kernels: list and show the kernel cache, build a job's kernels. */
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "controller/cli/cli.h"
#include "jobs/job.h"
#include "kernels/kernels.h"
#include "kernels/series.h"

#define KERNELS_USAGE	"usage: hilab kernels list | show ID | build FILE"
/* Lines of the build log "hilab kernels show" prints. */
#define KERNELS_LOG_TAIL	20

/* Returns a meta.json string member, or "-". */
static const char *
kernels_str(json_t *meta, const char *key)
{
	const char *s = json_string_value(json_object_get(meta, key));

	return s != NULL ? s : "-";
}

/* Returns the patch numbers of an entry as "1,2" or "-" (caller frees). */
static char *
kernels_patch_list(json_t *meta)
{
	json_t *patches = json_object_get(meta, "patches"), *p;
	char *s = xstrdup(""), *t;
	size_t i;

	json_array_foreach(patches, i, p) {
		t = xasprintf("%s%s%lld", s, i > 0 ? "," : "",
		    (long long)json_integer_value(json_object_get(p,
		    "number")));
		free(s);
		s = t;
	}
	if (*s == '\0') {
		free(s);
		s = xstrdup("-");
	}
	return s;
}

/* Returns the size of the entry's image in bytes, or -1. */
static long long
kernels_image_size(json_t *meta)
{
	json_t *size = json_object_get(json_object_get(meta, "files"),
	    json_string_value(json_object_get(meta, "image")));

	return json_is_integer(size) ? json_integer_value(size) : -1;
}

/* hilab kernels list: one line (or JSON object) per cache entry. */
static int
kernels_list(const struct cli_options *o)
{
	char *dir = kernels_cache_dir(), *cause = NULL, *patches;
	json_t *all, *m;
	size_t i;

	all = kernels_cache_list(dir, &cause);
	free(dir);
	if (all == NULL) {
		cli_error(CLI_EXIT_FAIL, "%s", cause);
		free(cause);
		return CLI_EXIT_FAIL;
	}
	if (o->json) {
		cli_print_json(all);
		json_decref(all);
		return CLI_EXIT_OK;
	}
	printf("%-16s  %-12s  %-12s  %-8s  %9s  %7s  %s\n", "BUILD ID",
	    "NAME", "BASE", "PATCHES", "IMAGE", "SECONDS", "BUILT");
	json_array_foreach(all, i, m) {
		patches = kernels_patch_list(m);
		printf("%-16s  %-12s  %-12.12s  %-8s  %9lld  %7.1f  %s\n",
		    kernels_str(m, "build_id"), kernels_str(m, "name"),
		    kernels_str(m, "base"), patches, kernels_image_size(m),
		    json_number_value(json_object_get(m, "build_seconds")),
		    kernels_str(m, "built_at"));
		free(patches);
	}
	json_decref(all);
	return CLI_EXIT_OK;
}

/* Returns the last lines of an entry's build log (caller frees), or NULL. */
static char *
kernels_log_tail(const char *dir, const char *build_id, int lines)
{
	char *path = xasprintf("%s/%s/build.log", dir, build_id);
	char *text = NULL, *p;
	size_t size = 0;
	FILE *f = fopen(path, "r"), *m;
	int ch;

	free(path);
	if (f == NULL)
		return NULL;
	if ((m = open_memstream(&text, &size)) == NULL) {
		fclose(f);
		return NULL;
	}
	while ((ch = getc(f)) != EOF)
		putc(ch, m);
	fclose(m);
	fclose(f);
	p = text + size;
	if (p > text && p[-1] == '\n')
		p--;
	while (p > text && (p[-1] != '\n' || --lines > 0))
		p--;
	memmove(text, p, strlen(p) + 1);
	return text;
}

/* Prints one entry for people: what it is, its files and its log tail. */
static void
kernels_show_text(json_t *meta, const char *tail)
{
	json_t *p, *size;
	const char *name;
	size_t i;

	printf("build id:  %s\nname:      %s\ngit:       %s\nbase:      %s\n"
	    "series:    %s\n", kernels_str(meta, "build_id"),
	    kernels_str(meta, "name"), kernels_str(meta, "git"),
	    kernels_str(meta, "base"), kernels_str(meta, "series"));
	json_array_foreach(json_object_get(meta, "patches"), i, p)
		printf("  patch %lld: %s\n", (long long)json_integer_value(
		    json_object_get(p, "number")), kernels_str(p, "subject"));
	printf("arch:      %s %s\ncompiler:  %s\nrelease:   %s\n"
	    "config:    sha256 %s\nbuilt:     %s in %.1f s\nfiles:\n",
	    kernels_str(meta, "arch"), kernels_str(meta, "cross_compile"),
	    kernels_str(meta, "compiler"), kernels_str(meta, "release"),
	    kernels_str(meta, "config_hash"), kernels_str(meta, "built_at"),
	    json_number_value(json_object_get(meta, "build_seconds")));
	json_object_foreach(json_object_get(meta, "files"), name, size)
		printf("  %-16s %lld\n", name,
		    (long long)json_integer_value(size));
	if (tail != NULL)
		printf("build log (last lines):\n%s\n", tail);
}

/* hilab kernels show ID: one cache entry, with the tail of its log. */
static int
kernels_show(const struct cli_options *o, const char *id)
{
	char *dir = kernels_cache_dir(), *cause = NULL, *tail;
	json_t *meta;

	if ((meta = kernels_cache_find(dir, id, &cause)) == NULL) {
		cli_error(CLI_EXIT_FAIL, "%s", cause);
		free(cause);
		free(dir);
		return CLI_EXIT_FAIL;
	}
	tail = kernels_log_tail(dir, kernels_str(meta, "build_id"),
	    KERNELS_LOG_TAIL);
	free(dir);
	if (o->json) {
		json_object_set_new(meta, "log_tail", tail != NULL ?
		    json_string(tail) : json_null());
		cli_print_json(meta);
	} else
		kernels_show_text(meta, tail);
	free(tail);
	json_decref(meta);
	return CLI_EXIT_OK;
}

/* Kernels of a job that share repository, base, series and config. */
struct kernels_group {
	const struct job_kernel	 *first;
	const struct job_kernel	**members;
	size_t			  n;
};

/* Returns path relative to the job file's directory (caller frees). */
static char *
kernels_path(const char *job_path, const char *path)
{
	char *copy, *p;

	if (path == NULL)
		return NULL;
	if (*path == '/' || strstr(path, "://") != NULL)
		return xstrdup(path);
	copy = xstrdup(job_path);
	p = xasprintf("%s/%s", dirname(copy), path);
	free(copy);
	return p;
}

/* Returns whether two optional strings are equal. */
static int
kernels_same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* Groups the job's built kernels by what their builds share. */
static struct kernels_group *
kernels_groups(const struct job *job, size_t *n)
{
	struct kernels_group *g = xcalloc(job->nkernels + 1, sizeof *g);
	const struct job_kernel *k;
	size_t i, j;

	*n = 0;
	for (i = 0; i < job->nkernels; i++) {
		k = &job->kernels[i];
		if (k->kind != JOB_KERNEL_BUILD)
			continue;
		for (j = 0; j < *n; j++)
			if (kernels_same(g[j].first->git, k->git) &&
			    kernels_same(g[j].first->base, k->base) &&
			    kernels_same(g[j].first->series, k->series) &&
			    kernels_same(g[j].first->config, k->config))
				break;
		if (j == *n)
			g[(*n)++].first = k;
		g[j].members = xreallocarray(g[j].members, g[j].n + 1,
		    sizeof *g[j].members);
		g[j].members[g[j].n++] = k;
	}
	return g;
}

/* Prints build progress on stderr. */
static void
kernels_progress_cb(const char *line, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

/* Sets the spec's config: a file if one is there, else a make target. */
static void
kernels_spec_config(struct kbuild_spec *spec, const char *job_path,
    const char *config, char **path)
{
	*path = kernels_path(job_path, config);
	if (config == NULL)
		return;
	if (access(*path, F_OK) != 0 && strchr(config, '/') == NULL &&
	    strlen(config) > 6 &&
	    strcmp(config + strlen(config) - 6, "config") == 0)
		spec->config_target = config;
	else
		spec->config = *path;
}

/* Returns how many patches of the series there are; -1 with *cause. */
static int
kernels_series_len(const char *series, char **cause)
{
	struct series *s;
	int n;

	if (series == NULL)
		return 0;
	if ((s = series_load(series, cause)) == NULL)
		return -1;
	n = (int)s->n;
	series_free(s);
	return n;
}

/* Fills one variant per member: its first N patches. */
static int
kernels_variants(const struct kernels_group *g, int total,
    struct kbuild_variant *v, int *numbers, char **cause)
{
	size_t i;
	int n;

	for (i = 0; i < (size_t)total; i++)
		numbers[i] = (int)i + 1;
	for (i = 0; i < g->n; i++) {
		n = g->members[i]->patches < 0 ? total :
		    g->members[i]->patches;
		if (n > total) {
			*cause = xasprintf("kernel \"%s\": %d patches, but the "
			    "series has %d", g->members[i]->name, n, total);
			return -1;
		}
		v[i].patches = numbers;
		v[i].n = (size_t)n;
	}
	return 0;
}

/* Prints (or adds to arr) what each member of a group became. */
static void
kernels_print_results(const struct cli_options *o,
    const struct kernels_group *g, const struct kbuild_result *r,
    json_t *arr)
{
	size_t i;

	for (i = 0; i < g->n; i++) {
		if (o->json)
			json_array_append_new(arr, json_pack("{s:s, s:s, "
			    "s:s, s:b, s:f, s:s, s:s}", "kernel",
			    g->members[i]->name, "variant", r[i].name,
			    "build_id", r[i].build_id, "cached", r[i].cached,
			    "seconds", r[i].seconds, "image", r[i].image,
			    "release", r[i].release));
		else
			printf("%-16s  %-12s  %-16s  %-6s  %7.1f  %s\n",
			    g->members[i]->name, r[i].name, r[i].build_id,
			    r[i].cached ? "cached" : "built", r[i].seconds,
			    r[i].image);
	}
}

/* Builds the kernels of one group; -1 with *cause. */
static int
kernels_build_group(const struct cli_options *o, const char *job_path,
    const struct kernels_group *g, json_t *arr, char **cause)
{
	struct kbuild_spec spec = { 0 };
	struct kbuild_variant *v = xcalloc(g->n, sizeof *v);
	struct kbuild_result *r = NULL;
	char *git, *series, *config = NULL;
	int total, *numbers = NULL, rc = -1;
	size_t n = 0;

	git = kernels_path(job_path, g->first->git);
	series = kernels_path(job_path, g->first->series);
	if (strstr(git, "://") != NULL) {
		*cause = xasprintf("kernel \"%s\": git \"%s\": only a local "
		    "repository can be built (clone it, name its path)",
		    g->first->name, git);
		goto out;
	}
	if ((total = kernels_series_len(series, cause)) == -1)
		goto out;
	numbers = xcalloc((size_t)total + 1, sizeof *numbers);
	if (kernels_variants(g, total, v, numbers, cause) == -1)
		goto out;
	spec.git = git;
	spec.base = g->first->base;
	spec.series = series;
	kernels_spec_config(&spec, job_path, g->first->config, &config);
	spec.variants = v;
	spec.nvariants = g->n;
	if (kernels_build_series(&spec, kernels_progress_cb, NULL, &r, &n,
	    cause) == -1)
		goto out;
	kernels_print_results(o, g, r, arr);
	rc = 0;
out:
	kernels_results_free(r, n);
	free(numbers);
	free(v);
	free(git);
	free(series);
	free(config);
	return rc;
}

/* hilab kernels build FILE: builds (or finds) the job's kernels. */
static int
kernels_build(const struct cli_options *o, const char *path)
{
	struct kernels_group *g;
	struct job *job;
	json_t *arr = json_array();
	char *cause = NULL;
	size_t n = 0, i;
	int rc = CLI_EXIT_OK;

	if ((job = job_load(path, NULL, NULL, &cause)) == NULL) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		json_decref(arr);
		return CLI_EXIT_USAGE;
	}
	g = kernels_groups(job, &n);
	if (n == 0)
		fprintf(stderr, "hilab: %s: no kernels to build\n", path);
	if (!o->json && n > 0)
		printf("%-16s  %-12s  %-16s  %-6s  %7s  %s\n", "KERNEL",
		    "VARIANT", "BUILD ID", "STATE", "SECONDS", "IMAGE");
	for (i = 0; i < n && rc == CLI_EXIT_OK; i++) {
		if (kernels_build_group(o, path, &g[i], arr, &cause) == -1) {
			rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
			free(cause);
		}
	}
	if (o->json && rc == CLI_EXIT_OK)
		cli_print_json(arr);
	for (i = 0; i < n; i++)
		free(g[i].members);
	free(g);
	json_decref(arr);
	job_free(job);
	return rc;
}

int
cmd_kernels(const struct cli_options *o, int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return kernels_list(o);
	if (argc == 3 && strcmp(argv[1], "show") == 0)
		return kernels_show(o, argv[2]);
	if (argc == 3 && strcmp(argv[1], "build") == 0)
		return kernels_build(o, argv[2]);
	return cli_usage_error(KERNELS_USAGE);
}
