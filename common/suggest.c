/* "Did you mean": edit distance and prefixes over a set of names. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/suggest.h"
#include "common/xmalloc.h"

/* The shortest prefix that makes a prefix match count. */
#define SUGGEST_PREFIX 3

/* The smallest of three. */
static size_t
suggest_min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

/*
 * The edit distance of a and b where swapping two neighbours is one edit
 * (optimal string alignment): "stlye" is one edit from "style".
 */
size_t
suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), w = lb + 1, i, j, d, *m;

	m = xcalloc((la + 1) * w, sizeof *m);
	for (i = 0; i <= la; i++)
		m[i * w] = i;
	for (j = 0; j <= lb; j++)
		m[j] = j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			d = suggest_min3(m[(i - 1) * w + j] + 1,
			    m[i * w + j - 1] + 1,
			    m[(i - 1) * w + j - 1] + (a[i - 1] != b[j - 1]));
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] &&
			    m[(i - 2) * w + j - 2] + 1 < d)
				d = m[(i - 2) * w + j - 2] + 1;
			m[i * w + j] = d;
		}
	d = m[la * w + lb];
	free(m);
	return d;
}

/* Whether the shorter of a and b (3 letters or more) begins the other. */
static bool
suggest_prefix(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), l = la < lb ? la : lb;

	return l >= SUGGEST_PREFIX && strncmp(a, b, l) == 0;
}

/* Starts a suggestion for word. */
void
suggest_init(struct suggest *s, const char *word)
{
	s->word = word;
	s->best = NULL;
	s->score = (size_t)-1;
}

/* Keeps the candidate if it counts and is closer than the best so far. */
void
suggest_add(struct suggest *s, const char *cand)
{
	size_t d, most = (strlen(s->word) + 2) / 3;

	if (cand == NULL || s->word == NULL || strcmp(cand, s->word) == 0)
		return;
	if (suggest_prefix(s->word, cand))
		d = 0; /* a word cut short beats a word misspelt */
	else if ((d = suggest_distance(s->word, cand)) > most)
		return;
	if (d < s->score) {
		s->best = cand;
		s->score = d;
	}
}

/* The closest candidate that counts, or NULL. */
const char *
suggest_best(const struct suggest *s)
{
	return s->best;
}

/* The hint to append to an error message. */
char *
suggest_hint(const struct suggest *s)
{
	if (s->best == NULL)
		return xstrdup("");
	return xasprintf(" (did you mean \"%s\"?)", s->best);
}
