/*
 * hilabd: the lab controller.  The main thread plans jobs, serves the
 * control socket, settles finished jobs and applies SIGHUP's reload; one
 * worker thread per machine does the rest (hilabd/worker.c).  Stays in
 * the foreground; its options are the table of hilabd/options.c.
 */
#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "benchmarks/catalog.h"
#include "common/args.h"
#include "common/control.h"
#include "common/log.h"
#include "common/paths.h"
#include "common/xmalloc.h"
#include "config.h"
#include "db/db.h"
#include "hilabd/bisector.h"
#include "hilabd/builder.h"
#include "hilabd/daemon.h"
#include "hilabd/fetcher.h"
#include "hilabd/options.h"
#include "hilabd/sweeper.h"
#include "machines/inventory.h"
#include "machines/libvirt.h"

#define HILABD_TICK_MS 1000

static volatile sig_atomic_t hilabd_quit, hilabd_hup;

/* TERM and INT stop hilabd; HUP asks the main loop for a reload. */
static void
hilabd_signal_cb(int sig)
{
	if (sig == SIGHUP)
		hilabd_hup = 1;
	else
		hilabd_quit = sig;
}

/* The "status" reply: what each worker is doing, as JSON. */
static char *
hilabd_status(struct daemon *d)
{
	json_t	      *arr = json_array();
	struct worker *w;
	char	      *s;
	size_t	       i;

	pthread_mutex_lock(&d->lock);
	for (i = 0; i < d->nworkers; i++) {
		w = d->workers[i];
		json_array_append_new(arr,
		    json_pack("{s:s, s:I, s:I, s:I, s:b}", "machine",
			w->machine->name, "job", (json_int_t)w->job, "run",
			(json_int_t)w->run, "results", (json_int_t)w->results,
			"retired", w->retired));
	}
	pthread_mutex_unlock(&d->lock);
	s = json_dumps(arr, JSON_COMPACT);
	json_decref(arr);
	return s;
}

/* Answers one control request. */
static char *
hilabd_request_cb(const char *req, void *arg)
{
	struct daemon *d = arg;

	if (strcmp(req, "ping") == 0) /* hilab wait's, once a second */
		log_debug("control", "request \"%s\"", req);
	else
		log_verbose("control", "request \"%s\"", req);
	if (strcmp(req, "ping") == 0)
		return xstrdup("ok hilabd " HILAB_VERSION);
	if (strcmp(req, "nudge") == 0) {
		daemon_nudge(d);
		return xstrdup("ok");
	}
	if (strcmp(req, "status") == 0)
		return hilabd_status(d);
	return NULL;
}

/* Frees leases held by a hilabd of this host that is no longer alive. */
static void
hilabd_clear_stale_leases(struct db *db)
{
	struct db_machine *v;
	char		  *cause = NULL;
	size_t		   n, i;
	long		   pid;

	if (db_machine_list(db, &v, &n, &cause) == -1) {
		log_warn("hilabd", "%s", cause);
		free(cause);
		return;
	}
	for (i = 0; i < n; i++) {
		if (v[i].lease_owner == NULL ||
		    sscanf(v[i].lease_owner, "hilabd:%ld", &pid) != 1)
			continue;
		if (kill((pid_t)pid, 0) == -1 && errno == ESRCH) {
			log_info("hilabd",
			    "machine \"%s\": lease of stopped "
			    "%s released",
			    v[i].name, v[i].lease_owner);
			db_machine_release(db, v[i].name, v[i].lease_owner,
			    &cause);
			free(cause);
			cause = NULL;
		}
	}
	db_machine_list_free(v, n);
}

/* Destroys VMs a killed controller left behind (by their name only). */
static void
hilabd_clear_domains(const struct inventory *inv)
{
	const struct machine *m;
	char		     *name, *cause = NULL;
	size_t		      i;
	int		      n;

	for (i = 0; i < inv->n; i++) {
		m = inv->machines[i];
		if (m->kind != MACHINE_LIBVIRT)
			continue;
		name = xasprintf("hilab-%s", m->name);
		if ((n = libvirt_cleanup_prefix(m->libvirt.uri, name,
			 &cause)) == -1) {
			log_warn("hilabd", "%s", cause);
			free(cause);
			cause = NULL;
		} else if (n > 0)
			log_info("hilabd",
			    "destroyed %d left-over domain%s "
			    "\"%s\"",
			    n, n == 1 ? "" : "s", name);
		free(name);
	}
}

/* Records the inventory's machines in the database. */
static int
hilabd_sync_machines(struct db *db, const struct inventory *inv, char **cause)
{
	const struct machine *m;
	size_t		      i;

	for (i = 0; i < inv->n; i++) {
		m = inv->machines[i];
		if (db_machine_upsert(db, m->name, machine_kind_str(m->kind),
			m->arch, cause) == -1)
			return -1;
	}
	return 0;
}

/*
 * Tells systemd (Type=notify: NOTIFY_SOCKET) that hilabd serves, with what
 * it serves as its status; nothing without a notify socket.
 */
static void
hilabd_notify_ready(const struct daemon *d)
{
	sd_notifyf(0, "READY=1\nSTATUS=%zu machines, database %s",
	    d->inventory->n, d->db_path);
}

/*
 * Plans, serves the control socket and settles jobs until a signal;
 * applies a reload that HUP asked for, and joins the workers that ended.
 * Wakes at once for a request, a run's end or a build's, and at least
 * once a tick for the sweeps' and bisections' clocks.
 */
static void
hilabd_loop(struct daemon *d, struct db *db, struct control *ctl)
{
	struct pollfd pfd[] = { { .fd = control_fd(ctl), .events = POLLIN },
		{ .fd = d->wake[0], .events = POLLIN } };

	while (!hilabd_quit) {
		if (hilabd_hup) {
			hilabd_hup = 0;
			sd_notify(0, "RELOADING=1");
			reload_all(d, db);
			hilabd_notify_ready(d);
		}
		worker_reap(d);
		sweeper_tick(d, db);
		bisector_tick(db);
		if (planner_tick(d, db))
			daemon_nudge(d);
		if (poll(pfd, 2, HILABD_TICK_MS) <= 0)
			continue;
		if (pfd[1].revents & POLLIN)
			daemon_wake_drain(d);
		if (pfd[0].revents & POLLIN)
			control_serve_one(ctl, hilabd_request_cb, d);
	}
	log_info("hilabd", "signal %d: stopping", (int)hilabd_quit);
	sd_notify(0, "STOPPING=1");
}

/* Installs the signal handlers: TERM/INT stop, HUP reloads, PIPE ignored. */
static void
hilabd_signals(void)
{
	struct sigaction sa = { .sa_handler = hilabd_signal_cb };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Logs what, then each line of cause (file:line:col: message). */
static void
hilabd_log_lines(const char *what, char *cause)
{
	char *line, *save = NULL;

	log_error("hilabd", "%s", what);
	for (line = strtok_r(cause, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		log_error("hilabd", "%s", line);
	free(cause);
}

/* Logs the catalog's errors: sweeps, which read it as they queue, fail. */
static void
hilabd_check_catalog(const struct daemon *d)
{
	struct catalog *cat;
	char	       *cause = NULL, *what;

	if ((cat = catalog_load(d->catalog_dir, &cause)) != NULL) {
		catalog_free(cat);
		return;
	}
	what = xasprintf("catalog \"%s\" has errors; sweeps fail to queue "
			 "until it is fixed:",
	    d->catalog_dir);
	hilabd_log_lines(what, cause);
	free(what);
}

/*
 * Opens the database and the inventory and records the machines; an exit
 * code.  A bad inventory is logged, file:line:col each line.
 */
static int
hilabd_open(struct daemon *d, struct db **db)
{
	char *cause = NULL;

	if ((d->inventory = inventory_load(d->machines_dir, &cause)) == NULL) {
		hilabd_log_lines("the inventory has errors:", cause);
		return HILABD_EXIT_USAGE;
	}
	/* Kept open (and so held) until hilabd exits. */
	if (db_owner_lock(d->db_path, "hilabd", &cause) == -1) {
		fprintf(stderr, "hilabd: %s\n", cause);
		free(cause);
		return HILABD_EXIT_FAIL;
	}
	if ((*db = db_open(d->db_path, &cause)) == NULL ||
	    hilabd_sync_machines(*db, d->inventory, &cause) == -1) {
		log_error("hilabd", "%s", cause);
		free(cause);
		return HILABD_EXIT_FAIL;
	}
	hilabd_clear_stale_leases(*db);
	hilabd_check_catalog(d);
	return HILABD_EXIT_OK;
}

/* Runs the daemon until a signal stops it. */
static int
hilabd_run(struct daemon *d, const char *sock)
{
	struct control *ctl;
	struct db      *db = NULL;
	char	       *cause = NULL;
	int		rc;

	/* First: a HUP while starting is a reload once the loop runs. */
	hilabd_signals();
	if ((rc = hilabd_open(d, &db)) != HILABD_EXIT_OK) {
		db_close(db);
		return rc;
	}
	if ((ctl = control_open(sock, &cause)) == NULL)
		fatalx("%s", cause);
	hilabd_clear_domains(d->inventory);
	if (daemon_wake_open(d, &cause) == -1 ||
	    (d->builder = builder_start(d, &cause)) == NULL ||
	    (d->fetcher = fetcher_start(&cause)) == NULL ||
	    worker_start_all(d, &cause) == -1)
		fatalx("%s", cause);
	log_info("hilabd",
	    "ready: %zu machines, database \"%s\", socket \"%s\"",
	    d->inventory->n, d->db_path, sock);
	hilabd_notify_ready(d);
	hilabd_loop(d, db, ctl);
	fetcher_stop(d->fetcher);
	builder_stop(d->builder);
	worker_stop_all(d);
	control_close(ctl);
	daemon_wake_close(d);
	db_close(db);
	return HILABD_EXIT_OK;
}

/* -n: prints a file's errors as they are (file:line:col each line). */
static int
hilabd_check_errors(char *cause)
{
	fprintf(stderr, "%s\n", cause);
	free(cause);
	return HILABD_EXIT_USAGE;
}

/*
 * -n: whether the database would open, read-only: a missing one would be
 * created, an older one upgraded.  Returns an exit code; *note says which.
 */
static int
hilabd_check_db(const struct daemon *d, const char **note)
{
	struct db *db;
	char	  *cause = NULL;

	*note = "";
	if (access(d->db_path, F_OK) == -1) {
		*note = " (not there: would be created)";
		return HILABD_EXIT_OK;
	}
	if ((db = db_open_readonly(d->db_path, &cause)) != NULL) {
		db_close(db);
		return HILABD_EXIT_OK;
	}
	if (strstr(cause, "open it read-write to upgrade") != NULL) {
		*note = " (older schema: would be upgraded)";
		free(cause);
		return HILABD_EXIT_OK;
	}
	fprintf(stderr, "hilabd: %s\n", cause);
	free(cause);
	return HILABD_EXIT_FAIL;
}

/* -n: checks what hilabd would start with, writing nothing anywhere. */
static int
hilabd_check(struct daemon *d)
{
	struct catalog *cat;
	const char     *note;
	char	       *cause = NULL;
	int		rc = HILABD_EXIT_OK;

	if ((d->inventory = inventory_load(d->machines_dir, &cause)) == NULL)
		rc = hilabd_check_errors(cause);
	if ((cat = catalog_load(d->catalog_dir, &cause)) == NULL)
		rc = hilabd_check_errors(cause);
	if (rc == HILABD_EXIT_OK)
		rc = hilabd_check_db(d, &note);
	if (rc == HILABD_EXIT_OK)
		printf("configuration OK: %zu machines in \"%s\", %zu "
		       "benchmarks in \"%s\", database \"%s\"%s\n",
		    d->inventory->n, d->machines_dir, cat->n, d->catalog_dir,
		    d->db_path, note);
	catalog_free(cat);
	return rc;
}

/* Prints a usage error and where to read more. */
static int
hilabd_usage(const struct args *a, char *cause)
{
	fprintf(stderr, "hilabd: %s\n", cause);
	args_usage(stderr, a);
	fprintf(stderr, "(see 'hilabd --help')\n");
	free(cause);
	return HILABD_EXIT_USAGE;
}

/*
 * The paths of the line, over the environment's and the defaults.  The
 * catalog goes back to the environment: sweeps read it from there.
 */
static void
hilabd_paths(struct daemon *d, const struct args *a, const char **sock)
{
	paths_defaults(&d->db_path, sock, &d->machines_dir, &d->catalog_dir);
	d->agent_dir = paths_agent_dir();
	d->db_path = args_text(a, "db", d->db_path);
	*sock = args_text(a, "socket", *sock);
	d->machines_dir = args_text(a, "machines", d->machines_dir);
	d->agent_dir = args_text(a, "agent-dir", d->agent_dir);
	if (args_get(a, "catalog") != NULL) {
		d->catalog_dir = args_text(a, "catalog", NULL);
		setenv("HILAB_CATALOG", d->catalog_dir, 1);
	}
}

/* The most said: -d, -v or the default. */
static enum log_level
hilabd_log_level(const struct args *a)
{
	if (args_flag(a, "debug"))
		return LOG_LEVEL_DEBUG;
	if (args_flag(a, "verbose"))
		return LOG_LEVEL_VERBOSE;
	return LOG_LEVEL_INFO;
}

/* Reads the options and runs, checks or builds kernels. */
int
main(int argc, char **argv)
{
	struct daemon d = { .lock = PTHREAD_MUTEX_INITIALIZER,
		.nudge = PTHREAD_COND_INITIALIZER,
		.wake = { -1, -1 } };
	struct args   a;
	const char   *sock;
	char	     *cause = NULL;
	int	      rc;

	if (args_parse(&hilabd_prog, argc, argv, &a, &cause) == -1) {
		rc = hilabd_usage(&a, cause);
		goto out;
	}
	if (a.help || args_flag(&a, "version")) {
		if (a.help)
			args_help(stdout, &a);
		else
			printf("hilabd %s\n", HILAB_VERSION);
		rc = HILABD_EXIT_OK;
		goto out;
	}
	hilabd_paths(&d, &a, &sock);
	log_init("hilabd", hilabd_log_level(&a));
	if (args_flag(&a, "check"))
		rc = hilabd_check(&d);
	else {
		log_set_stamps(true);
		rc = args_flag(&a, "build-kernels") ? builder_child_main()
						    : hilabd_run(&d, sock);
	}
	daemon_free_inventories(&d);
out:
	args_clear(&a);
	return rc;
}
