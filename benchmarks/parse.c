/* Parser table, dispatch and the helpers every output parser shares. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/parse.h"
#include "common/xmalloc.h"

#define PARSE_QUOTE_MAX 80

const struct parse_parser parse_parsers[] = { { "hackbench", parse_hackbench },
	{ "tbench", parse_tbench }, { "schbench", parse_schbench },
	{ "stream", parse_stream }, { "netperf", parse_netperf },
	{ "unixbench", parse_unixbench }, { "kernbench", parse_kernbench },
	{ "sysbench", parse_sysbench }, { "stress-ng", parse_stressng },
	{ "llama-batched-bench", parse_llama }, { "ycsb", parse_ycsb },
	{ "regex", parse_regex }, { "keyvalue", parse_keyvalue },
	{ "json", parse_json }, { NULL, NULL } };

/* Returns the parser called name, or NULL. */
const struct parse_parser *
parse_find(const char *name)
{
	const struct parse_parser *pp;

	for (pp = parse_parsers; pp->name != NULL; pp++) {
		if (strcmp(pp->name, name) == 0)
			return (pp);
	}
	return (NULL);
}

/* Frees the metrics of res and leaves it empty. */
void
parse_result_clear(struct parse_result *res)
{
	size_t i;

	if (res == NULL)
		return;
	for (i = 0; i < res->n; i++) {
		free(res->v[i].name);
		free(res->v[i].unit);
	}
	free(res->v);
	res->v = NULL;
	res->n = 0;
}

/* Whether res holds a value of name; see parse.h. */
bool
parse_result_has(const struct parse_result *res, const char *name)
{
	size_t i;

	for (i = 0; res != NULL && i < res->n; i++) {
		if (strcmp(res->v[i].name, name) == 0)
			return true;
	}
	return false;
}

/* Runs the named parser over output; see parse.h. */
int
parse_output(const char *parser, const char *args, const char *output,
    size_t len, struct parse_result *res, char **cause)
{
	const struct parse_parser *pp;
	int			   rc = -1;

	res->v = NULL;
	res->n = 0;
	*cause = NULL;
	if ((pp = parse_find(parser)) == NULL) {
		*cause = xasprintf("parser \"%s\": unknown parser", parser);
		goto out;
	}
	if (output == NULL)
		len = 0;
	if (pp->fn(args, output != NULL ? output : "", len, res, cause) != 0)
		goto out;
	if (res->n == 0) {
		*cause = parse_cause_nothing(parser, output, len);
		goto out;
	}
	rc = (int)res->n;
out:
	if (rc < 0) {
		parse_result_clear(res);
		if (*cause == NULL)
			*cause = xasprintf("parser \"%s\": failed", parser);
	}
	return (rc);
}

/* Adds one metric to res. */
void
parse_result_add(struct parse_result *res, const char *name, const char *unit,
    double value)
{
	struct parse_metric *m;

	res->v = xreallocarray(res->v, res->n + 1, sizeof *res->v);
	m = &res->v[res->n++];
	m->name = xstrdup(name);
	m->unit = xstrdup(unit != NULL ? unit : "");
	m->value = value;
}

/* Starts walking the lines of buf. */
void
parse_lines_init(struct parse_lines *pl, const char *buf, size_t len)
{
	pl->p = buf;
	pl->end = buf + len;
	pl->line = NULL;
	pl->lineno = 0;
	pl->complete = len > 0 && buf[len - 1] == '\n';
}

/* Moves to the next '\n'-terminated line; an unterminated tail is skipped. */
int
parse_lines_next(struct parse_lines *pl)
{
	const char *nl;
	size_t	    n;

	free(pl->line);
	pl->line = NULL;
	if (pl->p >= pl->end)
		return (0);
	nl = memchr(pl->p, '\n', (size_t)(pl->end - pl->p));
	if (nl == NULL)
		return (0);
	n = (size_t)(nl - pl->p);
	if (n > 0 && pl->p[n - 1] == '\r')
		n--;
	pl->line = xstrndup(pl->p, n);
	pl->p = nl + 1;
	pl->lineno++;
	return (1);
}

/* Frees the current line. */
void
parse_lines_free(struct parse_lines *pl)
{
	free(pl->line);
	pl->line = NULL;
}

/* Length of the decimal number at s: [+-]digits[.digits][e[+-]digits]. */
static size_t
parse_number_len(const char *s)
{
	size_t i = 0, digits = 0, e;

	if (s[i] == '+' || s[i] == '-')
		i++;
	for (; isdigit((unsigned char)s[i]); i++)
		digits++;
	if (s[i] == '.') {
		i++;
		for (; isdigit((unsigned char)s[i]); i++)
			digits++;
	}
	if (digits == 0)
		return (0);
	if (s[i] == 'e' || s[i] == 'E') {
		e = i + 1;
		if (s[e] == '+' || s[e] == '-')
			e++;
		if (isdigit((unsigned char)s[e])) {
			for (i = e; isdigit((unsigned char)s[i]); i++)
				;
		}
	}
	return (i);
}

/* Reads a decimal number after blanks; returns the end or NULL. */
const char *
parse_number(const char *s, double *v)
{
	char   buf[64];
	size_t n;
	double d;

	while (*s == ' ' || *s == '\t')
		s++;
	n = parse_number_len(s);
	if (n == 0 || n >= sizeof buf)
		return (NULL);
	memcpy(buf, s, n);
	buf[n] = '\0';
	d = strtod(buf, NULL);
	if (!isfinite(d))
		return (NULL);
	*v = d;
	return (s + n);
}

/* Reads a number that must be followed by a blank or the end. */
const char *
parse_word_number(const char *s, double *v)
{
	const char *e;

	if ((e = parse_number(s, v)) == NULL)
		return (NULL);
	if (*e != '\0' && *e != ' ' && *e != '\t')
		return (NULL);
	return (e);
}

/* Reads s as exactly one number, blanks allowed around it. */
int
parse_whole_number(const char *s, double *v)
{
	const char *e;

	if ((e = parse_number(s, v)) == NULL)
		return (-1);
	return (e[strspn(e, " \t")] == '\0' ? 0 : -1);
}

/* Splits line in place into at most max blank-separated words. */
size_t
parse_split(char *line, char **words, size_t max)
{
	size_t n = 0;
	char  *p = line;

	while (n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0')
			break;
		words[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t')
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
	return (n);
}

/* Makes a metric name: lowercase alphanumerics joined by single '_'. */
char *
parse_slug(const char *s, size_t len)
{
	char  *out = xmalloc(len + 1);
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		if (isalnum((unsigned char)s[i]))
			out[o++] = (char)tolower((unsigned char)s[i]);
		else if (o > 0 && out[o - 1] != '_')
			out[o++] = '_';
	}
	while (o > 0 && out[o - 1] == '_')
		o--;
	out[o] = '\0';
	return (out);
}

/* Copies at most PARSE_QUOTE_MAX bytes of s, escaping what is unprintable. */
static char *
parse_quote(const char *s, size_t len)
{
	char	     *out = xmalloc(PARSE_QUOTE_MAX * 4 + 4);
	size_t	      i, o = 0;
	unsigned char c;

	for (i = 0; i < len && i < PARSE_QUOTE_MAX; i++) {
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else if (c == '\t')
			out[o++] = ' ';
		else if (c < 0x20 || c >= 0x7f) {
			snprintf(out + o, 5, "\\x%02x", c);
			o += 4;
		} else
			out[o++] = (char)c;
	}
	if (i < len) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
	return (out);
}

/* Builds the "no metric" error, quoting the first non-blank line. */
char *
parse_cause_nothing(const char *parser, const char *output, size_t len)
{
	const char *p = output, *end = output + len, *nl;
	char	   *q, *cause;
	size_t	    n;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		while (n > 0 && isspace((unsigned char)p[n - 1]))
			n--;
		while (n > 0 && isspace((unsigned char)*p)) {
			p++;
			n--;
		}
		if (n > 0)
			break;
		p = nl != NULL ? nl + 1 : end;
	}
	if (p >= end)
		return (xasprintf("parser \"%s\": no metric: empty output",
		    parser));
	q = parse_quote(p, n);
	cause = xasprintf("parser \"%s\": no metric: first line not "
			  "understood: \"%s\"",
	    parser, q);
	free(q);
	return (cause);
}

/* Builds an error about one line of the output. */
char *
parse_cause_line(const char *parser, size_t lineno, const char *line,
    const char *why)
{
	char *q, *cause;

	q = parse_quote(line, strlen(line));
	cause = xasprintf("parser \"%s\": line %zu: \"%s\": %s", parser, lineno,
	    q, why);
	free(q);
	return (cause);
}
