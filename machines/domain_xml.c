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

#define DX_QEMU_NS	"http://libvirt.org/schemas/domain/qemu/1.0"
#define DX_BASE_CMDLINE "console=ttyS0 panic=1"
#define DX_NET_ID	"hilab0"
/* A fixed PCI slot: qemu's own -device needs an address libvirt leaves. */
#define DX_NET_ADDR	"0x10"

/* The guest CPU topology as libvirt counts it (cores per die). */
struct dx_topo {
	int sockets;
	int dies;
	int cores;
	int threads;
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

/* Fills t from the machine, defaults 1; -1 with *cause if it is off. */
static int
dx_topology(const struct machine *m, struct dx_topo *t, char **cause)
{
	const struct machine_topology *mt = &m->topo;
	int			       n = m->libvirt.vcpus, per;

	t->sockets = mt->sockets > 0 ? mt->sockets : 1;
	t->dies = mt->dies > 0 ? mt->dies : 1;
	t->threads = mt->threads > 0 ? mt->threads : 1;
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
	return 0;
}

/* Checks what the domain cannot do without; -1 with *cause. */
static int
dx_check(const struct machine *m, const struct backend_kernel *k, char **cause)
{
	struct in_addr a;
	const char    *why = NULL;

	if (k == NULL || k->image == NULL)
		why = "no kernel image to boot";
	else if (m->arch != NULL && strcmp(m->arch, "x86_64") != 0)
		why = "only x86_64 VMs are supported";
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
dx_os(FILE *fp, const struct machine *m, const struct backend_kernel *k)
{
	const char *mc = m->libvirt.cmdline, *jc = k->cmdline;
	char	   *cmdline;

	cmdline = xasprintf("%s%s%s%s%s", DX_BASE_CMDLINE,
	    mc != NULL && *mc != '\0' ? " " : "", mc != NULL ? mc : "",
	    jc != NULL && *jc != '\0' ? " " : "", jc != NULL ? jc : "");
	fputs("  <os>\n"
	      "    <type arch='x86_64' machine='pc'>hvm</type>\n",
	    fp);
	dx_elem(fp, "    ", "kernel", k->image);
	if (k->initrd != NULL)
		dx_elem(fp, "    ", "initrd", k->initrd);
	dx_elem(fp, "    ", "cmdline", cmdline);
	fputs("  </os>\n", fp);
	free(cmdline);
}

/* Writes <cpu>: the model, the topology and the NUMA cells. */
static void
dx_cpu(FILE *fp, const struct machine *m, const struct dx_topo *t)
{
	const struct machine_libvirt *lv = &m->libvirt;
	size_t			      i;

	fputs("  <cpu mode='custom' match='exact'>\n", fp);
	fputs("    <model fallback='forbid'>", fp);
	dx_esc(fp, lv->cpu_model != NULL ? lv->cpu_model : "Nehalem");
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
dx_devices(FILE *fp, const struct machine *m, const char *console_path)
{
	fputs("  <devices>\n", fp);
	dx_elem(fp, "    ", "emulator",
	    m->libvirt.emulator != NULL ? m->libvirt.emulator
					: MACHINE_QEMU_SINGLE);
	fputs("    <serial type='file'>\n"
	      "      <source path='",
	    fp);
	dx_esc(fp, console_path);
	fputs("'/>\n"
	      "      <target port='0'/>\n"
	      "    </serial>\n"
	      "    <panic model='isa'>\n"
	      "      <address type='isa' iobase='0x505'/>\n"
	      "    </panic>\n"
	      "    <rng model='virtio'>\n"
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

/* Writes the user network with the ssh forward, as qemu arguments. */
static void
dx_network(FILE *fp, const struct machine *m)
{
	char *netdev;

	netdev = xasprintf("user,id=%s,restrict=on,hostfwd=tcp:%s:%d-:22",
	    DX_NET_ID, m->ssh.host, m->ssh.port);
	fputs("  <qemu:commandline>\n", fp);
	dx_qemu_arg(fp, "-netdev");
	dx_qemu_arg(fp, netdev);
	dx_qemu_arg(fp, "-device");
	dx_qemu_arg(fp,
	    "virtio-net-pci,netdev=" DX_NET_ID ",bus=pci.0,addr=" DX_NET_ADDR);
	fputs("  </qemu:commandline>\n", fp);
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
	struct dx_topo t;
	char	      *xml = NULL, *name = NULL;
	size_t	       len;
	FILE	      *fp;

	if (dx_check(m, k, cause) == -1 || dx_topology(m, &t, cause) == -1)
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
	dx_os(fp, m, k);
	fputs("  <features>\n    <acpi/>\n    <apic/>\n  </features>\n", fp);
	dx_cpu(fp, m, &t);
	fputs("  <on_poweroff>destroy</on_poweroff>\n"
	      "  <on_reboot>destroy</on_reboot>\n"
	      "  <on_crash>destroy</on_crash>\n",
	    fp);
	dx_devices(fp, m, console_path);
	dx_network(fp, m);
	fputs("</domain>\n", fp);
	fclose(fp);
	free(name);
	return xml;
}
