/*
 * How a command reaches the host: sshd runs it through the login user's
 * shell, which reads its start-up files first (bash reads ~/.bashrc for
 * ssh commands).  Whatever they do (print a greeting, put another uname
 * first in PATH, set a locale, a umask, a directory, export
 * OMP_NUM_THREADS or LD_PRELOAD), the command runs the same: the login
 * shell only execs env, which starts a POSIX sh in a clean environment
 * (HOME, a standard PATH, LC_ALL=C); it prints a mark on stdout and
 * stderr and runs the command in the login user's home with umask 022.
 * Output before the marks is the start-up files' and is dropped.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "machines/ssh.h"
#include "machines/ssh_int.h"

#define SSH_SHELL_PATH \
	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* What the login shell runs: env, which runs sh in a clean environment. */
#define SSH_SHELL_ENV                                              \
	"exec /usr/bin/env -i HOME=\"$HOME\" PATH=" SSH_SHELL_PATH \
	" LC_ALL=C /bin/sh -c "

/* The sh script that marks the streams and runs "$1" (the command). */
static const char ssh_shell_script[] =
    "printf '\\036hilab\\036'; printf '\\036hilab\\036' >&2; "
    "cd \"${HOME:-/}\" 2>/dev/null || cd /; umask 022; eval \"$1\"";

char *
ssh_shell_wrap(const char *cmd)
{
	char *script = ssh_host_quote(ssh_shell_script);
	char *qcmd = ssh_host_quote(cmd), *s;

	s = xasprintf(SSH_SHELL_ENV "%s hilab %s", script, qcmd);
	free(qcmd);
	free(script);
	return s;
}

size_t
ssh_shell_mark_end(const char *buf, size_t len)
{
	const char *p = memmem(buf, len, SSH_SHELL_MARK, SSH_SHELL_MARK_LEN);

	return p == NULL ? SIZE_MAX : (size_t)(p - buf) + SSH_SHELL_MARK_LEN;
}
