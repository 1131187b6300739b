/*
 * The ssh transport on libssh: one authenticated session per machine,
 * commands with a timeout, exec channels kept open for a long-lived
 * process (the agent), and uploads (SFTP, or an exec channel).  Host keys
 * are checked strictly against the machine's own known_hosts file;
 * ~/.ssh/config is not read.
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

/* Why the calling thread's last ssh_host_connect failed. */
enum ssh_host_error {
	SSH_HOST_OK,
	SSH_HOST_UNREACHABLE, /* no answer or refused: the host may be down */
	SSH_HOST_TRUST,	      /* host key changed or unknown, auth refused */
	SSH_HOST_OTHER
};

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
/*
 * True if something at host:port sends an SSH banner within timeout_ms: a
 * cheap look whether a booting host's sshd is up yet.
 */
bool ssh_host_probe(const char *host, int port, int timeout_ms);
/* Why this thread's last ssh_host_connect failed (SSH_HOST_OK: it did not). */
enum ssh_host_error ssh_host_last_error(void);
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
/* ssh_host_exec with a timeout of its own (a long step: mkinitramfs). */
int ssh_host_exec_within(struct ssh_host *, const char *cmd, int timeout_ms,
    struct ssh_host_result *res, char **cause);
/*
 * Runs cmd (timeout_ms 0: the machine's command timeout) and wants exit 0:
 * returns 0 with its stdout, trailing blanks cut, in *out (caller frees;
 * out may be NULL), or -1 with *cause `host "NAME": WHAT: <the end of its
 * stderr> (exit N)`.
 */
int ssh_host_run(struct ssh_host *, const char *what, const char *cmd,
    int timeout_ms, char **out, char **cause);
/* A result's stdout without its trailing blanks (caller frees). */
char *ssh_host_result_out(const struct ssh_host_result *);
/* Frees the buffers of a result and zeroes it. */
void ssh_host_result_clear(struct ssh_host_result *);

/* Creates dir and its parents (mkdir -p). */
int ssh_host_mkdir_p(struct ssh_host *, const char *dir, char **cause);
/*
 * Uploads a local file to remote (ssh_upload.c): written beside it under a
 * temporary name, over SFTP or, on a host without the SFTP subsystem, over
 * an exec channel into cat; its sha256 checked on the host (sha256sum),
 * chmod'ed to mode, then renamed into place, so remote is either absent or
 * complete and right.  Creates the remote directory if needed.
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
/*
 * Waits up to timeout_ms (>= 0) for the process's stdout: 1 when there is
 * some to read, 0 when none came, -1 with *cause when the process ended
 * or the connection dropped.
 */
int ssh_host_chan_poll(struct ssh_host_chan *, int timeout_ms, char **cause);
/* Writes all of buf to the process's stdin within timeout_ms (< 0: none). */
int ssh_host_chan_write(struct ssh_host_chan *, const void *buf, size_t len,
    int timeout_ms, char **cause);
/* The last bytes the process wrote to stderr (NUL-terminated, maybe ""). */
const char *ssh_host_chan_stderr(const struct ssh_host_chan *);
/*
 * Sends end of file and waits until the process ends (its output is
 * dropped; the end of its stderr stays for ssh_host_chan_stderr).  Returns
 * 0 with *status its exit status (-1 if none), or -1 with *cause.
 */
int ssh_host_chan_wait(struct ssh_host_chan *, int timeout_ms, int *status,
    char **cause);
/* Sends end of file, closes the channel and frees it; accepts NULL. */
void ssh_host_chan_close(struct ssh_host_chan *);

#endif
