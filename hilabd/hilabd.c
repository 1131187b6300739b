/*
 * hilabd: the lab controller.  The main thread plans jobs, serves the
 * control socket and settles finished jobs; one worker thread per machine
 * does the rest (hilabd/worker.c).  Stays in the foreground.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/control.h"
#include "common/log.h"
#include "common/paths.h"
#include "common/xmalloc.h"
#include "config.h"
#include "db/db.h"
#include "hilabd/builder.h"
#include "hilabd/daemon.h"
#include "hilabd/sweeper.h"
#include "machines/inventory.h"
#include "machines/libvirt.h"

#define HILABD_TICK_MS 1000

static volatile sig_atomic_t hilabd_quit;

static void
hilabd_signal_cb(int sig)
{
	hilabd_quit = sig;
}

static void
hilabd_usage(void)
{
	fprintf(stderr,
	    "usage: hilabd [-nvd] [--db FILE] [--socket PATH] "
	    "[--machines DIR] [--agent-dir DIR]\n");
	exit(2);
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
		w = &d->workers[i];
		json_array_append_new(arr,
		    json_pack("{s:s, s:I, s:I, s:I}", "machine",
			w->machine->name, "job", (json_int_t)w->job, "run",
			(json_int_t)w->run, "results", (json_int_t)w->results));
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
		if (db_machine_upsert(db, m->name,
			m->kind == MACHINE_SSH ? "ssh" : "libvirt", m->arch,
			cause) == -1)
			return -1;
	}
	return 0;
}

/* Plans, serves the control socket and settles jobs until a signal. */
static void
hilabd_loop(struct daemon *d, struct db *db, struct control *ctl)
{
	struct pollfd pfd = { .fd = control_fd(ctl), .events = POLLIN };

	while (!hilabd_quit) {
		sweeper_tick(d, db);
		if (planner_tick(d, db))
			daemon_nudge(d);
		if (poll(&pfd, 1, HILABD_TICK_MS) > 0 && (pfd.revents & POLLIN))
			control_serve_one(ctl, hilabd_request_cb, d);
	}
	log_info("hilabd", "signal %d: stopping", (int)hilabd_quit);
}

/* Installs the signal handlers: TERM/INT stop, PIPE is ignored. */
static void
hilabd_signals(void)
{
	struct sigaction sa = { .sa_handler = hilabd_signal_cb };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
}

/* Opens the database and the inventory and records the machines. */
static int
hilabd_open(struct daemon *d, const char *machines_dir, struct db **db,
    char **cause)
{
	if ((d->inventory = inventory_load(machines_dir, cause)) == NULL)
		return -1;
	if ((*db = db_open(d->db_path, cause)) == NULL)
		return -1;
	if (hilabd_sync_machines(*db, d->inventory, cause) == -1)
		return -1;
	hilabd_clear_stale_leases(*db);
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = { { "db", required_argument,
						      NULL, 'D' },
		{ "socket", required_argument, NULL, 'S' },
		{ "machines", required_argument, NULL, 'M' },
		{ "agent-dir", required_argument, NULL, 'A' },
		{ "build-kernels", no_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 } };
	struct daemon		   d = { .lock = PTHREAD_MUTEX_INITIALIZER,
			     .nudge = PTHREAD_COND_INITIALIZER };
	const char		  *sock, *machines, *catalog;
	enum log_level		   level = LOG_LEVEL_INFO;
	struct control		  *ctl = NULL;
	struct db		  *db = NULL;
	char			  *cause = NULL;
	bool			   check = false, build_child = false;
	int			   c;

	paths_defaults(&d.db_path, &sock, &machines, &catalog);
	d.agent_dir = paths_agent_dir();
	while ((c = getopt_long(argc, argv, "nvd", longopts, NULL)) != -1) {
		switch (c) {
		case 'D':
			d.db_path = optarg;
			break;
		case 'S':
			sock = optarg;
			break;
		case 'M':
			machines = optarg;
			break;
		case 'A':
			d.agent_dir = optarg;
			break;
		case 'B':
			build_child = true;
			break;
		case 'n':
			check = true;
			break;
		case 'v':
			level = LOG_LEVEL_INFO;
			break;
		case 'd':
			level = LOG_LEVEL_DEBUG;
			break;
		default:
			hilabd_usage();
		}
	}
	log_init("hilabd", level);
	if (build_child)
		return builder_child_main();
	if (hilabd_open(&d, machines, &db, &cause) == -1)
		fatalx("%s", cause);
	if (check) {
		printf("configuration OK: %zu machines, database \"%s\"\n",
		    d.inventory->n, d.db_path);
		return 0;
	}
	hilabd_signals();
	if ((ctl = control_open(sock, &cause)) == NULL)
		fatalx("%s", cause);
	hilabd_clear_domains(d.inventory);
	if ((d.builder = builder_start(&d, &cause)) == NULL ||
	    worker_start_all(&d, &cause) == -1)
		fatalx("%s", cause);
	log_info("hilabd",
	    "ready: %zu machines, database \"%s\", socket "
	    "\"%s\"",
	    d.inventory->n, d.db_path, sock);
	hilabd_loop(&d, db, ctl);
	builder_stop(d.builder);
	worker_stop_all(&d);
	control_close(ctl);
	db_close(db);
	inventory_free(d.inventory);
	return 0;
}
