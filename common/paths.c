/*
 * Default paths and their environment overrides.  An installed program
 * reads the catalog and the agents where they are installed, nowhere
 * else.  A program run from the build tree it was built in (its
 * executable is under the build directory) reads the source tree's
 * catalog and the agents built there, so that tests and the demo need no
 * install; a build with -Dbuild_tree_paths=false (a package) has no such
 * paths compiled in.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/paths.h"
#include "config.h"

/* Returns the environment variable's value, or def when unset or empty. */
static const char *
paths_env(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : def;
}

#ifdef HILAB_BUILDDIR
/* Whether this program runs from the build tree it was built in. */
static bool
paths_in_build_tree(void)
{
	static int in = -1;
	char	   exe[PATH_MAX];
	ssize_t	   n;
	size_t	   len = strlen(HILAB_BUILDDIR);

	if (in == -1) {
		n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = '\0';
		in = strncmp(exe, HILAB_BUILDDIR, len) == 0 && exe[len] == '/';
	}
	return in;
}
#define PATHS_CATALOG                                       \
	(paths_in_build_tree() ? HILAB_SRCDIR "/benchmarks" \
			       : HILAB_DATADIR "/benchmarks")
#define PATHS_AGENTS \
	(paths_in_build_tree() ? HILAB_BUILDDIR "/agents" : HILAB_LIBEXECDIR)
#else
#define PATHS_CATALOG HILAB_DATADIR "/benchmarks"
#define PATHS_AGENTS  HILAB_LIBEXECDIR
#endif

void
paths_defaults(const char **db, const char **sock, const char **machines,
    const char **catalog)
{
	*db = paths_env("HILAB_DB", PATHS_DB);
	*sock = paths_env("HILAB_SOCKET", PATHS_SOCKET);
	*machines = paths_env("HILAB_MACHINES", PATHS_MACHINES);
	*catalog = paths_env("HILAB_CATALOG", PATHS_CATALOG);
}

const char *
paths_agent_dir(void)
{
	return paths_env("HILAB_AGENT_DIR", PATHS_AGENTS);
}

/* Benchmarks built on the controller: HILAB_BENCH_CACHE or the default. */
const char *
paths_bench_cache(void)
{
	return paths_env("HILAB_BENCH_CACHE", PATHS_BENCH_CACHE);
}
