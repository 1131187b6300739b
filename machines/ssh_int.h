/*
 * The ssh transport's session, shared by ssh.c (connect, commands,
 * channels) and ssh_upload.c (uploads); not for other files.
 */
#ifndef HILAB_SSH_INT_H
#define HILAB_SSH_INT_H

#include <stdbool.h>

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

#endif
