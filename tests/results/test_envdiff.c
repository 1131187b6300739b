/*
 * Environment notes on facts captured from the real agent (hilab-agent
 * facts, run at test time) with one value changed at a time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/envdiff.h"
#include "tests/lib/skip.h"

static json_t *host; /* the captured facts, as hilabd stores them */

/* Runs the agent and reads its facts; absent ones are null. */
static int
capture(void **state)
{
	const char *b = getenv("HILAB_BUILDDIR");
	char	    line[8192], *cmd, *eq;
	size_t	    len;
	FILE	   *fp;

	(void)state;
	if (b == NULL)
		return -1;
	cmd = xasprintf("%s/agents/hilab-agent facts", b);
	fp = popen(cmd, "r");
	free(cmd);
	if (fp == NULL)
		return -1;
	host = json_object();
	while (fgets(line, sizeof line, fp) != NULL) {
		len = strcspn(line, "\n");
		line[len] = '\0';
		if ((eq = strchr(line, '=')) != NULL) {
			*eq = '\0';
			json_object_set_new(host, line, json_string(eq + 1));
		} else if (len > 9 &&
		    strcmp(line + len - 9, " (absent)") == 0) {
			line[len - 9] = '\0';
			json_object_set_new(host, line, json_null());
		}
	}
	return pclose(fp) == 0 && json_object_size(host) > 10 ? 0 : -1;
}

static int
release(void **state)
{
	(void)state;
	json_decref(host);
	return 0;
}

/* The host's facts with key set to value (NULL: absent), as text. */
static char *
facts_with(const char *key, const char *value)
{
	json_t *o = json_deep_copy(host);
	char   *s;

	if (key != NULL)
		json_object_set_new(o, key,
		    value ? json_string(value) : json_null());
	s = json_dumps(o, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(o);
	return s;
}

/* A fact of the host shown as a note shows it: "value" or absent. */
static char *
shown(const char *key)
{
	const char *v = json_string_value(json_object_get(host, key));

	return v ? xasprintf("\"%s\"", v) : xstrdup("absent");
}

/* Adds n runs of a column with key changed (key NULL: the host as is). */
static void
add_runs(struct envdiff *e, const char *col, int n, const char *key,
    const char *value, const char *asked)
{
	char   *f, *boot, *cause = NULL;
	json_t *o;
	int	i;

	for (i = 0; i < n; i++) {
		f = facts_with(key, value);
		o = json_loads(f, 0, NULL);
		boot = xasprintf("boot-%s-%d", col, i);
		json_object_set_new(o, "boot_id", json_string(boot));
		free(f);
		f = json_dumps(o, JSON_COMPACT);
		assert_int_equal(envdiff_add(e, col, f, asked, &cause), 0);
		json_decref(o);
		free(boot);
		free(f);
	}
}

/* Returns the notes as one string, one per line (caller frees). */
static char *
notes(const struct envdiff *e, size_t *n)
{
	char **v, *s = xstrdup(""), *t;
	size_t i;

	*n = envdiff_notes(e, &v);
	for (i = 0; i < *n; i++) {
		t = xasprintf("%s%s\n", s, v[i]);
		free(s);
		free(v[i]);
		s = t;
	}
	free(v);
	return s;
}

/* A value different from the host's for key. */
static const char *
other(const char *key, const char *a, const char *b)
{
	const char *v = json_string_value(json_object_get(host, key));

	return v != NULL && strcmp(v, a) == 0 ? b : a;
}

static void
test_same_host_no_notes(void **state)
{
	struct envdiff *e = envdiff_new(ENVDIFF_KERNELS);
	size_t		n;
	char	       *s;

	(void)state;
	add_runs(e, "base", 3, NULL, NULL, NULL);
	add_runs(e, "patch 1", 3, NULL, NULL, NULL);
	s = notes(e, &n);
	assert_string_equal(s, "");
	assert_int_equal(n, 0);
	free(s);
	envdiff_free(e);
}

static void
test_governor_differs(void **state)
{
	struct envdiff *e = envdiff_new(ENVDIFF_KERNELS);
	const char *gov = other("cpufreq.governor", "powersave", "performance");
	char	   *s, *want, *h = shown("cpufreq.governor");
	size_t	    n;

	(void)state;
	add_runs(e, "base", 2, NULL, NULL, NULL);
	add_runs(e, "patch 1", 2, "cpufreq.governor", gov, NULL);
	s = notes(e, &n);
	want = xasprintf("environment differs: cpufreq.governor is %s for "
			 "base, \"%s\" for patch 1\n",
	    h, gov);
	assert_string_equal(s, want);
	free(s), free(want), free(h);
	envdiff_free(e);
}

static void
test_absent_vs_present(void **state)
{
	struct envdiff *e = envdiff_new(ENVDIFF_KERNELS);
	const char     *thp =
	    json_string_value(json_object_get(host, "thp.enabled"));
	char  *s, *want;
	size_t n;

	(void)state;
	add_runs(e, "base", 1, NULL, NULL, NULL);
	add_runs(e, "patch 1", 1, "thp.enabled", thp ? NULL : "always", NULL);
	s = notes(e, &n);
	want = thp
	    ? xasprintf("environment differs: thp.enabled is \"%s\" "
			"for base, absent for patch 1\n",
		  thp)
	    : xstrdup("environment differs: thp.enabled is absent for base, "
		      "\"always\" for patch 1\n");
	assert_string_equal(s, want);
	free(s), free(want);
	envdiff_free(e);
}

static void
test_release_follows_kernel(void **state)
{
	struct envdiff *e = envdiff_new(ENVDIFF_KERNELS);
	char	       *s;
	size_t		n;

	(void)state;
	add_runs(e, "base", 2, NULL, NULL, NULL);
	add_runs(e, "patch 1", 2, "kernel.release", "6.99.0-test", NULL);
	s = notes(e, &n);
	assert_int_equal(n, 0);
	free(s);
	envdiff_free(e);
	/* Between jobs on the same kernel it is a difference. */
	e = envdiff_new(ENVDIFF_JOBS);
	add_runs(e, "job 1", 1, NULL, NULL, NULL);
	add_runs(e, "job 2", 1, "kernel.release", "6.99.0-test", NULL);
	s = notes(e, &n);
	assert_int_equal(n, 1);
	assert_non_null(strstr(s, "kernel.release is \""));
	assert_non_null(strstr(s, "\"6.99.0-test\" for job 2"));
	free(s);
	envdiff_free(e);
}

static void
test_cmdline_asked_and_boot_image(void **state)
{
	const char *cmd =
	    json_string_value(json_object_get(host, "kernel.cmdline"));
	struct envdiff *e;
	char	       *patched, *s;
	size_t		n;

	(void)state;
	assert_non_null(cmd);
	patched =
	    xasprintf("BOOT_IMAGE=/boot/vmlinuz-patch1 %s isolcpus=1", cmd);
	e = envdiff_new(ENVDIFF_KERNELS);
	add_runs(e, "base", 1, NULL, NULL, NULL);
	add_runs(e, "patch 1", 1, "kernel.cmdline", patched, "isolcpus=1");
	s = notes(e, &n);
	assert_string_equal(s, "");
	free(s);
	envdiff_free(e);
	/* Not asked for: flagged, showing only the extra word. */
	e = envdiff_new(ENVDIFF_KERNELS);
	add_runs(e, "base", 1, NULL, NULL, NULL);
	add_runs(e, "patch 1", 1, "kernel.cmdline", patched, NULL);
	s = notes(e, &n);
	assert_string_equal(s,
	    "environment differs: kernel.cmdline is "
	    "\"...\" for base, \"... isolcpus=1\" for patch 1\n");
	free(s);
	envdiff_free(e);
	free(patched);
}

static void
test_within_column(void **state)
{
	struct envdiff *e = envdiff_new(ENVDIFF_KERNELS);
	const char     *smt = other("smt.active", "1", "0");
	char	       *s, *want, *h = shown("smt.active");
	size_t		n;

	(void)state;
	add_runs(e, "base", 2, NULL, NULL, NULL);
	add_runs(e, "base", 1, "smt.active", smt, NULL);
	add_runs(e, "patch 1", 3, NULL, NULL, NULL);
	s = notes(e, &n);
	want = xasprintf("environment differs within base: smt.active is %s "
			 "in 2 runs, \"%s\" in 1 run\n",
	    h, smt);
	assert_string_equal(s, want);
	free(s), free(want), free(h);
	envdiff_free(e);
}

/* MemTotal moves by a few KiB between boots: never an environment note. */
static void
test_memtotal_per_boot(void **state)
{
	struct envdiff *e = envdiff_new(ENVDIFF_KERNELS);
	char	       *s;
	size_t		n;

	(void)state;
	add_runs(e, "base", 2, NULL, NULL, NULL);
	add_runs(e, "base", 1, "mem.total_kb", "12", NULL);
	add_runs(e, "patch 1", 3, "mem.total_kb", "24", NULL);
	s = notes(e, &n);
	assert_int_equal(n, 0);
	free(s);
	envdiff_free(e);
}

static void
test_machines_columns(void **state)
{
	struct envdiff *e = envdiff_new(ENVDIFF_MACHINES);
	const char *gov = other("cpufreq.governor", "schedutil", "ondemand");
	char	   *s, *h = shown("cpufreq.governor"), *want;
	json_t	   *o;
	size_t	    n;
	char	   *f, *cause = NULL;

	(void)state;
	add_runs(e, "epyc", 1, NULL, NULL, NULL);
	o = json_deep_copy(host);
	json_object_set_new(o, "cpu.model", json_string("Ampere Altra"));
	json_object_set_new(o, "topo.sockets", json_string("2"));
	json_object_set_new(o, "cpufreq.governor", json_string(gov));
	f = json_dumps(o, JSON_COMPACT);
	assert_int_equal(envdiff_add(e, "altra", f, NULL, &cause), 0);
	s = notes(e, &n);
	want = xasprintf("environment differs: cpufreq.governor is %s for "
			 "epyc, \"%s\" for altra\n",
	    h, gov);
	assert_string_equal(s, want);
	free(s), free(h), free(want), free(f);
	json_decref(o);
	envdiff_free(e);
}

/* The last ';' that separates two mitigation entries. */
static const char *
last_entry(const char *m)
{
	const char *p, *last = m;

	for (p = m; *p != '\0'; p++) {
		if (*p == ';' && p[1] != ' ')
			last = p + 1;
	}
	return last;
}

static void
test_mitigations_item(void **state)
{
	const char *m = json_string_value(json_object_get(host, "mitigations"));
	struct envdiff *e;
	const char     *last;
	char	       *changed, *name, *s, *want;
	size_t		n;

	(void)state;
	if (m == NULL || strchr(m, ';') == NULL)
		skip_machine("this host reports fewer than two mitigations");
	last = last_entry(m);
	name = xstrndup(last, strcspn(last, "="));
	changed = xasprintf("%.*s%s=Vulnerable", (int)(last - m), m, name);
	e = envdiff_new(ENVDIFF_KERNELS);
	add_runs(e, "base", 1, NULL, NULL, NULL);
	add_runs(e, "patch 1", 1, "mitigations", changed, NULL);
	s = notes(e, &n);
	want = xasprintf("environment differs: mitigations is \"...; %s\" "
			 "for base, \"...; %s=Vulnerable\" for patch 1\n",
	    last, name);
	assert_string_equal(s, want);
	free(s), free(want), free(name), free(changed);
	envdiff_free(e);
}

static void
test_bad_facts(void **state)
{
	struct envdiff *e = envdiff_new(ENVDIFF_KERNELS);
	char	       *cause = NULL;

	(void)state;
	assert_int_equal(envdiff_add(e, "base", "[1, 2]", NULL, &cause), -1);
	assert_non_null(strstr(cause, "facts of \"base\": not a JSON object"));
	free(cause);
	envdiff_free(e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_host_no_notes),
		cmocka_unit_test(test_governor_differs),
		cmocka_unit_test(test_absent_vs_present),
		cmocka_unit_test(test_release_follows_kernel),
		cmocka_unit_test(test_cmdline_asked_and_boot_image),
		cmocka_unit_test(test_within_column),
		cmocka_unit_test(test_memtotal_per_boot),
		cmocka_unit_test(test_machines_columns),
		cmocka_unit_test(test_mitigations_item),
		cmocka_unit_test(test_bad_facts),
	};

	return cmocka_run_group_tests(tests, capture, release);
}
