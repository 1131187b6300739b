/*
 * The kexec boot method: "kexec -l" with the installed image, its initrd
 * and the command line, then "systemctl kexec" (units stopped, file
 * systems unmounted) or, without systemd, "kexec -e".  The command line
 * gets BOOT_IMAGE=<image> first, as boot loaders put it, so the booted
 * kernel shows which install it is.
 */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "machines/boot.h"
#include "machines/ssh.h"

/* Loads the install into the running kernel for the next kexec. */
static int
boot_kexec_load(struct ssh_host *h, const struct machine *m,
    const struct kinstall *in, const char *cmdline, char **cause)
{
	char *line =
	    xasprintf("--command-line=BOOT_IMAGE=%s %s", in->image, cmdline);
	char *initrd = in->initrd != NULL ? xasprintf("--initrd=%s", in->initrd)
					  : xstrdup("");
	char *dtb =
	    in->dtb != NULL ? xasprintf("--dtb=%s", in->dtb) : xstrdup("");
	char *qi = ssh_host_quote(in->image), *ql = ssh_host_quote(line);
	char *qr = ssh_host_quote(initrd), *qt = ssh_host_quote(dtb), *cmd;
	int   rc;

	(void)m;
	cmd = xasprintf("kexec -l %s %s %s %s", qi,
	    in->initrd != NULL ? qr : "", in->dtb != NULL ? qt : "", ql);
	rc = ssh_host_run(h, "kexec -l", cmd, 0, NULL, cause);
	free(cmd);
	free(qr);
	free(ql);
	free(qi);
	free(qt);
	free(dtb);
	free(initrd);
	free(line);
	return rc;
}

const struct boot_method boot_kexec = {
	.name = "kexec",
	.load = boot_kexec_load,
	.go = "if [ -d /run/systemd/system ] && command -v systemctl "
	      ">/dev/null; then systemctl kexec; else sync; kexec -e; fi",
};
