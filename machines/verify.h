/*
 * Boot verification: after every boot the worker proves that the machine
 * runs the kernel that was asked for, from the agent's facts, before it
 * measures anything.
 */
#ifndef HILAB_VERIFY_H
#define HILAB_VERIFY_H

#include <stdbool.h>

struct agent_facts;

/* What the booted kernel must show; NULL fields are not checked. */
struct verify_expect {
	const char *kernel;  /* name users see, for messages */
	const char *release; /* uname -r */
	const char *version; /* uname -v, or a word it must contain */
	const char *cmdline; /* every word must be in /proc/cmdline */
};

/*
 * The arch a kernel image boots on, from its header: "x86_64" for a
 * bzImage, "aarch64" for an arm64 Image; NULL for another format (a
 * compressed Image) or a file that cannot be read.
 */
const char *verify_image_arch(const char *image);
/*
 * Reads the release (uname -r) and version (uname -v) a kernel image will
 * report: from the x86 boot header's version string, or from the banner
 * in an uncompressed arm64 Image.  Returns 0, or -1 with *cause for an
 * image without either.  The caller frees both strings.
 */
int verify_image_version(const char *image, char **release, char **version,
    char **cause);
/*
 * Compares facts against what was expected.  Returns 0, or -1 with *cause
 * naming the kernel and the first mismatch:
 * `kernel "patch 1": uname -r is "6.1.0-26-cloud-amd64", expected "..."`.
 */
int verify_facts(const struct agent_facts *, const struct verify_expect *,
    char **cause);

/*
 * True if two lists of CPU groups ("0-3;4-7", as the machine file and the
 * agent write LLC groups) hold the same groups, in any order.
 */
bool verify_cpugroups_same(const char *a, const char *b);

#endif
