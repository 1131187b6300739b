/* Kernel config settings: parse, merge like merge_config.sh, check. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "kernels/kconfig.h"

/* Returns the length of a symbol name ("CONFIG_" and [A-Za-z0-9_]) at p. */
static size_t
kconfig_symbol_len(const char *p)
{
	size_t n;

	if (strncmp(p, "CONFIG_", 7) != 0)
		return 0;
	for (n = 7; isalnum((unsigned char)p[n]) || p[n] == '_'; n++)
		;
	return n > 7 ? n : 0;
}

/* Parses one line into the config; -1 if it is not a config line. */
static int
kconfig_line(struct kconfig *c, char *line)
{
	size_t n, len = strlen(line);
	char  *sym;

	while (len > 0 && isspace((unsigned char)line[len - 1]))
		line[--len] = '\0';
	if (len == 0)
		return 0;
	if (line[0] == '#') {
		n = kconfig_symbol_len(line + 2);
		if (line[1] == ' ' && n > 0 &&
		    strcmp(line + 2 + n, " is not set") == 0) {
			sym = xstrndup(line + 2, n);
			kconfig_set(c, sym, NULL);
			free(sym);
		}
		return 0;
	}
	if ((n = kconfig_symbol_len(line)) == 0 || line[n] != '=')
		return -1;
	line[n] = '\0';
	kconfig_set(c, line, line + n + 1);
	return 0;
}

/* Parses .config or fragment text; see kconfig.h. */
struct kconfig *
kconfig_parse(const char *name, const char *text, char **cause)
{
	struct kconfig *c = xcalloc(1, sizeof *c);
	char	       *copy = xstrdup(text), *line, *next;
	size_t		lineno = 0;

	for (line = copy; line != NULL; line = next) {
		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		lineno++;
		if (kconfig_line(c, line) == -1) {
			*cause = xasprintf("%s:%zu: not a config line: \"%s\"",
			    name, lineno, line);
			kconfig_free(c);
			c = NULL;
			break;
		}
	}
	free(copy);
	return c;
}

/* Reads and parses a file; see kconfig.h. */
struct kconfig *
kconfig_load(const char *path, char **cause)
{
	struct kconfig *c = NULL;
	char	       *text = NULL;
	size_t		size = 0;
	FILE	       *f, *m;

	if ((f = fopen(path, "r")) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	if ((m = open_memstream(&text, &size)) == NULL) {
		*cause = xasprintf("%s: %s", path, strerror(errno));
		goto out;
	}
	for (int ch; (ch = getc(f)) != EOF;)
		putc(ch, m);
	fclose(m);
	if (ferror(f))
		*cause = xasprintf("%s: %s", path, strerror(errno));
	else
		c = kconfig_parse(path, text, cause);
out:
	free(text);
	fclose(f);
	return c;
}

/* Frees a config; accepts NULL. */
void
kconfig_free(struct kconfig *c)
{
	size_t i;

	if (c == NULL)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->v[i].symbol);
		free(c->v[i].value);
	}
	free(c->v);
	free(c);
}

/* Returns the entry for symbol, or NULL. */
const struct kconfig_entry *
kconfig_get(const struct kconfig *c, const char *symbol)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].symbol, symbol) == 0)
			return &c->v[i];
	return NULL;
}

/* Sets symbol to value (NULL: not set), replacing or appending. */
void
kconfig_set(struct kconfig *c, const char *symbol, const char *value)
{
	struct kconfig_entry *e =
	    (struct kconfig_entry *)kconfig_get(c, symbol);

	if (e == NULL) {
		c->v = xreallocarray(c->v, c->n + 1, sizeof *c->v);
		e = &c->v[c->n++];
		e->symbol = xstrdup(symbol);
	} else
		free(e->value);
	e->value = value != NULL ? xstrdup(value) : NULL;
}

/* Returns whether two values (NULL: not set) are the same. */
static int
kconfig_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Merges a fragment into dst; see kconfig.h. */
size_t
kconfig_merge(struct kconfig *dst, const struct kconfig *frag)
{
	const struct kconfig_entry *old;
	size_t			    i, changed = 0;

	for (i = 0; i < frag->n; i++) {
		old = kconfig_get(dst, frag->v[i].symbol);
		if (old != NULL && !kconfig_same(old->value, frag->v[i].value))
			changed++;
		kconfig_set(dst, frag->v[i].symbol, frag->v[i].value);
	}
	return changed;
}

/* Returns .config text for the settings (caller frees). */
char *
kconfig_format(const struct kconfig *c)
{
	char  *text = NULL;
	size_t size = 0, i;
	FILE  *m = open_memstream(&text, &size);

	if (m == NULL)
		return xstrdup("");
	for (i = 0; i < c->n; i++) {
		if (c->v[i].value == NULL)
			fprintf(m, "# %s is not set\n", c->v[i].symbol);
		else
			fprintf(m, "%s=%s\n", c->v[i].symbol, c->v[i].value);
	}
	fclose(m);
	return text;
}

/* Lists the requested settings the final config does not have. */
char *
kconfig_unmet(const struct kconfig *want, const struct kconfig *have)
{
	const struct kconfig_entry *got;
	const char		   *w, *g;
	char			   *text = NULL;
	size_t			    size = 0, i, n = 0;
	FILE			   *m = open_memstream(&text, &size);

	for (i = 0; m != NULL && i < want->n; i++) {
		got = kconfig_get(have, want->v[i].symbol);
		w = want->v[i].value;
		g = got != NULL ? got->value : NULL;
		if (kconfig_same(w, g))
			continue;
		fprintf(m, "%s%s: requested %s, got %s", n++ ? "\n" : "",
		    want->v[i].symbol, w != NULL ? w : "not set",
		    g != NULL ? g : "not set");
	}
	if (m != NULL)
		fclose(m);
	if (n == 0) {
		free(text);
		text = NULL;
	}
	return text;
}
