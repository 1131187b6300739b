/*
 * The ssh transport on libssh: one authenticated session per machine,
 * commands with a timeout, exec channels kept open for a long-lived
 * process (the agent), and SFTP upload.  Host keys are checked strictly
 * against the machine's own known_hosts file; ~/.ssh/config is not read.
 * Every error names the machine: `host "vm32": ssh connect: timed out`.
 * A session is used by one thread at a time.
 */
#ifndef HILAB_SSH_H
#define HILAB_SSH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "machines/machine.h"

struct ssh_host;
struct ssh_host_chan;

/* Flags for ssh_host_connect. */
#define SSH_HOST_NO_NODELAY 0x1 /* leave Nagle on (measurements only) */

/* What a command printed and how it ended. */
struct ssh_host_result {
	char  *out; /* stdout, NUL-terminated; owned */
	size_t out_len;
	char  *err; /* stderr, NUL-terminated; owned */
	size_t err_len;
	int    status; /* exit status, -1 if none (killed) */
};

/*
 * Connects and authenticates with the machine's identity file.  The host
 * key must be in the machine's known_hosts; an unknown key is added only
 * with trust_on_first_use, a changed one is always refused.  Returns NULL
 * with *cause set on failure.
 */
struct ssh_host *ssh_host_connect(const struct machine *, int flags,
    char **cause);
/* Disconnects and frees; accepts NULL. */
void ssh_host_close(struct ssh_host *);
/* The machine's name, for messages. */
const char *ssh_host_name(const struct ssh_host *);
/* The command timeout in milliseconds from the machine (never 0). */
int ssh_host_command_timeout(const struct ssh_host *);

/*
 * Runs cmd through the remote user's shell and collects its output and
 * exit status within the machine's command timeout.  A non-zero exit is
 * not an error: res->status tells.  Returns -1 with *cause on a transport
 * failure or timeout.
 */
int ssh_host_exec(struct ssh_host *, const char *cmd,
    struct ssh_host_result *res, char **cause);
/* Frees the buffers of a result and zeroes it. */
void ssh_host_result_clear(struct ssh_host_result *);

/* Creates dir and its parents over SFTP (mkdir -p). */
int ssh_host_mkdir_p(struct ssh_host *, const char *dir, char **cause);
/*
 * Uploads a local file to remote over SFTP: written beside it under a
 * temporary name, chmod'ed to mode, then renamed into place, so remote is
 * either absent or complete.  Creates the remote directory if needed.
 */
int ssh_host_upload(struct ssh_host *, const char *local, const char *remote,
    mode_t mode, char **cause);

/* Returns a copy of s quoted for a POSIX shell; the caller frees it. */
char *ssh_host_quote(const char *s);

/* Starts cmd on a new channel kept open for reading and writing. */
struct ssh_host_chan *ssh_host_chan_open(struct ssh_host *, const char *cmd,
    char **cause);
/*
 * Reads exactly len bytes of the process's stdout.  timeout_ms < 0 waits
 * until the data arrives or the connection drops.  End of file before len
 * bytes is an error that quotes the end of the process's stderr.
 */
int ssh_host_chan_read(struct ssh_host_chan *, void *buf, size_t len,
    int timeout_ms, char **cause);
/* Writes all of buf to the process's stdin within timeout_ms (< 0: none). */
int ssh_host_chan_write(struct ssh_host_chan *, const void *buf, size_t len,
    int timeout_ms, char **cause);
/* The last bytes the process wrote to stderr (NUL-terminated, maybe ""). */
const char *ssh_host_chan_stderr(const struct ssh_host_chan *);
/* Sends end of file, closes the channel and frees it; accepts NULL. */
void ssh_host_chan_close(struct ssh_host_chan *);

#endif
