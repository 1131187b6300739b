/*
 * Backend dispatch: a libvirt machine gets the libvirt backend, an ssh
 * host the ssh backend (ssh_backend.c).
 */
#include <stdlib.h>

#include "common/xmalloc.h"
#include "machines/backend.h"
#include "machines/libvirt.h"

struct backend *
backend_new(const struct machine *m, char **cause)
{
	switch (m->kind) {
	case MACHINE_LIBVIRT:
		return libvirt_backend_new(m, cause);
	case MACHINE_SSH:
		return ssh_backend_new(m, cause);
	}
	*cause =
	    xasprintf("machine \"%s\": unknown kind %d", m->name, (int)m->kind);
	return NULL;
}

int
backend_boot(struct backend *b, const struct backend_kernel *k, char **cause)
{
	b->failure = BACKEND_FAIL_KERNEL;
	b->kernel_failed = false;
	b->resets_itself = false;
	return b->ops->boot(b, k, cause);
}

const char *
backend_failure_name(enum backend_failure f)
{
	switch (f) {
	case BACKEND_FAIL_KERNEL:
		return "kernel";
	case BACKEND_FAIL_HANG:
		return "hang";
	case BACKEND_FAIL_EMULATOR:
		return "emulator";
	case BACKEND_FAIL_CONFIG:
		break;
	}
	return "config";
}

/* The cause of the last of n failed boots, saying who is to blame. */
static char *
backend_tries_cause(const struct backend *b, int n, const char *last)
{
	if (b->failure == BACKEND_FAIL_EMULATOR)
		return xasprintf("%s (boot %d of %d; an emulator failure is "
				 "not held against the kernel)",
		    last, n, n);
	if (b->failure == BACKEND_FAIL_HANG && n > 1)
		return xasprintf("%s (boot %d of %d; each hang without a "
				 "panic line was booted again)",
		    last, n, n);
	return xstrdup(last);
}

int
backend_boot_tries(struct backend *b, const struct backend_kernel *k,
    backend_retry_fn *retry, void *arg, int *boots, char **cause)
{
	int   tries = b->machine->kind == MACHINE_LIBVIRT
	      ? b->machine->libvirt.boot_tries
	      : 1;
	char *why = NULL;

	for (*boots = 1;; (*boots)++) {
		free(why);
		why = NULL;
		if (backend_boot(b, k, &why) == 0)
			return 0;
		if ((b->failure != BACKEND_FAIL_HANG &&
			b->failure != BACKEND_FAIL_EMULATOR) ||
		    *boots >= tries)
			break;
		if (retry != NULL)
			retry(arg, *boots, b->failure, why);
	}
	*cause = backend_tries_cause(b, *boots, why);
	free(why);
	return -1;
}

int
backend_shutdown(struct backend *b, char **cause)
{
	return b->ops->shutdown(b, cause);
}

char *
backend_console(struct backend *b)
{
	return b->ops->console(b);
}

char *
backend_down(struct backend *b)
{
	return b->ops->down != NULL ? b->ops->down(b) : NULL;
}

void
backend_free(struct backend *b)
{
	if (b != NULL)
		b->ops->free(b);
}
