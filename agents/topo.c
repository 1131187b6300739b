/* Topology facts: sockets, dies, cores, threads, LLC groups, NUMA nodes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "common/xmalloc.h"

#define SYS_CPU	 "/sys/devices/system/cpu"
#define SYS_NODE "/sys/devices/system/node"

/* A set of distinct strings. */
struct topo_set {
	char **v;
	size_t n;
};

/* Adds s (taken) unless an equal string is there already. */
static void
topo_set_add(struct topo_set *set, char *s)
{
	size_t i;

	for (i = 0; i < set->n; i++) {
		if (strcmp(set->v[i], s) == 0) {
			free(s);
			return;
		}
	}
	set->v = xreallocarray(set->v, set->n + 1, sizeof *set->v);
	set->v[set->n++] = s;
}

/* Frees the set's strings. */
static void
topo_set_free(struct topo_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->v[i]);
	free(set->v);
	memset(set, 0, sizeof *set);
}

/* The online CPUs; -1 if the kernel does not say. */
static int
topo_online(struct cpulist *l)
{
	char *s = facts_read(SYS_CPU "/online");
	int   rc = -1;

	if (s != NULL)
		rc = cpulist_parse(s, l);
	free(s);
	return rc;
}

/* Reads a file of one CPU's sysfs directory. */
static char *
topo_cpu_file(size_t cpu, const char *file)
{
	char *path = xasprintf(SYS_CPU "/cpu%zu/%s", cpu, file);
	char *v = facts_read(path);

	free(path);
	return v;
}

/*
 * Collects the distinct values of a topology file over online CPUs
 * (prefixed by the package id if by_package); -1 if any is missing.
 */
static int
topo_distinct(const char *file, int by_package, struct topo_set *set)
{
	struct cpulist online;
	char	      *v, *pkg;
	size_t	       cpu;
	int	       rc = -1;

	memset(set, 0, sizeof *set);
	if (topo_online(&online) == -1)
		return -1;
	for (cpu = 0; cpu < online.n; cpu++) {
		if (!online.set[cpu])
			continue;
		if ((v = topo_cpu_file(cpu, file)) == NULL)
			goto out;
		if (by_package) {
			pkg =
			    topo_cpu_file(cpu, "topology/physical_package_id");
			topo_set_add(set,
			    xasprintf("%s:%s", pkg ? pkg : "", v));
			free(pkg);
			free(v);
		} else
			topo_set_add(set, v);
	}
	rc = set->n > 0 ? 0 : -1;
out:
	if (rc == -1)
		topo_set_free(set);
	cpulist_free(&online);
	return rc;
}

/* The number of distinct values of a topology file; 0 if unknown. */
static size_t
topo_count(const char *file, int by_package)
{
	struct topo_set set;
	size_t		n;

	if (topo_distinct(file, by_package, &set) == -1)
		return 0;
	n = set.n;
	topo_set_free(&set);
	return n;
}

/* n divided by the number of sockets, as a fact. */
static char *
topo_per_socket(size_t n)
{
	size_t sockets = topo_count("topology/physical_package_id", 0);

	if (n == 0 || sockets == 0)
		return NULL;
	return xasprintf("%zu", n / sockets);
}

/* The number of online CPUs. */
char *
topo_online_count(const char *arg)
{
	struct cpulist online;
	char	      *v;

	(void)arg;
	if (topo_online(&online) == -1)
		return NULL;
	v = xasprintf("%zu", cpulist_count(&online));
	cpulist_free(&online);
	return v;
}

/* The number of sockets (packages). */
char *
topo_sockets(const char *arg)
{
	size_t n = topo_count("topology/physical_package_id", 0);

	(void)arg;
	return n > 0 ? xasprintf("%zu", n) : NULL;
}

/* Dies per socket. */
char *
topo_dies(const char *arg)
{
	(void)arg;
	return topo_per_socket(topo_count("topology/die_id", 1));
}

/* Cores per socket: distinct sets of hardware threads. */
char *
topo_cores_per_socket(const char *arg)
{
	(void)arg;
	return topo_per_socket(topo_count("topology/thread_siblings_list", 0));
}

/* Hardware threads per core: the largest set of thread siblings. */
char *
topo_threads_per_core(const char *arg)
{
	struct topo_set set;
	struct cpulist	l;
	size_t		i, max = 0;

	(void)arg;
	if (topo_distinct("topology/thread_siblings_list", 0, &set) == -1)
		return NULL;
	for (i = 0; i < set.n; i++) {
		if (cpulist_parse(set.v[i], &l) == 0 && cpulist_count(&l) > max)
			max = cpulist_count(&l);
		cpulist_free(&l);
	}
	topo_set_free(&set);
	return max > 0 ? xasprintf("%zu", max) : NULL;
}

/* The shared_cpu_list of a CPU's highest-level data or unified cache. */
static char *
topo_llc(size_t cpu)
{
	char *path, *level, *type, *best = NULL;
	long  top = -1;
	int   i;

	for (i = 0;; i++) {
		path = xasprintf("cache/index%d/level", i);
		level = topo_cpu_file(cpu, path);
		free(path);
		if (level == NULL)
			break;
		path = xasprintf("cache/index%d/type", i);
		type = topo_cpu_file(cpu, path);
		free(path);
		if (strtol(level, NULL, 10) > top && type != NULL &&
		    strcmp(type, "Instruction") != 0) {
			top = strtol(level, NULL, 10);
			free(best);
			path = xasprintf("cache/index%d/shared_cpu_list", i);
			best = topo_cpu_file(cpu, path);
			free(path);
		}
		free(level);
		free(type);
	}
	return best;
}

/* Orders CPU lists by their first CPU. */
static int
topo_cmp_first(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a, NULL, 10);
	unsigned long y = strtoul(*(char *const *)b, NULL, 10);

	return (x > y) - (x < y);
}

/* A CPU's cluster: the CPUs its topology/cluster_cpus_list names. */
static char *
topo_cluster(size_t cpu)
{
	return topo_cpu_file(cpu, "topology/cluster_cpus_list");
}

/*
 * The distinct groups group_of(cpu) gives over the online CPUs, ordered
 * by their first CPU: "0-3;4-7;...", or NULL when none has one.
 */
static char *
topo_groups(char *(*group_of)(size_t))
{
	struct topo_set set = { NULL, 0 };
	struct cpulist	online;
	char	       *v = NULL, *t, *g;
	size_t		cpu, i;

	if (topo_online(&online) == -1)
		return NULL;
	for (cpu = 0; cpu < online.n; cpu++) {
		if (online.set[cpu] && (g = group_of(cpu)) != NULL)
			topo_set_add(&set, g);
	}
	if (set.n > 0)
		qsort(set.v, set.n, sizeof *set.v, topo_cmp_first);
	for (i = 0; i < set.n; i++) {
		t = xasprintf("%s%s%s", v ? v : "", v ? ";" : "", set.v[i]);
		free(v);
		v = t;
	}
	topo_set_free(&set);
	cpulist_free(&online);
	return v;
}

/* The distinct last-level cache groups, "0-3;4-7;...". */
char *
topo_llc_groups(const char *arg)
{
	(void)arg;
	return topo_groups(topo_llc);
}

/* The distinct clusters (CPUs sharing an L2 or a cluster of the DT/PPTT). */
char *
topo_cluster_groups(const char *arg)
{
	(void)arg;
	return topo_groups(topo_cluster);
}

/* The NUMA nodes the kernel lists; -1 without NUMA support. */
static int
topo_nodes(struct cpulist *l)
{
	struct dirent *de;
	DIR	      *d;
	const char    *s;

	memset(l, 0, sizeof *l);
	if ((d = opendir(SYS_NODE)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "node", 4) != 0)
			continue;
		s = de->d_name + 4;
		if (*s != '\0' && strspn(s, "0123456789") == strlen(s) &&
		    strlen(s) < 6)
			cpulist_add(l, atoi(s), atoi(s));
	}
	closedir(d);
	return 0;
}

/* The number of NUMA nodes. */
char *
topo_numa_nodes(const char *arg)
{
	struct cpulist l;
	char	      *v;

	(void)arg;
	if (topo_nodes(&l) == -1)
		return NULL;
	v = xasprintf("%zu", cpulist_count(&l));
	cpulist_free(&l);
	return v;
}

/* The NUMA node numbers as a list, "0-1". */
char *
topo_numa_node_list(const char *arg)
{
	struct cpulist l;
	char	      *v;

	(void)arg;
	if (topo_nodes(&l) == -1)
		return NULL;
	v = cpulist_format(&l);
	cpulist_free(&l);
	return v;
}
