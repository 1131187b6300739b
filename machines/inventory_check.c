/*
 * Checks across the keys of a parsed machine: topology against cpus, LLC
 * groups and NUMA cells against the cpus they name, the libvirt, power and
 * boot sections against the kind, the emulator against this machine; then
 * the defaults a file may leave out.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/cpulist.h"
#include "common/units.h"
#include "common/xmalloc.h"
#include "machines/inventory.h"
#include "machines/inventory_int.h"

/* Checks LLC groups against the cpu count: every cpu in one group. */
static void
inv_llc_check(struct conf_file *f, yaml_node_t *tmap,
    const struct machine_topology *t)
{
	struct cpulist all;
	long	       last, count;

	if (t->llc_groups == NULL || t->cpus < 1)
		return;
	inv_cpugroups_parse(t->llc_groups, &all, NULL, NULL);
	last = cpulist_last(&all);
	count = (long)cpulist_count(&all);
	if (last >= t->cpus)
		conf_error_key(f, tmap, "llc_groups",
		    "\"llc_groups\" names cpu %ld, but \"cpus\" is %d", last,
		    t->cpus);
	else if (count != t->cpus)
		conf_error_key(f, tmap, "llc_groups",
		    "\"llc_groups\" covers %ld of %d cpus", count, t->cpus);
	cpulist_free(&all);
}

/* Checks the topology: sockets x cores x threads == cpus when all given. */
static void
inv_topology_check(struct conf_file *f, yaml_node_t *tmap,
    struct machine_topology *t)
{
	long product;

	if (t->sockets < 1 || t->cores < 1 || t->threads < 1)
		product = -1;
	else
		product = (long)t->sockets * t->cores * t->threads;
	if (product > 0 && t->cpus > 0 && product != t->cpus)
		conf_error_key(f, tmap, "cpus",
		    "\"cpus\" is %d, but sockets x "
		    "cores x threads is %d x %d x %d = %ld",
		    t->cpus, t->sockets, t->cores, t->threads, product);
	else if (product > INV_MAX_CPUS)
		conf_error_key(f, tmap, "cores",
		    "sockets x cores x threads is "
		    "%ld, more than %d cpus",
		    product, INV_MAX_CPUS);
	else if (product > 0 && t->cpus == -1)
		t->cpus = (int)product;
	if (t->clusters > 0 && t->cores > 0 && t->cores % t->clusters != 0)
		conf_error_key(f, tmap, "clusters",
		    "\"cores\" (per socket) is %d, not a multiple of "
		    "\"clusters\" %d",
		    t->cores, t->clusters);
}

/* Checks one numa cell's cpus against vcpus; false if one is beyond. */
static bool
inv_cell_check(struct conf_file *f, yaml_node_t *cmap,
    const struct machine_numa_cell *c, int vcpus, struct cpulist *all)
{
	struct cpulist set;
	long	       last;
	bool	       ok = true;

	cpulist_parse(c->cpus, &set);
	if ((last = cpulist_last(&set)) >= vcpus) {
		conf_error_key(f, cmap, "cpus",
		    "\"cpus\" names cpu %ld, but \"vcpus\" is %d", last, vcpus);
		ok = false;
	}
	cpulist_merge(all, &set);
	cpulist_free(&set);
	return ok;
}

/* Reports numa cells whose memory does not add up to the VM's. */
static void
inv_cells_memory(struct conf_file *f, yaml_node_t *lmap,
    const struct machine_libvirt *lv, uint64_t sum)
{
	char a[UNITS_STR_MAX], b[UNITS_STR_MAX];

	if (lv->memory_kib == 0 || sum == lv->memory_kib)
		return;
	conf_error_key(f, lmap, "numa_cells",
	    "\"numa_cells\" memory adds up to %s, but \"memory\" is %s",
	    units_format_size(sum, a, sizeof a),
	    units_format_size(lv->memory_kib, b, sizeof b));
}

/* Checks the cells together: no cpu twice, all vcpus, memory adds up. */
static void
inv_cells_check(struct conf_file *f, yaml_node_t *lmap, struct machine *m)
{
	struct machine_libvirt *lv = &m->libvirt;
	yaml_node_t	       *seq = conf_map_value(f, lmap, "numa_cells");
	struct cpulist		all = { NULL, 0 };
	uint64_t		sum = 0;
	size_t			i;
	long			dup;
	bool			inside = true;

	if (seq == NULL || lv->ncells == 0 || lv->vcpus < 1 ||
	    lv->ncells != conf_seq_len(seq))
		return;
	for (i = 0; i < lv->ncells; i++) {
		if (lv->cells[i].cpus == NULL || lv->cells[i].memory_kib == 0)
			goto out;
		if (!inv_cell_check(f, conf_seq_item(f, seq, i), &lv->cells[i],
			lv->vcpus, &all))
			inside = false;
		sum += lv->cells[i].memory_kib;
	}
	if ((dup = cpulist_twice(&all)) != -1)
		conf_error_key(f, lmap, "numa_cells",
		    "cpu %ld is in more than one of \"numa_cells\"", dup);
	else if (inside && (int)cpulist_count(&all) != lv->vcpus)
		conf_error_key(f, lmap, "numa_cells",
		    "\"numa_cells\" cover %zu of %d vcpus", cpulist_count(&all),
		    lv->vcpus);
	inv_cells_memory(f, lmap, lv, sum);
out:
	cpulist_free(&all);
}

/* Reconciles vcpus with the topology's cpus. */
static void
inv_vcpus_check(struct conf_file *f, yaml_node_t *lmap, struct machine *m)
{
	struct machine_libvirt	*lv = &m->libvirt;
	struct machine_topology *t = &m->topo;

	if (lv->vcpus > 0 && t->cpus > 0 && lv->vcpus != t->cpus)
		conf_error_key(f, lmap, "vcpus",
		    "\"vcpus\" is %d, but topology \"cpus\" is %d", lv->vcpus,
		    t->cpus);
	else if (lv->vcpus < 1 && t->cpus > 0)
		lv->vcpus = t->cpus;
	else if (lv->vcpus > 0 && t->cpus < 1)
		t->cpus = lv->vcpus;
	else if (lv->vcpus < 1 && conf_map_value(f, lmap, "vcpus") == NULL)
		conf_error(f, lmap,
		    "missing required key \"vcpus\" in \"libvirt\" (or "
		    "\"cpus\" in \"topology\")");
}

/*
 * Why emulator emu cannot be run here for a domain at uri, or NULL when it
 * can or when libvirt runs it elsewhere (a uri other than qemu:///...).
 */
static const char *
inv_emulator_problem(const char *uri, const char *emu)
{
	struct stat st;

	if (uri != NULL && strncmp(uri, "qemu:///", 8) != 0)
		return NULL;
	if (stat(emu, &st) == -1)
		return strerror(errno);
	if (!S_ISREG(st.st_mode))
		return "not a regular file";
	if (access(emu, X_OK) == -1)
		return "not executable";
	return NULL;
}

/*
 * Checks that the emulator the file names can be run here (libvirt runs
 * it on this machine for a qemu:/// uri).  The wrapper hilab ships, the
 * x86_64 default, is checked where a VM boots and by "hilab machines
 * check" (scripts/lab.sh installs it): a file naming it stays valid where
 * it is only read.
 */
static void
inv_emulator_check(struct conf_file *f, yaml_node_t *lmap,
    const struct machine_libvirt *lv)
{
	const char *why;

	if (lv->emulator == NULL ||
	    strcmp(lv->emulator, MACHINE_QEMU_SINGLE) == 0)
		return;
	if ((why = inv_emulator_problem(lv->uri, lv->emulator)) != NULL)
		conf_error_key(f, lmap, "emulator",
		    "\"emulator\" %s cannot be run: %s", lv->emulator, why);
}

/* The emulator of a VM: its file's, or its arch's default. */
const char *
machine_emulator(const struct machine *m)
{
	if (m->libvirt.emulator != NULL)
		return m->libvirt.emulator;
	if (m->arch != NULL && strcmp(m->arch, "aarch64") == 0)
		return MACHINE_QEMU_AARCH64;
	return MACHINE_QEMU_SINGLE;
}

/* What installs emulator emu here, for the message that it cannot run. */
static const char *
inv_emulator_hint(const char *emu)
{
	if (strcmp(emu, MACHINE_QEMU_SINGLE) == 0)
		return " (scripts/lab.sh installs it; \"emulator: "
		       "/usr/bin/qemu-system-x86_64\" in \"libvirt\" keeps "
		       "qemu's own threading)";
	if (strcmp(emu, MACHINE_QEMU_AARCH64) == 0)
		return " (the package qemu-system-arm installs it)";
	return "";
}

/* Why a VM's emulator cannot be run here, naming its file; or NULL. */
char *
inventory_emulator_check(const struct machine *m)
{
	const char *emu, *why;

	if (m->kind != MACHINE_LIBVIRT)
		return NULL;
	emu = machine_emulator(m);
	if ((why = inv_emulator_problem(m->libvirt.uri, emu)) == NULL)
		return NULL;
	return xasprintf("%s:%d: machine \"%s\": emulator %s cannot be run: "
			 "%s%s",
	    m->file != NULL ? m->file : "?", m->line, m->name, emu, why,
	    inv_emulator_hint(emu));
}

/* Reconciles the libvirt section with the topology and checks the cells. */
static void
inv_libvirt_check(struct conf_file *f, yaml_node_t *map, struct machine *m)
{
	yaml_node_t		*lmap = conf_map_value(f, map, "libvirt");
	struct machine_libvirt	*lv = &m->libvirt;
	struct machine_topology *t = &m->topo;

	if (lmap == NULL || lmap->type != YAML_MAPPING_NODE) {
		if (lmap == NULL)
			conf_error(f, map,
			    "missing required key \"libvirt\" for kind "
			    "libvirt");
		return;
	}
	inv_vcpus_check(f, lmap, m);
	inv_cells_check(f, lmap, m);
	inv_emulator_check(f, lmap, lv);
	if (lv->ncells > 0 && t->numa_nodes > 0 &&
	    (size_t)t->numa_nodes != lv->ncells)
		conf_error_key(f, lmap, "numa_cells",
		    "\"numa_cells\" has %zu cells, but topology \"numa_nodes\" "
		    "is %d",
		    lv->ncells, t->numa_nodes);
	else if (lv->ncells > 0)
		t->numa_nodes = (int)lv->ncells;
}

/* Checks the power section: kind ssh, and one of ipmi or command. */
static void
inv_power_check(struct conf_file *f, yaml_node_t *map, struct machine *m)
{
	yaml_node_t	 *pmap = conf_map_value(f, map, "power");
	yaml_node_pair_t *p = conf_map_pair(f, map, "power");
	bool		  ipmi, cmd;

	if (pmap == NULL || pmap->type != YAML_MAPPING_NODE)
		return;
	if (m->kind == MACHINE_LIBVIRT) {
		conf_error(f, conf_node(f, p->key),
		    "\"power\" is only allowed with kind ssh (libvirt "
		    "powers its VMs)");
		return;
	}
	ipmi = conf_map_value(f, pmap, "ipmi") != NULL;
	cmd = conf_map_value(f, pmap, "command") != NULL;
	if (ipmi && cmd)
		conf_error_key(f, pmap, "command",
		    "\"power\" takes \"ipmi\" or \"command\", not both");
	else if (!ipmi && !cmd)
		conf_error(f, pmap,
		    "missing \"ipmi\" or \"command\" in \"power\"");
	else
		m->power.kind =
		    ipmi ? MACHINE_POWER_IPMI : MACHINE_POWER_COMMAND;
}

/* A controller build needs the mirror its tarballs come from. */
static void
inv_build_on_check(struct conf_file *f, yaml_node_t *map,
    const struct machine *m)
{
	if (m->build_on == MACHINE_BUILD_CONTROLLER && m->mirror == NULL)
		conf_error_key(f, map, "build_on",
		    "\"build_on: controller\" needs \"mirror\": the "
		    "directory of the source tarballs built on the "
		    "controller");
}

/* Fills in the power section's defaults. */
static void
inv_power_defaults(struct machine_power *pw)
{
	if (pw->boot_timeout_ms == 0)
		pw->boot_timeout_ms = 300000;
	if (pw->kind != MACHINE_POWER_IPMI)
		return;
	if (pw->ipmi.port == 0)
		pw->ipmi.port = 623;
	if (pw->ipmi.interface == NULL)
		pw->ipmi.interface = xstrdup("lanplus");
	if (pw->ipmi.cipher == 0)
		pw->ipmi.cipher = 3;
}

/* Fills in the libvirt section's defaults, by the machine's arch. */
static void
inv_libvirt_defaults(struct machine *m)
{
	struct machine_libvirt *lv = &m->libvirt;
	bool			arm = strcmp(m->arch, "aarch64") == 0;

	if (lv->uri == NULL)
		lv->uri = xstrdup("qemu:///system");
	if (lv->cpu_model == NULL)
		lv->cpu_model = xstrdup(arm ? "cortex-a57" : "Nehalem");
	if (lv->cmdline == NULL)
		lv->cmdline = xstrdup("");
	if (lv->boot_timeout_ms == 0)
		lv->boot_timeout_ms = 180000;
	if (lv->emulator == NULL)
		lv->emulator = xstrdup(machine_emulator(m));
	if (lv->boot_tries == 0)
		lv->boot_tries = 3;
}

/* Fills in every default the file left out. */
static void
inv_defaults(struct machine *m)
{
	if (m->arch == NULL)
		m->arch = xstrdup("x86_64");
	if (m->ssh.port == 0)
		m->ssh.port = 22;
	if (m->ssh.user == NULL)
		m->ssh.user = xstrdup("root");
	if (m->ssh.connect_timeout_ms == 0)
		m->ssh.connect_timeout_ms = 10000;
	if (m->ssh.command_timeout_ms == 0)
		m->ssh.command_timeout_ms = 60000;
	if (m->ssh.keepalive_ms == 0)
		m->ssh.keepalive_ms = 15000;
	if (m->ssh.reconnect_ms == 0)
		m->ssh.reconnect_ms = 60000;
	if (m->ssh.agent_dir == NULL)
		m->ssh.agent_dir = xstrdup("/var/tmp/hilab");
	if (m->power.kind != MACHINE_POWER_NONE)
		inv_power_defaults(&m->power);
	if (m->kind == MACHINE_LIBVIRT)
		inv_libvirt_defaults(m);
}

/* Cross-key checks of a parsed machine, then its defaults. */
void
inv_machine_check(struct conf_file *f, yaml_node_t *map, struct machine *m)
{
	yaml_node_t	 *tmap = conf_map_value(f, map, "topology");
	yaml_node_pair_t *p;

	if ((p = conf_map_pair(f, map, "name")) != NULL)
		m->line = (int)conf_node(f, p->key)->start_mark.line + 1;
	if (tmap != NULL && tmap->type == YAML_MAPPING_NODE)
		inv_topology_check(f, tmap, &m->topo);
	if (m->kind == MACHINE_LIBVIRT)
		inv_libvirt_check(f, map, m);
	else if (m->kind == MACHINE_SSH &&
	    (p = conf_map_pair(f, map, "libvirt")) != NULL)
		conf_error(f, conf_node(f, p->key),
		    "\"libvirt\" is only allowed with kind libvirt");
	inv_power_check(f, map, m);
	inv_build_on_check(f, map, m);
	inventory_boot_check(f, map, m);
	if (tmap != NULL && tmap->type == YAML_MAPPING_NODE)
		inv_llc_check(f, tmap, &m->topo);
	inv_defaults(m);
}
