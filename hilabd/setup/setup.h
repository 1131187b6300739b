/*
 * The setup step's internals: what worker_setup.c (the order of things),
 * setup.c (the step's state, events and its ssh session to the host),
 * tune.c (the job's machine setup), install*.c (the benchmark's tool
 * found, built, prepared and installed) and server.c (the server it needs)
 * share.  Nothing outside these files includes it.
 */
#ifndef HILAB_SETUP_H
#define HILAB_SETUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/sha256.h"
#include "db/db.h"
#include "hilabd/worker_ctx.h"

struct job;
struct job_benchmark;
struct plan_run;
struct json_t;
struct ssh_host;
struct ssh_host_chan;
struct ssh_host_result;

/* Shell: the start time of process $pid, which tells a pid used again. */
#define SETUP_START_TIME_SH \
	"$(sed 's/.*) //' /proc/$pid/stat 2>/dev/null | cut -d' ' -f20)"

/*
 * Shell, in a printf format: stops the process group of the pid file "$f"
 * ("pid starttime", the pid a session leader) unless the pid was used again
 * since, TERM then KILL after 3 s, prints "<name> (pid N)" for what it
 * stopped and removes the file.
 */
#define SETUP_KILL_SH                                                     \
	"read -r pid st <\"$f\"; now=" SETUP_START_TIME_SH "; "           \
	"if [ -n \"$pid\" ] && [ \"$now\" = \"$st\" ]; "                  \
	"then kill -TERM -$pid 2>/dev/null || kill -TERM $pid; i=0; "     \
	"while [ $i -lt 30 ] && kill -0 $pid 2>/dev/null; do sleep 0.1; " \
	"i=$((i+1)); done; kill -KILL -$pid 2>/dev/null; "                \
	"kill -KILL $pid 2>/dev/null; echo \"${f%%.pid} (pid $pid)\"; "   \
	"fi; rm -f \"$f\""

/* A benchmark's tool as found on the host, per job, boot and benchmark. */
struct setup_tool {
	int64_t kernel;
	int	round;
	size_t	bench;
	char   *path;	   /* argv[0] resolved, or NULL: as planned */
	char   *server;	   /* the server's argv[0] resolved, or NULL */
	bool	in_prefix; /* built from source into the prefix */
	bool	installed; /* installed on this boot, not found there */
	char   *error;	   /* why the install failed, or NULL */
};

/* The machine setup held on the host (tune.c). */
struct setup_tune {
	struct ssh_host	     *h;     /* its own session */
	struct ssh_host_chan *ch;    /* "hilab-agent tune" holding it */
	int64_t		      job;   /* whose setup */
	char		     *boot;  /* the host's boot id when applied */
	struct json_t	     *facts; /* "setup.KEY": what it came to */
};

/* The setup state of one worker. */
struct worker_setup {
	struct ssh_host	  *h;
	int64_t		   job_id; /* the tools below are of */
	struct setup_tool *tools;
	size_t		   ntools;
	bool		   server_up; /* a server may run now */
	struct setup_tune  tune;
};

/* worker_setup.c: the state, the session to the host, small helpers. */

/* The worker's setup state, made on first use. */
struct worker_setup *setup_get(struct worker_ctx *);
/* Logs to stderr and to the run's events. */
void setup_event(struct worker_ctx *, const struct db_run *, enum db_level,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Runs cmd on the host, connecting (again, once) as needed. */
int setup_exec(struct worker_ctx *, const char *cmd, struct ssh_host_result *,
    char **cause);
/* Runs cmd and hands back its stdout (caller frees); non-zero exit fails. */
char *setup_output(struct worker_ctx *, const char *cmd, const char *what,
    char **cause);
/* Uploads a local file to the host. */
int setup_upload(struct worker_ctx *, const char *local, const char *remote,
    char **cause);
/* The remote directory of the agent, its spool and the install prefixes. */
const char *setup_agent_dir(const struct worker_ctx *);
/* The install prefix of a benchmark on the host (caller frees). */
char *setup_prefix(const struct worker_ctx *, const struct job_benchmark *);
/* Appends a shell-quoted copy of s and a space to *cmd. */
void setup_append_word(char **cmd, const char *s);
/* Cuts the next line off *s (NULL at the end). */
char *setup_next_line(char **s);
/*
 * Expands an argv template of the benchmark (its server's, its prepare
 * command) with the run's parameter values; NULL with *cause.
 */
char **setup_argv(const struct job_benchmark *, char *const *tmpl,
    const struct plan_run *, char			   **cause);

/* install.c: the benchmark's tool on the host. */

/*
 * The tool of the run's benchmark on the booted kernel, found, installed
 * when missing and found again, once: the benchmark's other runs get the
 * same tool, or fail with the same error without trying again.  Returns
 * NULL with *cause on failure; the setup state owns the tool.
 */
const struct setup_tool *install_tool(struct worker_ctx *,
    const struct db_run *, const struct plan_run *,
    const struct job_benchmark *, char **cause);
/* Forgets the tools found for the current job. */
void install_tools_clear(struct worker_setup *);

/* install_source.c: a source tarball from the mirror built on the host. */
/*
 * Whether source, the first line of a prefix's .installed, is the build
 * of the catalog's tarball with its current build commands.
 */
bool install_source_built(const struct job_benchmark *, const char *source);
int  install_source_build(struct worker_ctx *, const struct db_run *,
     const struct job_benchmark *, char **cause);
/* What .installed holds after the build: tarball and build hash (free). */
char *install_source_stamp(const struct job_benchmark *);
/* The script that unpacks the tarball in prefix and builds it (free). */
char *install_source_script(const char *prefix, const struct job_benchmark *);
/* The tarball's path in the mirror (caller frees), or NULL with *cause. */
char *install_source_local(struct worker_ctx *, const struct job_benchmark *,
    char **cause);
/*
 * The script that runs the benchmark's prepare command, in the prefix's
 * src, for each parameter combination the job plans for benchmark index
 * bench on this machine (*script NULL when it has none).
 */
int install_prepare_script(struct worker_ctx *, const struct job_benchmark *,
    size_t bench, char **script, char **cause);

/* install_controller.c: built on the controller ("build_on: controller"). */

/* The controller's build of a benchmark, packed. */
struct install_prefix {
	char *archive;		       /* on the controller, or NULL */
	char  hex[SHA256_HEX_LEN + 1]; /* its sha256 */
};

/*
 * Gets the benchmark's prefix built on the controller for the machine's
 * arch and prepared for the job's parameters: from the cache, else built
 * now.  Returns 0 with pre filled (free pre->archive), or -1 with *cause.
 */
int install_controller_prefix(struct worker_ctx *, const struct db_run *,
    const struct job_benchmark *, size_t bench, struct install_prefix *pre,
    char **cause);
/* Uploads the packed prefix and unpacks it into the host's prefix. */
int install_controller_upload(struct worker_ctx *, const struct db_run *,
    const struct job_benchmark *, const struct install_prefix *, char **cause);

/* install_deb.c: a Debian package, from the mirror with dpkg or apt-get. */
int install_deb_package(struct worker_ctx *, const struct db_run *,
    const struct job_benchmark *, char **cause);

/*
 * install_script.c: runs an install script detached on the host, in the
 * benchmark's prefix, and records its output in the run's events.  A failed
 * script sets *cause to what failed, with the host, the benchmark and the
 * log's last lines; a cancel of the run's job stops it on the host.
 */
int install_script_run(struct worker_ctx *, const struct db_run *,
    const struct job_benchmark *, const char *what, const char *script,
    char **cause);

/* tune.c: a job's machine setup, held on the host. */

/*
 * Applies the machine setup of the run's job (nothing to do without one)
 * unless it is held for that job already; a hold of another job is put
 * back first, one of an earlier boot (facts: the run's, for the boot id)
 * forgotten.  An absent control is a warning event.  Returns 1 when it
 * applied it now, 0 when there was nothing to do, -1 with *cause when the
 * holder could not start or a control did not stick (the rest is put
 * back).
 */
int tune_begin(struct worker_ctx *, const struct db_run *, const struct job *,
    const char *facts, char **cause);
/*
 * The run's facts updated with fresh ones (read again after tune_begin
 * applied it, or NULL) and "setup.KEY" of the hold; NULL: none is held.
 */
char *tune_facts(struct worker_ctx *, const char *facts, const char *fresh);
/* Puts the held setup back (events of job) and lets the holder go. */
void tune_end(struct worker_ctx *, int64_t job);

/* server.c: the server a benchmark needs. */

/*
 * Starts the benchmark's server for the run (argv[0] replaced by path
 * unless NULL) in cwd, after stopping whatever a stopped controller left,
 * and checks it is up.
 */
int server_start(struct worker_ctx *, const struct db_run *,
    const struct job_benchmark *, const struct plan_run *, const char *path,
    const char *cwd, char **cause);
/* Stops the servers recorded on the host; logs what it stopped. */
void server_stop(struct worker_ctx *, const struct db_run *);

#endif
