/*
 * Environment mismatches between the columns of a comparison: the facts
 * each run recorded (runs.facts, a JSON object of strings or null) are
 * collected per column, and every fact that differs between columns, or
 * between the runs of one column, becomes a note such as
 *
 *	environment differs: cpufreq.governor is "performance" for base,
 *	"powersave" for patch 1
 *
 * boot_id never counts.  When the columns are kernels, kernel.release and
 * kernel.version follow the kernel and do not count between columns;
 * kernel.cmdline is compared without its BOOT_IMAGE= word and without the
 * words the job asked for, so only what nobody asked for is flagged.  When
 * the columns are machines, what makes a machine (CPU model, topology,
 * memory, microcode) does not count between columns.  A fact absent (null
 * or missing) on one side and present on the other is a difference.
 */
#ifndef HILAB_ENVDIFF_H
#define HILAB_ENVDIFF_H

#include <stddef.h>

struct compare_table;
struct envdiff;

/* What the columns of the comparison stand for. */
enum envdiff_columns { ENVDIFF_KERNELS, ENVDIFF_MACHINES, ENVDIFF_JOBS };

struct envdiff *envdiff_new(enum envdiff_columns);
void		envdiff_free(struct envdiff *);
/*
 * Adds the facts of one run of a column (columns keep the order they are
 * first added in).  asked is the command line the job asked for that run's
 * kernel, or NULL.  Returns -1 with *cause if facts is not a JSON object.
 */
int envdiff_add(struct envdiff *, const char *column, const char *facts,
    const char *asked, char **cause);
/* Returns the notes, by fact name (caller frees each and the array). */
size_t envdiff_notes(const struct envdiff *, char ***);
/* Adds the notes to a comparison table. */
void envdiff_apply(const struct envdiff *, struct compare_table *);
/* True when a fact counts between columns of this kind. */
int envdiff_key_compared(enum envdiff_columns, const char *);

#endif
