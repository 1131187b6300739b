/* Building one variant: configure, make, collect artifacts into the cache. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/spawn.h"
#include "common/xmalloc.h"
#include "kernels/build.h"
#include "kernels/cache.h"
#include "kernels/kconfig.h"
#include "kernels/series.h"
#include "kernels/worktree.h"

/* Fixed so that two builds of the same variant make the same image. */
#define BUILD_TIMESTAMP	  "Sat Jan  1 00:00:00 UTC 2000"
#define BUILD_USER	  "hilab"
#define BUILD_HOST	  "hilab"
/* At most this many error lines go into the cause of a failed build. */
#define BUILD_ERROR_LINES 20

/* One make run: the variables every run shares plus its own arguments. */
struct build_make {
	struct build *b;
	const char   *build_id; /* NULL while configuring */
	int	      log_fd;
	char	     *output; /* all output of the last run */
};

/* Runs make in the worktree with ARCH, CROSS_COMPILE and the KBUILD_*. */
static int
build_make_run(struct build_make *m, const char *const *args, char **cause)
{
	struct build *b = m->b;
	char	     *argv[32], *env[8];
	struct spawn  s = { .argv = argv,
		 .env = env,
		 .cb = b->spec->tool_output,
		 .arg = b->arg,
		 .log_fd = m->log_fd,
		 .output = &m->output };
	size_t	      n = 0, e = 0, i;
	int	      rc;

	argv[n++] = (char *)"make";
	argv[n++] = xasprintf("-j%d", b->jobs);
	argv[n++] = xasprintf("ARCH=%s", b->arch);
	argv[n++] = xasprintf("CROSS_COMPILE=%s", b->cross);
	env[e++] = xasprintf("KBUILD_BUILD_TIMESTAMP=%s", BUILD_TIMESTAMP);
	env[e++] = xasprintf("KBUILD_BUILD_USER=%s", BUILD_USER);
	env[e++] = xasprintf("KBUILD_BUILD_HOST=%s", BUILD_HOST);
	if (m->build_id != NULL)
		env[e++] = xasprintf("KBUILD_BUILD_VERSION=%s", m->build_id);
	env[e] = NULL;
	for (i = 0; args[i] != NULL && n < 31; i++)
		argv[n++] = (char *)args[i];
	argv[n] = NULL;
	free(m->output);
	m->output = NULL;
	s.dir = b->wt->dir;
	rc = spawn_run(&s, cause);
	for (i = 1; i < 4; i++)
		free(argv[i]);
	for (i = 0; i < e; i++)
		free(env[i]);
	return rc;
}

/* Returns the last lines of output, each on a new indented line. */
static char *
build_tail(const char *output)
{
	const char *p = output + strlen(output), *nl;
	int	    lines = BUILD_ERROR_LINES / 2;
	char	   *text = NULL;
	size_t	    size = 0;
	FILE	   *m;

	while (p > output && (p[-1] == '\n' || p[-1] == ' '))
		p--;
	while (p > output && (p[-1] != '\n' || --lines > 0))
		p--;
	if ((m = open_memstream(&text, &size)) == NULL)
		abort();
	for (; *p != '\0'; p = *nl != '\0' ? nl + 1 : nl) {
		nl = p + strcspn(p, "\n");
		fprintf(m, "\n  %.*s", (int)(nl - p), p);
	}
	fclose(m);
	return text;
}

/* Returns the lines of make output that say what went wrong. */
static char *
build_errors(const char *output)
{
	const char *p, *nl;
	char	   *text = NULL;
	size_t	    size = 0, n = 0, len;
	FILE	   *m = open_memstream(&text, &size);

	if (m == NULL)
		abort();
	for (p = output; p != NULL && *p != '\0' && n < BUILD_ERROR_LINES;
	     p = nl != NULL ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		if (memmem(p, len, "error:", 6) == NULL &&
		    memmem(p, len, "*** ", 4) == NULL &&
		    memmem(p, len, "undefined reference", 19) == NULL)
			continue;
		fprintf(m, "\n  %.*s", (int)len, p);
		n++;
	}
	fclose(m);
	if (n == 0) {
		free(text);
		text = build_tail(output);
	}
	return text;
}

/* Runs one make step; on failure sets *cause with the error lines. */
static int
build_step(struct build_make *m, struct build_variant *v, const char *what,
    const char *const *args, char **cause)
{
	char *errors;
	int   rc;

	if ((rc = build_make_run(m, args, cause)) == 0)
		return 0;
	if (rc > 0) {
		errors = build_errors(m->output);
		*cause = xasprintf("variant \"%s\": %s failed (make exited "
				   "with %d)%s",
		    v->name, what, rc, errors);
		free(errors);
	}
	return -1;
}

/* Writes text to a file; -1 with *cause. */
static int
build_write(const char *path, const char *text, char **cause)
{
	size_t len = strlen(text), written;
	FILE  *f;

	if ((f = fopen(path, "w")) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	written = fwrite(text, 1, len, f);
	if (fclose(f) != 0 || written != len) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Merges the fragments into the tree's .config. */
static int
build_merge_fragments(struct build *b, const char *path, char **cause)
{
	struct kconfig *c;
	size_t		changed;
	char	       *text;
	int		rc;

	if ((c = kconfig_load(path, cause)) == NULL)
		return -1;
	changed = kconfig_merge(c, b->wanted);
	build_progress(b,
	    "config: %zu fragment settings, %zu override the "
	    "base config",
	    b->wanted->n, changed);
	text = kconfig_format(c);
	rc = build_write(path, text, cause);
	free(text);
	kconfig_free(c);
	return rc;
}

/* Reports the fragment settings olddefconfig did not keep. */
static int
build_check_config(struct build *b, const char *path, char **cause)
{
	struct kconfig *c;
	char	       *unmet, *line, *next;

	if ((c = kconfig_load(path, cause)) == NULL)
		return -1;
	if ((unmet = kconfig_unmet(b->wanted, c)) != NULL) {
		for (line = unmet; line != NULL; line = next) {
			if ((next = strchr(line, '\n')) != NULL)
				*next++ = '\0';
			build_progress(b, "warning: config: %s", line);
		}
	}
	free(unmet);
	kconfig_free(c);
	return 0;
}

/* Makes .config: the file or make target, fragments, olddefconfig. */
static int
build_configure(struct build_make *m, struct build_variant *v, char **cause)
{
	struct build *b = m->b;
	const char   *target = b->spec->config_target != NULL
	      ? b->spec->config_target
	      : "defconfig";
	const char   *gen[] = { target, NULL };
	const char   *old[] = { "olddefconfig", NULL };
	char	     *path = xasprintf("%s/.config", b->wt->dir);
	int	      rc = -1;

	if (b->config_text != NULL) {
		if (build_write(path, b->config_text, cause) == -1)
			goto out;
	} else if (build_step(m, v, target, gen, cause) == -1)
		goto out;
	if (b->wanted->n > 0 && build_merge_fragments(b, path, cause) == -1)
		goto out;
	if (build_step(m, v, "olddefconfig", old, cause) == -1 ||
	    build_check_config(b, path, cause) == -1)
		goto out;
	rc = 0;
out:
	free(path);
	return rc;
}

/* Returns the seconds since a monotonic start time. */
static double
build_elapsed(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
	    (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Copies a file; -1 with *cause. */
static int
build_copy(const char *from, const char *to, char **cause)
{
	char *argv[] = { (char *)"cp", (char *)"--", (char *)from, (char *)to,
		NULL };
	struct spawn s = { .argv = argv, .log_fd = -1 };
	char	    *out = NULL;
	int	     rc;

	s.output = &out;
	if ((rc = spawn_run(&s, cause)) > 0)
		*cause = xasprintf("copy %s: %.*s", from,
		    (int)strcspn(out, "\n"), out);
	free(out);
	return rc == 0 ? 0 : -1;
}

/* Returns a file's size, or -1. */
static json_int_t
build_size(const char *dir, const char *name)
{
	char	   *path = xasprintf("%s/%s", dir, name);
	struct stat st;
	int	    rc = stat(path, &st);

	free(path);
	return rc == 0 ? (json_int_t)st.st_size : -1;
}

/* Returns the current UTC time as ISO 8601 (caller frees). */
static char *
build_now(void)
{
	char	  buf[32];
	time_t	  t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return xstrdup(buf);
}

/* Returns the patches of a variant as meta.json lists them. */
static json_t *
build_meta_patches(struct build *b, struct build_variant *v)
{
	const struct series_patch *sp;
	json_t			  *arr = json_array();
	size_t			   i;

	for (i = 0; i < v->n; i++) {
		sp = &b->series->patches[v->patches[i] - 1];
		json_array_append_new(arr,
		    json_pack("{s:i, s:s, s:s, s:s}", "number", sp->number,
			"subject", sp->subject, "hash", sp->hash, "file",
			sp->file));
	}
	return arr;
}

/* Returns the sizes of the files in an entry directory. */
static json_t *
build_meta_files(struct build *b, const char *dir)
{
	const char *names[] = { b->target, "System.map", "config",
		"modules.tar.gz", "build.log", NULL };
	json_t	   *files = json_object();
	json_int_t  size;
	size_t	    i;

	for (i = 0; names[i] != NULL; i++)
		if ((size = build_size(dir, names[i])) >= 0)
			json_object_set_new(files, names[i],
			    json_integer(size));
	return files;
}

/* What a finished build records besides the spec. */
struct build_done {
	const char *build_id;
	const char *dir; /* the entry being written */
	char	    config_hash[SERIES_HASH_LEN + 1];
	char	   *release;
	double	    seconds;
};

/* Writes the entry's meta.json; -1 with *cause. */
static int
build_write_meta(struct build *b, struct build_variant *v,
    const struct build_done *d, char **cause)
{
	char   *path = xasprintf("%s/meta.json", d->dir), *now = build_now();
	json_t *meta;
	int	rc = 0;

	meta = json_pack("{s:s, s:s, s:s, s:s, s:s?, s:o, s:s, s:s, s:s, "
			 "s:s, s:s, s:s, s:s, s:o, s:f, s:i, s:s, s:s}",
	    "name", v->name, "build_id", d->build_id, "git", b->repo, "base",
	    b->base, "series", b->spec->series, "patches",
	    build_meta_patches(b, v), "arch", b->arch, "cross_compile",
	    b->cross, "compiler", b->compiler, "config_hash", d->config_hash,
	    "release", d->release, "image", b->target, "input_key",
	    v->input_key, "files", build_meta_files(b, d->dir), "build_seconds",
	    d->seconds, "jobs", b->jobs, "built_at", now, "kbuild_timestamp",
	    BUILD_TIMESTAMP);
	if (meta == NULL ||
	    json_dump_file(meta, path, JSON_INDENT(2) | JSON_SORT_KEYS) == -1) {
		*cause = xasprintf("%s: cannot write", path);
		rc = -1;
	}
	json_decref(meta);
	free(path);
	free(now);
	return rc;
}

/* Fills a result from a cache entry's meta.json; see build.h. */
void
build_result_from_meta(struct kbuild_result *r, const char *cache_dir,
    json_t *meta)
{
	const char *id = json_string_value(json_object_get(meta, "build_id"));
	const char *image = json_string_value(json_object_get(meta, "image"));
	const char *rel = json_string_value(json_object_get(meta, "release"));
	json_t	   *patches = json_object_get(meta, "patches"), *p;
	const char *name = json_string_value(json_object_get(meta, "name"));
	size_t	    i;

	r->name = xstrdup(name != NULL ? name : "");
	r->npatches = json_array_size(patches);
	r->patches = xcalloc(r->npatches + 1, sizeof *r->patches);
	json_array_foreach(patches, i, p) r->patches[i] =
	    (int)json_integer_value(json_object_get(p, "number"));
	r->build_id = xstrdup(id);
	r->dir = xasprintf("%s/%s", cache_dir, id);
	r->image = xasprintf("%s/%s", r->dir, image != NULL ? image : "");
	r->release = xstrdup(rel != NULL ? rel : "");
	r->cached = true;
	r->seconds = 0;
}

/* Installs the modules and packs them as modules.tar.gz in dir. */
static int
build_modules(struct build_make *m, struct build_variant *v, const char *dir,
    char **cause)
{
	char	   *mods = xasprintf("%s/modules", dir);
	char	   *path_arg = xasprintf("INSTALL_MOD_PATH=%s", mods);
	char	   *tarball = xasprintf("%s/modules.tar.gz", dir);
	const char *install[] = { path_arg, "INSTALL_MOD_STRIP=1",
		"modules_install", NULL };
	char	   *tar[] = { (char *)"tar", (char *)"-C", mods, (char *)"-czf",
		      tarball, (char *)".", NULL };
	struct spawn s = { .argv = tar, .log_fd = m->log_fd };
	int	     rc = -1;

	if (build_step(m, v, "modules_install", install, cause) == -1)
		goto out;
	if ((rc = spawn_run(&s, cause)) > 0)
		*cause = xasprintf("variant \"%s\": tar of the modules failed",
		    v->name);
	rc = rc == 0 ? 0 : -1;
out:
	build_remove(mods);
	free(mods);
	free(path_arg);
	free(tarball);
	return rc;
}

/* Copies the image, System.map and .config into the entry directory. */
static int
build_collect(struct build *b, const char *dir, char **cause)
{
	const char *from[] = { b->image, "System.map", ".config" };
	const char *to[] = { b->target, "System.map", "config" };
	char	   *src, *dst;
	size_t	    i;
	int	    rc = 0;

	for (i = 0; rc == 0 && i < 3; i++) {
		src = xasprintf("%s/%s", b->wt->dir, from[i]);
		dst = xasprintf("%s/%s", dir, to[i]);
		rc = build_copy(src, dst, cause);
		free(src);
		free(dst);
	}
	return rc;
}

/* Reads the final .config: its hash, its text and whether it has modules. */
static char *
build_final_config(struct build *b, char *hash, int *modules, char **cause)
{
	char *path = xasprintf("%s/.config", b->wt->dir), *text = NULL;
	const struct kconfig_entry *e;
	struct kconfig		   *c;

	if ((c = kconfig_load(path, cause)) == NULL)
		goto out;
	e = kconfig_get(c, "CONFIG_MODULES");
	*modules = e != NULL && e->value != NULL && strcmp(e->value, "y") == 0;
	text = kconfig_format(c);
	series_hash(text, strlen(text), hash);
	kconfig_free(c);
out:
	free(path);
	return text;
}

/* Runs the build proper and fills the entry directory d->dir. */
static int
build_compile(struct build_make *m, struct build_variant *v,
    struct build_done *d, int modules, char **cause)
{
	struct build *b = m->b;
	const char   *image[] = { b->target, modules ? "modules" : NULL, NULL };
	const char   *release[] = { "-s", "kernelrelease", NULL };
	struct timespec start;

	clock_gettime(CLOCK_MONOTONIC, &start);
	build_progress(b, "%s: building %s (make -j%d %s%s)", v->name,
	    d->build_id, b->jobs, b->target, modules ? " modules" : "");
	if (build_step(m, v, b->target, image, cause) == -1)
		return -1;
	if (modules && build_modules(m, v, d->dir, cause) == -1)
		return -1;
	d->seconds = build_elapsed(&start);
	if (build_step(m, v, "kernelrelease", release, cause) == -1)
		return -1;
	d->release = xstrndup(m->output, strcspn(m->output, "\n"));
	build_progress(b, "%s: built %s (%s) in %.1f s", v->name, d->build_id,
	    d->release, d->seconds);
	if (build_collect(b, d->dir, cause) == -1)
		return -1;
	close(m->log_fd);
	m->log_fd = -1;
	return build_write_meta(b, v, d, cause);
}

/* Moves a finished entry into place; a racing identical one wins. */
static int
build_publish(struct build *b, const char *tmp, const char *id, char **cause)
{
	char *dst = xasprintf("%s/%s", b->cache_dir, id);
	int   rc = 0;

	if (rename(tmp, dst) == -1) {
		if (errno == EEXIST || errno == ENOTEMPTY)
			build_remove(tmp);
		else {
			*cause = xasprintf("%s: %s", dst, strerror(errno));
			rc = -1;
		}
	}
	free(dst);
	return rc;
}

/* Keeps the log of a failed build and names it in *cause. */
static void
build_keep_failed(struct build *b, const char *tmp, const char *id,
    char **cause)
{
	char *dir = xasprintf("%s/.failed", b->cache_dir);
	char *dst = xasprintf("%s/%s", dir, id != NULL ? id : "configure");
	char *why = NULL, *with;

	build_remove(dst);
	if (cache_mkdirs(dir, &why) == 0 && rename(tmp, dst) == 0 &&
	    *cause != NULL) {
		with = xasprintf("%s\n(log: %s/build.log)", *cause, dst);
		free(*cause);
		*cause = with;
	} else
		build_remove(tmp);
	free(why);
	free(dir);
	free(dst);
}

/* Opens the log of an entry being built. */
static int
build_open_log(const char *dir, char **cause)
{
	char *path = xasprintf("%s/build.log", dir);
	int   fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd == -1)
		*cause = xasprintf("%s: %s", path, strerror(errno));
	free(path);
	return fd;
}

/* Configures, builds and stores one variant; see build.h. */
int
build_variant_make(struct build *b, struct build_variant *v, char **cause)
{
	struct build_make m = { .b = b, .log_fd = -1 };
	struct build_done d = { 0 };
	char		 *tmp, *config = NULL, *id = NULL;
	json_t		 *meta = NULL;
	int		  modules = 0, rc = -1;

	tmp = xasprintf("%s/.tmp-%ld-%.16s", b->cache_dir, (long)getpid(),
	    v->input_key);
	build_remove(tmp);
	if (cache_mkdirs(tmp, cause) == -1 ||
	    (m.log_fd = build_open_log(tmp, cause)) == -1)
		goto out;
	build_progress(b, "%s: configuring", v->name);
	if (build_configure(&m, v, cause) == -1 ||
	    (config = build_final_config(b, d.config_hash, &modules, cause)) ==
		NULL)
		goto out;
	id = build_id(b, v, config);
	if ((meta = cache_meta_load(b->cache_dir, id)) == NULL) {
		d.build_id = m.build_id = id;
		d.dir = tmp;
		if (build_compile(&m, v, &d, modules, cause) == -1 ||
		    build_publish(b, tmp, id, cause) == -1)
			goto out;
		meta = cache_meta_load(b->cache_dir, id);
	} else
		build_progress(b, "%s: same config as cached %s", v->name, id);
	if (meta == NULL) {
		*cause = xasprintf("%s/%s: no meta.json", b->cache_dir, id);
		goto out;
	}
	build_result_from_meta(v->res, b->cache_dir, meta);
	v->res->cached = d.build_id == NULL;
	v->res->seconds = d.seconds;
	rc = cache_input_put(b->cache_dir, v->input_key, id, cause);
out:
	if (m.log_fd != -1)
		close(m.log_fd);
	if (rc == -1)
		build_keep_failed(b, tmp, id, cause);
	else
		build_remove(tmp);
	json_decref(meta);
	free(m.output);
	free(d.release);
	free(config);
	free(id);
	free(tmp);
	return rc;
}
