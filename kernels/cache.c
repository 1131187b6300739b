/* The kernel artifact cache: keys, the input index, entries' meta.json. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "kernels/cache.h"
#include "kernels/kernels.h"
#include "kernels/series.h"

/* Returns the sha256 hex of the key's canonical text; see cache.h. */
char *
cache_key_hash(const struct cache_key *k)
{
	char  *text = NULL, *hash = xmalloc(SERIES_HASH_LEN + 1);
	char   h[SERIES_HASH_LEN + 1];
	size_t size = 0, i;
	FILE  *m;

	if ((m = open_memstream(&text, &size)) == NULL)
		abort();
	fprintf(m, "hilab kernel 1\nbase %s\n", k->base);
	for (i = 0; i < k->npatches; i++)
		fprintf(m, "patch %s\n", k->patches[i]);
	for (i = 0; i < k->nconfigs; i++) {
		series_hash(k->configs[i], strlen(k->configs[i]), h);
		fprintf(m, "config %s\n", h);
	}
	fprintf(m, "arch %s\ncross %s\ncompiler %s\n", k->arch,
	    k->cross_compile, k->compiler);
	fclose(m);
	series_hash(text, size, hash);
	free(text);
	return hash;
}

/* Creates dir and its parents; see cache.h. */
int
cache_mkdirs(const char *dir, char **cause)
{
	char *copy = xstrdup(dir), *p, c;
	int   rc = -1;

	for (p = copy + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		c = *p;
		*p = '\0';
		if (mkdir(copy, 0755) == -1 && errno != EEXIST) {
			*cause = xasprintf("%s: %s", copy, strerror(errno));
			goto out;
		}
		*p = c;
		if (c == '\0')
			break;
	}
	rc = 0;
out:
	free(copy);
	return rc;
}

/* Returns the build id the input key led to, or NULL. */
char *
cache_input_get(const char *cache_dir, const char *input_key)
{
	char *path = xasprintf("%s/.inputs/%s", cache_dir, input_key);
	char  id[KERNELS_BUILD_ID_LEN + 2] = "";
	FILE *f = fopen(path, "r");

	free(path);
	if (f == NULL)
		return NULL;
	if (fgets(id, sizeof id, f) == NULL)
		id[0] = '\0';
	fclose(f);
	id[strcspn(id, "\n")] = '\0';
	return strlen(id) == KERNELS_BUILD_ID_LEN ? xstrdup(id) : NULL;
}

/* Records that the input key led to the build id; see cache.h. */
int
cache_input_put(const char *cache_dir, const char *input_key,
    const char *build_id, char **cause)
{
	char *dir = xasprintf("%s/.inputs", cache_dir);
	char *path = xasprintf("%s/%s", dir, input_key);
	char *tmp = xasprintf("%s.%ld", path, (long)getpid());
	int   rc = -1;
	FILE *f;

	if (cache_mkdirs(dir, cause) == -1)
		goto out;
	if ((f = fopen(tmp, "w")) == NULL || fprintf(f, "%s\n", build_id) < 0 ||
	    fclose(f) != 0 || rename(tmp, path) == -1) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(dir);
	free(path);
	free(tmp);
	return rc;
}

/* Returns the entry's meta.json, or NULL if it is not (fully) there. */
json_t *
cache_meta_load(const char *cache_dir, const char *build_id)
{
	char   *path = xasprintf("%s/%s/meta.json", cache_dir, build_id);
	json_t *meta = json_load_file(path, 0, NULL);

	free(path);
	if (meta != NULL && !json_is_object(meta)) {
		json_decref(meta);
		meta = NULL;
	}
	return meta;
}

/* Returns the directory of built kernels; see kernels.h. */
char *
kernels_cache_dir(void)
{
	const char *root = getenv("HILAB_KERNEL_CACHE");

	if (root == NULL || *root == '\0')
		root = KERNELS_CACHE_ROOT;
	return xasprintf("%s/builds", root);
}

/* Orders meta objects by build time, then build id. */
static int
cache_meta_cmp(const void *a, const void *b)
{
	json_t	   *ma = *(json_t *const *)a, *mb = *(json_t *const *)b;
	const char *ta = json_string_value(json_object_get(ma, "built_at"));
	const char *tb = json_string_value(json_object_get(mb, "built_at"));
	int	    c = strcmp(ta != NULL ? ta : "", tb != NULL ? tb : "");

	if (c != 0)
		return c;
	return strcmp(json_string_value(json_object_get(ma, "build_id")),
	    json_string_value(json_object_get(mb, "build_id")));
}

/* Returns whether a directory entry name looks like a build id. */
static int
cache_is_id(const char *name)
{
	return strlen(name) == KERNELS_BUILD_ID_LEN &&
	    strspn(name, "0123456789abcdef") == KERNELS_BUILD_ID_LEN;
}

/* Returns every entry's meta.json, oldest first; see kernels.h. */
json_t *
kernels_cache_list(const char *cache_dir, char **cause)
{
	json_t	     **v = NULL, *arr, *meta;
	struct dirent *d;
	size_t	       n = 0, i;
	DIR	      *dir;

	if ((dir = opendir(cache_dir)) == NULL) {
		if (errno == ENOENT)
			return json_array();
		*cause = xasprintf("%s: %s", cache_dir, strerror(errno));
		return NULL;
	}
	while ((d = readdir(dir)) != NULL) {
		if (!cache_is_id(d->d_name) ||
		    (meta = cache_meta_load(cache_dir, d->d_name)) == NULL)
			continue;
		if (json_string_value(json_object_get(meta, "build_id")) ==
		    NULL) {
			json_decref(meta);
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = meta;
	}
	closedir(dir);
	qsort(v, n, sizeof *v, cache_meta_cmp);
	arr = json_array();
	for (i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
	return arr;
}

/* Returns the meta.json of the entry id names; see kernels.h. */
json_t *
kernels_cache_find(const char *cache_dir, const char *id, char **cause)
{
	json_t	   *all, *m, *found = NULL;
	const char *bid;
	size_t	    i, n = 0;

	if ((all = kernels_cache_list(cache_dir, cause)) == NULL)
		return NULL;
	json_array_foreach(all, i, m)
	{
		bid = json_string_value(json_object_get(m, "build_id"));
		if (*id != '\0' && strncmp(bid, id, strlen(id)) == 0) {
			found = m;
			n++;
		}
	}
	if (n == 1)
		json_incref(found);
	else if (n == 0)
		*cause = xasprintf("kernel \"%s\": not in the cache %s", id,
		    cache_dir);
	else
		*cause = xasprintf("kernel \"%s\": ambiguous, %zu builds "
				   "match",
		    id, n);
	json_decref(all);
	return n == 1 ? found : NULL;
}
