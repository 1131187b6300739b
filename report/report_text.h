/*
 * The text of hilab report: one job as plain text for a mailing-list
 * post, in the order machines, kernels, environment, results (one table
 * per benchmark metric in a style of report/render.h, the numbers of
 * hilab compare), notes, and the command and job file that reproduce it.
 * Lines stay within 80 columns where the content allows it; a tab that
 * a value brings stays (hilab report expands them).
 */
#ifndef HILAB_REPORT_TEXT_H
#define HILAB_REPORT_TEXT_H

#include <stdio.h>

struct db;
struct db_job;
struct select_result;

/* Prints the report of job j to fp; 0, or -1 with *cause. */
/*
 * Where a kernel comes from, from its kernels.spec (JSON): "built from
 * TREE at BASE + patches 1-N of SERIES", "image ..." or "the kernel the
 * machine runs"; the caller frees it.
 */
char *report_kernel_source(const char *spec);
int   report_text_print(FILE *fp, struct db *, const struct db_job *j,
      const char *style, char **cause);
/*
 * report_observe.c: after the tables of r (computed), a block per column
 * with the figures of every probe and monitor table in it; nothing when
 * there are none.
 */
void report_observed_print(FILE *fp, const struct select_result *r);

#endif
