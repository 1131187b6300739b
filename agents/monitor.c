/*
 * Monitors: snapshots of /proc (and perf counters, cpufreq) before and
 * after each iteration, outside its measured window, whose deltas become
 * "mon.<monitor>.<counter>" samples.  Nothing of them runs while the
 * benchmark does: perf counters count in the kernel and are read only at
 * the two snapshots.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/observe.h"
#include "common/proto.h"
#include "common/xmalloc.h"

#define MON_MAX_CPUS   4096
#define MON_SCHEDSTATS "/proc/sys/kernel/sched_schedstats"

/* The /proc/vmstat counters a vmstat monitor reports. */
static const char *const mon_vmstat_keys[] = { "pgfault", "pgmajfault",
	"pgmigrate_success", "numa_hint_faults", "numa_pages_migrated",
	"thp_fault_alloc", "pgalloc_normal", "pgfree", NULL };

/* What a schedstat monitor reports, from /proc/schedstat and /proc/stat. */
static const char *const mon_schedstat_keys[][2] = {
	{ "ttwu_count", "wakeups" }, { "ttwu_local", "wakeups_local" },
	{ "sched_count", "schedules" }, { "sched_goidle", "idle_schedules" },
	{ "run_delay", "run_delay_ns" }, { "rq_cpu_time", "cpu_time_ns" },
	{ "pcount", "timeslices" }, { NULL, NULL }
};

/* The perf software and hardware events of a perf-stat monitor. */
static const struct {
	const char *name;
	uint32_t    type;
	uint64_t    config;
} mon_perf_events[] = {
	{ "context_switches", PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "page_faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
};
#define MON_NPERF (sizeof mon_perf_events / sizeof mon_perf_events[0])

struct monitor {
	const char	   *name;
	struct obs_counters before;
	int		   *perf; /* perf-stat: fds [event * ncpu + cpu] */
	size_t		    ncpu;
	int		    has[MON_NPERF]; /* the events the host counts */
	struct guard	    guard; /* schedstat: switches sched_schedstats
				      back off, or fd -1 */
};

struct monitors {
	struct monitor *v;
	size_t		n;
};

/* Reads a whole /proc or sysfs file, or NULL with *cause. */
static char *
mon_read(const char *path, char **cause)
{
	char *s = facts_read(path);

	if (s == NULL)
		*cause = xasprintf("\"%s\": %s", path,
		    errno != 0 ? strerror(errno) : "cannot read");
	return s;
}

/* Parses the file at path with parse into c; -1 with *cause. */
static int
mon_parse_file(const char *path,
    int (*parse)(const char *, struct obs_counters *, char **),
    struct obs_counters *c, char **cause)
{
	char *text, *why = NULL;
	int   rc;

	if ((text = mon_read(path, cause)) == NULL)
		return -1;
	if ((rc = parse(text, c, &why)) == -1) {
		*cause = xasprintf("\"%s\": %s", path, why);
		free(why);
	}
	free(text);
	return rc;
}

/* The mean cpufreq of the policies in kHz, as the counter "khz". */
static int
mon_cpufreq(struct obs_counters *c, char **cause)
{
	char	 path[96], *s;
	uint64_t sum = 0, n = 0;
	int	 i;

	for (i = 0; i < MON_MAX_CPUS; i++) {
		snprintf(path, sizeof path,
		    "/sys/devices/system/cpu/cpufreq/policy%d/scaling_cur_freq",
		    i);
		if ((s = facts_read(path)) == NULL)
			continue;
		sum += strtoull(s, NULL, 10);
		n++;
		free(s);
	}
	if (n == 0) {
		*cause = xstrdup("no \"/sys/devices/system/cpu/cpufreq/"
				 "policy*/scaling_cur_freq\": no cpufreq");
		return -1;
	}
	obs_counter_set(c, "khz", sum / n);
	return 0;
}

/* The schedstat counters and /proc/stat's context switches and forks. */
static int
mon_schedstat(struct obs_counters *c, char **cause)
{
	struct obs_counters st = { 0 };
	int		    rc;

	if (mon_parse_file("/proc/schedstat", obs_parse_schedstat, c, cause) ==
	    -1)
		return -1;
	rc = mon_parse_file("/proc/stat", obs_parse_keyvalue, &st, cause);
	if (rc == 0) {
		obs_counter_set(c, "ctxt", obs_counter_get(&st, "ctxt"));
		obs_counter_set(c, "processes",
		    obs_counter_get(&st, "processes"));
	}
	obs_counters_clear(&st);
	return rc;
}

/* Sums each perf event over the CPUs. */
static int
mon_perf_read(struct monitor *m, struct obs_counters *c, char **cause)
{
	uint64_t v, sum;
	size_t	 e, i;

	for (e = 0; e < MON_NPERF; e++) {
		if (!m->has[e])
			continue;
		for (i = 0, sum = 0; i < m->ncpu; i++) {
			if (m->perf[e * m->ncpu + i] == -1)
				continue;
			if (read(m->perf[e * m->ncpu + i], &v, sizeof v) !=
			    sizeof v) {
				*cause = xasprintf("perf event \"%s\": read: "
						   "%s",
				    mon_perf_events[e].name, strerror(errno));
				return -1;
			}
			sum += v;
		}
		obs_counter_set(c, mon_perf_events[e].name, sum);
	}
	return 0;
}

/* Takes a snapshot of monitor m into c. */
static int
mon_snapshot(struct monitor *m, struct obs_counters *c, char **cause)
{
	if (strcmp(m->name, "schedstat") == 0)
		return mon_schedstat(c, cause);
	if (strcmp(m->name, "vmstat") == 0)
		return mon_parse_file("/proc/vmstat", obs_parse_keyvalue, c,
		    cause);
	if (strcmp(m->name, "interrupts") == 0)
		return mon_parse_file("/proc/interrupts", obs_parse_interrupts,
		    c, cause);
	if (strcmp(m->name, "softirqs") == 0)
		return mon_parse_file("/proc/softirqs", obs_parse_interrupts, c,
		    cause);
	if (strcmp(m->name, "cpufreq") == 0)
		return mon_cpufreq(c, cause);
	return mon_perf_read(m, c, cause);
}

/* Opens one system-wide counter of event e on cpu; -1 if not there. */
static int
mon_perf_open(size_t e, size_t cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = mon_perf_events[e].type;
	a.config = mon_perf_events[e].config;
	return (int)syscall(SYS_perf_event_open, &a, -1, (int)cpu, -1,
	    PERF_FLAG_FD_CLOEXEC);
}

/* Opens the perf-stat counters on every online CPU. */
static int
mon_perf_start(struct monitor *m, char **cause)
{
	size_t e, i;
	int    any = 0;

	m->ncpu = (size_t)sysconf(_SC_NPROCESSORS_CONF);
	m->perf = xcalloc(MON_NPERF * m->ncpu, sizeof *m->perf);
	for (e = 0; e < MON_NPERF; e++)
		for (i = 0; i < m->ncpu; i++) {
			m->perf[e * m->ncpu + i] = mon_perf_open(e, i);
			if (m->perf[e * m->ncpu + i] != -1)
				any = m->has[e] = 1;
		}
	if (any)
		return 0;
	*cause = xasprintf("perf_event_open: %s (no perf events: "
			   "CONFIG_PERF_EVENTS, or perf_event_paranoid)",
	    strerror(errno));
	return -1;
}

/* Switches the kernel's schedstats counting back off. */
static int
mon_schedstats_off(void *arg, char **cause)
{
	(void)arg;
	return probe_write(MON_SCHEDSTATS, "0", cause);
}

/*
 * Switches schedstats counting on for the run when it is off (the
 * kernel's default), and a guardian that switches it back off; without
 * it the wakeup and schedule counters of /proc/schedstat stay 0.
 */
static int
mon_schedstats_on(struct monitor *m, char **cause)
{
	char *was = facts_read(MON_SCHEDSTATS);
	int   rc = 0;

	m->guard.fd = -1;
	if (was != NULL && strcmp(was, "0") == 0) {
		m->guard = (struct guard){ mon_schedstats_off, NULL,
			"monitor schedstat", -1 };
		rc = guard_start(&m->guard, cause) == -1 ||
			probe_write(MON_SCHEDSTATS, "1", cause) == -1
		    ? -1
		    : 0;
	}
	free(was);
	return rc;
}

/* Frees one monitor, schedstats counting back as found. */
static void
mon_free(struct monitor *m)
{
	char  *why = NULL;
	size_t i;

	if (m->guard.fd != -1) {
		guard_end(&m->guard, mon_schedstats_off(NULL, &why) == 0);
		free(why);
	}

	for (i = 0; m->perf != NULL && i < MON_NPERF * m->ncpu; i++)
		if (m->perf[i] != -1)
			close(m->perf[i]);
	free(m->perf);
	obs_counters_clear(&m->before);
}

/* Starts monitor name: checks that the host offers it with a snapshot. */
static int
mon_start(struct monitor *m, const char *name, char **cause)
{
	char *why = NULL;
	int   rc;

	m->name = name;
	m->guard.fd = -1;
	if (strcmp(name, "perf-stat") == 0 && mon_perf_start(m, &why) == -1)
		rc = -1;
	else if (strcmp(name, "schedstat") == 0 &&
	    mon_schedstats_on(m, &why) == -1)
		rc = -1;
	else
		rc = mon_snapshot(m, &m->before, &why);
	if (rc == -1) {
		*cause = xasprintf("monitor \"%s\": %s", name, why);
		free(why);
	}
	return rc;
}

struct monitors *
monitors_open(char *const *names, char **cause)
{
	struct monitors *ms = xcalloc(1, sizeof *ms);
	size_t		 i;

	for (i = 0; names[i] != NULL; i++) {
		if (!proto_monitor_known(names[i])) {
			*cause = xasprintf("monitor \"%s\": unknown monitor",
			    names[i]);
			break;
		}
		ms->v = xreallocarray(ms->v, ms->n + 1, sizeof *ms->v);
		memset(&ms->v[ms->n], 0, sizeof ms->v[ms->n]);
		if (mon_start(&ms->v[ms->n++], names[i], cause) == -1)
			break;
	}
	if (names[i] == NULL)
		return ms;
	monitors_close(ms);
	return NULL;
}

int
monitors_before(struct monitors *ms, char **cause)
{
	size_t i;

	for (i = 0; i < ms->n; i++) {
		obs_counters_clear(&ms->v[i].before);
		if (mon_snapshot(&ms->v[i], &ms->v[i].before, cause) == -1)
			return -1;
	}
	return 0;
}

/* The name a sample of counter key of monitor m gets, or NULL to skip. */
static char *
mon_sample_name(const struct monitor *m, const char *key)
{
	size_t i;

	if (strcmp(m->name, "vmstat") == 0) {
		for (i = 0; mon_vmstat_keys[i] != NULL; i++)
			if (strcmp(mon_vmstat_keys[i], key) == 0)
				break;
		if (mon_vmstat_keys[i] == NULL)
			return NULL;
	}
	if (strcmp(m->name, "interrupts") == 0 &&
	    (isdigit((unsigned char)key[0]) || strncmp(key, "cpu", 3) == 0))
		return NULL; /* numbered lines; the CPUs go as per_cpu */
	if (strcmp(m->name, "schedstat") == 0) {
		if (strcmp(key, "ctxt") == 0)
			key = "context_switches";
		else if (strcmp(key, "processes") == 0)
			key = "forks";
		for (i = 0; mon_schedstat_keys[i][0] != NULL; i++)
			if (strcmp(mon_schedstat_keys[i][0], key) == 0)
				key = mon_schedstat_keys[i][1];
		if (strcmp(key, "legacy") == 0 || strcmp(key, "version") == 0)
			return NULL;
	}
	return xasprintf("mon.%s.%s", m->name, key);
}

/* Adds "mon.interrupts.per_cpu" once per CPU, in CPU order (repeats). */
static void
mon_per_cpu(const struct monitor *m, const struct obs_counters *now,
    struct obs_samples *out)
{
	int64_t a, b;
	char	key[32];
	size_t	cpu;

	for (cpu = 0; cpu < MON_MAX_CPUS; cpu++) {
		snprintf(key, sizeof key, "cpu%zu", cpu);
		if ((a = obs_counter_get(now, key)) < 0)
			break;
		if ((b = obs_counter_get(&m->before, key)) >= 0)
			obs_add(out, "mon.interrupts.per_cpu", (double)(a - b));
	}
}

/* Adds the deltas of monitor m from its before snapshot to now. */
static void
mon_deltas(const struct monitor *m, const struct obs_counters *now,
    struct obs_samples *out)
{
	int64_t was;
	char   *name;
	size_t	i;

	for (i = 0; i < now->n; i++) {
		if ((name = mon_sample_name(m, now->names[i])) == NULL)
			continue;
		was = obs_counter_get(&m->before, now->names[i]);
		if (strcmp(m->name, "cpufreq") == 0)
			obs_add(out, name, (now->values[i] + was) / 2.0);
		else if (was >= 0)
			obs_add(out, name, (double)now->values[i] - was);
		free(name);
	}
	if (strcmp(m->name, "interrupts") == 0)
		mon_per_cpu(m, now, out);
}

int
monitors_after(struct monitors *ms, struct obs_samples *out, char **cause)
{
	struct obs_counters now;
	size_t		    i;

	for (i = 0; i < ms->n; i++) {
		memset(&now, 0, sizeof now);
		if (mon_snapshot(&ms->v[i], &now, cause) == -1) {
			obs_counters_clear(&now);
			return -1;
		}
		mon_deltas(&ms->v[i], &now, out);
		obs_counters_clear(&now);
	}
	return 0;
}

void
monitors_close(struct monitors *ms)
{
	size_t i;

	if (ms == NULL)
		return;
	for (i = 0; i < ms->n; i++)
		mon_free(&ms->v[i]);
	free(ms->v);
	free(ms);
}
