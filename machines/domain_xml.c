/*
 * Domain XML for a lab VM.  Every value from a machine file or a job is
 * escaped; the network is qemu's user network with restrict=on and a
 * single port forward from the machine's loopback ssh address.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "machines/domain_xml.h"

#define DX_QEMU_NS  "http://libvirt.org/schemas/domain/qemu/1.0"
#define DX_NET_ID   "hilab0"
/* A fixed PCI slot: qemu's own -device needs an address libvirt leaves. */
#define DX_NET_ADDR "0x10"

/*
 * What differs between the arches a VM may have: qemu's machine, the
 * serial console's name, the default CPU model, the platform features,
 * the root PCI bus and the panic device (none on arm64: panic=1 reboots
 * and a reboot destroys the domain, which the backend reads as a stop).
 */
struct dx_arch {
	const char *arch;
	const char *machine;
	const char *cmdline;
	const char *cpu_model;
	const char *features;
	const char *pci_bus;
	const char *panic;
};

static const struct dx_arch dx_arches[] = {
	{ "x86_64", "pc", "console=ttyS0 panic=1", "Nehalem",
	    "    <acpi/>\n    <apic/>\n", "pci.0",
	    "    <panic model='isa'>\n"
	    "      <address type='isa' iobase='0x505'/>\n"
	    "    </panic>\n" },
	/* GICv3: GICv2 stops at 8 CPUs.  No ACPI: no UEFI, a device tree. */
	{ "aarch64", "virt", "console=ttyAMA0 panic=1", "cortex-a57",
	    "    <gic version='3'/>\n", "pcie.0", "" },
};

/* The arch of the machine (x86_64 by default), or NULL. */
static const struct dx_arch *
dx_arch_of(const struct machine *m)
{
	const char *arch = m->arch != NULL ? m->arch : "x86_64";
	size_t	    i;

	for (i = 0; i < sizeof dx_arches / sizeof dx_arches[0]; i++)
		if (strcmp(dx_arches[i].arch, arch) == 0)
			return &dx_arches[i];
	return NULL;
}

/* The guest CPU topology as libvirt counts it (cores per die). */
struct dx_topo {
	int sockets;
	int dies;
	int cores;
	int threads;
	int clusters; /* of each socket's cores; 1 for none */
};

/* Writes s with the five XML special characters escaped. */
static void
dx_esc(FILE *fp, const char *s)
{
	for (; *s != '\0'; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '\'':
			fputs("&apos;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		default:
			fputc(*s, fp);
		}
	}
}

/* Writes <tag>value</tag> on its own line, value escaped. */
static void
dx_elem(FILE *fp, const char *indent, const char *tag, const char *value)
{
	fprintf(fp, "%s<%s>", indent, tag);
	dx_esc(fp, value);
	fprintf(fp, "</%s>\n", tag);
}

/*
 * Checks t's clusters: arm64's virt machine alone has them, and they
 * split the cores evenly; -1 with *cause.
 */
static int
dx_clusters(const struct machine *m, const struct dx_arch *a,
    const struct dx_topo *t, char **cause)
{
	if (t->clusters == 1)
		return 0;
	if (strcmp(a->arch, "aarch64") != 0) {
		*cause = xasprintf("machine \"%s\": topology clusters are an "
				   "aarch64 level; qemu's %s machine has none",
		    m->name, a->machine);
		return -1;
	}
	if (t->dies != 1 || t->cores % t->clusters != 0) {
		*cause = xasprintf("machine \"%s\": %d cores per socket do not "
				   "split into %d clusters%s",
		    m->name, t->cores, t->clusters,
		    t->dies != 1 ? " with dies" : "");
		return -1;
	}
	return 0;
}

/* Fills t from the machine, defaults 1; -1 with *cause if it is off. */
static int
dx_topology(const struct machine *m, const struct dx_arch *a, struct dx_topo *t,
    char **cause)
{
	const struct machine_topology *mt = &m->topo;
	int			       n = m->libvirt.vcpus, per;

	t->sockets = mt->sockets > 0 ? mt->sockets : 1;
	t->dies = mt->dies > 0 ? mt->dies : 1;
	t->threads = mt->threads > 0 ? mt->threads : 1;
	t->clusters = mt->clusters > 0 ? mt->clusters : 1;
	per = t->sockets * t->dies * t->threads;
	if (mt->cores > 0)
		t->cores = mt->cores % t->dies == 0 ? mt->cores / t->dies : 0;
	else
		t->cores = n / per;
	if (n < 1 || t->cores < 1 || per * t->cores != n) {
		*cause = xasprintf(
		    "machine \"%s\": topology %d sockets x %d "
		    "dies x %d cores per die x %d threads does not make "
		    "%d vcpus",
		    m->name, t->sockets, t->dies, t->cores, t->threads, n);
		return -1;
	}
	return dx_clusters(m, a, t, cause);
}

/* Checks what the domain cannot do without; -1 with *cause. */
static int
dx_check(const struct machine *m, const struct backend_kernel *k, char **cause)
{
	struct in_addr a;
	const char    *why = NULL;

	if (k == NULL || k->image == NULL)
		why = "no kernel image to boot";
	else if (dx_arch_of(m) == NULL)
		why = "only x86_64 and aarch64 VMs are supported";
	else if (m->libvirt.memory_kib == 0)
		why = "no memory size";
	else if (m->ssh.host == NULL ||
	    inet_pton(AF_INET, m->ssh.host, &a) != 1 ||
	    (ntohl(a.s_addr) >> 24) != 127)
		why = "ssh host must be a loopback IPv4 address (127.x.y.z)";
	else if (m->ssh.port < 1 || m->ssh.port > 65535)
		why = "ssh port out of range";
	if (why == NULL)
		return 0;
	*cause = xasprintf("machine \"%s\": %s", m->name, why);
	return -1;
}

/* Writes <os>: direct kernel boot with the joined command line. */
static void
dx_os(FILE *fp, const struct machine *m, const struct backend_kernel *k,
    const struct dx_arch *a)
{
	const char *mc = m->libvirt.cmdline, *jc = k->cmdline;
	char	   *cmdline;

	cmdline = xasprintf("%s%s%s%s%s", a->cmdline,
	    mc != NULL && *mc != '\0' ? " " : "", mc != NULL ? mc : "",
	    jc != NULL && *jc != '\0' ? " " : "", jc != NULL ? jc : "");
	fprintf(fp,
	    "  <os>\n"
	    "    <type arch='%s' machine='%s'>hvm</type>\n",
	    a->arch, a->machine);
	dx_elem(fp, "    ", "kernel", k->image);
	if (k->initrd != NULL)
		dx_elem(fp, "    ", "initrd", k->initrd);
	if (k->dtb != NULL)
		dx_elem(fp, "    ", "dtb", k->dtb);
	dx_elem(fp, "    ", "cmdline", cmdline);
	fputs("  </os>\n", fp);
	free(cmdline);
}

/* Writes <cpu>: the model, the topology and the NUMA cells. */
static void
dx_cpu(FILE *fp, const struct machine *m, const struct dx_topo *t,
    const struct dx_arch *a)
{
	const struct machine_libvirt *lv = &m->libvirt;
	size_t			      i;

	fputs("  <cpu mode='custom' match='exact'>\n", fp);
	fputs("    <model fallback='forbid'>", fp);
	dx_esc(fp, lv->cpu_model != NULL ? lv->cpu_model : a->cpu_model);
	fputs("</model>\n", fp);
	fprintf(fp,
	    "    <topology sockets='%d' dies='%d' cores='%d' "
	    "threads='%d'/>\n",
	    t->sockets, t->dies, t->cores, t->threads);
	if (lv->ncells > 0) {
		fputs("    <numa>\n", fp);
		for (i = 0; i < lv->ncells; i++) {
			fprintf(fp, "      <cell id='%zu' cpus='", i);
			dx_esc(fp, lv->cells[i].cpus);
			fprintf(fp, "' memory='%llu' unit='KiB'/>\n",
			    (unsigned long long)lv->cells[i].memory_kib);
		}
		fputs("    </numa>\n", fp);
	}
	fputs("  </cpu>\n", fp);
}

/*
 * Writes <devices>: the emulator, console file, panic device, entropy, no
 * balloon.
 */
static void
dx_devices(FILE *fp, const struct machine *m, const char *console_path,
    const struct dx_arch *a)
{
	fputs("  <devices>\n", fp);
	dx_elem(fp, "    ", "emulator", machine_emulator(m));
	fputs("    <serial type='file'>\n"
	      "      <source path='",
	    fp);
	dx_esc(fp, console_path);
	fputs("'/>\n"
	      "      <target port='0'/>\n"
	      "    </serial>\n",
	    fp);
	fputs(a->panic, fp);
	fputs("    <rng model='virtio'>\n"
	      "      <backend model='random'>/dev/urandom</backend>\n"
	      "    </rng>\n"
	      "    <memballoon model='none'/>\n"
	      "  </devices>\n",
	    fp);
}

/* Writes one <qemu:arg>. */
static void
dx_qemu_arg(FILE *fp, const char *value)
{
	fputs("    <qemu:arg value='", fp);
	dx_esc(fp, value);
	fputs("'/>\n", fp);
}

/*
 * Writes what libvirt cannot say as qemu arguments: the user network with
 * the ssh forward, and the clusters of an aarch64 topology (libvirt 9 has
 * no clusters; a second -smp merges into the first, its keys winning).
 */
static void
dx_commandline(FILE *fp, const struct machine *m, const struct dx_arch *a,
    const struct dx_topo *t)
{
	char *netdev, *dev, *smp;

	netdev = xasprintf("user,id=%s,restrict=on,hostfwd=tcp:%s:%d-:22",
	    DX_NET_ID, m->ssh.host, m->ssh.port);
	fputs("  <qemu:commandline>\n", fp);
	dx_qemu_arg(fp, "-netdev");
	dx_qemu_arg(fp, netdev);
	dx_qemu_arg(fp, "-device");
	dev = xasprintf("virtio-net-pci,netdev=" DX_NET_ID
			",bus=%s,addr=" DX_NET_ADDR,
	    a->pci_bus);
	dx_qemu_arg(fp, dev);
	if (t->clusters > 1) {
		smp = xasprintf("%d,sockets=%d,clusters=%d,cores=%d,threads=%d",
		    m->libvirt.vcpus, t->sockets, t->clusters,
		    t->cores / t->clusters, t->threads);
		dx_qemu_arg(fp, "-smp");
		dx_qemu_arg(fp, smp);
		free(smp);
	}
	fputs("  </qemu:commandline>\n", fp);
	free(dev);
	free(netdev);
}

char *
domain_xml_name(const struct machine *m)
{
	return xasprintf(DOMAIN_XML_PREFIX "%s", m->name);
}

char *
domain_xml_new(const struct machine *m, const struct backend_kernel *k,
    const char *console_path, char **cause)
{
	const struct dx_arch *a = dx_arch_of(m);
	struct dx_topo	      t;
	char		     *xml = NULL, *name = NULL;
	size_t		      len;
	FILE		     *fp;

	if (dx_check(m, k, cause) == -1 || dx_topology(m, a, &t, cause) == -1)
		return NULL;
	if ((fp = open_memstream(&xml, &len)) == NULL) {
		*cause =
		    xasprintf("machine \"%s\": open_memstream failed", m->name);
		return NULL;
	}
	name = domain_xml_name(m);
	fputs("<domain type='qemu' xmlns:qemu='" DX_QEMU_NS "'>\n", fp);
	dx_elem(fp, "  ", "name", name);
	fprintf(fp,
	    "  <memory unit='KiB'>%llu</memory>\n"
	    "  <vcpu placement='static'>%d</vcpu>\n",
	    (unsigned long long)m->libvirt.memory_kib, m->libvirt.vcpus);
	dx_os(fp, m, k, a);
	fprintf(fp, "  <features>\n%s  </features>\n", a->features);
	dx_cpu(fp, m, &t, a);
	fputs("  <on_poweroff>destroy</on_poweroff>\n"
	      "  <on_reboot>destroy</on_reboot>\n"
	      "  <on_crash>destroy</on_crash>\n",
	    fp);
	dx_devices(fp, m, console_path, a);
	dx_commandline(fp, m, a, &t);
	fputs("</domain>\n", fp);
	fclose(fp);
	free(name);
	return xml;
}
