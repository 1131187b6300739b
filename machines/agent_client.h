/*
 * The controller's side of hilab-agent: reach a host over ssh, put the
 * agent there (uploaded by content hash), and speak the protocol to it.
 */
#ifndef HILAB_AGENT_CLIENT_H
#define HILAB_AGENT_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"
#include "machines/machine.h"

struct agent_conn;

/* One fact; value NULL means the host lacks it (reported absent). */
struct agent_fact {
	char *key;
	char *value;
};

struct agent_facts {
	struct agent_fact *v;
	size_t		   n;
};

/* Beyond an iteration's timeout, how long a run may send nothing. */
#define AGENT_SILENCE_GRACE_MS 60000

struct agent_run_spec {
	const char  *run_id; /* [A-Za-z0-9._-]{1,64}, unique per host */
	char *const *argv;   /* NULL-terminated, run without a shell */
	unsigned     iterations;
	unsigned     warmups;
	uint64_t     timeout_ms;   /* per iteration, 0 = none; a run silent
				      for it + AGENT_SILENCE_GRACE_MS fails */
	const char  *cwd;	   /* NULL = the agent's directory */
	char *const *env;	   /* NULL-terminated "K=V" extras, or NULL */
	char *const *probes;	   /* kernel functions timed, or NULL */
	const char  *probe_method; /* how, or NULL: the agent's choice */
	char *const *monitors;	   /* monitors read beside, or NULL */
};

/* One iteration's result; owned by the client, valid during the callback. */
struct agent_result {
	const char *run_id;
	uint64_t    seq; /* 0-based over warmups then iterations */
	bool	    warmup;
	int64_t	    exit_status; /* exit code, or -signal */
	bool	    timed_out;
	uint64_t    wall_ns;
	uint64_t    utime_us;
	uint64_t    stime_us;
	uint64_t    maxrss_kb;
	const char *output; /* stdout+stderr, NUL-terminated */
	size_t	    output_len;
	bool	    truncated;
	char	  **samples; /* "metric=value" of probes and monitors */
	size_t	    nsamples;
};

/*
 * Called per result, and with NULL each AGENT_TICK_MS that a run sends
 * nothing; a non-zero return stops the exchange with an error (the run
 * goes on on the host: agent_cancel stops it, agent_fetch collects it).
 */
typedef int (*agent_result_cb)(const struct agent_result *, void *arg);

/* How often a silent run's callback is offered a tick. */
#define AGENT_TICK_MS 1000

/*
 * Connects to the machine over ssh (strict host key check), uploads the
 * agent build for the host's arch from agent_dir (hilab-agent.<arch>, or
 * hilab-agent for the controller's own arch) unless the same sha256 is
 * already there, starts "hilab-agent --dir DIR serve" and exchanges HELLO.
 * Errors name the machine: `host "vm32": ssh connect: timed out`.
 */
/*
 * The agent build for arch in dir: hilab-agent.<arch>, or the plain
 * hilab-agent when arch is the controller's own; NULL if there is none.
 */
char *agent_build(const char *dir, const char *arch);
/* Where the agent build of sha256 hex goes on machine m. */
char		  *agent_install_path(const struct machine *m, const char *hex);
struct agent_conn *agent_connect(const struct machine *, const char *agent_dir,
    char **cause);
void		   agent_close(struct agent_conn *);
/* True if the last agent_connect had to upload the agent. */
bool	    agent_uploaded(const struct agent_conn *);
const char *agent_arch(const struct agent_conn *);
/* The agent's binary on the host, for commands of its own over ssh. */
const char *agent_remote_path(const struct agent_conn *);
/*
 * Why the last run the agent reported as failed ended so (a full
 * filesystem, the runner's last warning), or NULL if it did not say.
 */
const char *agent_run_failure(const struct agent_conn *);

int agent_facts(struct agent_conn *, struct agent_facts *, char **cause);
/* The value of key, or NULL if absent or unknown. */
const char *agent_facts_get(const struct agent_facts *, const char *key);
/* Adds a fact (value NULL: absent); copies both strings. */
void agent_facts_add(struct agent_facts *, const char *key, const char *value);
void agent_facts_clear(struct agent_facts *);

/*
 * Starts a run and streams its results to cb until the agent reports the
 * end; *state gets the final enum proto_run_state.  A dropped connection
 * returns -1: the run goes on on the host, and agent_fetch on a new
 * connection collects it.
 */
int agent_run(struct agent_conn *, const struct agent_run_spec *,
    agent_result_cb cb, void *arg, int *state, char **cause);
/* A run the agent keeps a spool of, and its state there. */
struct agent_spool {
	char *run_id;
	int   state; /* enum proto_run_state */
};
/* Every run spooled on the host (STATUS); free with agent_spools_free. */
int  agent_spools(struct agent_conn *, struct agent_spool **v, size_t *n,
     char **cause);
void agent_spools_free(struct agent_spool *, size_t n);
/* Replays spooled results from from_seq; with wait, blocks until the end. */
int agent_fetch(struct agent_conn *, const char *run_id, uint64_t from_seq,
    bool wait, agent_result_cb cb, void *arg, int *state, char **cause);
/*
 * Stops a run on the host (its runner kills the benchmark; no iteration
 * follows) and waits for the runner to end; *state gets the run's state.
 * What it spooled before stays there for agent_fetch.
 */
int agent_cancel(struct agent_conn *, const char *run_id, int *state,
    char **cause);
/* Tells the agent the run is stored; it deletes its spool. */
int agent_ack(struct agent_conn *, const char *run_id, char **cause);

#endif
