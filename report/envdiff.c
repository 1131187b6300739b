/* Environment mismatches between the columns of a comparison. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/compare.h"
#include "report/envdiff.h"

/* The facts of the runs of one column. */
struct envdiff_column {
	char	*name;
	json_t **runs;
	size_t	 nruns;
};

struct envdiff {
	enum envdiff_columns   by;
	struct envdiff_column *v;
	size_t		       n;
};

/* One distinct value of a fact (NULL when absent) and how often it is seen. */
struct envdiff_value {
	char  *text;
	size_t count;
	char  *columns; /* "base and patch 1", for notes between columns */
};

/* A growing list of notes. */
struct envdiff_notes {
	char **v;
	size_t n;
};

/* Facts that follow the kernel, ignored between kernel columns. */
static const char *envdiff_kernel_keys[] = { "kernel.release", "kernel.version",
	NULL };

/* Facts that make a machine, ignored between machine columns. */
static const char *envdiff_machine_keys[] = { "arch", "cpu.model", "cpu.online",
	"cpu.online_list", "mem.total_kb", "microcode", "topo.", "numa.",
	NULL };

/* Returns 1 if key is in list (entries ending in '.' match a prefix). */
static int
envdiff_key_in(const char **list, const char *key)
{
	size_t i, len;

	for (i = 0; list[i] != NULL; i++) {
		len = strlen(list[i]);
		if (list[i][len - 1] == '.' ? strncmp(key, list[i], len) == 0
					    : strcmp(key, list[i]) == 0)
			return 1;
	}
	return 0;
}

/*
 * Facts that differ per boot by nature: the boot id, and MemTotal, which
 * moves by a few KiB between boots of the same kernel (reservations).
 */
static int
envdiff_per_boot(const char *key)
{
	return strcmp(key, "boot_id") == 0 || strcmp(key, "mem.total_kb") == 0;
}

int
envdiff_key_compared(enum envdiff_columns by, const char *key)
{
	if (envdiff_per_boot(key))
		return 0;
	if (by == ENVDIFF_KERNELS)
		return !envdiff_key_in(envdiff_kernel_keys, key);
	if (by == ENVDIFF_MACHINES)
		return !envdiff_key_in(envdiff_machine_keys, key);
	return 1;
}

struct envdiff *
envdiff_new(enum envdiff_columns by)
{
	struct envdiff *e = xcalloc(1, sizeof *e);

	e->by = by;
	return e;
}

void
envdiff_free(struct envdiff *e)
{
	size_t i, j;

	if (e == NULL)
		return;
	for (i = 0; i < e->n; i++) {
		for (j = 0; j < e->v[i].nruns; j++)
			json_decref(e->v[i].runs[j]);
		free(e->v[i].runs);
		free(e->v[i].name);
	}
	free(e->v);
	free(e);
}

/* Returns 1 if the space-separated words of list hold word. */
static int
envdiff_has_word(const char *list, const char *word, size_t len)
{
	const char *p = list;
	size_t	    n;

	while (list != NULL && *p != '\0') {
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n == len && strncmp(p, word, len) == 0)
			return 1;
		p += n;
	}
	return 0;
}

/*
 * A command line without its BOOT_IMAGE= word and the words the job asked
 * for, single-spaced (caller frees).
 */
static char *
envdiff_cmdline(const char *cmdline, const char *asked)
{
	char	   *out = xcalloc(1, strlen(cmdline) + 1), *o = out;
	const char *p = cmdline;
	size_t	    n;

	while (*(p += strspn(p, " \t\n")) != '\0') {
		n = strcspn(p, " \t\n");
		if (strncmp(p, "BOOT_IMAGE=", 11) != 0 &&
		    !envdiff_has_word(asked, p, n)) {
			if (o != out)
				*o++ = ' ';
			memcpy(o, p, n);
			o += n;
		}
		p += n;
	}
	*o = '\0';
	return out;
}

/* Finds or appends a column. */
static struct envdiff_column *
envdiff_column(struct envdiff *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->n; i++) {
		if (strcmp(e->v[i].name, name) == 0)
			return &e->v[i];
	}
	e->v = xreallocarray(e->v, e->n + 1, sizeof *e->v);
	memset(&e->v[e->n], 0, sizeof e->v[e->n]);
	e->v[e->n].name = xstrdup(name);
	return &e->v[e->n++];
}

int
envdiff_add(struct envdiff *e, const char *column, const char *facts,
    const char *asked, char **cause)
{
	struct envdiff_column *c;
	json_error_t	       err;
	json_t		      *o, *cmd;
	char		      *clean;

	o = json_loads(facts != NULL ? facts : "", 0, &err);
	if (o == NULL || !json_is_object(o)) {
		*cause = xasprintf("facts of \"%s\": not a JSON object%s%s",
		    column, o == NULL ? ": " : "", o == NULL ? err.text : "");
		json_decref(o);
		return -1;
	}
	json_object_del(o, "boot_id");
	cmd = json_object_get(o, "kernel.cmdline");
	if (json_is_string(cmd)) {
		clean = envdiff_cmdline(json_string_value(cmd), asked);
		json_object_set_new(o, "kernel.cmdline", json_string(clean));
		free(clean);
	}
	c = envdiff_column(e, column);
	c->runs = xreallocarray(c->runs, c->nruns + 1, sizeof *c->runs);
	c->runs[c->nruns++] = o;
	return 0;
}

/* The text of a fact in one run, or NULL when absent (caller frees). */
static char *
envdiff_text(json_t *run, const char *key)
{
	json_t *v = json_object_get(run, key);

	if (v == NULL || json_is_null(v))
		return NULL;
	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	return json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
}

/* Compares two values where NULL (absent) equals only NULL. */
static int
envdiff_same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Counts a value into a list of distinct values; takes text. */
static struct envdiff_value *
envdiff_count(struct envdiff_value **v, size_t *n, char *text)
{
	size_t i;

	for (i = 0; i < *n; i++) {
		if (envdiff_same((*v)[i].text, text)) {
			free(text);
			(*v)[i].count++;
			return &(*v)[i];
		}
	}
	*v = xreallocarray(*v, *n + 1, sizeof **v);
	memset(&(*v)[*n], 0, sizeof(*v)[*n]);
	(*v)[*n].text = text;
	(*v)[*n].count = 1;
	return &(*v)[(*n)++];
}

static void
envdiff_values_free(struct envdiff_value *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(v[i].text);
		free(v[i].columns);
	}
	free(v);
}

/* The separator of a fact that is a list, or 0 for a plain value. */
static char
envdiff_separator(const char *key)
{
	if (strcmp(key, "kernel.cmdline") == 0 ||
	    strcmp(key, "sched.features") == 0)
		return ' ';
	if (strcmp(key, "mitigations") == 0)
		return ';';
	return 0;
}

/*
 * The length of the list item at p.  In mitigations, "; " stays inside
 * one item ("spectre_v2=Mitigation: Retpolines; IBPB: conditional").
 */
static size_t
envdiff_item_len(const char *p, char sep)
{
	size_t n = 0;

	for (;;) {
		n += strcspn(p + n, (char[]){ sep, '\0' });
		if (sep != ';' || p[n] == '\0' || p[n + 1] != ' ')
			return n;
		n++;
	}
}

/* Returns 1 if the sep-separated list s holds the item it of length len. */
static int
envdiff_has_item(const char *s, char sep, const char *it, size_t len)
{
	const char *p = s;
	size_t	    n;

	for (;;) {
		n = envdiff_item_len(p, sep);
		if (n == len && strncmp(p, it, len) == 0)
			return 1;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

/* Returns 1 if every present value holds the item. */
static int
envdiff_item_common(const struct envdiff_value *v, size_t n, char sep,
    const char *it, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].text != NULL &&
		    !envdiff_has_item(v[i].text, sep, it, len))
			return 0;
	}
	return 1;
}

/*
 * Shows a value for a note: quoted, "absent", or for a list only the items
 * not common to every value, after "..." (caller frees).
 */
static char *
envdiff_show(const struct envdiff_value *v, size_t n, size_t which,
    const char *key)
{
	const char *s = v[which].text, *p;
	char	    sep = envdiff_separator(key), *out, *o;
	size_t	    len, dropped = 0;

	if (s == NULL)
		return xstrdup("absent");
	if (sep == 0)
		return xasprintf("\"%s\"", s);
	out = o = xcalloc(1, strlen(s) + 1);
	for (p = s;; p += len + 1) {
		len = envdiff_item_len(p, sep);
		if (len > 0 && envdiff_item_common(v, n, sep, p, len))
			dropped++;
		else if (len > 0) {
			if (o != out)
				*o++ = sep;
			memcpy(o, p, len);
			o += len;
		}
		if (p[len] == '\0')
			break;
	}
	*o = '\0';
	s = dropped == 0 ? s : out;
	o = xasprintf("\"%s%s%s\"", dropped ? "..." : "",
	    dropped && *out ? (sep == ' ' ? " " : "; ") : "", s);
	free(out);
	return o;
}

/* Appends a column name to an English list being built. */
static void
envdiff_list_add(char **list, const char *name, int last)
{
	char *s;

	if (*list == NULL) {
		*list = xstrdup(name);
		return;
	}
	s = xasprintf("%s%s%s", *list, last ? " and " : ", ", name);
	free(*list);
	*list = s;
}

/* Appends a note. */
static void
envdiff_note(struct envdiff_notes *out, char *s)
{
	out->v = xreallocarray(out->v, out->n + 1, sizeof *out->v);
	out->v[out->n++] = s;
}

/* Notes a fact that differs between the runs of one column. */
static void
envdiff_within(const struct envdiff_column *c, const char *key,
    struct envdiff_notes *out)
{
	struct envdiff_value *v = NULL;
	size_t		      i, n = 0;
	char		     *s, *t, *shown;

	for (i = 0; i < c->nruns; i++)
		envdiff_count(&v, &n, envdiff_text(c->runs[i], key));
	if (n < 2)
		goto out;
	s = xasprintf("environment differs within %s: %s is", c->name, key);
	for (i = 0; i < n; i++) {
		shown = envdiff_show(v, n, i, key);
		t = xasprintf("%s%s %s in %zu run%s", s, i ? "," : "", shown,
		    v[i].count, v[i].count == 1 ? "" : "s");
		free(shown);
		free(s);
		s = t;
	}
	envdiff_note(out, s);
out:
	envdiff_values_free(v, n);
}

/* Returns 1 if every run of the column has the same value of key. */
static int
envdiff_uniform(const struct envdiff_column *c, const char *key)
{
	char  *a, *b;
	size_t i;
	int    same = 1;

	a = c->nruns ? envdiff_text(c->runs[0], key) : NULL;
	for (i = 1; i < c->nruns && same; i++) {
		b = envdiff_text(c->runs[i], key);
		same = envdiff_same(a, b);
		free(b);
	}
	free(a);
	return same;
}

/* Counts how many columns share each value, in first-column order. */
static void
envdiff_group(const struct envdiff *e, const char *key,
    struct envdiff_value **v, size_t *n)
{
	struct envdiff_value *val;
	size_t		      i, j, left;
	char		     *t;

	for (i = 0; i < e->n; i++) {
		if (e->v[i].nruns > 0)
			envdiff_count(v, n, envdiff_text(e->v[i].runs[0], key));
	}
	for (j = 0; j < *n; j++) {
		val = &(*v)[j];
		left = val->count;
		for (i = 0; i < e->n; i++) {
			if (e->v[i].nruns == 0)
				continue;
			t = envdiff_text(e->v[i].runs[0], key);
			if (envdiff_same(t, val->text))
				envdiff_list_add(&val->columns, e->v[i].name,
				    --left == 0 && val->count > 1);
			free(t);
		}
	}
}

/* Notes a fact whose value, uniform in each column, differs between them. */
static void
envdiff_between(const struct envdiff *e, const char *key,
    struct envdiff_notes *out)
{
	struct envdiff_value *v = NULL;
	size_t		      i, n = 0;
	char		     *s, *t, *shown;

	envdiff_group(e, key, &v, &n);
	if (n < 2)
		goto out;
	s = xasprintf("environment differs: %s is", key);
	for (i = 0; i < n; i++) {
		shown = envdiff_show(v, n, i, key);
		t = xasprintf("%s%s %s for %s", s, i ? "," : "", shown,
		    v[i].columns);
		free(shown);
		free(s);
		s = t;
	}
	envdiff_note(out, s);
out:
	envdiff_values_free(v, n);
}

/* Compares two keys for qsort. */
static int
envdiff_key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every fact name of every run, sorted, each once (caller frees array). */
static const char **
envdiff_keys(const struct envdiff *e, size_t *nkeys)
{
	const char **k = NULL, *key;
	json_t	    *val;
	size_t	     i, j, l, n = 0;

	for (i = 0; i < e->n; i++)
		for (j = 0; j < e->v[i].nruns; j++)
			json_object_foreach(e->v[i].runs[j], key, val)
			{
				for (l = 0; l < n && strcmp(k[l], key); l++)
					;
				if (l < n)
					continue;
				k = xreallocarray(k, n + 1, sizeof *k);
				k[n++] = key;
			}
	if (n > 0)
		qsort(k, n, sizeof *k, envdiff_key_cmp);
	*nkeys = n;
	return k;
}

size_t
envdiff_notes(const struct envdiff *e, char ***notes)
{
	struct envdiff_notes out = { 0 };
	const char	   **keys;
	size_t		     i, j, nkeys;
	int		     uniform;

	keys = envdiff_keys(e, &nkeys);
	for (i = 0; i < nkeys; i++) {
		if (envdiff_per_boot(keys[i]))
			continue;
		uniform = 1;
		for (j = 0; j < e->n; j++) {
			if (envdiff_uniform(&e->v[j], keys[i]))
				continue;
			uniform = 0;
			envdiff_within(&e->v[j], keys[i], &out);
		}
		if (uniform && envdiff_key_compared(e->by, keys[i]))
			envdiff_between(e, keys[i], &out);
	}
	free(keys);
	*notes = out.v;
	return out.n;
}

void
envdiff_apply(const struct envdiff *e, struct compare_table *t)
{
	char **notes;
	size_t i, n;

	n = envdiff_notes(e, &notes);
	for (i = 0; i < n; i++) {
		compare_table_add_note(t, "%s", notes[i]);
		free(notes[i]);
	}
	free(notes);
}
