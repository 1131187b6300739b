/*
 * Normalized configuration as YAML, through libyaml's emitter: `hilab
 * machines check`, `hilab jobs check` and the job a report reproduces.
 * Scalars are plain when they read back as the same string, else
 * double-quoted; durations and sizes print as units.h formats them.
 */
#ifndef HILAB_CONF_EMIT_H
#define HILAB_CONF_EMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct conf_emit;

/* Starts a YAML stream of one document on fp (not closed at the end). */
struct conf_emit *conf_emit_open(FILE *fp);
/* Ends the document and the stream, flushes fp's part and frees e. */
void conf_emit_close(struct conf_emit *e);

/* Starts a mapping or a sequence, in flow style ({}, []) or block style. */
void conf_emit_map(struct conf_emit *, bool flow);
void conf_emit_seq(struct conf_emit *, bool flow);
/* Ends the innermost mapping or sequence. */
void conf_emit_end(struct conf_emit *);

/* The key of a mapping's next pair (nothing when key is NULL). */
void conf_emit_key(struct conf_emit *, const char *key);
/*
 * A scalar, preceded by key unless key is NULL (an item of a sequence, or a
 * mapping's key).  conf_emit_str emits nothing for a NULL value.
 */
void conf_emit_str(struct conf_emit *, const char *key, const char *value);
void conf_emit_int(struct conf_emit *, const char *key, long long);
void conf_emit_bool(struct conf_emit *, const char *key, bool);
void conf_emit_duration(struct conf_emit *, const char *key, int64_t ms);
void conf_emit_size(struct conf_emit *, const char *key, uint64_t kib);
/* A flow sequence of n strings ("[a, b]"); nothing when v is NULL. */
void conf_emit_strv(struct conf_emit *, const char *key, char *const *v,
    size_t n);
/*
 * Comment lines ("# text") at the indentation of the mapping being
 * written; only right after a value in a block mapping that already has
 * two keys, where libyaml has written everything it was given.
 */
void conf_emit_comment(struct conf_emit *, const char *text);

#endif
