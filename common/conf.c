/*
 * The key-table engine of configuration files: errors, node helpers and
 * mappings read against key tables (conf.h).  Loading files and the value
 * parsers are in conf_load.c and conf_value.c.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/xmalloc.h"

#define CONF_DESC_MAX 40

/* Records one error at a 1-based position (line 0: the whole file). */
static void
conf_errors_add(struct conf_loader *ld, size_t fileno, size_t line, size_t col,
    char *msg)
{
	struct conf_error *e;

	ld->errs = xreallocarray(ld->errs, ld->nerrs + 1, sizeof(*ld->errs));
	e = &ld->errs[ld->nerrs];
	e->fileno = fileno;
	e->line = line;
	e->col = col;
	e->seq = ld->nerrs++;
	e->msg = msg;
}

/* Reports an error at a 0-based position with a va_list. */
static void
conf_verror_at(struct conf_file *f, size_t line, size_t col, const char *fmt,
    va_list ap)
{
	char *msg = xvasprintf(fmt, ap);

	conf_errors_add(f->ld, f->fileno, line + 1, col + 1,
	    xasprintf("%s:%zu:%zu: %s", f->path, line + 1, col + 1, msg));
	free(msg);
}

/* Reports an error at a 0-based position of the file. */
void
conf_error_at(struct conf_file *f, size_t line, size_t col, const char *fmt,
    ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_verror_at(f, line, col, fmt, ap);
	va_end(ap);
}

/* Reports an error at a node, or at the file's start for NULL. */
void
conf_error(struct conf_file *f, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_verror_at(f, n != NULL ? n->start_mark.line : 0,
	    n != NULL ? n->start_mark.column : 0, fmt, ap);
	va_end(ap);
}

/* Reports an error at the value of key in map, or at map without one. */
void
conf_error_key(struct conf_file *f, yaml_node_t *map, const char *key,
    const char *fmt, ...)
{
	yaml_node_pair_t *p = conf_map_pair(f, map, key);
	yaml_mark_t	  mark = map->start_mark;
	va_list		  ap;

	if (p != NULL)
		mark = conf_node(f, p->value)->start_mark;
	va_start(ap, fmt);
	conf_verror_at(f, mark.line, mark.column, fmt, ap);
	va_end(ap);
}

/* Reports an error about a whole file, without a position. */
void
conf_error_file(struct conf_loader *ld, size_t fileno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	conf_errors_add(ld, fileno, 0, 0, xvasprintf(fmt, ap));
	va_end(ap);
}

/* Quotes s as a YAML double-quoted scalar, cut after max bytes. */
static char *
conf_quote(const char *s, size_t max)
{
	size_t len = strlen(s), i, n = 0;
	bool   cut = len > max;
	char  *out;

	if (cut) {
		len = max;
		while (len > 0 && ((unsigned char)s[len] & 0xc0) == 0x80)
			len--;
	}
	out = xmalloc(len * 4 + 8);
	out[n++] = '"';
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			n += (size_t)sprintf(out + n, "\\%c", c);
		else if (c == '\n')
			n += (size_t)sprintf(out + n, "\\n");
		else if (c == '\t')
			n += (size_t)sprintf(out + n, "\\t");
		else if (c < 0x20 || c == 0x7f)
			n += (size_t)sprintf(out + n, "\\x%02x", c);
		else
			out[n++] = (char)c;
	}
	if (cut)
		n += (size_t)sprintf(out + n, "...");
	out[n++] = '"';
	out[n] = '\0';
	return out;
}

/* Describes a value for "not ...": the quoted scalar or its node type. */
char *
conf_desc(const yaml_node_t *v)
{
	if (v->type == YAML_SEQUENCE_NODE)
		return xstrdup(
		    conf_seq_len(v) == 0 ? "an empty sequence" : "a sequence");
	if (v->type == YAML_MAPPING_NODE)
		return xstrdup(
		    v->data.mapping.pairs.top == v->data.mapping.pairs.start
			? "an empty mapping"
			: "a mapping");
	return conf_quote((const char *)v->data.scalar.value, CONF_DESC_MAX);
}

/* Reports `"key" must be EXPECT, not VALUE` at the value. */
void
conf_expect(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    const char *expect)
{
	char *d = conf_desc(v);

	conf_error(f, v, "\"%s\" must be %s, not %s", k->name, expect, d);
	free(d);
}

/* True for an empty plain scalar, "~" or "null": the key counts as unset. */
bool
conf_is_null(const yaml_node_t *v)
{
	const char *s;

	if (v->type != YAML_SCALAR_NODE ||
	    v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = (const char *)v->data.scalar.value;
	return (*s == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0);
}

/* The text of a scalar value, or NULL after reporting what was expected. */
const char *
conf_scalar(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    const char *expect)
{
	const char *s;

	if (v->type != YAML_SCALAR_NODE) {
		conf_expect(f, k, v, expect);
		return NULL;
	}
	s = (const char *)v->data.scalar.value;
	if (strlen(s) != v->data.scalar.length) {
		conf_error(f, v, "\"%s\" must not contain a nul character",
		    k->name);
		return NULL;
	}
	if (v->data.scalar.length > CONF_MAX_STR) {
		conf_error(f, v, "\"%s\" is longer than %d bytes", k->name,
		    CONF_MAX_STR);
		return NULL;
	}
	return s;
}

/* The node with index i of the file's document. */
yaml_node_t *
conf_node(struct conf_file *f, int i)
{
	return yaml_document_get_node(&f->doc, i);
}

/* The first pair of map whose key is name, or NULL. */
yaml_node_pair_t *
conf_map_pair(struct conf_file *f, yaml_node_t *map, const char *name)
{
	yaml_node_pair_t *p;
	yaml_node_t	 *k;

	if (map == NULL || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		k = conf_node(f, p->key);
		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, name) == 0)
			return p;
	}
	return NULL;
}

/* The value of key name in map if it is given and not null, else NULL. */
yaml_node_t *
conf_map_value(struct conf_file *f, yaml_node_t *map, const char *name)
{
	yaml_node_pair_t *p = conf_map_pair(f, map, name);
	yaml_node_t	 *v;

	if (p == NULL)
		return NULL;
	v = conf_node(f, p->value);
	return conf_is_null(v) ? NULL : v;
}

/* The number of items of a sequence node. */
size_t
conf_seq_len(const yaml_node_t *n)
{
	return (
	    size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
}

/* Item i of a sequence node. */
yaml_node_t *
conf_seq_item(struct conf_file *f, const yaml_node_t *n, size_t i)
{
	return conf_node(f, n->data.sequence.items.start[i]);
}

/* v if it is a non-empty sequence, else NULL after reporting expect. */
yaml_node_t *
conf_seq(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    const char *expect)
{
	if (v->type == YAML_SEQUENCE_NODE && conf_seq_len(v) > 0)
		return v;
	conf_expect(f, k, v, expect);
	return NULL;
}

/* Index of key in the table, or -1. */
static int
conf_key_find(const struct conf_key *keys, const char *name)
{
	int i;

	for (i = 0; keys[i].name != NULL; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* The first key of map before pair p with the same name, or NULL. */
static yaml_node_t *
conf_earlier_key(struct conf_file *f, yaml_node_t *map, yaml_node_pair_t *p,
    const char *name)
{
	yaml_node_pair_t *q;
	yaml_node_t	 *k;

	for (q = map->data.mapping.pairs.start; q < p; q++) {
		k = conf_node(f, q->key);
		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, name) == 0)
			return k;
	}
	return NULL;
}

/* The key of pair p if it is a string, or NULL after reporting it. */
static const char *
conf_key_name(struct conf_file *f, yaml_node_pair_t *p)
{
	yaml_node_t *k = conf_node(f, p->key);
	char	    *d;

	if (k->type == YAML_SCALAR_NODE)
		return (const char *)k->data.scalar.value;
	d = conf_desc(k);
	conf_error(f, k, "a key must be a string, not %s", d);
	free(d);
	return NULL;
}

/* True unless an earlier pair of map has p's key, which is reported. */
static bool
conf_key_first(struct conf_file *f, yaml_node_t *map, yaml_node_pair_t *p,
    const char *name)
{
	yaml_node_t *first = conf_earlier_key(f, map, p, name);

	if (first == NULL)
		return true;
	conf_error(f, conf_node(f, p->key),
	    "duplicate key \"%s\", first at line %zu", name,
	    first->start_mark.line + 1);
	return false;
}

/* Checks one key of a mapping and hands its value to the key's parser. */
static void
conf_pair(struct conf_file *f, yaml_node_t *map, yaml_node_pair_t *p,
    const struct conf_key *keys, void *base)
{
	yaml_node_t *v = conf_node(f, p->value);
	const char  *name;
	char	    *d;
	int	     i;

	if ((name = conf_key_name(f, p)) == NULL)
		return;
	if ((i = conf_key_find(keys, name)) == -1) {
		d = conf_quote(name, CONF_DESC_MAX);
		conf_error(f, conf_node(f, p->key), "unknown key %s", d);
		free(d);
		return;
	}
	if (conf_key_first(f, map, p, name) && !conf_is_null(v))
		keys[i].parse(f, &keys[i], v, (char *)base + keys[i].off);
}

/* Reports the required keys of a mapping that are missing or null. */
static void
conf_required(struct conf_file *f, yaml_node_t *map,
    const struct conf_key *keys, const char *section)
{
	yaml_node_pair_t *p;
	int		  i;

	for (i = 0; keys[i].name != NULL; i++) {
		if (!(keys[i].flags & CONF_REQUIRED))
			continue;
		if ((p = conf_map_pair(f, map, keys[i].name)) == NULL)
			conf_error(f, map, "missing required key \"%s\"%s%s%s",
			    keys[i].name, section ? " in \"" : "",
			    section ? section : "", section ? "\"" : "");
		else if (conf_is_null(conf_node(f, p->value)))
			conf_error(f, conf_node(f, p->key),
			    "\"%s\" must have a value", keys[i].name);
	}
}

/* Reads a mapping against a key table into base. */
void
conf_mapping(struct conf_file *f, yaml_node_t *map, const struct conf_key *keys,
    void *base, const char *section)
{
	yaml_node_pair_t *p;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++)
		conf_pair(f, map, p, keys, base);
	conf_required(f, map, keys, section);
}

/* Hands each pair with a string key seen for the first time to fn. */
void
conf_pairs(struct conf_file *f, yaml_node_t *map, conf_pair_fn fn, void *arg)
{
	yaml_node_pair_t *p;
	const char	 *name;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++)
		if ((name = conf_key_name(f, p)) != NULL &&
		    conf_key_first(f, map, p, name))
			fn(f, conf_node(f, p->key), conf_node(f, p->value),
			    arg);
}

/* The root of a file that must hold one mapping, or NULL after a report. */
yaml_node_t *
conf_root_map(struct conf_file *f, yaml_node_t *root)
{
	char *d;

	if (root == NULL || conf_is_null(root)) {
		conf_error(f, NULL, "no %s in file, expected a mapping",
		    f->kind->name);
		return NULL;
	}
	if (root->type == YAML_MAPPING_NODE)
		return root;
	d = conf_desc(root);
	conf_error(f, root, "a %s file must hold a mapping, not %s",
	    f->kind->name, d);
	free(d);
	return NULL;
}

/* Joins rel to dir unless it is absolute, and drops ".", ".." and "//". */
char *
conf_path_resolve(const char *dir, const char *rel)
{
	char  *joined, *out, *tok, *save = NULL;
	size_t n = 0, len;

	if (rel[0] == '/')
		joined = xstrdup(rel);
	else
		joined = xasprintf("%s/%s", dir, rel);
	out = xmalloc(strlen(joined) + 2);
	for (tok = strtok_r(joined, "/", &save); tok != NULL;
	     tok = strtok_r(NULL, "/", &save)) {
		if (strcmp(tok, ".") == 0)
			continue;
		if (strcmp(tok, "..") == 0) {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;
			continue;
		}
		len = strlen(tok);
		out[n++] = '/';
		memcpy(out + n, tok, len);
		n += len;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	free(joined);
	return out;
}

/* Replaces the string field dst by a copy of s. */
void
conf_set_str(void *dst, const char *s)
{
	char **p = dst;

	free(*p);
	*p = xstrdup(s);
}
