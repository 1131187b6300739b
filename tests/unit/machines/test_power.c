/*
 * The "power" section of machine files (parsed, defaulted, printed and read
 * back, every error at its file:line:col) and the command power driver
 * running real commands on a state file.
 */
#include <sys/wait.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "machines/inventory.h"
#include "machines/power.h"

static char tmpdir[] = "/tmp/hilab-power-test.XXXXXX";

/* Writes text to tmpdir/name and returns the path (caller frees). */
static char *
put(const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
	return path;
}

/* Reads tmpdir/name (caller frees). */
static char *
get(const char *name)
{
	char *path = xasprintf("%s/%s", tmpdir, name), *buf = xcalloc(1, 256);
	FILE *fp = fopen(path, "r");

	assert_non_null(fp);
	assert_true(fread(buf, 1, 255, fp) > 0);
	fclose(fp);
	free(path);
	return buf;
}

/* A machine file: an ssh machine named name with the given power lines. */
static char *
machine_yaml(const char *name, const char *power)
{
	return xasprintf("name: %s\nkind: ssh\nssh:\n  host: 10.0.0.2\n"
			 "  identity: key\n  known_hosts: kh\n%s",
	    name, power);
}

/* Loads a machine file written from power; the inventory or NULL. */
static struct inventory *
load(const char *power, char **cause)
{
	char		 *yaml = machine_yaml("board", power), *path;
	struct inventory *inv;

	path = put("board.yaml", yaml);
	*cause = NULL;
	inv = inventory_load_file(path, cause);
	free(yaml);
	free(path);
	return inv;
}

/* The inventory's printout (caller frees). */
static char *
print(const struct inventory *inv)
{
	char  *buf = NULL;
	size_t len = 0;
	FILE  *fp = open_memstream(&buf, &len);

	inventory_print(fp, inv);
	fclose(fp);
	return buf;
}

/* An ipmi section: required keys, defaults, paths from the file's dir. */
static void
test_ipmi_defaults(void **state)
{
	struct inventory	   *inv;
	const struct machine_power *pw;
	char *cause, *pwfile = xasprintf("%s/bmc.pw", tmpdir);

	(void)state;
	inv = load("power:\n  ipmi:\n    host: bmc1.lab\n    user: admin\n"
		   "    password_file: bmc.pw\n",
	    &cause);
	if (inv == NULL)
		fail_msg("%s", cause);
	pw = &inv->machines[0]->power;
	assert_int_equal(pw->kind, MACHINE_POWER_IPMI);
	assert_string_equal(pw->ipmi.host, "bmc1.lab");
	assert_int_equal(pw->ipmi.port, 623);
	assert_string_equal(pw->ipmi.user, "admin");
	assert_string_equal(pw->ipmi.password_file, pwfile);
	assert_string_equal(pw->ipmi.interface, "lanplus");
	assert_int_equal(pw->ipmi.cipher, 3);
	assert_int_equal(pw->boot_timeout_ms, 300000);
	inventory_free(inv);
	free(pwfile);
}

/* Every key given, and the printout reads back to the same machine. */
static void
test_roundtrip(void **state)
{
	static const char *cases[] = {
		"power:\n  boot_timeout: 90s\n  ipmi: {host: 10.1.1.9, port: "
		"6230, user: lab, password_file: /etc/bmc, interface: lan, "
		"cipher: 17}\n",
		"power:\n  command:\n    on: [./pdu, \"on\", 3]\n    off: "
		"[/usr/bin/pdu, \"off\", \"port 3\"]\n    cycle: [pdu, cycle, "
		"'3']\n    status: [pdu, 'yes', \"a \\\"b\\\"\"]\n",
	};
	struct inventory *inv, *again;
	char		 *cause, *printed, *path, *reprinted;
	size_t		  i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		if ((inv = load(cases[i], &cause)) == NULL)
			fail_msg("case %zu: %s", i, cause);
		printed = print(inv);
		path = put("again.yaml", printed);
		if ((again = inventory_load_file(path, &cause)) == NULL)
			fail_msg("case %zu: printout does not load: %s\n%s", i,
			    cause, printed);
		reprinted = print(again);
		assert_string_equal(reprinted, printed);
		free(reprinted);
		free(printed);
		free(path);
		inventory_free(again);
		inventory_free(inv);
	}
}

/* Command words: a relative program path is taken from the file's dir. */
static void
test_command(void **state)
{
	struct inventory		    *inv;
	const struct machine_power_commands *c;
	char *cause, *prog = xasprintf("%s/pdu.sh", tmpdir);

	(void)state;
	inv =
	    load("power:\n  boot_timeout: 500ms\n  command:\n"
		 "    on: [./pdu.sh, \"on\", 3]\n    off: [pdu, \"off\", 3]\n",
		&cause);
	if (inv == NULL)
		fail_msg("%s", cause);
	c = &inv->machines[0]->power.command;
	assert_int_equal(inv->machines[0]->power.kind, MACHINE_POWER_COMMAND);
	assert_int_equal(inv->machines[0]->power.boot_timeout_ms, 500);
	assert_string_equal(c->on[0], prog);
	assert_string_equal(c->on[1], "on");
	assert_string_equal(c->on[2], "3");
	assert_null(c->on[3]);
	assert_string_equal(c->off[0], "pdu");
	assert_null(c->cycle);
	assert_null(c->status);
	inventory_free(inv);
	free(prog);
}

/* Bad power sections: the exact errors, each at its line and column. */
static void
test_errors(void **state)
{
	static const struct {
		const char *power, *error;
	} cases[] = {
		{ "power:\n  boot_timeout: 1s\n",
		    "board.yaml:8:3: missing \"ipmi\" or \"command\" in "
		    "\"power\"" },
		{ "power:\n  ipmi: {host: a, user: b, password_file: c}\n"
		  "  command: {on: [x], off: [y]}\n",
		    "board.yaml:9:12: \"power\" takes \"ipmi\" or \"command\", "
		    "not both" },
		{ "power:\n  ipmi: {host: a, password_file: c}\n",
		    "board.yaml:8:9: missing required key \"user\" in \"ipmi\"" },
		{ "power:\n  ipmi: {host: a, user: b, password_file: c, "
		  "interface: serial}\n",
		    "board.yaml:8:57: \"interface\" must be lan or lanplus, not "
		    "\"serial\"" },
		{ "power:\n  ipmi: {host: a, user: b, password_file: c, "
		  "cipher: 0}\n",
		    "board.yaml:8:54: \"cipher\" must be a number from 1 to 17, "
		    "not \"0\"" },
		{ "power:\n  command: {on: [x], off: []}\n",
		    "board.yaml:8:27: \"off\" must be a command such as [pdu, off, "
		    "\"3\"], not an empty sequence" },
		{ "power:\n  command: {on: pdu on, off: [y]}\n",
		    "board.yaml:8:17: \"on\" must be a command such as [pdu, off, "
		    "\"3\"], not \"pdu on\"" },
		{ "power:\n  command: {on: [pdu, [on]], off: [y]}\n",
		    "board.yaml:8:23: \"on\" entries must be non-empty strings, "
		    "not a sequence" },
		{ "power:\n  command: {on: [x], off: [y], reset: [z]}\n",
		    "board.yaml:8:32: unknown key \"reset\"" },
		{ "power:\n  command: {off: [y]}\n",
		    "board.yaml:8:12: missing required key \"on\" in \"command\"" },
		{ "power:\n  boot_timeout: 10 s\n  command: {on: [x], off: "
		  "[y]}\n",
		    "board.yaml:8:17: \"boot_timeout\" must be a duration from 1ms "
		    "to 24h such as \"10s\" or \"500ms\", not \"10 s\"" },
	};
	struct inventory *inv;
	char		 *cause, *want;
	size_t		  i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		inv = load(cases[i].power, &cause);
		if (inv != NULL)
			fail_msg("case %zu loaded", i);
		want = xasprintf("%s/%s", tmpdir, cases[i].error);
		if (strcmp(cause, want) != 0)
			fail_msg("case %zu:\nwant %s\ngot  %s", i, want, cause);
		free(want);
		free(cause);
	}
}

/* A libvirt machine cannot have a power section. */
static void
test_libvirt_power(void **state)
{
	char *path, *cause = NULL, *want;

	(void)state;
	path = put("vm.yaml",
	    "name: vm\nkind: libvirt\nssh: {host: h, "
	    "identity: k, known_hosts: kh}\nlibvirt: {vcpus: 2, memory: 1G}\n"
	    "power: {command: {on: [a], off: [b]}}\n");
	assert_null(inventory_load_file(path, &cause));
	want = xasprintf("%s/vm.yaml:5:1: \"power\" is only allowed with kind "
			 "ssh (libvirt powers its VMs)",
	    tmpdir);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	free(path);
}

/* Loads a machine whose commands copy ON/OFF over STATE and cat it. */
static struct inventory *
load_pdu(const char *extra)
{
	char		 *power, *cause;
	struct inventory *inv;

	free(put("ON", "on\n"));
	free(put("OFF", "off\n"));
	free(put("STATE", "off\n"));
	power = xasprintf("power:\n  command:\n    on: [cp, %s/ON, %s/STATE]\n"
			  "    off: [cp, %s/OFF, %s/STATE]\n%s",
	    tmpdir, tmpdir, tmpdir, tmpdir, extra);
	if ((inv = load(power, &cause)) == NULL)
		fail_msg("%s", cause);
	free(power);
	return inv;
}

/* The command driver: on, off, status and a cycle made of off and on. */
static void
test_command_driver(void **state)
{
	struct inventory *inv = load_pdu("    status: [cat, STATE]\n");
	struct power	 *p;
	char		 *cause = NULL, *s;
	bool		  on = true;
	time_t		  t0;

	(void)state;
	/* cat's STATE is relative: the driver runs in the cwd. */
	assert_int_equal(chdir(tmpdir), 0);
	assert_non_null(p = power_open(inv->machines[0], &cause));
	assert_string_equal(power_what(p), "power command");
	assert_int_equal(power_status(p, &on, &cause), 0);
	assert_false(on);
	assert_int_equal(power_set(p, POWER_ON, &cause), 0);
	assert_int_equal(power_status(p, &on, &cause), 0);
	assert_true(on);
	t0 = time(NULL);
	assert_int_equal(power_set(p, POWER_CYCLE, &cause), 0);
	assert_true(time(NULL) - t0 >= 1); /* off, a pause, on */
	s = get("STATE");
	assert_string_equal(s, "on\n");
	free(s);
	assert_int_equal(power_set(p, POWER_OFF, &cause), 0);
	s = get("STATE");
	assert_string_equal(s, "off\n");
	free(s);
	power_close(p);
	inventory_free(inv);
}

/* Failures name the machine, the driver, the program and what it said. */
static void
test_command_errors(void **state)
{
	struct inventory *inv;
	struct power	 *p;
	char		 *cause = NULL;
	bool		  on;

	(void)state;
	inv = load_pdu("    cycle: [ls, /nonexistent-pdu-port]\n"
		       "    status: [echo, maybe]\n");
	assert_non_null(p = power_open(inv->machines[0], &cause));
	assert_int_equal(power_status(p, &on, &cause), -1);
	assert_string_equal(cause,
	    "machine \"board\": power command: echo "
	    "printed \"maybe\", not on or off");
	free(cause);
	assert_int_equal(power_set(p, POWER_CYCLE, &cause), -1);
	assert_string_equal(cause,
	    "machine \"board\": power command: echo "
	    "printed \"maybe\", not on or off");
	free(cause);
	power_close(p);
	inventory_free(inv);
	inv = load_pdu("    cycle: [ls, /nonexistent-pdu-port]\n");
	assert_non_null(p = power_open(inv->machines[0], &cause));
	assert_int_equal(power_status(p, &on, &cause), -1);
	assert_non_null(strstr(cause, "no \"status\" command in"));
	free(cause);
	assert_int_equal(power_set(p, POWER_CYCLE, &cause), -1);
	assert_non_null(strstr(cause,
	    "machine \"board\": power command: ls: "
	    "ls: cannot access '/nonexistent-pdu-port'"));
	assert_non_null(strstr(cause, "(exit 2)"));
	free(cause);
	power_close(p);
	inventory_free(inv);
}

/* A program that is not there, and an ipmi machine without its password. */
static void
test_open_errors(void **state)
{
	struct inventory *inv;
	struct power	 *p;
	char		 *cause = NULL, *want;

	(void)state;
	inv = load("power: {command: {on: [/nonexistent/pdu, on], off: [y]}}\n",
	    &cause);
	assert_non_null(inv);
	assert_non_null(p = power_open(inv->machines[0], &cause));
	assert_int_equal(power_set(p, POWER_ON, &cause), -1);
	assert_string_equal(cause,
	    "machine \"board\": power command: "
	    "/nonexistent/pdu: cannot execute (exit 127)");
	free(cause);
	power_close(p);
	inventory_free(inv);
	inv = load("power: {ipmi: {host: 10.9.9.9, user: u, password_file: "
		   "nope.pw}}\n",
	    &cause);
	assert_null(power_open(inv->machines[0], &cause));
	want = xasprintf("machine \"board\": BMC 10.9.9.9:623: password file "
			 "\"%s/nope.pw\": No such file or directory",
	    tmpdir);
	assert_string_equal(cause, want);
	free(want);
	free(cause);
	inventory_free(inv);
	inv = load("", &cause);
	assert_null(power_open(inv->machines[0], &cause));
	assert_non_null(strstr(cause, "machine \"board\": no power control"));
	free(cause);
	inventory_free(inv);
}

/* Removes the temp dir's files and the dir. */
static int
teardown(void **state)
{
	char *cmd[] = { "rm", "-rf", tmpdir, NULL };
	int   status;
	pid_t pid;

	(void)state;
	if ((pid = fork()) == 0) {
		execvp(cmd[0], cmd);
		_exit(127);
	}
	if (pid == -1 || waitpid(pid, &status, 0) == -1)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ipmi_defaults),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_command),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_libvirt_power),
		cmocka_unit_test(test_command_driver),
		cmocka_unit_test(test_command_errors),
		cmocka_unit_test(test_open_errors),
	};

	if (mkdtemp(tmpdir) == NULL) {
		fprintf(stderr, "mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, teardown);
}
