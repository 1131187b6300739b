/*
 * Built kernels in job files, against a git repository and a three-patch
 * series made by real git at test time: variants (cumulative and explicit),
 * patch counts and lists, paths taken from the job file's directory, errors
 * with their positions, and the JSON form stored in the database.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>
#include <cmocka.h>

#include "common/xmalloc.h"
#include "jobs/job.h"
#include "kernels/kernels.h"

#define GIT                                                 \
	"git -c user.name=Dev -c user.email=dev@localhost " \
	"-c init.defaultBranch=main"

/* A scratch directory: repository "linux", its series, config files. */
struct fixture {
	char *dir;  /* real path, as job_load makes paths */
	char *base; /* commit id */
};

/* Runs a shell command built from fmt; fails the test if it fails. */
static void
sh(const char *fmt, ...)
{
	va_list ap;
	char   *cmd;
	int	rc;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	if ((rc = system(cmd)) != 0)
		fail_msg("command failed (%d): %s", rc, cmd);
	free(cmd);
}

/* Returns the first line of a file (caller frees). */
static char *
first_line(const char *path)
{
	char  buf[256] = "";
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	if (fgets(buf, sizeof buf, f) == NULL)
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return xstrdup(buf);
}

/*
 * Makes the repository with a base commit and three patches (each edits a
 * file of its own), the series as an mbox with a cover letter and as a
 * directory of *.patch files, a config file and two fragments.
 */
static int
fixture_setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char		tmpl[] = "/tmp/test-job-kernels.XXXXXX", real[PATH_MAX];
	char	       *path;

	assert_non_null(mkdtemp(tmpl));
	assert_non_null(realpath(tmpl, real));
	f->dir = xstrdup(real);
	sh("cd %s && " GIT " init -q linux && cd linux && "
	   "for x in a b c; do "
	   "printf '%%s1\\n%%s2\\n' $x $x > $x.txt; done && "
	   "git add . && " GIT " commit -q -m base && "
	   "git rev-parse HEAD > ../base && "
	   "for x in a b c; do sed -i s/${x}2/X/ $x.txt && " GIT
	   " commit -q -am \"$x: change $x\" || exit 1; done && "
	   "git format-patch -q --cover-letter --stdout HEAD~3 "
	   "> ../series.mbox && "
	   "git format-patch -q --cover-letter -o ../patches HEAD~3 && "
	   "cd .. && mkdir conf && echo CONFIG_SMP=y > lab.config && "
	   "echo CONFIG_HZ_1000=y > conf/hz.config && "
	   "echo '# CONFIG_DEBUG_KERNEL is not set' > nodebug.config && "
	   "echo 'not a patch' > notes.txt",
	    f->dir);
	path = xasprintf("%s/base", f->dir);
	f->base = first_line(path);
	free(path);
	assert_int_equal(strlen(f->base), 40);
	*state = f;
	return 0;
}

/* Removes the scratch directory. */
static int
fixture_teardown(void **state)
{
	struct fixture *f = *state;

	sh("rm -rf %s", f->dir);
	free(f->dir);
	free(f->base);
	free(f);
	return 0;
}

/* Writes a job file whose kernels are the given YAML; returns its path. */
static char *
write_job(const struct fixture *f, const char *name, const char *kernels)
{
	char *path = xasprintf("%s/%s", f->dir, name);
	FILE *out = fopen(path, "w");

	assert_non_null(out);
	fprintf(out,
	    "name: t\nmachines: [demo]\nkernels:\n%s"
	    "benchmarks:\n  - name: hackbench\n",
	    kernels);
	assert_int_equal(fclose(out), 0);
	return path;
}

/* Loads a job file that must parse. */
static struct job *
load_ok(const char *path)
{
	char	   *cause = NULL;
	struct job *job = job_load(path, NULL, NULL, &cause);

	if (job == NULL)
		fail_msg("%s: unexpected errors:\n%s", path, cause);
	return job;
}

/* Loads kernels YAML that must parse (job file "job.yaml"). */
static struct job *
load_kernels(const struct fixture *f, const char *kernels)
{
	char	   *path = write_job(f, "job.yaml", kernels);
	struct job *job = load_ok(path);

	free(path);
	return job;
}

/* Returns "line:col" (1-based) where needle first starts in text. */
static char *
position(const char *text, const char *needle)
{
	const char *at = strstr(text, needle), *p, *bol = text;
	int	    line = 1;

	if (at == NULL)
		fail_msg("\"%s\" not in the job text", needle);
	for (p = text; p < at; p++)
		if (*p == '\n') {
			line++;
			bol = p + 1;
		}
	return xasprintf("%d:%d", line, (int)(at - bol) + 1);
}

/*
 * Loads kernels YAML that must fail with exactly one error: at the first
 * occurrence of `at` in the file, with message msg.
 */
static void
load_fails(const struct fixture *f, const char *kernels, const char *at,
    const char *msg)
{
	char *path = write_job(f, "bad.yaml", kernels), *cause = NULL;
	char *text =
		 xasprintf("name: t\nmachines: [demo]\nkernels:\n%s", kernels),
	     *pos = position(text, at), *want;

	want = xasprintf("%s:%s: %s", path, pos, msg);
	assert_null(job_load(path, NULL, NULL, &cause));
	assert_non_null(cause);
	assert_string_equal(cause, want);
	free(want);
	free(pos);
	free(text);
	free(cause);
	free(path);
}

/* Checks a kernel's patch list against the expected numbers. */
static void
check_patches(const struct job_kernel *k, const int *want, size_t n)
{
	size_t i;

	assert_int_equal(k->kind, JOB_KERNEL_BUILD);
	assert_int_equal(k->npatches, n);
	for (i = 0; i < n; i++)
		assert_int_equal(k->patches[i], want[i]);
}

/* Checks a variant kernel: its name (with prefix) and its patches. */
static void
check_variant(const struct job_kernel *k, const char *prefix, const int *want,
    size_t n)
{
	char *name = kernels_variant_name(want, n), *full;

	full =
	    prefix != NULL ? xasprintf("%s %s", prefix, name) : xstrdup(name);
	assert_string_equal(k->name, full);
	check_patches(k, want, n);
	free(full);
	free(name);
}

/* The kernels of a series entry with the given extra YAML lines. */
static char *
entry(const struct fixture *f, const char *series, const char *extra)
{
	return xasprintf("  - git: linux\n    base: %s\n    series: %s\n%s",
	    f->base, series, extra);
}

/* "variants: cumulative" gives base, patch 1, patch 1+2, patch 1-3. */
static void
test_cumulative(void **state)
{
	static const int   all[] = { 1, 2, 3 };
	static const char *series[] = { "series.mbox", "patches" };
	struct fixture	  *f = *state;
	struct job	  *job;
	char		  *text, *want;
	size_t		   i, j;

	for (i = 0; i < 2; i++) {
		text = entry(f, series[i], "    variants: cumulative\n");
		job = load_kernels(f, text);
		assert_int_equal(job->nkernels, 4);
		want = xasprintf("%s/%s", f->dir, series[i]);
		for (j = 0; j < 4; j++) {
			check_variant(&job->kernels[j], NULL, all, j);
			assert_string_equal(job->kernels[j].series, want);
			assert_string_equal(job->kernels[j].base, f->base);
		}
		free(want);
		job_free(job);
		free(text);
	}
}

/* The names of a cumulative expansion are distinct, so none clash. */
static void
test_cumulative_names(void **state)
{
	static const int all[] = { 1, 2, 3 };
	char		*names[4];
	size_t		 i, j;

	(void)state;
	for (i = 0; i < 4; i++)
		names[i] = kernels_variant_name(all, i);
	for (i = 1; i < 4; i++)
		for (j = 0; j < i; j++)
			assert_string_not_equal(names[i], names[j]);
	for (i = 0; i < 4; i++)
		free(names[i]);
}

/* A name given with variants prefixes each variant's name. */
static void
test_variants_prefix(void **state)
{
	static const int all[] = { 1, 2, 3 };
	struct fixture	*f = *state;
	char		*text =
	    entry(f, "series.mbox", "    name: v2\n    variants: cumulative\n");
	struct job *job = load_kernels(f, text);
	size_t	    j;

	assert_int_equal(job->nkernels, 4);
	for (j = 0; j < 4; j++)
		check_variant(&job->kernels[j], "v2", all, j);
	job_free(job);
	free(text);
}

/* "variants: [[], [1], [1, 3]]" names exactly those subsets. */
static void
test_variants_subsets(void **state)
{
	static const int one[] = { 1 }, odd[] = { 1, 3 };
	struct fixture	*f = *state;
	char *text = entry(f, "patches", "    variants: [[], [1], [1, 3]]\n");
	struct job *job = load_kernels(f, text);

	assert_int_equal(job->nkernels, 3);
	check_variant(&job->kernels[0], NULL, NULL, 0);
	check_variant(&job->kernels[1], NULL, one, 1);
	check_variant(&job->kernels[2], NULL, odd, 2);
	job_free(job);
	free(text);
}

/* "patches": a count is the first N; a list is those; absent: all. */
static void
test_patches(void **state)
{
	static const int   two[] = { 1, 2 }, odd[] = { 1, 3 };
	static const int   all[] = { 1, 2, 3 };
	static const char *e[][2] = {
		{ "series.mbox", "    name: two\n    patches: 2\n" },
		{ "series.mbox", "    name: odd\n    patches: [1, 3]\n" },
		{ "series.mbox", "    name: whole\n" },
		{ "patches", "    name: dir\n" },
		{ "series.mbox", "    name: none\n    patches: 0\n" },
	};
	struct fixture *f = *state;
	char	       *text = xstrdup(""), *one, *next;
	struct job     *job;
	size_t		i;

	for (i = 0; i < sizeof e / sizeof e[0]; i++) {
		one = entry(f, e[i][0], e[i][1]);
		next = xasprintf("%s%s", text, one);
		free(one);
		free(text);
		text = next;
	}
	job = load_kernels(f, text);
	assert_int_equal(job->nkernels, 5);
	check_patches(job_find_kernel(job, "two"), two, 2);
	check_patches(job_find_kernel(job, "odd"), odd, 2);
	check_patches(job_find_kernel(job, "whole"), all, 3);
	check_patches(job_find_kernel(job, "dir"), all, 3);
	check_patches(job_find_kernel(job, "none"), NULL, 0);
	job_free(job);
	free(text);
}

/* Loads the paths job from another working directory. */
static struct job *
load_elsewhere(const struct fixture *f, const char *text)
{
	char	    cwd[PATH_MAX];
	struct job *job;

	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir("/"), 0);
	job = load_kernels(f, text);
	assert_int_equal(chdir(cwd), 0);
	return job;
}

/*
 * Relative paths are taken from the job file's directory, not the working
 * directory; a config that names a make target stays a target.
 */
static void
test_paths(void **state)
{
	struct fixture *f = *state;
	char	       *a = entry(f, "series.mbox",
		      "    name: file\n"
				"    config: lab.config\n"
				"    fragments: [conf/hz.config, nodebug.config]\n"
				"    arch: arm64\n    cross_compile: aarch64-linux-gnu-\n");
	char	       *b = entry(f, "patches",
		      "    name: target\n"
				"    config: tinyconfig\n");
	char *text = xasprintf("%s%s  - name: img\n    image: boot/vmlinuz\n"
			       "    initrd: boot/initrd.img\n"
			       "    modules: boot/modules.tar.gz\n",
		 a, b),
	     *p;
	struct job		*job = load_elsewhere(f, text);
	const struct job_kernel *k = job_find_kernel(job, "file");

	p = xasprintf("%s/linux", f->dir);
	assert_string_equal(k->git, p);
	free(p);
	p = xasprintf("%s/lab.config", f->dir);
	assert_string_equal(k->config, p);
	free(p);
	assert_int_equal(k->nfragments, 2);
	p = xasprintf("%s/conf/hz.config", f->dir);
	assert_string_equal(k->fragments[0], p);
	free(p);
	p = xasprintf("%s/nodebug.config", f->dir);
	assert_string_equal(k->fragments[1], p);
	free(p);
	assert_string_equal(k->arch, "arm64");
	assert_string_equal(k->cross_compile, "aarch64-linux-gnu-");
	k = job_find_kernel(job, "target");
	assert_string_equal(k->config, "tinyconfig");
	assert_null(k->arch);
	k = job_find_kernel(job, "img");
	assert_int_equal(k->kind, JOB_KERNEL_IMAGE);
	p = xasprintf("%s/boot/vmlinuz", f->dir);
	assert_string_equal(k->image, p);
	free(p);
	p = xasprintf("%s/boot/initrd.img", f->dir);
	assert_string_equal(k->initrd, p);
	free(p);
	p = xasprintf("%s/boot/modules.tar.gz", f->dir);
	assert_string_equal(k->modules, p);
	free(p);
	job_free(job);
	free(text);
	free(a);
	free(b);
}

/* A file in the job's directory named like a make target is the file. */
static void
test_config_file_named_like_target(void **state)
{
	struct fixture *f = *state;
	char	       *text = entry(f, "series.mbox",
		      "    config: kvm_guest.config\n"
				"    variants: [[]]\n");
	struct job     *job;
	char	       *p = xasprintf("%s/kvm_guest.config", f->dir);

	job = load_kernels(f, text);
	assert_string_equal(job->kernels[0].config, "kvm_guest.config");
	job_free(job);
	sh("echo CONFIG_KVM_GUEST=y > %s", p);
	job = load_kernels(f, text);
	assert_string_equal(job->kernels[0].config, p);
	job_free(job);
	sh("rm -f %s", p);
	free(p);
	free(text);
}

/* Errors in patch numbers: beyond the series, not ascending. */
static void
test_errors_patch_numbers(void **state)
{
	struct fixture *f = *state;
	char	       *text;

	text = entry(f, "series.mbox",
	    "    name: k\n"
	    "    variants: [[1], [2, 4]]\n");
	load_fails(f, text, "4]",
	    "kernel \"k\": patch 4, but the series "
	    "has 3");
	free(text);
	text = entry(f, "patches",
	    "    name: k\n"
	    "    variants: [[1, 2, 3, 4]]\n");
	load_fails(f, text, "4]",
	    "kernel \"k\": patch 4, but the series "
	    "has 3");
	free(text);
	text = entry(f, "patches", "    name: k\n    patches: [2, 1]\n");
	load_fails(f, text, "1]",
	    "kernel \"k\": patch numbers must be "
	    "ascending and unique");
	free(text);
	text = entry(f, "patches", "    name: k\n    variants: [[1, 1]]\n");
	load_fails(f, text, "1]]",
	    "kernel \"k\": patch numbers must be "
	    "ascending and unique");
	free(text);
	text = entry(f, "patches", "    name: k\n    patches: [0]\n");
	load_fails(f, text, "0]",
	    "\"patches\" must be a number from 1 to 10000, not \"0\"");
	free(text);
}

/* Errors in how variants are combined with other keys. */
static void
test_errors_variants(void **state)
{
	struct fixture *f = *state;
	char	       *text;

	text = entry(f, "series.mbox",
	    "    name: k\n    patches: 2\n"
	    "    variants: cumulative\n");
	load_fails(f, text, "variants",
	    "kernel \"k\": \"variants\" and "
	    "\"patches\" are exclusive");
	free(text);
	text = xstrdup("  - name: k\n    image: vmlinuz\n"
		       "    variants: cumulative\n");
	load_fails(f, text, "variants",
	    "kernel \"k\": \"variants\" needs "
	    "\"git\"");
	free(text);
	text = entry(f, "series.mbox", "    name: k\n    variants: sideways\n");
	load_fails(f, text, "sideways",
	    "kernel \"k\": \"variants\" must be "
	    "\"cumulative\" or a list of patch lists");
	free(text);
}

/* A series that cannot be read, with variants, names the file and why. */
static void
test_errors_series(void **state)
{
	struct fixture *f = *state;
	char	       *text, *msg;

	text = entry(f, "missing.mbox",
	    "    name: k\n"
	    "    variants: cumulative\n");
	msg = xasprintf("kernel \"k\": %s/missing.mbox: No such file or "
			"directory",
	    f->dir);
	load_fails(f, text, "missing.mbox", msg);
	free(msg);
	free(text);
	text = entry(f, "notes.txt", "    name: k\n    variants: [[]]\n");
	msg = xasprintf("kernel \"k\": %s/notes.txt: no patches found", f->dir);
	load_fails(f, text, "notes.txt", msg);
	free(msg);
	free(text);
}

/* An arch other than x86_64 and arm64 is refused at the kernel. */
static void
test_errors_arch(void **state)
{
	struct fixture *f = *state;
	char	       *text = xasprintf("  - name: k\n    git: linux\n"
						   "    base: %s\n    arch: riscv\n",
		      f->base);

	load_fails(f, text, "name: k",
	    "kernel \"k\": arch \"riscv\" is not "
	    "supported (x86_64, arm64)");
	free(text);
}

/* Two variant entries that name the same subset clash at the second. */
static void
test_errors_duplicate(void **state)
{
	static const int two[] = { 1, 2 };
	struct fixture	*f = *state;
	char *a = entry(f, "series.mbox", "    variants: cumulative\n");
	char *b = entry(f, "patches", "    variants: [[1, 2], [3]]\n");
	char *text = xasprintf("%s%s", a, b), *name, *msg;

	name = kernels_variant_name(two, 2);
	msg = xasprintf("duplicate kernel \"%s\"", name);
	/* The second entry's mapping starts at its "git" key. */
	load_fails(f, text, b + 4, msg);
	free(msg);
	free(name);
	free(text);
	free(a);
	free(b);
}

/* Returns a kernel's JSON object from a job's JSON (caller decrefs). */
static json_t *
kernel_json(const char *json, size_t i)
{
	json_t *root = json_loads(json, 0, NULL), *k;

	assert_non_null(root);
	k = json_array_get(json_object_get(root, "kernels"), i);
	assert_non_null(k);
	json_incref(k);
	json_decref(root);
	return k;
}

/* Checks the round trip kept a kernel's build fields. */
static void
check_same_kernel(const struct job_kernel *a, const struct job_kernel *b)
{
	size_t i;

	assert_string_equal(a->name, b->name);
	assert_int_equal(a->kind, b->kind);
	assert_string_equal(a->git, b->git);
	assert_string_equal(a->base, b->base);
	assert_string_equal(a->series, b->series);
	check_patches(b, a->patches, a->npatches);
	assert_string_equal(a->config, b->config);
	assert_int_equal(a->nfragments, b->nfragments);
	for (i = 0; i < a->nfragments; i++)
		assert_string_equal(a->fragments[i], b->fragments[i]);
	assert_string_equal(a->arch, b->arch);
	assert_string_equal(a->cross_compile, b->cross_compile);
}

/* The JSON form keeps patches, fragments, arch and cross_compile. */
static void
test_json_round_trip(void **state)
{
	struct fixture *f = *state;
	char	       *text = entry(f, "series.mbox",
		      "    name: k\n"
				"    config: lab.config\n    fragments: [nodebug.config]\n"
				"    arch: arm64\n    cross_compile: aarch64-linux-gnu-\n"
				"    variants: [[1, 3], [2]]\n");
	struct job     *job = load_kernels(f, text), *back;
	char	       *json = job_to_json(job), *json2, *cause = NULL;
	json_t	       *k = kernel_json(json, 0);
	size_t		i;

	assert_int_equal(json_integer_value(
			     json_array_get(json_object_get(k, "patches"), 1)),
	    3);
	json_decref(k);
	if ((back = job_from_json(json, &cause)) == NULL)
		fail_msg("from_json: %s\n%s", cause, json);
	assert_int_equal(back->nkernels, 2);
	for (i = 0; i < 2; i++)
		check_same_kernel(&job->kernels[i], &back->kernels[i]);
	json2 = job_to_json(back);
	assert_string_equal(json, json2);
	free(json2);
	free(json);
	job_free(back);
	job_free(job);
	free(text);
}

/* A job stored before patch lists, with "patches": 2, reads as [1, 2]. */
static void
test_json_old_count(void **state)
{
	static const int two[] = { 1, 2 };
	struct fixture	*f = *state;
	char *text = entry(f, "series.mbox", "    name: k\n"), *json, *old;
	char *cause = NULL;
	struct job *job = load_kernels(f, text), *back;
	json_t	   *root;

	json = job_to_json(job);
	root = json_loads(json, 0, NULL);
	assert_non_null(root);
	json_object_set_new(json_array_get(json_object_get(root, "kernels"), 0),
	    "patches", json_integer(2));
	old = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
	assert_non_null(strstr(old, "\"patches\":2"));
	if ((back = job_from_json(old, &cause)) == NULL)
		fail_msg("from_json: %s\n%s", cause, old);
	check_patches(&back->kernels[0], two, 2);
	job_free(back);
	json_decref(root);
	free(old);
	free(json);
	job_free(job);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cumulative),
		cmocka_unit_test(test_cumulative_names),
		cmocka_unit_test(test_variants_prefix),
		cmocka_unit_test(test_variants_subsets),
		cmocka_unit_test(test_patches),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_config_file_named_like_target),
		cmocka_unit_test(test_errors_patch_numbers),
		cmocka_unit_test(test_errors_variants),
		cmocka_unit_test(test_errors_series),
		cmocka_unit_test(test_errors_arch),
		cmocka_unit_test(test_errors_duplicate),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_old_count),
	};

	return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
