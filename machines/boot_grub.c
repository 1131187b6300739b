/*
 * The grub boot method: each install gets a menu entry of its own,
 * <install>/grub.cfg with the id hilab-<id>, all of them gathered into
 * hilab.cfg in grub's directory, which /etc/grub.d/42_hilab (written once,
 * then update-grub) sources from grub.cfg.  "grub-reboot hilab-<id>" picks
 * the entry for the next boot only; the default entry is never changed,
 * so any later reset brings the known-good kernel back.  Hosts with grub2-
 * named tools (grub2-reboot, /boot/grub2) work the same.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "machines/boot.h"
#include "machines/ssh.h"

/* Picks grub or grub2 and their directory, as the host has them. */
#define BOOT_GRUB_TOOLS                                                 \
	"g=grub; command -v grub-reboot >/dev/null || g=grub2; "        \
	"command -v $g-reboot >/dev/null || { echo \"no grub-reboot\" " \
	">&2; exit 1; }; c=/boot/$g; "

/* The script update-grub runs: it adds the sourcing of hilab.cfg. */
#define BOOT_GRUB_HOOK                                                  \
	"#!/bin/sh\n"                                                   \
	"# hilab: the kernels it installed, one menu entry each.\n"     \
	"cat <<'EOF'\n"                                                 \
	"if [ -f ${config_directory}/hilab.cfg ]; then\n"               \
	"  source ${config_directory}/hilab.cfg\n"                      \
	"elif [ -z \"${config_directory}\" -a -f $prefix/hilab.cfg ]; " \
	"then\n"                                                        \
	"  source $prefix/hilab.cfg\n"                                  \
	"fi\n"                                                          \
	"EOF\n"

/* Appends s quoted for grub's script: '...' with ' as '\''. */
static void
boot_grub_word(char **line, const char *s, size_t len)
{
	size_t i, n = strlen(*line);

	*line = xreallocarray(*line, 1, n + len * 4 + 4);
	(*line)[n++] = ' ';
	(*line)[n++] = '\'';
	for (i = 0; i < len; i++) {
		if (s[i] == '\'') {
			memcpy(*line + n, "'\\''", 4);
			n += 4;
		} else
			(*line)[n++] = s[i];
	}
	(*line)[n++] = '\'';
	(*line)[n] = '\0';
}

/* The kernel command line as grub words (caller frees). */
static char *
boot_grub_words(const char *cmdline)
{
	char	   *line = xstrdup("");
	const char *p = cmdline;
	size_t	    len;

	for (p += strspn(p, " "); *p != '\0'; p += strspn(p, " ")) {
		len = strcspn(p, " ");
		boot_grub_word(&line, p, len);
		p += len;
	}
	return line;
}

char *
boot_grub_entry(const struct kinstall *in, const char *probe,
    const char *cmdline)
{
	char  uuid[64] = "", rel[1024] = "", pmap[32] = "", fs[32] = "";
	char *words = boot_grub_words(cmdline), *entry;

	sscanf(probe, "%63s %1023s %31s %31s", uuid, rel, pmap, fs);
	entry = xasprintf("menuentry 'hilab %s (%s)' --id hilab-%s {\n"
			  "\tinsmod part_%s\n\tinsmod %s\n"
			  "\tsearch --no-floppy --fs-uuid --set=root %s\n"
			  "\tlinux %s/vmlinuz%s\n%s%s%s%s%s%s}\n",
	    in->id, in->release, in->id, pmap, fs, uuid, rel, words,
	    in->initrd != NULL ? "\tinitrd " : "",
	    in->initrd != NULL ? rel : "",
	    in->initrd != NULL ? "/initrd.img\n" : "",
	    in->dtb != NULL ? "\tdevicetree " : "", in->dtb != NULL ? rel : "",
	    in->dtb != NULL ? "/board.dtb\n" : "");
	free(words);
	return entry;
}

/* Asks grub where the install lives: fs UUID, path, partition map, fs. */
static char *
boot_grub_probe(struct ssh_host *h, const struct kinstall *in, char **cause)
{
	char *q = ssh_host_quote(in->dir), *cmd, *out = NULL;

	cmd =
	    xasprintf(BOOT_GRUB_TOOLS "d=%s; echo $($g-probe --target=fs_uuid "
				      "\"$d\") $($g-mkrelpath \"$d\") "
				      "$($g-probe --target=partmap \"$d\" | "
				      "head -n 1) $($g-probe --target=fs "
				      "\"$d\")",
		q);
	if (ssh_host_run(h, "grub-probe", cmd, 0, &out, cause) != 0)
		out = NULL;
	free(cmd);
	free(q);
	return out;
}

/*
 * Writes the install's entry, gathers every install's entry into
 * hilab.cfg, adds the hook to grub.cfg once, and picks the entry for the
 * next boot.
 */
static int
boot_grub_load(struct ssh_host *h, const struct machine *m,
    const struct kinstall *in, const char *cmdline, char **cause)
{
	char *probe, *entry, *qd, *qb, *cmd;
	int   rc;

	if ((probe = boot_grub_probe(h, in, cause)) == NULL)
		return -1;
	entry = boot_grub_entry(in, probe, cmdline);
	qd = ssh_host_quote(in->dir);
	qb = ssh_host_quote(m->boot.dir);
	cmd = xasprintf(BOOT_GRUB_TOOLS
	    "set -e; cat >%s/grub.cfg <<'HILAB_EOF'\n%sHILAB_EOF\n"
	    "cat %s/*/grub.cfg >$c/hilab.cfg.new; mv $c/hilab.cfg.new "
	    "$c/hilab.cfg; if [ ! -x /etc/grub.d/42_hilab ]; then cat "
	    ">/etc/grub.d/42_hilab <<'HILAB_EOF'\n%sHILAB_EOF\nchmod 755 "
	    "/etc/grub.d/42_hilab; $g-mkconfig -o $c/grub.cfg 2>&1; fi; "
	    "$g-reboot hilab-%s",
	    qd, entry, qb, BOOT_GRUB_HOOK, in->id);
	rc =
	    ssh_host_run(h, "grub entry", cmd, m->boot.timeout_ms, NULL, cause);
	free(cmd);
	free(qb);
	free(qd);
	free(entry);
	free(probe);
	return rc;
}

const struct boot_method boot_grub = {
	.name = "grub",
	.load = boot_grub_load,
	.go = BOOT_REBOOT,
};
