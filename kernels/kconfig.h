/*
 * Kernel .config text and fragments: parsed into symbol settings, merged the
 * way scripts/kconfig/merge_config.sh does (later values win, "# CONFIG_X is
 * not set" is a setting too), and checked after olddefconfig.
 */
#ifndef HILAB_KERNELS_KCONFIG_H
#define HILAB_KERNELS_KCONFIG_H

#include <stddef.h>

struct kconfig_entry {
	char *symbol; /* "CONFIG_SMP" */
	char *value;  /* "y", "\"text\"", "64"; NULL: not set */
};

struct kconfig {
	struct kconfig_entry *v; /* in first-seen order */
	size_t		      n;
};

/*
 * Parses .config or fragment text; other comments and blank lines are
 * skipped.  Returns NULL with *cause ("name:line: why") on a bad line.
 */
struct kconfig *kconfig_parse(const char *name, const char *text, char **cause);
/* Reads and parses a file; NULL with *cause on failure. */
struct kconfig *kconfig_load(const char *path, char **cause);
void		kconfig_free(struct kconfig *);
/* Returns the entry for symbol, or NULL. */
const struct kconfig_entry *kconfig_get(const struct kconfig *,
    const char *symbol);
/* Sets symbol to value (NULL: not set), replacing or appending. */
void kconfig_set(struct kconfig *, const char *symbol, const char *value);
/*
 * Merges a fragment into dst: each of its settings replaces dst's or is
 * appended.  Returns how many settings changed a different earlier value.
 */
size_t kconfig_merge(struct kconfig *dst, const struct kconfig *);
/* Returns .config text for the settings (caller frees). */
char *kconfig_format(const struct kconfig *);
/*
 * Returns one line per setting of want that have does not match
 * ("CONFIG_X: requested y, got not set"), or NULL if all match.
 */
char *kconfig_unmet(const struct kconfig *want, const struct kconfig *have);

#endif
