/*
 * Lab test driver: builds the three cumulative variants of a real two-patch
 * series on Linux 6.1, checks the images and the cache, that a series whose
 * patch 2 does not apply fails naming it, and boots each image under qemu.
 * Arguments: the kernel git tree, its base commit, the run directory made by
 * lab_kernels.sh (good.mbox, bad.mbox, lab.config).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/xmalloc.h"
#include "kernels/kernels.h"
#include "tests/lib/skip.h"

static int lab_failed;

/* Counts output lines of make's compile steps seen in progress. */
struct lab_progress {
	size_t lines;
	size_t compiles;
	size_t unmet; /* fragment settings olddefconfig dropped */
	FILE  *log;
};

/* Prints a check's result, TAP-like, and remembers failures. */
static void
lab_check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", ok ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!ok)
		lab_failed = 1;
}

/* Keeps build progress in a log file and counts compile lines. */
static void
lab_progress_cb(const char *line, void *arg)
{
	struct lab_progress *p = arg;

	p->lines++;
	if (strncmp(line, "warning: config: ", 17) == 0)
		p->unmet++;
	if (strncmp(line, "  CC ", 5) == 0 || strncmp(line, "  LD ", 5) == 0)
		p->compiles++;
	if (p->log != NULL)
		fprintf(p->log, "%s\n", line);
	if (strncmp(line, "  ", 2) != 0)
		fprintf(stderr, "kernels: %s\n", line);
}

/* Returns the seconds since start. */
static double
lab_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) +
	    (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Reads a whole file; NULL if it cannot. */
static char *
lab_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long  n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0) {
		if (f != NULL)
			fclose(f);
		return NULL;
	}
	rewind(f);
	buf = xmalloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* Returns whether the file holds the bytes of needle. */
static int
lab_file_has(const char *path, const char *needle)
{
	size_t len = 0;
	char  *buf = lab_read(path, &len);
	int    found =
	    buf != NULL && memmem(buf, len, needle, strlen(needle)) != NULL;

	free(buf);
	return found;
}

/* Fills the spec for the lab kernel: tinyconfig plus the fragment. */
static void
lab_spec(struct kbuild_spec *spec, char **argv, const char *series,
    const char *const *frags)
{
	memset(spec, 0, sizeof *spec);
	spec->git = argv[1];
	spec->base = argv[2];
	spec->series = series;
	spec->config_target = "tinyconfig";
	spec->fragments = frags;
	spec->nfragments = 1;
	spec->arch = "x86_64";
	spec->cache_dir = xasprintf("%s/cache/builds", argv[3]);
	spec->work_dir = xasprintf("%s/work", argv[3]);
	spec->tool_output = lab_progress_cb;
}

/* Frees what lab_spec allocated. */
static void
lab_spec_free(struct kbuild_spec *spec)
{
	free((char *)spec->cache_dir);
	free((char *)spec->work_dir);
}

/* Checks the three variants of the first build and prints the timings. */
static void
lab_check_first(struct kbuild_result *r, size_t n, double wall)
{
	static const char *names[] = { "base", "patch 1", "patch 1+2" };
	char		  *needle;
	size_t		   i;

	lab_check(n == 3, "three variants built (%zu)", n);
	for (i = 0; i < n && i < 3; i++) {
		lab_check(strcmp(r[i].name, names[i]) == 0,
		    "variant %zu is "
		    "\"%s\" (\"%s\")",
		    i, names[i], r[i].name);
		lab_check(!r[i].cached, "%s was built", r[i].name);
		lab_check(access(r[i].image, R_OK) == 0, "%s: image %s",
		    r[i].name, r[i].image);
		needle = xasprintf("#%s ", r[i].build_id);
		lab_check(lab_file_has(r[i].image, needle),
		    "%s: build id "
		    "%s is in the image",
		    r[i].name, r[i].build_id);
		free(needle);
	}
	if (n < 3)
		return;
	lab_check(strcmp(r[0].build_id, r[1].build_id) != 0 &&
		strcmp(r[1].build_id, r[2].build_id) != 0,
	    "build ids differ");
	printf("# timings: full build (base) %.1f s, incremental patch 1 "
	       "%.1f s, patch 1+2 %.1f s; all three with setup %.1f s\n",
	    r[0].seconds, r[1].seconds, r[2].seconds, wall);
	printf("# ratio incremental/full: patch 1 %.3f, patch 1+2 %.3f\n",
	    r[1].seconds / r[0].seconds, r[2].seconds / r[0].seconds);
	lab_check(r[1].seconds < r[0].seconds / 2 &&
		r[2].seconds < r[0].seconds / 2,
	    "incremental builds take less than half the full build");
}

/* Builds the good series twice: the second call must be all cache hits. */
static void
lab_build_good(char **argv, const char *const *frags, struct kbuild_result **r,
    size_t *n)
{
	struct lab_progress   p = { 0 };
	struct kbuild_result *again = NULL;
	struct kbuild_spec    spec;
	struct timespec	      start;
	char	   *mbox = xasprintf("%s/good.mbox", argv[3]), *cause = NULL;
	char	   *log = xasprintf("%s/progress.log", argv[3]), *hidden;
	const char *wt;
	size_t	    nagain = 0, i;

	lab_spec(&spec, argv, mbox, frags);
	p.log = fopen(log, "w");
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (kernels_build_series(&spec, lab_progress_cb, &p, r, n, &cause) ==
	    -1) {
		lab_check(0, "build of the series: %s", cause);
		goto out;
	}
	lab_check_first(*r, *n, lab_since(&start));
	lab_check(p.compiles > 100, "make compiled (%zu CC/LD lines)",
	    p.compiles);
	lab_check(p.unmet == 0,
	    "the final configs have every fragment "
	    "setting (%zu missing)",
	    p.unmet);
	/* Without the worktree a second call can only succeed from cache. */
	wt = spec.work_dir;
	hidden = xasprintf("%s.hidden", wt);
	lab_check(rename(wt, hidden) == 0, "worktree set aside");
	p.compiles = p.lines = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (kernels_build_series(&spec, lab_progress_cb, &p, &again, &nagain,
		&cause) == -1)
		lab_check(0, "second call: %s", cause);
	printf("# second call: %.3f s\n", lab_since(&start));
	for (i = 0; i < nagain && i < *n; i++)
		lab_check(again[i].cached &&
			strcmp(again[i].build_id, (*r)[i].build_id) == 0,
		    "second call: %s is a cache hit", again[i].name);
	lab_check(nagain == *n && p.compiles == 0 && access(wt, F_OK) == -1,
	    "second call ran no make and made no "
	    "worktree");
	rename(hidden, wt);
	free(hidden);
	kernels_results_free(again, nagain);
out:
	if (p.log != NULL)
		fclose(p.log);
	free(cause);
	free(mbox);
	free(log);
	lab_spec_free(&spec);
}

/* A series whose patch 2 does not apply must fail naming it. */
static void
lab_build_bad(char **argv, const char *const *frags)
{
	struct lab_progress   p = { 0 };
	struct kbuild_result *r = NULL;
	struct kbuild_spec    spec;
	struct timespec	      start;
	char  *mbox = xasprintf("%s/bad.mbox", argv[3]), *cause = NULL;
	size_t n = 0;
	int    rc;

	lab_spec(&spec, argv, mbox, frags);
	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = kernels_build_series(&spec, lab_progress_cb, &p, &r, &n, &cause);
	printf("# bad series: failed in %.1f s: %s\n", lab_since(&start),
	    cause != NULL ? cause : "(no error)");
	lab_check(rc == -1 && cause != NULL, "bad series fails");
	lab_check(cause != NULL && strstr(cause, "patch 2/2") != NULL &&
		strstr(cause, "init: mark the version banner of patch 2") !=
		    NULL &&
		strstr(cause, "init/version-timestamp.c") != NULL &&
		strstr(cause, "bad.mbox") != NULL,
	    "the error names patch 2, its "
	    "subject, the series file and the file that failed");
	lab_check(p.compiles == 0, "nothing compiled for the bad series");
	kernels_results_free(r, n);
	free(cause);
	free(mbox);
	lab_spec_free(&spec);
}

/* Returns the console's "Linux version" line (caller frees), or NULL. */
static char *
lab_version_line(const char *console)
{
	const char *p = strstr(console, "Linux version ");

	if (p == NULL)
		return NULL;
	return xstrndup(p, strcspn(p, "\r\n"));
}

/* Boots one image under qemu (TCG) until it panics for want of a root. */
static void
lab_boot(const struct kbuild_result *r, const char *dir, int patches)
{
	char *console = xasprintf("%s/console-%s.log", dir, r->build_id);
	char *cmd = xasprintf(
	    "timeout 120 qemu-system-x86_64 -accel tcg "
	    "-m 256 -kernel '%s' -append 'console=ttyS0 panic=-1' "
	    "-nographic -no-reboot -monitor none > '%s' 2>&1 < /dev/null",
	    r->image, console);
	char *needle = xasprintf("#%s ", r->build_id), *text, *line = NULL;
	struct timespec start;
	size_t		len = 0;
	int		rc;

	clock_gettime(CLOCK_MONOTONIC, &start);
	rc = system(cmd);
	text = lab_read(console, &len);
	if (text != NULL)
		line = lab_version_line(text);
	printf("# boot %s: %.1f s, qemu status %d: %s\n", r->name,
	    lab_since(&start), rc, line != NULL ? line : "(no banner)");
	lab_check(line != NULL && strstr(line, needle) != NULL,
	    "boot %s: "
	    "\"Linux version\" line shows build id %s",
	    r->name, r->build_id);
	lab_check(text != NULL &&
		(strstr(text,
		     "hilab: patch 1 of the lab "
		     "series") != NULL) == (patches >= 1),
	    "boot %s: patch 1's line "
	    "%s",
	    r->name, patches >= 1 ? "printed" : "absent");
	lab_check(line != NULL &&
		(strstr(line, "hilab-patch-2") != NULL) == (patches >= 2),
	    "boot %s: patch 2's banner %s", r->name,
	    patches >= 2 ? "shown" : "absent");
	free(text);
	free(line);
	free(needle);
	free(cmd);
	free(console);
}

int
main(int argc, char **argv)
{
	char		     *frag;
	const char	     *frags[1];
	struct kbuild_result *r = NULL;
	size_t		      n = 0, i;

	if (argc != 4) {
		fprintf(stderr, "usage: lab_kernels GIT BASE RUNDIR\n");
		return 2;
	}
	frag = xasprintf("%s/lab.config", argv[3]);
	frags[0] = frag;
	lab_build_good(argv, frags, &r, &n);
	lab_build_bad(argv, frags);
	if (system("command -v qemu-system-x86_64 > /dev/null") != 0) {
		printf("# qemu-system-x86_64 not installed: boots skipped\n");
		if (skip_strict()) {
			printf("not ok - qemu-system-x86_64 missing in CI\n");
			lab_failed = 1;
		}
	} else
		for (i = 0; i < n; i++)
			lab_boot(&r[i], argv[3], (int)r[i].npatches);
	kernels_results_free(r, n);
	free(frag);
	return lab_failed;
}
