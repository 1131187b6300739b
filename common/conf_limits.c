/*
 * Bounds on a configuration document, checked on libyaml's events before
 * the document loader runs: nesting depth (the loader is quadratic in it),
 * the number of anchors, and the size of the document with every alias
 * expanded (a "billion laughs" is a few lines), which is what the readers
 * of key tables walk, and the entries of one sequence or mapping (their
 * readers look for duplicates entry by entry).  An alias to a node still
 * open (a cycle) is refused.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/log.h"
#include "common/xmalloc.h"

/* One anchored node seen complete: its name and expanded size. */
struct conf_anchor {
	char  *name;
	size_t nodes;
};

/* The walk over events: open collections and completed anchors. */
struct conf_walk {
	struct conf_file  *f;
	size_t		   open[CONF_MAX_DEPTH + 1];  /* expanded sizes */
	size_t		   items[CONF_MAX_DEPTH + 1]; /* nodes directly in */
	bool		   is_map[CONF_MAX_DEPTH + 1];
	char		  *open_anchor[CONF_MAX_DEPTH + 1];
	size_t		   depth;
	struct conf_anchor anchors[CONF_MAX_ANCHORS];
	size_t		   nanchors;
	size_t		   total;
};

/* Reports a limit at the event's position; always -1. */
static int
conf_limits_fail(struct conf_walk *w, const yaml_event_t *e, const char *why)
{
	conf_error_at(w->f, e->start_mark.line, e->start_mark.column, "%s",
	    why);
	return -1;
}

/* The expanded size of anchor name, or 0 if none is complete. */
static size_t
conf_limits_anchor(const struct conf_walk *w, const char *name)
{
	size_t i;

	for (i = w->nanchors; i-- > 0;)
		if (strcmp(w->anchors[i].name, name) == 0)
			return w->anchors[i].nodes;
	return 0;
}

/* Counts a node starting directly in the innermost open collection. */
static int
conf_limits_item(struct conf_walk *w, const yaml_event_t *e)
{
	size_t d = w->depth;

	if (d == 0 ||
	    ++w->items[d - 1] <=
		(w->is_map[d - 1] ? 2 : 1) * (size_t)CONF_MAX_ITEMS)
		return 0;
	return conf_limits_fail(w, e,
	    w->is_map[d - 1]
		? "a mapping of more than " CONF_STR(CONF_MAX_ITEMS) " keys"
		: "a sequence of more than " CONF_STR(
		      CONF_MAX_ITEMS) " entries");
}

/* Adds a complete node of n expanded nodes to its parent and the total. */
static int
conf_limits_add(struct conf_walk *w, const yaml_event_t *e, size_t n)
{
	if (n > CONF_MAX_NODES - w->total)
		return conf_limits_fail(w, e,
		    "aliases expand the document past " CONF_STR(
			CONF_MAX_NODES) " nodes");
	w->total += n;
	if (w->depth > 0)
		w->open[w->depth - 1] += n;
	return 0;
}

/* Records a complete node under its anchor, if it has one. */
static int
conf_limits_name(struct conf_walk *w, const yaml_event_t *e, char *anchor,
    size_t n)
{
	if (anchor == NULL)
		return 0;
	if (w->nanchors == CONF_MAX_ANCHORS)
		return conf_limits_fail(w, e,
		    "more than " CONF_STR(CONF_MAX_ANCHORS) " anchors");
	w->anchors[w->nanchors].name = xstrdup(anchor);
	w->anchors[w->nanchors++].nodes = n;
	return 0;
}

/* Opens a sequence or mapping. */
static int
conf_limits_open(struct conf_walk *w, const yaml_event_t *e, char *anchor,
    bool is_map)
{
	if (conf_limits_item(w, e) != 0)
		return -1;
	if (w->depth == CONF_MAX_DEPTH)
		return conf_limits_fail(w, e,
		    "nesting deeper than " CONF_STR(CONF_MAX_DEPTH) " levels");
	w->open_anchor[w->depth] = anchor != NULL ? xstrdup(anchor) : NULL;
	w->items[w->depth] = 0;
	w->is_map[w->depth] = is_map;
	w->open[w->depth++] = 1;
	return 0;
}

/* Closes the innermost sequence or mapping. */
static int
conf_limits_close(struct conf_walk *w, const yaml_event_t *e)
{
	size_t n = w->open[--w->depth];
	char  *anchor = w->open_anchor[w->depth];
	int    rc;

	w->open_anchor[w->depth] = NULL;
	rc = conf_limits_name(w, e, anchor, n);
	free(anchor);
	if (rc == 0 && w->depth > 0)
		w->open[w->depth - 1] += n;
	return rc;
}

/* An alias: the size of its anchor's node, which must be complete. */
static int
conf_limits_alias(struct conf_walk *w, const yaml_event_t *e)
{
	const char *name = (const char *)e->data.alias.anchor;
	size_t	    n = conf_limits_anchor(w, name);

	if (n == 0)
		return conf_limits_fail(w, e,
		    "alias refers to a node that is not complete before it");
	if (conf_limits_item(w, e) != 0)
		return -1;
	return conf_limits_add(w, e, n);
}

/* Takes one event; 0 to go on, 1 at the end, -1 after a report. */
static int
conf_limits_event(struct conf_walk *w, const yaml_event_t *e)
{
	switch (e->type) {
	case YAML_SCALAR_EVENT:
		if (conf_limits_item(w, e) != 0 ||
		    conf_limits_add(w, e, 1) != 0)
			return -1;
		return conf_limits_name(w, e, (char *)e->data.scalar.anchor, 1);
	case YAML_SEQUENCE_START_EVENT:
		return conf_limits_open(w, e,
		    (char *)e->data.sequence_start.anchor, false);
	case YAML_MAPPING_START_EVENT:
		return conf_limits_open(w, e,
		    (char *)e->data.mapping_start.anchor, true);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return conf_limits_close(w, e);
	case YAML_ALIAS_EVENT:
		return conf_limits_alias(w, e);
	case YAML_STREAM_END_EVENT:
		return 1;
	default:
		return 0;
	}
}

/* Frees what the walk holds. */
static void
conf_limits_free(struct conf_walk *w)
{
	size_t i;

	for (i = 0; i < w->nanchors; i++)
		free(w->anchors[i].name);
	for (i = 0; i < w->depth; i++)
		free(w->open_anchor[i]);
	free(w);
}

int
conf_limits_check(struct conf_file *f, const char *text, size_t len)
{
	struct conf_walk *w = xcalloc(1, sizeof *w);
	yaml_parser_t	  parser;
	yaml_event_t	  e;
	int		  rc = 0;

	w->f = f;
	if (!yaml_parser_initialize(&parser))
		fatalx("yaml_parser_initialize: out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	/* A syntax error is left for the loader to report. */
	while (rc == 0 && yaml_parser_parse(&parser, &e)) {
		rc = conf_limits_event(w, &e);
		yaml_event_delete(&e);
	}
	yaml_parser_delete(&parser);
	conf_limits_free(w);
	return rc == -1 ? -1 : 0;
}
