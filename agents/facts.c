/*
 * Facts about the host, read from uname(2), /proc and /sys.  A fact the
 * host does not have is absent, never a default.
 *
 *	key			source
 *	kernel.release		uname(2) release
 *	kernel.version		uname(2) version (uname -v)
 *	kernel.cmdline		/proc/cmdline
 *	boot_id			/proc/sys/kernel/random/boot_id
 *	arch			uname(2) machine
 *	cpu.model		/proc/cpuinfo "model name"; on arm64 "CPU
 *				implementer"/"CPU part" named from a table, or
 *				"implementer 0x41 part 0xd0c" when unknown
 *	cpu.online		number of CPUs in /sys/devices/system/cpu/online
 *	cpu.online_list		/sys/devices/system/cpu/online ("0-31")
 *	topo.sockets		distinct physical_package_id of online CPUs
 *	topo.dies		distinct (package, die_id) per socket
 *	topo.cores_per_socket	distinct thread_siblings_list per socket
 *	topo.threads_per_core	most CPUs in one thread_siblings_list
 *	topo.llc_groups		distinct shared_cpu_list of each online CPU's
 *				highest-level data/unified cache, ';'-separated,
 *				ordered by first CPU ("0-3;4-7;16-17")
 *	topo.cluster_groups	distinct topology/cluster_cpus_list, the same
 *				way (arm64 clusters of the DT or PPTT, x86 L2
 *				sharing); absent before Linux 5.16
 *	numa.nodes		number of /sys/devices/system/node/node<N>
 *	numa.node_list		those N as a list ("0-1")
 *	mem.total_kb		/proc/meminfo MemTotal
 *	cpufreq.governor	cpu0/cpufreq/scaling_governor
 *	cpufreq.driver		cpu0/cpufreq/scaling_driver
 *	cpufreq.boost		/sys/devices/system/cpu/cpufreq/boost
 *	intel_pstate.no_turbo	/sys/devices/system/cpu/intel_pstate/no_turbo
 *	smt.control		/sys/devices/system/cpu/smt/control
 *	smt.active		/sys/devices/system/cpu/smt/active
 *	mitigations		/sys/devices/system/cpu/vulnerabilities/<name>
 *				as "name=value;..." in name order
 *	microcode		/proc/cpuinfo "microcode" (first CPU)
 *	thp.enabled		/sys/kernel/mm/transparent_hugepage/enabled,
 *				the [selected] word
 *	cpuidle.driver		/sys/devices/system/cpu/cpuidle/current_driver
 *	cpuidle.governor	.../cpuidle/current_governor(_ro)
 *	sched.features		/sys/kernel/debug/sched/features (or the older
 *				/sys/kernel/debug/sched_features) if readable
 *	clocksource		clocksource0/current_clocksource
 */
#include <sys/utsname.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/xmalloc.h"

#define SYS_CPU	       "/sys/devices/system/cpu"
/* Large enough for any sysfs or proc file the agent reads. */
#define FACTS_FILE_MAX (1024 * 1024)

/* Reads a whole small file, trailing whitespace cut; NULL if unreadable. */
char *
facts_read(const char *path)
{
	char   *buf = NULL;
	size_t	len = 0;
	ssize_t n = 0;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	buf = xmalloc(FACTS_FILE_MAX + 1);
	while (len < FACTS_FILE_MAX &&
	    (n = read(fd, buf + len, FACTS_FILE_MAX - len)) > 0)
		len += n;
	close(fd);
	if (len == 0 && n == -1) {
		free(buf);
		return NULL;
	}
	while (len > 0 && strchr(" \t\n", buf[len - 1]) != NULL)
		len--;
	buf[len] = '\0';
	return xreallocarray(buf, len + 1, 1);
}

/* The first of two files that can be read. */
static char *
facts_file2(const char *paths)
{
	const char *second = paths + strlen(paths) + 1;
	char	   *v;

	if ((v = facts_read(paths)) == NULL)
		v = facts_read(second);
	return v;
}

/* A field of uname(2). */
static char *
facts_uname(const char *field)
{
	struct utsname u;

	if (uname(&u) == -1)
		return NULL;
	if (strcmp(field, "release") == 0)
		return xstrdup(u.release);
	if (strcmp(field, "version") == 0)
		return xstrdup(u.version);
	return xstrdup(u.machine);
}

/* The value of the first "name : value" line of a /proc file. */
static char *
facts_proc_field(const char *path, const char *name)
{
	char  *text = facts_read(path), *line, *save = NULL, *v = NULL;
	size_t len = strlen(name);

	if (text == NULL)
		return NULL;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, name, len) != 0 ||
		    strchr(" \t:", line[len]) == NULL)
			continue;
		if ((line = strchr(line, ':')) == NULL)
			continue;
		line += strspn(line + 1, " \t") + 1;
		v = xstrdup(line);
		break;
	}
	free(text);
	return v;
}

/* A field of /proc/cpuinfo. */
static char *
facts_cpuinfo(const char *name)
{
	return facts_proc_field("/proc/cpuinfo", name);
}

/* Arm CPU parts by implementer and part number. */
static const struct {
	unsigned    impl, part;
	const char *name;
} facts_arm_parts[] = {
	{ 0x41, 0xd03, "Cortex-A53" },
	{ 0x41, 0xd04, "Cortex-A35" },
	{ 0x41, 0xd05, "Cortex-A55" },
	{ 0x41, 0xd07, "Cortex-A57" },
	{ 0x41, 0xd08, "Cortex-A72" },
	{ 0x41, 0xd09, "Cortex-A73" },
	{ 0x41, 0xd0a, "Cortex-A75" },
	{ 0x41, 0xd0b, "Cortex-A76" },
	{ 0x41, 0xd0c, "Neoverse-N1" },
	{ 0x41, 0xd0d, "Cortex-A77" },
	{ 0x41, 0xd40, "Neoverse-V1" },
	{ 0x41, 0xd41, "Cortex-A78" },
	{ 0x41, 0xd49, "Neoverse-N2" },
	{ 0x41, 0xd4f, "Neoverse-V2" },
	{ 0x41, 0xd8e, "Neoverse-N3" },
	{ 0x48, 0xd01, "Kunpeng-920" },
	{ 0xc0, 0xac3, "Ampere-1" },
	{ 0xc0, 0xac4, "Ampere-1a" },
};

/* An arm64 CPU's name from its implementer and part, or the raw ids. */
static char *
facts_arm_model(void)
{
	char	*impl = facts_cpuinfo("CPU implementer");
	char	*part = facts_cpuinfo("CPU part");
	char	*v = NULL;
	unsigned i, ni, np;

	if (impl == NULL || part == NULL)
		goto out;
	ni = strtoul(impl, NULL, 0);
	np = strtoul(part, NULL, 0);
	for (i = 0; i < sizeof facts_arm_parts / sizeof *facts_arm_parts; i++) {
		if (facts_arm_parts[i].impl == ni &&
		    facts_arm_parts[i].part == np)
			v = xstrdup(facts_arm_parts[i].name);
	}
	if (v == NULL)
		v = xasprintf("implementer %s part %s", impl, part);
out:
	free(impl);
	free(part);
	return v;
}

/* The CPU model name. */
static char *
facts_cpu_model(const char *arg)
{
	char *v;

	(void)arg;
	if ((v = facts_cpuinfo("model name")) != NULL)
		return v;
	return facts_arm_model();
}

/* MemTotal in kB. */
static char *
facts_mem_total(const char *arg)
{
	char *v = facts_proc_field("/proc/meminfo", "MemTotal");
	char *kb;

	(void)arg;
	if (v != NULL && (kb = strstr(v, " kB")) != NULL)
		*kb = '\0';
	return v;
}

/* The [selected] word of a sysfs choice file. */
static char *
facts_selected(const char *path)
{
	char *text = facts_read(path), *lo, *hi, *v = NULL;

	if (text != NULL && (lo = strchr(text, '[')) != NULL &&
	    (hi = strchr(lo, ']')) != NULL)
		v = xstrndup(lo + 1, hi - lo - 1);
	free(text);
	return v;
}

/* Appends "name=value" of one vulnerabilities file to *acc. */
static void
facts_mitigation(char **acc, const char *name)
{
	char *path = xasprintf(SYS_CPU "/vulnerabilities/%s", name);
	char *v = facts_read(path), *t;

	if (v != NULL) {
		t = xasprintf("%s%s%s=%s", *acc, **acc ? ";" : "", name, v);
		free(*acc);
		*acc = t;
	}
	free(v);
	free(path);
}

/* Every CPU vulnerability file as "name=value;...". */
static char *
facts_mitigations(const char *arg)
{
	struct dirent **de;
	char	       *acc;
	int		n, i;

	(void)arg;
	if ((n = scandir(SYS_CPU "/vulnerabilities", &de, NULL, alphasort)) ==
	    -1)
		return NULL;
	acc = xstrdup("");
	for (i = 0; i < n; i++) {
		if (de[i]->d_name[0] != '.')
			facts_mitigation(&acc, de[i]->d_name);
		free(de[i]);
	}
	free(de);
	return acc;
}

/* Every fact, in the order reported, and how to get it. */
static const struct {
	const char *key;
	char *(*get)(const char *);
	const char *arg;
} facts_table[] = {
	{ "kernel.release", facts_uname, "release" },
	{ "kernel.version", facts_uname, "version" },
	{ "kernel.cmdline", facts_read, "/proc/cmdline" },
	{ "boot_id", facts_read, "/proc/sys/kernel/random/boot_id" },
	{ "arch", facts_uname, "machine" },
	{ "cpu.model", facts_cpu_model, NULL },
	{ "cpu.online", topo_online_count, NULL },
	{ "cpu.online_list", facts_read, SYS_CPU "/online" },
	{ "topo.sockets", topo_sockets, NULL },
	{ "topo.cores_per_socket", topo_cores_per_socket, NULL },
	{ "topo.threads_per_core", topo_threads_per_core, NULL },
	{ "topo.dies", topo_dies, NULL },
	{ "topo.llc_groups", topo_llc_groups, NULL },
	{ "topo.cluster_groups", topo_cluster_groups, NULL },
	{ "numa.nodes", topo_numa_nodes, NULL },
	{ "numa.node_list", topo_numa_node_list, NULL },
	{ "mem.total_kb", facts_mem_total, NULL },
	{ "cpufreq.governor", facts_read,
	    SYS_CPU "/cpu0/cpufreq/scaling_governor" },
	{ "cpufreq.driver", facts_read,
	    SYS_CPU "/cpu0/cpufreq/scaling_driver" },
	{ "cpufreq.boost", facts_read, SYS_CPU "/cpufreq/boost" },
	{ "intel_pstate.no_turbo", facts_read,
	    SYS_CPU "/intel_pstate/no_turbo" },
	{ "smt.control", facts_read, SYS_CPU "/smt/control" },
	{ "smt.active", facts_read, SYS_CPU "/smt/active" },
	{ "mitigations", facts_mitigations, NULL },
	{ "microcode", facts_cpuinfo, "microcode" },
	{ "thp.enabled", facts_selected,
	    "/sys/kernel/mm/transparent_hugepage/enabled" },
	{ "cpuidle.driver", facts_read, SYS_CPU "/cpuidle/current_driver" },
	{ "cpuidle.governor", facts_file2,
	    SYS_CPU "/cpuidle/current_governor\0" SYS_CPU
		    "/cpuidle/current_governor_ro" },
	{ "sched.features", facts_file2,
	    "/sys/kernel/debug/sched/features"
	    "\0/sys/kernel/debug/sched_features" },
	{ "clocksource", facts_read,
	    "/sys/devices/system/clocksource/"
	    "clocksource0/current_clocksource" },
};

/* Reads every fact; the caller frees them with facts_free. */
struct fact *
facts_collect(size_t *n)
{
	struct fact *v;
	size_t	     i;

	*n = sizeof facts_table / sizeof *facts_table;
	v = xcalloc(*n, sizeof *v);
	for (i = 0; i < *n; i++) {
		v[i].key = facts_table[i].key;
		v[i].value = facts_table[i].get(facts_table[i].arg);
	}
	return v;
}

/* Frees collected facts. */
void
facts_free(struct fact *v, size_t n)
{
	size_t i;

	for (i = 0; v != NULL && i < n; i++)
		free(v[i].value);
	free(v);
}

/* Adds the facts to a FACTS frame as (KEY, VALUE | ABSENT) pairs. */
void
facts_add(struct proto_buf *b, const struct fact *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		proto_add_str(b, PROTO_T_KEY, v[i].key);
		if (v[i].value != NULL)
			proto_add_str(b, PROTO_T_VALUE, v[i].value);
		else
			proto_add_absent(b, PROTO_T_ABSENT);
	}
}

/* Prints the facts as key=value lines for people. */
void
facts_print(FILE *f, const struct fact *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i].value != NULL)
			fprintf(f, "%s=%s\n", v[i].key, v[i].value);
		else
			fprintf(f, "%s (absent)\n", v[i].key);
	}
}
