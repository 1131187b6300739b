/*
 * Configuration files in YAML (machine files, job files, the benchmark
 * catalog), loaded with libyaml's document loader and read against key
 * tables.  Every error is collected with its position and handed back at
 * once, sorted by file, line and column, as "file:line:col: message", so
 * that unknown keys, wrong types and duplicates read the same way in every
 * kind of file.
 */
#ifndef HILAB_CONF_H
#define HILAB_CONF_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

#define CONF_REQUIRED 0x1 /* the key must be given */

#define CONF_EMPTY_OK 0x2 /* a string (or a list's string) may be "" */

/* Limits on every configuration file (README, "Security and limits"). */
#define CONF_MAX_FILE	 (4 * 1024 * 1024) /* bytes */
#define CONF_MAX_DEPTH	 64		   /* nested sequences, mappings */
#define CONF_MAX_ANCHORS 1000
#define CONF_MAX_NODES	 1000000 /* with every alias expanded */
#define CONF_MAX_ITEMS	 1000	 /* entries of one sequence or mapping */
#define CONF_MAX_STR	 16384	 /* bytes in one string value */
#define CONF_MAX_NAME	 64	 /* names of jobs, benchmarks, machines */
#define CONF_STR_(x)	 #x
#define CONF_STR(x)	 CONF_STR_(x)

/* One error, kept for sorting. */
struct conf_error {
	size_t fileno;
	size_t line; /* 1-based, 0 for a whole file */
	size_t col;
	size_t seq;
	char  *msg; /* "file:line:col: message" */
};

/* What one load collects across its files. */
struct conf_loader {
	struct conf_error *errs;
	size_t		   nerrs;
	size_t		   nfiles;
};

struct conf_file;
struct conf_key;

/* Reads a key's value v into dst (the mapping's struct plus the offset). */
typedef void (*conf_parse_fn)(struct conf_file *, const struct conf_key *,
    yaml_node_t *v, void *dst);

/* One allowed key of a mapping and where its value goes. */
struct conf_key {
	const char	      *name;
	conf_parse_fn	       parse;
	size_t		       off;   /* into the mapping's struct */
	int		       flags; /* CONF_REQUIRED, CONF_EMPTY_OK */
	long		       min; /* numbers; durations in ms, sizes in KiB */
	long		       max;
	const struct conf_key *sub;	/* conf_parse_section: its keys */
	const char	      *expect;	/* durations, sizes: "a duration ..." */
	const char *const     *choices; /* conf_parse_enum, conf_parse_choice */
};

/* A kind of file: its name in messages and what reads its document. */
struct conf_kind {
	const char *name; /* "machine": "a machine file must hold ..." */
	/* Reads the document's root; NULL for an empty document. */
	void (*root)(struct conf_file *, yaml_node_t *root);
};

/* One file being read. */
struct conf_file {
	const char	       *path; /* as shown in errors */
	char		       *dir;  /* its absolute directory */
	size_t			fileno;
	yaml_document_t		doc;
	struct conf_loader     *ld;
	const struct conf_kind *kind;
	void		       *arg; /* the caller's: what the file fills */
};

/* Reads the file at path (at most 4 MiB) as one document of kind. */
void conf_load_file(struct conf_loader *, const char *path,
    const struct conf_kind *, void		     *arg);
/* Reads text already in memory; name stands for the file in errors. */
void conf_load_text(struct conf_loader *, const char *name, const char *text,
    size_t len, const struct conf_kind *, void *arg);
/*
 * Reads every *.yaml file of dir (dot files skipped), sorted by name byte
 * by byte; -1 after reporting that dir cannot be read.
 */
int conf_load_dir(struct conf_loader *, const char *dir,
    const struct conf_kind *, void		   *arg);
/*
 * Ends a load: 0 if nothing was reported, else -1 with *cause set to
 * every error sorted by file and position, one per line without a final
 * newline (caller frees).  Frees what the loader holds.
 */
int conf_finish(struct conf_loader *, char **cause);

/*
 * Checks text against the limits of depth, anchors and expanded size
 * before it is loaded; -1 after reporting the first one passed.
 */
int conf_limits_check(struct conf_file *, const char *text, size_t len);

/* Reports an error at a 0-based position (as libyaml counts) of the file. */
void conf_error_at(struct conf_file *, size_t line, size_t col, const char *fmt,
    ...) __attribute__((format(printf, 4, 5)));
/* Reports an error at a node (NULL: the file's start). */
void conf_error(struct conf_file *, const yaml_node_t *, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports an error at the value of key in map, or at map without one. */
void conf_error_key(struct conf_file *, yaml_node_t *map, const char *key,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Reports an error about a whole file of the load, without a position. */
void conf_error_file(struct conf_loader *, size_t fileno, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports `"key" must be EXPECT, not VALUE` at the value v. */
void conf_expect(struct conf_file *, const struct conf_key *, yaml_node_t *v,
    const char *expect);

/* The node with index i of the file's document. */
yaml_node_t *conf_node(struct conf_file *, int i);
/* True for an empty plain scalar, "~" or "null": the key counts as unset. */
bool conf_is_null(const yaml_node_t *);
/*
 * Describes a value for "not ...": the quoted scalar (cut after 40 bytes)
 * or what the node is ("a sequence", "an empty mapping"); caller frees.
 */
char *conf_desc(const yaml_node_t *);
/* The text of a scalar value, or NULL after reporting what was expected. */
const char *conf_scalar(struct conf_file *, const struct conf_key *,
    yaml_node_t *v, const char *expect);
/* The first pair of map whose key is name, or NULL. */
yaml_node_pair_t *conf_map_pair(struct conf_file *, yaml_node_t *map,
    const char *name);
/* The value of key name in map if it is given and not null, else NULL. */
yaml_node_t *conf_map_value(struct conf_file *, yaml_node_t *map,
    const char *name);
size_t	     conf_seq_len(const yaml_node_t *);
yaml_node_t *conf_seq_item(struct conf_file *, const yaml_node_t *, size_t);
/* v if it is a non-empty sequence, else NULL after reporting expect. */
yaml_node_t *conf_seq(struct conf_file *, const struct conf_key *,
    yaml_node_t *v, const char *expect);
/* Reads a whole decimal integer in [k->min, k->max]; false after a report. */
bool conf_number(struct conf_file *, const struct conf_key *, yaml_node_t *v,
    long long *n);
/* Joins rel to dir unless it is absolute; drops ".", ".." and "//". */
char *conf_path_resolve(const char *dir, const char *rel);
/* Replaces the string field dst by a copy of s. */
void conf_set_str(void *dst, const char *s);

/*
 * Reads a mapping against a key table into base: unknown, duplicate and
 * missing required keys are errors, a null value leaves a key unset.
 * section names the mapping in messages (NULL at the top).
 */
void conf_mapping(struct conf_file *, yaml_node_t *map,
    const struct conf_key *keys, void *base, const char *section);

/* Reads a mapping whose keys are free (names of parameters). */
typedef void (*conf_pair_fn)(struct conf_file *, yaml_node_t *key,
    yaml_node_t *value, void *arg);
/*
 * Hands each pair of map to fn, but for keys that are not strings or
 * repeat an earlier one, which are reported as conf_mapping does.
 */
void conf_pairs(struct conf_file *, yaml_node_t *map, conf_pair_fn fn,
    void *arg);
/*
 * The root of a file that must hold one mapping, or NULL after reporting
 * an empty file or another node.
 */
yaml_node_t *conf_root_map(struct conf_file *, yaml_node_t *root);

/* Value parsers for key tables; each reports a wrong value at it. */
/* A nested mapping read against k->sub. */
void conf_parse_section(struct conf_file *, const struct conf_key *,
    yaml_node_t *, void *);
/* A string (char *), non-empty unless CONF_EMPTY_OK. */
void conf_parse_str(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);
/* A name for paths: [A-Za-z0-9._-]{1,64}, not starting with ".". */
void conf_parse_name(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);
/* Whether s is such a name (a sweep's, given on the command line). */
bool conf_name_ok(const char *s);
#define CONF_NAME_RULE                                                    \
	"1 to " CONF_STR(CONF_MAX_NAME) " characters from A-Z a-z 0-9 . " \
					"_ - (the first not \".\")"
/* A label kept literal: 1 to 64 bytes, no control characters or quotes. */
void conf_parse_label(struct conf_file *, const struct conf_key *,
    yaml_node_t *, void *);
/* An int in [k->min, k->max]. */
void conf_parse_int(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);
/* true/false (yes/no, on/off as YAML 1.1 has them) into a bool. */
void conf_parse_bool(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);
/* A duration (units.h) into an int of ms in [k->min, k->max]. */
void conf_parse_duration(struct conf_file *, const struct conf_key *,
    yaml_node_t *, void *);
/* A size (units.h) into a uint64_t of KiB in [k->min, k->max]. */
void conf_parse_size(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);
/* A local path (char *); a relative one is taken from the file's dir. */
void conf_parse_path(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);
/* One of k->choices, as its index into an int (or enum). */
void conf_parse_enum(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);
/* One of k->choices, as a copy of the string. */
void conf_parse_choice(struct conf_file *, const struct conf_key *,
    yaml_node_t *, void *);
/* A non-empty sequence of strings: a NULL-terminated char **. */
void conf_parse_strv(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);
/* Keeps the value's node (yaml_node_t *) for the caller to read later. */
void conf_parse_node(struct conf_file *, const struct conf_key *, yaml_node_t *,
    void *);

/* Frees a NULL-terminated string vector; NULL is fine. */
void conf_strv_free(char **);
/* The number of strings in a NULL-terminated vector (NULL: 0). */
size_t conf_strv_len(char *const *);
/* A copy of a NULL-terminated vector (NULL: NULL); free with conf_strv_free. */
char **conf_strv_dup(char *const *);

#endif
