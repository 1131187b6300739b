/*
 * The normalized inventory as YAML (`hilab machines check`), every default
 * filled in, through libyaml's emitter (common/conf_emit.h): parsing it
 * again gives the same.
 */
#include <stdio.h>

#include "common/conf.h"
#include "common/conf_emit.h"
#include "machines/inventory.h"
#include "machines/inventory_int.h"

/* Emits "key: n" if n is set (not -1). */
static void
inv_print_int(struct conf_emit *e, const char *key, int n)
{
	if (n != -1)
		conf_emit_int(e, key, n);
}

/* Emits the topology section, the keys the file or checks set. */
static void
inv_print_topology(struct conf_emit *e, const struct machine_topology *t)
{
	if (t->cpus == -1 && t->sockets == -1 && t->dies == -1 &&
	    t->clusters == -1 && t->cores == -1 && t->threads == -1 &&
	    t->numa_nodes == -1 && t->llc_groups == NULL)
		return;
	conf_emit_key(e, "topology");
	conf_emit_map(e, false);
	inv_print_int(e, "cpus", t->cpus);
	inv_print_int(e, "sockets", t->sockets);
	inv_print_int(e, "dies", t->dies);
	inv_print_int(e, "clusters", t->clusters);
	inv_print_int(e, "cores", t->cores);
	inv_print_int(e, "threads", t->threads);
	inv_print_int(e, "numa_nodes", t->numa_nodes);
	conf_emit_str(e, "llc_groups", t->llc_groups);
	conf_emit_end(e);
}

/* Emits the ssh section with every default. */
static void
inv_print_ssh(struct conf_emit *e, const struct machine_ssh *s)
{
	conf_emit_key(e, "ssh");
	conf_emit_map(e, false);
	conf_emit_str(e, "host", s->host);
	conf_emit_int(e, "port", s->port);
	conf_emit_str(e, "user", s->user);
	conf_emit_str(e, "identity", s->identity);
	conf_emit_str(e, "known_hosts", s->known_hosts);
	conf_emit_bool(e, "trust_on_first_use", s->trust_on_first_use);
	conf_emit_duration(e, "connect_timeout", s->connect_timeout_ms);
	conf_emit_duration(e, "command_timeout", s->command_timeout_ms);
	conf_emit_duration(e, "keepalive", s->keepalive_ms);
	conf_emit_duration(e, "reconnect_for", s->reconnect_ms);
	conf_emit_str(e, "agent_dir", s->agent_dir);
	conf_emit_end(e);
}

/* Emits the NUMA cells of a VM, if it has any. */
static void
inv_print_cells(struct conf_emit *e, const struct machine_libvirt *lv)
{
	size_t i;

	if (lv->ncells == 0)
		return;
	conf_emit_key(e, "numa_cells");
	conf_emit_seq(e, false);
	for (i = 0; i < lv->ncells; i++) {
		conf_emit_map(e, false);
		conf_emit_str(e, "cpus", lv->cells[i].cpus);
		conf_emit_size(e, "memory", lv->cells[i].memory_kib);
		conf_emit_end(e);
	}
	conf_emit_end(e);
}

/* Emits the libvirt section with every default. */
static void
inv_print_libvirt(struct conf_emit *e, const struct machine_libvirt *lv)
{
	conf_emit_key(e, "libvirt");
	conf_emit_map(e, false);
	conf_emit_str(e, "uri", lv->uri);
	conf_emit_int(e, "vcpus", lv->vcpus);
	conf_emit_size(e, "memory", lv->memory_kib);
	conf_emit_str(e, "cpu_model", lv->cpu_model);
	inv_print_cells(e, lv);
	conf_emit_str(e, "cmdline", lv->cmdline);
	conf_emit_str(e, "disk", lv->disk);
	conf_emit_str(e, "console_dir", lv->console_dir);
	conf_emit_str(e, "kernel", lv->kernel);
	conf_emit_str(e, "initrd", lv->initrd);
	conf_emit_duration(e, "boot_timeout", lv->boot_timeout_ms);
	conf_emit_str(e, "emulator", lv->emulator);
	conf_emit_int(e, "boot_tries", lv->boot_tries);
	conf_emit_end(e);
}

/* Emits a command as a flow sequence: "on: [pdu, off, 3]". */
static void
inv_print_argv(struct conf_emit *e, const char *key, char *const *argv)
{
	conf_emit_strv(e, key, argv, conf_strv_len(argv));
}

/* Emits the ipmi part of the power section with every default. */
static void
inv_print_ipmi(struct conf_emit *e, const struct machine_ipmi *ip)
{
	conf_emit_key(e, "ipmi");
	conf_emit_map(e, false);
	conf_emit_str(e, "host", ip->host);
	conf_emit_int(e, "port", ip->port);
	conf_emit_str(e, "user", ip->user);
	conf_emit_str(e, "password_file", ip->password_file);
	conf_emit_str(e, "interface", ip->interface);
	conf_emit_int(e, "cipher", ip->cipher);
	conf_emit_end(e);
}

/* Emits the power section with every default. */
static void
inv_print_power(struct conf_emit *e, const struct machine_power *pw)
{
	conf_emit_key(e, "power");
	conf_emit_map(e, false);
	conf_emit_duration(e, "boot_timeout", pw->boot_timeout_ms);
	if (pw->kind == MACHINE_POWER_COMMAND) {
		conf_emit_key(e, "command");
		conf_emit_map(e, false);
		inv_print_argv(e, "on", pw->command.on);
		inv_print_argv(e, "off", pw->command.off);
		inv_print_argv(e, "cycle", pw->command.cycle);
		inv_print_argv(e, "status", pw->command.status);
		conf_emit_end(e);
	} else
		inv_print_ipmi(e, &pw->ipmi);
	conf_emit_end(e);
}

/* Prints one machine as a sequence of one item. */
void
inventory_print_machine(FILE *fp, const struct machine *m)
{
	struct conf_emit *e = conf_emit_open(fp);

	conf_emit_seq(e, false);
	conf_emit_map(e, false);
	conf_emit_str(e, "name", m->name);
	conf_emit_str(e, "kind", machine_kind_str(m->kind));
	conf_emit_str(e, "arch", m->arch);
	conf_emit_str(e, "cpu_model", m->cpu_model);
	inv_print_topology(e, &m->topo);
	inv_print_ssh(e, &m->ssh);
	if (m->kind == MACHINE_LIBVIRT)
		inv_print_libvirt(e, &m->libvirt);
	if (m->power.kind != MACHINE_POWER_NONE)
		inv_print_power(e, &m->power);
	inventory_boot_print(e, &m->boot);
	conf_emit_str(e, "mirror", m->mirror);
	if (m->build_on == MACHINE_BUILD_CONTROLLER)
		conf_emit_str(e, "build_on", "controller");
	inv_print_argv(e, "health_check", m->health_check);
	conf_emit_str(e, "notes", m->notes);
	conf_emit_end(e);
	conf_emit_end(e);
	conf_emit_close(e);
}

/* Prints the machines, a blank line between two, "[]" for none. */
void
inventory_print(FILE *fp, const struct inventory *inv)
{
	struct conf_emit *e;
	size_t		  i;

	if (inv->n == 0) {
		e = conf_emit_open(fp);
		conf_emit_seq(e, false);
		conf_emit_end(e);
		conf_emit_close(e);
	}
	for (i = 0; i < inv->n; i++) {
		if (i > 0)
			fprintf(fp, "\n");
		inventory_print_machine(fp, inv->machines[i]);
	}
}
