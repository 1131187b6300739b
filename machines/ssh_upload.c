/*
 * Uploads to a host: over SFTP when its sshd has the subsystem, else over
 * an exec channel into cat (dropbear on boards has no SFTP).  Either way
 * the file lands under a temporary name, its sha256 is checked on the host
 * and only then is it renamed into place.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include "common/cause.h"
#include "common/log.h"
#include "common/sha256.h"
#include "common/xmalloc.h"
#include "machines/ssh.h"
#include "machines/ssh_int.h"

#define SSH_UPLOAD_CHUNK 32768

/* Words for an SFTP status code, with libssh's message as a fallback. */
static const char *
ssh_upload_sftp_error(struct ssh_host *h)
{
	switch (sftp_get_error(h->sftp)) {
	case SSH_FX_NO_SUCH_FILE:
		return "no such file or directory";
	case SSH_FX_PERMISSION_DENIED:
		return "permission denied";
	case SSH_FX_FILE_ALREADY_EXISTS:
		return "file exists";
	case SSH_FX_OK:
	case SSH_FX_FAILURE:
	default:
		return ssh_get_error(h->s);
	}
}

/*
 * Opens the SFTP subsystem on first use; -1 with *cause if the host has
 * none (remembered: later uploads do not ask again).
 */
static int
ssh_upload_sftp_open(struct ssh_host *h, char **cause)
{
	if (h->sftp != NULL)
		return 0;
	if (h->no_sftp) {
		causef(cause, "host \"%s\": sftp: not offered", h->name);
		return -1;
	}
	if ((h->sftp = sftp_new(h->s)) == NULL) {
		causef(cause, "host \"%s\": sftp: %s", h->name,
		    ssh_get_error(h->s));
		h->no_sftp = true;
		return -1;
	}
	if (sftp_init(h->sftp) != SSH_OK) {
		causef(cause, "host \"%s\": sftp: %s", h->name,
		    ssh_upload_sftp_error(h));
		sftp_free(h->sftp);
		h->sftp = NULL;
		h->no_sftp = true;
		return -1;
	}
	return 0;
}

/* Reads the next chunk of the local file; 0 at its end, -1 on error. */
static ssize_t
ssh_upload_read(struct ssh_host *h, int fd, char *buf, const char *local,
    char **cause)
{
	ssize_t n;

	while ((n = read(fd, buf, SSH_UPLOAD_CHUNK)) < 0 && errno == EINTR)
		;
	if (n < 0)
		causef(cause, "host \"%s\": upload \"%s\": %s", h->name, local,
		    strerror(errno));
	return n;
}

/* Copies the open local file fd into the remote file f. */
static int
ssh_upload_sftp_copy(struct ssh_host *h, int fd, sftp_file f, const char *local,
    const char *remote, char **cause)
{
	char	buf[SSH_UPLOAD_CHUNK];
	ssize_t n, w, off;

	while ((n = ssh_upload_read(h, fd, buf, local, cause)) != 0) {
		if (n < 0)
			return -1;
		for (off = 0; off < n; off += w) {
			w = sftp_write(f, buf + off, (size_t)(n - off));
			if (w <= 0) {
				causef(cause, "host \"%s\": write \"%s\": %s",
				    h->name, remote, ssh_upload_sftp_error(h));
				return -1;
			}
		}
	}
	return 0;
}

/* Writes fd into tmp over SFTP. */
static int
ssh_upload_sftp(struct ssh_host *h, int fd, const char *local, const char *tmp,
    char **cause)
{
	sftp_file f;
	int	  rc;

	f = sftp_open(h->sftp, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (f == NULL) {
		causef(cause, "host \"%s\": create \"%s\": %s", h->name, tmp,
		    ssh_upload_sftp_error(h));
		return -1;
	}
	rc = ssh_upload_sftp_copy(h, fd, f, local, tmp, cause);
	if (sftp_close(f) != SSH_NO_ERROR && rc == 0) {
		causef(cause, "host \"%s\": close \"%s\": %s", h->name, tmp,
		    ssh_upload_sftp_error(h));
		rc = -1;
	}
	return rc;
}

/* Writes fd into tmp through "cat" on an exec channel. */
static int
ssh_upload_exec(struct ssh_host *h, int fd, const char *local, const char *tmp,
    char **cause)
{
	struct ssh_host_chan *ch;
	char		      buf[SSH_UPLOAD_CHUNK], *q = ssh_host_quote(tmp);
	char		     *cmd = xasprintf("umask 077; cat > %s", q);
	const char	     *err;
	ssize_t		      n;
	int		      status, rc = -1;
	int		      ms = ssh_host_command_timeout(h);

	if ((ch = ssh_host_chan_open(h, cmd, cause)) == NULL)
		goto out;
	while ((n = ssh_upload_read(h, fd, buf, local, cause)) > 0)
		if (ssh_host_chan_write(ch, buf, (size_t)n, ms, cause) != 0)
			goto out;
	if (n < 0 || ssh_host_chan_wait(ch, ms, &status, cause) != 0)
		goto out;
	err = ssh_host_chan_stderr(ch);
	if (status != 0)
		causef(cause, "host \"%s\": write \"%s\": %s", h->name, tmp,
		    *err != '\0' ? err : "cat failed");
	else
		rc = 0;
out:
	ssh_host_chan_close(ch);
	free(cmd);
	free(q);
	return rc;
}

/*
 * Checks tmp's sha256 on the host, then chmods and renames it over remote;
 * a wrong tmp, or one that cannot be put in place, is removed.
 */
static int
ssh_upload_finish(struct ssh_host *h, const char *tmp, const char *remote,
    const char *hex, mode_t mode, char **cause)
{
	char *qt = ssh_host_quote(tmp), *qr = ssh_host_quote(remote);
	char *qh = ssh_host_quote(hex), *cmd;
	char *what = xasprintf("upload \"%s\"", remote);
	int   rc;

	cmd = xasprintf("f=%s; h=%s; s=$(sha256sum <\"$f\") || { rm -f "
			"\"$f\"; exit 1; }; s=${s%%%% *}; [ \"$s\" = \"$h\" ] "
			"|| { echo \"sha256 is $s, not $h\" >&2; rm -f \"$f\"; "
			"exit 1; }; chmod %o \"$f\" && mv -f \"$f\" %s || { "
			"rm -f \"$f\"; exit 1; }",
	    qt, qh, (unsigned)(mode & 07777), qr);
	rc = ssh_host_run(h, what, cmd, 0, NULL, cause);
	free(what);
	free(cmd);
	free(qh);
	free(qr);
	free(qt);
	return rc;
}

/* Removes what a failed upload left under tmp, if the host still answers. */
static void
ssh_upload_discard(struct ssh_host *h, const char *tmp)
{
	struct ssh_host_result res;
	char		      *q, *cmd, *why = NULL;

	if (!ssh_is_connected(h->s))
		return;
	if (h->sftp != NULL) {
		sftp_unlink(h->sftp, tmp);
		return;
	}
	q = ssh_host_quote(tmp);
	cmd = xasprintf("rm -f -- %s", q);
	if (ssh_host_exec(h, cmd, &res, &why) == 0)
		ssh_host_result_clear(&res);
	free(why);
	free(cmd);
	free(q);
}

/* Returns a copy of the directory part of path ("/" or "." at least). */
static char *
ssh_upload_dirname(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (slash == NULL)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

int
ssh_host_mkdir_p(struct ssh_host *h, const char *dir, char **cause)
{
	char *q = ssh_host_quote(dir), *cmd = xasprintf("mkdir -p -- %s", q);
	char *what = xasprintf("mkdir \"%s\"", dir);
	int   rc;

	rc = ssh_host_run(h, what, cmd, 0, NULL, cause);
	free(what);
	free(cmd);
	free(q);
	return rc;
}

int
ssh_host_upload(struct ssh_host *h, const char *local, const char *remote,
    mode_t mode, char **cause)
{
	static unsigned seq;
	char		hex[SHA256_HEX_LEN + 1], *why = NULL;
	char	       *dir = ssh_upload_dirname(remote), *tmp = NULL;
	int		fd = -1, rc = -1;

	if (sha256_file(local, hex, &why) != 0) {
		causef(cause, "host \"%s\": upload %s", h->name, why);
		goto out;
	}
	if ((fd = open(local, O_RDONLY | O_CLOEXEC)) == -1) {
		causef(cause, "host \"%s\": upload \"%s\": %s", h->name, local,
		    strerror(errno));
		goto out;
	}
	if (ssh_host_mkdir_p(h, dir, cause) != 0)
		goto out;
	tmp = xasprintf("%s.tmp-%ld-%u", remote, (long)getpid(),
	    __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	if (ssh_upload_sftp_open(h, &why) == 0)
		rc = ssh_upload_sftp(h, fd, local, tmp, cause);
	else {
		log_debug("ssh", "%s; uploading over an exec channel", why);
		rc = ssh_upload_exec(h, fd, local, tmp, cause);
	}
	if (rc == 0)
		rc = ssh_upload_finish(h, tmp, remote, hex, mode, cause);
	if (rc != 0)
		ssh_upload_discard(h, tmp);
out:
	if (fd != -1)
		close(fd);
	free(why);
	free(tmp);
	free(dir);
	return rc;
}
