/*
 * A patch series as posted: an mbox (cover letter, patches and replies in
 * any order) or a directory of git format-patch *.patch files.
 */
#ifndef HILAB_KERNELS_SERIES_H
#define HILAB_KERNELS_SERIES_H

#include <stddef.h>

#define SERIES_HASH_LEN 64 /* sha256 in hex */

struct series_patch {
	int    number;	/* 1..n */
	char  *subject; /* without the "[PATCH n/N]" tag */
	char  *file;	/* the mbox or .patch file */
	size_t message; /* 1-based message index in the mbox */
	char  *text;	/* the message as given to git am */
	size_t len;
	char   hash[SERIES_HASH_LEN + 1]; /* sha256 of text */
};

struct series {
	char		    *path;
	struct series_patch *patches; /* in series order */
	size_t		     n;
};

/*
 * Reads a series from an mbox file or a directory of *.patch files.  Returns
 * the series (caller frees with series_free), or NULL with *cause naming the
 * file and message at fault.
 */
struct series *series_load(const char *path, char **cause);
/* Reads a series from mbox text already in memory; name is for messages. */
struct series *series_parse(const char *name, const char *text, size_t len,
    char **cause);
void	       series_free(struct series *);
/* Writes the sha256 of data as hex into out (SERIES_HASH_LEN + 1 bytes). */
void series_hash(const void *data, size_t len, char *out);

#endif
