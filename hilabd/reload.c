/*
 * SIGHUP: the inventory read again, compared with what hilabd runs with,
 * and what changed logged and applied (reload = parse, then swap).  Two
 * machines are the same when they print the same normalized YAML; a
 * change is told by the lines that differ.  The catalog, which hilabd
 * does not hold (sweeps read it as they queue), is checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchmarks/catalog.h"
#include "common/log.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/daemon.h"
#include "machines/inventory.h"

/* Lines of a change shown at most. */
#define RELOAD_DIFF_LINES 3

/* A machine as its normalized YAML (caller frees). */
static char *
reload_text(const struct machine *m)
{
	char  *text = NULL;
	size_t len = 0;
	FILE  *f = open_memstream(&text, &len);

	if (f == NULL)
		fatalx("open_memstream: out of memory");
	inventory_print_machine(f, m);
	fclose(f);
	return text;
}

/* Whether text has line, of len bytes, as a whole line. */
static bool
reload_has_line(const char *text, const char *line, size_t len)
{
	const char *p;

	for (p = text; (p = strstr(p, line)) != NULL; p++)
		if ((p == text || p[-1] == '\n') &&
		    (p[len] == '\n' || p[len] == '\0'))
			return true;
	return false;
}

/* Adds a line of b that a lacks to out ("x, y"), trimmed of its indent. */
static char *
reload_diff_add(char *out, const char *line)
{
	char *t;

	t = xasprintf("%s%s%s", out ? out : "", out ? ", " : "",
	    line + strspn(line, " -"));
	free(out);
	return t;
}

/*
 * The lines of b that a lacks, joined with ", " (a few at most); NULL
 * when the texts are the same (caller frees).
 */
static char *
reload_diff(const char *a, const char *b)
{
	const char *p, *end;
	char	   *out = NULL, *line;
	int	    n = 0;

	if (strcmp(a, b) == 0)
		return NULL;
	for (p = b; *p != '\0' && n < RELOAD_DIFF_LINES;
	     p = end + (*end != '\0')) {
		end = p + strcspn(p, "\n");
		line = xstrndup(p, (size_t)(end - p));
		if (!reload_has_line(a, line, strlen(line))) {
			out = reload_diff_add(out, line);
			n++;
		}
		free(line);
	}
	return out != NULL ? out : xstrdup("lines removed");
}

/* Logs a cause line by line (each file:line:col: message). */
static void
reload_lines(char *cause)
{
	char *line, *save = NULL;

	for (line = strtok_r(cause, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		log_error("reload", "%s", line);
	free(cause);
}

/* Records machine m in the database (kind and arch). */
static int
reload_upsert(struct db *db, const struct machine *m, char **cause)
{
	return db_machine_upsert(db, m->name, machine_kind_str(m->kind),
	    m->arch, cause);
}

/*
 * A machine new to the inventory: recorded, and a worker for it (once the
 * worker a reload before retired has ended, if it has not).
 */
static void
reload_added(struct daemon *d, struct db *db, const struct machine *m)
{
	char *cause = NULL;

	if (reload_upsert(db, m, &cause) == -1)
		goto idle;
	if (worker_busy(d, m->name))
		worker_restart(d, m->name); /* removed, then back */
	else if (worker_start(d, m, &cause) == -1)
		goto idle;
	log_info("reload",
	    "machine \"%s\" added (%s, %s): a worker takes its "
	    "runs",
	    m->name, machine_kind_str(m->kind), m->arch);
	return;
idle:
	log_error("reload", "machine \"%s\" added but idle: %s", m->name,
	    cause);
	free(cause);
}

/* Fails run r of machine name, which the inventory no longer has. */
static int
reload_fail_run(struct db *db, const struct db_run *r, const char *why)
{
	char *cause = NULL;

	if (db_run_set_state(db, r->id, DB_RUNNING, NULL, &cause) == -1 ||
	    db_run_set_state(db, r->id, DB_FAILED, why, &cause) == -1 ||
	    db_event_add(db, r->job, r->id, r->machine, DB_ERROR, &cause, "%s",
		why) == -1) {
		log_warn("reload", "run %lld: %s", (long long)r->id, cause);
		free(cause);
		return 0;
	}
	return 1;
}

/* Fails the queued runs of job on machine name; returns how many. */
static int64_t
reload_fail_job(struct db *db, int64_t job, const char *name, const char *why)
{
	struct db_run *v;
	char	      *cause = NULL;
	size_t	       n, i;
	int64_t	       failed = 0;

	if (db_run_list(db, job, &v, &n, &cause) == -1) {
		log_warn("reload", "%s", cause);
		free(cause);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (v[i].state == DB_QUEUED && strcmp(v[i].machine, name) == 0)
			failed += reload_fail_run(db, &v[i], why);
	db_run_list_free(v, n);
	return failed;
}

/* Fails the queued runs on machine name of every running job. */
static int64_t
reload_fail_queued(struct db *db, const char *name, const char *why)
{
	struct db_job *v;
	char	      *cause = NULL;
	size_t	       n, i;
	int64_t	       failed = 0;

	if (db_job_list_active(db, &v, &n, &cause) == -1) {
		log_warn("reload", "%s", cause);
		free(cause);
		return 0;
	}
	for (i = 0; i < n; i++)
		if (v[i].state == DB_RUNNING)
			failed += reload_fail_job(db, v[i].id, name, why);
	db_job_list_free(v, n);
	return failed;
}

/* A machine gone from the inventory: its worker ends, its queue fails. */
static void
reload_removed(struct daemon *d, struct db *db, const struct machine *m)
{
	struct worker *w = worker_find(d, m->name);
	char	      *why;
	int64_t	       n;

	if (w != NULL)
		worker_retire(w);
	why =
	    xasprintf("machine \"%s\" was removed from the inventory", m->name);
	n = reload_fail_queued(db, m->name, why);
	log_info("reload",
	    "%s: its worker stops after its run; %lld queued run%s failed", why,
	    (long long)n, n == 1 ? "" : "s");
	free(why);
}

/* A machine whose file changed: its worker restarts with the new one. */
static void
reload_changed(struct daemon *d, struct db *db, const struct machine *m,
    const char *diff)
{
	struct worker *w = worker_find(d, m->name);
	char	      *cause = NULL;
	int64_t	       run = 0;

	if (reload_upsert(db, m, &cause) == -1) {
		log_warn("reload", "%s", cause);
		free(cause);
	}
	if (w != NULL) {
		pthread_mutex_lock(&d->lock);
		run = w->run;
		pthread_mutex_unlock(&d->lock);
		worker_retire(w);
	}
	worker_restart(d, m->name);
	if (run != 0)
		log_info("reload",
		    "machine \"%s\" changed (%s): its worker restarts after "
		    "run %lld",
		    m->name, diff, (long long)run);
	else
		log_info("reload",
		    "machine \"%s\" changed (%s): its worker restarts", m->name,
		    diff);
}

/* Compares one machine of the new inventory with the old; true if new. */
static bool
reload_machine(struct daemon *d, struct db *db, const struct machine *m)
{
	const struct machine *old = inventory_find(d->inventory, m->name);
	char		     *a, *b, *diff;

	if (old == NULL) {
		reload_added(d, db, m);
		return true;
	}
	a = reload_text(old);
	b = reload_text(m);
	if ((diff = reload_diff(a, b)) != NULL)
		reload_changed(d, db, m, diff);
	free(a);
	free(b);
	free(diff);
	return diff != NULL;
}

/* Applies inv, the inventory read again, and swaps it in. */
static void
reload_swap(struct daemon *d, struct db *db, struct inventory *inv)
{
	size_t i, changed = 0;

	for (i = 0; i < d->inventory->n; i++)
		if (inventory_find(inv, d->inventory->machines[i]->name) ==
		    NULL) {
			reload_removed(d, db, d->inventory->machines[i]);
			changed++;
		}
	for (i = 0; i < inv->n; i++)
		changed += reload_machine(d, db, inv->machines[i]);
	/* Workers keep their machine: freed once none uses it. */
	d->old = xreallocarray(d->old, d->nold + 1, sizeof *d->old);
	d->old[d->nold++] = d->inventory;
	d->inventory = inv;
	if (changed == 0)
		log_info("reload", "inventory \"%s\": unchanged, %zu machine%s",
		    d->machines_dir, inv->n, inv->n == 1 ? "" : "s");
}

/* Reads the inventory again and applies what changed. */
static void
reload_machines(struct daemon *d, struct db *db)
{
	struct inventory *inv;
	char		 *cause = NULL;

	if ((inv = inventory_load(d->machines_dir, &cause)) == NULL) {
		log_error("reload",
		    "inventory \"%s\" has errors; keeping the %zu machine%s "
		    "read before:",
		    d->machines_dir, d->inventory->n,
		    d->inventory->n == 1 ? "" : "s");
		reload_lines(cause);
		return;
	}
	reload_swap(d, db, inv);
}

/* Reads the catalog, which sweeps read as they queue, for its errors. */
static void
reload_catalog(struct daemon *d)
{
	struct catalog *cat;
	char	       *cause = NULL;

	if ((cat = catalog_load(d->catalog_dir, &cause)) != NULL) {
		catalog_free(cat);
		return;
	}
	log_error("reload",
	    "catalog \"%s\" has errors; sweeps fail to queue until it is "
	    "fixed:",
	    d->catalog_dir);
	reload_lines(cause);
}

/* Reads the inventory again and applies the changes (SIGHUP). */
void
reload_all(struct daemon *d, struct db *db)
{
	log_info("reload", "SIGHUP: reading the inventory \"%s\"",
	    d->machines_dir);
	reload_machines(d, db);
	reload_catalog(d);
	daemon_nudge(d);
}
