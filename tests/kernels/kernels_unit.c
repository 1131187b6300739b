/*
 * Unit tests of kernels/: series reading (mbox and patch directories made by
 * real git at test time), config fragment merging, variant names, cache keys
 * and git am in a worktree, conflicts included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "kernels/cache.h"
#include "kernels/kconfig.h"
#include "kernels/kernels.h"
#include "kernels/series.h"
#include "kernels/worktree.h"

/* A scratch directory with a git repository and a series made in it. */
struct fixture {
	char *dir;
	char *repo;
	char *base;    /* commit id */
	char *mbox;    /* format-patch --cover-letter --stdout */
	char *patches; /* format-patch -o of the same commits */
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
	rc = system(cmd);
	if (rc != 0)
		fail_msg("command failed (%d): %s", rc, cmd);
	free(cmd);
}

/* Reads a whole file. */
static char *
slurp(const char *path, size_t *len)
{
	FILE  *f = fopen(path, "rb");
	char  *buf = NULL;
	size_t size = 0;
	FILE  *m = open_memstream(&buf, &size);
	int    ch;

	assert_non_null(f);
	while ((ch = getc(f)) != EOF)
		putc(ch, m);
	fclose(m);
	fclose(f);
	if (len != NULL)
		*len = size;
	return buf;
}

#define GIT                                                 \
	"git -c user.name=Dev -c user.email=dev@localhost " \
	"-c init.defaultBranch=main"

/*
 * Makes a repository with a base commit and two patches on it: patch 1
 * edits a.txt, patch 2 b.txt; then writes them as an mbox and a directory.
 */
static int
fixture_setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof *f);
	char		tmpl[] = "/tmp/kernels-unit.XXXXXX";
	char	       *path;

	assert_non_null(mkdtemp(tmpl));
	f->dir = xstrdup(tmpl);
	f->repo = xasprintf("%s/repo", f->dir);
	f->mbox = xasprintf("%s/series.mbox", f->dir);
	f->patches = xasprintf("%s/patches", f->dir);
	sh("cd %s && " GIT " init -q repo && cd repo && "
	   "printf 'a1\\na2\\na3\\n' > a.txt && "
	   "printf 'b1\\nb2\\nb3\\n' > b.txt && git add . && " GIT
	   " commit -q -m base && git rev-parse HEAD > ../base && "
	   "sed -i s/a2/A2/ a.txt && " GIT " commit -q -am 'a: shout a2' && "
	   "sed -i s/b2/B2/ b.txt && " GIT " commit -q -am 'b: shout b2' && "
	   "git format-patch -q --cover-letter --stdout HEAD~2 > %s && "
	   "git format-patch -q --cover-letter -o %s HEAD~2",
	    f->dir, f->mbox, f->patches);
	path = xasprintf("%s/base", f->dir);
	f->base = slurp(path, NULL);
	f->base[strcspn(f->base, "\n")] = '\0';
	free(path);
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
	free(f->repo);
	free(f->base);
	free(f->mbox);
	free(f->patches);
	free(f);
	return 0;
}

/* Loads a series that must parse. */
static struct series *
load_ok(const char *path)
{
	char	      *cause = NULL;
	struct series *s = series_load(path, &cause);

	if (s == NULL)
		fail_msg("%s", cause);
	return s;
}

/* Loads a series that must fail; returns the cause (caller frees). */
static char *
load_fail(const char *path)
{
	char	      *cause = NULL;
	struct series *s = series_load(path, &cause);

	assert_null(s);
	assert_non_null(cause);
	return cause;
}

/* The mbox as git format-patch writes it: cover letter skipped, in order. */
static void
test_series_mbox(void **state)
{
	struct fixture *f = *state;
	struct series  *s = load_ok(f->mbox);

	assert_int_equal(s->n, 2);
	assert_int_equal(s->patches[0].number, 1);
	assert_string_equal(s->patches[0].subject, "a: shout a2");
	assert_int_equal(s->patches[1].number, 2);
	assert_string_equal(s->patches[1].subject, "b: shout b2");
	assert_int_equal(s->patches[0].message, 2);
	assert_string_equal(s->patches[0].file, f->mbox);
	assert_non_null(strstr(s->patches[1].text, "+B2"));
	assert_string_not_equal(s->patches[0].hash, s->patches[1].hash);
	assert_int_equal(strlen(s->patches[0].hash), SERIES_HASH_LEN);
	series_free(s);
}

/*
 * Messages out of order with a reply in between, as a list archive gives
 * them, read the same as the ordered mbox; so does the patch directory.
 */
static void
test_series_shuffled(void **state)
{
	struct fixture *f = *state;
	char	       *shuffled = xasprintf("%s/shuffled.mbox", f->dir);
	struct series  *s, *ordered, *dir;
	size_t		i;

	sh("cd %s && cat 0002-*.patch > %s && "
	   "printf 'From nobody Mon Sep 17 00:00:00 2001\\nFrom: Reviewer "
	   "<r@localhost>\\nSubject: Re: [PATCH 1/2] a: shout a2\\n\\n"
	   "> -a2\\n> +A2\\nLooks fine.\\n' >> %s && "
	   "cat 0000-cover-letter.patch 0001-*.patch >> %s",
	    f->patches, shuffled, shuffled, shuffled);
	s = load_ok(shuffled);
	ordered = load_ok(f->mbox);
	dir = load_ok(f->patches);
	assert_int_equal(s->n, 2);
	assert_int_equal(dir->n, 2);
	for (i = 0; i < 2; i++) {
		assert_int_equal(s->patches[i].number, (int)i + 1);
		assert_string_equal(s->patches[i].hash,
		    ordered->patches[i].hash);
		assert_string_equal(dir->patches[i].hash,
		    ordered->patches[i].hash);
		assert_string_equal(dir->patches[i].subject,
		    ordered->patches[i].subject);
	}
	assert_int_equal(s->patches[0].message, 4);
	assert_non_null(strstr(dir->patches[1].file, "0002-"));
	series_free(s);
	series_free(ordered);
	series_free(dir);
	free(shuffled);
}

/* A missing or repeated patch is an error naming the file and message. */
static void
test_series_errors(void **state)
{
	struct fixture *f = *state;
	char	       *missing = xasprintf("%s/missing.mbox", f->dir);
	char	       *dup = xasprintf("%s/dup.mbox", f->dir), *cause;

	sh("cd %s && cat 0000-cover-letter.patch 0001-*.patch > %s && "
	   "cat 0001-*.patch 0001-*.patch 0002-*.patch > %s",
	    f->patches, missing, dup);
	cause = load_fail(missing);
	assert_non_null(strstr(cause, missing));
	assert_non_null(strstr(cause, "patch 2/2 missing"));
	free(cause);
	cause = load_fail(dup);
	assert_non_null(strstr(cause, dup));
	assert_non_null(strstr(cause, "message 2: duplicate patch 1/2"));
	free(cause);
	cause = load_fail("/nonexistent/series.mbox");
	assert_non_null(strstr(cause, "/nonexistent/series.mbox: No such"));
	free(cause);
	free(missing);
	free(dup);
}

/* Parses config text that must parse. */
static struct kconfig *
kparse(const char *text)
{
	char	       *cause = NULL;
	struct kconfig *c = kconfig_parse("test.config", text, &cause);

	if (c == NULL)
		fail_msg("%s", cause);
	return c;
}

/* Fragments merge like merge_config.sh: later values win, "not set" too. */
static void
test_kconfig_merge(void **state)
{
	struct kconfig *c =
	    kparse("#\n# Linux/x86 6.1 Kernel Configuration\n"
		   "CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"x y\"\n\n");
	struct kconfig *f1 = kparse("CONFIG_B=y\nCONFIG_D=m\n");
	struct kconfig *f2 = kparse("# CONFIG_A is not set\nCONFIG_D=y\n"
				    "CONFIG_E=64\n");
	char	       *text;

	(void)state;
	assert_int_equal(c->n, 3);
	assert_int_equal(kconfig_merge(c, f1), 1);
	assert_int_equal(kconfig_merge(c, f2), 2);
	text = kconfig_format(c);
	assert_string_equal(text,
	    "# CONFIG_A is not set\nCONFIG_B=y\n"
	    "CONFIG_C=\"x y\"\nCONFIG_D=y\nCONFIG_E=64\n");
	free(text);
	kconfig_free(c);
	kconfig_free(f1);
	kconfig_free(f2);
}

/* What olddefconfig dropped is reported; absent counts as not set. */
static void
test_kconfig_unmet(void **state)
{
	struct kconfig *want = kparse("CONFIG_A=y\n# CONFIG_B is not set\n"
				      "CONFIG_C=y\n# CONFIG_Z is not set\n");
	struct kconfig *have = kparse("CONFIG_A=y\nCONFIG_B=y\n");
	char	       *unmet = kconfig_unmet(want, have), *cause = NULL;

	(void)state;
	assert_string_equal(unmet,
	    "CONFIG_B: requested not set, got y\n"
	    "CONFIG_C: requested y, got not set");
	free(unmet);
	assert_null(kconfig_unmet(have, have));
	assert_null(kconfig_parse("frag.config", "CONFIG_A=y\nA=y\n", &cause));
	assert_string_equal(cause,
	    "frag.config:2: not a config line: "
	    "\"A=y\"");
	free(cause);
	kconfig_free(want);
	kconfig_free(have);
}

/* Checks one variant name. */
static void
name_is(const int *patches, size_t n, const char *want)
{
	char *s = kernels_variant_name(patches, n);

	assert_string_equal(s, want);
	free(s);
}

/* Variants are named as tables show them. */
static void
test_variant_names(void **state)
{
	static const int p12345[] = { 1, 2, 3, 4, 5 }, p2[] = { 2 };
	static const int p13[] = { 1, 3 }, p1245[] = { 1, 2, 4, 5, 6 };

	(void)state;
	name_is(NULL, 0, "base");
	name_is(p12345, 1, "patch 1");
	name_is(p12345, 2, "patch 1+2");
	name_is(p12345, 3, "patch 1-3");
	name_is(p12345, 5, "patch 1-5");
	name_is(p2, 1, "patch 2");
	name_is(p13, 2, "patch 1+3");
	name_is(p1245, 5, "patch 1+2+4-6");
}

/* Returns the cache key of a series' patches with the other parts fixed. */
static char *
key_of(const struct series *s, const char *arch, const char *config)
{
	const char	*hashes[8], *configs[] = { config };
	struct cache_key k = { .base = "0123abcd",
		.patches = hashes,
		.npatches = s->n,
		.configs = configs,
		.nconfigs = 1,
		.arch = arch,
		.cross_compile = "",
		.compiler = "gcc 12.2.0" };
	size_t		 i;

	for (i = 0; i < s->n && i < 8; i++)
		hashes[i] = s->patches[i].hash;
	return cache_key_hash(&k);
}

/* One changed byte in patch 2 changes its hash and the cache key. */
static void
test_cache_key(void **state)
{
	struct fixture *f = *state;
	struct series  *s = load_ok(f->mbox), *t;
	char	       *text, *k1, *k2, *p, *cause = NULL;
	size_t		len;

	text = slurp(f->mbox, &len);
	t = series_parse("copy.mbox", text, len, &cause);
	assert_non_null(t);
	k1 = key_of(s, "x86_64", "CONFIG_A=y\n");
	k2 = key_of(t, "x86_64", "CONFIG_A=y\n");
	assert_string_equal(k1, k2);
	free(k2);
	series_free(t);
	assert_non_null(p = strstr(text, "+B2"));
	p[2] = '3';
	t = series_parse("copy.mbox", text, len, &cause);
	assert_non_null(t);
	assert_string_equal(t->patches[0].hash, s->patches[0].hash);
	assert_string_not_equal(t->patches[1].hash, s->patches[1].hash);
	k2 = key_of(t, "x86_64", "CONFIG_A=y\n");
	assert_string_not_equal(k1, k2);
	free(k2);
	k2 = key_of(s, "arm64", "CONFIG_A=y\n");
	assert_string_not_equal(k1, k2);
	free(k2);
	k2 = key_of(s, "x86_64", "CONFIG_A=m\n");
	assert_string_not_equal(k1, k2);
	free(k2);
	free(k1);
	series_free(s);
	series_free(t);
	free(text);
}

/* Returns a file of the worktree. */
static char *
wt_file(const struct worktree *wt, const char *name)
{
	char *path = xasprintf("%s/%s", wt->dir, name);
	char *text = slurp(path, NULL);

	free(path);
	return text;
}

/* Moves the worktree to a variant; the test fails if it cannot. */
static void
wt_to(struct worktree *wt, const struct series *s, const int *p, size_t n)
{
	char *cause = NULL;

	if (worktree_checkout(wt, s, p, n, &cause) == -1)
		fail_msg("%s", cause);
}

/* Checks the two files of the fixture's worktree. */
static void
wt_is(const struct worktree *wt, const char *a, const char *b)
{
	char *ta = wt_file(wt, "a.txt"), *tb = wt_file(wt, "b.txt");

	assert_string_equal(ta, a);
	assert_string_equal(tb, b);
	free(ta);
	free(tb);
}

/* git am moves one worktree between variants; commits are reproducible. */
static void
test_worktree_variants(void **state)
{
	static const int p12[] = { 1, 2 }, p2[] = { 2 };
	struct fixture	*f = *state;
	struct series	*s = load_ok(f->mbox);
	char		*dir = xasprintf("%s/work/tree", f->dir), *cause = NULL;
	struct worktree *wt;
	char		*first;

	wt = worktree_open(f->repo, dir, f->base, NULL, NULL, &cause);
	if (wt == NULL)
		fail_msg("%s", cause);
	wt_is(wt, "a1\na2\na3\n", "b1\nb2\nb3\n");
	wt_to(wt, s, p12, 2);
	wt_is(wt, "a1\nA2\na3\n", "b1\nB2\nb3\n");
	first = xstrdup(wt->commits[0]);
	wt_to(wt, s, p12, 1);
	wt_is(wt, "a1\nA2\na3\n", "b1\nb2\nb3\n");
	wt_to(wt, s, p2, 1);
	wt_is(wt, "a1\na2\na3\n", "b1\nB2\nb3\n");
	wt_to(wt, s, NULL, 0);
	wt_is(wt, "a1\na2\na3\n", "b1\nb2\nb3\n");
	worktree_close(wt);
	/* Reopened, the worktree is reused and git am makes the same commit. */
	wt = worktree_open(f->repo, dir, f->base, NULL, NULL, &cause);
	assert_non_null(wt);
	wt_to(wt, s, p12, 1);
	assert_string_equal(wt->commits[0], first);
	worktree_close(wt);
	free(first);
	free(dir);
	series_free(s);
}

/* A patch that does not apply is aborted and named with its file. */
static void
test_worktree_conflict(void **state)
{
	static const int p12[] = { 1, 2 };
	struct fixture	*f = *state;
	char		*bad = xasprintf("%s/bad.mbox", f->dir), *cause = NULL;
	char		*dir = xasprintf("%s/work/tree", f->dir);
	struct worktree *wt;
	struct series	*s;

	sh("cd %s && git checkout -q -b other %s && sed -i s/b1/bx/ b.txt && " GIT
	   " commit -q -am 'b: other base' && "
	   "sed -i s/a2/A2/ a.txt && " GIT " commit -q -am 'a: shout a2' && "
	   "sed -i s/b2/B2/ b.txt && " GIT " commit -q -am 'b: shout b2' && "
	   "git format-patch -q --cover-letter --stdout HEAD~2 > %s",
	    f->repo, f->base, bad);
	s = load_ok(bad);
	wt = worktree_open(f->repo, dir, f->base, NULL, NULL, &cause);
	assert_non_null(wt);
	assert_int_equal(worktree_checkout(wt, s, p12, 2, &cause), -1);
	assert_non_null(cause);
	assert_non_null(strstr(cause, bad));
	assert_non_null(strstr(cause, "patch 2/2 \"b: shout b2\""));
	assert_non_null(strstr(cause, "b.txt:1"));
	free(cause);
	/* The am was aborted: the tree takes patch 1 again. */
	wt_to(wt, s, p12, 1);
	wt_is(wt, "a1\nA2\na3\n", "b1\nb2\nb3\n");
	worktree_close(wt);
	series_free(s);
	free(dir);
	free(bad);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_series_mbox, fixture_setup,
		    fixture_teardown),
		cmocka_unit_test_setup_teardown(test_series_shuffled,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_series_errors,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test(test_kconfig_merge),
		cmocka_unit_test(test_kconfig_unmet),
		cmocka_unit_test(test_variant_names),
		cmocka_unit_test_setup_teardown(test_cache_key, fixture_setup,
		    fixture_teardown),
		cmocka_unit_test_setup_teardown(test_worktree_variants,
		    fixture_setup, fixture_teardown),
		cmocka_unit_test_setup_teardown(test_worktree_conflict,
		    fixture_setup, fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
