/*
 * How the ssh backend (ssh_backend.c) makes an installed kernel the one a
 * host boots next: kexec (boot_kexec.c) loads it into the running kernel,
 * grub (boot_grub.c) gives it a menu entry picked for one boot, extlinux
 * (boot_extlinux.c) an entry U-Boot is told on the console to boot once.
 * Either way the switch itself is a detached command, and the host comes
 * back on its known-good kernel after any reset.
 */
#ifndef HILAB_BOOT_H
#define HILAB_BOOT_H

#include "machines/kinstall.h"
#include "machines/machine.h"

struct console;
struct ssh_host;

struct boot_method {
	const char *name;
	/*
	 * Readies the host to boot in with cmdline (without BOOT_IMAGE=,
	 * which the method adds) when the go command runs; 0, or -1 with
	 * *cause.
	 */
	int (*load)(struct ssh_host *, const struct machine *,
	    const struct kinstall *in, const char *cmdline, char **cause);
	/* The shell command that starts that boot (run detached). */
	const char *go;
	/*
	 * What the console is told while the host resets, to boot the
	 * install (NULL: nothing); 0, or -1 with *cause.
	 */
	int (*pick)(struct console *, const struct machine *,
	    const struct kinstall *in, char **cause);
};

extern const struct boot_method boot_kexec;
extern const struct boot_method boot_grub;
extern const struct boot_method boot_extlinux;

/*
 * The grub menu entry of an install (caller frees): id hilab-<id>, its
 * file system found by UUID, the files by their path in it, every word of
 * cmdline quoted for grub's script.  probe is what grub-probe said: "UUID
 * PATH PARTMAP FS".
 */
char *boot_grub_entry(const struct kinstall *in, const char *probe,
    const char *cmdline);

/*
 * The extlinux entry of an install (caller frees): label hilab-<id>, the
 * files under rel (the install's directory on the boot file system), the
 * command line with BOOT_IMAGE= naming the image.
 */
char *boot_extlinux_entry(const struct kinstall *in, const char *rel,
    const char *cmdline);

/*
 * The shell script that writes the install's entry (a text of
 * boot_extlinux_entry) to <install>/extlinux.entry, with the device tree
 * lines (FDT, FDTDIR, DEVICETREE) of conf's DEFAULT entry, and gathers
 * every install's entry under bootdir into conf's hilab block, written
 * beside conf and renamed (caller frees).
 */
char *boot_extlinux_script(const char *conf, const char *bootdir,
    const struct kinstall *in, const char *entry);

/* A reboot: the firmware and the default entry bring the known-good kernel. */
#define BOOT_REBOOT                                                          \
	"if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; " \
	"then systemctl reboot; else sync; reboot; fi"

#endif
