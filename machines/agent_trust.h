/*
 * Trust in the agent found on a host: the directory's owner and mode, the
 * file's sha256 computed on the host.
 */
#ifndef HILAB_AGENT_TRUST_H
#define HILAB_AGENT_TRUST_H

#include <stdbool.h>

struct ssh_host;

/*
 * Makes dir on the host and refuses it (-1, cause naming host and path)
 * unless the login user owns it and nobody else may write it; *good says
 * whether file there is the build of sha256 hex (64 digits), owned by the
 * login user and writable by nobody else.  A file not good must be
 * replaced before it runs.
 */
int agent_trust_check(struct ssh_host *h, const char *host, const char *dir,
    const char *file, const char *hex, bool *good, char **cause);

#endif
