/* The renderer of hilab query: arbitrary rows as text, CSV or JSON. */
#include <ctype.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/render.h"
#include "report/render_query.h"

struct render_query {
	enum render_query_format fmt;
	FILE			*fp;
	char		       **names;
	int			 ncols;
	char		       **cells; /* text: nrows x ncols,
					   NULL for NULL */
	int *numeric;			/* text: per column,
					   every value a
					   number */
	size_t	nrows;
	json_t *rows; /* json */
};

/* Parses a format name. */
int
render_query_format_parse(const char *s, enum render_query_format *fmt)
{
	static const char *names[] = { "text", "csv", "json" };
	size_t		   i;

	for (i = 0; i < 3; i++) {
		if (strcmp(s, names[i]) == 0) {
			*fmt = (enum render_query_format)i;
			return 0;
		}
	}
	return -1;
}

/* A value as text (caller frees): blobs as x'hex', NULL for NULL. */
static char *
render_query_text(const struct render_value *v)
{
	const unsigned char *b = (const unsigned char *)v->text;
	char		    *s;
	size_t		     j;

	if (v->type == RENDER_VALUE_NULL || v->text == NULL)
		return NULL;
	if (v->type != RENDER_VALUE_BLOB)
		return xstrdup(v->text);
	s = xcalloc(1, 2 * v->len + 4);
	strcpy(s, "x'");
	for (j = 0; j < v->len; j++)
		sprintf(s + 2 + 2 * j, "%02x", b[j]);
	strcat(s, "'");
	return s;
}

/* Writes one CSV line of ncols fields. */
static void
render_query_csv_line(FILE *fp, char *const *fields, int ncols)
{
	int i;

	for (i = 0; i < ncols; i++) {
		if (i > 0)
			putc(',', fp);
		render_csv_field(fp, fields[i]);
	}
	fputs("\r\n", fp);
}

/* Starts a result; CSV prints its header line now. */
struct render_query *
render_query_new(enum render_query_format fmt, FILE *fp,
    const char *const *names, int ncols)
{
	struct render_query *q = xcalloc(1, sizeof *q);
	int		     i;

	q->fmt = fmt;
	q->fp = fp;
	q->ncols = ncols;
	q->names = xcalloc((size_t)ncols + 1, sizeof *q->names);
	q->numeric = xcalloc((size_t)ncols + 1, sizeof *q->numeric);
	for (i = 0; i < ncols; i++) {
		q->names[i] = xstrdup(names[i] != NULL ? names[i] : "");
		q->numeric[i] = 1;
	}
	if (fmt == RENDER_QUERY_JSON)
		q->rows = json_array();
	if (fmt == RENDER_QUERY_CSV)
		render_query_csv_line(fp, q->names, ncols);
	return q;
}

/* A value as JSON: integers, reals, strings, null; blobs as x'hex'. */
static json_t *
render_query_json_value(const struct render_value *v)
{
	char   *s;
	json_t *j;

	switch (v->type) {
	case RENDER_VALUE_NULL:
		return json_null();
	case RENDER_VALUE_INTEGER:
		return json_integer(v->integer);
	case RENDER_VALUE_REAL:
		return json_real(v->real);
	default:
		if ((s = render_query_text(v)) == NULL)
			return json_null();
		j = json_stringn(s, strlen(s));
		free(s);
		return j != NULL ? j : json_null();
	}
}

/* Replaces control characters, so one value stays on one line. */
static void
render_query_flatten(char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		if (iscntrl((unsigned char)*s))
			*s = ' ';
	}
}

/* Keeps a row as text for the aligned layout. */
static void
render_query_keep(struct render_query *q, const struct render_value *v)
{
	size_t base = q->nrows * (size_t)q->ncols;
	int    i;

	q->cells = xreallocarray(q->cells, base + (size_t)q->ncols + 1,
	    sizeof *q->cells);
	for (i = 0; i < q->ncols; i++) {
		q->cells[base + (size_t)i] = render_query_text(&v[i]);
		render_query_flatten(q->cells[base + (size_t)i]);
		if (v[i].type != RENDER_VALUE_INTEGER &&
		    v[i].type != RENDER_VALUE_REAL &&
		    v[i].type != RENDER_VALUE_NULL)
			q->numeric[i] = 0;
	}
	q->nrows++;
}

/* Keeps a row as a JSON object keyed by column name. */
static void
render_query_json_row(struct render_query *q, const struct render_value *v)
{
	json_t *row = json_object();
	int	i;

	for (i = 0; i < q->ncols; i++)
		json_object_set_new(row, q->names[i],
		    render_query_json_value(&v[i]));
	json_array_append_new(q->rows, row);
}

/* Adds a row: CSV prints it, text and JSON keep it. */
void
render_query_row(struct render_query *q, const struct render_value *v)
{
	char **fields;
	int    i;

	if (q->fmt == RENDER_QUERY_TEXT) {
		render_query_keep(q, v);
		return;
	}
	if (q->fmt == RENDER_QUERY_JSON) {
		render_query_json_row(q, v);
		return;
	}
	fields = xcalloc((size_t)q->ncols + 1, sizeof *fields);
	for (i = 0; i < q->ncols; i++)
		fields[i] = render_query_text(&v[i]);
	render_query_csv_line(q->fp, fields, q->ncols);
	for (i = 0; i < q->ncols; i++)
		free(fields[i]);
	free(fields);
}

/* Prints one aligned cell padded to width w. */
static void
render_query_cell(FILE *fp, const char *s, size_t w, int right, int last)
{
	size_t pad = w - render_width(s);

	if (right)
		fprintf(fp, "%*s", (int)pad, "");
	fputs(s, fp);
	if (!right && !last)
		fprintf(fp, "%*s", (int)pad, "");
	if (!last)
		fputs("  ", fp);
}

/* The text of cell (i, j), "NULL" for NULL. */
static const char *
render_query_at(const struct render_query *q, size_t i, int j)
{
	const char *s = q->cells[i * (size_t)q->ncols + (size_t)j];

	return s != NULL ? s : "NULL";
}

/* The width of each column: its name's or its widest value's. */
static size_t *
render_query_widths(const struct render_query *q)
{
	size_t *w = xcalloc((size_t)q->ncols + 1, sizeof *w), i, len;
	int	j;

	for (j = 0; j < q->ncols; j++) {
		w[j] = render_width(q->names[j]);
		for (i = 0; i < q->nrows; i++) {
			len = render_width(render_query_at(q, i, j));
			w[j] = len > w[j] ? len : w[j];
		}
	}
	return w;
}

/* Prints the kept rows under a header and a rule, numbers right-aligned. */
static void
render_query_text_print(const struct render_query *q)
{
	size_t *w = render_query_widths(q), i;
	int	j, last;

	for (j = 0; j < q->ncols; j++)
		render_query_cell(q->fp, q->names[j], w[j], q->numeric[j],
		    j == q->ncols - 1);
	putc('\n', q->fp);
	for (j = 0; j < q->ncols; j++) {
		for (i = 0; i < w[j]; i++)
			putc('-', q->fp);
		fputs(j == q->ncols - 1 ? "\n" : "  ", q->fp);
	}
	for (i = 0; i < q->nrows; i++) {
		for (j = 0; j < q->ncols; j++) {
			last = j == q->ncols - 1;
			render_query_cell(q->fp, render_query_at(q, i, j), w[j],
			    q->numeric[j], last);
		}
		putc('\n', q->fp);
	}
	free(w);
}

/* Prints what the format held back and frees the result. */
void
render_query_end(struct render_query *q)
{
	if (q->fmt == RENDER_QUERY_TEXT)
		render_query_text_print(q);
	else if (q->fmt == RENDER_QUERY_JSON) {
		json_dumpf(q->rows, q->fp,
		    JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putc('\n', q->fp);
	}
	render_query_free(q);
}

/* Frees a result without printing; accepts NULL. */
void
render_query_free(struct render_query *q)
{
	size_t i;
	int    j;

	if (q == NULL)
		return;
	for (i = 0; i < q->nrows * (size_t)q->ncols; i++)
		free(q->cells[i]);
	for (j = 0; j < q->ncols; j++)
		free(q->names[j]);
	json_decref(q->rows);
	free(q->cells);
	free(q->names);
	free(q->numeric);
	free(q);
}
