/* The grammar of hilabd as data (see hilabd/options.h). */
#include <stddef.h>

#include "common/paths.h"
#include "hilabd/options.h"

static const struct args_opt hilabd_opts[] = {
	{ "check", 'n', ARGS_FLAG, NULL, NULL, 0,
	    "check the inventory, the catalog and the database, write nothing "
	    "(not even a new database), and exit" },
	{ "verbose", 'v', ARGS_FLAG, NULL, NULL, 0,
	    "log more: each result stored and each control request but "
	    "hilab wait's pings" },
	{ "debug", 'd', ARGS_FLAG, NULL, NULL, 0,
	    "log all: -v and what the libraries see (libvirt events, power "
	    "commands, boot checks)" },
	{ "db", 0, ARGS_FILE, "FILE", NULL, 0, PATHS_DB_HELP },
	{ "socket", 0, ARGS_FILE, "PATH", NULL, 0, PATHS_SOCKET_HELP },
	{ "machines", 0, ARGS_DIR, "DIR", NULL, 0, PATHS_MACHINES_HELP },
	{ "catalog", 0, ARGS_DIR, "DIR", NULL, 0,
	    "the benchmark catalog that sweeps read (HILAB_CATALOG)" },
	{ "agent-dir", 0, ARGS_DIR, "DIR", NULL, 0,
	    "where the hilab-agent builds are (HILAB_AGENT_DIR)" },
	{ "build-kernels", 0, ARGS_FLAG, NULL, NULL, ARGS_HIDDEN,
	    "the kernel builder child that hilabd starts" },
	{ "help", 'h', ARGS_FLAG, NULL, NULL, 0, "show this help and exit" },
	{ "version", 0, ARGS_FLAG, NULL, NULL, 0,
	    "print the version and exit" },
	{ NULL },
};

static const struct args_exit hilabd_exits[] = {
	{ HILABD_EXIT_OK,
	    "stopped by TERM or INT; with -n: everything is valid" },
	{ HILABD_EXIT_FAIL,
	    "could not start: the database, the socket or a worker failed; "
	    "with -n: the database cannot be read" },
	{ HILABD_EXIT_USAGE,
	    "bad arguments, or an inventory or catalog with errors (each "
	    "printed as file:line:col)" },
	{ 0, NULL },
};

static const struct args_env hilabd_env[] = {
	{ "HILAB_DB", "the database (--db)" },
	{ "HILAB_SOCKET", "the control socket (--socket)" },
	{ "HILAB_MACHINES", "the inventory directory (--machines)" },
	{ "HILAB_CATALOG", "the benchmark catalog directory (--catalog)" },
	{ "HILAB_AGENT_DIR", "the hilab-agent builds (--agent-dir)" },
	{ "HILAB_KERNEL_CACHE", "the kernel build cache" },
	{ "HILAB_KERNEL_WORK", "the kernel build worktrees" },
	{ NULL, NULL },
};

const struct args_prog hilabd_prog = {
	"hilabd",
	"the lab controller: queued jobs become runs on the lab's machines",
	"hilabd reads the inventory, takes queued jobs from the database, "
	"plans them into runs and drives one worker thread per machine: "
	"lease, boot, verify, install, run, store every sample. It stays in "
	"the foreground and logs to stderr, each line with its local time "
	"to the millisecond, hilabd[PID] and the level (error, warn, info, "
	"debug). TERM or INT stop it; runs left on the hosts are collected "
	"at the next start. HUP re-reads the inventory and logs what "
	"changed: a new machine gets a worker, a removed one stops after its "
	"run (its queued runs fail), a changed one restarts with its new "
	"file after its run; an inventory with errors keeps what was read "
	"before and logs why. Sweeps read the catalog as they queue: its "
	"errors are logged at start and at HUP. Under systemd "
	"(hilabd.service, Type=notify) it tells READY=1 once its control "
	"socket serves, RELOADING=1 while HUP's reload runs and STOPPING=1 "
	"as it stops.",
	hilabd_opts,
	NULL,
	hilabd_exits,
	hilabd_env,
};
