/*
 * A benchmark built on the controller for a host that cannot build it
 * (machine file "build_on: controller"): the catalog's source tarball is
 * unpacked and built by the same script a host build runs, then prepared
 * for every parameter combination the job plans on the machine, with a
 * compiler for the machine's arch that links statically (a host without a
 * compiler may lack the libraries too).  The prefix is packed and cached
 * on the controller under a hash of the tarball, the build, the prepare
 * commands and the compiler, and uploaded to the host's prefix, named by
 * the archive's sha256, when the host does not hold that archive already.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/paths.h"
#include "common/sha256.h"
#include "common/spawn.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/setup/setup.h"
#include "hilabd/worker_ctx.h"
#include "jobs/job.h"
#include "machines/machine.h"
#include "machines/ssh.h"

#define CONTROLLER_HASH_HEX 16 /* hex digits of a hash in a name */

/* The compiler that builds for arch on this controller (caller frees). */
static char *
controller_compiler(const char *arch, char **cause)
{
	struct utsname u;
	char	      *name, *path = NULL, *dirs, *dir, *save = NULL;
	const char    *env = getenv("PATH");

	if (uname(&u) == -1)
		memset(&u, 0, sizeof u);
	name = strcmp(u.machine, arch) == 0
	    ? xstrdup("gcc")
	    : xasprintf("%s-linux-gnu-gcc", arch);
	dirs = xstrdup(env != NULL ? env : "/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir != NULL && path == NULL;
	     dir = strtok_r(NULL, ":", &save)) {
		path = xasprintf("%s/%s", dir, name);
		if (access(path, X_OK) == -1) {
			free(path);
			path = NULL;
		}
	}
	if (path == NULL)
		*cause = xasprintf("no \"%s\" on the controller to build for "
				   "arch %s",
		    name, arch);
	free(dirs);
	free(name);
	return path;
}

/* Runs argv in dir with env added, its output appended to log_fd. */
static int
controller_spawn(const char *dir, char *const *argv, char *const *env,
    int log_fd, const char *what, char **cause)
{
	struct spawn s = { .dir = dir, .argv = argv, .env = env };
	int	     status;

	s.log_fd = log_fd;
	if ((status = spawn_run(&s, cause)) == -1)
		return -1;
	if (status != 0)
		*cause = xasprintf("%s failed (exit %d)", what, status);
	return status == 0 ? 0 : -1;
}

/* Removes a directory of the cache and everything in it. */
static void
controller_remove(const char *path)
{
	char *argv[] = { "rm", "-rf", (char *)path, NULL };
	char *cause = NULL;

	if (controller_spawn(NULL, argv, NULL, -1, "rm", &cause) == -1)
		free(cause);
}

/* Writes dir/gcc and dir/cc: the compiler, linking statically. */
static int
controller_shims(const char *dir, const char *cc, char **cause)
{
	static const char *const names[] = { "gcc", "cc", NULL };
	char			*path, *q = ssh_host_quote(cc);
	FILE			*fp;
	size_t			 i;
	int			 rc = 0;

	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		rc = -1;
	for (i = 0; rc == 0 && names[i] != NULL; i++) {
		path = xasprintf("%s/%s", dir, names[i]);
		if ((fp = fopen(path, "w")) == NULL ||
		    fprintf(fp, "#!/bin/sh\nexec %s \"$@\" -static\n", q) < 0 ||
		    fclose(fp) != 0 || chmod(path, 0755) == -1)
			rc = -1;
		free(path);
	}
	if (rc == -1)
		*cause = xasprintf("\"%s\": %s", dir, strerror(errno));
	free(q);
	return rc;
}

/*
 * The cache key of the build (caller frees): the tarball's sha256, the
 * build's stamp, the prepare script and what the compiler says it is.
 */
static char *
controller_key(const struct job_benchmark *b, const char *tarball,
    const char *prepare, const char *cc, char **cause)
{
	char  tar[SHA256_HEX_LEN + 1], key[SHA256_HEX_LEN + 1];
	char *stamp, *ver = NULL, *text;
	char *argv[] = { (char *)cc, "-dumpfullversion", "-dumpmachine", NULL };
	struct spawn   s = { .argv = argv, .log_fd = -1, .output = &ver };
	struct sha256 *h;

	if (sha256_file(tarball, tar, cause) == -1)
		return NULL;
	if (spawn_run(&s, cause) != 0) {
		if (*cause == NULL)
			*cause =
			    xasprintf("\"%s -dumpfullversion\" failed", cc);
		free(ver);
		return NULL;
	}
	stamp = install_source_stamp(b);
	text = xasprintf("%s\n%s\n%s\n%s\n%s", tar, stamp,
	    prepare != NULL ? prepare : "", cc, ver != NULL ? ver : "");
	h = sha256_begin();
	sha256_add(h, text, strlen(text));
	sha256_end(h, key);
	free(text);
	free(stamp);
	free(ver);
	return xasprintf("%s-%.*s", b->name, CONTROLLER_HASH_HEX, key);
}

/* Reads the archive's sha256 a cache entry holds into hex; -1 if none. */
static int
controller_cached(const char *entry, char hex[SHA256_HEX_LEN + 1])
{
	char *path = xasprintf("%s/archive.sha256", entry);
	FILE *fp = fopen(path, "r");
	int   rc = -1;

	if (fp != NULL && fscanf(fp, "%64s", hex) == 1 &&
	    strlen(hex) == SHA256_HEX_LEN)
		rc = 0;
	if (fp != NULL)
		fclose(fp);
	free(path);
	return rc;
}

/* The build's work in a staging directory, and what it is for. */
struct controller_build {
	const struct job_benchmark *b;
	const char		   *tarball; /* in the mirror */
	const char		   *cc;
	const char		   *prepare; /* script, or NULL */
	char			   *stage;   /* <cache>/.build-XXXXXX */
	char			   *prefix;  /* stage/<name> */
	int			    log_fd;  /* stage/build.log */
};

/* The build script, then the prepare script in the prefix (caller frees). */
static char *
controller_script(const struct controller_build *cb)
{
	char *script = install_source_script(cb->prefix, cb->b), *all;

	if (cb->prepare == NULL)
		return script;
	all = xasprintf("%scd \"$PREFIX\"\n%s", script, cb->prepare);
	free(script);
	return all;
}

/* Builds and prepares the prefix in the staging directory. */
static int
controller_make(struct controller_build *cb, char **cause)
{
	char *tools = xasprintf("%s/toolchain", cb->stage), *link;
	char *path = xasprintf("PATH=%s:%s", tools,
	    getenv("PATH") != NULL ? getenv("PATH") : "/usr/bin:/bin");
	char *ccenv = xasprintf("CC=%s/gcc", tools);
	char *env[] = { path, ccenv, NULL };
	char *argv[] = { "sh", "-c", controller_script(cb), NULL };
	int   rc = -1;

	link = xasprintf("%s/%s", cb->prefix, cb->b->install.source);
	if (controller_shims(tools, cb->cc, cause) == -1)
		goto out;
	if (symlink(cb->tarball, link) == -1) {
		*cause = xasprintf("\"%s\": %s", link, strerror(errno));
		goto out;
	}
	if (controller_spawn(cb->stage, argv, env, cb->log_fd, "the build",
		cause) == -1)
		goto out;
	unlink(link);
	rc = 0;
out:
	free(argv[2]);
	free(link);
	free(ccenv);
	free(path);
	free(tools);
	return rc;
}

/* Packs the built prefix into stage/prefix.tar.gz and records its hash. */
static int
controller_pack(struct controller_build *cb, char hex[SHA256_HEX_LEN + 1],
    char **cause)
{
	char *tar = xasprintf("%s/prefix.tar.gz", cb->stage);
	char *sum = xasprintf("%s/archive.sha256", cb->stage);
	char *argv[] = { "tar", "-czf", tar, "-C", cb->prefix, ".", NULL };
	FILE *fp;
	int   rc = -1;

	if (controller_spawn(NULL, argv, NULL, cb->log_fd, "packing the prefix",
		cause) == -1 ||
	    sha256_file(tar, hex, cause) == -1)
		goto out;
	if ((fp = fopen(sum, "w")) == NULL || fprintf(fp, "%s\n", hex) < 0 ||
	    fclose(fp) != 0) {
		*cause = xasprintf("\"%s\": %s", sum, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(sum);
	free(tar);
	return rc;
}

/* The last lines of a build log, for an error (caller frees). */
static char *
controller_log_tail(const char *log)
{
	char	    *argv[] = { "tail", "-n", "15", (char *)log, NULL };
	char	    *out = NULL, *cause = NULL;
	struct spawn s = { .argv = argv, .log_fd = -1, .output = &out };

	if (spawn_run(&s, &cause) == -1) {
		free(cause);
		free(out);
		out = xstrdup("");
	}
	return out;
}

/*
 * Keeps a failed build's staging directory as entry.failed and adds the
 * last lines of its log to *cause.
 */
static void
controller_failed(struct controller_build *cb, const char *entry, char **cause)
{
	char *failed = xasprintf("%s.failed", entry), *log, *tail, *why;

	controller_remove(failed);
	if (rename(cb->stage, failed) == -1) {
		free(failed);
		failed = xstrdup(cb->stage);
	}
	log = xasprintf("%s/build.log", failed);
	tail = controller_log_tail(log);
	why = xasprintf("%s; the end of \"%s\":\n%s",
	    *cause != NULL ? *cause : "cannot build", log, tail);
	free(*cause);
	*cause = why;
	free(tail);
	free(log);
	free(failed);
}

/* Makes the cache, the staging directory in it and the build's log. */
static int
controller_stage(struct controller_build *cb, char **cause)
{
	char *argv[] = { "mkdir", "-p", (char *)paths_bench_cache(), NULL };
	char *log;

	if (controller_spawn(NULL, argv, NULL, -1, "mkdir of the cache",
		cause) == -1)
		return -1;
	cb->stage = xasprintf("%s/.build-XXXXXX", paths_bench_cache());
	if (mkdtemp(cb->stage) == NULL) {
		*cause = xasprintf("\"%s\": %s", cb->stage, strerror(errno));
		free(cb->stage);
		cb->stage = NULL;
		return -1;
	}
	cb->prefix = xasprintf("%s/%s", cb->stage, cb->b->name);
	log = xasprintf("%s/build.log", cb->stage);
	cb->log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (cb->log_fd == -1 || mkdir(cb->prefix, 0755) == -1)
		*cause = xasprintf("\"%s\": %s",
		    cb->log_fd == -1 ? log : cb->prefix, strerror(errno));
	free(log);
	return *cause == NULL ? 0 : -1;
}

/*
 * Builds the prefix in a fresh staging directory of the cache and moves
 * it to entry (a build of another worker that got there first wins).
 */
static int
controller_build_entry(struct controller_build *cb, const char *entry,
    char hex[SHA256_HEX_LEN + 1], char **cause)
{
	int rc = -1;

	if (controller_stage(cb, cause) == 0 &&
	    controller_make(cb, cause) == 0 &&
	    controller_pack(cb, hex, cause) == 0)
		rc = 0;
	if (cb->log_fd != -1)
		close(cb->log_fd);
	if (cb->stage == NULL)
		return rc;
	if (rc == -1) {
		controller_failed(cb, entry, cause);
		return -1;
	}
	controller_remove(cb->prefix);
	if (rename(cb->stage, entry) == -1) {
		controller_remove(cb->stage);
		if (controller_cached(entry, hex) == -1) {
			*cause =
			    xasprintf("\"%s\": %s", entry, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Builds the entry now, with events before and after; -1 with *why. */
static int
controller_build_now(struct worker_ctx *ctx, const struct db_run *r,
    struct controller_build *cb, const char *entry, struct install_prefix *pre,
    char **why)
{
	const struct job_benchmark *b = cb->b;
	int64_t			    t0 = clock_now_ms();

	setup_event(ctx, r, DB_INFO,
	    "benchmark \"%s\": building \"%s\" for %s on the controller with "
	    "\"%s\"",
	    b->name, b->install.source, ctx->w->machine->arch, cb->cc);
	if (controller_build_entry(cb, entry, pre->hex, why) == -1)
		return -1;
	setup_event(ctx, r, DB_INFO,
	    "benchmark \"%s\": built on the controller in %.1f s into \"%s\"",
	    b->name, (double)(clock_now_ms() - t0) / 1000.0, entry);
	return 0;
}

/* Gets the benchmark's prefix built on the controller; see setup.h. */
int
install_controller_prefix(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, size_t bench, struct install_prefix *pre,
    char **cause)
{
	struct controller_build cb = { .b = b, .log_fd = -1 };
	char		       *tarball, *cc = NULL, *prepare = NULL, *key;
	char		       *entry = NULL, *why = NULL;
	int			rc = -1;

	if ((tarball = install_source_local(ctx, b, cause)) == NULL)
		return -1;
	if ((cc = controller_compiler(ctx->w->machine->arch, &why)) == NULL ||
	    install_prepare_script(ctx, b, bench, &prepare, &why) == -1 ||
	    (key = controller_key(b, tarball, prepare, cc, &why)) == NULL)
		goto out;
	entry = xasprintf("%s/%s", paths_bench_cache(), key);
	free(key);
	cb.tarball = tarball;
	cb.cc = cc;
	cb.prepare = prepare;
	if (controller_cached(entry, pre->hex) == 0) {
		setup_event(ctx, r, DB_INFO,
		    "benchmark \"%s\": built for %s on the controller (cached "
		    "in \"%s\")",
		    b->name, ctx->w->machine->arch, entry);
		rc = 0;
	} else
		rc = controller_build_now(ctx, r, &cb, entry, pre, &why);
out:
	if (rc == 0)
		pre->archive = xasprintf("%s/prefix.tar.gz", entry);
	else
		*cause = xasprintf("host \"%s\": benchmark \"%s\": build on "
				   "the controller: %s",
		    worker_name(ctx), b->name, why);
	free(why);
	free(cb.stage);
	free(cb.prefix);
	free(entry);
	free(prepare);
	free(cc);
	free(tarball);
	return rc;
}

/* The script that unpacks the uploaded archive name in the prefix. */
static char *
controller_unpack_script(const char *name, const char *hex)
{
	char *qn = ssh_host_quote(name), *qh = ssh_host_quote(hex), *script;

	script = xasprintf("set -e\nrm -rf src bin .installed .archive\n"
			   "set -x\ntar -xzf %s\nrm -f %s\n"
			   "printf '%%s\\n' %s >.archive\n",
	    qn, qn, qh);
	free(qh);
	free(qn);
	return script;
}

/* Uploads the controller's prefix and unpacks it on the host. */
int
install_controller_upload(struct worker_ctx *ctx, const struct db_run *r,
    const struct job_benchmark *b, const struct install_prefix *pre,
    char **cause)
{
	char   *prefix = setup_prefix(ctx, b), *name, *remote;
	char   *script, *what;
	int64_t t0 = clock_now_ms();
	int	rc = -1;

	name = xasprintf("%.*s.tar.gz", CONTROLLER_HASH_HEX, pre->hex);
	remote = xasprintf("%s/%s", prefix, name);
	if (setup_upload(ctx, pre->archive, remote, cause) == -1)
		goto out;
	setup_event(ctx, r, DB_INFO,
	    "benchmark \"%s\": uploaded \"%s\" to \"%s\" in %.2f s", b->name,
	    pre->archive, remote, (double)(clock_now_ms() - t0) / 1000.0);
	script = controller_unpack_script(name, pre->hex);
	what = xasprintf("unpacking the controller's build of \"%s\"",
	    b->install.source);
	rc = install_script_run(ctx, r, b, what, script, cause);
	free(what);
	free(script);
out:
	free(remote);
	free(name);
	free(prefix);
	return rc;
}
