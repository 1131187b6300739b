/* Boot verification: the image's own version string against the facts. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "common/xmalloc.h"
#include "machines/agent_client.h"
#include "machines/verify.h"

#define VERIFY_SETUP_BASE  0x200 /* kernel_version is relative to it */
#define VERIFY_HDR_MAGIC   0x202 /* "HdrS" */
#define VERIFY_HDR_KVER	   0x20e /* u16: offset of the version string */
#define VERIFY_MAX_VERSION 512
#define VERIFY_ARM64_MAGIC 0x38 /* "ARM\x64" in an arm64 Image's header */
#define VERIFY_BANNER	   "Linux version "

/* Reads len bytes at off; 0, or -1 if the file is shorter. */
static int
verify_pread(FILE *f, long off, void *buf, size_t len)
{
	if (fseek(f, off, SEEK_SET) == -1)
		return -1;
	return fread(buf, 1, len, f) == len ? 0 : -1;
}

/* Splits "6.1.0-27 (builder) #1 SMP ..." into release and version. */
static int
verify_split(const char *s, char **release, char **version)
{
	const char *hash = strstr(s, " #");

	if (hash == NULL || strcspn(s, " ") == 0)
		return -1;
	*release = xstrndup(s, strcspn(s, " "));
	*version = xstrdup(hash + 1);
	return 0;
}

/*
 * One banner's "RELEASE (...) #N ..." (len bytes): 0 if its build number
 * is there, -1 for the placeholder "# ...".
 */
static int
verify_banner_line(const char *line, size_t len, char **release, char **version)
{
	char *s = xstrndup(line, len), *hash = strstr(s, " #");
	int   rc = -1;

	if (hash != NULL && hash[2] != ' ' && hash[2] != '\0')
		rc = verify_split(s, release, version);
	free(s);
	return rc;
}

/* The x86 boot header's version string; 0, or -1 if there is none. */
static int
verify_x86_version(FILE *f, char **release, char **version)
{
	unsigned char hdr[2];
	char	      buf[VERIFY_MAX_VERSION + 1];
	long	      off;

	memset(buf, 0, sizeof buf);
	if (verify_pread(f, VERIFY_HDR_KVER, hdr, 2) == -1 ||
	    (off = hdr[0] | hdr[1] << 8) == 0 ||
	    fseek(f, VERIFY_SETUP_BASE + off, SEEK_SET) == -1 ||
	    fread(buf, 1, VERIFY_MAX_VERSION, f) == 0)
		return -1;
	return verify_split(buf, release, version);
}

/*
 * The banner an uncompressed arm64 Image carries in its read-only data
 * ("Linux version 6.1.0-57-cloud-arm64 (...) (gcc ...) #1 SMP ...\n"),
 * found by a scan of the file.  Since 6.1 an Image holds two: init/version.o's
 * with an empty build number ("# SMP ...") and the one the kernel prints;
 * the first with a build number is taken.  0, or -1 if there is none.
 */
static int
verify_banner_version(FILE *f, char **release, char **version)
{
	static const char want[] = VERIFY_BANNER;
	struct stat	  st;
	const char	 *map, *p, *end, *line;
	size_t		  left;
	int		  rc = -1;

	if (fstat(fileno(f), &st) == -1 || st.st_size == 0 ||
	    (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE,
		 fileno(f), 0)) == MAP_FAILED)
		return -1;
	for (p = map; rc == -1; p += sizeof want - 1) {
		left = (size_t)st.st_size - (size_t)(p - map);
		if ((p = memmem(p, left, want, sizeof want - 1)) == NULL)
			break;
		line = p + sizeof want - 1;
		left = (size_t)st.st_size - (size_t)(line - map);
		end = memchr(line, '\n',
		    left < VERIFY_MAX_VERSION ? left : VERIFY_MAX_VERSION);
		if (end != NULL)
			rc = verify_banner_line(line, (size_t)(end - line),
			    release, version);
	}
	munmap((void *)map, (size_t)st.st_size);
	return rc;
}

/* The arch an open image's header names, or NULL. */
static const char *
verify_arch_of(FILE *f)
{
	char magic[4];

	if (verify_pread(f, VERIFY_HDR_MAGIC, magic, 4) == 0 &&
	    memcmp(magic, "HdrS", 4) == 0)
		return "x86_64";
	if (verify_pread(f, VERIFY_ARM64_MAGIC, magic, 4) == 0 &&
	    memcmp(magic, "ARM\x64", 4) == 0)
		return "aarch64";
	return NULL;
}

const char *
verify_image_arch(const char *image)
{
	FILE	   *f;
	const char *arch;

	if ((f = fopen(image, "rb")) == NULL)
		return NULL;
	arch = verify_arch_of(f);
	fclose(f);
	return arch;
}

int
verify_image_version(const char *image, char **release, char **version,
    char **cause)
{
	const char *arch;
	FILE	   *f;
	int	    rc = -1;

	if ((f = fopen(image, "rb")) == NULL) {
		*cause = xasprintf("kernel image \"%s\": %s", image,
		    strerror(errno));
		return -1;
	}
	arch = verify_arch_of(f);
	if (arch != NULL && strcmp(arch, "x86_64") == 0)
		rc = verify_x86_version(f, release, version);
	else if (arch != NULL)
		rc = verify_banner_version(f, release, version);
	if (rc == -1)
		*cause = xasprintf("kernel image \"%s\": no version string "
				   "(an x86 boot header or an arm64 Image's "
				   "banner)",
		    image);
	fclose(f);
	return rc;
}

/* True if word (len bytes) stands as a whole word in line. */
static int
verify_has_word(const char *line, const char *word, size_t len)
{
	const char *p = line;
	size_t	    n;

	for (p += strspn(p, " "); *p != '\0'; p += strspn(p, " ")) {
		n = strcspn(p, " ");
		if (n == len && strncmp(p, word, len) == 0)
			return 1;
		p += n;
	}
	return 0;
}

/* Checks that every word of want is in the booted command line. */
static int
verify_cmdline(const char *kernel, const char *have, const char *want,
    char **cause)
{
	const char *w = want;
	size_t	    len;

	for (w += strspn(w, " "); *w != '\0'; w += strspn(w, " ")) {
		len = strcspn(w, " ");
		if (have == NULL || !verify_has_word(have, w, len)) {
			*cause = xasprintf("kernel \"%s\": /proc/cmdline lacks "
					   "\"%.*s\": \"%s\"",
			    kernel, (int)len, w, have ? have : "(absent)");
			return -1;
		}
		w += len;
	}
	return 0;
}

/* Compares one fact with what was expected (exact, or contained). */
static int
verify_one(const char *kernel, const char *what, const char *have,
    const char *want, int exact, char **cause)
{
	if (want == NULL)
		return 0;
	if (have != NULL &&
	    (exact ? strcmp(have, want) == 0 : strstr(have, want) != NULL))
		return 0;
	*cause = xasprintf("kernel \"%s\": %s is \"%s\", expected %s\"%s\"",
	    kernel, what, have ? have : "(absent)", exact ? "" : "it to hold ",
	    want);
	return -1;
}

int
verify_facts(const struct agent_facts *facts, const struct verify_expect *e,
    char **cause)
{
	if (verify_one(e->kernel, "uname -r",
		agent_facts_get(facts, "kernel.release"), e->release, 1,
		cause) == -1 ||
	    verify_one(e->kernel, "uname -v",
		agent_facts_get(facts, "kernel.version"), e->version, 0,
		cause) == -1)
		return -1;
	if (e->cmdline == NULL)
		return 0;
	return verify_cmdline(e->kernel,
	    agent_facts_get(facts, "kernel.cmdline"), e->cmdline, cause);
}

/* Orders CPU groups by their text. */
static int
verify_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The ';'-separated groups of s, sorted and joined again (caller frees). */
static char *
verify_sorted_groups(const char *s)
{
	char  *copy = xstrdup(s), *rest = copy, *g, **v = NULL, *out;
	size_t n = 0, i, len = 0;

	while ((g = strsep(&rest, ";")) != NULL) {
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = g;
		len += strlen(g) + 1;
	}
	qsort(v, n, sizeof *v, verify_cmp_str);
	out = xcalloc(1, len + 1);
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(out, ";");
		strcat(out, v[i]);
	}
	free(v);
	free(copy);
	return out;
}

bool
verify_cpugroups_same(const char *a, const char *b)
{
	char *sa = verify_sorted_groups(a), *sb = verify_sorted_groups(b);
	bool  same = strcmp(sa, sb) == 0;

	free(sa);
	free(sb);
	return same;
}
