/* hilab kernels: list and show the kernel cache, build a job's kernels. */
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/xmalloc.h"
#include "jobs/job.h"
#include "jobs/job_build.h"
#include "kernels/kernels.h"

/* Lines of the build log "hilab kernels show" prints. */
#define KERNELS_LOG_TAIL 20

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
	char   *s = xstrdup(""), *t;
	size_t	i;

	json_array_foreach(patches, i, p)
	{
		t = xasprintf("%s%s%lld", s, i > 0 ? "," : "",
		    (long long)json_integer_value(
			json_object_get(p, "number")));
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
int
cmd_kernels_list(const struct cli_options *o, const struct args *a)
{
	char   *dir = kernels_cache_dir(), *cause = NULL, *patches;
	json_t *all, *m;
	size_t	i;

	(void)a;
	all = kernels_cache_list(dir, &cause);
	free(dir);
	if (all == NULL) {
		cli_error(CLI_EXIT_FAIL, "%s", cause);
		free(cause);
		return CLI_EXIT_FAIL;
	}
	if (o->json) {
		cli_print_json(all);
		return CLI_EXIT_OK;
	}
	printf("%-16s  %-12s  %-12s  %-8s  %9s  %7s  %s\n", "BUILD ID", "NAME",
	    "BASE", "PATCHES", "IMAGE", "SECONDS", "BUILT");
	json_array_foreach(all, i, m)
	{
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
	char  *path = xasprintf("%s/%s/build.log", dir, build_id);
	char  *text = NULL, *p;
	size_t size = 0;
	FILE  *f = fopen(path, "r"), *m;
	int    ch;

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
	json_t	   *p, *size;
	const char *name;
	size_t	    i;

	printf("build id:  %s\nname:      %s\ngit:       %s\nbase:      %s\n"
	       "series:    %s\n",
	    kernels_str(meta, "build_id"), kernels_str(meta, "name"),
	    kernels_str(meta, "git"), kernels_str(meta, "base"),
	    kernels_str(meta, "series"));
	json_array_foreach(json_object_get(meta, "patches"), i, p)
	    printf("  patch %lld: %s\n",
		(long long)json_integer_value(json_object_get(p, "number")),
		kernels_str(p, "subject"));
	printf("arch:      %s %s\ncompiler:  %s\nrelease:   %s\n"
	       "config:    sha256 %s\nbuilt:     %s in %.1f s\nfiles:\n",
	    kernels_str(meta, "arch"), kernels_str(meta, "cross_compile"),
	    kernels_str(meta, "compiler"), kernels_str(meta, "release"),
	    kernels_str(meta, "config_hash"), kernels_str(meta, "built_at"),
	    json_number_value(json_object_get(meta, "build_seconds")));
	json_object_foreach(json_object_get(meta, "files"), name, size)
	    printf("  %-16s %lld\n", name, (long long)json_integer_value(size));
	if (tail != NULL)
		printf("build log (last lines):\n%s\n", tail);
}

/*
 * Finds the cache entry id names into *meta: 0, or the exit code after
 * saying why not, CLI_EXIT_USAGE for an id that names no entry or several.
 */
static int
kernels_find(const char *dir, const char *id, json_t **meta)
{
	json_t *all;
	char   *cause = NULL, *why = NULL;
	int	rc;

	if ((*meta = kernels_cache_find(dir, id, &cause)) != NULL)
		return CLI_EXIT_OK;
	/* When the cache reads, the id is what is wrong. */
	all = kernels_cache_list(dir, &why);
	rc = cli_error(all != NULL ? CLI_EXIT_USAGE : CLI_EXIT_FAIL, "%s",
	    cause);
	json_decref(all);
	free(why);
	free(cause);
	return rc;
}

/* hilab kernels show ID: one cache entry, with the tail of its log. */
int
cmd_kernels_show(const struct cli_options *o, const struct args *a)
{
	char   *dir = kernels_cache_dir(), *tail;
	json_t *meta;
	int	rc;

	if ((rc = kernels_find(dir, a->pos[0].text, &meta)) != CLI_EXIT_OK) {
		free(dir);
		return rc;
	}
	tail = kernels_log_tail(dir, kernels_str(meta, "build_id"),
	    KERNELS_LOG_TAIL);
	free(dir);
	if (o->json) {
		json_object_set_new(meta, "log_tail",
		    tail != NULL ? json_string(tail) : json_null());
		cli_print_json(meta);
	} else {
		kernels_show_text(meta, tail);
		json_decref(meta);
	}
	free(tail);
	return CLI_EXIT_OK;
}

/* Prints build progress on stderr. */
static void
kernels_progress_cb(const char *line, void *arg)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

/* Prints what each built kernel of the job became. */
static void
kernels_print_built(const struct job_built *b, size_t n)
{
	size_t i;

	printf("%-16s  %-12s  %-16s  %-6s  %7s  %s\n", "KERNEL", "VARIANT",
	    "BUILD ID", "STATE", "SECONDS", "IMAGE");
	for (i = 0; i < n; i++)
		printf("%-16s  %-12s  %-16s  %-6s  %7.1f  %s\n", b[i].kernel,
		    b[i].variant, b[i].build_id,
		    b[i].cached ? "cached" : "built", b[i].seconds, b[i].image);
}

/* hilab kernels build FILE: builds (or finds) the job's kernels. */
int
cmd_kernels_build(const struct cli_options *o, const struct args *a)
{
	struct job_build_opts opts = { .cb = kernels_progress_cb,
		.tool_output = kernels_progress_cb };
	const char	     *path = a->pos[0].text;
	struct job_built     *b = NULL;
	struct job	     *job;
	char		     *cause = NULL;
	size_t		      n = 0;
	int		      rc = CLI_EXIT_OK;

	if ((job = job_load(path, NULL, NULL, &cause)) == NULL) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		return CLI_EXIT_USAGE;
	}
	if (job_build_kernels(job, &opts, &b, &n, &cause) == -1) {
		rc = cli_error(CLI_EXIT_FAIL, "%s: %s", path, cause);
		free(cause);
	} else {
		if (n == 0)
			fprintf(stderr, "hilab: %s: no kernels to build\n",
			    path);
		if (o->json)
			cli_print_json(job_built_to_json(b, n));
		else if (n > 0)
			kernels_print_built(b, n);
	}
	job_built_free(b, n);
	job_free(job);
	return rc;
}
