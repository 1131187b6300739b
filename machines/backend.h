/*
 * Backends: how a machine is powered, booted into a kernel and watched.
 * The worker drives every kind of machine through these operations and
 * does not care which backend it has (libvirt VM, ssh host with power
 * control, ssh host without).  After a boot the worker connects to the
 * agent and verifies the kernel through its facts (uname -r, uname -v,
 * /proc/cmdline); a backend only gets the machine there.
 */
#ifndef HILAB_BACKEND_H
#define HILAB_BACKEND_H

#include <stdbool.h>

#include "machines/machine.h"

/*
 * A kernel to boot; NULL image = the machine's own (a VM's last or default
 * kernel, an ssh host's known-good kernel).
 */
struct backend_kernel {
	const char *name;    /* as users see it: "base", "patch 1" */
	const char *image;   /* bzImage / Image path on the controller */
	const char *initrd;  /* may be NULL */
	const char *cmdline; /* words to add, may be NULL */
	const char *modules; /* for an ssh host: lib/modules/<release> in a
				directory or tarball, or NULL */
	const char *release; /* uname -r, or NULL: from the image */
	const char *dtb;     /* the device tree to boot with, or NULL */
};

struct backend;

/*
 * Why the last boot failed.  Only a kernel failure counts against the
 * kernel; an emulator failure or a hang without a panic line is booted
 * again (backend_boot_tries).
 */
enum backend_failure {
	BACKEND_FAIL_KERNEL = 0, /* a panic, a crash, a stop */
	BACKEND_FAIL_HANG,	 /* no answer and no panic line */
	BACKEND_FAIL_EMULATOR,	 /* qemu exited, would not start, or
				    libvirtd did not answer */
	BACKEND_FAIL_CONFIG,	 /* nothing can boot as configured */
};

struct backend_ops {
	const char *name;
	/*
	 * Brings the machine up running kernel k and returns once its ssh
	 * port answers, or -1 with *cause (a panic, a crash, a timeout: the
	 * cause says which, the backend's failure says what kind, and the
	 * console excerpt is kept for backend_console).
	 */
	int (*boot)(struct backend *, const struct backend_kernel *k,
	    char **cause);
	/*
	 * Ends a job's use of the machine: a VM is destroyed, an ssh host
	 * goes back to its known-good kernel; 0 or -1 with *cause.
	 */
	int (*shutdown)(struct backend *, char **cause);
	/* The tail of the console of the last boot (caller frees), or NULL. */
	char *(*console)(struct backend *);
	/*
	 * Why the kernel that booted last went down since: a panic line on
	 * its console, a crash or a stop, said as boot's causes are (caller
	 * frees); NULL while it runs or when the backend cannot tell.  Cheap
	 * enough for every second of a run's silence.  May be NULL.
	 */
	char *(*down)(struct backend *);
	void (*free)(struct backend *);
};

struct backend {
	const struct backend_ops *ops;
	const struct machine	 *machine;
	void			 *priv;
	enum backend_failure	  failure; /* of the last boot */
	/*
	 * Set by a boot that failed in the kernel (a panic, a hang, no ssh
	 * after the switch, another kernel booted), not in the lab (ssh
	 * refused before the switch, an install that failed, qemu gone).
	 */
	bool kernel_failed;
	/*
	 * Set with kernel_failed when the console showed the kernel
	 * rebooting itself after its panic (a panic= timeout): the firmware
	 * brings the default kernel back without a power cycle.
	 */
	bool resets_itself;
	/*
	 * The controller's directory of agent builds when the worker gives
	 * it: the libvirt backend puts the agent in the boot's initramfs.
	 */
	const char *agent_dir;
};

/* The backend of a kind ssh machine (ssh_backend.c). */
struct backend *ssh_backend_new(const struct machine *, char **cause);
/*
 * The install a kernel command line's BOOT_IMAGE=.../<id>/vmlinuz names,
 * into id (17 bytes: 16 hex digits); "" when it names none, as when the
 * host's own kernel booted.
 */
void ssh_backend_booted_id(const char *cmdline, char *id);

/* Hears of a failed boot that is made again: its number and why. */
typedef void backend_retry_fn(void *arg, int boot, enum backend_failure,
    const char *why);

/* Returns the backend for the machine's kind, or NULL with *cause. */
struct backend *backend_new(const struct machine *, char **cause);
/* One boot; on failure b->failure says what kind. */
int backend_boot(struct backend *, const struct backend_kernel *, char **cause);
/*
 * Boots k, and again on a fresh domain after an emulator failure or a hang
 * without a panic line, up to the machine's boot_tries boots in all; retry
 * (may be NULL) hears of each boot made again.  *boots is the number of
 * boots made.  On failure *cause says whether the kernel is to blame.
 */
int backend_boot_tries(struct backend *, const struct backend_kernel *,
    backend_retry_fn *retry, void *arg, int *boots, char **cause);
/* "kernel", "hang", "emulator" or "config". */
const char *backend_failure_name(enum backend_failure);
int	    backend_shutdown(struct backend *, char **cause);
char	   *backend_console(struct backend *);
char	   *backend_down(struct backend *);
void	    backend_free(struct backend *);

#endif
