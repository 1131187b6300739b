/*
 * A main for the fuzz targets without libFuzzer: replays files through
 * LLVMFuzzerTestOneInput, so that the seeds and the inputs that once
 * crashed run as unit tests with any compiler.
 *
 *	fuzz-NAME-replay [-c CRASHES] PATH... [-e PATH...]
 *
 * Each PATH is a file or a directory (its files, recursively, in name
 * order).  CRASHES, the directory of inputs that once crashed the target,
 * may not exist yet.  The paths after -e are seeds without the first byte
 * a target like fuzz-parse picks from (fuzz_selectors): each is replayed
 * once behind each such byte.  A crash, a leak (under ASan) or an abort
 * fails; a missing seed path fails in CI (CI=true) and skips elsewhere.
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/xmalloc.h"
#include "tests/lib/skip.h"

int    LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int    LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
size_t fuzz_selectors(void) __attribute__((weak));

/* Reads the whole file at path after room for one byte; NULL on error. */
static uint8_t *
fuzz_read(const char *path, size_t *len)
{
	FILE	*f;
	uint8_t *buf = NULL;
	size_t	 n;

	if ((f = fopen(path, "rb")) == NULL) {
		perror(path);
		return NULL;
	}
	*len = 0;
	do {
		buf = xreallocarray(buf, *len + 65536 + 1, 1);
		n = fread(buf + 1 + *len, 1, 65536, f);
		*len += n;
	} while (n > 0);
	if (ferror(f)) {
		perror(path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

/* Runs the target over one file, behind each selector when each is set. */
static int
fuzz_replay_file(const char *path, int each, size_t *count)
{
	uint8_t *buf;
	size_t	 len, i, n;

	if ((buf = fuzz_read(path, &len)) == NULL)
		return -1;
	if (!each) {
		LLVMFuzzerTestOneInput(buf + 1, len);
		(*count)++;
	} else {
		n = fuzz_selectors != NULL ? fuzz_selectors() : 1;
		for (i = 0; i < n; i++) {
			buf[0] = (uint8_t)i;
			LLVMFuzzerTestOneInput(buf, len + 1);
			(*count)++;
		}
	}
	free(buf);
	return 0;
}

/* Runs the target over path, a file or every file under a directory. */
static int
fuzz_replay(const char *path, int each, size_t *count)
{
	struct dirent **names;
	struct stat	st;
	char	       *sub;
	int		n, i, rc = 0;

	if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
		return fuzz_replay_file(path, each, count);
	if ((n = scandir(path, &names, NULL, alphasort)) == -1) {
		perror(path);
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (rc == 0 && names[i]->d_name[0] != '.') {
			sub = xasprintf("%s/%s", path, names[i]->d_name);
			rc = fuzz_replay(sub, each, count);
			free(sub);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

/* Replays every path given; fails when nothing was replayed. */
int
main(int argc, char **argv)
{
	struct stat st;
	size_t	    count = 0;
	int	    i, each = 0, crashes;

	if (LLVMFuzzerInitialize != NULL)
		LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-e") == 0) {
			each = 1;
			continue;
		}
		crashes = strcmp(argv[i], "-c") == 0 && i + 1 < argc;
		if (crashes) {
			if (stat(argv[++i], &st) == -1)
				continue;
		} else if (stat(argv[i], &st) == -1)
			return SKIP_MISSING_EXIT("no seeds at \"%s\"", argv[i]);
		if (fuzz_replay(argv[i], each && !crashes, &count) != 0)
			return 1;
	}
	printf("%zu inputs replayed\n", count);
	return count > 0 ? 0 : 1;
}
