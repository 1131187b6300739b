/*
 * Trust in the agent found on a host: its directory must belong to the
 * login user and be writable by nobody else, and a file at the agent's
 * hash path runs only when its sha256, computed on the host, is the
 * build's own and nobody else can write it.  Anything else is replaced.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cause.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "machines/agent_trust.h"
#include "machines/ssh.h"

/* What the host reports of the directory and the file in it. */
struct agent_trust_facts {
	long	      dir_uid, me, file_uid; /* file_uid -1: no file */
	unsigned long dir_mode, file_mode;
	char	      sum[65];
};

/* The shell that makes dir and prints the facts of dir and file. */
static char *
agent_trust_cmd(const char *dir, const char *file)
{
	char *qd = ssh_host_quote(dir), *qf = ssh_host_quote(file), *cmd;

	cmd =
	    xasprintf("d=%s; f=%s; (umask 022; mkdir -p -- \"$d\") || exit 1; "
		      "echo \"$(stat -c '%%u %%a' -- \"$d\") $(id -u)\" || "
		      "exit 1; if [ -f \"$f\" ] && [ ! -L \"$f\" ]; then "
		      "echo \"$(stat -c '%%u %%a' -- \"$f\") "
		      "$(sha256sum < \"$f\" | cut -c1-64)\"; else "
		      "echo '-1 0 -'; fi",
		qd, qf);
	free(qf);
	free(qd);
	return cmd;
}

/* Parses the two lines of agent_trust_cmd's output. */
static int
agent_trust_parse(const char *out, struct agent_trust_facts *f)
{
	f->sum[0] = '\0';
	if (sscanf(out, "%ld %lo %ld %ld %lo %64s", &f->dir_uid, &f->dir_mode,
		&f->me, &f->file_uid, &f->file_mode, f->sum) != 6)
		return -1;
	return 0;
}

/* Refuses a directory that another user owns or may write. */
static int
agent_trust_dir(const char *host, const char *dir,
    const struct agent_trust_facts *f, char **cause)
{
	if (f->dir_uid != f->me) {
		causef(cause,
		    "host \"%s\": agent directory \"%s\": owned by uid %ld, "
		    "not by the login user (uid %ld)",
		    host, dir, f->dir_uid, f->me);
		return -1;
	}
	if ((f->dir_mode & 022) != 0) {
		causef(cause,
		    "host \"%s\": agent directory \"%s\": writable by group "
		    "or others (mode %04lo)",
		    host, dir, f->dir_mode);
		return -1;
	}
	return 0;
}

/* Whether the file is the build itself, the login user's, unwritable. */
static bool
agent_trust_file(const char *host, const char *file, const char *hex,
    const struct agent_trust_facts *f)
{
	if (f->file_uid < 0)
		return false;
	if (f->file_uid == f->me && (f->file_mode & 022) == 0 &&
	    strcmp(f->sum, hex) == 0)
		return true;
	log_warn("agent",
	    "host \"%s\": \"%s\" is not the agent build (sha256 %s, uid %ld, "
	    "mode %04lo); replacing it",
	    host, file, f->sum, f->file_uid, f->file_mode);
	return false;
}

int
agent_trust_check(struct ssh_host *h, const char *host, const char *dir,
    const char *file, const char *hex, bool *good, char **cause)
{
	struct agent_trust_facts f;
	char			*cmd = agent_trust_cmd(dir, file), *out = NULL;
	int			 rc = -1;

	*good = false;
	if (ssh_host_run(h, "look for the agent", cmd, 0, &out, cause) != 0)
		goto out;
	if (agent_trust_parse(out, &f) != 0) {
		causef(cause,
		    "host \"%s\": agent directory \"%s\": unexpected answer "
		    "\"%s\"",
		    host, dir, out);
		goto out;
	}
	if (agent_trust_dir(host, dir, &f, cause) != 0)
		goto out;
	*good = agent_trust_file(host, file, hex, &f);
	rc = 0;
out:
	free(out);
	free(cmd);
	return rc;
}
