/*
 * "Did you mean": the closest of a set of names to a word that named none
 * of them (commands, options, choices, benchmarks, machines).  Candidates
 * are offered one at a time, so callers need not build arrays:
 *
 *	struct suggest s;
 *	suggest_init(&s, word);
 *	for (i = 0; i < cat->n; i++)
 *		suggest_add(&s, cat->v[i].name);
 *	hint = suggest_hint(&s);	// " (did you mean \"x\"?)" or ""
 */
#ifndef HILAB_SUGGEST_H
#define HILAB_SUGGEST_H

#include <stddef.h>

struct suggest {
	const char *word;
	const char *best; /* the closest candidate so far, or NULL */
	size_t	    score;
};

void suggest_init(struct suggest *, const char *word);
/*
 * Offers a candidate (kept by pointer: it must outlive the suggest).  It
 * counts when it is a few edits away (one per three letters, rounded up)
 * or when one of the two begins with the other (3 letters or
 * more), which counts most: "sysbench" finds "sysbench-cpu" before
 * "schbench", "stlye" finds "style".
 */
void suggest_add(struct suggest *, const char *candidate);
/* The closest candidate that counts, or NULL. */
const char *suggest_best(const struct suggest *);
/* " (did you mean \"x\"?)", or "" when none counts; caller frees. */
char *suggest_hint(const struct suggest *);
/* The edit distance of a and b (insert, delete, substitute, swap). */
size_t suggest_distance(const char *a, const char *b);

#endif
