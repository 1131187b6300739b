/*
 * The probe's kprobe method: for each function a kprobe event at its entry
 * and a kretprobe event at its return (hilab_e<i> and hilab_r<i> of the
 * i-th function) in the event group "hilab", whose timestamps on the
 * trace clock (ns) are paired per task: a return closes the latest open
 * entry of the same function and task (per CPU for the idle tasks, which
 * all have pid 0), so nested calls pair as they nest.  The buffer is read
 * with options/raw, where each event is one line "PID CPU TS type: ID"
 * (observe_parse.c).  What the kernel cost to take the two events is in
 * each duration; the calibration (trace.c) measures it on getppid's
 * handler by the same method.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agents/agent.h"
#include "agents/observe.h"
#include "agents/trace_int.h"
#include "common/xmalloc.h"

#define KP_EVENTS "kprobe_events"
#define KP_GROUP  "events/" TRACE_KPROBE_GRP
#define KP_ENABLE KP_GROUP "/enable"
#define KP_LINE	  256
#define KP_ENTRY  "hilab_e" /* then the function's index */
#define KP_RETURN "hilab_r"

/* Trace clocks in ns: the pairing subtracts their timestamps. */
static const char *const kp_ns_clocks[] = { "[local]", "[global]", "[mono]",
	"[mono_raw]", "[boot]", "[tai]", "[perf]", NULL };

int
trace_kprobe_offered(const struct trace_probe *t)
{
	char *path = trace_path(t, KP_EVENTS);
	int   yes = access(path, W_OK) == 0;

	free(path);
	return yes;
}

/* Refuses a trace clock not in ns. */
static int
kp_check_clock(const struct trace_probe *t, char **cause)
{
	char  *clock = trace_read(t, "trace_clock");
	size_t i;
	int    rc = -1;

	for (i = 0; clock != NULL && kp_ns_clocks[i] != NULL; i++)
		if (strstr(clock, kp_ns_clocks[i]) != NULL)
			rc = 0;
	if (rc == -1)
		*cause = xasprintf("kprobe: trace_clock is \"%s\", not a clock "
				   "in ns",
		    clock != NULL ? clock : "unreadable");
	free(clock);
	return rc;
}

/* Refuses a group another probe (or anyone) already holds. */
static int
kp_check_free(const struct trace_probe *t, char **cause)
{
	char *path = trace_path(t, KP_GROUP);
	int   used = access(path, F_OK) == 0;

	if (used)
		*cause = xasprintf("tracefs is in use: \"%s\" exists (another "
				   "probe's kprobe events)",
		    path);
	free(path);
	return used ? -1 : 0;
}

/* The name of the entry (kind 'p') or return event of all[i]. */
static void
kp_name(char *buf, size_t len, char kind, size_t i)
{
	snprintf(buf, len, "%s%zu", kind == 'p' ? KP_ENTRY : KP_RETURN, i);
}

/* Adds the entry ('p') or return ('r') event of all[i], fn. */
static int
kp_add(const struct trace_probe *t, char kind, size_t i, const char *fn,
    char **cause)
{
	char line[KP_LINE], name[32];

	kp_name(name, sizeof name, kind, i);
	snprintf(line, sizeof line, "%c:%s/%s %s\n", kind, TRACE_KPROBE_GRP,
	    name, fn);
	return trace_append(t, KP_EVENTS, line, cause);
}

/* Removes one event of the group by name; it may not be there. */
static void
kp_del(const struct trace_probe *t, const char *name)
{
	char line[KP_LINE], *why = NULL;

	snprintf(line, sizeof line, "-:%s/%s\n", TRACE_KPROBE_GRP, name);
	trace_append(t, KP_EVENTS, line, &why);
	free(why);
}

/* Reads the id of the entry or return event of all[i], or -1. */
static long
kp_id(const struct trace_probe *t, char kind, size_t i)
{
	char file[KP_LINE], name[32], *s;
	long id = -1;

	kp_name(name, sizeof name, kind, i);
	snprintf(file, sizeof file, "%s/%s/id", KP_GROUP, name);
	if ((s = trace_read(t, file)) != NULL)
		id = strtol(s, NULL, 10);
	free(s);
	return id;
}

/* Adds both events of all[i] and reads their ids. */
static int
kp_add_function(struct trace_probe *t, size_t i, char **cause)
{
	char *why = NULL;

	if (kp_add(t, 'p', i, t->all[i], &why) == -1 ||
	    kp_add(t, 'r', i, t->all[i], &why) == -1) {
		*cause = xasprintf("function \"%s\" cannot be probed (not in "
				   "kallsyms, or on the kprobe blacklist?): %s",
		    t->all[i], why);
		free(why);
		return -1;
	}
	t->ids[2 * i] = kp_id(t, 'p', i);
	t->ids[2 * i + 1] = kp_id(t, 'r', i);
	if (t->ids[2 * i] < 0 || t->ids[2 * i + 1] < 0) {
		*cause = xasprintf("kprobe events of \"%s\": no id under "
				   "\"%s/%s\"",
		    t->all[i], t->root, KP_GROUP);
		return -1;
	}
	return 0;
}

/* Finds getppid's handler among the functions kprobes can probe. */
static void
kp_find_calib(struct trace_probe *t)
{
	char   name[32], *why = NULL;
	size_t i;

	for (i = 0; trace_calib_names[i] != NULL; i++) {
		t->all[t->n] = (char *)trace_calib_names[i];
		if (kp_add_function(t, t->n, &why) == 0) {
			t->calib = t->all[t->n];
			return;
		}
		free(why);
		why = NULL;
		kp_name(name, sizeof name, 'p', t->n);
		kp_del(t, name);
		kp_name(name, sizeof name, 'r', t->n);
		kp_del(t, name);
	}
	t->all[t->n] = NULL;
}

int
trace_kprobe_check(const struct trace_probe *t, char **cause)
{
	return kp_check_clock(t, cause) == -1 || kp_check_free(t, cause) == -1
	    ? -1
	    : 0;
}

int
trace_kprobe_setup(struct trace_probe *t, char **cause)
{
	size_t i;

	if (trace_write(t, "tracing_on", "0", cause) == -1)
		return -1;
	/* The functions first: an unprobeable one is named before all. */
	t->ids = xcalloc(2 * (t->n + 1), sizeof *t->ids);
	for (i = 0; i < t->n; i++)
		if (kp_add_function(t, i, cause) == -1)
			return -1;
	kp_find_calib(t);
	return trace_write(t, "options/raw", "1", cause) == -1 ||
		trace_write(t, KP_ENABLE, "1", cause) == -1
	    ? -1
	    : 0;
}

/* An entry not yet returned from. */
struct kp_open {
	long	 key; /* pid, or -1 - cpu for pid 0 */
	size_t	 fn;  /* index in t->all */
	uint64_t ts;
};

/* The open entries of a window. */
struct kp_pairs {
	struct kp_open *v;
	size_t		n, cap;
};

/* Which event of t->all id is: 2i entry, 2i + 1 return; -1 if none. */
static long
kp_event(const struct trace_probe *t, long id)
{
	size_t i;

	for (i = 0; i < 2 * (t->n + (t->calib != NULL)); i++)
		if (t->ids[i] == id)
			return (long)i;
	return -1;
}

/* Opens an entry. */
static void
kp_enter(struct kp_pairs *p, long key, size_t fn, uint64_t ts)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->v = xreallocarray(p->v, p->cap, sizeof *p->v);
	}
	p->v[p->n++] = (struct kp_open){ key, fn, ts };
}

/* Closes the latest open entry of fn and key: its duration, or -1. */
static double
kp_return(struct kp_pairs *p, long key, size_t fn, uint64_t ts)
{
	size_t i;
	double ns;

	for (i = p->n; i-- > 0;) {
		if (p->v[i].key != key || p->v[i].fn != fn)
			continue;
		ns = ts >= p->v[i].ts ? (double)(ts - p->v[i].ts) : -1;
		p->v[i] = p->v[--p->n];
		return ns;
	}
	return -1;
}

/* Pairs one event into the calls of fns. */
static void
kp_pair(const struct trace_probe *t, const struct obs_raw_event *ev,
    struct kp_pairs *p, char *const *fns, size_t n, struct trace_calls *calls)
{
	long   e = kp_event(t, ev->type), fi;
	long   key = ev->pid > 0 ? ev->pid : -1 - ev->cpu;
	double ns;

	if (e < 0)
		return;
	if (e % 2 == 0) {
		kp_enter(p, key, (size_t)e / 2, ev->ts);
		return;
	}
	ns = kp_return(p, key, (size_t)e / 2, ev->ts);
	fi = trace_index(fns, n, t->all[e / 2]);
	if (ns >= 0 && fi >= 0)
		trace_calls_add(&calls[fi], ns);
}

int
trace_kprobe_collect(struct trace_probe *t, char *const *fns, size_t n,
    struct trace_calls *calls, char **cause)
{
	struct obs_raw_event ev;
	struct kp_pairs	     p = { 0 };
	char		    *path = trace_path(t, "trace"), *line = NULL;
	size_t		     cap = 0;
	FILE		    *f;

	if ((f = fopen(path, "re")) == NULL) {
		*cause = xasprintf("\"%s\": %s", path, strerror(errno));
		free(path);
		return -1;
	}
	while (getline(&line, &cap, f) != -1)
		if (obs_parse_raw_line(line, &ev))
			kp_pair(t, &ev, &p, fns, n, calls);
	free(line);
	free(p.v);
	fclose(f);
	free(path);
	return 0;
}

double
trace_kprobe_missed(const struct trace_probe *t)
{
	char  *s = trace_read(t, "kprobe_profile"), *line, *save = NULL;
	char   name[KP_LINE], *ev;
	double missed = 0;
	unsigned long long hits, miss;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%255s %llu %llu", name, &hits, &miss) != 3)
			continue;
		ev = strchr(name, '/') != NULL ? strchr(name, '/') + 1 : name;
		if (strncmp(ev, KP_RETURN, strlen(KP_RETURN)) == 0)
			missed += (double)miss;
	}
	free(s);
	return missed;
}

int
trace_kprobe_remove(const struct trace_probe *t, char **cause)
{
	char *s, *line, *save = NULL, *name, *sp;
	char  prefix[] = ":" TRACE_KPROBE_GRP "/";
	char *path = trace_path(t, KP_GROUP);
	int   rc = 0;

	if (access(path, F_OK) == 0 &&
	    trace_write(t, KP_ENABLE, "0", cause) == -1)
		rc = -1;
	free(path);
	s = trace_read(t, KP_EVENTS);
	for (line = s ? strtok_r(s, "\n", &save) : NULL; line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		if ((name = strstr(line, prefix)) == NULL || name - line > 16)
			continue;
		name += strlen(prefix);
		if ((sp = strchr(name, ' ')) != NULL)
			*sp = '\0';
		kp_del(t, name);
	}
	free(s);
	path = trace_path(t, KP_GROUP);
	if (rc == 0 && access(path, F_OK) == 0) {
		*cause = xasprintf("\"%s\": kprobe events left", path);
		rc = -1;
	}
	free(path);
	return rc;
}
