/*
 * Plots of a computed comparison table with cairo, as PNG or SVG: x is
 * the case (the swept parameter, categorical, rows in order), y the
 * table's statistic, one series per column with its 95% confidence
 * interval as an error bar, a legend, axis labels with units and the
 * title "benchmark: metric (statistic, lower/higher is better)".  A change
 * significant against the base column is marked with '*' above its point.
 *
 * Intervals (plot_interval, from stats_interval):
 *	AMean	mean +- t(0.975, n-1) * s / sqrt(n)
 *	HMean	the same interval on 1/x, inverted
 *	GMean	the same interval on ln x, exponentiated
 *	Median	the distribution-free order-statistic interval
 *		[x(l), x(n+1-l)], l the largest with P(B <= l-1) <= 0.025
 *		for B ~ Binomial(n, 1/2), so coverage >= 95%; for n < 6 no
 *		pair of order statistics reaches 95% and [min, max] is drawn
 *		(coverage 1 - 2^(1-n)).
 *
 * An SVG file carries the title, the axis labels and the series names as
 * its <title> and <desc> text, so it is searchable.
 */
#ifndef HILAB_PLOT_H
#define HILAB_PLOT_H

#include <stddef.h>

struct compare_cell;
struct compare_table;

enum plot_format { PLOT_PNG, PLOT_SVG };

#define PLOT_WIDTH  800
#define PLOT_HEIGHT 500
/* Side of the square mark at each value, in pixels. */
#define PLOT_MARKER 7

/* Where a plot's parts go, in pixels from the top left corner. */
struct plot_layout {
	int    width;
	int    height;
	double left; /* the plot area */
	double top;
	double right;
	double bottom;
	double ymin; /* values at the bottom and top edges */
	double ymax;
	double ystep; /* between y ticks */
};

int	    plot_format_parse(const char *, enum plot_format *);
const char *plot_format_ext(enum plot_format);
/*
 * The 95% interval of a cell's statistic; returns -1 when there is none
 * (n < 2 for a mean, values outside the statistic's domain).
 */
int plot_interval(const struct compare_table *, const struct compare_cell *,
    double *lo, double *hi);
/* Lays out a computed table on a width x height canvas. */
void plot_layout(const struct compare_table *, int width, int height,
    struct plot_layout *);
/* The x of the point of (row, col) and the y of a value. */
double plot_x(const struct plot_layout *, const struct compare_table *,
    size_t row, size_t col);
double plot_y(const struct plot_layout *, double value);
/* The title, and the y axis label "metric (unit)" (caller frees). */
char *plot_title(const struct compare_table *);
char *plot_ylabel(const struct compare_table *);
/*
 * Draws a computed table into path.  xlabel names the x axis (the swept
 * parameter), or NULL for the table's case label; xticks are the labels
 * of the rows (NULL: the row names).  Returns -1 with *cause.
 */
int plot_write(const struct compare_table *, const char *xlabel,
    char *const *xticks, enum plot_format, const char *path, char **cause);

#endif
