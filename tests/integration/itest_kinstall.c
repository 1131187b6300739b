/*
 * Drives kernel installs (machines/kinstall.c) against a real sshd for
 * kinstall.sh:
 *	put DIR KEEP NAME IMAGE INITRD MODULES RELEASE
 *		install (INITRD, MODULES, RELEASE: "-" for none), prune to
 *		KEEP, print "id=<id> fresh=<0|1> initrd=<path|-> release=<r>
 *		pruned=<n> seconds=<s>"; exit 3 with the error on a failure
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "machines/kinstall.h"
#include "machines/ssh.h"
#include "tests/integration/driver.h"

/* "-" means none. */
static const char *
itest_opt(const char *s)
{
	return strcmp(s, "-") == 0 ? NULL : s;
}

/* Installs one kernel and prunes; prints the outcome. */
static int
itest_put(struct machine *m, char **argv)
{
	struct kinstall_kernel k = { .name = argv[2],
		.image = argv[3],
		.initrd = itest_opt(argv[4]),
		.modules = itest_opt(argv[5]),
		.release = itest_opt(argv[6]) };
	struct kinstall	       in = { 0 };
	struct ssh_host	      *h;
	char		      *cause = NULL;
	int		       pruned = -1, rc = 3;

	m->boot.method = MACHINE_BOOT_KEXEC;
	m->boot.dir = xstrdup(argv[0]);
	m->boot.keep = atoi(argv[1]);
	m->boot.timeout_ms = 120000;
	if ((h = ssh_host_connect(m, 0, &cause)) != NULL &&
	    kinstall_put(h, m, &k, &in, &cause) == 0)
		pruned = kinstall_prune(h, m, in.id, &cause);
	if (pruned == -1)
		printf("%s\n", cause);
	else {
		printf("id=%s fresh=%d initrd=%s release=%s pruned=%d "
		       "seconds=%.2f\n",
		    in.id, in.fresh, in.initrd != NULL ? in.initrd : "-",
		    in.release, pruned, in.seconds);
		rc = 0;
	}
	free(cause);
	kinstall_clear(&in);
	ssh_host_close(h);
	free(m->boot.dir);
	m->boot.dir = NULL;
	return rc;
}

int
main(int argc, char **argv)
{
	struct machine m;
	int	       flags, i, rc = 2;

	i = driver_machine(&m, &flags, argc, argv);
	if (strcmp(argv[i], "put") == 0 && argc - i == 8)
		rc = itest_put(&m, argv + i + 1);
	else
		driver_usage(argv[0]);
	driver_machine_free(&m);
	return rc;
}
