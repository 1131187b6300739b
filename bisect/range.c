/*
 * The commits of a bisection (bisect/range.h), read with git, no shell.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/range.h"
#include "common/spawn.h"
#include "common/xmalloc.h"

/* Runs git in tree; its output (caller frees), or NULL with *cause. */
static char *
range_git(const char *tree, char *const argv[], char **cause)
{
	char	    *out = NULL, *why = NULL;
	struct spawn s = { .dir = tree,
		.argv = argv,
		.log_fd = -1,
		.output = &out };
	int	     status = spawn_run(&s, &why);

	if (status != 0) {
		*cause = xasprintf("tree \"%s\": git %s %s: %s", tree, argv[1],
		    argv[2],
		    why		      ? why
			: out && *out ? out
				      : "failed");
		free(out);
		out = NULL;
	}
	free(why);
	return out;
}

/* The commit id rev names in tree (caller frees), or NULL with *cause. */
static char *
range_resolve(const char *tree, const char *rev, char **cause)
{
	char *r = xasprintf("%s^{commit}", rev), *why = NULL, *id;
	char *argv[] = { "git", "rev-parse", "--verify", "--quiet", r, NULL };

	id = spawn_line(tree, argv, &why);
	if (id != NULL && *id == '\0') {
		free(id);
		id = NULL;
	}
	if (id == NULL)
		*cause =
		    xasprintf("tree \"%s\": unknown commit \"%s\"", tree, rev);
	free(why);
	free(r);
	return id;
}

/* Appends the commits and subjects of git log lines "ID SUBJECT". */
static void
range_lines(char *text, json_t *commits, json_t *subjects)
{
	char *line, *save = NULL, *sp;

	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if ((sp = strchr(line, ' ')) != NULL)
			*sp++ = '\0';
		json_array_append_new(commits, json_string(line));
		json_array_append_new(subjects, json_string(sp ? sp : ""));
	}
}

/* Lists good (first) and good..bad along first parents into r. */
static int
range_list(const char *tree, const char *good, const char *bad,
    struct bisect_range *r, char **cause)
{
	char *range = xasprintf("%s..%s", good, bad);
	char *log_argv[] = { "git", "log", "--first-parent", "--reverse",
		"--format=%H %s", range, NULL };
	char *one_argv[] = { "git", "log", "-1", "--format=%H %s", (char *)good,
		NULL };
	char *out = NULL, *first = NULL;
	json_t *c = json_array(), *s = json_array();
	int	rc = -1;

	if ((first = range_git(tree, one_argv, cause)) == NULL ||
	    (out = range_git(tree, log_argv, cause)) == NULL)
		goto out;
	range_lines(first, c, s);
	range_lines(out, c, s);
	if (json_array_size(c) < 2) {
		*cause = xasprintf("tree \"%s\": no commit after %.12s up to "
				   "%.12s",
		    tree, good, bad);
		goto out;
	}
	r->commits = json_dumps(c, JSON_COMPACT);
	r->subjects = json_dumps(s, JSON_COMPACT);
	r->n = json_array_size(c) - 1;
	rc = 0;
out:
	json_decref(c);
	json_decref(s);
	free(range);
	free(first);
	free(out);
	return rc;
}

int
bisect_range_read(const char *tree, const char *good, const char *bad,
    struct bisect_range *r, char **cause)
{
	char *g = NULL, *b = NULL, *out;
	char *argv[] = { "git", "merge-base", "--is-ancestor", NULL, NULL,
		NULL };
	int   rc = -1;

	memset(r, 0, sizeof *r);
	if ((g = range_resolve(tree, good, cause)) == NULL ||
	    (b = range_resolve(tree, bad, cause)) == NULL)
		goto out;
	argv[3] = g;
	argv[4] = b;
	if ((out = range_git(tree, argv, cause)) == NULL) {
		free(*cause);
		*cause = xasprintf("tree \"%s\": %s is not an ancestor of %s",
		    tree, good, bad);
		goto out;
	}
	free(out);
	rc = range_list(tree, g, b, r, cause);
out:
	free(g);
	free(b);
	return rc;
}

void
bisect_range_clear(struct bisect_range *r)
{
	free(r->commits);
	free(r->subjects);
	memset(r, 0, sizeof *r);
}
