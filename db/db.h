/*
 * The hilab database: schema migrations and access to the job queue,
 * machine leases, kernels, runs, results, samples, metrics and events.
 *
 * One struct db is one SQLite connection, used by one thread at a time
 * (each thread opens its own).  Times are unix milliseconds; 0 stands for
 * "not set" in integer fields and NULL in strings.  Every function that can
 * fail returns -1 (or NULL) and sets *cause to an allocated message the
 * caller frees, e.g. `db "/var/lib/hilab/hilab.db": insert run: ...`.
 * Strings in returned structs are owned by the struct; free it with the
 * matching *_free function.
 */
#ifndef HILAB_DB_H
#define HILAB_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct db;
struct sqlite3;

/* The schema version this program writes (PRAGMA user_version). */
int db_schema_version(void);

/* State of a job or a run; the text form is what the schema stores. */
enum db_state {
	DB_QUEUED,
	DB_RUNNING,
	DB_DONE,
	DB_FAILED,
	DB_CANCELLED,
	DB_NSTATES
};

enum db_health {
	DB_HEALTH_GOOD,
	DB_HEALTH_UNKNOWN,
	DB_HEALTH_BAD,
	DB_HEALTH_MAINTENANCE
};

enum db_level { DB_DEBUG, DB_INFO, DB_WARN, DB_ERROR };

const char *db_state_name(enum db_state);
int	    db_state_parse(const char *, enum db_state *);
const char *db_health_name(enum db_health);
int	    db_health_parse(const char *, enum db_health *);
const char *db_level_name(enum db_level);
/* The current time in unix milliseconds, as stored in every time column. */
int64_t db_now_ms(void);

/*
 * Opens (creating it and its parent directory if needed) and migrates a
 * database; refuses one newer than this program or not made by hilab.
 */
struct db *db_open(const char *path, char **cause);
/*
 * Takes the database's controller lock ("<path>.lock", an flock the kernel
 * drops when its holder ends), recording who took it; the lock's
 * descriptor (kept open while it is held), or -1 with *cause naming the
 * holder's program, pid and host when another process has it.
 */
int db_owner_lock(const char *path, const char *who, char **cause);
/*
 * Bounds the connection's page cache to kib KiB (SQLite's default is 2 MB
 * a connection): for one of many connections, as hilabd's workers are.
 */
int db_cache_limit(struct db *, int kib, char **cause);
/* Opens an existing database of this schema version read-only. */
struct db  *db_open_readonly(const char *path, char **cause);
void	    db_close(struct db *);
const char *db_path(struct db *);
/*
 * The connection, for the user's ad-hoc read-only queries (hilab query)
 * only: hilab's own SQL lives in db/.
 */
struct sqlite3 *db_sqlite(struct db *);

/* Write transactions (BEGIN IMMEDIATE: they never fail half-way busy). */
int db_begin(struct db *, char **cause);
int db_commit(struct db *, char **cause);
int db_rollback(struct db *, char **cause);

/* Writes a consistent copy with the online backup API (hilab export). */
int db_backup(struct db *, const char *to, char **cause);

/* Machines. */
struct db_machine {
	char	      *name;
	char	      *kind; /* ssh, libvirt */
	char	      *arch;
	char	      *facts; /* JSON of the last connect, or NULL */
	int64_t	       facts_at;
	enum db_health health;
	char	      *health_reason; /* why not good, or NULL */
	int64_t	       health_at;
	bool	       check_due; /* a health check before the next run */
	int	       checks_failed;
	char	      *lease_owner; /* NULL when free */
	int64_t	       lease_expires;
	int64_t	       updated_at;
};

/* Adds a machine from the inventory or updates its kind and arch. */
int db_machine_upsert(struct db *, const char *name, const char *kind,
    const char *arch, char **cause);
int db_machine_set_facts(struct db *, const char *name, const char *facts,
    char **cause);
/*
 * Records a machine's health and why (reason may be NULL); good ends a due
 * health check, unknown makes one due (an operator's "check it first"),
 * and both start the count of failed checks again.
 */
int db_machine_set_health(struct db *, const char *name, enum db_health,
    const char *reason, char **cause);
/*
 * The machine's agent answered: an unknown machine with no health check
 * due becomes good; any other health is left as it is.
 */
int db_machine_answered(struct db *, const char *name, char **cause);
/* A recovery: health unknown (reason says why), a health check due. */
int db_machine_recovered(struct db *, const char *name, const char *reason,
    char **cause);
/*
 * Counts a failed health check; the max-th makes the machine bad.  Returns
 * the failures so far, or -1.
 */
int db_machine_check_failed(struct db *, const char *name, const char *reason,
    int max, char **cause);
struct db_machine *db_machine_get(struct db *, const char *name, char **cause);
int  db_machine_list(struct db *, struct db_machine **, size_t *, char **cause);
void db_machine_free(struct db_machine *);
void db_machine_list_free(struct db_machine *, size_t);
/* The machine called name in a list from db_machine_list, or NULL. */
const struct db_machine *db_machine_find(const struct db_machine *, size_t,
    const char *name);
/*
 * Leases a machine for ttl_ms if it is free or its lease expired and it is
 * neither bad nor in maintenance: returns 1 when leased, 0 when another
 * owner holds it or it is bad or in maintenance, -1 on error.
 */
int db_machine_lease(struct db *, const char *name, const char *owner,
    int64_t ttl_ms, char **cause);
/* Extends a lease this owner holds: 1 renewed, 0 not held, -1 error. */
int db_machine_renew(struct db *, const char *name, const char *owner,
    int64_t ttl_ms, char **cause);
/* Gives a lease back: 1 released, 0 not held by owner, -1 error. */
int db_machine_release(struct db *, const char *name, const char *owner,
    char **cause);
/* Gives back every lease of an owner; returns how many, or -1. */
int64_t db_machine_release_all(struct db *, const char *owner, char **cause);

/* Kernels. */
struct db_kernel {
	int64_t id;
	char   *name;	 /* "base", "patch 1+2" */
	char   *release; /* uname -r once booted, or NULL */
	char   *version; /* uname -v once booted, or NULL */
	char   *cmdline;
	char   *spec; /* JSON */
	char   *spec_hash;
	int64_t created_at;
};

/* Returns the id of the kernel (name, spec), adding it if new, or -1. */
int64_t db_kernel_upsert(struct db *, const char *name, const char *cmdline,
    const char *spec, char **cause);
int	db_kernel_set_version(struct db *, int64_t id, const char *release,
	const char *version, char **cause);
struct db_kernel *db_kernel_get(struct db *, int64_t id, char **cause);
void		  db_kernel_free(struct db_kernel *);

/* Jobs. */
struct db_job {
	int64_t	      id;
	char	     *name;
	char	     *file;
	char	     *spec; /* JSON: the normalized job */
	enum db_state state;
	bool	      cancel_requested;
	int64_t	      submitted_at;
	int64_t	      started_at;
	int64_t	      finished_at;
	char	     *error;
	int	      runs[DB_NSTATES]; /* its runs by state */
};

/* Queues a job; returns its id or -1. */
int64_t db_job_insert(struct db *, const char *name, const char *file,
    const char *spec, char **cause);
/* Returns a job, or NULL with *cause set (also when there is no such id). */
struct db_job *db_job_get(struct db *, int64_t id, char **cause);
/* How many runs a job has, in any state (0: it was never planned). */
int db_job_runs(const struct db_job *);
/* Every job, oldest first, with its run counts. */
int db_job_list(struct db *, struct db_job **, size_t *, char **cause);
/*
 * The queued and running jobs only, oldest first: what hilabd works
 * through, at a cost that does not grow with the jobs stored.
 */
int db_job_list_active(struct db *, struct db_job **, size_t *, char **cause);
/* The oldest queued job, or NULL: *cause stays NULL when there is none. */
struct db_job *db_job_next_queued(struct db *, char **cause);
/*
 * Moves a job to another state: queued -> running, cancelled or failed;
 * running -> done, failed or cancelled.  error (may be NULL) is kept.
 */
int db_job_set_state(struct db *, int64_t id, enum db_state, const char *error,
    char **cause);
/* Flags a queued or running job for cancelling (what the CLI writes). */
int  db_job_cancel_request(struct db *, int64_t id, char **cause);
void db_job_free(struct db_job *);
void db_job_list_free(struct db_job *, size_t);

/* Runs: the plan's fields are set by the planner, the rest by workers. */
struct db_run {
	int64_t	      id;
	int64_t	      job;
	char	     *machine;
	int64_t	      kernel;
	char	     *benchmark;
	char	     *params; /* canonical "groups=4" */
	int	      round;
	int	      boot;
	int	      position; /* order within the round */
	int	      iterations;
	int	      warmups;
	enum db_state state;
	char	     *agent_run_id;
	int64_t	      started_at;
	int64_t	      finished_at;
	char	     *facts; /* JSON fingerprint at run time */
	char	     *error;
	char	     *console;	  /* console excerpt */
	int	      boot_tries; /* boots its kernel took; 0: not
				     booted for this run */
};

/* Adds a queued run from the plan fields of r; returns its id or -1. */
int64_t	       db_run_insert(struct db *, const struct db_run *r, char **cause);
struct db_run *db_run_get(struct db *, int64_t id, char **cause);
/* The runs of a job in plan order (round, position, id). */
int db_run_list(struct db *, int64_t job, struct db_run **, size_t *,
    char **cause);
/* The first max failed runs of a job, by id. */
int db_run_list_failed(struct db *, int64_t job, size_t max, struct db_run **,
    size_t *, char **cause);
/* The next queued run of a job on a machine, or NULL (*cause NULL). */
struct db_run *db_run_next(struct db *, int64_t job, const char *machine,
    char **cause);
/* Whether a machine has a queued run: 1, 0, or -1 with *cause set. */
int db_run_queued_on(struct db *, const char *machine, char **cause);
/* Marks a queued run running under the agent's run id with its facts. */
int db_run_start(struct db *, int64_t id, const char *agent_run_id,
    const char *facts, char **cause);
/*
 * Moves a run to another state: queued -> running or cancelled; running ->
 * done, failed, cancelled or back to queued (a lost boot).
 */
int db_run_set_state(struct db *, int64_t id, enum db_state, const char *error,
    char **cause);
int db_run_set_console(struct db *, int64_t id, const char *excerpt,
    char **cause);
/* Records how many boots the run's kernel took to come up. */
int db_run_set_boot_tries(struct db *, int64_t id, int boots, char **cause);
/*
 * Records that run id is done again as run again: it then neither fails
 * its job nor counts in comparison tables (its samples stay).
 */
int db_run_set_retried(struct db *, int64_t id, int64_t again, char **cause);
/* Marks a run failed because its kernel did not boot on its machine. */
int db_run_set_boot_failed(struct db *, int64_t id, char **cause);
/*
 * The first run of the job whose kernel did not boot on the machine (kernel
 * 0: any kernel; machine NULL: any machine), 0 if none, -1 on error.
 */
int64_t db_run_boot_failed(struct db *, int64_t job, int64_t kernel,
    const char *machine, char **cause);
/* Cancels the queued runs of a job; returns how many, or -1. */
int64_t db_run_cancel_queued(struct db *, int64_t job, char **cause);
void	db_run_free(struct db_run *);
void	db_run_list_free(struct db_run *, size_t);

/* A run left running by a stopped controller, for reattaching. */
struct db_interrupted {
	int64_t run;
	int64_t job;
	char   *machine;
	char   *agent_run_id; /* NULL if it never reached the agent */
	int64_t last_seq;     /* highest result seq stored, -1 if none */
};

int  db_run_list_interrupted(struct db *, struct db_interrupted **, size_t *,
     char **cause);
void db_interrupted_list_free(struct db_interrupted *, size_t);

/* One execution of a benchmark command. */
struct db_result {
	int64_t	    run;
	int64_t	    seq;
	bool	    warmup;
	int	    exit_status;
	bool	    timed_out;
	int64_t	    wall_ns;
	int64_t	    utime_us;
	int64_t	    stime_us;
	int64_t	    maxrss_kb;
	const void *output;
	size_t	    output_len;
	bool	    truncated;
};

/* Stores a result unless (run, seq) is there: 1 new, 0 existed, -1. */
int db_run_result_insert(struct db *, const struct db_result *, char **cause);

/* Samples and metrics. */
struct db_sample {
	int64_t	    run;
	const char *metric;
	int64_t	    iteration;
	double	    value;
	int64_t	    repeat; /* nth value of metric in the iteration */
};

/*
 * Stores a batch of samples in one transaction (or the caller's open one);
 * samples already stored are skipped.  Returns how many were new, or -1.
 */
int64_t db_samples_insert(struct db *, const struct db_sample *, size_t n,
    char **cause);
/* The values of one metric of a run by iteration; caller frees *values. */
int db_samples_get(struct db *, int64_t run, const char *metric,
    double **values, size_t *n, char **cause);
/* The arithmetic mean of one metric's samples in a run. */
struct db_mean {
	char   *metric;
	double	mean;
	int64_t n; /* samples */
};

/* Every metric a run stored, with its mean and count, by name. */
int  db_run_means(struct db *, int64_t run, struct db_mean **, size_t *,
     char **cause);
void db_means_free(struct db_mean *, size_t);
/* direction: higher, lower; statistic: amean, hmean, gmean, median. */
int db_metric_upsert(struct db *, const char *name, const char *unit,
    const char *direction, const char *statistic, char **cause);

/*
 * The samples that count (db/selection.c): comparison tables (hilab
 * compare, report, plot) and the sweeps' regression check read the
 * samples of runs that are done and not superseded (state done,
 * retried_as NULL) and no other.  The samples of a failed run, of a run
 * still running and of a run done again stay stored (and in v_samples)
 * but count nowhere.
 */
struct db_job_sample {
	const char *benchmark;
	const char *metric;
	/*
	 * The meaning the sample's own job declares for the metric (its
	 * name, else the first pattern with '*' that matches it): for an
	 * undeclared metric unit and direction are "", statistic "amean",
	 * label NULL and position LONG_MAX.
	 */
	const char *unit;
	const char *direction; /* "higher", "lower" or "" (unknown) */
	const char *statistic; /* amean, hmean, gmean, median */
	const char *label;     /* the row label the job gives, or NULL */
	long	    position;  /* place among the benchmark's metrics */
	const char *params;
	const char *kernel; /* the kernel's name */
	const char *machine;
	int64_t	    job;
	int64_t	    run;
	int	    boot;
	double	    value;
	const char *facts;   /* the run's facts (JSON), or NULL */
	const char *cmdline; /* the kernel's cmdline, or NULL */
};

/* Called once per sample; the strings last until it returns. */
typedef void (*db_sample_cb)(const struct db_job_sample *, void *arg);

/*
 * Calls cb for every sample that counts of the jobs (of one benchmark and
 * one metric unless NULL) in the order tables show them: by benchmark,
 * metric, the jobs in the order given, the kernel's place in its job,
 * round, position, iteration (then run and repeat).  cb must not use the
 * db.  Returns 0 or -1.
 */
int db_samples_of_jobs(struct db *, const int64_t *jobs, size_t njobs,
    const char *benchmark, const char *metric, db_sample_cb cb, void *arg,
    char **cause);
/* The newest done job with a sample that counts; 0 if none, -1 on error. */
int64_t db_samples_latest_job(struct db *, char **cause);
/*
 * The first of the jobs (in the order given) the database does not have:
 * 1 and *missing, 0 when it has them all, -1 on error.
 */
int db_jobs_missing(struct db *, const int64_t *jobs, size_t njobs,
    int64_t *missing, char **cause);
/* How many kernels (by name) and machines the runs of the jobs have. */
int db_jobs_count(struct db *, const int64_t *jobs, size_t njobs, int *kernels,
    int *machines, char **cause);

/*
 * Adaptive iterations (db/adaptive.c).  A group is a (job, machine,
 * benchmark, params) whose benchmark has adaptive iterations; when one of
 * its runs ends, db_adapt_group_get reads the runs that count plus that
 * one (still running): per kernel, in the order they first ran, the
 * measured iterations and the metric's samples.
 */
struct db_adapt_kernel {
	int64_t kernel;
	char   *name;
	int	iterations; /* measured, over the runs read */
	double *x;	    /* the metric's samples in them */
	size_t	n;
};
struct db_adapt_group {
	struct db_adapt_kernel *v;
	size_t			n;
	int			pending; /* its other runs queued or running */
	int			last_round; /* the highest round it has */
};
int  db_adapt_group_get(struct db *, const struct db_run *ending,
     const char *metric, struct db_adapt_group *, char **cause);
void db_adapt_group_clear(struct db_adapt_group *);

/*
 * One row of the adaptive table: a kernel's measured iterations in its
 * group, the precision they reach (the 95% CI half-width of the metric's
 * statistic over the statistic; NAN: no interval), whether it is within
 * the target, and whether the group stopped.
 */
struct db_adapt {
	int64_t	    job;
	const char *machine;
	int64_t	    kernel;
	const char *kernel_name; /* read only */
	const char *benchmark;
	const char *params;
	const char *metric;
	const char *statistic;
	int	    iterations;
	double	    precision;
	double	    target;
	int	    min;
	int	    max;
	bool	    reached;
	bool	    done;
};
/* Writes (or replaces) one kernel's row. */
int db_adapt_set(struct db *, const struct db_adapt *, char **cause);
/* Called once per row; the strings last until it returns. */
typedef void (*db_adapt_cb)(const struct db_adapt *, void *arg);
/*
 * The adaptive rows of the jobs (db/selection.c), by job, machine,
 * benchmark, params and the order they were written.
 */
int db_adapt_of_jobs(struct db *, const int64_t *jobs, size_t njobs,
    db_adapt_cb cb, void *arg, char **cause);

/* What a job's report shows besides its tables (db/report.c). */
struct db_job_facts {
	char *machine;
	char *kernel; /* the kernel's name; NULL from
			 db_job_machines */
	char *facts;  /* JSON, or NULL */
};

struct db_job_kernel {
	struct db_kernel kernel;
	char		*facts; /* of its first run in the job with
				   facts, or NULL */
};

/*
 * The machines of a job in the order they first ran, with the facts of
 * their last run in the job that has them, else of their last connect.
 */
int db_job_machines(struct db *, int64_t job, struct db_job_facts **, size_t *,
    char **cause);
/* The kernels of a job in the order they first ran. */
int db_job_kernels(struct db *, int64_t job, struct db_job_kernel **, size_t *,
    char **cause);
/*
 * The facts of the first run with facts of each (machine, kernel) of a
 * job, in the order of those runs.
 */
int db_job_environments(struct db *, int64_t job, struct db_job_facts **,
    size_t *, char			   **cause);
/* Free the lists of db_job_machines, db_job_environments, db_job_kernels. */
void db_job_facts_free(struct db_job_facts *, size_t);
void db_job_kernels_free(struct db_job_kernel *, size_t);

/* Events. */
struct db_event {
	int64_t	      id;
	int64_t	      time;
	int64_t	      job;     /* 0 if none */
	int64_t	      run;     /* 0 if none */
	char	     *machine; /* NULL if none */
	enum db_level level;
	char	     *message;
};

/* Logs an event; job and run may be 0 and machine NULL. */
int db_event_add(struct db *, int64_t job, int64_t run, const char *machine,
    enum db_level, char **cause, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* Events with id > after_id, of one job (or all when job is 0). */
int  db_event_list(struct db *, int64_t job, int64_t after_id,
     struct db_event **, size_t *, char		   **cause);
void db_event_list_free(struct db_event *, size_t);

/*
 * Sweeps: a job file queued again every interval (aligned to a local time
 * of day when at_minute >= 0).  hilabd queues due sweeps and compares each
 * done job of a sweep with the done job before it.
 */
struct db_sweep {
	int64_t	      id;
	char	     *name;
	char	     *file;	   /* absolute path of the job file */
	int64_t	      interval_ms; /* 0 for a cron sweep */
	int	      at_minute;   /* minutes after local midnight, -1 */
	char	     *cron;	   /* five cron fields, or NULL */
	bool	      enabled;
	int64_t	      next_at;
	int64_t	      last_job;	   /* 0 if none yet */
	enum db_state last_state;  /* of last_job, when there is one */
	int64_t	      checked_job; /* newest job compared, 0 if none */
	int64_t	      created_at;
	int	      confirm_rounds; /* of a confirmation job; 0: default */
	char	     *mbox;	      /* mail to this mbox file, or NULL */
	char	     *mail_command;   /* JSON array of argv words, or NULL */
	int64_t	      bisect_budget;  /* bisect confirmed regressions with
					 this many samples; 0: no */
};

/*
 * The first slot after now: anchor + k * interval_ms with k the smallest
 * integer that passes now; with at_minute >= 0 the anchor is that local
 * time of now's day instead.
 */
int64_t db_sweep_next_at(int64_t interval_ms, int at_minute, int64_t anchor,
    int64_t now);
/*
 * The slot of w's schedule after now: its cron expression's next slot, or
 * db_sweep_next_at from its interval (anchored at w->next_at).  Slots that
 * passed while nobody looked are skipped, so a sweep overdue by many slots
 * runs once.  INT64_MAX for a cron expression that is invalid or has no
 * slot.
 */
int64_t db_sweep_next(const struct db_sweep *w, int64_t now);
/*
 * Adds an enabled sweep from w's name, file, schedule (cron, or
 * interval_ms and at_minute), first slot next_at, confirm_rounds (0: the
 * default, 3), mbox and mail_command; returns its id or -1.
 */
int64_t db_sweep_add(struct db *, const struct db_sweep *w, char **cause);
/* Returns a sweep by name, or NULL with *cause set (also if unknown). */
struct db_sweep *db_sweep_get(struct db *, const char *name, char **cause);
/* Every sweep, by name. */
int db_sweep_list(struct db *, struct db_sweep **, size_t *, char **cause);
/* Enabled sweeps with next_at <= now, most overdue first. */
int db_sweep_due(struct db *, int64_t now, struct db_sweep **, size_t *,
    char **cause);
/* Removes a sweep; its jobs and events stay, unlinked. */
int db_sweep_remove(struct db *, const char *name, char **cause);
int db_sweep_set_enabled(struct db *, const char *name, bool, char **cause);
/* Moves a sweep's next run (a skipped or invalid run). */
int db_sweep_set_next(struct db *, int64_t id, int64_t next_at, char **cause);
/*
 * Queues a job for a sweep in one transaction: the job linked to the
 * sweep, which gets it as last_job and next_at.  Returns the job id or -1.
 */
int64_t db_sweep_queue(struct db *, int64_t id, const char *name,
    const char *file, const char *spec, int64_t next_at, char **cause);
/* Records that the sweep's jobs up to job have been compared. */
int db_sweep_set_checked(struct db *, int64_t id, int64_t job, char **cause);
/* The jobs a sweep queued, newest first, with their run counts. */
int db_sweep_jobs(struct db *, int64_t id, struct db_job **, size_t *,
    char **cause);
/* Logs an event about a sweep; job may be 0. */
int db_sweep_event_add(struct db *, int64_t id, int64_t job, enum db_level,
    char **cause, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The events of a sweep, oldest first (free with db_event_list_free). */
int  db_sweep_events(struct db *, int64_t id, struct db_event **, size_t *,
     char **cause);
void db_sweep_free(struct db_sweep *);
void db_sweep_list_free(struct db_sweep *, size_t);

/*
 * A change point a sweep found in one series (machine, benchmark, params,
 * metric) of its done jobs: job is the first job after it, before_job the
 * last one before (the last good one of a regression), before and after
 * the medians of the points on each side.  state is "suspected", then
 * "confirming" once its A/B job confirm_job is queued, then "confirmed" or
 * "rejected" by that job's test (confirm_p, confirm_effect_pct), or
 * "failed" if the A/B job did not end done.
 */
struct db_sweep_change {
	int64_t id;
	int64_t sweep;
	char   *machine;
	char   *benchmark;
	char   *params;
	char   *metric;
	int64_t job;
	int64_t before_job; /* 0 if unknown */
	int64_t found_job;  /* the job whose check found it */
	double	before;
	double	after;
	double	effect_pct; /* raw: 100 * (after - before) / before */
	double	p;
	char   *verdict; /* "regression" or "improvement" */
	char   *state;	 /* see above */
	int64_t created_at;
	int64_t confirm_job;	    /* 0 while suspected */
	double	confirm_p;	    /* once confirmed or rejected */
	double	confirm_effect_pct; /* suspect against good, raw */
};

/* Records a suspected change (id, state and created_at are set); its id. */
int64_t db_sweep_change_add(struct db *, const struct db_sweep_change *,
    char **cause);
/* The job of the newest change of a series of a sweep: 0 if none, -1. */
int64_t db_sweep_change_last(struct db *, int64_t sweep, const char *machine,
    const char *benchmark, const char *params, const char *metric,
    char **cause);
/* The changes of a sweep, oldest first. */
int  db_sweep_changes(struct db *, int64_t sweep, struct db_sweep_change **,
     size_t *, char			 **cause);
void db_sweep_change_list_free(struct db_sweep_change *, size_t);
/*
 * Moves a suspected change to "confirming" with its A/B job; -1 with
 * *cause if the change is not suspected (each step happens once).
 */
int db_sweep_change_confirming(struct db *, int64_t id, int64_t job,
    char **cause);
/*
 * Ends a confirming change: state "confirmed", "rejected" or "failed",
 * with the A/B job's p and effect (ignored for "failed"); -1 with *cause
 * if the change is not confirming.
 */
int db_sweep_change_decide(struct db *, int64_t id, const char *state, double p,
    double effect_pct, char **cause);

/*
 * How far a job has come, for hilab wait (db/progress.c): its running
 * runs with the iterations they stored, and what earlier runs took.
 */
struct db_progress {
	int64_t run;
	char   *machine;
	char   *benchmark;
	char   *params;
	int	round;
	int	iterations;
	int	warmups;
	int64_t started_at; /* 0 if not yet */
	int	results;    /* iterations stored, warmups included */
	int	timed;	    /* of them, those with a wall time */
	int64_t wall_ns;    /* their wall time, summed */
};

/* The running runs of a job, oldest start first. */
int  db_run_progress(struct db *, int64_t job, struct db_progress **, size_t *,
     char **cause);
void db_progress_free(struct db_progress *, size_t);
/*
 * The mean wall time (ns) of one iteration of the done runs of benchmark
 * with params on machine, any job; 0 when there are none.
 */
int db_iteration_estimate(struct db *, const char *machine,
    const char *benchmark, const char *params, int64_t *ns, char **cause);
/* The mean start-to-end time (ms) of a job's done runs; 0 if none. */
int db_job_run_time(struct db *, int64_t job, int64_t *ms, char **cause);

/*
 * A bisection: the search for the first bad commit between commits[0]
 * (good) and the last of commits (bad) of tree, measuring benchmark's
 * metric with params on machine; hilabd queues a step job at a time.
 */
struct db_bisect {
	int64_t id;
	char   *name;
	char   *spec; /* the template job, JSON */
	char   *machine;
	char   *benchmark;
	char   *params; /* "k=v,k2=v2", "" for none */
	char   *metric;
	char   *tree;
	char   *commits;  /* JSON array, good end first */
	char   *subjects; /* JSON array, as long */
	int64_t budget;	  /* samples at most */
	double	confidence;
	char   *state;	 /* running found unsure "no change" failed cancelled */
	char   *result;	 /* JSON, NULL while running */
	char   *why;	 /* NULL if none */
	int64_t sweep;	 /* 0: none */
	int64_t change;	 /* 0: none */
	int64_t created; /* as jobs' times */
	int64_t ended;	 /* 0 while running */
};

/* One step: the job that measured commits[commit]. */
struct db_bisect_step {
	int64_t job;
	int64_t commit;
};

/* Adds a running bisection from b (id, state, result, times ignored). */
int64_t db_bisect_add(struct db *, const struct db_bisect *b, char **cause);
/* A bisection by id, or NULL with *cause ("no bisection N" if unknown). */
struct db_bisect *db_bisect_get(struct db *, int64_t id, char **cause);
/* Every bisection, by id; with running set, the running ones only. */
int db_bisect_list(struct db *, bool running, struct db_bisect **, size_t *,
    char **cause);
/* Records that job measures commit index commit of bisection id. */
int db_bisect_step_add(struct db *, int64_t id, int64_t job, int64_t commit,
    char **cause);
/* The steps of a bisection, by job id; the caller frees the array. */
int db_bisect_steps(struct db *, int64_t id, struct db_bisect_step **, size_t *,
    char **cause);
/*
 * Ends a running bisection with state, result (JSON or NULL) and why (or
 * NULL): 1 if it was running, 0 if it had ended already, -1.
 */
int db_bisect_end(struct db *, int64_t id, const char *state,
    const char *result, const char *why, char **cause);
/* Logs an event about a bisection; job may be 0. */
int db_bisect_event_add(struct db *, int64_t id, int64_t job, enum db_level,
    char **cause, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The events of a bisection, oldest first (free with db_event_list_free). */
int  db_bisect_events(struct db *, int64_t id, struct db_event **, size_t *,
     char **cause);
void db_bisect_free(struct db_bisect *);
void db_bisect_list_free(struct db_bisect *, size_t);

/*
 * A watch on a database's files (db/watch.c): wakes a reader at a commit
 * instead of at its next poll.
 */
struct db_watch;
struct db_watch *db_watch_open(const char *path, char **cause);
/* Waits up to ms for a write to the database; returns whether one came. */
bool db_watch_wait(struct db_watch *, int ms);
void db_watch_close(struct db_watch *);

#endif
