/*
 * Boot verification: version strings read from real Debian kernel images
 * (the lab's kernel cache) and facts compared against expectations.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "machines/agent_client.h"
#include "machines/verify.h"
#include "tests/lib/skip.h"

/* The lab's kernel cache: one directory per release, as Debian names it. */
static const char *
cache_dir(void)
{
	const char *d = getenv("HILAB_KERNEL_CACHE");

	return d != NULL ? d : "/var/cache/hilab/kernels";
}

/*
 * Each image cached in dir reports the release its package is named
 * after and is of arch; returns how many there were.
 */
static int
images_in(const char *dir, const char *arch)
{
	char	      *path, *release, *version, *cause = NULL;
	struct dirent *de;
	int	       seen = 0;
	DIR	      *d;

	if ((d = opendir(dir)) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		path = xasprintf("%s/%s/boot/vmlinuz-%s", dir, de->d_name,
		    de->d_name);
		/* Other cache entries (kernel builds) hold no release. */
		if (access(path, F_OK) != 0) {
			free(path);
			continue;
		}
		assert_string_equal(verify_image_arch(path), arch);
		if (verify_image_version(path, &release, &version, &cause) != 0)
			fail_msg("%s", cause);
		assert_string_equal(release, de->d_name);
		assert_true(version[0] == '#' && version[1] != ' ');
		assert_non_null(strstr(version, "SMP"));
		free(release);
		free(version);
		free(path);
		seen++;
	}
	closedir(d);
	return seen;
}

/* The x86 bzImages' boot headers and the arm64 Images' banners. */
static void
test_image_version(void **state)
{
	char *arm64 = xasprintf("%s/arm64", cache_dir());
	int   x86 = images_in(cache_dir(), "x86_64");
	int   a64 = images_in(arm64, "aarch64");

	(void)state;
	free(arm64);
	if (x86 == 0)
		skip_machine("no kernels in the lab's cache %s (scripts/lab.sh "
			     "up or scripts/lab.sh kernels fetches them)",
		    cache_dir());
	printf("%d x86 and %d arm64 images\n", x86, a64);
}

/* A file that is no kernel image is refused with its name. */
static void
test_not_an_image(void **state)
{
	char *release, *version, *cause = NULL;

	(void)state;
	assert_int_equal(verify_image_version("/bin/sh", &release, &version,
			     &cause),
	    -1);
	assert_null(verify_image_arch("/bin/sh"));
	assert_non_null(strstr(cause, "\"/bin/sh\": no version string"));
	free(cause);
	cause = NULL;
	assert_int_equal(verify_image_version("/nonexistent", &release,
			     &version, &cause),
	    -1);
	assert_non_null(strstr(cause, "No such file"));
	free(cause);
}

/* LLC groups match as sets of groups, whatever their order. */
static void
test_cpugroups(void **state)
{
	(void)state;
	assert_true(verify_cpugroups_same("0-3;4-7", "0-3;4-7"));
	assert_true(verify_cpugroups_same("4-7;0-3", "0-3;4-7"));
	assert_true(verify_cpugroups_same("0-1", "0-1"));
	assert_false(verify_cpugroups_same("0-3;4-7", "0-7"));
	assert_false(verify_cpugroups_same("0;1", "0-1"));
	assert_false(verify_cpugroups_same("0-3;4-7", "0-3;4-6"));
}

/* Facts as the agent reports them. */
static struct agent_facts *
facts_make(const char *release, const char *version, const char *cmdline)
{
	struct agent_facts *f = xcalloc(1, sizeof *f);

	f->n = 3;
	f->v = xcalloc(3, sizeof *f->v);
	f->v[0].key = xstrdup("kernel.release");
	f->v[0].value = xstrdup(release);
	f->v[1].key = xstrdup("kernel.version");
	f->v[1].value = xstrdup(version);
	f->v[2].key = xstrdup("kernel.cmdline");
	f->v[2].value = cmdline ? xstrdup(cmdline) : NULL;
	return f;
}

static void
facts_free(struct agent_facts *f)
{
	agent_facts_clear(f);
	free(f);
}

/* Release exact, version contained, every cmdline word present. */
static void
test_facts(void **state)
{
	struct agent_facts  *f = facts_make("6.1.0-57-cloud-amd64",
	     "#1 SMP PREEMPT_DYNAMIC Debian 6.1.158-1",
	     "BOOT_IMAGE=x console=ttyS0 panic=1 rt_group_sched=0");
	struct verify_expect e = { "base", "6.1.0-57-cloud-amd64",
		"Debian 6.1.158-1", "rt_group_sched=0 panic=1" };
	char		    *cause = NULL;

	(void)state;
	assert_int_equal(verify_facts(f, &e, &cause), 0);
	e.release = "6.1.0-56-cloud-amd64";
	assert_int_equal(verify_facts(f, &e, &cause), -1);
	assert_string_equal(cause,
	    "kernel \"base\": uname -r is "
	    "\"6.1.0-57-cloud-amd64\", expected \"6.1.0-56-cloud-amd64\"");
	free(cause);
	e.release = NULL;
	e.cmdline = "rt_group_sched=1";
	assert_int_equal(verify_facts(f, &e, &cause), -1);
	assert_non_null(strstr(cause, "lacks \"rt_group_sched=1\""));
	free(cause);
	/* A word must match whole: "panic=1" is not "panic=10". */
	e.cmdline = "panic=10";
	assert_int_equal(verify_facts(f, &e, &cause), -1);
	free(cause);
	facts_free(f);
	f = facts_make("r", "v", NULL);
	e.version = NULL;
	e.cmdline = "quiet";
	assert_int_equal(verify_facts(f, &e, &cause), -1);
	assert_non_null(strstr(cause, "(absent)"));
	free(cause);
	facts_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_image_version),
		cmocka_unit_test(test_not_an_image),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_cpugroups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
