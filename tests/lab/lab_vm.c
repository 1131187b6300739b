/*
 * Drives the libvirt backend against the real lab (vm.sh brings it up
 * and exports its environment): real qemu:///system domains under TCG,
 * the lab's kernels and host image, the agent over ssh.  One step per
 * run:
 *	switch MACHINE	a left-over domain of the same name goes, then
 *			boot base, check facts, boot patched, check the
 *			release changed, boot the running kernel, shut down
 *	boot MACHINE	boot base and check the facts against the machine
 *	panic MACHINE	a kernel that panics at boot is seen within 30 s
 *	cleanup MACHINE	libvirt_cleanup_prefix removes left-over domains
 *	xml MACHINE	prints the domain hilab defines to boot base, its
 *			console in the machine's console_dir as plain.log
 *			(bench/vmboot.sh boots it with plain virsh)
 *	boots MACHINE	boots the two kernels in turn HILAB_LAB_BOOTS times
 *			(default 50) under a load of two spinning processes,
 *			one boot each, none made again; fails on any boot
 *			that does not come up.  HILAB_LAB_EMULATOR names
 *			another emulator: then failures are only counted
 *			(bench/boot-tcg.sh compares qemu's default so)
 * Boot times print as "boot MACHINE KERNEL VCPUS: N.N s to ssh".
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libvirt/libvirt.h>

#include "common/xmalloc.h"
#include "machines/agent_client.h"
#include "machines/backend.h"
#include "machines/domain_xml.h"
#include "machines/inventory.h"
#include "machines/libvirt.h"

#define PANIC_LIMIT_S 30.0
#define LOAD_PROCS    2

static struct inventory *inv;

/* Prints a failure and exits 1. */
static void __attribute__((format(printf, 1, 2), noreturn))
die(const char *fmt, ...)
{
	va_list ap;

	fputs("FAIL: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* An environment variable vm.sh must have set. */
static const char *
env(const char *name)
{
	const char *v = getenv(name);

	if (v == NULL || *v == '\0')
		die("%s is not set (run through tests/lab/vm.sh)", name);
	return v;
}

/* Seconds on the monotonic clock. */
static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The lab machine called name. */
static struct machine *
lab_machine(const char *name)
{
	char	       *cause = NULL;
	struct machine *m;

	if (inv == NULL &&
	    (inv = inventory_load(env("HILAB_MACHINES"), &cause)) == NULL)
		die("%s", cause);
	if ((m = inventory_find(inv, name)) == NULL)
		die("no machine \"%s\" in %s", name, env("HILAB_MACHINES"));
	if (m->kind != MACHINE_LIBVIRT)
		die("machine \"%s\" is not kind libvirt", name);
	return m;
}

/* A backend for m with the lab's host image. */
static struct backend *
lab_backend(struct machine *m)
{
	struct libvirt_defaults d = { NULL, env("HILAB_LAB_INITRD"), 0 };
	char		       *cause = NULL;
	struct backend	       *b;

	if ((b = backend_new(m, &cause)) == NULL)
		die("%s", cause);
	if (strcmp(b->ops->name, "libvirt") != 0)
		die("backend_new gave \"%s\" for kind libvirt", b->ops->name);
	libvirt_backend_set_defaults(b, &d);
	return b;
}

/* Boots a lab kernel (env var of its image) and prints the time. */
static void
lab_boot(struct backend *b, const char *kname, const char *image_var,
    const char *cmdline)
{
	struct backend_kernel k = { kname, env(image_var), NULL, cmdline };
	char		     *cause = NULL, *con;
	double		      t0 = now_s(), t;

	if (backend_boot(b, &k, &cause) != 0) {
		con = backend_console(b);
		die("%s\n--- console ---\n%s", cause, con ? con : "(none)");
	}
	t = now_s() - t0;
	printf("boot %s %s %d vcpus: %.1f s to ssh (%.1f s from start)\n",
	    b->machine->name, kname, b->machine->libvirt.vcpus, t,
	    libvirt_backend_boot_seconds(b));
	if (libvirt_backend_boot_seconds(b) <= 0 ||
	    libvirt_backend_boot_seconds(b) > t)
		die("boot time %.3f s out of range",
		    libvirt_backend_boot_seconds(b));
}

/* Asserts fact key is want. */
static void
fact_is(const struct agent_facts *f, const char *key, const char *want)
{
	const char *got = agent_facts_get(f, key);

	if (got == NULL || strcmp(got, want) != 0)
		die("fact %s: got \"%s\", want \"%s\"", key,
		    got ? got : "(absent)", want);
	printf("  %s=%s\n", key, got);
}

/* Asserts fact key contains needle. */
static void
fact_has(const struct agent_facts *f, const char *key, const char *needle)
{
	const char *got = agent_facts_get(f, key);

	if (got == NULL || strstr(got, needle) == NULL)
		die("fact %s: \"%s\" lacks \"%s\"", key, got ? got : "(absent)",
		    needle);
}

/* Checks the agent's facts against machine m and the kernel booted. */
static void
lab_check(const struct machine *m, const char *release, const char *cmd)
{
	struct agent_facts f;
	struct agent_conn *c;
	char		  *cause = NULL, n[32];
	double		   t0 = now_s();

	if ((c = agent_connect(m, env("HILAB_AGENT_DIR"), &cause)) == NULL)
		die("%s", cause);
	if (agent_facts(c, &f, &cause) != 0)
		die("%s", cause);
	printf("  agent %s in %.2f s\n",
	    agent_uploaded(c) ? "uploaded" : "reused", now_s() - t0);
	snprintf(n, sizeof(n), "%d", m->libvirt.vcpus);
	fact_is(&f, "cpu.online", n);
	snprintf(n, sizeof(n), "%d", m->topo.sockets);
	fact_is(&f, "topo.sockets", n);
	snprintf(n, sizeof(n), "%d", m->topo.threads);
	fact_is(&f, "topo.threads_per_core", n);
	snprintf(n, sizeof(n), "%d", m->topo.cores);
	fact_is(&f, "topo.cores_per_socket", n);
	if (m->libvirt.ncells > 0) {
		snprintf(n, sizeof(n), "%zu", m->libvirt.ncells);
		fact_is(&f, "numa.nodes", n);
	}
	fact_is(&f, "kernel.release", release);
	fact_has(&f, "kernel.cmdline", "rt_group_sched=0");
	if (cmd != NULL)
		fact_has(&f, "kernel.cmdline", cmd);
	printf("  kernel.cmdline=%s\n", agent_facts_get(&f, "kernel.cmdline"));
	agent_facts_clear(&f);
	agent_close(c);
}

/* True if a domain called name exists under uri. */
static bool
domain_exists(const char *uri, const char *name)
{
	virConnectPtr conn = virConnectOpen(uri);
	virDomainPtr  d;

	if (conn == NULL)
		die("connect to %s", uri);
	d = virDomainLookupByName(conn, name);
	if (d != NULL)
		virDomainFree(d);
	virConnectClose(conn);
	return d != NULL;
}

/* Defines (and with start, starts) a domain for m as a stray would. */
static void
stray_domain(const struct machine *m, const char *cmdline, bool start)
{
	struct backend_kernel k = { "stray", env("HILAB_LAB_KERNEL_BASE"),
		env("HILAB_LAB_INITRD"), cmdline };
	char		     *xml, *cause = NULL, *con;
	virConnectPtr	      conn = virConnectOpen(m->libvirt.uri);
	virDomainPtr	      d;

	con = xasprintf("%s/%s-stray.log", m->libvirt.console_dir, m->name);
	if ((xml = domain_xml_new(m, &k, con, &cause)) == NULL)
		die("%s", cause);
	if (conn == NULL || (d = virDomainDefineXML(conn, xml)) == NULL)
		die("define a stray %s", m->name);
	if (start && virDomainCreate(d) != 0)
		die("start a stray %s", m->name);
	virDomainFree(d);
	virConnectClose(conn);
	free(xml);
	free(con);
}

/* Shuts m down and checks its domain is gone. */
static void
lab_shutdown(struct backend *b)
{
	char *cause = NULL, *name = domain_xml_name(b->machine);

	if (backend_shutdown(b, &cause) != 0)
		die("%s", cause);
	if (domain_exists(b->machine->libvirt.uri, name))
		die("domain %s still there after shutdown", name);
	free(name);
}

/* A stray domain goes, two kernels boot in turn, then the running one. */
static void
step_switch(struct machine *m)
{
	const char     *base = env("HILAB_LAB_RELEASE_BASE");
	const char     *patched = env("HILAB_LAB_RELEASE_PATCHED");
	struct backend *b = lab_backend(m);
	char	       *cause = NULL;
	double		t0;

	if (strcmp(base, patched) == 0)
		die("the lab's two kernels are the same release %s", base);
	stray_domain(m, "hilab.stray=1", true);
	lab_boot(b, "base", "HILAB_LAB_KERNEL_BASE", "hilab.lab=switch");
	lab_check(m, base, "hilab.lab=switch");
	lab_boot(b, "patched", "HILAB_LAB_KERNEL_PATCHED", NULL);
	lab_check(m, patched, NULL);
	t0 = now_s();
	if (backend_boot(b, NULL, &cause) != 0)
		die("%s", cause);
	printf("boot %s running kernel: %.2f s\n", m->name, now_s() - t0);
	if (now_s() - t0 > 5.0)
		die("booting the running kernel took %.1f s", now_s() - t0);
	lab_check(m, patched, NULL);
	lab_shutdown(b);
	backend_free(b);
}

/* Boots base and checks the facts: the topology of a bigger VM. */
static void
step_boot(struct machine *m)
{
	struct backend *b = lab_backend(m);

	lab_boot(b, "base", "HILAB_LAB_KERNEL_BASE", NULL);
	lab_check(m, env("HILAB_LAB_RELEASE_BASE"), NULL);
	lab_shutdown(b);
	backend_free(b);
}

/* A kernel that cannot find init panics; the boot says so in seconds. */
static void
step_panic(struct machine *m)
{
	struct backend	     *b = lab_backend(m);
	struct backend_kernel k = { "patch 1", env("HILAB_LAB_KERNEL_BASE"),
		NULL, "rdinit=/nonexistent" };
	char  *cause = NULL, *con, *want, *name = domain_xml_name(m);
	double t0 = now_s(), t;

	if (backend_boot(b, &k, &cause) == 0)
		die("a kernel without init booted");
	t = now_s() - t0;
	printf("panic %s seen after %.1f s: %s\n", m->name, t, cause);
	want = xasprintf("machine \"%s\": kernel \"patch 1\" panicked at "
			 "boot: ",
	    m->name);
	if (strncmp(cause, want, strlen(want)) != 0 ||
	    strstr(cause, "Kernel panic") == NULL)
		die("cause \"%s\" does not start \"%s\"", cause, want);
	if (t > PANIC_LIMIT_S)
		die("the panic took %.1f s to see (limit %.0f s)", t,
		    PANIC_LIMIT_S);
	if ((con = backend_console(b)) == NULL || strstr(con, "panic") == NULL)
		die("the console excerpt lacks the panic:\n%s", con);
	if (domain_exists(m->libvirt.uri, name))
		die("domain %s still there after the panic", name);
	free(con);
	free(want);
	free(name);
	free(cause);
	backend_free(b);
}

/* Stray hilab-labtest-* domains go, others stay. */
static void
step_cleanup(struct machine *m)
{
	const char *uri = m->libvirt.uri;
	char	   *saved = m->name, *host = m->ssh.host, *cause = NULL;
	int	    n;

	if (libvirt_cleanup_prefix(uri, "hilab-labtest-", &cause) == -1 ||
	    libvirt_cleanup_prefix(uri, "hilab-labkeep", &cause) == -1)
		die("%s", cause);
	m->ssh.host = "127.0.0.19";
	m->name = "labtest-gone1";
	stray_domain(m, NULL, true);
	m->name = "labtest-gone2";
	stray_domain(m, NULL, false);
	m->name = "labkeep";
	stray_domain(m, NULL, false);
	m->name = saved;
	m->ssh.host = host;
	if ((n = libvirt_cleanup_prefix(uri, "hilab-labtest-", &cause)) != 2)
		die("cleanup removed %d, not 2: %s", n, cause ? cause : "");
	if (domain_exists(uri, "hilab-labtest-gone1") ||
	    domain_exists(uri, "hilab-labtest-gone2"))
		die("a hilab-labtest-* domain survived the cleanup");
	if (!domain_exists(uri, "hilab-labkeep"))
		die("the cleanup removed hilab-labkeep");
	if (libvirt_cleanup_prefix(uri, "hilab-labkeep", &cause) != 1 ||
	    domain_exists(uri, "hilab-labkeep"))
		die("hilab-labkeep was not removed");
	printf("cleanup removed the stray domains\n");
}

/* Starts n processes that spin until killed (or this one exits). */
static void
load_start(pid_t *pids, int n)
{
	volatile unsigned long spin = 0;
	int		       i;

	for (i = 0; i < n; i++) {
		if ((pids[i] = fork()) == -1)
			die("fork: %s", strerror(errno));
		if (pids[i] != 0)
			continue;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			spin++;
	}
}

/* Ends the load. */
static void
load_stop(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Boots kernel k once; its time in *t, or its failure kind counted. */
static bool
boots_one(struct backend *b, const struct backend_kernel *k, int i, double *t,
    int *failed)
{
	char  *cause = NULL;
	double t0 = now_s();

	if (backend_boot(b, k, &cause) == 0) {
		*t = now_s() - t0;
		printf("boot %d %s: %.1f s\n", i + 1, k->name, *t);
		fflush(stdout);
		return true;
	}
	failed[b->failure]++;
	printf("boot %d %s FAILED (%s): %s\n", i + 1, k->name,
	    backend_failure_name(b->failure), cause);
	fflush(stdout);
	free(cause);
	return false;
}

/* Many boots under load: how often one does not come up, and how long. */
static void
step_boots(struct machine *m)
{
	const char	     *nv = getenv("HILAB_LAB_BOOTS");
	const char	     *emu = getenv("HILAB_LAB_EMULATOR");
	struct backend_kernel k[2] = { { "base", env("HILAB_LAB_KERNEL_BASE"),
					   NULL, NULL },
		{ "patched", env("HILAB_LAB_KERNEL_PATCHED"), NULL, NULL } };
	int		      n = nv != NULL ? atoi(nv) : 50, i, ok = 0;
	int		      failed[BACKEND_FAIL_CONFIG + 1] = { 0 };
	pid_t		      load[LOAD_PROCS];
	struct backend	     *b;
	double		     *t;

	if (n < 1)
		die("HILAB_LAB_BOOTS must be a positive number");
	if (emu != NULL && *emu != '\0') {
		free(m->libvirt.emulator);
		m->libvirt.emulator = xstrdup(emu);
	}
	b = lab_backend(m);
	t = xcalloc((size_t)n, sizeof(*t));
	load_start(load, LOAD_PROCS);
	for (i = 0; i < n; i++)
		if (boots_one(b, &k[i % 2], i, &t[ok], failed))
			ok++;
	load_stop(load, LOAD_PROCS);
	lab_shutdown(b);
	backend_free(b);
	qsort(t, (size_t)ok, sizeof(*t), cmp_double);
	printf("boots %s (%s, %d spinning): %d boots, %d up, %d hung, "
	       "%d emulator failures, %d kernel failures; median %.1f s, "
	       "max %.1f s\n",
	    m->name, m->libvirt.emulator, LOAD_PROCS, n, ok,
	    failed[BACKEND_FAIL_HANG], failed[BACKEND_FAIL_EMULATOR],
	    failed[BACKEND_FAIL_KERNEL] + failed[BACKEND_FAIL_CONFIG],
	    ok > 0 ? (ok % 2 ? t[ok / 2] : (t[ok / 2 - 1] + t[ok / 2]) / 2)
		   : 0.0,
	    ok > 0 ? t[ok - 1] : 0.0);
	free(t);
	if (ok != n && (emu == NULL || *emu == '\0'))
		die("%d of %d boots did not come up", n - ok, n);
}

/* The domain of the base kernel as hilab would define it, on stdout. */
static void
step_xml(struct machine *m)
{
	struct backend_kernel k = { "base", env("HILAB_LAB_KERNEL_BASE"),
		env("HILAB_LAB_INITRD"), NULL };
	char		     *cause = NULL, *con, *xml;

	con = xasprintf("%s/plain.log",
	    m->libvirt.console_dir != NULL ? m->libvirt.console_dir : "/tmp");
	if ((xml = domain_xml_new(m, &k, con, &cause)) == NULL)
		die("%s", cause);
	fputs(xml, stdout);
	free(xml);
	free(con);
}

int
main(int argc, char **argv)
{
	struct machine *m;

	if (argc != 3)
		die("usage: %s switch|boot|panic|cleanup|boots|xml MACHINE",
		    argv[0]);
	m = lab_machine(argv[2]);
	if (strcmp(argv[1], "switch") == 0)
		step_switch(m);
	else if (strcmp(argv[1], "boot") == 0)
		step_boot(m);
	else if (strcmp(argv[1], "panic") == 0)
		step_panic(m);
	else if (strcmp(argv[1], "cleanup") == 0)
		step_cleanup(m);
	else if (strcmp(argv[1], "boots") == 0)
		step_boots(m);
	else if (strcmp(argv[1], "xml") == 0)
		step_xml(m);
	else
		die("unknown step \"%s\"", argv[1]);
	inventory_free(inv);
	return 0;
}
