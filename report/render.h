/*
 * Table renderers: each prints a computed compare_table to a FILE * the
 * caller chooses. Styles: amd, change, pct, meansd, markdown, csv, json.
 */
#ifndef HILAB_RENDER_H
#define HILAB_RENDER_H

#include <stdio.h>

#include "report/compare.h"

struct render_style {
	const char *name;
	const char *summary;
	int (*print)(const struct compare_table *, FILE *, char **);
};

/* Every style, ended by a NULL name. */
extern const struct render_style render_styles[];

const struct render_style *render_find(const char *);
int render_print(struct compare_table *, const char *, FILE *, char **);

int render_amd_print(const struct compare_table *, FILE *, char **);
int render_change_print(const struct compare_table *, FILE *, char **);
int render_pct_print(const struct compare_table *, FILE *, char **);
int render_meansd_print(const struct compare_table *, FILE *, char **);
int render_markdown_print(const struct compare_table *, FILE *, char **);
int render_csv_print(const struct compare_table *, FILE *, char **);
/*
 * Prints one CSV field (RFC 4180), quoted when it holds a comma, quote or
 * newline; NULL prints nothing.
 */
void render_csv_field(FILE *, const char *);
int  render_json_print(const struct compare_table *, FILE *, char **);
/*
 * The json style as values: one table as the object render_json_print
 * prints, and n tables (computed first if need be) as one array, which
 * hilab compare and report --json print.
 */
struct json_t *render_json_table(const struct compare_table *);
struct json_t *render_json_tables(struct compare_table *const *, size_t n);
int render_json_print_all(struct compare_table *const *, size_t n, FILE *,
    char **);

/* Shared by the renderers. */

/* A grid of owned strings laid out in aligned columns. */
struct render_grid {
	size_t nrows;
	size_t ncols;
	char **cells;
};

struct render_grid *render_grid_new(size_t, size_t);
void		    render_grid_free(struct render_grid *);
void render_grid_take(struct render_grid *, size_t, size_t, char *);
void render_grid_print(const struct render_grid *, FILE *, const char *,
    const char *);
void render_grid_print_boxed(const struct render_grid *, FILE *, const char *);

size_t render_width(const char *);
void   render_line(FILE *, const char *);
char  *render_number(double, int, int, const char *);
/* "lower is better", "higher is better" or that the job did not say. */
const char *render_better(const struct compare_table *);
/* "hackbench: time (s), lower is better, AMean[, machine lab1]". */
char *render_title(const struct compare_table *);
/* "p=0.0123", or "p<0.001". */
char *render_p(double);
char *render_kernel_header(const struct compare_table *, size_t);
char *render_n_summary(const struct compare_table *);
/* The footer of every style; legend says what its signs mean (or NULL). */
void render_footer(const struct compare_table *, FILE *, const char *pre,
    const char *legend);
int  render_finish(FILE *, char **);

#endif
