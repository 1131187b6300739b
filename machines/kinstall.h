/*
 * Kernels installed on an ssh host, each in a directory of the machine's
 * boot dir named by a content hash of what it is made of (image, initrd,
 * modules, device tree, release): <dir>/<id>/vmlinuz, initrd.img,
 * board.dtb, release, name and
 * .complete (its time: when it was last asked for).  What is there already
 * is not sent again.  Modules go to /lib/modules/<release> with a .hilab
 * stamp, unless the host has that directory of its own: nothing the host
 * booted with is ever written.  Without an initrd one is made on the host
 * (mkinitramfs or dracut) when it has the kernel's modules.
 */
#ifndef HILAB_KINSTALL_H
#define HILAB_KINSTALL_H

#include <stdbool.h>

#include "machines/machine.h"

struct ssh_host;

#define KINSTALL_ID_LEN 16 /* hex digits */

/* A kernel on the controller. */
struct kinstall_kernel {
	const char *name;    /* for messages */
	const char *image;   /* bzImage */
	const char *initrd;  /* or NULL */
	const char *modules; /* a directory holding lib/modules/<release>,
				or a tarball of it, or NULL */
	const char *release; /* or NULL: from the image's boot header */
	const char *dtb;     /* a device tree blob, or NULL */
};

/* Where it is on the host. */
struct kinstall {
	char   id[KINSTALL_ID_LEN + 1];
	char  *release;
	char  *dir;    /* <boot dir>/<id> */
	char  *image;  /* <dir>/vmlinuz */
	char  *initrd; /* <dir>/initrd.img, or NULL: it boots without */
	char  *dtb;    /* <dir>/board.dtb, or NULL: the board's own */
	bool   fresh;  /* not there before: sent now */
	double seconds;
};

/*
 * Puts kernel k on the host of machine m (its boot section says where) and
 * fills *out (free with kinstall_clear).  Returns 0, or -1 with *cause
 * naming the machine, the kernel and the step.
 */
int  kinstall_put(struct ssh_host *, const struct machine *m,
     const struct kinstall_kernel *k, struct kinstall *out, char **cause);
void kinstall_clear(struct kinstall *);
/*
 * Removes the installs beyond the machine's boot.keep newest, never the
 * one called keep_id, with the modules each one put there that no kept one
 * shares.  Returns how many went, or -1 with *cause.
 */
int kinstall_prune(struct ssh_host *, const struct machine *m,
    const char *keep_id, char **cause);

#endif
