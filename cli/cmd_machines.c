/* hilab machines: check and list the lab inventory, switch power. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
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

/* hilab machines list: one line (or JSON object) per machine. */
static int
machines_list(const struct cli_options *o)
{
	struct inventory     *inv;
	const struct machine *m;
	json_t		     *arr;
	size_t		      i;

	if ((inv = machines_load(o->machines_dir)) == NULL)
		return CLI_EXIT_USAGE;
	arr = json_array();
	if (!o->json)
		printf("%-20s %-8s %-8s %5s  %s\n", "NAME", "KIND", "ARCH",
		    "CPUS", "ADDRESS");
	for (i = 0; i < inv->n; i++) {
		m = inv->machines[i];
		json_array_append_new(arr,
		    json_pack("{s:s, s:s, s:s, s:i, "
			      "s:s?, s:i}",
			"name", m->name, "kind", machines_kind(m), "arch",
			m->arch, "cpus", m->topo.cpus, "host", m->ssh.host,
			"port", m->ssh.port));
		if (!o->json)
			printf("%-20s %-8s %-8s %5d  %s:%d\n", m->name,
			    machines_kind(m), m->arch, m->topo.cpus,
			    m->ssh.host ? m->ssh.host : "-", m->ssh.port);
	}
	if (o->json)
		cli_print_json(arr);
	json_decref(arr);
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

int
cmd_machines(const struct cli_options *o, int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "check") == 0)
		return machines_check(o, argc, argv);
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return machines_list(o);
	if (argc >= 2 && strcmp(argv[1], "power") == 0)
		return machines_power(o, argc, argv);
	return cli_usage_error(
	    "usage: hilab machines check [DIR] | "
	    "machines list | machines power NAME on|off|cycle|status");
}
