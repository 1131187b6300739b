/*
 * Parsers for custom benchmarks: POSIX extended regular expressions
 * ("name=REGEX" or "name[unit]=REGEX", one per line of args, the first
 * subexpression being the number), "key=value" / "key: value" lines, and
 * JSON (top-level numbers, or the dotted paths listed in args).
 */
#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

struct regex_spec {
	char   *name;
	char   *unit;
	regex_t re;
	int	compiled;
};

/* Splits "name[unit]=REGEX" and compiles REGEX. */
static int
regex_spec_init(struct regex_spec *rs, const char *spec, char **cause)
{
	const char *eq = strchr(spec, '='), *br;
	char	    buf[256];
	int	    err;

	memset(rs, 0, sizeof *rs);
	if (eq == NULL || eq == spec) {
		*cause = xasprintf("parser \"regex\": \"%s\": expected "
				   "name=REGEX",
		    spec);
		return (-1);
	}
	br = memchr(spec, '[', (size_t)(eq - spec));
	if (br != NULL && eq[-1] == ']') {
		rs->name = xstrndup(spec, (size_t)(br - spec));
		rs->unit = xstrndup(br + 1, (size_t)(eq - 1 - br - 1));
	} else {
		rs->name = xstrndup(spec, (size_t)(eq - spec));
		rs->unit = xstrdup("");
	}
	if ((err = regcomp(&rs->re, eq + 1, REG_EXTENDED)) != 0) {
		regerror(err, &rs->re, buf, sizeof buf);
		*cause =
		    xasprintf("parser \"regex\": \"%s\": %s", rs->name, buf);
		return (-1);
	}
	rs->compiled = 1;
	if (rs->re.re_nsub < 1) {
		*cause = xasprintf("parser \"regex\": \"%s\": no "
				   "subexpression to take the number from",
		    rs->name);
		return (-1);
	}
	return (0);
}

/* Frees a spec. */
static void
regex_spec_free(struct regex_spec *rs)
{
	if (rs->compiled)
		regfree(&rs->re);
	free(rs->name);
	free(rs->unit);
}

/* Applies one spec to one line; -1 if it matched something not a number. */
static int
regex_apply(struct regex_spec *rs, const struct parse_lines *pl,
    struct parse_result *res, char **cause)
{
	regmatch_t m[2];
	char	  *text;
	double	   v;
	int	   rc;

	if (regexec(&rs->re, pl->line, 2, m, 0) != 0 || m[1].rm_so < 0)
		return (0);
	text =
	    xstrndup(pl->line + m[1].rm_so, (size_t)(m[1].rm_eo - m[1].rm_so));
	if ((rc = parse_whole_number(text, &v)) == 0)
		parse_result_add(res, rs->name, rs->unit, v);
	else
		*cause = parse_cause_line("regex", pl->lineno, pl->line,
		    "match is not a number");
	free(text);
	return (rc);
}

/* Compiles the specs of args, one per line; returns how many or -1. */
static int
regex_specs(const char *args, struct regex_spec **out, size_t *n, char **cause)
{
	char *copy, *line, *save = NULL;

	*out = NULL;
	*n = 0;
	if (args == NULL || args[strspn(args, " \t\n")] == '\0') {
		*cause = xstrdup("parser \"regex\": no name=REGEX given");
		return (-1);
	}
	copy = xstrdup(args);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		if (regex_spec_init(&(*out)[(*n)++], line, cause) != 0) {
			free(copy);
			return (-1);
		}
	}
	free(copy);
	return (0);
}

/* Applies every "name=REGEX" of args to every line. */
int
parse_regex(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct regex_spec *specs;
	struct parse_lines pl;
	size_t		   n, i;
	int		   rc = -1;

	parse_lines_init(&pl, output, len);
	if (regex_specs(args, &specs, &n, cause) != 0)
		goto out;
	while (parse_lines_next(&pl)) {
		for (i = 0; i < n; i++) {
			if (regex_apply(&specs[i], &pl, res, cause) != 0)
				goto out;
		}
	}
	rc = 0;
out:
	parse_lines_free(&pl);
	for (i = 0; i < n; i++)
		regex_spec_free(&specs[i]);
	free(specs);
	return (rc);
}

/* Makes a key name: trimmed, inner blanks as '_'; NULL if not a key. */
static char *
keyvalue_key(const char *s, size_t len)
{
	char  *key;
	size_t i;

	while (len > 0 && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	while (len > 0 && isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0 || !isalnum((unsigned char)*s))
		return (NULL);
	key = xstrndup(s, len);
	for (i = 0; i < len; i++) {
		if (key[i] == ' ' || key[i] == '\t')
			key[i] = '_';
		else if (!isalnum((unsigned char)key[i]) &&
		    strchr("_.-/%()", key[i]) == NULL) {
			free(key);
			return (NULL);
		}
	}
	return (key);
}

/* Takes every "key=value" or "key: value" line with a numeric value. */
int
parse_keyvalue(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	struct parse_lines pl;
	char		  *key;
	size_t		   k;
	double		   v;

	parse_lines_init(&pl, output, len);
	while (parse_lines_next(&pl)) {
		k = strcspn(pl.line, "=:");
		if (pl.line[k] == '\0' ||
		    parse_whole_number(pl.line + k + 1, &v) != 0)
			continue;
		if ((key = keyvalue_key(pl.line, k)) == NULL)
			continue;
		parse_result_add(res, key, "", v);
		free(key);
	}
	parse_lines_free(&pl);
	return (0);
}

/* Follows a dotted path ("a.b.0.c") from root. */
static json_t *
json_path(json_t *root, const char *path)
{
	char	     *copy = xstrdup(path), *seg, *save = NULL, *end;
	json_t	     *j = root;
	unsigned long idx;

	for (seg = strtok_r(copy, ".", &save); seg != NULL && j != NULL;
	     seg = strtok_r(NULL, ".", &save)) {
		if (json_is_array(j)) {
			idx = strtoul(seg, &end, 10);
			j = *end == '\0' ? json_array_get(j, idx) : NULL;
		} else
			j = json_object_get(j, seg);
	}
	free(copy);
	return (j);
}

/* Adds the numbers at the paths listed in args. */
static int
json_paths(json_t *root, const char *args, struct parse_result *res,
    char **cause)
{
	char   *copy = xstrdup(args), *path, *save = NULL;
	json_t *j;
	int	rc = 0;

	for (path = strtok_r(copy, " \t\n,", &save); path != NULL;
	     path = strtok_r(NULL, " \t\n,", &save)) {
		j = json_path(root, path);
		if (!json_is_number(j)) {
			*cause = xasprintf("parser \"json\": path \"%s\": %s",
			    path, j == NULL ? "not found" : "not a number");
			rc = -1;
			break;
		}
		parse_result_add(res, path, "", json_number_value(j));
	}
	free(copy);
	return (rc);
}

/* Parses a JSON document: top-level numbers, or the paths in args. */
int
parse_json(const char *args, const char *output, size_t len,
    struct parse_result *res, char **cause)
{
	json_error_t err;
	json_t	    *root, *v;
	const char  *key;
	int	     rc = -1;

	if ((root = json_loadb(output, len, 0, &err)) == NULL) {
		*cause = xasprintf("parser \"json\": line %d:%d: %s", err.line,
		    err.column, err.text);
		return (-1);
	}
	if (args != NULL && args[strspn(args, " \t\n,")] != '\0') {
		rc = json_paths(root, args, res, cause);
		goto out;
	}
	if (!json_is_object(root)) {
		*cause = xstrdup("parser \"json\": not an object");
		goto out;
	}
	json_object_foreach(root, key, v)
	{
		if (json_is_number(v))
			parse_result_add(res, key, "", json_number_value(v));
	}
	rc = 0;
out:
	json_decref(root);
	return (rc);
}
