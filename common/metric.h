/*
 * Metric declarations: which declared name (a metric's own name, or a
 * pattern with '*', fnmatch without flags) declares an emitted metric.
 * One rule for the catalog, the tables and the view v_samples (whose SQL
 * GLOB means the same for the names a declaration may use: A-Z a-z 0-9
 * . _ - and '*').
 */
#ifndef HILAB_METRIC_H
#define HILAB_METRIC_H

/*
 * How declared declares name: 2 as its own name, 1 as a pattern that
 * matches it, 0 not at all.  A name's own declaration wins over any
 * pattern, and among patterns the first declared.
 */
int metric_declares(const char *declared, const char *name);

#endif
