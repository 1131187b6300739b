/* Where hilab keeps its files: defaults, each overridable by environment. */
#ifndef HILAB_PATHS_H
#define HILAB_PATHS_H

#define PATHS_DB	  "/var/lib/hilab/hilab.db"
#define PATHS_SOCKET	  "/run/hilab/control.sock"
#define PATHS_MACHINES	  "/etc/hilab/machines"
#define PATHS_BENCH_CACHE "/var/cache/hilab/bench"

/* How both programs' --help tells these paths, the defaults above. */
#define PATHS_DB_HELP "the database (HILAB_DB, default " PATHS_DB ")"
#define PATHS_SOCKET_HELP \
	"hilabd's control socket (HILAB_SOCKET, default " PATHS_SOCKET ")"
#define PATHS_MACHINES_HELP                                          \
	"the inventory: one YAML file per machine (HILAB_MACHINES, " \
	"default " PATHS_MACHINES ")"

/*
 * Fills in the database, control socket, inventory and benchmark catalog
 * paths from HILAB_DB, HILAB_SOCKET, HILAB_MACHINES and HILAB_CATALOG, or
 * the defaults.  The strings are static or from the environment.
 */
void paths_defaults(const char **db, const char **sock, const char **machines,
    const char **catalog);
/* The directory holding hilab-agent builds: HILAB_AGENT_DIR or libexec. */
const char *paths_agent_dir(void);
/* Benchmarks built on the controller: HILAB_BENCH_CACHE or the default. */
const char *paths_bench_cache(void);

#endif
