/*
 * hilab machines: check and list the lab inventory, switch power, set
 * health by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "common/suggest.h"
#include "db/db.h"
#include "machines/inventory.h"
#include "machines/power.h"

/* Prints why each VM's emulator cannot be run here; false if one cannot. */
static bool
machines_emulators_ok(const struct inventory *inv)
{
	char  *why;
	size_t i;
	bool   ok = true;

	for (i = 0; i < inv->n; i++) {
		if ((why = inventory_emulator_check(inv->machines[i])) == NULL)
			continue;
		cli_cause(CLI_EXIT_USAGE, why);
		ok = false;
	}
	return ok;
}

/* Returns the machine's kind as spelled in machine files. */
static const char *
machines_kind(const struct machine *m)
{
	return m->kind == MACHINE_SSH ? "ssh" : "libvirt";
}

/* A machine as JSON: what machines list prints of it, but its health. */
static json_t *
machines_json(const struct machine *m)
{
	return json_pack("{s:s, s:s, s:s, s:o, s:s?, s:i}", "name", m->name,
	    "kind", machines_kind(m), "arch", m->arch, "cpus",
	    m->topo.cpus > 0 ? json_integer(m->topo.cpus) : json_null(), "host",
	    m->ssh.host, "port", m->ssh.port);
}

/* What machines check --json prints: the machines of a valid inventory. */
static json_t *
machines_check_json(const char *dir, const struct inventory *inv)
{
	json_t *arr = json_array();
	size_t	i;

	for (i = 0; i < inv->n; i++)
		json_array_append_new(arr, machines_json(inv->machines[i]));
	return json_pack("{s:s, s:o, s:b}", "dir", dir, "machines", arr,
	    "valid", 1);
}

/*
 * hilab machines check [DIR]: validates the files, and that each VM's
 * emulator can be run here, and prints them normalized.
 */
int
cmd_machines_check(const struct cli_options *o, const struct args *a)
{
	const char	 *dir = a->npos > 0 ? a->pos[0].text : o->machines_dir;
	struct inventory *inv;
	int		  rc = CLI_EXIT_OK;

	if ((inv = cli_inventory(dir)) == NULL)
		return CLI_EXIT_USAGE;
	if (!machines_emulators_ok(inv))
		rc = CLI_EXIT_USAGE;
	else if (o->json)
		cli_print_json(machines_check_json(dir, inv));
	else
		inventory_print(stdout, inv);
	inventory_free(inv);
	return rc;
}

/*
 * Reads the machines' health from the database if there is one: a lab
 * where hilabd never ran has none, and its inventory lists all the same.
 */
static void
machines_health_load(const struct cli_options *o, struct db_machine **v,
    size_t *n)
{
	struct db *db;
	char	  *cause = NULL;

	*v = NULL;
	*n = 0;
	if (access(o->db_path, F_OK) == -1 ||
	    (db = cli_db_open(o, false)) == NULL)
		return;
	if (db_machine_list(db, v, n, &cause) == -1) {
		fprintf(stderr, "hilab: %s\n", cause);
		free(cause);
	}
	db_close(db);
}

/* A machine as JSON; health and reason are null when the db has no row. */
static json_t *
machines_row_json(const struct machine *m, const struct db_machine *dm)
{
	json_t *obj = machines_json(m);

	json_object_set_new(obj, "health",
	    dm ? json_string(db_health_name(dm->health)) : json_null());
	json_object_set_new(obj, "reason",
	    dm && dm->health_reason ? json_string(dm->health_reason)
				    : json_null());
	return obj;
}

/* The why of a machine's line: its reason, "" if none, "-" without a row. */
static const char *
machines_why(const struct db_machine *dm)
{
	if (dm == NULL)
		return "-";
	return dm->health_reason != NULL ? dm->health_reason : "";
}

/* Prints a machine's line; health and why are "-" when the db has no row. */
static void
machines_row_print(const struct machine *m, const struct db_machine *dm)
{
	char addr[280], cpus[16] = "-";

	snprintf(addr, sizeof addr, "%s:%d", m->ssh.host ? m->ssh.host : "-",
	    m->ssh.port);
	if (m->topo.cpus > 0)
		snprintf(cpus, sizeof cpus, "%d", m->topo.cpus);
	printf("%-20s %-8s %-8s %5s  %-21s %-11s %s\n", m->name,
	    machines_kind(m), m->arch, cpus, addr,
	    dm ? db_health_name(dm->health) : "-", machines_why(dm));
}

/* hilab machines list: one line (or JSON object) per machine. */
int
cmd_machines_list(const struct cli_options *o, const struct args *a)
{
	struct inventory	*inv;
	struct db_machine	*v;
	const struct db_machine *dm;
	json_t			*arr;
	size_t			 i, n;

	(void)a;
	if ((inv = cli_inventory(o->machines_dir)) == NULL)
		return CLI_EXIT_USAGE;
	machines_health_load(o, &v, &n);
	arr = json_array();
	if (!o->json)
		printf("%-20s %-8s %-8s %5s  %-21s %-11s %s\n", "NAME", "KIND",
		    "ARCH", "CPUS", "ADDRESS", "HEALTH", "WHY");
	for (i = 0; i < inv->n; i++) {
		dm = db_machine_find(v, n, inv->machines[i]->name);
		if (o->json)
			json_array_append_new(arr,
			    machines_row_json(inv->machines[i], dm));
		else
			machines_row_print(inv->machines[i], dm);
	}
	if (o->json)
		cli_print_json(arr);
	else
		json_decref(arr);
	db_machine_list_free(v, n);
	inventory_free(inv);
	return CLI_EXIT_OK;
}

/*
 * Finds machine name in inv, or says it is not there, with the closest
 * name the inventory has, and returns NULL.
 */
static const struct machine *
machines_find(const struct inventory *inv, const char *name)
{
	const struct machine *m;
	struct suggest	      s;
	char		     *hint;
	size_t		      i;

	if ((m = inventory_find(inv, name)) != NULL)
		return m;
	suggest_init(&s, name);
	for (i = 0; i < inv->n; i++)
		suggest_add(&s, inv->machines[i]->name);
	hint = suggest_hint(&s);
	cli_error(CLI_EXIT_USAGE, "machine \"%s\": no such machine%s", name,
	    hint);
	free(hint);
	return NULL;
}

/* Prints a power state or a switch done, as text or JSON. */
static void
machines_power_print(const struct cli_options *o, const struct machine *m,
    const char *what, const char *state)
{
	if (!o->json) {
		printf("%s: %s\n", m->name, state);
		return;
	}
	cli_print_json(json_pack("{s:s, s:s, s:s}", "machine", m->name, "power",
	    state, "via", what));
}

/* Switches the power or reads it through the machine's driver. */
static int
machines_power_do(const struct cli_options *o, const struct machine *m,
    const char *verb)
{
	enum power_action a;
	struct power	 *p;
	char		 *cause = NULL;
	bool		  on;
	int		  rc = CLI_EXIT_FAIL;

	if ((p = power_open(m, &cause)) == NULL)
		goto out;
	if (strcmp(verb, "status") == 0) {
		if (power_status(p, &on, &cause) == 0) {
			machines_power_print(o, m, power_what(p),
			    on ? "on" : "off");
			rc = CLI_EXIT_OK;
		}
	} else if (power_action_parse(verb, &a) == 0 &&
	    power_set(p, a, &cause) == 0) {
		machines_power_print(o, m, power_what(p),
		    a == POWER_CYCLE ? "cycled" : verb);
		rc = CLI_EXIT_OK;
	}
out:
	if (cause != NULL)
		fprintf(stderr, "hilab: %s\n", cause);
	free(cause);
	power_close(p);
	return rc;
}

/* hilab machines power NAME on|off|cycle|status. */
int
cmd_machines_power(const struct cli_options *o, const struct args *a)
{
	struct inventory     *inv;
	const struct machine *m;
	int		      rc;

	if ((inv = cli_inventory(o->machines_dir)) == NULL)
		return CLI_EXIT_USAGE;
	if ((m = machines_find(inv, a->pos[0].text)) == NULL)
		rc = CLI_EXIT_USAGE;
	else
		rc = machines_power_do(o, m, a->pos[1].text);
	inventory_free(inv);
	return rc;
}

/* Prints a machine's health as set, as text or JSON. */
static void
machines_health_print(const struct cli_options *o, const char *name,
    enum db_health h, const char *reason)
{
	if (!o->json) {
		printf("%s: %s%s%s\n", name, db_health_name(h),
		    reason != NULL ? ": " : "", reason != NULL ? reason : "");
		return;
	}
	cli_print_json(json_pack("{s:s, s:s, s:s?}", "machine", name, "health",
	    db_health_name(h), "reason", reason));
}

/* Records a machine's health and tells hilabd to look at its queue again. */
static int
machines_set_do(const struct cli_options *o, const struct machine *m,
    enum db_health h, const char *reason)
{
	struct db *db;
	char	  *cause = NULL;
	int	   rc = CLI_EXIT_OK;

	if ((db = cli_db_open(o, true)) == NULL)
		return CLI_EXIT_UNAVAILABLE;
	if (db_machine_upsert(db, m->name, machines_kind(m), m->arch, &cause) ==
		-1 ||
	    db_machine_set_health(db, m->name, h, reason, &cause) == -1)
		rc = cli_error(CLI_EXIT_FAIL, "%s", cause);
	else {
		machines_health_print(o, m->name, h, reason);
		cli_nudge(o);
	}
	free(cause);
	db_close(db);
	return rc;
}

/*
 * hilab machines set NAME HEALTH [--reason TEXT]: health by hand; hilabd
 * gives bad and maintenance machines no runs.
 */
int
cmd_machines_set(const struct cli_options *o, const struct args *a)
{
	const char	     *reason;
	struct inventory     *inv;
	const struct machine *m;
	enum db_health	      h;
	int		      rc;

	if (db_health_parse(a->pos[1].text, &h) == -1)
		return cli_error(CLI_EXIT_USAGE,
		    "unknown health \"%s\": good, unknown, bad or maintenance",
		    a->pos[1].text);
	reason =
	    args_text(a, "reason", h == DB_HEALTH_GOOD ? NULL : "set by hand");
	if ((inv = cli_inventory(o->machines_dir)) == NULL)
		return CLI_EXIT_USAGE;
	if ((m = machines_find(inv, a->pos[0].text)) == NULL)
		rc = CLI_EXIT_USAGE;
	else
		rc = machines_set_do(o, m, h, reason);
	inventory_free(inv);
	return rc;
}
