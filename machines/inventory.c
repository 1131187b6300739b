/*
 * The lab inventory: machine files in YAML, read against key tables by the
 * configuration engine (common/conf.h), which collects every error with its
 * position and hands them back at once, sorted.  This file holds the value
 * parsers of machine files, their key tables, loading, find and free; the
 * checks across keys are in inventory_check.c, the printer in
 * inventory_print.c.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/cpulist.h"
#include "common/xmalloc.h"
#include "machines/inventory.h"
#include "machines/inventory_int.h"

#define INV_MIN_KIB 1024L		       /* 1M */
#define INV_MAX_KIB (16L * 1024 * 1024 * 1024) /* 16T */

#define INV_SIZE    "a size from 1M to 16T such as \"4G\" or \"512M\""
#define INV_CPULIST "a cpu list such as \"0-3,8\""
#define INV_LLC	    "cpu lists split by \";\" such as \"0-3;4-7\""

static const char *const inv_kinds[] = { "ssh", "libvirt", NULL };
static const char *const inv_arches[] = { "x86_64", "aarch64", NULL };
static const char *const inv_ipmi_ifs[] = { "lan", "lanplus", NULL };
static const char *const inv_build_on[] = { "host", "controller", NULL };

/* A string with no blanks or control characters (host, user). */
static void
inv_parse_word(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = conf_scalar(f, k, v, "a word without blanks"), *c;

	if (s == NULL)
		return;
	for (c = s; *c != '\0'; c++)
		if (isspace((unsigned char)*c) || iscntrl((unsigned char)*c))
			break;
	if (*s == '\0' || *c != '\0')
		conf_expect(f, k, v, "a word without blanks");
	else
		conf_set_str(dst, s);
}

/* kind: ssh | libvirt, into an enum machine_kind. */
static void
inv_parse_kind(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	int i = -1;

	conf_parse_enum(f, k, v, &i);
	if (i != -1)
		*(enum machine_kind *)dst =
		    (enum machine_kind)(MACHINE_SSH + i);
}

/* A path on the remote host: it must be absolute. */
void
inv_parse_abspath(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = conf_scalar(f, k, v, "an absolute path");
	char	  **p = dst;

	if (s == NULL)
		return;
	if (s[0] != '/') {
		conf_expect(f, k, v, "an absolute path");
		return;
	}
	free(*p);
	*p = conf_path_resolve("/", s);
}

/* A libvirt connection URI. */
static void
inv_parse_uri(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	static const char expect[] = "a libvirt uri such as "
				     "\"qemu:///system\"";
	const char	 *s = conf_scalar(f, k, v, expect);

	if (s == NULL)
		return;
	if (strstr(s, "://") == NULL || s[0] == ':' || strchr(s, ' ') != NULL)
		conf_expect(f, k, v, expect);
	else
		conf_set_str(dst, s);
}

/* Appends cpu list l, formatted, to the ';'-separated *normalized. */
static void
inv_cpugroups_append(char **normalized, const struct cpulist *l)
{
	char *fmt = cpulist_format(l), *next;

	next = xasprintf("%s%s%s", *normalized, **normalized ? ";" : "", fmt);
	free(fmt);
	free(*normalized);
	*normalized = next;
}

/* Parses a ';'-separated list of cpu lists; see inventory_int.h. */
bool
inv_cpugroups_parse(const char *s, struct cpulist *all, char **normalized,
    long *dup)
{
	char	      *copy = xstrdup(s), *rest = copy, *g;
	struct cpulist l;
	long	       twice = -1;
	bool	       ok = true;

	memset(all, 0, sizeof(*all));
	if (normalized != NULL)
		*normalized = xstrdup("");
	while (twice == -1 && (g = strsep(&rest, ";")) != NULL) {
		if (cpulist_parse(g, &l) == -1 || cpulist_count(&l) == 0) {
			ok = false;
			break;
		}
		cpulist_merge(all, &l);
		if (normalized != NULL)
			inv_cpugroups_append(normalized, &l);
		twice = cpulist_twice(&l);
		cpulist_free(&l);
	}
	if (dup != NULL)
		*dup = twice != -1 ? twice : cpulist_twice(all);
	free(copy);
	return ok;
}

/* A cpu list, or with groups a ';'-separated list of them; normalized. */
static void
inv_parse_cpugroups(struct conf_file *f, const struct conf_key *k,
    yaml_node_t *v, void *dst, bool groups)
{
	const char    *expect = groups ? INV_LLC : INV_CPULIST;
	const char    *s = conf_scalar(f, k, v, expect);
	struct cpulist all = { NULL, 0 };
	char	      *norm = NULL;
	long	       dup = -1;

	if (s == NULL)
		return;
	if ((!groups && strchr(s, ';') != NULL) ||
	    !inv_cpugroups_parse(s, &all, &norm, &dup))
		conf_expect(f, k, v, expect);
	else if (dup != -1)
		conf_error(f, v, "\"%s\" lists cpu %ld more than once", k->name,
		    dup);
	else {
		free(*(char **)dst);
		*(char **)dst = norm;
		norm = NULL;
	}
	free(norm);
	cpulist_free(&all);
}

/* A numa cell's cpu list. */
static void
inv_parse_cpus(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	inv_parse_cpugroups(f, k, v, dst, false);
}

/* The LLC groups of a topology. */
static void
inv_parse_llc(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	inv_parse_cpugroups(f, k, v, dst, true);
}

/* A command run without a shell; see inventory_int.h. */
void
inv_parse_argv(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	char ***argv = dst, *prog;

	conf_parse_strv(f, k, v, dst);
	if (*argv == NULL || strchr((*argv)[0], '/') == NULL ||
	    (*argv)[0][0] == '/')
		return;
	prog = conf_path_resolve(f->dir, (*argv)[0]);
	free((*argv)[0]);
	(*argv)[0] = prog;
}

#define TOPO(f) offsetof(struct machine_topology, f)
#define SSH(f)	offsetof(struct machine_ssh, f)
#define LV(f)	offsetof(struct machine_libvirt, f)
#define CELL(f) offsetof(struct machine_numa_cell, f)
#define MACH(f) offsetof(struct machine, f)
#define IPMI(f) offsetof(struct machine_ipmi, f)
#define PCMD(f) offsetof(struct machine_power_commands, f)
#define POWR(f) offsetof(struct machine_power, f)

/* An int key in [lo, hi]. */
#define INV_INT(n, o, lo, hi)                                                  \
	{                                                                      \
		.name = (n), .parse = conf_parse_int, .off = (o), .min = (lo), \
		.max = (hi)                                                    \
	}

static const struct conf_key inv_cell_keys[] = {
	{ .name = "cpus",
	    .parse = inv_parse_cpus,
	    .off = CELL(cpus),
	    .flags = CONF_REQUIRED },
	{ .name = "memory",
	    .parse = conf_parse_size,
	    .off = CELL(memory_kib),
	    .flags = CONF_REQUIRED,
	    .min = INV_MIN_KIB,
	    .max = INV_MAX_KIB,
	    .expect = INV_SIZE },
	{ .name = NULL },
};

/* The guest NUMA cells: a sequence of {cpus, memory}. */
static void
inv_parse_cells(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	struct machine_libvirt	 *lv = dst;
	struct machine_numa_cell *c;
	yaml_node_t		 *item;
	size_t			  i;
	char			 *d;

	if (v->type != YAML_SEQUENCE_NODE) {
		conf_expect(f, k, v, "a sequence of mappings");
		return;
	}
	for (i = 0; i < conf_seq_len(v); i++) {
		item = conf_seq_item(f, v, i);
		if (item->type != YAML_MAPPING_NODE) {
			d = conf_desc(item);
			conf_error(f, item,
			    "a \"%s\" entry must be a mapping, not %s", k->name,
			    d);
			free(d);
			continue;
		}
		lv->cells = xreallocarray(lv->cells, lv->ncells + 1,
		    sizeof(*lv->cells));
		c = &lv->cells[lv->ncells++];
		memset(c, 0, sizeof(*c));
		conf_mapping(f, item, inv_cell_keys, c, k->name);
	}
}

static const struct conf_key inv_topology_keys[] = {
	INV_INT("cpus", TOPO(cpus), 1, INV_MAX_CPUS),
	INV_INT("sockets", TOPO(sockets), 1, 1024),
	INV_INT("dies", TOPO(dies), 1, 1024),
	INV_INT("clusters", TOPO(clusters), 1, INV_MAX_CPUS),
	INV_INT("cores", TOPO(cores), 1, INV_MAX_CPUS),
	INV_INT("threads", TOPO(threads), 1, 64),
	INV_INT("numa_nodes", TOPO(numa_nodes), 1, 4096),
	{ .name = "llc_groups",
	    .parse = inv_parse_llc,
	    .off = TOPO(llc_groups) },
	{ .name = NULL },
};

static const struct conf_key inv_ssh_keys[] = {
	{ .name = "host",
	    .parse = inv_parse_word,
	    .off = SSH(host),
	    .flags = CONF_REQUIRED },
	INV_INT("port", SSH(port), 1, 65535),
	{ .name = "user", .parse = inv_parse_word, .off = SSH(user) },
	{ .name = "identity",
	    .parse = conf_parse_path,
	    .off = SSH(identity),
	    .flags = CONF_REQUIRED },
	{ .name = "known_hosts",
	    .parse = conf_parse_path,
	    .off = SSH(known_hosts),
	    .flags = CONF_REQUIRED },
	{ .name = "trust_on_first_use",
	    .parse = conf_parse_bool,
	    .off = SSH(trust_on_first_use) },
	INV_DUR("connect_timeout", SSH(connect_timeout_ms)),
	INV_DUR("command_timeout", SSH(command_timeout_ms)),
	INV_DUR("keepalive", SSH(keepalive_ms)),
	INV_DUR("reconnect_for", SSH(reconnect_ms)),
	{ .name = "agent_dir",
	    .parse = inv_parse_abspath,
	    .off = SSH(agent_dir) },
	{ .name = NULL },
};

/* numa_cells fills cells and ncells, so its parser gets the whole section. */
static const struct conf_key inv_libvirt_keys[] = {
	{ .name = "uri", .parse = inv_parse_uri, .off = LV(uri) },
	INV_INT("vcpus", LV(vcpus), 1, 4096),
	{ .name = "memory",
	    .parse = conf_parse_size,
	    .off = LV(memory_kib),
	    .flags = CONF_REQUIRED,
	    .min = INV_MIN_KIB,
	    .max = INV_MAX_KIB,
	    .expect = INV_SIZE },
	{ .name = "cpu_model", .parse = conf_parse_str, .off = LV(cpu_model) },
	{ .name = "numa_cells", .parse = inv_parse_cells, .off = 0 },
	{ .name = "cmdline",
	    .parse = conf_parse_str,
	    .off = LV(cmdline),
	    .flags = CONF_EMPTY_OK },
	{ .name = "disk", .parse = conf_parse_path, .off = LV(disk) },
	{ .name = "console_dir",
	    .parse = conf_parse_path,
	    .off = LV(console_dir) },
	{ .name = "kernel", .parse = conf_parse_path, .off = LV(kernel) },
	{ .name = "initrd", .parse = conf_parse_path, .off = LV(initrd) },
	INV_DUR("boot_timeout", LV(boot_timeout_ms)),
	{ .name = "emulator", .parse = inv_parse_abspath, .off = LV(emulator) },
	INV_INT("boot_tries", LV(boot_tries), 1, 20),
	{ .name = NULL },
};

static const struct conf_key inv_ipmi_keys[] = {
	{ .name = "host",
	    .parse = inv_parse_word,
	    .off = IPMI(host),
	    .flags = CONF_REQUIRED },
	INV_INT("port", IPMI(port), 1, 65535),
	{ .name = "user",
	    .parse = inv_parse_word,
	    .off = IPMI(user),
	    .flags = CONF_REQUIRED },
	{ .name = "password_file",
	    .parse = conf_parse_path,
	    .off = IPMI(password_file),
	    .flags = CONF_REQUIRED },
	{ .name = "interface",
	    .parse = conf_parse_choice,
	    .off = IPMI(interface),
	    .choices = inv_ipmi_ifs },
	INV_INT("cipher", IPMI(cipher), 1, 17),
	{ .name = NULL },
};

static const struct conf_key inv_power_command_keys[] = {
	{ .name = "on",
	    .parse = inv_parse_argv,
	    .off = PCMD(on),
	    .flags = CONF_REQUIRED,
	    .expect = INV_ARGV },
	{ .name = "off",
	    .parse = inv_parse_argv,
	    .off = PCMD(off),
	    .flags = CONF_REQUIRED,
	    .expect = INV_ARGV },
	{ .name = "cycle",
	    .parse = inv_parse_argv,
	    .off = PCMD(cycle),
	    .expect = INV_ARGV },
	{ .name = "status",
	    .parse = inv_parse_argv,
	    .off = PCMD(status),
	    .expect = INV_ARGV },
	{ .name = NULL },
};

static const struct conf_key inv_power_keys[] = {
	{ .name = "ipmi",
	    .parse = conf_parse_section,
	    .off = POWR(ipmi),
	    .sub = inv_ipmi_keys },
	{ .name = "command",
	    .parse = conf_parse_section,
	    .off = POWR(command),
	    .sub = inv_power_command_keys },
	INV_DUR("boot_timeout", POWR(boot_timeout_ms)),
	{ .name = NULL },
};

static const struct conf_key inv_machine_keys[] = {
	{ .name = "name",
	    .parse = conf_parse_name,
	    .off = MACH(name),
	    .flags = CONF_REQUIRED },
	{ .name = "kind",
	    .parse = inv_parse_kind,
	    .off = MACH(kind),
	    .flags = CONF_REQUIRED,
	    .choices = inv_kinds },
	{ .name = "arch",
	    .parse = conf_parse_choice,
	    .off = MACH(arch),
	    .choices = inv_arches },
	{ .name = "cpu_model",
	    .parse = conf_parse_str,
	    .off = MACH(cpu_model) },
	{ .name = "notes",
	    .parse = conf_parse_str,
	    .off = MACH(notes),
	    .flags = CONF_EMPTY_OK },
	{ .name = "mirror", .parse = conf_parse_path, .off = MACH(mirror) },
	{ .name = "build_on",
	    .parse = conf_parse_enum,
	    .off = MACH(build_on),
	    .choices = inv_build_on },
	{ .name = "health_check",
	    .parse = conf_parse_strv,
	    .off = MACH(health_check),
	    .expect = INV_ARGV },
	{ .name = "topology",
	    .parse = conf_parse_section,
	    .off = MACH(topo),
	    .sub = inv_topology_keys },
	{ .name = "ssh",
	    .parse = conf_parse_section,
	    .off = MACH(ssh),
	    .flags = CONF_REQUIRED,
	    .sub = inv_ssh_keys },
	{ .name = "libvirt",
	    .parse = conf_parse_section,
	    .off = MACH(libvirt),
	    .sub = inv_libvirt_keys },
	{ .name = "power",
	    .parse = conf_parse_section,
	    .off = MACH(power),
	    .sub = inv_power_keys },
	{ .name = "boot",
	    .parse = conf_parse_section,
	    .off = MACH(boot),
	    .sub = inventory_boot_keys },
	{ .name = NULL },
};

/* A machine with nothing set: topology -1, the rest zero. */
static struct machine *
inv_machine_new(struct conf_file *f)
{
	struct machine *m = xcalloc(1, sizeof(*m));

	m->file = xstrdup(f->path);
	m->topo.cpus = m->topo.sockets = m->topo.dies = -1;
	m->topo.cores = m->topo.threads = m->topo.numa_nodes = -1;
	m->topo.clusters = -1;
	return m;
}

/* Adds a parsed machine, reporting a name already in the inventory. */
static void
inv_add(struct conf_file *f, yaml_node_t *map, struct machine *m)
{
	struct inventory *inv = f->arg;
	size_t		  i;

	for (i = 0; m->name != NULL && i < inv->n; i++) {
		if (inv->machines[i]->name == NULL ||
		    strcmp(inv->machines[i]->name, m->name) != 0)
			continue;
		conf_error_key(f, map, "name",
		    "duplicate machine name \"%s\", first defined at %s:%d",
		    m->name, inv->machines[i]->file, inv->machines[i]->line);
		break;
	}
	inv->machines =
	    xreallocarray(inv->machines, inv->n + 1, sizeof(*inv->machines));
	inv->machines[inv->n++] = m;
}

/* Parses one machine mapping into the inventory. */
static void
inv_machine(struct conf_file *f, yaml_node_t *map)
{
	struct machine *m = inv_machine_new(f);

	conf_mapping(f, map, inv_machine_keys, m, NULL);
	inv_machine_check(f, map, m);
	inv_add(f, map, m);
}

/* The document's root: one machine, or a sequence of machines. */
static void
inv_root(struct conf_file *f, yaml_node_t *root)
{
	yaml_node_t *item;
	size_t	     i;
	char	    *d;

	if (root == NULL || conf_is_null(root)) {
		conf_error_at(f, 0, 0,
		    "no machine in file, expected a mapping "
		    "or a sequence of mappings");
		return;
	}
	if (root->type == YAML_MAPPING_NODE) {
		inv_machine(f, root);
		return;
	}
	if (root->type != YAML_SEQUENCE_NODE) {
		d = conf_desc(root);
		conf_error(f, root,
		    "a machine file must hold a mapping or a sequence of "
		    "mappings, not %s",
		    d);
		free(d);
		return;
	}
	for (i = 0; i < conf_seq_len(root); i++) {
		item = conf_seq_item(f, root, i);
		if (item->type == YAML_MAPPING_NODE) {
			inv_machine(f, item);
			continue;
		}
		d = conf_desc(item);
		conf_error(f, item, "a machine must be a mapping, not %s", d);
		free(d);
	}
}

static const struct conf_kind inv_kind = { "machine", inv_root };

/* The inventory, or NULL with every error in *cause. */
static struct inventory *
inv_finish(struct conf_loader *ld, struct inventory *inv, char **cause)
{
	*cause = NULL;
	if (conf_finish(ld, cause) == 0)
		return inv;
	inventory_free(inv);
	return NULL;
}

/* Parses every *.yaml file of dir. */
struct inventory *
inventory_load(const char *dir, char **cause)
{
	struct conf_loader ld = { 0 };
	struct inventory  *inv = xcalloc(1, sizeof(*inv));

	conf_load_dir(&ld, dir, &inv_kind, inv);
	return inv_finish(&ld, inv, cause);
}

/* Parses one machine file. */
struct inventory *
inventory_load_file(const char *path, char **cause)
{
	struct conf_loader ld = { 0 };
	struct inventory  *inv = xcalloc(1, sizeof(*inv));

	conf_load_file(&ld, path, &inv_kind, inv);
	return inv_finish(&ld, inv, cause);
}

/* A directory or one file. */
struct inventory *
inventory_load_path(const char *path, char **cause)
{
	struct stat st;

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return inventory_load(path, cause);
	return inventory_load_file(path, cause);
}

/* The machine called name, or NULL. */
struct machine *
inventory_find(const struct inventory *inv, const char *name)
{
	size_t i;

	for (i = 0; inv != NULL && i < inv->n; i++)
		if (strcmp(inv->machines[i]->name, name) == 0)
			return inv->machines[i];
	return NULL;
}

/* "ssh" or "libvirt". */
const char *
machine_kind_str(enum machine_kind kind)
{
	switch (kind) {
	case MACHINE_SSH:
		return "ssh";
	case MACHINE_LIBVIRT:
		return "libvirt";
	}
	return "unknown";
}

/* Frees a machine; NULL is fine. */
void
machine_free(struct machine *m)
{
	size_t i;

	if (m == NULL)
		return;
	free(m->name);
	free(m->file);
	free(m->arch);
	free(m->cpu_model);
	free(m->notes);
	free(m->mirror);
	conf_strv_free(m->health_check);
	free(m->topo.llc_groups);
	free(m->ssh.host);
	free(m->ssh.user);
	free(m->ssh.identity);
	free(m->ssh.known_hosts);
	free(m->ssh.agent_dir);
	free(m->libvirt.uri);
	free(m->libvirt.cpu_model);
	for (i = 0; i < m->libvirt.ncells; i++)
		free(m->libvirt.cells[i].cpus);
	free(m->libvirt.cells);
	free(m->libvirt.cmdline);
	free(m->libvirt.disk);
	free(m->libvirt.console_dir);
	free(m->libvirt.kernel);
	free(m->libvirt.initrd);
	free(m->libvirt.emulator);
	free(m->power.ipmi.host);
	free(m->power.ipmi.user);
	free(m->power.ipmi.password_file);
	free(m->power.ipmi.interface);
	conf_strv_free(m->power.command.on);
	conf_strv_free(m->power.command.off);
	conf_strv_free(m->power.command.cycle);
	conf_strv_free(m->power.command.status);
	inventory_boot_free(&m->boot);
	free(m);
}

/* Frees an inventory and its machines; NULL is fine. */
void
inventory_free(struct inventory *inv)
{
	size_t i;

	if (inv == NULL)
		return;
	for (i = 0; i < inv->n; i++)
		machine_free(inv->machines[i]);
	free(inv->machines);
	free(inv);
}
