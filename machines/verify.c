/* Boot verification: the image's own version string against the facts. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "machines/agent_client.h"
#include "machines/verify.h"

#define VERIFY_SETUP_BASE  0x200 /* kernel_version is relative to it */
#define VERIFY_HDR_MAGIC   0x202 /* "HdrS" */
#define VERIFY_HDR_KVER	   0x20e /* u16: offset of the version string */
#define VERIFY_MAX_VERSION 512

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

int
verify_image_version(const char *image, char **release, char **version,
    char **cause)
{
	unsigned char hdr[2];
	char	      buf[VERIFY_MAX_VERSION + 1], magic[4];
	FILE	     *f;
	int	      rc = -1;

	if ((f = fopen(image, "rb")) == NULL) {
		*cause = xasprintf("kernel image \"%s\": %s", image,
		    strerror(errno));
		return -1;
	}
	memset(buf, 0, sizeof buf);
	if (verify_pread(f, VERIFY_HDR_MAGIC, magic, 4) == -1 ||
	    memcmp(magic, "HdrS", 4) != 0 ||
	    verify_pread(f, VERIFY_HDR_KVER, hdr, 2) == -1 ||
	    (hdr[0] | hdr[1] << 8) == 0 ||
	    fseek(f, VERIFY_SETUP_BASE + (hdr[0] | hdr[1] << 8), SEEK_SET) ||
	    fread(buf, 1, VERIFY_MAX_VERSION, f) == 0 ||
	    verify_split(buf, release, version) == -1)
		*cause = xasprintf("kernel image \"%s\": no x86 boot header "
				   "version string",
		    image);
	else
		rc = 0;
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
