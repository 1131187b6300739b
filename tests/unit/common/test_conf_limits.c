/*
 * Limits of the configuration engine (common/conf_limits.c): a deep file,
 * a "billion laughs", a cycle of aliases, too many anchors, a sequence or
 * mapping of too many entries and a file past the size limit are each
 * refused at once with their position; documents just inside the limits
 * load.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/xmalloc.h"

/* Counts the nodes the kind's root sees, aliases expanded. */
static size_t
count(struct conf_file *f, yaml_node_t *n, int depth)
{
	yaml_node_item_t *it;
	yaml_node_pair_t *p;
	size_t		  c = 1;

	assert_true(depth <= CONF_MAX_DEPTH + 1);
	if (n->type == YAML_SEQUENCE_NODE)
		for (it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++)
			c += count(f, conf_node(f, *it), depth + 1);
	if (n->type == YAML_MAPPING_NODE)
		for (p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++)
			c += count(f, conf_node(f, p->value), depth + 1);
	return c;
}

static size_t seen;

/* The root of the test kind: walks the whole document. */
static void
root(struct conf_file *f, yaml_node_t *r)
{
	seen = r != NULL ? count(f, r, 1) : 0;
}

static const struct conf_kind kind = { .name = "test", .root = root };

/* Loads text; returns the errors (or NULL) and the seconds it took. */
static char *
load(const char *text, double *secs)
{
	struct conf_loader ld = { 0 };
	struct timespec	   a, b;
	char		  *cause = NULL;

	seen = 0;
	clock_gettime(CLOCK_MONOTONIC, &a);
	conf_load_text(&ld, "t.yaml", text, strlen(text), &kind, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (secs != NULL)
		*secs = (double)(b.tv_sec - a.tv_sec) +
		    (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	if (conf_finish(&ld, &cause) == 0)
		return NULL;
	return cause;
}

/* n opening brackets, then n closing ones. */
static char *
nested(size_t n)
{
	char *s = xmalloc(2 * n + 2);

	memset(s, '[', n);
	memset(s + n, ']', n);
	s[2 * n] = '\n';
	s[2 * n + 1] = '\0';
	return s;
}

/* 200 KB of nesting (40 s in the loader alone) is refused at once. */
static void
test_deep(void **state)
{
	char  *s = nested(100000), *err;
	double secs;

	err = load(s, &secs);
	assert_non_null(err);
	assert_string_equal(err, "t.yaml:1:65: nesting deeper than 64 levels");
	assert_true(secs < 2.0);
	free(err);
	free(s);
	s = nested(CONF_MAX_DEPTH);
	assert_null(load(s, NULL));
	assert_int_equal(seen, CONF_MAX_DEPTH);
	free(s);
}

/* Nine levels of ten aliases: 10^9 nodes on a walk, refused. */
static void
test_laughs(void **state)
{
	char  *s = xstrdup("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"), *t;
	char  *err;
	double secs;
	int    i;

	for (i = 1; i <= 9; i++) {
		t = xasprintf(
		    "%sa%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, "
		    "*a%d, *a%d, *a%d, *a%d]\n",
		    s, i, i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1,
		    i - 1, i - 1, i - 1);
		free(s);
		s = t;
	}
	err = load(s, &secs);
	assert_non_null(err);
	assert_string_equal(err,
	    "t.yaml:6:45: aliases expand the document past 1000000 nodes");
	assert_true(secs < 2.0);
	assert_int_equal(seen, 0);
	free(err);
	free(s);
	/* A few aliases are fine: 3 + 2 * 3 nodes and the root's. */
	assert_null(load("a: &a [1, 2]\nb: *a\nc: *a\n", NULL));
	assert_int_equal(seen, 10);
}

/* An alias inside its own anchor's node would make a cycle. */
static void
test_cycle(void **state)
{
	char *err = load("a: &a [1, *a]\n", NULL);

	assert_non_null(err);
	assert_string_equal(err,
	    "t.yaml:1:11: alias refers to a node that is not complete before "
	    "it");
	free(err);
}

/* One anchor past the limit is refused. */
static void
test_anchors(void **state)
{
	char *s = xstrdup(""), *t, *err;
	int   i;

	/* In two mappings: one may hold no more than 1000 keys. */
	for (i = 0; i <= CONF_MAX_ANCHORS; i++) {
		t = xasprintf("%s%s  k%d: &k%d v\n", s,
		    i == 0	   ? "a:\n"
			: i == 500 ? "b:\n"
				   : "",
		    i, i);
		free(s);
		s = t;
	}
	err = load(s, NULL);
	assert_non_null(err);
	assert_string_equal(err, "t.yaml:1003:10: more than 1000 anchors");
	free(err);
	free(s);
}

/* n entries of a flow sequence, or of a mapping when map. */
static char *
entries(size_t n, bool map)
{
	char  *s = xstrdup(map ? "{" : "["), *t;
	size_t i;

	for (i = 0; i < n; i++) {
		t = map ? xasprintf("%s%sk%zu: 1", s, i ? ", " : "", i)
			: xasprintf("%s%s%zu", s, i ? ", " : "", i);
		free(s);
		s = t;
	}
	t = xasprintf("%s%s\n", s, map ? "}" : "]");
	free(s);
	return t;
}

/*
 * A sequence or mapping of more than 1000 entries is refused at the first
 * past the limit (readers look for duplicates entry by entry); 1000 load.
 */
static void
test_items(void **state)
{
	char *s = entries(CONF_MAX_ITEMS + 1, false), *err;

	err = load(s, NULL);
	assert_non_null(err);
	assert_string_equal(err,
	    "t.yaml:1:4892: a sequence of more than 1000 entries");
	free(err);
	free(s);
	s = entries(CONF_MAX_ITEMS + 1, true);
	err = load(s, NULL);
	assert_non_null(err);
	assert_string_equal(err,
	    "t.yaml:1:8892: a mapping of more than 1000 keys");
	free(err);
	free(s);
	s = entries(CONF_MAX_ITEMS, false);
	assert_null(load(s, NULL));
	assert_int_equal(seen, CONF_MAX_ITEMS + 1);
	free(s);
	s = entries(CONF_MAX_ITEMS, true);
	assert_null(load(s, NULL));
	assert_int_equal(seen, CONF_MAX_ITEMS + 1);
	free(s);
}

/* A file one byte past the size limit is refused whole. */
static void
test_size(void **state)
{
	struct conf_loader ld = { 0 };
	char		   path[] = "/tmp/conf-limits-XXXXXX", *cause = NULL;
	char		  *buf = xmalloc(CONF_MAX_FILE + 1), *want;
	int		   fd = mkstemp(path);

	assert_true(fd >= 0);
	memset(buf, ' ', CONF_MAX_FILE + 1);
	assert_int_equal(write(fd, buf, CONF_MAX_FILE + 1), CONF_MAX_FILE + 1);
	close(fd);
	conf_load_file(&ld, path, &kind, NULL);
	assert_int_equal(conf_finish(&ld, &cause), -1);
	want = xasprintf("\"%s\" is larger than 4194304 bytes", path);
	assert_string_equal(cause, want);
	unlink(path);
	free(want);
	free(cause);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deep),
		cmocka_unit_test(test_laughs),
		cmocka_unit_test(test_cycle),
		cmocka_unit_test(test_anchors),
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
