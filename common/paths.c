/* Default paths and their environment overrides. */
#include <stdlib.h>
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

void
paths_defaults(const char **db, const char **sock, const char **machines,
    const char **catalog)
{
	*db = paths_env("HILAB_DB", PATHS_DB);
	*sock = paths_env("HILAB_SOCKET", PATHS_SOCKET);
	*machines = paths_env("HILAB_MACHINES", PATHS_MACHINES);
	/* An installed catalog sits in datadir; a build tree uses its own. */
	*catalog = paths_env("HILAB_CATALOG",
	    access(HILAB_DATADIR "/benchmarks", R_OK) == 0
		? HILAB_DATADIR "/benchmarks"
		: HILAB_SRCDIR "/benchmarks");
}

const char *
paths_agent_dir(void)
{
	return paths_env("HILAB_AGENT_DIR",
	    access(HILAB_LIBEXECDIR "/hilab-agent", X_OK) == 0
		? HILAB_LIBEXECDIR
		: HILAB_BUILDDIR "/agents");
}

/* Benchmarks built on the controller: HILAB_BENCH_CACHE or the default. */
const char *
paths_bench_cache(void)
{
	return paths_env("HILAB_BENCH_CACHE", PATHS_BENCH_CACHE);
}
