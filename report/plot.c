/* Plots of comparison tables with cairo (PNG and SVG). */
#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "report/compare.h"
#include "report/plot.h"
#include "report/render.h"
#include "report/stats.h"

/* Series colours (Tableau 10), one per column, cycling. */
static const double plot_colours[][3] = {
	{ 0.122, 0.467, 0.706 },
	{ 1.000, 0.498, 0.055 },
	{ 0.173, 0.627, 0.173 },
	{ 0.839, 0.153, 0.157 },
	{ 0.580, 0.404, 0.741 },
	{ 0.549, 0.337, 0.294 },
	{ 0.890, 0.467, 0.761 },
	{ 0.498, 0.498, 0.498 },
	{ 0.737, 0.741, 0.133 },
	{ 0.090, 0.745, 0.812 },
};
#define PLOT_NCOLOURS (sizeof plot_colours / sizeof plot_colours[0])

/* An SVG document collected in memory before it is written. */
struct plot_buf {
	char  *p;
	size_t len;
};

int
plot_format_parse(const char *s, enum plot_format *f)
{
	if (strcmp(s, "png") == 0)
		*f = PLOT_PNG;
	else if (strcmp(s, "svg") == 0)
		*f = PLOT_SVG;
	else
		return -1;
	return 0;
}

const char *
plot_format_ext(enum plot_format f)
{
	return f == PLOT_SVG ? "svg" : "png";
}

/*
 * The 95% interval of the cell's statistic (stats_interval); a median of
 * fewer than 6 samples gets [min, max].
 */
int
plot_interval(const struct compare_table *t, const struct compare_cell *c,
    double *lo, double *hi)
{
	if (stats_interval(c->x, c->n, compare_stat_test(t->stat), lo, hi) == 0)
		return 0;
	if (t->stat != COMPARE_MEDIAN || c->n < 1)
		return -1;
	*lo = c->sum.min;
	*hi = c->sum.max;
	return 0;
}

/* Widens [*lo, *hi] to hold v (NAN is ignored). */
static void
plot_extend(double *lo, double *hi, double v)
{
	if (isnan(v))
		return;
	if (isnan(*lo) || v < *lo)
		*lo = v;
	if (isnan(*hi) || v > *hi)
		*hi = v;
}

/* The range of every value and interval of the table. */
static void
plot_range(const struct compare_table *t, double *lo, double *hi)
{
	const struct compare_cell *c;
	double			   a, b;
	size_t			   i, j;

	*lo = *hi = NAN;
	for (i = 0; i < t->nrows; i++)
		for (j = 0; j < t->ncolumns; j++) {
			c = compare_table_cell(t, i, j);
			plot_extend(lo, hi, c->value);
			if (!isnan(c->value) &&
			    plot_interval(t, c, &a, &b) == 0) {
				plot_extend(lo, hi, a);
				plot_extend(lo, hi, b);
			}
		}
	if (isnan(*lo))
		*lo = 0, *hi = 1;
	if (*hi - *lo <= 0) {
		a = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1;
		*lo -= a;
		*hi += a;
	}
}

/* A round tick step giving about five ticks over range. */
static double
plot_step(double range)
{
	double raw = range / 5, mag = pow(10, floor(log10(raw))), f;

	f = raw / mag;
	return mag * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10);
}

void
plot_layout(const struct compare_table *t, int width, int height,
    struct plot_layout *l)
{
	double lo, hi;

	memset(l, 0, sizeof *l);
	l->width = width;
	l->height = height;
	l->left = 90;
	l->right = width - 25;
	l->top = 80;
	l->bottom = height - 80;
	plot_range(t, &lo, &hi);
	l->ystep = plot_step(hi - lo);
	l->ymin = floor(lo / l->ystep) * l->ystep;
	l->ymax = ceil(hi / l->ystep) * l->ystep;
	if (l->ymax - l->ymin < l->ystep)
		l->ymax = l->ymin + l->ystep;
}

double
plot_x(const struct plot_layout *l, const struct compare_table *t, size_t row,
    size_t col)
{
	double band = (l->right - l->left) / (double)t->nrows, dodge;

	dodge = band * 0.5 / (double)t->ncolumns;
	if (dodge > 14)
		dodge = 14;
	return l->left + band * ((double)row + 0.5) +
	    dodge * ((double)col - ((double)t->ncolumns - 1) / 2);
}

double
plot_y(const struct plot_layout *l, double v)
{
	return l->bottom -
	    (v - l->ymin) / (l->ymax - l->ymin) * (l->bottom - l->top);
}

char *
plot_title(const struct compare_table *t)
{
	return xasprintf("%s: %s (%s, %s)%s%s", t->title, t->metric,
	    compare_stat_name(t->stat), render_better(t),
	    t->machine ? ", machine " : "", t->machine ? t->machine : "");
}

char *
plot_ylabel(const struct compare_table *t)
{
	if (t->unit == NULL || *t->unit == '\0')
		return xstrdup(t->metric);
	return xasprintf("%s (%s)", t->metric, t->unit);
}

/* Draws text with its anchor at (x, y): align 0 left, 0.5 centre, 1 right. */
static void
plot_text(cairo_t *cr, double x, double y, double align, const char *s)
{
	cairo_text_extents_t e;

	cairo_text_extents(cr, s, &e);
	cairo_move_to(cr, x - align * e.x_advance, y);
	cairo_show_text(cr, s);
}

/* Sets the colour of a series. */
static void
plot_colour(cairo_t *cr, size_t col)
{
	const double *c = plot_colours[col % PLOT_NCOLOURS];

	cairo_set_source_rgb(cr, c[0], c[1], c[2]);
}

/* Formats a tick value without trailing noise (caller frees). */
static char *
plot_tick_label(double v, double step)
{
	int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);

	if (fabs(v) < step * 1e-9)
		v = 0;
	return xasprintf("%.*f", dec, v);
}

/* Draws the title, the legend and the footnote. */
static void
plot_draw_header(cairo_t *cr, const struct compare_table *t,
    const struct plot_layout *l)
{
	char		    *s;
	double		     x = l->left;
	size_t		     j;
	cairo_text_extents_t e;

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, 16);
	s = plot_title(t);
	plot_text(cr, l->width / 2.0, 28, 0.5, s);
	free(s);
	cairo_set_font_size(cr, 12);
	for (j = 0; j < t->ncolumns; j++) {
		plot_colour(cr, j);
		cairo_rectangle(cr, x, 46, 12, 12);
		cairo_fill(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		s = j == 0 && strcmp(t->columns[j], "base") != 0
		    ? xasprintf("%s (base)", t->columns[j])
		    : xstrdup(t->columns[j]);
		plot_text(cr, x + 17, 57, 0, s);
		cairo_text_extents(cr, s, &e);
		x += 17 + e.x_advance + 22;
		free(s);
	}
	cairo_set_font_size(cr, 11);
	s = xasprintf("bars: 95%% interval of the %s; * p < %.2f against "
		      "the base (%s)",
	    compare_stat_name(t->stat), STATS_ALPHA, stats_test_name(t->test));
	plot_text(cr, l->width / 2.0, l->height - 12, 0.5, s);
	free(s);
}

/* Draws the frame, the y ticks and both axis labels. */
static void
plot_draw_axes(cairo_t *cr, const struct compare_table *t,
    const struct plot_layout *l, const char *xlabel, char *const *xticks)
{
	double v, y;
	char  *s;
	size_t i;

	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, 1);
	cairo_rectangle(cr, l->left, l->top, l->right - l->left,
	    l->bottom - l->top);
	cairo_stroke(cr);
	cairo_set_font_size(cr, 12);
	for (v = l->ymin; v <= l->ymax + l->ystep * 1e-6; v += l->ystep) {
		y = plot_y(l, v);
		cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
		cairo_move_to(cr, l->left, y);
		cairo_line_to(cr, l->right, y);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		s = plot_tick_label(v, l->ystep);
		plot_text(cr, l->left - 6, y + 4, 1, s);
		free(s);
	}
	for (i = 0; i < t->nrows; i++)
		plot_text(cr,
		    plot_x(l, t, i, 0) / 2 +
			plot_x(l, t, i, t->ncolumns - 1) / 2,
		    l->bottom + 18, 0.5,
		    xticks != NULL && xticks[i] != NULL ? xticks[i]
							: t->rows[i].name);
	plot_text(cr, (l->left + l->right) / 2, l->bottom + 42, 0.5,
	    xlabel != NULL ? xlabel : t->case_label);
	s = plot_ylabel(t);
	cairo_save(cr);
	cairo_translate(cr, 22, (l->top + l->bottom) / 2);
	cairo_rotate(cr, -M_PI / 2);
	plot_text(cr, 0, 0, 0.5, s);
	cairo_restore(cr);
	free(s);
}

/* Draws one series: its line, error bars, marks and significance stars. */
static void
plot_draw_series(cairo_t *cr, const struct compare_table *t,
    const struct plot_layout *l, size_t col)
{
	const struct compare_cell *c;
	double			   x, lo, hi;
	size_t			   i;
	int			   started = 0;

	plot_colour(cr, col);
	cairo_set_line_width(cr, 1.5);
	for (i = 0; i < t->nrows; i++) {
		c = compare_table_cell(t, i, col);
		if (isnan(c->value)) {
			started = 0;
			continue;
		}
		if (started)
			cairo_line_to(cr, plot_x(l, t, i, col),
			    plot_y(l, c->value));
		else
			cairo_move_to(cr, plot_x(l, t, i, col),
			    plot_y(l, c->value));
		started = 1;
	}
	cairo_stroke(cr);
	for (i = 0; i < t->nrows; i++) {
		c = compare_table_cell(t, i, col);
		if (isnan(c->value))
			continue;
		x = plot_x(l, t, i, col);
		if (plot_interval(t, c, &lo, &hi) == 0) {
			cairo_move_to(cr, x, plot_y(l, lo));
			cairo_line_to(cr, x, plot_y(l, hi));
			cairo_move_to(cr, x - 4, plot_y(l, lo));
			cairo_line_to(cr, x + 4, plot_y(l, lo));
			cairo_move_to(cr, x - 4, plot_y(l, hi));
			cairo_line_to(cr, x + 4, plot_y(l, hi));
			cairo_stroke(cr);
		} else
			hi = c->value;
		cairo_rectangle(cr, x - PLOT_MARKER / 2.0,
		    plot_y(l, c->value) - PLOT_MARKER / 2.0, PLOT_MARKER,
		    PLOT_MARKER);
		cairo_fill(cr);
		if (c->mark == '*')
			plot_text(cr, x, plot_y(l, hi) - 4, 0.5, "*");
	}
}

/* Draws the whole plot. */
static void
plot_draw(cairo_t *cr, const struct compare_table *t,
    const struct plot_layout *l, const char *xlabel, char *const *xticks)
{
	size_t j;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
	    CAIRO_FONT_WEIGHT_NORMAL);
	plot_draw_header(cr, t, l);
	plot_draw_axes(cr, t, l, xlabel, xticks);
	for (j = 0; j < t->ncolumns; j++)
		plot_draw_series(cr, t, l, j);
}

/* Collects the SVG cairo writes. */
static cairo_status_t
plot_buf_write_cb(void *closure, const unsigned char *data, unsigned int len)
{
	struct plot_buf *b = closure;

	b->p = xreallocarray(b->p, b->len + len + 1, 1);
	memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = '\0';
	return CAIRO_STATUS_SUCCESS;
}

/* Writes s with the XML special characters escaped. */
static void
plot_xml_escape(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '<')
			fputs("&lt;", fp);
		else if (*s == '>')
			fputs("&gt;", fp);
		else if (*s == '&')
			fputs("&amp;", fp);
		else
			fputc(*s, fp);
	}
}

/* Writes the <title> and <desc> of an SVG plot. */
static void
plot_svg_text(FILE *fp, const struct compare_table *t, const char *xlabel)
{
	char  *s;
	size_t j;

	s = plot_title(t);
	fputs("<title>", fp);
	plot_xml_escape(fp, s);
	fputs("</title>\n<desc>x: ", fp);
	free(s);
	plot_xml_escape(fp, xlabel != NULL ? xlabel : t->case_label);
	fputs("; y: ", fp);
	s = plot_ylabel(t);
	plot_xml_escape(fp, s);
	free(s);
	fputs("; series:", fp);
	for (j = 0; j < t->ncolumns; j++) {
		fputs(j ? ", " : " ", fp);
		plot_xml_escape(fp, t->columns[j]);
	}
	fputs("</desc>\n", fp);
}

/* Writes the SVG of b into path with title and desc after <svg ...>. */
static int
plot_svg_save(const struct plot_buf *b, const struct compare_table *t,
    const char *xlabel, const char *path, char **cause)
{
	const char *tag = b->p != NULL ? strstr(b->p, "<svg") : NULL;
	const char *end = tag != NULL ? strchr(tag, '>') : NULL;
	FILE	   *fp;

	if (end == NULL) {
		*cause = xasprintf("\"%s\": cairo wrote no SVG", path);
		return -1;
	}
	if ((fp = fopen(path, "w")) == NULL) {
		*cause = xasprintf("\"%s\": %s", path, strerror(errno));
		return -1;
	}
	fwrite(b->p, 1, (size_t)(end + 1 - b->p), fp);
	fputc('\n', fp);
	plot_svg_text(fp, t, xlabel);
	fputs(end + 1, fp);
	if (fclose(fp) != 0) {
		*cause = xasprintf("\"%s\": %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
plot_write(const struct compare_table *t, const char *xlabel,
    char *const *xticks, enum plot_format fmt, const char *path, char **cause)
{
	struct plot_layout l;
	struct plot_buf	   b = { NULL, 0 };
	cairo_surface_t	  *sf;
	cairo_status_t	   st;
	cairo_t		  *cr;
	int		   rc = -1;

	plot_layout(t, PLOT_WIDTH, PLOT_HEIGHT, &l);
	if (fmt == PLOT_SVG)
		sf = cairo_svg_surface_create_for_stream(plot_buf_write_cb, &b,
		    PLOT_WIDTH, PLOT_HEIGHT);
	else
		sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, PLOT_WIDTH,
		    PLOT_HEIGHT);
	cr = cairo_create(sf);
	plot_draw(cr, t, &l, xlabel, xticks);
	st = cairo_status(cr);
	cairo_destroy(cr);
	if (st == CAIRO_STATUS_SUCCESS && fmt == PLOT_PNG)
		st = cairo_surface_write_to_png(sf, path);
	cairo_surface_finish(sf);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_status(sf);
	cairo_surface_destroy(sf);
	if (st != CAIRO_STATUS_SUCCESS) {
		*cause = xasprintf("\"%s\": %s", path,
		    st == CAIRO_STATUS_WRITE_ERROR
			? strerror(errno)
			: cairo_status_to_string(st));
		goto out;
	}
	rc = fmt == PLOT_SVG ? plot_svg_save(&b, t, xlabel, path, cause) : 0;
out:
	free(b.p);
	return rc;
}
