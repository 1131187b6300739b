/*
 * hilab machines: check and list the lab inventory, switch power, set
 * health by hand.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cli.h"
#include "db/db.h"
#include "machines/inventory.h"
#include "machines/power.h"

/* Loads the inventory from dir, printing every error; NULL on failure. */
static struct inventory *
machines_load(const char *dir)
{
	struct inventory *inv;
	char		 *cause = NULL;

	if ((inv = inventory_load(dir, &cause)) == NULL) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
	}
	return inv;
}

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
		fprintf(stderr, "%s\n", why);
		free(why);
		ok = false;
	}
	return ok;
}

/*
 * hilab machines check [DIR]: validates the files, and that each VM's
 * emulator can be run here, and prints them normalized.
 */
static int
machines_check(const struct cli_options *o, int argc, char **argv)
{
	const char	 *dir = argc > 2 ? argv[2] : o->machines_dir;
	struct inventory *inv;
	int		  rc = CLI_EXIT_OK;

	if (argc > 3)
		return cli_usage_error("usage: hilab machines check [DIR]");
	if ((inv = machines_load(dir)) == NULL)
		return CLI_EXIT_USAGE;
	if (!machines_emulators_ok(inv))
		rc = CLI_EXIT_USAGE;
	else
		inventory_print(stdout, inv);
	inventory_free(inv);
	return rc;
}

/* Returns the machine's kind as spelled in machine files. */
static const char *
machines_kind(const struct machine *m)
{
	return m->kind == MACHINE_SSH ? "ssh" : "libvirt";
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
	return json_pack("{s:s, s:s, s:s, s:i, s:s?, s:i, s:s?, s:s?}", "name",
	    m->name, "kind", machines_kind(m), "arch", m->arch, "cpus",
	    m->topo.cpus, "host", m->ssh.host, "port", m->ssh.port, "health",
	    dm ? db_health_name(dm->health) : NULL, "reason",
	    dm ? dm->health_reason : NULL);
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
	char addr[280];

	snprintf(addr, sizeof addr, "%s:%d", m->ssh.host ? m->ssh.host : "-",
	    m->ssh.port);
	printf("%-20s %-8s %-8s %5d  %-21s %-11s %s\n", m->name,
	    machines_kind(m), m->arch, m->topo.cpus, addr,
	    dm ? db_health_name(dm->health) : "-", machines_why(dm));
}

/* hilab machines list: one line (or JSON object) per machine. */
static int
machines_list(const struct cli_options *o)
{
	struct inventory	*inv;
	struct db_machine	*v;
	const struct db_machine *dm;
	json_t			*arr;
	size_t			 i, n;

	if ((inv = machines_load(o->machines_dir)) == NULL)
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
	json_decref(arr);
	db_machine_list_free(v, n);
	inventory_free(inv);
	return CLI_EXIT_OK;
}

/* Prints a power state or a switch done, as text or JSON. */
static void
machines_power_print(const struct cli_options *o, const struct machine *m,
    const char *what, const char *state)
{
	json_t *obj;

	if (!o->json) {
		printf("%s: %s\n", m->name, state);
		return;
	}
	obj = json_pack("{s:s, s:s, s:s}", "machine", m->name, "power", state,
	    "via", what);
	cli_print_json(obj);
	json_decref(obj);
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
static int
machines_power(const struct cli_options *o, int argc, char **argv)
{
	struct inventory     *inv;
	const struct machine *m;
	enum power_action     a;
	int		      rc;

	if (argc != 4 ||
	    (strcmp(argv[3], "status") != 0 &&
		power_action_parse(argv[3], &a) == -1))
		return cli_usage_error("usage: hilab machines power NAME "
				       "on|off|cycle|status");
	if ((inv = machines_load(o->machines_dir)) == NULL)
		return CLI_EXIT_USAGE;
	if ((m = inventory_find(inv, argv[2])) == NULL)
		rc = cli_usage_error("unknown machine \"%s\" in %s", argv[2],
		    o->machines_dir);
	else
		rc = machines_power_do(o, m, argv[3]);
	inventory_free(inv);
	return rc;
}

/* Parses machines set NAME HEALTH [--reason TEXT]; 0 or -1. */
static int
machines_set_args(int argc, char **argv, const char **name, const char **health,
    const char **reason)
{
	static const struct option longopts[] = {
		{ "reason", required_argument, NULL, 'r' }, { NULL, 0, NULL, 0 }
	};
	int c;

	optind = 0; /* reinitialize GNU getopt: --reason may follow NAME */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c != 'r')
			return -1;
		*reason = optarg;
	}
	if (argc - optind != 3)
		return -1;
	*name = argv[optind + 1];
	*health = argv[optind + 2];
	return 0;
}

/* Prints a machine's health as set, as text or JSON. */
static void
machines_health_print(const struct cli_options *o, const char *name,
    enum db_health h, const char *reason)
{
	json_t *obj;

	if (!o->json) {
		printf("%s: %s%s%s\n", name, db_health_name(h),
		    reason != NULL ? ": " : "", reason != NULL ? reason : "");
		return;
	}
	obj = json_pack("{s:s, s:s, s:s?}", "machine", name, "health",
	    db_health_name(h), "reason", reason);
	cli_print_json(obj);
	json_decref(obj);
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
static int
machines_set(const struct cli_options *o, int argc, char **argv)
{
	const char	     *name, *word, *reason = NULL;
	struct inventory     *inv;
	const struct machine *m;
	enum db_health	      h;
	int		      rc;

	if (machines_set_args(argc, argv, &name, &word, &reason) == -1)
		return cli_usage_error("usage: hilab machines set NAME "
				       "good|unknown|bad|maintenance "
				       "[--reason TEXT]");
	if (db_health_parse(word, &h) == -1)
		return cli_usage_error("unknown health \"%s\": good, unknown, "
				       "bad or maintenance",
		    word);
	if (reason == NULL && h != DB_HEALTH_GOOD)
		reason = "set by hand";
	if ((inv = machines_load(o->machines_dir)) == NULL)
		return CLI_EXIT_USAGE;
	if ((m = inventory_find(inv, name)) == NULL)
		rc = cli_usage_error("unknown machine \"%s\" in %s", name,
		    o->machines_dir);
	else
		rc = machines_set_do(o, m, h, reason);
	inventory_free(inv);
	return rc;
}

int
cmd_machines(const struct cli_options *o, int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return machines_check(o, argc, argv);
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return machines_list(o);
	if (argc >= 2 && strcmp(argv[1], "power") == 0)
		return machines_power(o, argc, argv);
	if (argc >= 2 && strcmp(argv[1], "set") == 0)
		return machines_set(o, argc, argv);
	return cli_usage_error(
	    "usage: hilab machines check [DIR] | machines list | "
	    "machines power NAME on|off|cycle|status | "
	    "machines set NAME good|unknown|bad|maintenance [--reason TEXT]");
}
