/* Normalized configuration as YAML through libyaml's emitter (conf_emit.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <yaml.h>

#include "common/conf_emit.h"
#include "common/log.h"
#include "common/units.h"
#include "common/xmalloc.h"

#define CONF_EMIT_DEPTH 32

/* An open mapping or sequence. */
struct conf_emit_level {
	bool map;
	bool flow; /* flow style, or inside a flow collection */
};

struct conf_emit {
	yaml_emitter_t	       em;
	FILE		      *fp;
	struct conf_emit_level open[CONF_EMIT_DEPTH];
	int		       depth;
};

/* Hands one event to the emitter; a refused event is a bug here. */
static void
conf_emit_event(struct conf_emit *e, yaml_event_t *ev)
{
	if (!yaml_emitter_emit(&e->em, ev))
		fatalx("yaml emitter: %s",
		    e->em.problem ? e->em.problem : "out of memory");
}

/* Starts a YAML stream of one document on fp. */
struct conf_emit *
conf_emit_open(FILE *fp)
{
	struct conf_emit *e = xcalloc(1, sizeof(*e));
	yaml_event_t	  ev;

	if (!yaml_emitter_initialize(&e->em))
		fatalx("yaml_emitter_initialize: out of memory");
	e->fp = fp;
	yaml_emitter_set_output_file(&e->em, fp);
	yaml_emitter_set_indent(&e->em, 2);
	yaml_emitter_set_width(&e->em, -1);
	yaml_emitter_set_unicode(&e->em, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	conf_emit_event(e, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	conf_emit_event(e, &ev);
	return e;
}

/* Ends the document and the stream and frees e. */
void
conf_emit_close(struct conf_emit *e)
{
	yaml_event_t ev;

	if (e->depth != 0)
		fatalx("yaml emitter: %d collections left open", e->depth);
	yaml_document_end_event_initialize(&ev, 1);
	conf_emit_event(e, &ev);
	yaml_stream_end_event_initialize(&ev);
	conf_emit_event(e, &ev);
	yaml_emitter_flush(&e->em);
	yaml_emitter_delete(&e->em);
	free(e);
}

/* Notes a mapping or sequence opened in flow or block style. */
static void
conf_emit_push(struct conf_emit *e, bool map, bool flow)
{
	if (e->depth == CONF_EMIT_DEPTH)
		fatalx("yaml emitter: nested too deep");
	if (e->depth > 0 && e->open[e->depth - 1].flow)
		flow = true;
	e->open[e->depth].map = map;
	e->open[e->depth++].flow = flow;
}

/* Starts a mapping. */
void
conf_emit_map(struct conf_emit *e, bool flow)
{
	yaml_event_t ev;

	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
	    flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	conf_emit_event(e, &ev);
	conf_emit_push(e, true, flow);
}

/* Starts a sequence. */
void
conf_emit_seq(struct conf_emit *e, bool flow)
{
	yaml_event_t ev;

	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
	    flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
	conf_emit_event(e, &ev);
	conf_emit_push(e, false, flow);
}

/* Ends the innermost mapping or sequence. */
void
conf_emit_end(struct conf_emit *e)
{
	yaml_event_t ev;

	if (e->depth == 0)
		fatalx("yaml emitter: nothing to end");
	if (e->open[--e->depth].map)
		yaml_mapping_end_event_initialize(&ev);
	else
		yaml_sequence_end_event_initialize(&ev);
	conf_emit_event(e, &ev);
}

/*
 * True if s can be written plain and reads back as the same string, not as
 * a boolean, null or document marker; in flow style "," is out too.
 */
static bool
conf_emit_plain(const char *s, bool flow)
{
	static const char *words[] = { "null", "true", "false", "yes", "no",
		"on", "off", "y", "n", NULL };
	size_t		   i, len = strlen(s);

	if (!isalnum((unsigned char)s[0]) && s[0] != '/' && s[0] != '.' &&
	    !(s[0] == '-' && s[1] != '\0' && s[1] != ' '))
		return false;
	if (strncmp(s, "---", 3) == 0 || strncmp(s, "...", 3) == 0 ||
	    s[len - 1] == ' ')
		return false;
	if (strspn(s,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		"0123456789 ._/@+,;=%^()<>-") != len ||
	    (flow && strchr(s, ',') != NULL))
		return false;
	for (i = 0; words[i] != NULL; i++)
		if (strcasecmp(s, words[i]) == 0)
			return false;
	return true;
}

/* Starts a scalar event of s; false if libyaml refuses s (not UTF-8). */
static bool
conf_emit_init(yaml_event_t *ev, const char *s, yaml_scalar_style_t style)
{
	return yaml_scalar_event_initialize(ev, NULL, NULL,
	    (yaml_char_t *)(uintptr_t)s, (int)strlen(s), 1, 1, style);
}

/*
 * One scalar in the given style.  libyaml takes UTF-8 only: a string that
 * is not (a path of a directory named in another encoding) is written
 * with "?" for each byte outside ASCII.
 */
static void
conf_emit_styled(struct conf_emit *e, const char *s, yaml_scalar_style_t style)
{
	yaml_event_t ev;
	char	    *ascii;
	size_t	     i;

	if (!conf_emit_init(&ev, s, style)) {
		ascii = xstrdup(s);
		for (i = 0; ascii[i] != '\0'; i++)
			if ((unsigned char)ascii[i] >= 0x80)
				ascii[i] = '?';
		if (!conf_emit_init(&ev, ascii,
			YAML_DOUBLE_QUOTED_SCALAR_STYLE))
			fatalx("yaml_scalar_event_initialize: out of memory");
		free(ascii);
	}
	conf_emit_event(e, &ev);
}

/*
 * One scalar: plain when it reads back the same, a literal block for lines
 * (a script) outside flow style, else double-quoted.
 */
static void
conf_emit_scalar(struct conf_emit *e, const char *s)
{
	bool flow = e->depth > 0 && e->open[e->depth - 1].flow;

	if (conf_emit_plain(s, flow))
		conf_emit_styled(e, s, YAML_PLAIN_SCALAR_STYLE);
	else if (!flow && strchr(s, '\n') != NULL)
		conf_emit_styled(e, s, YAML_LITERAL_SCALAR_STYLE);
	else
		conf_emit_styled(e, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

/* The key of a mapping's pair, unless key is NULL. */
void
conf_emit_key(struct conf_emit *e, const char *key)
{
	if (key != NULL)
		conf_emit_scalar(e, key);
}

/* A string value; nothing when value is NULL. */
void
conf_emit_str(struct conf_emit *e, const char *key, const char *value)
{
	if (value == NULL)
		return;
	conf_emit_key(e, key);
	conf_emit_scalar(e, value);
}

/* An integer value. */
void
conf_emit_int(struct conf_emit *e, const char *key, long long n)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", n);
	conf_emit_str(e, key, buf);
}

/* A boolean value: true or false. */
void
conf_emit_bool(struct conf_emit *e, const char *key, bool b)
{
	conf_emit_key(e, key);
	conf_emit_styled(e, b ? "true" : "false", YAML_PLAIN_SCALAR_STYLE);
}

/* A duration as units.h formats it. */
void
conf_emit_duration(struct conf_emit *e, const char *key, int64_t ms)
{
	char buf[UNITS_STR_MAX];

	conf_emit_str(e, key, units_format_duration(ms, buf, sizeof buf));
}

/* A size as units.h formats it. */
void
conf_emit_size(struct conf_emit *e, const char *key, uint64_t kib)
{
	char buf[UNITS_STR_MAX];

	conf_emit_str(e, key, units_format_size(kib, buf, sizeof buf));
}

/* A flow sequence of n strings; nothing when v is NULL. */
void
conf_emit_strv(struct conf_emit *e, const char *key, char *const *v, size_t n)
{
	bool   lines = false;
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		lines = lines || strchr(v[i], '\n') != NULL;
	conf_emit_key(e, key);
	conf_emit_seq(e, !lines);
	for (i = 0; i < n; i++)
		conf_emit_scalar(e, v[i]);
	conf_emit_end(e);
}

/* Comment lines at the indentation of the block mapping being written. */
void
conf_emit_comment(struct conf_emit *e, const char *text)
{
	int	    indent = e->em.indent > 0 ? e->em.indent : 0;
	const char *p, *nl;

	/* Anything still queued would be written after the comment. */
	if (e->em.events.head != e->em.events.tail ||
	    !yaml_emitter_flush(&e->em))
		fatalx("yaml emitter: a comment where events are pending");
	for (p = text; *p != '\0'; p = nl + (*nl != '\0')) {
		nl = p + strcspn(p, "\n");
		fprintf(e->fp, "\n%*s#%s%.*s", indent, "", nl > p ? " " : "",
		    (int)(nl - p), p);
	}
}
