/*
 * Value parsers of key tables (conf.h): strings, numbers, booleans,
 * durations and sizes (units.h), paths, choices and lists of strings.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf.h"
#include "common/units.h"
#include "common/xmalloc.h"

/* A nested mapping read against the key's own table. */
void
conf_parse_section(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	if (v->type != YAML_MAPPING_NODE) {
		conf_expect(f, k, v, "a mapping");
		return;
	}
	conf_mapping(f, v, k->sub, dst, k->name);
}

/* Free text, non-empty unless the key allows "". */
void
conf_parse_str(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = conf_scalar(f, k, v, "a string");

	if (s == NULL)
		return;
	if (*s == '\0' && !(k->flags & CONF_EMPTY_OK))
		conf_expect(f, k, v, "a non-empty string");
	else
		conf_set_str(dst, s);
}

/*
 * A name used in paths and commands: 1 to CONF_MAX_NAME characters from
 * A-Z a-z 0-9 . _ -, not starting with "." (no "..", no hidden file).
 */
void
conf_parse_name(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = conf_scalar(f, k, v, CONF_NAME_RULE);

	if (s == NULL)
		return;
	if (!conf_name_ok(s))
		conf_expect(f, k, v, CONF_NAME_RULE);
	else
		conf_set_str(dst, s);
}

/* Whether s is a name as conf_parse_name reads one. */
bool
conf_name_ok(const char *s)
{
	size_t len = strlen(s);

	return len > 0 && len <= CONF_MAX_NAME && s[0] != '.' &&
	    strspn(s,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789._-") == len;
}

/*
 * A label shown in tables and kept literal: 1 to CONF_MAX_NAME bytes, no
 * control characters (newlines), quotes, backslashes or slashes.
 */
void
conf_parse_label(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	static const char expect[] = "1 to " CONF_STR(
	    CONF_MAX_NAME) " bytes without control characters, quotes, \"\\\" "
			   "or \"/\"";
	const char *s = conf_scalar(f, k, v, expect);
	size_t	    i, len;

	if (s == NULL)
		return;
	len = strlen(s);
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f ||
		    strchr("\"'`\\/", s[i]) != NULL)
			break;
	if (len == 0 || len > CONF_MAX_NAME || i < len)
		conf_expect(f, k, v, expect);
	else
		conf_set_str(dst, s);
}

/* Parses a whole string as a decimal integer. */
static bool
conf_strtoll(const char *s, long long *out)
{
	const char *d = s[0] == '-' ? s + 1 : s;
	char	   *end;

	if (*d < '0' || *d > '9')
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

/* Reads a whole decimal integer in [k->min, k->max]. */
bool
conf_number(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    long long *n)
{
	const char *s;
	char	   *expect;
	bool	    ok = false;

	expect = xasprintf("a number from %ld to %ld", k->min, k->max);
	if ((s = conf_scalar(f, k, v, expect)) == NULL)
		goto out;
	if (!conf_strtoll(s, n) || *n < k->min || *n > k->max)
		conf_expect(f, k, v, expect);
	else
		ok = true;
out:
	free(expect);
	return ok;
}

/* An int in [k->min, k->max]. */
void
conf_parse_int(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	long long n;

	if (conf_number(f, k, v, &n))
		*(int *)dst = (int)n;
}

/* true/false (yes/no, on/off as YAML 1.1 has them). */
void
conf_parse_bool(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = conf_scalar(f, k, v, "true or false");

	if (s == NULL)
		return;
	if (strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0 ||
	    strcasecmp(s, "on") == 0)
		*(bool *)dst = true;
	else if (strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0 ||
	    strcasecmp(s, "off") == 0)
		*(bool *)dst = false;
	else
		conf_expect(f, k, v, "true or false");
}

/* A duration into an int of milliseconds in [k->min, k->max]. */
void
conf_parse_duration(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst)
{
	const char *s = conf_scalar(f, k, v, k->expect);
	int64_t	    ms;

	if (s == NULL)
		return;
	if (units_parse_duration(s, &ms) == -1 || ms < k->min || ms > k->max)
		conf_expect(f, k, v, k->expect);
	else
		*(int *)dst = (int)ms;
}

/* A size into a uint64_t of KiB in [k->min, k->max]. */
void
conf_parse_size(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = conf_scalar(f, k, v, k->expect);
	uint64_t    kib;

	if (s == NULL)
		return;
	if (units_parse_size(s, &kib) == -1 || kib < (uint64_t)k->min ||
	    kib > (uint64_t)k->max)
		conf_expect(f, k, v, k->expect);
	else
		*(uint64_t *)dst = kib;
}

/* A local path; a relative one is taken from the file's directory. */
void
conf_parse_path(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = conf_scalar(f, k, v, "a path");
	char	   *expect;

	if (s == NULL)
		return;
	if (*s == '\0') {
		conf_expect(f, k, v, "a path");
		return;
	}
	if (s[0] == '~') {
		expect = xasprintf("an absolute path or one relative to the "
				   "%s file",
		    f->kind->name);
		conf_expect(f, k, v, expect);
		free(expect);
		return;
	}
	free(*(char **)dst);
	*(char **)dst = conf_path_resolve(f->dir, s);
}

/* "a", "a or b", "a, b or c": what a choice must be; caller frees. */
static char *
conf_choices_text(const char *const *choices)
{
	char  *out = xstrdup(""), *next;
	size_t i;

	for (i = 0; choices[i] != NULL; i++) {
		next = xasprintf("%s%s%s", out,
		    i == 0			 ? ""
			: choices[i + 1] == NULL ? " or "
						 : ", ",
		    choices[i]);
		free(out);
		out = next;
	}
	return out;
}

/* The index of v in k->choices, or -1 after reporting the choices. */
static int
conf_choice(struct conf_file *f, const struct conf_key *k, yaml_node_t *v)
{
	char	   *expect = conf_choices_text(k->choices);
	const char *s = conf_scalar(f, k, v, expect);
	int	    i = -1;

	if (s != NULL) {
		for (i = 0; k->choices[i] != NULL; i++)
			if (strcmp(k->choices[i], s) == 0)
				break;
		if (k->choices[i] == NULL) {
			conf_expect(f, k, v, expect);
			i = -1;
		}
	}
	free(expect);
	return i;
}

/* One of k->choices, as its index into an int (or an enum). */
void
conf_parse_enum(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	int i = conf_choice(f, k, v);

	if (i != -1)
		*(int *)dst = i;
}

/* One of k->choices, as a copy of the string. */
void
conf_parse_choice(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	int i = conf_choice(f, k, v);

	if (i != -1)
		conf_set_str(dst, k->choices[i]);
}

/* One string of a list; NULL after reporting an entry that is not one. */
static char *
conf_strv_word(struct conf_file *f, const struct conf_key *k, yaml_node_t *item)
{
	bool  empty_ok = k->flags & CONF_EMPTY_OK;
	char *d;

	if (item->type == YAML_SCALAR_NODE &&
	    (empty_ok || item->data.scalar.length > 0) &&
	    strlen((const char *)item->data.scalar.value) ==
		item->data.scalar.length)
		return xstrdup((const char *)item->data.scalar.value);
	d = conf_desc(item);
	conf_error(f, item, "\"%s\" entries must be %sstrings, not %s", k->name,
	    empty_ok ? "" : "non-empty ", d);
	free(d);
	return NULL;
}

/* A non-empty sequence of strings into a NULL-terminated char **. */
void
conf_parse_strv(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	char ***strv = dst, **out;
	size_t	i, n;
	bool	ok = true;

	if (conf_seq(f, k, v,
		k->expect ? k->expect : "a sequence of strings") == NULL)
		return;
	n = conf_seq_len(v);
	out = xcalloc(n + 1, sizeof(*out));
	for (i = 0; i < n; i++)
		if ((out[i] = conf_strv_word(f, k, conf_seq_item(f, v, i))) ==
		    NULL)
			ok = false;
	if (!ok) {
		for (i = 0; i < n; i++)
			free(out[i]);
		free(out);
		return;
	}
	conf_strv_free(*strv);
	*strv = out;
}

/* Keeps the value's node for the caller to read later. */
void
conf_parse_node(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	*(yaml_node_t **)dst = v;
}

/* Frees a NULL-terminated string vector. */
void
conf_strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* The number of strings in a NULL-terminated vector. */
size_t
conf_strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

/* A copy of a NULL-terminated vector. */
char **
conf_strv_dup(char *const *v)
{
	size_t n = conf_strv_len(v);
	char **out;

	if (v == NULL)
		return NULL;
	out = xcalloc(n + 1, sizeof *out);
	while (n-- > 0)
		out[n] = xstrdup(v[n]);
	return out;
}
