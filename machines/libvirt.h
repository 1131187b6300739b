/*
 * The libvirt backend: a lab VM defined from its machine file, booted by
 * direct kernel boot under qemu's TCG and watched through libvirt's
 * lifecycle events and its serial console file, so a kernel that panics
 * or crashes at boot is reported within seconds.
 */
#ifndef HILAB_LIBVIRT_H
#define HILAB_LIBVIRT_H

#include "machines/backend.h"

/* How long a boot may take until ssh answers, by default. */
#define LIBVIRT_BOOT_TIMEOUT_MS 180000
/* Where console files go when the machine names no console_dir. */
#define LIBVIRT_CONSOLE_DIR	"/var/lib/hilab/console"

/* Boot settings that override the machine file's (tests use them). */
struct libvirt_defaults {
	const char *kernel;	     /* booted for a NULL image, or NULL */
	const char *initrd;	     /* host image for kernels without one */
	int	    boot_timeout_ms; /* 0: LIBVIRT_BOOT_TIMEOUT_MS */
};

/* The backend of a kind libvirt machine; NULL with *cause. */
struct backend *libvirt_backend_new(const struct machine *, char **cause);
/* Sets the boot settings of a libvirt backend (the strings are copied). */
void libvirt_backend_set_defaults(struct backend *,
    const struct libvirt_defaults *);
/* Seconds from domain start to ssh answering in the last boot, or -1. */
double libvirt_backend_boot_seconds(const struct backend *);
/* The console file of the last boot (owned by the backend), or NULL. */
const char *libvirt_backend_console_path(const struct backend *);

/*
 * Destroys and undefines every domain under uri (NULL: qemu:///system)
 * whose name starts with prefix, as left by a killed controller.
 * Returns how many went, or -1 with *cause.
 */
int libvirt_cleanup_prefix(const char *uri, const char *prefix, char **cause);

#endif
