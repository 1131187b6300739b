/*
 * The ssh transport's session and command wrapping, shared by ssh.c
 * (connect, commands, channels), ssh_shell.c (what the login shell is
 * asked to run) and ssh_upload.c (uploads); not for other files.
 */
#ifndef HILAB_SSH_INT_H
#define HILAB_SSH_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <libssh/libssh.h>
#include <libssh/sftp.h>

struct ssh_host {
	ssh_session  s;
	sftp_session sftp;    /* opened on first use */
	bool	     no_sftp; /* the host has no SFTP subsystem */
	char	    *name;
	char	    *addr; /* host, for messages */
	int	     connect_timeout_ms;
	int	     command_timeout_ms;
};

/*
 * The mark the command's sh prints on stdout and stderr before the
 * command starts (ssh_shell.c); what comes before it is the login
 * shell's start-up files'.
 */
#define SSH_SHELL_MARK	   "\036hilab\036"
#define SSH_SHELL_MARK_LEN (sizeof SSH_SHELL_MARK - 1)

/*
 * The command line sshd is asked to run for cmd: cmd in a sh of its own,
 * after the mark, away from the login shell's start-up files (caller
 * frees).
 */
char *ssh_shell_wrap(const char *cmd);
/* The offset just past the first mark in buf, SIZE_MAX if none. */
size_t ssh_shell_mark_end(const char *buf, size_t len);

#endif
