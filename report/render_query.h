/*
 * The renderer of hilab query: rows of arbitrary columns, fed one at a
 * time, printed as aligned text (numbers right-aligned, NULL shown as
 * NULL, control characters as spaces), CSV (RFC 4180, CRLF line ends) or
 * JSON (an array of objects keyed by column name).  CSV prints its header
 * at once and each row as it comes; text and JSON print when the rows end.
 *
 *	q = render_query_new(RENDER_QUERY_CSV, stdout, names, ncols);
 *	while (more rows)
 *		render_query_row(q, values);
 *	render_query_end(q);	(or render_query_free(q) on an error)
 */
#ifndef HILAB_RENDER_QUERY_H
#define HILAB_RENDER_QUERY_H

#include <stddef.h>
#include <stdio.h>

enum render_query_format {
	RENDER_QUERY_TEXT,
	RENDER_QUERY_CSV,
	RENDER_QUERY_JSON
};

enum render_value_type {
	RENDER_VALUE_NULL,
	RENDER_VALUE_INTEGER,
	RENDER_VALUE_REAL,
	RENDER_VALUE_TEXT,
	RENDER_VALUE_BLOB
};

/* One value of a row: its type and its text as the database prints it. */
struct render_value {
	enum render_value_type type;
	const char	      *text; /* NULL for NULL; a blob's
					bytes */
	size_t	  len;		     /* a blob's length */
	long long integer;	     /* RENDER_VALUE_INTEGER */
	double	  real;		     /* RENDER_VALUE_REAL */
};

struct render_query;

/* "text", "csv", "json"; -1 for another name. */
int render_query_format_parse(const char *, enum render_query_format *);
/* Starts a result of ncols columns of these names, printed to fp. */
struct render_query *render_query_new(enum render_query_format, FILE *fp,
    const char *const *names, int ncols);
/* Adds a row of ncols values (copied). */
void render_query_row(struct render_query *, const struct render_value *);
/* Prints what the format held back and frees the result. */
void render_query_end(struct render_query *);
/* Frees the result without printing what it held back; accepts NULL. */
void render_query_free(struct render_query *);

#endif
