/*
 * The extlinux boot method, for boards whose U-Boot reads
 * extlinux/extlinux.conf (distro boot): each install gets an entry of its
 * own, <install>/extlinux.entry with the label hilab-<id>, all of them
 * gathered into a block of extlinux.conf between "# hilab-begin" and
 * "# hilab-end"; DEFAULT is never changed, and its device tree lines (FDT,
 * FDTDIR) are each entry's too, but for a kernel that brings its own
 * device tree (FDT <install>/board.dtb: U-Boot loads it at fdt_addr_r).  U-Boot
 * has no one-shot entry: at the reboot hilab stops the autoboot on the serial
 * console and boots with pxe_label_override=hilab-<id> set for that boot alone
 * (never saved), as LAVA drives a board's prompt.  Any later reset, a panic's
 * included, boots DEFAULT: the known-good kernel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/xmalloc.h"
#include "machines/boot.h"
#include "machines/console.h"
#include "machines/ssh.h"

#define EXT_AUTOBOOT "Hit any key to stop autoboot"
#define EXT_PROMPT   "=> "
#define EXT_POLL_MS  100
#define EXT_TAIL     (64 * 1024)
/*
 * The DEFAULT entry's device tree lines (FDT, FDTDIR, DEVICETREE), which
 * hilab's entries take too: a kernel of the board's boots with the board's
 * device tree, not with U-Boot's own.
 */
#define EXT_DEFAULT_DT                                                       \
	"awk 'NR == FNR { if (toupper($1) == \"DEFAULT\") d = $2; next } "   \
	"toupper($1) == \"LABEL\" { l = $2 } "                               \
	"l == d && (toupper($1) == \"FDT\" || toupper($1) == \"FDTDIR\" || " \
	"toupper($1) == \"DEVICETREE\") { print \"  \" $1 \" \" $2 }' "      \
	"\"$c\" \"$c\""

/*
 * The install's entry; rel is the install's directory as U-Boot sees it
 * (relative to its file system's root).  BOOT_IMAGE= comes first and names
 * the image as grub would, so the booted kernel shows which install it is.
 */
char *
boot_extlinux_entry(const struct kinstall *in, const char *rel,
    const char *cmdline)
{
	return xasprintf("LABEL hilab-%s\n"
			 "  MENU LABEL hilab %s (%s)\n"
			 "  KERNEL %s/vmlinuz\n"
			 "%s%s%s%s%s%s"
			 "  APPEND BOOT_IMAGE=%s/vmlinuz%s%s\n",
	    in->id, in->id, in->release, rel,
	    in->initrd != NULL ? "  INITRD " : "",
	    in->initrd != NULL ? rel : "",
	    in->initrd != NULL ? "/initrd.img\n" : "",
	    in->dtb != NULL ? "  FDT " : "", in->dtb != NULL ? rel : "",
	    in->dtb != NULL ? "/board.dtb\n" : "", rel,
	    *cmdline != '\0' ? " " : "", cmdline);
}

/* The install's directory relative to the file system it lives on. */
static char *
boot_extlinux_rel(struct ssh_host *h, const struct kinstall *in, char **cause)
{
	char *q = ssh_host_quote(in->dir), *cmd, *out = NULL;

	cmd = xasprintf("d=%s; m=$(df -P \"$d\" | awk 'NR == 2 { print $6 }'); "
			"[ -n \"$m\" ] || exit 1; [ \"$m\" = / ] && m=; "
			"echo \"${d#$m}\"",
	    q);
	if (ssh_host_run(h, "extlinux path", cmd, 0, &out, cause) != 0)
		out = NULL;
	else
		out[strcspn(out, "\n")] = '\0';
	free(cmd);
	free(q);
	return out;
}

char *
boot_extlinux_script(const char *conf, const char *bootdir,
    const struct kinstall *in, const char *entry)
{
	char *qd = ssh_host_quote(in->dir), *qb = ssh_host_quote(bootdir);
	char *qc = ssh_host_quote(conf), *cmd;

	cmd = xasprintf("set -e; c=%s; { cat <<'HILAB_EOF'\n"
			"%sHILAB_EOF\n%s; } >%s/extlinux.entry; "
			"{ sed '/^# hilab-begin/,/^# hilab-end/d' \"$c\"; "
			"echo '# hilab-begin: one entry per kernel hilab "
			"installed'; cat %s/*/extlinux.entry; "
			"echo '# hilab-end'; } >\"$c.hilab\"; "
			"mv \"$c.hilab\" \"$c\"; sync",
	    qc, entry, in->dtb != NULL ? ":" : EXT_DEFAULT_DT, qd, qb);
	free(qc);
	free(qb);
	free(qd);
	return cmd;
}

/* Writes the install's entry and gathers every entry into extlinux.conf. */
static int
boot_extlinux_load(struct ssh_host *h, const struct machine *m,
    const struct kinstall *in, const char *cmdline, char **cause)
{
	char *rel, *entry, *cmd;
	int   rc;

	if (strpbrk(cmdline, "\r\n") != NULL) {
		*cause = xasprintf("machine \"%s\": a kernel command line for "
				   "extlinux must be one line",
		    m->name);
		return -1;
	}
	if ((rel = boot_extlinux_rel(h, in, cause)) == NULL)
		return -1;
	entry = boot_extlinux_entry(in, rel, cmdline);
	cmd = boot_extlinux_script(m->boot.extlinux, m->boot.dir, in, entry);
	rc = ssh_host_run(h, "extlinux entry", cmd, m->boot.timeout_ms, NULL,
	    cause);
	free(cmd);
	free(entry);
	free(rel);
	return rc;
}

/*
 * Waits until the console file shows want after offset *from; *from then
 * points past it.  0, or -1 once timeout_ms passed.
 */
static int
boot_extlinux_await(struct console *c, const char *want, size_t *from,
    int64_t end)
{
	char  *tail, *p;
	size_t len;

	for (;;) {
		tail = console_file_tail(console_path(c), EXT_TAIL);
		len = tail != NULL ? strlen(tail) : 0;
		if (*from > len)
			*from = 0; /* the tail moved on */
		if (tail != NULL && (p = strstr(tail + *from, want)) != NULL) {
			*from = (size_t)(p - tail) + strlen(want);
			free(tail);
			return 0;
		}
		free(tail);
		if (clock_now_ms() > end)
			return -1;
		clock_sleep_ms(EXT_POLL_MS);
	}
}

/* The prompt waited for did not show: -1 with *cause. */
static int
boot_extlinux_missing(const struct machine *m, const char *want, char **cause)
{
	*cause = xasprintf("machine \"%s\": U-Boot's \"%s\" did not show on "
			   "the console",
	    m->name, want);
	return -1;
}

/*
 * At the reboot: stops U-Boot's autoboot and boots the install's entry
 * for this boot alone.
 */
static int
boot_extlinux_pick(struct console *c, const struct machine *m,
    const struct kinstall *in, char **cause)
{
	int64_t end = clock_now_ms() + m->boot.timeout_ms;
	size_t	from = 0;
	char   *line;
	int	rc;

	if (c == NULL) {
		*cause = xasprintf("machine \"%s\": extlinux needs a console "
				   "to answer U-Boot's prompt",
		    m->name);
		return -1;
	}
	if (boot_extlinux_await(c, EXT_AUTOBOOT, &from, end) != 0)
		return boot_extlinux_missing(m, EXT_AUTOBOOT, cause);
	if (console_write(c, "\r", 1, cause) != 0)
		return -1;
	if (boot_extlinux_await(c, EXT_PROMPT, &from, end) != 0)
		return boot_extlinux_missing(m, EXT_PROMPT, cause);
	line = xasprintf("setenv pxe_label_override hilab-%s; boot\r", in->id);
	rc = console_write(c, line, strlen(line), cause);
	free(line);
	return rc;
}

const struct boot_method boot_extlinux = {
	.name = "extlinux",
	.load = boot_extlinux_load,
	.go = BOOT_REBOOT,
	.pick = boot_extlinux_pick,
};
