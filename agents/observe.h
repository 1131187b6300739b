/*
 * What the agent sees of the kernel beside a benchmark: function latency
 * probes through tracefs (trace.c) and monitors of /proc and perf counters
 * (monitor.c), each read before and after an iteration, outside its
 * measured window, and reported as "metric=value" samples of the
 * iteration's RESULT.  The parsers (observe_parse.c) are plain functions
 * over text as the kernel prints it.
 *
 * Sample names:
 *	probe.<function>.calls, .ns_per_call, .p50_ns, .p99_ns, .cpu_pct,
 *	.net_ns (ns_per_call less the calibration's empty_ns), .net_p50_ns
 *	(p50_ns less its empty_p50_ns)
 *	probe.calibration.empty_ns	what the method reports for a call
 *					of a function that does nothing,
 *					the mean; .empty_p50_ns the median
 *	probe.calibration.overhead_ns	what tracing adds to each call
 *	probe.lost			events the trace buffer dropped
 *	probe.method.<method>		1: the method that measured
 *					(function_graph or kprobe)
 *	mon.<monitor>.<counter>		a counter's delta over the iteration
 */
#ifndef HILAB_OBSERVE_H
#define HILAB_OBSERVE_H

#include <stddef.h>
#include <stdint.h>

/* "metric=value" strings of one iteration. */
struct obs_samples {
	char **v;
	size_t n;
};
void obs_add(struct obs_samples *, const char *name, double value);
void obs_clear(struct obs_samples *);

/* Named counters read from one snapshot of a /proc file. */
struct obs_counters {
	char	**names;
	uint64_t *values;
	size_t	  n;
};
void obs_counter_set(struct obs_counters *, const char *name, uint64_t v);
/* The value of name, or -1 if absent (cast: counters fit in 63 bits). */
int64_t obs_counter_get(const struct obs_counters *, const char *name);
void	obs_counters_clear(struct obs_counters *);

/*
 * observe_parse.c.  Each parser reads the whole text of one file as the
 * kernel prints it; -1 with *cause when it is not in that form.
 *
 * obs_parse_keyvalue: "name value..." lines (/proc/vmstat, /proc/stat:
 * the first number of each line).
 * obs_parse_schedstat: /proc/schedstat version 15 or later, per-CPU
 * fields summed: yld_count sched_count sched_goidle ttwu_count ttwu_local
 * rq_cpu_time run_delay pcount ("version" too).
 * obs_parse_interrupts: /proc/interrupts or /proc/softirqs; per row the
 * sum over CPUs under its label ("LOC", "SCHED"), "total" of all rows and
 * "cpuN" per CPU.
 */
int obs_parse_keyvalue(const char *text, struct obs_counters *, char **cause);
int obs_parse_schedstat(const char *text, struct obs_counters *, char **cause);
int obs_parse_interrupts(const char *text, struct obs_counters *, char **cause);
/*
 * One line of function_graph output: 1 with the function's name and
 * duration in ns for a timed call ("fn();" or "} /+ fn +/"), 0 for any
 * other line.
 */
int obs_parse_graph_line(const char *line, char *fn, size_t fnlen, double *ns);
/*
 * One line of the trace file with options/raw set, an event printed by
 * the kernel's trace_nop_print ("PID CPU TS type: ID", TS in the trace
 * clock's units, ns for "local"): 1 with it in ev, 0 for any other line.
 */
struct obs_raw_event {
	long	 pid;
	long	 cpu;
	uint64_t ts;
	long	 type; /* the event's id (events/GROUP/NAME/id) */
};
int obs_parse_raw_line(const char *line, struct obs_raw_event *);
/* The "overrun: N" of a tracefs per_cpu stats file, or -1. */
int64_t obs_parse_overrun(const char *text);

/* monitor.c: the monitors of one run. */
struct monitors;
/* Checks names (proto_monitors) against what the host offers. */
struct monitors *monitors_open(char *const *names, char **cause);
int		 monitors_before(struct monitors *, char **cause);
int  monitors_after(struct monitors *, struct obs_samples *, char **cause);
void monitors_close(struct monitors *);

/* trace.c: the function latency probe of one run. */
struct trace_probe;
/*
 * Finds tracefs (mounting it if it is not), picks the method (method, or
 * NULL: function_graph where the kernel offers it, else kprobe), saves
 * what it changes and starts the guardian that restores it; refuses a
 * tracefs another tracer uses and a function the kernel cannot trace.
 */
struct trace_probe *trace_open(char *const *functions, const char *method,
    char **cause);
/*
 * Before the measured window: trace_arm clears the buffer (tracing_on
 * still 0), then trace_on(t, 1) is the last step before it and
 * trace_on(t, 0) the first after it.
 */
int trace_arm(struct trace_probe *, char **cause);
int trace_on(struct trace_probe *, int on, char **cause);
/*
 * After the window (wall_ns long): reads the buffer, switches the tracer
 * off and adds the samples of each function, then the calibration's.
 */
int trace_disarm(struct trace_probe *, uint64_t wall_ns, struct obs_samples *,
    char **cause);
/* Puts tracefs back as found; -1 with *cause if it could not. */
int trace_close(struct trace_probe *, char **cause);

#endif
