/*
 * A bisection as text: its range, its result and the evidence of every
 * commit measured or skipped (what hilab bisect show prints and a sweep's
 * mail says).
 */
#ifndef HILAB_BISECT_REPORT_H
#define HILAB_BISECT_REPORT_H

#include <stddef.h>
#include <stdio.h>

struct bisect_loaded;
struct db_bisect;

/* "good", "bad", "unsure" (by the posterior) or "no build" for commit c. */
const char *bisect_verdict_of(struct bisect_loaded *, size_t c);

/* Prints b (read back as l): header, result, evidence table. */
void bisect_report_print(FILE *, const struct db_bisect *b,
    struct bisect_loaded *l);

#endif
