/*
 * The function latency probe: per-call times of named kernel functions
 * from the kernel's own tracing.  Two methods: the function_graph tracer
 * with a depth of 1, so each call is timed alone, and kprobe events
 * (trace_kprobe.c), a kprobe and a kretprobe per function.  Either is set
 * up once for the run (a tracer switch costs a text patch and RCU grace
 * periods: far too slow to make per iteration); tracing_on switches
 * recording on right before the measured window and off right after it,
 * and the buffer is read then, outside it.
 *
 * After each iteration an empty-probe calibration times CALIB_CALLS calls
 * of getppid(2) recorded, right after as many with recording off (the
 * tracer's hook still in place): the difference per call is what the
 * recording adds to each call (overhead_ns), and the time function_graph
 * reports for the getppid handler, which does next to nothing, is the
 * floor of what it reports (empty_ns), by the same method.
 *
 * tracefs is left as found: tracing_on, current_tracer, the filters,
 * max_graph_depth and options/raw are saved first and put back at the end
 * (and by a guardian if the runner dies, SIGKILL too), the kprobe events
 * removed; tracefs is mounted only if it was not, and then unmounted.  A
 * tracefs another tracer is using is refused.  The trace buffer itself is
 * cleared for each window.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/observe.h"
#include "agents/trace_int.h"
#include "common/xmalloc.h"

#define TRACE_MOUNT	  "/sys/kernel/tracing"
#define TRACE_CALIB_CALLS 5000
#define TRACE_FN_MAX	  256

/*
 * What the probe changes, saved and restored in this order: the tracer
 * goes back to nop before the filters are cleared (an empty filter under
 * function_graph would trace every function), tracing_on last.
 */
static const char *const trace_files[TRACE_NFILES] = { "current_tracer",
	"set_ftrace_filter", "set_graph_function", "max_graph_depth",
	"options/raw", "tracing_on" };
#define TRACE_TRACER 0 /* trace_files[TRACE_TRACER]: current_tracer */

const char *const trace_calib_names[] = { "__do_sys_getppid",
	"__x64_sys_getppid", "__arm64_sys_getppid", "__se_sys_getppid",
	"sys_getppid", NULL };

/* root/file (caller frees). */
char *
trace_path(const struct trace_probe *t, const char *file)
{
	return xasprintf("%s/%s", t->root, file);
}

char *
trace_read(const struct trace_probe *t, const char *file)
{
	char *path = trace_path(t, file), *s = facts_read(path);

	free(path);
	return s;
}

int
trace_write(const struct trace_probe *t, const char *file, const char *value,
    char **cause)
{
	char *path = trace_path(t, file);
	int   rc = probe_write(path, value, cause);

	free(path);
	return rc;
}

/* Where tracefs is mounted, or NULL. */
static char *
trace_find_mount(void)
{
	struct mntent *m;
	char	      *dir = NULL;
	FILE	      *f;

	if ((f = setmntent("/proc/mounts", "r")) == NULL)
		return NULL;
	while (dir == NULL && (m = getmntent(f)) != NULL)
		if (strcmp(m->mnt_type, "tracefs") == 0)
			dir = xstrdup(m->mnt_dir);
	endmntent(f);
	return dir;
}

/* Finds tracefs, mounting it at TRACE_MOUNT when it is not mounted. */
static int
trace_mount(struct trace_probe *t, char **cause)
{
	if ((t->root = trace_find_mount()) != NULL)
		return 0;
	if (mount("nodev", TRACE_MOUNT, "tracefs", 0, NULL) == -1) {
		*cause = xasprintf("mount tracefs on \"%s\": %s (a kernel "
				   "without CONFIG_FTRACE?)",
		    TRACE_MOUNT, strerror(errno));
		return -1;
	}
	t->root = xstrdup(TRACE_MOUNT);
	t->mounted = 1;
	return 0;
}

int
trace_append(const struct trace_probe *t, const char *file, const char *line,
    char **cause)
{
	char *path = trace_path(t, file);
	int   fd, rc = 0;

	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd == -1 || write(fd, line, strlen(line)) == -1 ||
	    close(fd) == -1) {
		*cause = xasprintf("\"%s\": write \"%s\": %s", path, line,
		    strerror(errno));
		rc = -1;
	}
	free(path);
	return rc;
}

/* Writes a saved filter back: cleared, then each of its lines. */
static int
trace_restore_filter(const struct trace_probe *t, const char *file,
    const char *saved, char **cause)
{
	char *copy, *line, *save = NULL;
	int   rc = 0;

	if (trace_write(t, file, "", cause) == -1)
		return -1;
	copy = xstrdup(saved);
	for (line = strtok_r(copy, "\n", &save); line != NULL && rc == 0;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#') /* "#### all functions enabled ####" */
			rc = trace_append(t, file, line, cause);
	free(copy);
	return rc;
}

/* Puts every saved file back, in order; the first error kept. */
static int
trace_restore(struct trace_probe *t, char **cause)
{
	char  *why = NULL;
	size_t i;
	int    rc = 0;

	trace_write(t, "tracing_on", "0", &why);
	free(why);
	for (i = 0; i < TRACE_NFILES; i++) {
		why = NULL;
		if (t->saved[i] == NULL)
			continue;
		if (strncmp(trace_files[i], "set_", 4) == 0)
			rc |= trace_restore_filter(t, trace_files[i],
			    t->saved[i], &why);
		else
			rc |= trace_write(t, trace_files[i], t->saved[i], &why);
		if (why != NULL && *cause == NULL)
			*cause = why;
		else
			free(why);
	}
	return rc != 0 ? -1 : 0;
}

/*
 * The guardian's cleanup: the kprobe events removed, tracefs back as
 * found, unmounted if mounted.
 */
static int
trace_cleanup(void *arg, char **cause)
{
	struct trace_probe *t = arg;
	char		   *why = NULL;
	int		    rc = 0;

	if (strcmp(t->method, TRACE_KPROBE) == 0 &&
	    trace_kprobe_remove(t, &why) == -1) {
		*cause = why;
		rc = -1;
	}
	rc |= trace_restore(t, cause);
	if (t->mounted && umount(t->root) == -1 &&
	    umount2(t->root, MNT_DETACH) == -1 && rc == 0) {
		*cause =
		    xasprintf("umount \"%s\": %s", t->root, strerror(errno));
		rc = -1;
	}
	return rc;
}

/* Whether the kernel offers the function_graph tracer. */
static int
trace_graph_offered(const struct trace_probe *t)
{
	char *tracers = trace_read(t, "available_tracers");
	int   yes = tracers != NULL && strstr(tracers, TRACE_GRAPH) != NULL;

	free(tracers);
	return yes;
}

/*
 * Picks the method asked for, or function_graph where the kernel offers
 * it, else kprobe; refuses one the kernel does not offer.
 */
static int
trace_pick(struct trace_probe *t, const char *want, char **cause)
{
	int graph = trace_graph_offered(t), kprobe = trace_kprobe_offered(t);

	if ((want == NULL || strcmp(want, TRACE_GRAPH) == 0) && graph)
		t->method = TRACE_GRAPH;
	else if ((want == NULL || strcmp(want, TRACE_KPROBE) == 0) && kprobe)
		t->method = TRACE_KPROBE;
	else
		*cause = xasprintf("no probe method%s%s: \"%s\" has %s"
				   " (CONFIG_FUNCTION_GRAPH_TRACER) and %s"
				   " (CONFIG_KPROBE_EVENTS)",
		    want ? " " : "", want ? want : "", t->root,
		    graph ? TRACE_GRAPH : "no " TRACE_GRAPH,
		    kprobe ? "kprobe_events" : "no kprobe_events");
	return *cause != NULL ? -1 : 0;
}

/* Saves the files the probe changes; refuses a tracefs in use. */
static int
trace_save(struct trace_probe *t, const char *want, char **cause)
{
	size_t i;

	for (i = 0; i < TRACE_NFILES; i++)
		t->saved[i] = trace_read(t, trace_files[i]);
	if (trace_pick(t, want, cause) == -1 ||
	    (strcmp(t->method, TRACE_KPROBE) == 0 &&
		trace_kprobe_check(t, cause) == -1))
		return -1;
	if (t->saved[TRACE_TRACER] == NULL ||
	    strcmp(t->saved[TRACE_TRACER], "nop") != 0)
		*cause = xasprintf("tracefs is in use: current_tracer is "
				   "\"%s\"",
		    t->saved[TRACE_TRACER] != NULL ? t->saved[TRACE_TRACER]
						   : "unreadable");
	return *cause != NULL ? -1 : 0;
}

/* Sets the filters to the functions; says which one the kernel refuses. */
static int
trace_filters(struct trace_probe *t, char *const *fns, size_t n, char **cause)
{
	char  *why = NULL;
	size_t i;

	if (trace_write(t, "set_ftrace_filter", "", cause) == -1 ||
	    trace_write(t, "set_graph_function", "", cause) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if (trace_append(t, "set_ftrace_filter", fns[i], &why) == 0 &&
		    trace_append(t, "set_graph_function", fns[i], &why) == 0)
			continue;
		*cause = xasprintf("function \"%s\" cannot be traced (not in "
				   "available_filter_functions?): %s",
		    fns[i], why);
		free(why);
		return -1;
	}
	return 0;
}

/* Finds getppid's handler among the functions function_graph traces. */
static void
trace_find_calib(struct trace_probe *t)
{
	char  *why = NULL;
	size_t i;

	for (i = 0; trace_calib_names[i] != NULL; i++) {
		if (trace_write(t, "set_ftrace_filter", trace_calib_names[i],
			&why) == 0) {
			t->calib = t->all[t->n] = (char *)trace_calib_names[i];
			break;
		}
		free(why);
		why = NULL;
	}
	trace_write(t, "set_ftrace_filter", "", &why);
	free(why);
}

/*
 * Sets function_graph up for the functions and the calibration's,
 * tracing_on 0 until trace_on.
 */
static int
trace_graph_setup(struct trace_probe *t, char **cause)
{
	if (trace_filters(t, t->all, t->n, cause) == -1)
		return -1;
	trace_find_calib(t);
	return trace_write(t, "tracing_on", "0", cause) == -1 ||
		trace_filters(t, t->all, t->n + (t->calib != NULL), cause) ==
		    -1 ||
		trace_write(t, "max_graph_depth", "1", cause) == -1 ||
		trace_write(t, "current_tracer", TRACE_GRAPH, cause) == -1
	    ? -1
	    : 0;
}

long
trace_index(char *const *fns, size_t n, const char *fn)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(fns[i], fn) == 0)
			return (long)i;
	return -1;
}

void
trace_calls_add(struct trace_calls *c, double ns)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->ns = xreallocarray(c->ns, c->cap, sizeof *c->ns);
	}
	c->ns[c->n++] = ns;
}

/* Reads function_graph's buffer into the calls of each of fns. */
static int
trace_graph_collect(struct trace_probe *t, char *const *fns, size_t n,
    struct trace_calls *calls, char **cause)
{
	char  *path = trace_path(t, "trace"), *line = NULL, fn[TRACE_FN_MAX];
	size_t cap = 0;
	double ns;
	long   i;
	FILE  *f;

	if ((f = fopen(path, "re")) == NULL) {
		*cause = xasprintf("\"%s\": %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while (getline(&line, &cap, f) != -1) {
		if (obs_parse_graph_line(line, fn, sizeof fn, &ns) &&
		    (i = trace_index(fns, n, fn)) >= 0)
			trace_calls_add(&calls[i], ns);
	}
	free(line);
	fclose(f);
	free(path);
	return 0;
}

/* The events the buffer dropped since it was cleared, over the CPUs. */
static double
trace_lost(const struct trace_probe *t)
{
	char	file[64], *s;
	int64_t v;
	double	lost = 0;
	long	cpu;

	for (cpu = 0; cpu < t->ncpu; cpu++) {
		snprintf(file, sizeof file, "per_cpu/cpu%ld/stats", cpu);
		if ((s = trace_read(t, file)) == NULL)
			continue;
		if ((v = obs_parse_overrun(s)) > 0)
			lost += (double)v;
		free(s);
	}
	return lost;
}

/* Stops recording and reads the calls of fns. */
static int
trace_stop(struct trace_probe *t, char *const *fns, size_t n,
    struct trace_calls *calls, char **cause)
{
	if (trace_write(t, "tracing_on", "0", cause) == -1)
		return -1;
	if (strcmp(t->method, TRACE_KPROBE) == 0)
		return trace_kprobe_collect(t, fns, n, calls, cause);
	return trace_graph_collect(t, fns, n, calls, cause);
}

/* Orders doubles. */
static int
trace_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The mean of the calls, 0 without any. */
static double
trace_mean(const struct trace_calls *c)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < c->n; i++)
		sum += c->ns[i];
	return c->n > 0 ? sum / c->n : 0;
}

/*
 * What the method reports for a call of a function that does next to
 * nothing: the mean and median of the calibration's calls, -1 without.
 */
struct trace_floor {
	double mean;
	double p50;
};

/* Adds the samples of one function's calls in a window wall_ns long. */
static void
trace_samples(const struct trace_probe *t, const char *fn,
    struct trace_calls *c, uint64_t wall_ns, const struct trace_floor *empty,
    struct obs_samples *out)
{
	char   name[TRACE_FN_MAX + 32];
	double mean = trace_mean(c);

#define TRACE_ADD(suffix, v)                                         \
	do {                                                         \
		snprintf(name, sizeof name, "probe.%s." suffix, fn); \
		obs_add(out, name, (v));                             \
	} while (0)
	TRACE_ADD("calls", (double)c->n);
	if (c->n == 0)
		return;
	qsort(c->ns, c->n, sizeof *c->ns, trace_cmp);
	TRACE_ADD("ns_per_call", mean);
	TRACE_ADD("p50_ns", c->ns[c->n / 2]);
	TRACE_ADD("p99_ns", c->ns[(size_t)((c->n - 1) * 0.99)]);
	if (empty->mean >= 0) {
		TRACE_ADD("net_ns", mean - empty->mean);
		TRACE_ADD("net_p50_ns", c->ns[c->n / 2] - empty->p50);
	}
	if (wall_ns > 0)
		TRACE_ADD("cpu_pct",
		    100.0 * mean * c->n / ((double)wall_ns * t->ncpu));
#undef TRACE_ADD
}

/* Nanoseconds per call of TRACE_CALIB_CALLS getppid(2) calls. */
static double
trace_getppid_ns(void)
{
	uint64_t t0 = probe_now_ns();
	int	 i;

	for (i = 0; i < TRACE_CALIB_CALLS; i++)
		syscall(SYS_getppid);
	return (double)(probe_now_ns() - t0) / TRACE_CALIB_CALLS;
}

/* The empty-probe calibration; *empty gets its floor. */
static int
trace_calibrate(struct trace_probe *t, struct obs_samples *out,
    struct trace_floor *empty, char **cause)
{
	struct trace_calls c = { 0 };
	char *const	  *fn = &t->all[t->n];
	double		   off, on;
	int		   rc;

	empty->mean = empty->p50 = -1;
	if (t->calib == NULL)
		return 0;
	if (trace_arm(t, cause) == -1)
		return -1;
	off = trace_getppid_ns();
	if (trace_on(t, 1, cause) == -1)
		return -1;
	on = trace_getppid_ns();
	rc = trace_stop(t, fn, 1, &c, cause);
	if (rc == 0 && c.n > 0) {
		qsort(c.ns, c.n, sizeof *c.ns, trace_cmp);
		empty->mean = trace_mean(&c);
		empty->p50 = c.ns[c.n / 2];
		obs_add(out, "probe.calibration.empty_ns", empty->mean);
		obs_add(out, "probe.calibration.empty_p50_ns", empty->p50);
		obs_add(out, "probe.calibration.overhead_ns", on - off);
	}
	free(c.ns);
	return rc;
}

struct trace_probe *
trace_open(char *const *functions, const char *method, char **cause)
{
	struct trace_probe *t = xcalloc(1, sizeof *t);
	char		   *why = NULL;

	while (functions[t->n] != NULL)
		t->n++;
	t->all = xcalloc(t->n + 2, sizeof *t->all);
	memcpy(t->all, functions, t->n * sizeof *t->all);
	t->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	t->guard.fd = -1;
	if (trace_mount(t, cause) == -1 || trace_save(t, method, cause) == -1)
		goto fail;
	t->guard = (struct guard){ trace_cleanup, t, "probe", -1 };
	if (guard_start(&t->guard, cause) == -1)
		goto fail;
	t->touched = 1;
	if ((strcmp(t->method, TRACE_KPROBE) == 0
		    ? trace_kprobe_setup(t, cause)
		    : trace_graph_setup(t, cause)) == -1)
		goto fail;
	return t;
fail:
	trace_close(t, &why);
	free(why);
	return NULL;
}

int
trace_arm(struct trace_probe *t, char **cause)
{
	return trace_write(t, "trace", "", cause);
}

int
trace_on(struct trace_probe *t, int on, char **cause)
{
	return trace_write(t, "tracing_on", on ? "1" : "0", cause);
}

int
trace_disarm(struct trace_probe *t, uint64_t wall_ns, struct obs_samples *out,
    char **cause)
{
	struct trace_calls *calls = xcalloc(t->n, sizeof *calls);
	struct trace_floor  empty = { -1, -1 };
	double		    lost = trace_lost(t);
	char		    name[64];
	size_t		    i;
	int		    rc;

	rc = trace_stop(t, t->all, t->n, calls, cause);
	if (rc == 0)
		rc = trace_calibrate(t, out, &empty, cause);
	for (i = 0; i < t->n; i++) {
		if (rc == 0)
			trace_samples(t, t->all[i], &calls[i], wall_ns, &empty,
			    out);
		free(calls[i].ns);
	}
	free(calls);
	if (rc == 0) {
		if (strcmp(t->method, TRACE_KPROBE) == 0)
			lost += trace_kprobe_missed(t);
		obs_add(out, "probe.lost", lost);
		snprintf(name, sizeof name, "probe.method.%s", t->method);
		obs_add(out, name, 1);
	}
	return rc;
}

int
trace_close(struct trace_probe *t, char **cause)
{
	size_t i;
	int    rc = 0;

	if (t == NULL)
		return 0;
	if (t->touched)
		rc = trace_cleanup(t, cause);
	else if (t->mounted && umount(t->root) == -1 &&
	    umount2(t->root, MNT_DETACH) == -1) {
		*cause =
		    xasprintf("umount \"%s\": %s", t->root, strerror(errno));
		rc = -1;
	}
	guard_end(&t->guard, rc == 0);
	for (i = 0; i < TRACE_NFILES; i++)
		free(t->saved[i]);
	free(t->root);
	free(t->all);
	free(t->ids);
	free(t);
	return rc;
}
