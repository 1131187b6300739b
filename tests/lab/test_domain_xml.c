/*
 * The domain XML of the seed-0 VM (examples/machines/vm32.yaml, read by
 * the real inventory parser): valid for libvirt's schema, with the
 * topology, NUMA cells, command line and port forward it must carry, and
 * every value escaped.  Also the ssh backend's dispatch.  Exits 77 when
 * virt-xml-validate is missing and nothing else failed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <cmocka.h>

#include "common/xmalloc.h"
#include "machines/backend.h"
#include "machines/domain_xml.h"
#include "machines/inventory.h"
#include "tests/lib/skip.h"

#define VALIDATOR "/usr/bin/virt-xml-validate"
#define CONSOLE	  "/var/lib/hilab/console/vm32-20250101-000000.000.log"

static bool validator_missing;

/* Loads the seed-0 VM from the examples. */
static struct inventory *
load_vm32(void)
{
	const char	 *src = getenv("HILAB_SRCDIR");
	char		 *path, *cause = NULL;
	struct inventory *inv;

	path = xasprintf("%s/examples/machines/vm32.yaml", src ? src : ".");
	inv = inventory_load_file(path, &cause);
	if (inv == NULL)
		fail_msg("%s", cause);
	assert_int_equal(inv->n, 1);
	free(path);
	return inv;
}

/* The text of the one node matching xpath in doc (caller frees). */
static char *
xpath_text(xmlDocPtr doc, const char *xpath)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr  o;
	xmlChar		  *c;
	char		  *s = NULL;

	xmlXPathRegisterNs(ctx, BAD_CAST "qemu",
	    BAD_CAST "http://libvirt.org/schemas/domain/qemu/1.0");
	o = xmlXPathEvalExpression(BAD_CAST xpath, ctx);
	if (o != NULL && o->nodesetval != NULL && o->nodesetval->nodeNr == 1) {
		c = xmlNodeGetContent(o->nodesetval->nodeTab[0]);
		s = xstrdup((const char *)c);
		xmlFree(c);
	}
	xmlXPathFreeObject(o);
	xmlXPathFreeContext(ctx);
	return s;
}

/* Asserts the node at xpath has text want. */
static void
assert_xpath(xmlDocPtr doc, const char *xpath, const char *want)
{
	char *got = xpath_text(doc, xpath);

	if (got == NULL)
		fail_msg("no single node at %s", xpath);
	if (strcmp(got, want) != 0)
		fail_msg("%s: got \"%s\", want \"%s\"", xpath, got, want);
	free(got);
}

/* Runs virt-xml-validate on xml; its exit status, or -1 if missing. */
static int
validate(const char *xml)
{
	char  path[] = "/tmp/hilab-domain-XXXXXX";
	char *cmd;
	int   fd, st;

	if (access(VALIDATOR, X_OK) != 0)
		return -1;
	fd = mkstemp(path);
	assert_true(fd != -1);
	assert_int_equal(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
	close(fd);
	cmd = xasprintf("%s %s domain >/dev/null", VALIDATOR, path);
	st = system(cmd);
	unlink(path);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The seed-0 VM: schema-valid, topology, cells, cmdline, network. */
static void
test_seed0(void **state)
{
	struct inventory     *inv = load_vm32();
	struct backend_kernel k = { "patch 1", "/var/lib/hilab/k/bzImage",
		"/var/lib/hilab/lab/image.cpio.gz", "hilab.boot=3 quiet" };
	char		     *xml, *cause = NULL;
	xmlDocPtr	      doc;
	int		      rc;

	(void)state;
	xml = domain_xml_new(inv->machines[0], &k, CONSOLE, &cause);
	if (xml == NULL)
		fail_msg("%s", cause);
	doc = xmlReadMemory(xml, (int)strlen(xml), "vm32.xml", NULL, 0);
	assert_non_null(doc);
	assert_xpath(doc, "/domain/@type", "qemu");
	assert_xpath(doc, "/domain/name", "hilab-vm32");
	assert_xpath(doc, "/domain/vcpu", "32");
	assert_xpath(doc, "/domain/memory", "4194304");
	assert_xpath(doc, "/domain/cpu/model", "Nehalem");
	assert_xpath(doc, "/domain/cpu/topology/@sockets", "2");
	assert_xpath(doc, "/domain/cpu/topology/@dies", "1");
	assert_xpath(doc, "/domain/cpu/topology/@cores", "8");
	assert_xpath(doc, "/domain/cpu/topology/@threads", "2");
	assert_xpath(doc, "/domain/cpu/numa/cell[@id='0']/@cpus", "0-15");
	assert_xpath(doc, "/domain/cpu/numa/cell[@id='1']/@cpus", "16-31");
	assert_xpath(doc, "/domain/cpu/numa/cell[@id='1']/@memory", "2097152");
	assert_xpath(doc, "/domain/os/kernel", k.image);
	assert_xpath(doc, "/domain/os/initrd", k.initrd);
	assert_xpath(doc, "/domain/os/cmdline",
	    "console=ttyS0 panic=1 "
	    "rt_group_sched=0 hilab.boot=3 quiet");
	assert_xpath(doc, "/domain/on_reboot", "destroy");
	assert_xpath(doc, "/domain/on_crash", "destroy");
	assert_xpath(doc, "/domain/features/acpi", "");
	assert_xpath(doc, "/domain/devices/serial/source/@path", CONSOLE);
	assert_xpath(doc, "/domain/devices/panic/@model", "isa");
	assert_xpath(doc, "/domain/devices/memballoon/@model", "none");
	assert_xpath(doc, "/domain/qemu:commandline/qemu:arg[2]/@value",
	    "user,id=hilab0,restrict=on,hostfwd=tcp:127.0.0.11:22-:22");
	assert_xpath(doc, "/domain/qemu:commandline/qemu:arg[4]/@value",
	    "virtio-net-pci,netdev=hilab0,bus=pci.0,addr=0x10");
	xmlFreeDoc(doc);
	rc = validate(xml);
	if (rc == -1)
		validator_missing = true;
	else if (rc != 0)
		fail_msg("virt-xml-validate rejects:\n%s", xml);
	free(xml);
	inventory_free(inv);
}

/* Values with XML's special characters come back unchanged. */
static void
test_escaping(void **state)
{
	struct inventory     *inv = load_vm32();
	struct machine	     *m = inv->machines[0];
	const char	     *nasty = "a<b && c>'d' \"e\" </cmdline><x>";
	struct backend_kernel k = { "base", "/var/lib/hilab/k/a&b'c.img", NULL,
		nasty };
	char		     *xml, *cause = NULL, *want;
	xmlDocPtr	      doc;

	(void)state;
	free(m->name);
	m->name = xstrdup("vm<&>'\"");
	free(m->libvirt.emulator);
	m->libvirt.emulator = xstrdup("/opt/q<&>'\"/qemu");
	xml = domain_xml_new(m, &k, "/var/lib/hilab/c/'<&>\".log", &cause);
	if (xml == NULL)
		fail_msg("%s", cause);
	doc = xmlReadMemory(xml, (int)strlen(xml), "e.xml", NULL, 0);
	assert_non_null(doc);
	want = xasprintf("console=ttyS0 panic=1 rt_group_sched=0 %s", nasty);
	assert_xpath(doc, "/domain/os/cmdline", want);
	assert_xpath(doc, "/domain/name", "hilab-vm<&>'\"");
	assert_xpath(doc, "/domain/devices/emulator", "/opt/q<&>'\"/qemu");
	assert_xpath(doc, "/domain/os/kernel", k.image);
	assert_xpath(doc, "/domain/devices/serial/source/@path",
	    "/var/lib/hilab/c/'<&>\".log");
	assert_null(strstr(xml, "<x>"));
	xmlFreeDoc(doc);
	free(want);
	free(xml);
	inventory_free(inv);
}

/* Without topology keys the vcpus are all cores of one socket. */
static void
test_flat_topology(void **state)
{
	struct inventory     *inv = load_vm32();
	struct machine	     *m = inv->machines[0];
	struct backend_kernel k = { "base", "/k", NULL, NULL };
	char		     *xml, *cause = NULL;
	xmlDocPtr	      doc;

	(void)state;
	m->topo.sockets = m->topo.cores = m->topo.threads = -1;
	m->libvirt.vcpus = 6;
	m->libvirt.ncells = 0;
	free(m->libvirt.cmdline);
	m->libvirt.cmdline = xstrdup("");
	xml = domain_xml_new(m, &k, "/c.log", &cause);
	assert_non_null(xml);
	doc = xmlReadMemory(xml, (int)strlen(xml), "f.xml", NULL, 0);
	assert_xpath(doc, "/domain/cpu/topology/@sockets", "1");
	assert_xpath(doc, "/domain/cpu/topology/@cores", "6");
	assert_xpath(doc, "/domain/cpu/topology/@threads", "1");
	assert_xpath(doc, "/domain/os/cmdline", "console=ttyS0 panic=1");
	assert_null(xpath_text(doc, "/domain/cpu/numa"));
	assert_null(xpath_text(doc, "/domain/os/initrd"));
	xmlFreeDoc(doc);
	free(xml);
	m->libvirt.ncells = 2;
	inventory_free(inv);
}

/*
 * An arm64 VM: qemu's virt machine, GICv3 (v2 stops at 8 CPUs), the PL011
 * console, no ACPI and no ISA panic device, the network on PCIe's root,
 * clusters as qemu arguments; clusters that do not split the cores, or on
 * x86, refused.
 */
static void
test_aarch64(void **state)
{
	struct inventory     *inv = load_vm32();
	struct machine	     *m = inv->machines[0];
	struct backend_kernel k = { "base", "/k/Image", "/k/arm64.cpio.gz",
		NULL };
	char		     *xml, *cause = NULL;
	xmlDocPtr	      doc;
	int		      rc;

	(void)state;
	free(m->arch);
	m->arch = xstrdup("aarch64");
	free(m->libvirt.cpu_model);
	m->libvirt.cpu_model = NULL;
	m->topo.clusters = 2;
	k.dtb = "/k/board.dtb";
	xml = domain_xml_new(m, &k, CONSOLE, &cause);
	if (xml == NULL)
		fail_msg("%s", cause);
	doc = xmlReadMemory(xml, (int)strlen(xml), "a64.xml", NULL, 0);
	assert_non_null(doc);
	assert_xpath(doc, "/domain/os/type/@arch", "aarch64");
	assert_xpath(doc, "/domain/os/type/@machine", "virt");
	assert_xpath(doc, "/domain/os/dtb", "/k/board.dtb");
	assert_xpath(doc, "/domain/features/gic/@version", "3");
	assert_null(xpath_text(doc, "/domain/features/acpi"));
	assert_null(xpath_text(doc, "/domain/devices/panic"));
	assert_xpath(doc, "/domain/cpu/model", "cortex-a57");
	assert_xpath(doc, "/domain/os/cmdline",
	    "console=ttyAMA0 panic=1 rt_group_sched=0");
	assert_xpath(doc, "/domain/qemu:commandline/qemu:arg[4]/@value",
	    "virtio-net-pci,netdev=hilab0,bus=pcie.0,addr=0x10");
	/* libvirt 9 has no clusters: a second -smp that merges into its. */
	assert_xpath(doc, "/domain/cpu/topology/@cores", "8");
	assert_xpath(doc, "/domain/qemu:commandline/qemu:arg[5]/@value",
	    "-smp");
	assert_xpath(doc, "/domain/qemu:commandline/qemu:arg[6]/@value",
	    "32,sockets=2,clusters=2,cores=4,threads=2");
	xmlFreeDoc(doc);
	rc = validate(xml);
	if (rc != -1 && rc != 0)
		fail_msg("virt-xml-validate rejects:\n%s", xml);
	free(xml);
	m->topo.clusters = 3;
	assert_null(domain_xml_new(m, &k, CONSOLE, &cause));
	assert_non_null(strstr(cause,
	    "8 cores per socket do not split into "
	    "3 clusters"));
	free(cause);
	free(m->arch);
	m->arch = xstrdup("x86_64");
	m->topo.clusters = 2;
	assert_null(domain_xml_new(m, &k, CONSOLE, &cause));
	assert_non_null(strstr(cause, "clusters are an aarch64 level"));
	free(cause);
	m->topo.clusters = -1;
	free(m->arch);
	m->arch = xstrdup("riscv64");
	assert_null(domain_xml_new(m, &k, CONSOLE, &cause));
	assert_non_null(strstr(cause, "only x86_64 and aarch64 VMs"));
	free(cause);
	inventory_free(inv);
}

/* Asserts domain_xml_new refuses m with a cause containing needle. */
static void
assert_refused(const struct machine *m, const struct backend_kernel *k,
    const char *needle)
{
	char *xml, *cause = NULL;

	xml = domain_xml_new(m, k, "/c.log", &cause);
	assert_null(xml);
	assert_non_null(cause);
	if (strstr(cause, needle) == NULL ||
	    strncmp(cause, "machine \"vm32\": ", 16) != 0)
		fail_msg("cause \"%s\" lacks \"%s\"", cause, needle);
	free(cause);
}

/* What cannot make a domain is refused with a reason. */
static void
test_refused(void **state)
{
	struct inventory     *inv = load_vm32();
	struct machine	     *m = inv->machines[0];
	struct backend_kernel k = { "base", "/k", NULL, NULL };
	struct backend_kernel none = { "base", NULL, NULL, NULL };
	char		     *host = m->ssh.host;

	(void)state;
	assert_refused(m, &none, "no kernel image");
	m->topo.threads = 4;
	assert_refused(m, &k, "does not make 32 vcpus");
	m->topo.threads = 2;
	m->ssh.host = "10.0.0.1";
	assert_refused(m, &k, "loopback");
	m->ssh.host = "127.0.0.1,hostfwd=tcp::80-:80";
	assert_refused(m, &k, "loopback");
	m->ssh.host = host;
	inventory_free(inv);
}

/*
 * Loads a one-VM machine file that ends with extra: keys of its libvirt
 * section when indented, top-level keys when not.
 */
static struct inventory *
load_vm_with(const char *extra)
{
	char		  dir[] = "/tmp/hilab-dx-XXXXXX", *path, *cause = NULL;
	struct inventory *inv;
	FILE		 *fp;

	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/vm.yaml", dir);
	assert_non_null(fp = fopen(path, "w"));
	fprintf(fp,
	    "name: vm\nkind: libvirt\nssh: {host: 127.0.0.11, "
	    "port: 2222, identity: k, known_hosts: kh}\nlibvirt:\n"
	    "  vcpus: 2\n  memory: 1G\n%s",
	    extra);
	fclose(fp);
	inv = inventory_load_file(path, &cause);
	if (inv == NULL)
		fail_msg("%s", cause);
	unlink(path);
	rmdir(dir);
	free(path);
	return inv;
}

/* Asserts that the first device of m's domain is emulator want. */
static void
assert_emulator(const struct machine *m, const char *want)
{
	struct backend_kernel k = { .name = "base", .image = "/k" };
	char		     *xml, *cause = NULL;
	xmlDocPtr	      doc;
	int		      rc;

	xml = domain_xml_new(m, &k, "/c.log", &cause);
	if (xml == NULL)
		fail_msg("%s", cause);
	doc = xmlReadMemory(xml, (int)strlen(xml), "d.xml", NULL, 0);
	assert_xpath(doc, "/domain/devices/*[1][self::emulator]", want);
	if ((rc = validate(xml)) == -1)
		validator_missing = true;
	else
		assert_int_equal(rc, 0);
	xmlFreeDoc(doc);
	free(xml);
}

/*
 * The domain runs the emulator the machine file names; by default the
 * single-threaded TCG wrapper on x86_64, qemu itself on aarch64.
 */
static void
test_emulator(void **state)
{
	const char	 *src = getenv("HILAB_SRCDIR");
	struct inventory *inv;
	char		 *wrapper, *line;

	(void)state;
	inv = load_vm32();
	assert_emulator(inv->machines[0], MACHINE_QEMU_SINGLE);
	inventory_free(inv);

	wrapper = xasprintf("%s/scripts/qemu-tcg-single", src ? src : ".");
	line = xasprintf("  emulator: %s\n", wrapper);
	inv = load_vm_with(line);
	assert_string_equal(inv->machines[0]->libvirt.emulator, wrapper);
	assert_emulator(inv->machines[0], wrapper);
	inventory_free(inv);
	free(line);
	free(wrapper);

	inv = load_vm_with("arch: aarch64\n");
	assert_string_equal(inv->machines[0]->libvirt.emulator,
	    MACHINE_QEMU_AARCH64);
	inventory_free(inv);
}

/* An ssh host without a boot section runs its own kernel only. */
static void
test_ssh_backend(void **state)
{
	struct machine	      m = { .name = "box",
		       .kind = MACHINE_SSH,
		       .file = "box.yaml" };
	struct backend_kernel k = { "patch 1", "/k", NULL, NULL };
	struct backend	     *b;
	char		     *cause = NULL;

	(void)state;
	b = backend_new(&m, &cause);
	assert_non_null(b);
	assert_string_equal(b->ops->name, "ssh");
	assert_int_equal(backend_boot(b, NULL, &cause), 0);
	assert_int_equal(backend_boot(b, &k, &cause), -1);
	assert_string_equal(cause,
	    "machine \"box\": kernel \"patch 1\": it has no \"boot\" "
	    "section in box.yaml, so it runs only its own kernel");
	assert_null(backend_console(b));
	free(cause);
	backend_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed0),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_flat_topology),
		cmocka_unit_test(test_aarch64),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_emulator),
		cmocka_unit_test(test_ssh_backend),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, NULL, NULL);
	xmlCleanupParser();
	if (rc == 0 && validator_missing)
		return SKIP_MISSING_EXIT(
		    "%s missing (apt-get install "
		    "libvirt-clients libxml2-utils): the schema check did "
		    "not run",
		    VALIDATOR);
	return rc;
}
