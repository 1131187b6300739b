/*
 * A whole file read into memory, for the C tests that look at what a
 * program wrote or the system says. Whether a missing file fails the test
 * is the caller's to say.
 */
#ifndef HILAB_TESTS_SLURP_H
#define HILAB_TESTS_SLURP_H

#include <stdio.h>
#include <stdlib.h>

/*
 * The whole of file path, NUL-terminated, its length (without the NUL)
 * into *len unless len is NULL; NULL if the file cannot be opened. The
 * caller frees.
 */
static inline char *
test_slurp(const char *path, size_t *len)
{
	FILE  *f = fopen(path, "rb"), *m;
	char   chunk[4096], *buf = NULL;
	size_t size = 0, n;

	if (f == NULL)
		return NULL;
	if ((m = open_memstream(&buf, &size)) == NULL)
		abort();
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		if (fwrite(chunk, 1, n, m) != n)
			abort();
	fclose(f);
	if (fclose(m) != 0)
		abort();
	if (len != NULL)
		*len = size;
	return buf;
}

#endif
