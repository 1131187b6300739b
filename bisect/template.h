/* The template of a bisection's step jobs. */
#ifndef HILAB_BISECT_TEMPLATE_H
#define HILAB_BISECT_TEMPLATE_H

#include <jansson.h>

/*
 * A job spec (JSON) reduced to what each step runs: machine alone, a copy
 * of kernel (named "tip", built from tree; hilabd sets its base per step)
 * and a copy of bench (runs under it: its "kernel" key dropped), one
 * round.  The text, which the caller frees.
 */
char *bisect_template(const json_t *spec, const json_t *kernel,
    const json_t *bench, const char *machine, const char *tree);

#endif
