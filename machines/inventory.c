/*
 * The lab inventory: machine files in YAML, loaded with libyaml's document
 * loader and checked against key tables.  Every error is collected with its
 * position and handed back at once, sorted by file, line and column.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <yaml.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "machines/inventory.h"

#define INV_MAX_FILE (4 * 1024 * 1024)
#define INV_NAME_MAX 64
#define INV_MAX_CPUS 65536
#define INV_MAX_KEYS 16
#define INV_DESC_MAX 40
#define INV_DAY_MS   (24LL * 3600 * 1000)
#define INV_MIN_KIB  1024ULL			  /* 1M */
#define INV_MAX_KIB  (16ULL * 1024 * 1024 * 1024) /* 16T */

#define INV_REQUIRED 0x1 /* the key must be given */
#define INV_EMPTY_OK 0x2 /* a string may be "" */

#define INV_DURATION                                     \
	"a duration from 1ms to 24h such as \"10s\" or " \
	"\"500ms\""
#define INV_SIZE    "a size from 1M to 16T such as \"4G\" or \"512M\""
#define INV_CPULIST "a cpu list such as \"0-3,8\""
#define INV_LLC	    "cpu lists split by \";\" such as \"0-3;4-7\""
#define INV_ARGV    "a command such as [pdu, off, \"3\"]"

/* One error, kept for sorting. */
struct inv_error {
	size_t fileno;
	size_t line; /* 1-based, 0 for a whole file */
	size_t col;
	size_t seq;
	char  *msg; /* "file:line:col: message" */
};

struct inv_errors {
	struct inv_error *v;
	size_t		  n;
};

/* What one load collects across its files. */
struct inv_loader {
	struct inventory *inv;
	struct inv_errors errs;
	size_t		  nfiles;
};

/* One file being parsed. */
struct inv_file {
	const char	  *path; /* as shown in errors */
	char		  *dir;	 /* its absolute directory */
	size_t		   fileno;
	yaml_document_t	   doc;
	struct inv_loader *ld;
};

struct inv_key;
typedef void (*inv_parse_fn)(struct inv_file *, const struct inv_key *,
    yaml_node_t *, void *);

/* One allowed key of a mapping and where its value goes. */
struct inv_key {
	const char	     *name;
	inv_parse_fn	      parse;
	size_t		      off; /* into the mapping's struct */
	int		      flags;
	long		      min; /* numbers */
	long		      max;
	const struct inv_key *sub; /* sections */
};

struct inv_range {
	int lo;
	int hi;
};

struct inv_cpuset {
	struct inv_range *v;
	size_t		  n;
};

/* Records one error at a 1-based position (line 0: the whole file). */
static void
inv_errors_add(struct inv_loader *ld, size_t fileno, size_t line, size_t col,
    char *msg)
{
	struct inv_errors *errs = &ld->errs;
	struct inv_error  *e;

	errs->v = xreallocarray(errs->v, errs->n + 1, sizeof(*errs->v));
	e = &errs->v[errs->n];
	e->fileno = fileno;
	e->line = line;
	e->col = col;
	e->seq = errs->n++;
	e->msg = msg;
}

/* Reports an error at a position (0-based, as libyaml counts) of the file. */
static void __attribute__((format(printf, 4, 5)))
inv_error_at(struct inv_file *f, size_t line, size_t col, const char *fmt, ...)
{
	va_list ap;
	char   *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	inv_errors_add(f->ld, f->fileno, line + 1, col + 1,
	    xasprintf("%s:%zu:%zu: %s", f->path, line + 1, col + 1, msg));
	free(msg);
}

/* Reports an error about the whole file, without a position. */
static void __attribute__((format(printf, 3, 4)))
inv_error_file(struct inv_loader *ld, size_t fileno, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	inv_errors_add(ld, fileno, 0, 0, xvasprintf(fmt, ap));
	va_end(ap);
}

/* strerror, lowercased as the house style wants; caller frees. */
static char *
inv_strerror(int errnum)
{
	char *s = xstrdup(strerror(errnum));

	s[0] = (char)tolower((unsigned char)s[0]);
	return s;
}

/* Quotes s as a YAML double-quoted scalar, cut after max bytes (0: never). */
static char *
inv_quote(const char *s, size_t max)
{
	size_t len = strlen(s), i, n = 0;
	bool   cut = max > 0 && len > max;
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
static char *
inv_desc(yaml_node_t *v)
{
	if (v->type == YAML_SEQUENCE_NODE)
		return xstrdup("a sequence");
	if (v->type == YAML_MAPPING_NODE)
		return xstrdup("a mapping");
	return inv_quote((const char *)v->data.scalar.value, INV_DESC_MAX);
}

/* Reports `"key" must be EXPECT, not VALUE` at the value. */
static void
inv_expect(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    const char *expect)
{
	char *d = inv_desc(v);

	inv_error_at(f, v->start_mark.line, v->start_mark.column,
	    "\"%s\" must be %s, not %s", k->name, expect, d);
	free(d);
}

/* True for an empty plain scalar, "~" or "null": the key counts as unset. */
static bool
inv_is_null(yaml_node_t *v)
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
static const char *
inv_scalar(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    const char *expect)
{
	const char *s;

	if (v->type != YAML_SCALAR_NODE) {
		inv_expect(f, k, v, expect);
		return NULL;
	}
	s = (const char *)v->data.scalar.value;
	if (strlen(s) != v->data.scalar.length) {
		inv_error_at(f, v->start_mark.line, v->start_mark.column,
		    "\"%s\" must not contain a nul character", k->name);
		return NULL;
	}
	return s;
}

/* The node with index i of the file's document. */
static yaml_node_t *
inv_node(struct inv_file *f, int i)
{
	return yaml_document_get_node(&f->doc, i);
}

/* The first pair of map whose key is name, or NULL. */
static yaml_node_pair_t *
inv_map_pair(struct inv_file *f, yaml_node_t *map, const char *name)
{
	yaml_node_pair_t *p;
	yaml_node_t	 *k;

	if (map == NULL || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		k = inv_node(f, p->key);
		if (k->type == YAML_SCALAR_NODE &&
		    strcmp((const char *)k->data.scalar.value, name) == 0)
			return p;
	}
	return NULL;
}

/* The value of key name in map if it is given and not null, else NULL. */
static yaml_node_t *
inv_map_value(struct inv_file *f, yaml_node_t *map, const char *name)
{
	yaml_node_pair_t *p = inv_map_pair(f, map, name);
	yaml_node_t	 *v;

	if (p == NULL)
		return NULL;
	v = inv_node(f, p->value);
	return inv_is_null(v) ? NULL : v;
}

/* Index of key in the table, or -1. */
static int
inv_key_find(const struct inv_key *keys, const char *name)
{
	int i;

	for (i = 0; keys[i].name != NULL; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

/* Checks one key of a mapping and hands its value to the key's parser. */
static void
inv_pair(struct inv_file *f, yaml_node_pair_t *p, const struct inv_key *keys,
    void *base, yaml_node_t **seen)
{
	yaml_node_t *k = inv_node(f, p->key), *v = inv_node(f, p->value);
	const char  *name;
	char	    *d;
	int	     i;

	if (k->type != YAML_SCALAR_NODE) {
		d = inv_desc(k);
		inv_error_at(f, k->start_mark.line, k->start_mark.column,
		    "a key must be a string, not %s", d);
		free(d);
		return;
	}
	name = (const char *)k->data.scalar.value;
	if ((i = inv_key_find(keys, name)) == -1) {
		d = inv_quote(name, INV_DESC_MAX);
		inv_error_at(f, k->start_mark.line, k->start_mark.column,
		    "unknown key %s", d);
		free(d);
		return;
	}
	if (seen[i] != NULL) {
		inv_error_at(f, k->start_mark.line, k->start_mark.column,
		    "duplicate key \"%s\", first at line %zu", name,
		    seen[i]->start_mark.line + 1);
		return;
	}
	seen[i] = k;
	if (!inv_is_null(v))
		keys[i].parse(f, &keys[i], v, (char *)base + keys[i].off);
}

/*
 * Parses a mapping against a key table into base: unknown, duplicate and
 * missing required keys are errors.  section names the mapping in messages
 * (NULL for a machine).
 */
static void
inv_mapping(struct inv_file *f, yaml_node_t *map, const struct inv_key *keys,
    void *base, const char *section)
{
	yaml_node_t	 *seen[INV_MAX_KEYS] = { NULL };
	yaml_node_pair_t *p;
	int		  i;

	for (p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++)
		inv_pair(f, p, keys, base, seen);
	for (i = 0; keys[i].name != NULL; i++) {
		if (!(keys[i].flags & INV_REQUIRED))
			continue;
		if (seen[i] == NULL)
			inv_error_at(f, map->start_mark.line,
			    map->start_mark.column,
			    "missing required key \"%s\"%s%s%s", keys[i].name,
			    section ? " in \"" : "", section ? section : "",
			    section ? "\"" : "");
		else if (inv_map_value(f, map, keys[i].name) == NULL)
			inv_error_at(f, seen[i]->start_mark.line,
			    seen[i]->start_mark.column,
			    "\"%s\" must have a value", keys[i].name);
	}
}

/* A nested mapping: topology, ssh, libvirt. */
static void
inv_parse_section(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	if (v->type != YAML_MAPPING_NODE) {
		inv_expect(f, k, v, "a mapping");
		return;
	}
	inv_mapping(f, v, k->sub, dst, k->name);
}

/* Stores a copy of s in the string field dst. */
static void
inv_store(void *dst, const char *s)
{
	char **p = dst;

	free(*p);
	*p = xstrdup(s);
}

/* Free text (cpu_model, notes, cmdline). */
static void
inv_parse_str(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, "a string");

	if (s == NULL)
		return;
	if (*s == '\0' && !(k->flags & INV_EMPTY_OK))
		inv_expect(f, k, v, "a non-empty string");
	else
		inv_store(dst, s);
}

/* A string with no blanks or control characters (host, user). */
static void
inv_parse_word(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, "a word without blanks"), *c;

	if (s == NULL)
		return;
	for (c = s; *c != '\0'; c++)
		if (isspace((unsigned char)*c) || iscntrl((unsigned char)*c))
			break;
	if (*s == '\0' || *c != '\0')
		inv_expect(f, k, v, "a word without blanks");
	else
		inv_store(dst, s);
}

/* A machine name: 1 to 64 of [A-Za-z0-9._-]. */
static void
inv_parse_name(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	static const char expect[] =
	    "1 to 64 characters from A-Z a-z 0-9 . _ -";
	const char *s = inv_scalar(f, k, v, expect);
	size_t	    len;

	if (s == NULL)
		return;
	len = strlen(s);
	if (len == 0 || len > INV_NAME_MAX ||
	    strspn(s,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789._-") != len)
		inv_expect(f, k, v, expect);
	else
		inv_store(dst, s);
}

/* kind: ssh | libvirt. */
static void
inv_parse_kind(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char	  *s = inv_scalar(f, k, v, "ssh or libvirt");
	enum machine_kind *kind = dst;

	if (s == NULL)
		return;
	if (strcmp(s, "ssh") == 0)
		*kind = MACHINE_SSH;
	else if (strcmp(s, "libvirt") == 0)
		*kind = MACHINE_LIBVIRT;
	else
		inv_expect(f, k, v, "ssh or libvirt");
}

/* arch: x86_64 | aarch64. */
static void
inv_parse_arch(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, "x86_64 or aarch64");

	if (s == NULL)
		return;
	if (strcmp(s, "x86_64") == 0 || strcmp(s, "aarch64") == 0)
		inv_store(dst, s);
	else
		inv_expect(f, k, v, "x86_64 or aarch64");
}

/* Parses a whole string as a decimal integer. */
static bool
inv_strtoll(const char *s, long long *out)
{
	const char *d = s[0] == '-' ? s + 1 : s;
	char	   *end;

	if (!isdigit((unsigned char)*d))
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return errno == 0 && *end == '\0';
}

/* An int field in [k->min, k->max]. */
static void
inv_parse_int(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s;
	char	   *expect;
	long long   n;

	expect = xasprintf("a number from %ld to %ld", k->min, k->max);
	if ((s = inv_scalar(f, k, v, expect)) == NULL)
		goto out;
	if (!inv_strtoll(s, &n) || n < k->min || n > k->max)
		inv_expect(f, k, v, expect);
	else
		*(int *)dst = (int)n;
out:
	free(expect);
}

/* true/false (yes/no, on/off as YAML 1.1 has them). */
static void
inv_parse_bool(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, "true or false");

	if (s == NULL)
		return;
	if (strcasecmp(s, "true") == 0 || strcasecmp(s, "yes") == 0 ||
	    strcasecmp(s, "on") == 0)
		*(bool *)dst = true;
	else if (strcasecmp(s, "false") == 0 || strcasecmp(s, "no") == 0 ||
	    strcasecmp(s, "off") == 0)
		*(bool *)dst = false;
	else
		inv_expect(f, k, v, "true or false");
}

/* Parses "500ms", "10s", "2m", "1h" or plain seconds into milliseconds. */
static bool
inv_duration_ms(const char *s, long long *ms)
{
	char	 *end;
	long long n, unit;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	n = strtoll(s, &end, 10);
	if (errno != 0 || n > INV_DAY_MS)
		return false;
	if (strcmp(end, "ms") == 0)
		unit = 1;
	else if (*end == '\0' || strcmp(end, "s") == 0)
		unit = 1000;
	else if (strcmp(end, "m") == 0)
		unit = 60 * 1000;
	else if (strcmp(end, "h") == 0)
		unit = 3600 * 1000;
	else
		return false;
	*ms = n * unit;
	return true;
}

/* A duration into an int of milliseconds, 1ms to 24h. */
static void
inv_parse_duration(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, INV_DURATION);
	long long   ms;

	if (s == NULL)
		return;
	if (!inv_duration_ms(s, &ms) || ms < 1 || ms > INV_DAY_MS)
		inv_expect(f, k, v, INV_DURATION);
	else
		*(int *)dst = (int)ms;
}

/* Parses "512M", "4G" (K, M, G, T: powers of 1024) into KiB. */
static bool
inv_size_kib(const char *s, uint64_t *kib)
{
	char		  *end;
	unsigned long long n;
	const char	  *units = "KMGT", *u;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno != 0 || n > INV_MAX_KIB || end[0] == '\0' || end[1] != '\0')
		return false;
	if ((u = strchr(units, toupper((unsigned char)end[0]))) == NULL)
		return false;
	for (; u > units; u--)
		n *= 1024;
	*kib = n;
	return true;
}

/* A memory size, 1M to 16T, into a uint64_t of KiB. */
static void
inv_parse_size(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, INV_SIZE);
	uint64_t    kib;

	if (s == NULL)
		return;
	if (!inv_size_kib(s, &kib) || kib < INV_MIN_KIB || kib > INV_MAX_KIB)
		inv_expect(f, k, v, INV_SIZE);
	else
		*(uint64_t *)dst = kib;
}

/* Joins rel to dir unless it is absolute, and drops ".", ".." and "//". */
static char *
inv_path_resolve(const char *dir, const char *rel)
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

/* A local file path; a relative one is taken from the file's directory. */
static void
inv_parse_path(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, "a path");
	char	  **p = dst;

	if (s == NULL)
		return;
	if (*s == '\0') {
		inv_expect(f, k, v, "a path");
		return;
	}
	if (s[0] == '~') {
		inv_expect(f, k, v,
		    "an absolute path or one relative to the "
		    "machine file");
		return;
	}
	free(*p);
	*p = inv_path_resolve(f->dir, s);
}

/* A path on the remote host: it must be absolute. */
static void
inv_parse_abspath(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, "an absolute path");
	char	  **p = dst;

	if (s == NULL)
		return;
	if (s[0] != '/') {
		inv_expect(f, k, v, "an absolute path");
		return;
	}
	free(*p);
	*p = inv_path_resolve("/", s);
}

/* A libvirt connection URI. */
static void
inv_parse_uri(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	static const char expect[] = "a libvirt uri such as "
				     "\"qemu:///system\"";
	const char	 *s = inv_scalar(f, k, v, expect);

	if (s == NULL)
		return;
	if (strstr(s, "://") == NULL || s[0] == ':' || strchr(s, ' ') != NULL)
		inv_expect(f, k, v, expect);
	else
		inv_store(dst, s);
}

/* Reads one cpu number (blanks around it allowed); -1 if there is none. */
static int
inv_cpu_num(const char **pp, const char *end)
{
	const char *p = *pp;
	int	    n = 0, digits = 0;

	while (p < end && *p == ' ')
		p++;
	while (p < end && isdigit((unsigned char)*p) && digits < 6) {
		n = n * 10 + (*p++ - '0');
		digits++;
	}
	while (p < end && *p == ' ')
		p++;
	*pp = p;
	if (digits == 0 || digits == 6 || n >= INV_MAX_CPUS)
		return -1;
	return n;
}

/* Appends the range lo-hi to set. */
static void
inv_cpuset_add(struct inv_cpuset *set, int lo, int hi)
{
	set->v = xreallocarray(set->v, set->n + 1, sizeof(*set->v));
	set->v[set->n].lo = lo;
	set->v[set->n].hi = hi;
	set->n++;
}

/* Parses the cpu list s[0..len) ("0-3,8") into set; false if malformed. */
static bool
inv_cpulist_parse(const char *s, size_t len, struct inv_cpuset *set)
{
	const char *p = s, *end = s + len;
	int	    lo, hi;

	do {
		if ((lo = inv_cpu_num(&p, end)) == -1)
			return false;
		hi = lo;
		if (p < end && *p == '-') {
			p++;
			if ((hi = inv_cpu_num(&p, end)) < lo)
				return false;
		}
		inv_cpuset_add(set, lo, hi);
		if (p < end && *p++ != ',')
			return false;
	} while (p < end);
	return p[-1] != ',';
}

/* Orders ranges by their first cpu. */
static int
inv_range_cmp(const void *a, const void *b)
{
	const struct inv_range *ra = a, *rb = b;

	return (ra->lo > rb->lo) - (ra->lo < rb->lo);
}

/* Sorts and merges set; returns a cpu listed twice, or -1. */
static int
inv_cpuset_normalize(struct inv_cpuset *set)
{
	size_t i, n = 0;

	if (set->n == 0)
		return -1;
	qsort(set->v, set->n, sizeof(*set->v), inv_range_cmp);
	for (i = 1; i < set->n; i++) {
		if (set->v[i].lo <= set->v[n].hi)
			return set->v[i].lo;
		if (set->v[i].lo == set->v[n].hi + 1)
			set->v[n].hi = set->v[i].hi;
		else
			set->v[++n] = set->v[i];
	}
	set->n = n + 1;
	return -1;
}

/* Number of cpus in a normalized set. */
static int
inv_cpuset_count(const struct inv_cpuset *set)
{
	size_t i;
	int    n = 0;

	for (i = 0; i < set->n; i++)
		n += set->v[i].hi - set->v[i].lo + 1;
	return n;
}

/* Appends the normalized set as "0-3,8" to out (room for 13 per range). */
static void
inv_cpuset_format(const struct inv_cpuset *set, char *out)
{
	size_t i;

	out += strlen(out);
	for (i = 0; i < set->n; i++) {
		if (set->v[i].lo == set->v[i].hi)
			out += sprintf(out, "%s%d", i ? "," : "", set->v[i].lo);
		else
			out += sprintf(out, "%s%d-%d", i ? "," : "",
			    set->v[i].lo, set->v[i].hi);
	}
}

/* Parses a ';'-separated list of cpu lists into one normalized set. */
static bool
inv_cpugroups_parse(const char *s, struct inv_cpuset *all, int *dup)
{
	const char	 *g = s, *semi;
	struct inv_cpuset set = { NULL, 0 };
	size_t		  i, len;
	bool		  ok;

	*dup = -1;
	do {
		semi = strchr(g, ';');
		len = semi != NULL ? (size_t)(semi - g) : strlen(g);
		set.n = 0;
		ok = inv_cpulist_parse(g, len, &set);
		if (ok && (*dup = inv_cpuset_normalize(&set)) != -1)
			break;
		for (i = 0; ok && i < set.n; i++)
			inv_cpuset_add(all, set.v[i].lo, set.v[i].hi);
		g = semi + (semi != NULL);
	} while (ok && semi != NULL);
	free(set.v);
	if (ok && *dup == -1)
		*dup = inv_cpuset_normalize(all);
	return ok;
}

/* Formats each ';'-separated group of a valid cpu group list normalized. */
static char *
inv_cpugroups_format(const char *s)
{
	char		 *out = xcalloc(1, strlen(s) * 13 + 2);
	const char	 *g = s, *semi;
	struct inv_cpuset set = { NULL, 0 };
	size_t		  len;

	do {
		semi = strchr(g, ';');
		len = semi != NULL ? (size_t)(semi - g) : strlen(g);
		set.n = 0;
		inv_cpulist_parse(g, len, &set);
		inv_cpuset_normalize(&set);
		if (g != s)
			strcat(out, ";");
		inv_cpuset_format(&set, out);
		g = semi + (semi != NULL);
	} while (semi != NULL);
	free(set.v);
	return out;
}

/* A cpu list, or with groups a ';'-separated list of them; normalized. */
static void
inv_parse_cpugroups(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst, bool groups)
{
	const char	 *expect = groups ? INV_LLC : INV_CPULIST;
	const char	 *s = inv_scalar(f, k, v, expect);
	struct inv_cpuset all = { NULL, 0 };
	int		  dup;

	if (s == NULL)
		return;
	if ((!groups && strchr(s, ';') != NULL) ||
	    !inv_cpugroups_parse(s, &all, &dup)) {
		inv_expect(f, k, v, expect);
		goto out;
	}
	if (dup != -1) {
		inv_error_at(f, v->start_mark.line, v->start_mark.column,
		    "\"%s\" lists cpu %d more than once", k->name, dup);
		goto out;
	}
	free(*(char **)dst);
	*(char **)dst = inv_cpugroups_format(s);
out:
	free(all.v);
}

/* A numa cell's cpu list. */
static void
inv_parse_cpus(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	inv_parse_cpugroups(f, k, v, dst, false);
}

/* The LLC groups of a topology. */
static void
inv_parse_llc(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	inv_parse_cpugroups(f, k, v, dst, true);
}

/* lan or lanplus: the ipmitool interface. */
static void
inv_parse_ipmi_if(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = inv_scalar(f, k, v, "lan or lanplus");

	if (s == NULL)
		return;
	if (strcmp(s, "lan") == 0 || strcmp(s, "lanplus") == 0)
		inv_store(dst, s);
	else
		inv_expect(f, k, v, "lan or lanplus");
}

/* Frees a NULL-terminated argv. */
static void
inv_argv_free(char **argv)
{
	size_t i;

	for (i = 0; argv != NULL && argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/* One word of a command; NULL after reporting an entry that is not one. */
static char *
inv_argv_word(struct inv_file *f, const struct inv_key *k, yaml_node_t *item)
{
	char *d;

	if (item->type == YAML_SCALAR_NODE && item->data.scalar.length > 0 &&
	    strlen((const char *)item->data.scalar.value) ==
		item->data.scalar.length)
		return xstrdup((const char *)item->data.scalar.value);
	d = inv_desc(item);
	inv_error_at(f, item->start_mark.line, item->start_mark.column,
	    "\"%s\" entries must be non-empty strings, not %s", k->name, d);
	free(d);
	return NULL;
}

/*
 * A command as a sequence of words, run without a shell; a relative program
 * path with a "/" is taken from the machine file's directory.
 */
static void
inv_parse_argv(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	yaml_node_item_t *i;
	char	       ***argv = dst, **out, *prog;
	size_t		  n = 0;

	if (v->type != YAML_SEQUENCE_NODE) {
		inv_expect(f, k, v, INV_ARGV);
		return;
	}
	if (v->data.sequence.items.top == v->data.sequence.items.start) {
		inv_error_at(f, v->start_mark.line, v->start_mark.column,
		    "\"%s\" must be %s, not an empty sequence", k->name,
		    INV_ARGV);
		return;
	}
	out = xcalloc((size_t)(v->data.sequence.items.top -
			  v->data.sequence.items.start) +
		1,
	    sizeof(*out));
	for (i = v->data.sequence.items.start; i < v->data.sequence.items.top;
	     i++) {
		if ((out[n++] = inv_argv_word(f, k, inv_node(f, *i))) == NULL) {
			inv_argv_free(out);
			return;
		}
	}
	if (strchr(out[0], '/') != NULL && out[0][0] != '/') {
		prog = inv_path_resolve(f->dir, out[0]);
		free(out[0]);
		out[0] = prog;
	}
	inv_argv_free(*argv);
	*argv = out;
}

#define TOPO(f) offsetof(struct machine_topology, f)
#define SSH(f)	offsetof(struct machine_ssh, f)
#define LV(f)	offsetof(struct machine_libvirt, f)
#define CELL(f) offsetof(struct machine_numa_cell, f)
#define MACH(f) offsetof(struct machine, f)
#define IPMI(f) offsetof(struct machine_ipmi, f)
#define PCMD(f) offsetof(struct machine_power_commands, f)
#define POWR(f) offsetof(struct machine_power, f)

static const struct inv_key inv_cell_keys[] = {
	{ "cpus", inv_parse_cpus, CELL(cpus), INV_REQUIRED, 0, 0, NULL },
	{ "memory", inv_parse_size, CELL(memory_kib), INV_REQUIRED, 0, 0,
	    NULL },
	{ NULL, NULL, 0, 0, 0, 0, NULL }
};

/* The guest NUMA cells: a sequence of {cpus, memory}. */
static void
inv_parse_cells(struct inv_file *f, const struct inv_key *k, yaml_node_t *v,
    void *dst)
{
	struct machine_libvirt	 *lv = dst;
	struct machine_numa_cell *c;
	yaml_node_item_t	 *i;
	yaml_node_t		 *item;
	char			 *d;

	if (v->type != YAML_SEQUENCE_NODE) {
		inv_expect(f, k, v, "a sequence of mappings");
		return;
	}
	for (i = v->data.sequence.items.start; i < v->data.sequence.items.top;
	     i++) {
		item = inv_node(f, *i);
		if (item->type != YAML_MAPPING_NODE) {
			d = inv_desc(item);
			inv_error_at(f, item->start_mark.line,
			    item->start_mark.column,
			    "a \"%s\" entry must be a mapping, not %s", k->name,
			    d);
			free(d);
			continue;
		}
		lv->cells = xreallocarray(lv->cells, lv->ncells + 1,
		    sizeof(*lv->cells));
		c = &lv->cells[lv->ncells++];
		memset(c, 0, sizeof(*c));
		inv_mapping(f, item, inv_cell_keys, c, k->name);
	}
}

static const struct inv_key inv_topology_keys[] = {
	{ "cpus", inv_parse_int, TOPO(cpus), 0, 1, INV_MAX_CPUS, NULL },
	{ "sockets", inv_parse_int, TOPO(sockets), 0, 1, 1024, NULL },
	{ "dies", inv_parse_int, TOPO(dies), 0, 1, 1024, NULL },
	{ "cores", inv_parse_int, TOPO(cores), 0, 1, INV_MAX_CPUS, NULL },
	{ "threads", inv_parse_int, TOPO(threads), 0, 1, 64, NULL },
	{ "numa_nodes", inv_parse_int, TOPO(numa_nodes), 0, 1, 4096, NULL },
	{ "llc_groups", inv_parse_llc, TOPO(llc_groups), 0, 0, 0, NULL },
	{ NULL, NULL, 0, 0, 0, 0, NULL }
};

static const struct inv_key inv_ssh_keys[] = {
	{ "host", inv_parse_word, SSH(host), INV_REQUIRED, 0, 0, NULL },
	{ "port", inv_parse_int, SSH(port), 0, 1, 65535, NULL },
	{ "user", inv_parse_word, SSH(user), 0, 0, 0, NULL },
	{ "identity", inv_parse_path, SSH(identity), INV_REQUIRED, 0, 0, NULL },
	{ "known_hosts", inv_parse_path, SSH(known_hosts), INV_REQUIRED, 0, 0,
	    NULL },
	{ "trust_on_first_use", inv_parse_bool, SSH(trust_on_first_use), 0, 0,
	    0, NULL },
	{ "connect_timeout", inv_parse_duration, SSH(connect_timeout_ms), 0, 0,
	    0, NULL },
	{ "command_timeout", inv_parse_duration, SSH(command_timeout_ms), 0, 0,
	    0, NULL },
	{ "agent_dir", inv_parse_abspath, SSH(agent_dir), 0, 0, 0, NULL },
	{ NULL, NULL, 0, 0, 0, 0, NULL }
};

/* numa_cells fills cells and ncells, so its parser gets the whole section. */
static const struct inv_key inv_libvirt_keys[] = { { "uri", inv_parse_uri,
						       LV(uri), 0, 0, 0, NULL },
	{ "vcpus", inv_parse_int, LV(vcpus), 0, 1, 4096, NULL },
	{ "memory", inv_parse_size, LV(memory_kib), INV_REQUIRED, 0, 0, NULL },
	{ "cpu_model", inv_parse_str, LV(cpu_model), 0, 0, 0, NULL },
	{ "numa_cells", inv_parse_cells, 0, 0, 0, 0, NULL },
	{ "cmdline", inv_parse_str, LV(cmdline), INV_EMPTY_OK, 0, 0, NULL },
	{ "disk", inv_parse_path, LV(disk), 0, 0, 0, NULL },
	{ "console_dir", inv_parse_path, LV(console_dir), 0, 0, 0, NULL },
	{ "kernel", inv_parse_path, LV(kernel), 0, 0, 0, NULL },
	{ "initrd", inv_parse_path, LV(initrd), 0, 0, 0, NULL },
	{ "boot_timeout", inv_parse_duration, LV(boot_timeout_ms), 0, 0, 0,
	    NULL },
	{ "emulator", inv_parse_abspath, LV(emulator), 0, 0, 0, NULL },
	{ "boot_tries", inv_parse_int, LV(boot_tries), 0, 1, 20, NULL },
	{ NULL, NULL, 0, 0, 0, 0, NULL } };

static const struct inv_key inv_ipmi_keys[] = {
	{ "host", inv_parse_word, IPMI(host), INV_REQUIRED, 0, 0, NULL },
	{ "port", inv_parse_int, IPMI(port), 0, 1, 65535, NULL },
	{ "user", inv_parse_word, IPMI(user), INV_REQUIRED, 0, 0, NULL },
	{ "password_file", inv_parse_path, IPMI(password_file), INV_REQUIRED, 0,
	    0, NULL },
	{ "interface", inv_parse_ipmi_if, IPMI(interface), 0, 0, 0, NULL },
	{ "cipher", inv_parse_int, IPMI(cipher), 0, 1, 17, NULL },
	{ NULL, NULL, 0, 0, 0, 0, NULL }
};

static const struct inv_key inv_power_command_keys[] = {
	{ "on", inv_parse_argv, PCMD(on), INV_REQUIRED, 0, 0, NULL },
	{ "off", inv_parse_argv, PCMD(off), INV_REQUIRED, 0, 0, NULL },
	{ "cycle", inv_parse_argv, PCMD(cycle), 0, 0, 0, NULL },
	{ "status", inv_parse_argv, PCMD(status), 0, 0, 0, NULL },
	{ NULL, NULL, 0, 0, 0, 0, NULL }
};

static const struct inv_key inv_power_keys[] = {
	{ "ipmi", inv_parse_section, POWR(ipmi), 0, 0, 0, inv_ipmi_keys },
	{ "command", inv_parse_section, POWR(command), 0, 0, 0,
	    inv_power_command_keys },
	{ "boot_timeout", inv_parse_duration, POWR(boot_timeout_ms), 0, 0, 0,
	    NULL },
	{ NULL, NULL, 0, 0, 0, 0, NULL }
};

static const struct inv_key inv_machine_keys[] = {
	{ "name", inv_parse_name, MACH(name), INV_REQUIRED, 0, 0, NULL },
	{ "kind", inv_parse_kind, MACH(kind), INV_REQUIRED, 0, 0, NULL },
	{ "arch", inv_parse_arch, MACH(arch), 0, 0, 0, NULL },
	{ "cpu_model", inv_parse_str, MACH(cpu_model), 0, 0, 0, NULL },
	{ "notes", inv_parse_str, MACH(notes), INV_EMPTY_OK, 0, 0, NULL },
	{ "mirror", inv_parse_path, MACH(mirror), 0, 0, 0, NULL },
	{ "topology", inv_parse_section, MACH(topo), 0, 0, 0,
	    inv_topology_keys },
	{ "ssh", inv_parse_section, MACH(ssh), INV_REQUIRED, 0, 0,
	    inv_ssh_keys },
	{ "libvirt", inv_parse_section, MACH(libvirt), 0, 0, 0,
	    inv_libvirt_keys },
	{ "power", inv_parse_section, MACH(power), 0, 0, 0, inv_power_keys },
	{ NULL, NULL, 0, 0, 0, 0, NULL }
};

/* Reports an error at the value of key in map (which must be there). */
static void __attribute__((format(printf, 4, 5)))
inv_error_key(struct inv_file *f, yaml_node_t *map, const char *key,
    const char *fmt, ...)
{
	yaml_node_pair_t *p = inv_map_pair(f, map, key);
	yaml_mark_t	  mark = map->start_mark;
	va_list		  ap;
	char		 *msg;

	if (p != NULL)
		mark = inv_node(f, p->value)->start_mark;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	inv_error_at(f, mark.line, mark.column, "%s", msg);
	free(msg);
}

/* Checks LLC groups against the cpu count: every cpu in one group. */
static void
inv_llc_check(struct inv_file *f, yaml_node_t *tmap,
    const struct machine_topology *t)
{
	struct inv_cpuset all = { NULL, 0 };
	int		  dup, count;

	if (t->llc_groups == NULL || t->cpus < 1)
		return;
	inv_cpugroups_parse(t->llc_groups, &all, &dup);
	count = inv_cpuset_count(&all);
	if (all.v[all.n - 1].hi >= t->cpus)
		inv_error_key(f, tmap, "llc_groups",
		    "\"llc_groups\" names cpu "
		    "%d, but \"cpus\" is %d",
		    all.v[all.n - 1].hi, t->cpus);
	else if (count != t->cpus)
		inv_error_key(f, tmap, "llc_groups",
		    "\"llc_groups\" covers %d "
		    "of %d cpus",
		    count, t->cpus);
	free(all.v);
}

/* Checks the topology: sockets x cores x threads == cpus when all given. */
static void
inv_topology_check(struct inv_file *f, yaml_node_t *tmap,
    struct machine_topology *t)
{
	long product;

	if (t->sockets < 1 || t->cores < 1 || t->threads < 1)
		product = -1;
	else
		product = (long)t->sockets * t->cores * t->threads;
	if (product > 0 && t->cpus > 0 && product != t->cpus)
		inv_error_key(f, tmap, "cpus",
		    "\"cpus\" is %d, but sockets x "
		    "cores x threads is %d x %d x %d = %ld",
		    t->cpus, t->sockets, t->cores, t->threads, product);
	else if (product > INV_MAX_CPUS)
		inv_error_key(f, tmap, "cores",
		    "sockets x cores x threads is "
		    "%ld, more than %d cpus",
		    product, INV_MAX_CPUS);
	else if (product > 0 && t->cpus == -1)
		t->cpus = (int)product;
}

/* Formats KiB with the largest unit that divides it: "4G", "1536M". */
static char *
inv_size_str(uint64_t kib)
{
	const char *units = "KMGT";

	while (units[1] != '\0' && kib != 0 && kib % 1024 == 0) {
		kib /= 1024;
		units++;
	}
	return xasprintf("%" PRIu64 "%c", kib, units[0]);
}

/* Checks one numa cell's cpus against vcpus; false if one is beyond. */
static bool
inv_cell_check(struct inv_file *f, yaml_node_t *cmap,
    const struct machine_numa_cell *c, int vcpus, struct inv_cpuset *all)
{
	struct inv_cpuset set = { NULL, 0 };
	size_t		  i;
	bool		  ok = true;

	inv_cpulist_parse(c->cpus, strlen(c->cpus), &set);
	inv_cpuset_normalize(&set);
	if (set.v[set.n - 1].hi >= vcpus) {
		inv_error_key(f, cmap, "cpus",
		    "\"cpus\" names cpu %d, but "
		    "\"vcpus\" is %d",
		    set.v[set.n - 1].hi, vcpus);
		ok = false;
	}
	for (i = 0; i < set.n; i++)
		inv_cpuset_add(all, set.v[i].lo, set.v[i].hi);
	free(set.v);
	return ok;
}

/* Checks the cells together: no cpu twice, all vcpus, memory adds up. */
static void
inv_cells_check(struct inv_file *f, yaml_node_t *lmap, struct machine *m)
{
	struct machine_libvirt *lv = &m->libvirt;
	yaml_node_t	       *seq = inv_map_value(f, lmap, "numa_cells");
	yaml_node_t	       *item;
	struct inv_cpuset	all = { NULL, 0 };
	uint64_t		sum = 0;
	size_t			i;
	int			dup;
	bool			inside = true;
	char		       *a = NULL, *b = NULL;

	if (seq == NULL || lv->ncells == 0 || lv->vcpus < 1 ||
	    lv->ncells !=
		(size_t)(seq->data.sequence.items.top -
		    seq->data.sequence.items.start))
		return;
	for (i = 0; i < lv->ncells; i++) {
		if (lv->cells[i].cpus == NULL || lv->cells[i].memory_kib == 0)
			goto out;
		item = inv_node(f, seq->data.sequence.items.start[i]);
		if (!inv_cell_check(f, item, &lv->cells[i], lv->vcpus, &all))
			inside = false;
		sum += lv->cells[i].memory_kib;
	}
	if ((dup = inv_cpuset_normalize(&all)) != -1)
		inv_error_key(f, lmap, "numa_cells",
		    "cpu %d is in more than "
		    "one of \"numa_cells\"",
		    dup);
	else if (inside && inv_cpuset_count(&all) != lv->vcpus)
		inv_error_key(f, lmap, "numa_cells",
		    "\"numa_cells\" cover %d "
		    "of %d vcpus",
		    inv_cpuset_count(&all), lv->vcpus);
	if (lv->memory_kib != 0 && sum != lv->memory_kib) {
		a = inv_size_str(sum);
		b = inv_size_str(lv->memory_kib);
		inv_error_key(f, lmap, "numa_cells",
		    "\"numa_cells\" memory "
		    "adds up to %s, but \"memory\" is %s",
		    a, b);
	}
out:
	free(a);
	free(b);
	free(all.v);
}

/*
 * Why the emulator of lv cannot be run on this machine, or NULL when it
 * can or when libvirt runs it elsewhere (a uri other than qemu:///...).
 */
static const char *
inv_emulator_problem(const struct machine_libvirt *lv)
{
	const char *emu =
	    lv->emulator != NULL ? lv->emulator : MACHINE_QEMU_SINGLE;
	struct stat st;

	if (lv->uri != NULL && strncmp(lv->uri, "qemu:///", 8) != 0)
		return NULL;
	if (stat(emu, &st) == -1)
		return strerror(errno);
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (access(emu, X_OK) == -1)
		return "not executable";
	return NULL;
}

/*
 * Checks that the emulator the file names can be run here (libvirt runs
 * it on this machine for a qemu:/// uri).  The wrapper hilab ships, the
 * default, is checked where a VM boots and by "hilab machines check"
 * (scripts/lab.sh installs it): a file naming it stays valid where it is
 * only read.
 */
static void
inv_emulator_check(struct inv_file *f, yaml_node_t *lmap,
    const struct machine_libvirt *lv)
{
	const char *why;

	if (lv->emulator == NULL ||
	    strcmp(lv->emulator, MACHINE_QEMU_SINGLE) == 0)
		return;
	if ((why = inv_emulator_problem(lv)) != NULL)
		inv_error_key(f, lmap, "emulator",
		    "\"emulator\" %s cannot be run: %s", lv->emulator, why);
}

char *
inventory_emulator_check(const struct machine *m)
{
	const char *why;

	if (m->kind != MACHINE_LIBVIRT ||
	    (why = inv_emulator_problem(&m->libvirt)) == NULL)
		return NULL;
	return xasprintf(
	    "%s:%d: machine \"%s\": emulator %s cannot be run: "
	    "%s (scripts/lab.sh installs %s; \"emulator: "
	    "/usr/bin/qemu-system-x86_64\" in \"libvirt\" keeps qemu's own "
	    "threading)",
	    m->file != NULL ? m->file : "?", m->line, m->name,
	    m->libvirt.emulator != NULL ? m->libvirt.emulator
					: MACHINE_QEMU_SINGLE,
	    why, MACHINE_QEMU_SINGLE);
}

/* Reconciles the libvirt section with the topology and checks the cells. */
static void
inv_libvirt_check(struct inv_file *f, yaml_node_t *map, struct machine *m)
{
	yaml_node_t		*lmap = inv_map_value(f, map, "libvirt");
	struct machine_libvirt	*lv = &m->libvirt;
	struct machine_topology *t = &m->topo;

	if (lmap == NULL || lmap->type != YAML_MAPPING_NODE) {
		if (lmap == NULL)
			inv_error_at(f, map->start_mark.line,
			    map->start_mark.column,
			    "missing required key "
			    "\"libvirt\" for kind libvirt");
		return;
	}
	if (lv->vcpus > 0 && t->cpus > 0 && lv->vcpus != t->cpus)
		inv_error_key(f, lmap, "vcpus",
		    "\"vcpus\" is %d, but topology "
		    "\"cpus\" is %d",
		    lv->vcpus, t->cpus);
	else if (lv->vcpus < 1 && t->cpus > 0)
		lv->vcpus = t->cpus;
	else if (lv->vcpus > 0 && t->cpus < 1)
		t->cpus = lv->vcpus;
	else if (lv->vcpus < 1 && inv_map_value(f, lmap, "vcpus") == NULL)
		inv_error_at(f, lmap->start_mark.line, lmap->start_mark.column,
		    "missing required key \"vcpus\" in \"libvirt\" (or "
		    "\"cpus\" in \"topology\")");
	inv_cells_check(f, lmap, m);
	inv_emulator_check(f, lmap, lv);
	if (lv->ncells > 0 && t->numa_nodes > 0 &&
	    (size_t)t->numa_nodes != lv->ncells)
		inv_error_key(f, lmap, "numa_cells",
		    "\"numa_cells\" has %zu "
		    "cells, but topology \"numa_nodes\" is %d",
		    lv->ncells, t->numa_nodes);
	else if (lv->ncells > 0)
		t->numa_nodes = (int)lv->ncells;
}

/* Checks the power section: kind ssh, and one of ipmi or command. */
static void
inv_power_check(struct inv_file *f, yaml_node_t *map, struct machine *m)
{
	yaml_node_t	 *pmap = inv_map_value(f, map, "power");
	yaml_node_pair_t *p = inv_map_pair(f, map, "power");
	bool		  ipmi, cmd;

	if (pmap == NULL || pmap->type != YAML_MAPPING_NODE)
		return;
	if (m->kind == MACHINE_LIBVIRT) {
		inv_error_at(f, inv_node(f, p->key)->start_mark.line,
		    inv_node(f, p->key)->start_mark.column,
		    "\"power\" is only allowed with kind ssh (libvirt "
		    "powers its VMs)");
		return;
	}
	ipmi = inv_map_value(f, pmap, "ipmi") != NULL;
	cmd = inv_map_value(f, pmap, "command") != NULL;
	if (ipmi && cmd)
		inv_error_key(f, pmap, "command",
		    "\"power\" takes \"ipmi\" or \"command\", not "
		    "both");
	else if (!ipmi && !cmd)
		inv_error_at(f, pmap->start_mark.line, pmap->start_mark.column,
		    "missing \"ipmi\" or \"command\" in \"power\"");
	else
		m->power.kind =
		    ipmi ? MACHINE_POWER_IPMI : MACHINE_POWER_COMMAND;
}

/* Fills in the power section's defaults. */
static void
inv_power_defaults(struct machine_power *pw)
{
	if (pw->boot_timeout_ms == 0)
		pw->boot_timeout_ms = 300000;
	if (pw->kind != MACHINE_POWER_IPMI)
		return;
	if (pw->ipmi.port == 0)
		pw->ipmi.port = 623;
	if (pw->ipmi.interface == NULL)
		pw->ipmi.interface = xstrdup("lanplus");
	if (pw->ipmi.cipher == 0)
		pw->ipmi.cipher = 3;
}

/* Fills in every default the file left out. */
static void
inv_defaults(struct machine *m)
{
	if (m->arch == NULL)
		m->arch = xstrdup("x86_64");
	if (m->ssh.port == 0)
		m->ssh.port = 22;
	if (m->ssh.user == NULL)
		m->ssh.user = xstrdup("root");
	if (m->ssh.connect_timeout_ms == 0)
		m->ssh.connect_timeout_ms = 10000;
	if (m->ssh.command_timeout_ms == 0)
		m->ssh.command_timeout_ms = 60000;
	if (m->ssh.agent_dir == NULL)
		m->ssh.agent_dir = xstrdup("/var/tmp/hilab");
	if (m->power.kind != MACHINE_POWER_NONE)
		inv_power_defaults(&m->power);
	if (m->kind != MACHINE_LIBVIRT)
		return;
	if (m->libvirt.uri == NULL)
		m->libvirt.uri = xstrdup("qemu:///system");
	if (m->libvirt.cpu_model == NULL)
		m->libvirt.cpu_model = xstrdup("Nehalem");
	if (m->libvirt.cmdline == NULL)
		m->libvirt.cmdline = xstrdup("");
	if (m->libvirt.boot_timeout_ms == 0)
		m->libvirt.boot_timeout_ms = 180000;
	if (m->libvirt.emulator == NULL)
		m->libvirt.emulator = xstrdup(MACHINE_QEMU_SINGLE);
	if (m->libvirt.boot_tries == 0)
		m->libvirt.boot_tries = 3;
}

/* Cross-key checks of a parsed machine, then its defaults. */
static void
inv_machine_check(struct inv_file *f, yaml_node_t *map, struct machine *m)
{
	yaml_node_t	 *tmap = inv_map_value(f, map, "topology");
	yaml_node_pair_t *p;

	if ((p = inv_map_pair(f, map, "name")) != NULL)
		m->line = (int)inv_node(f, p->key)->start_mark.line + 1;
	if (tmap != NULL && tmap->type == YAML_MAPPING_NODE)
		inv_topology_check(f, tmap, &m->topo);
	if (m->kind == MACHINE_LIBVIRT)
		inv_libvirt_check(f, map, m);
	else if (m->kind == MACHINE_SSH &&
	    (p = inv_map_pair(f, map, "libvirt")) != NULL)
		inv_error_at(f, inv_node(f, p->key)->start_mark.line,
		    inv_node(f, p->key)->start_mark.column,
		    "\"libvirt\" is only allowed with kind libvirt");
	inv_power_check(f, map, m);
	if (tmap != NULL && tmap->type == YAML_MAPPING_NODE)
		inv_llc_check(f, tmap, &m->topo);
	inv_defaults(m);
}

/* A machine with nothing set: topology -1, the rest zero. */
static struct machine *
inv_machine_new(struct inv_file *f)
{
	struct machine *m = xcalloc(1, sizeof(*m));

	m->file = xstrdup(f->path);
	m->topo.cpus = m->topo.sockets = m->topo.dies = -1;
	m->topo.cores = m->topo.threads = m->topo.numa_nodes = -1;
	return m;
}

/* Adds a parsed machine, reporting a name already in the inventory. */
static void
inv_add(struct inv_file *f, yaml_node_t *map, struct machine *m)
{
	struct inventory *inv = f->ld->inv;
	yaml_node_t	 *v;
	size_t		  i;

	for (i = 0; m->name != NULL && i < inv->n; i++) {
		if (inv->machines[i]->name == NULL ||
		    strcmp(inv->machines[i]->name, m->name) != 0)
			continue;
		v = inv_map_value(f, map, "name");
		inv_error_at(f, v->start_mark.line, v->start_mark.column,
		    "duplicate machine name \"%s\", first defined at %s:%d",
		    m->name, inv->machines[i]->file, inv->machines[i]->line);
		break;
	}
	inv->machines =
	    xreallocarray(inv->machines, inv->n + 1, sizeof(*inv->machines));
	inv->machines[inv->n++] = m;
}

/* Parses one machine mapping into the inventory. */
static void
inv_machine(struct inv_file *f, yaml_node_t *map)
{
	struct machine *m = inv_machine_new(f);

	inv_mapping(f, map, inv_machine_keys, m, NULL);
	inv_machine_check(f, map, m);
	inv_add(f, map, m);
}

/* The document's root: one machine, or a sequence of machines. */
static void
inv_root(struct inv_file *f)
{
	yaml_node_t	 *root = yaml_document_get_root_node(&f->doc);
	yaml_node_item_t *i;
	yaml_node_t	 *item;
	char		 *d;

	if (root == NULL || inv_is_null(root)) {
		inv_error_at(f, 0, 0,
		    "no machine in file, expected a mapping "
		    "or a sequence of mappings");
		return;
	}
	if (root->type == YAML_MAPPING_NODE) {
		inv_machine(f, root);
		return;
	}
	if (root->type != YAML_SEQUENCE_NODE) {
		d = inv_desc(root);
		inv_error_at(f, root->start_mark.line, root->start_mark.column,
		    "a machine file must hold a mapping or a sequence of "
		    "mappings, not %s",
		    d);
		free(d);
		return;
	}
	for (i = root->data.sequence.items.start;
	     i < root->data.sequence.items.top; i++) {
		item = inv_node(f, *i);
		if (item->type == YAML_MAPPING_NODE) {
			inv_machine(f, item);
			continue;
		}
		d = inv_desc(item);
		inv_error_at(f, item->start_mark.line, item->start_mark.column,
		    "a machine must be a mapping, not %s", d);
		free(d);
	}
}

/* Reports libyaml's syntax error at its problem mark. */
static void
inv_syntax(struct inv_file *f, yaml_parser_t *parser, const char *buf)
{
	size_t line = parser->problem_mark.line;
	size_t col = parser->problem_mark.column, i;

	if (parser->error == YAML_READER_ERROR) {
		/* Reader errors carry a byte offset, not a mark. */
		line = col = 0;
		for (i = 0; i < parser->problem_offset && buf[i]; i++, col++)
			if (buf[i] == '\n') {
				line++;
				col = (size_t)-1;
			}
	}
	if (parser->context != NULL)
		inv_error_at(f, line, col,
		    "syntax error: %s (%s at line %zu, "
		    "column %zu)",
		    parser->problem ? parser->problem : "?", parser->context,
		    parser->context_mark.line + 1,
		    parser->context_mark.column + 1);
	else
		inv_error_at(f, line, col, "syntax error: %s",
		    parser->problem ? parser->problem : "unknown problem");
}

/* Reads the whole file into *buf; -1 after reporting why it could not. */
static int
inv_read(struct inv_loader *ld, size_t fileno, const char *path, char **buf,
    size_t *len)
{
	FILE *fp;
	char *why = NULL;
	int   rc = -1;

	*buf = xmalloc(INV_MAX_FILE + 1);
	if ((fp = fopen(path, "r")) == NULL) {
		why = inv_strerror(errno);
		inv_error_file(ld, fileno, "cannot open \"%s\": %s", path, why);
		goto out;
	}
	*len = fread(*buf, 1, INV_MAX_FILE + 1, fp);
	if (ferror(fp))
		inv_error_file(ld, fileno, "cannot read \"%s\"", path);
	else if (*len > INV_MAX_FILE)
		inv_error_file(ld, fileno, "\"%s\" is larger than %d bytes",
		    path, INV_MAX_FILE);
	else
		rc = 0;
	(*buf)[rc == 0 ? *len : 0] = '\0';
	fclose(fp);
out:
	free(why);
	return rc;
}

/* The absolute directory of path, for resolving relative paths in it. */
static char *
inv_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');
	char	   *dir, *real, *cwd;

	if (slash == NULL)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xstrndup(path, (size_t)(slash - path));
	if ((real = realpath(dir, NULL)) != NULL) {
		free(dir);
		dir = xstrdup(real);
		free(real);
	} else if (dir[0] != '/' && (cwd = getcwd(NULL, 0)) != NULL) {
		real = inv_path_resolve(cwd, dir);
		free(cwd);
		free(dir);
		dir = real;
	}
	return dir;
}

/* Reports a second document in the file, which is not allowed. */
static void
inv_extra_doc(struct inv_file *f, yaml_parser_t *parser, const char *buf)
{
	yaml_document_t doc;

	if (!yaml_parser_load(parser, &doc)) {
		inv_syntax(f, parser, buf);
		return;
	}
	if (yaml_document_get_root_node(&doc) != NULL)
		inv_error_at(f, doc.start_mark.line, doc.start_mark.column,
		    "a machine file must hold one yaml document, not more");
	yaml_document_delete(&doc);
}

/* Parses one file into the loader's inventory and errors. */
static void
inv_load_one(struct inv_loader *ld, const char *path)
{
	struct inv_file f = { .path = path, .fileno = ld->nfiles++, .ld = ld };
	yaml_parser_t	parser;
	char	       *buf = NULL;
	size_t		len = 0;

	if (inv_read(ld, f.fileno, path, &buf, &len) == -1)
		goto out;
	f.dir = inv_dirname(path);
	if (!yaml_parser_initialize(&parser))
		fatalx("yaml_parser_initialize: out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
	if (!yaml_parser_load(&parser, &f.doc))
		inv_syntax(&f, &parser, buf);
	else {
		inv_root(&f);
		inv_extra_doc(&f, &parser, buf);
		yaml_document_delete(&f.doc);
	}
	yaml_parser_delete(&parser);
out:
	free(f.dir);
	free(buf);
}

/* Orders errors by file, line, column, then as found. */
static int
inv_error_cmp(const void *a, const void *b)
{
	const struct inv_error *ea = a, *eb = b;

	if (ea->fileno != eb->fileno)
		return ea->fileno < eb->fileno ? -1 : 1;
	if (ea->line != eb->line)
		return ea->line < eb->line ? -1 : 1;
	if (ea->col != eb->col)
		return ea->col < eb->col ? -1 : 1;
	return (ea->seq > eb->seq) - (ea->seq < eb->seq);
}

/* Joins the sorted errors into *cause, one per line. */
static char *
inv_errors_join(struct inv_errors *errs)
{
	size_t i, len = 0;
	char  *out;

	qsort(errs->v, errs->n, sizeof(*errs->v), inv_error_cmp);
	for (i = 0; i < errs->n; i++)
		len += strlen(errs->v[i].msg) + 1;
	out = xmalloc(len + 1);
	out[0] = '\0';
	for (i = 0, len = 0; i < errs->n; i++)
		len += (size_t)sprintf(out + len, "%s%s", i ? "\n" : "",
		    errs->v[i].msg);
	return out;
}

/* The inventory, or NULL with every error in *cause; frees the loader. */
static struct inventory *
inv_finish(struct inv_loader *ld, char **cause)
{
	struct inventory *inv = ld->inv;
	size_t		  i;

	*cause = NULL;
	if (ld->errs.n > 0) {
		*cause = inv_errors_join(&ld->errs);
		inventory_free(inv);
		inv = NULL;
	}
	for (i = 0; i < ld->errs.n; i++)
		free(ld->errs.v[i].msg);
	free(ld->errs.v);
	return inv;
}

/* Orders file names byte by byte, whatever the locale. */
static int
inv_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* True for a name the directory loader reads: *.yaml, not a dot file. */
static bool
inv_wanted(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 &&
	    strcmp(name + len - 5, ".yaml") == 0;
}

/* The sorted *.yaml names in dir; -1 after reporting it cannot be read. */
static int
inv_list(struct inv_loader *ld, const char *dir, char ***names, size_t *n)
{
	DIR	      *d;
	struct dirent *de;
	char	      *why;

	*names = NULL;
	*n = 0;
	if ((d = opendir(dir)) == NULL) {
		why = inv_strerror(errno);
		inv_error_file(ld, 0, "cannot open directory \"%s\": %s", dir,
		    why);
		free(why);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!inv_wanted(de->d_name))
			continue;
		*names = xreallocarray(*names, *n + 1, sizeof(**names));
		(*names)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(*names, *n, sizeof(**names), inv_name_cmp);
	return 0;
}

struct inventory *
inventory_load(const char *dir, char **cause)
{
	struct inv_loader ld = { .inv = xcalloc(1, sizeof(*ld.inv)) };
	char		**names, *path;
	size_t		  n, i, len = strlen(dir);
	struct stat	  st;

	if (inv_list(&ld, dir, &names, &n) == -1)
		goto out;
	for (i = 0; i < n; i++) {
		path = xasprintf("%.*s/%s",
		    (int)len - (len > 0 && dir[len - 1] == '/'), dir, names[i]);
		/* Skip directories named *.yaml, report broken links. */
		if (stat(path, &st) == -1 || S_ISREG(st.st_mode))
			inv_load_one(&ld, path);
		free(path);
		free(names[i]);
	}
	free(names);
out:
	return inv_finish(&ld, cause);
}

struct inventory *
inventory_load_file(const char *path, char **cause)
{
	struct inv_loader ld = { .inv = xcalloc(1, sizeof(*ld.inv)) };

	inv_load_one(&ld, path);
	return inv_finish(&ld, cause);
}

struct inventory *
inventory_load_path(const char *path, char **cause)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return inventory_load(path, cause);
	return inventory_load_file(path, cause);
}

struct machine *
inventory_find(const struct inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; inv != NULL && i < inv->n; i++)
		if (strcmp(inv->machines[i]->name, name) == 0)
			return inv->machines[i];
	return NULL;
}

const char *
machine_kind_str(enum machine_kind kind)
{
	switch (kind) {
	case MACHINE_SSH:
		return "ssh";
	case MACHINE_LIBVIRT:
		return "libvirt";
	}
	return "unknown";
}

/* True if s can be printed as a plain scalar that reads back the same. */
static bool
inv_plain_ok(const char *s)
{
	static const char *words[] = { "null", "true", "false", "yes", "no",
		"on", "off", "y", "n", NULL };
	size_t		   i;

	if (!isalnum((unsigned char)s[0]) && s[0] != '/' && s[0] != '.')
		return false;
	if (strspn(s,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789._/@+,;=-") != strlen(s))
		return false;
	for (i = 0; words[i] != NULL; i++)
		if (strcasecmp(s, words[i]) == 0)
			return false;
	return true;
}

/* Prints "key: value", the value plain when safe and quoted otherwise. */
static void
inv_print_str(FILE *fp, int indent, const char *key, const char *s)
{
	char *q;

	if (s == NULL)
		return;
	if (inv_plain_ok(s)) {
		fprintf(fp, "%*s%s: %s\n", indent, "", key, s);
		return;
	}
	q = inv_quote(s, 0);
	fprintf(fp, "%*s%s: %s\n", indent, "", key, q);
	free(q);
}

/* Prints "key: n" if n is set (not -1). */
static void
inv_print_int(FILE *fp, int indent, const char *key, int n)
{
	if (n != -1)
		fprintf(fp, "%*s%s: %d\n", indent, "", key, n);
}

/* Prints a duration as "10s" when whole seconds, else "500ms". */
static void
inv_print_duration(FILE *fp, const char *key, int ms)
{
	if (ms % 1000 == 0)
		fprintf(fp, "    %s: %ds\n", key, ms / 1000);
	else
		fprintf(fp, "    %s: %dms\n", key, ms);
}

/* Prints a size in KiB with the largest unit that divides it. */
static void
inv_print_size(FILE *fp, int indent, const char *key, uint64_t kib)
{
	char *size = inv_size_str(kib);

	fprintf(fp, "%*s%s: %s\n", indent, "", key, size);
	free(size);
}

/* Prints the topology section, the keys the file or checks set. */
static void
inv_print_topology(FILE *fp, const struct machine_topology *t)
{
	if (t->cpus == -1 && t->sockets == -1 && t->dies == -1 &&
	    t->cores == -1 && t->threads == -1 && t->numa_nodes == -1 &&
	    t->llc_groups == NULL)
		return;
	fprintf(fp, "  topology:\n");
	inv_print_int(fp, 4, "cpus", t->cpus);
	inv_print_int(fp, 4, "sockets", t->sockets);
	inv_print_int(fp, 4, "dies", t->dies);
	inv_print_int(fp, 4, "cores", t->cores);
	inv_print_int(fp, 4, "threads", t->threads);
	inv_print_int(fp, 4, "numa_nodes", t->numa_nodes);
	inv_print_str(fp, 4, "llc_groups", t->llc_groups);
}

/* Prints the ssh section with every default. */
static void
inv_print_ssh(FILE *fp, const struct machine_ssh *s)
{
	fprintf(fp, "  ssh:\n");
	inv_print_str(fp, 4, "host", s->host);
	fprintf(fp, "    port: %d\n", s->port);
	inv_print_str(fp, 4, "user", s->user);
	inv_print_str(fp, 4, "identity", s->identity);
	inv_print_str(fp, 4, "known_hosts", s->known_hosts);
	fprintf(fp, "    trust_on_first_use: %s\n",
	    s->trust_on_first_use ? "true" : "false");
	inv_print_duration(fp, "connect_timeout", s->connect_timeout_ms);
	inv_print_duration(fp, "command_timeout", s->command_timeout_ms);
	inv_print_str(fp, 4, "agent_dir", s->agent_dir);
}

/* Prints the libvirt section with every default. */
static void
inv_print_libvirt(FILE *fp, const struct machine_libvirt *lv)
{
	size_t i;

	fprintf(fp, "  libvirt:\n");
	inv_print_str(fp, 4, "uri", lv->uri);
	fprintf(fp, "    vcpus: %d\n", lv->vcpus);
	inv_print_size(fp, 4, "memory", lv->memory_kib);
	inv_print_str(fp, 4, "cpu_model", lv->cpu_model);
	if (lv->ncells > 0)
		fprintf(fp, "    numa_cells:\n");
	for (i = 0; i < lv->ncells; i++) {
		fprintf(fp, "      - ");
		inv_print_str(fp, 0, "cpus", lv->cells[i].cpus);
		inv_print_size(fp, 8, "memory", lv->cells[i].memory_kib);
	}
	inv_print_str(fp, 4, "cmdline", lv->cmdline);
	inv_print_str(fp, 4, "disk", lv->disk);
	inv_print_str(fp, 4, "console_dir", lv->console_dir);
	inv_print_str(fp, 4, "kernel", lv->kernel);
	inv_print_str(fp, 4, "initrd", lv->initrd);
	inv_print_duration(fp, "boot_timeout", lv->boot_timeout_ms);
	inv_print_str(fp, 4, "emulator", lv->emulator);
	fprintf(fp, "    boot_tries: %d\n", lv->boot_tries);
}

/* Prints a command as a flow sequence: "      on: [pdu, off, \"3\"]". */
static void
inv_print_argv(FILE *fp, const char *key, char *const *argv)
{
	char  *q;
	size_t i;

	if (argv == NULL)
		return;
	fprintf(fp, "      %s: [", key);
	for (i = 0; argv[i] != NULL; i++) {
		q = inv_plain_ok(argv[i]) ? xstrdup(argv[i])
					  : inv_quote(argv[i], 0);
		fprintf(fp, "%s%s", i > 0 ? ", " : "", q);
		free(q);
	}
	fprintf(fp, "]\n");
}

/* Prints the power section with every default. */
static void
inv_print_power(FILE *fp, const struct machine_power *pw)
{
	const struct machine_ipmi *ip = &pw->ipmi;

	fprintf(fp, "  power:\n");
	inv_print_duration(fp, "boot_timeout", pw->boot_timeout_ms);
	if (pw->kind == MACHINE_POWER_COMMAND) {
		fprintf(fp, "    command:\n");
		inv_print_argv(fp, "on", pw->command.on);
		inv_print_argv(fp, "off", pw->command.off);
		inv_print_argv(fp, "cycle", pw->command.cycle);
		inv_print_argv(fp, "status", pw->command.status);
		return;
	}
	fprintf(fp, "    ipmi:\n");
	inv_print_str(fp, 6, "host", ip->host);
	fprintf(fp, "      port: %d\n", ip->port);
	inv_print_str(fp, 6, "user", ip->user);
	inv_print_str(fp, 6, "password_file", ip->password_file);
	inv_print_str(fp, 6, "interface", ip->interface);
	fprintf(fp, "      cipher: %d\n", ip->cipher);
}

void
inventory_print_machine(FILE *fp, const struct machine *m)
{
	fprintf(fp, "- name: %s\n", m->name);
	fprintf(fp, "  kind: %s\n", machine_kind_str(m->kind));
	inv_print_str(fp, 2, "arch", m->arch);
	inv_print_str(fp, 2, "cpu_model", m->cpu_model);
	inv_print_topology(fp, &m->topo);
	inv_print_ssh(fp, &m->ssh);
	if (m->kind == MACHINE_LIBVIRT)
		inv_print_libvirt(fp, &m->libvirt);
	if (m->power.kind != MACHINE_POWER_NONE)
		inv_print_power(fp, &m->power);
	inv_print_str(fp, 2, "mirror", m->mirror);
	inv_print_str(fp, 2, "notes", m->notes);
}

void
inventory_print(FILE *fp, const struct inventory *inv)
{
	size_t i;

	if (inv->n == 0)
		fprintf(fp, "[]\n");
	for (i = 0; i < inv->n; i++) {
		if (i > 0)
			fprintf(fp, "\n");
		inventory_print_machine(fp, inv->machines[i]);
	}
}

void
machine_free(struct machine *m)
{
	size_t i;

	if (m == NULL)
		return;
	free(m->name);
	free(m->file);
	free(m->arch);
	free(m->cpu_model);
	free(m->notes);
	free(m->mirror);
	free(m->topo.llc_groups);
	free(m->ssh.host);
	free(m->ssh.user);
	free(m->ssh.identity);
	free(m->ssh.known_hosts);
	free(m->ssh.agent_dir);
	free(m->libvirt.uri);
	free(m->libvirt.cpu_model);
	for (i = 0; i < m->libvirt.ncells; i++)
		free(m->libvirt.cells[i].cpus);
	free(m->libvirt.cells);
	free(m->libvirt.cmdline);
	free(m->libvirt.disk);
	free(m->libvirt.console_dir);
	free(m->libvirt.kernel);
	free(m->libvirt.initrd);
	free(m->libvirt.emulator);
	free(m->power.ipmi.host);
	free(m->power.ipmi.user);
	free(m->power.ipmi.password_file);
	free(m->power.ipmi.interface);
	inv_argv_free(m->power.command.on);
	inv_argv_free(m->power.command.off);
	inv_argv_free(m->power.command.cycle);
	inv_argv_free(m->power.command.status);
	free(m);
}

void
inventory_free(struct inventory *inv)
{
	size_t i;

	if (inv == NULL)
		return;
	for (i = 0; i < inv->n; i++)
		machine_free(inv->machines[i]);
	free(inv->machines);
	free(inv);
}
