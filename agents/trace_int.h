/*
 * Internals of the function latency probe shared by trace.c (tracefs,
 * what it saves and restores, function_graph, the calibration, the
 * samples) and trace_kprobe.c (the kprobe method); not for other files.
 */
#ifndef HILAB_TRACE_INT_H
#define HILAB_TRACE_INT_H

#include <stddef.h>

#include "agents/agent.h"

#define TRACE_GRAPH	 "function_graph"
#define TRACE_KPROBE	 "kprobe"
#define TRACE_NFILES	 6
#define TRACE_KPROBE_GRP "hilab"

/* The durations of one function's calls in one window. */
struct trace_calls {
	double *ns;
	size_t	n, cap;
};
void trace_calls_add(struct trace_calls *, double ns);

struct trace_probe {
	char	   *root;
	int	    mounted; /* by the probe */
	const char *method;  /* TRACE_GRAPH or TRACE_KPROBE */
	char	  **all;     /* the functions, then getppid's handler */
	size_t	    n;	     /* the functions: all[0..n) */
	const char *calib;   /* all[n], or NULL without one */
	long	   *ids;     /* kprobe: entry and return event ids of all[i]
				at 2i and 2i + 1 */
	char	    *saved[TRACE_NFILES];
	long	     ncpu;
	int	     touched; /* tracefs changed: restore it */
	struct guard guard;
};

/* getppid(2)'s handler under the names kernels give it, NULL-terminated. */
extern const char *const trace_calib_names[];

char *trace_path(const struct trace_probe *, const char *file);
/* Reads root/file, trailing blanks cut, or NULL. */
char *trace_read(const struct trace_probe *, const char *file);
/* Writes value to root/file (truncating it). */
int trace_write(const struct trace_probe *, const char *file, const char *value,
    char **cause);
/* Adds one line to root/file (open without O_TRUNC). */
int trace_append(const struct trace_probe *, const char *file, const char *line,
    char **cause);
/* The index of fn in fns, or -1. */
long trace_index(char *const *fns, size_t n, const char *fn);

/*
 * trace_kprobe.c: the kprobe method, a kprobe and a kretprobe event per
 * function in the group TRACE_KPROBE_GRP, paired per task (per CPU for
 * the idle tasks) on the trace clock, read with options/raw.
 */
/* Whether the kernel offers kprobe events. */
int trace_kprobe_offered(const struct trace_probe *);
/* Refuses a trace clock not in ns and a group already in use. */
int trace_kprobe_check(const struct trace_probe *, char **cause);
/*
 * Adds the events of the functions, then of getppid's handler (t->calib,
 * the first of trace_calib_names kprobes can probe), and enables them,
 * tracing_on 0.
 */
int trace_kprobe_setup(struct trace_probe *, char **cause);
/* Reads the buffer into the calls of each of fns (names in t->all). */
int trace_kprobe_collect(struct trace_probe *, char *const *fns, size_t n,
    struct trace_calls *, char **cause);
/* Return events the kretprobes missed (kprobe_profile), or 0. */
double trace_kprobe_missed(const struct trace_probe *);
/*
 * Disables and removes every event of the group (the guardian knows only
 * what was saved before it started; the group was free then): 0 or -1.
 */
int trace_kprobe_remove(const struct trace_probe *, char **cause);

#endif
