/*
 * Boot verification: after every boot the worker proves that the machine
 * runs the kernel that was asked for, from the agent's facts, before it
 * measures anything.
 */
#ifndef HILAB_VERIFY_H
#define HILAB_VERIFY_H

struct agent_facts;

/* What the booted kernel must show; NULL fields are not checked. */
struct verify_expect {
	const char *kernel;  /* name users see, for messages */
	const char *release; /* uname -r */
	const char *version; /* uname -v, or a word it must contain */
	const char *cmdline; /* every word must be in /proc/cmdline */
};

/*
 * Reads the release (uname -r) and version (uname -v) a kernel image will
 * report, from the x86 boot header's version string.  Returns 0, or -1
 * with *cause for an image without one (arm64 Image: check the build id
 * instead).  The caller frees both strings.
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

#endif
