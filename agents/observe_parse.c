/*
 * Parsers of what the kernel prints for the agent's monitors and probes:
 * /proc/vmstat and /proc/stat, /proc/schedstat, /proc/interrupts and
 * /proc/softirqs, function_graph trace lines and trace buffer stats.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/observe.h"
#include "common/xmalloc.h"

#define OBS_SCHEDSTAT_MIN 15

/* The schedstat per-CPU fields, in the order of a "cpuN" line. */
static const char *const obs_schedstat_fields[] = { "yld_count", "legacy",
	"sched_count", "sched_goidle", "ttwu_count", "ttwu_local",
	"rq_cpu_time", "run_delay", "pcount" };
#define OBS_SCHEDSTAT_NFIELDS \
	(sizeof obs_schedstat_fields / sizeof obs_schedstat_fields[0])

/* Adds a sample "name=value". */
void
obs_add(struct obs_samples *s, const char *name, double value)
{
	s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
	s->v[s->n++] = xasprintf("%s=%.17g", name, value);
}

/* Frees the samples and leaves s empty. */
void
obs_clear(struct obs_samples *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

/* Sets (or adds to the list) counter name. */
void
obs_counter_set(struct obs_counters *c, const char *name, uint64_t v)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->names[i], name) == 0) {
			c->values[i] = v;
			return;
		}
	c->names = xreallocarray(c->names, c->n + 1, sizeof *c->names);
	c->values = xreallocarray(c->values, c->n + 1, sizeof *c->values);
	c->names[c->n] = xstrdup(name);
	c->values[c->n++] = v;
}

/* Adds v to counter name (0 if new). */
static void
obs_counter_add(struct obs_counters *c, const char *name, uint64_t v)
{
	int64_t was = obs_counter_get(c, name);

	obs_counter_set(c, name, (was < 0 ? 0 : (uint64_t)was) + v);
}

/* The value of name, or -1. */
int64_t
obs_counter_get(const struct obs_counters *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		if (strcmp(c->names[i], name) == 0)
			return (int64_t)c->values[i];
	return -1;
}

/* Frees the counters and leaves c empty. */
void
obs_counters_clear(struct obs_counters *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->names[i]);
	free(c->names);
	free(c->values);
	memset(c, 0, sizeof *c);
}

/* Reads an unsigned decimal at *p, moving past it; -1 if none. */
static int
obs_number(const char **p, uint64_t *v)
{
	char *end;

	while (**p == ' ' || **p == '\t')
		(*p)++;
	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	*v = strtoull(*p, &end, 10);
	if (errno != 0)
		return -1;
	*p = end;
	return 0;
}

/* The end of the line at p (its '\n' or NUL). */
static const char *
obs_eol(const char *p)
{
	const char *e = strchr(p, '\n');

	return e != NULL ? e : p + strlen(p);
}

/* Reads "name value..." lines: each name with its first number. */
int
obs_parse_keyvalue(const char *text, struct obs_counters *c, char **cause)
{
	const char *p = text, *eol, *sp;
	char	   *name;
	uint64_t    v;

	for (; *p != '\0'; p = *eol ? eol + 1 : eol) {
		eol = obs_eol(p);
		sp = p + strcspn(p, " \t\n");
		if (sp >= eol || sp == p)
			continue;
		name = xstrndup(p, sp - p);
		if (obs_number(&sp, &v) == 0)
			obs_counter_set(c, name, v);
		free(name);
	}
	if (c->n > 0)
		return 0;
	*cause = xstrdup("no \"name value\" line");
	return -1;
}

/* Adds the fields of one schedstat "cpuN" line to the sums. */
static int
obs_schedstat_cpu(const char *p, struct obs_counters *c)
{
	uint64_t v;
	size_t	 i;

	p += strcspn(p, " ");
	for (i = 0; i < OBS_SCHEDSTAT_NFIELDS; i++) {
		if (obs_number(&p, &v) == -1)
			return -1;
		obs_counter_add(c, obs_schedstat_fields[i], v);
	}
	return 0;
}

/* Reads /proc/schedstat, version 15 or later. */
int
obs_parse_schedstat(const char *text, struct obs_counters *c, char **cause)
{
	const char   *p = text, *eol;
	unsigned long version;
	size_t	      cpus = 0;

	if (sscanf(text, "version %lu", &version) != 1) {
		*cause = xstrdup("no \"version\" line");
		return -1;
	}
	if (version < OBS_SCHEDSTAT_MIN) {
		*cause = xasprintf("version %lu: only %d or later is read",
		    version, OBS_SCHEDSTAT_MIN);
		return -1;
	}
	obs_counter_set(c, "version", version);
	for (; *p != '\0'; p = *eol ? eol + 1 : eol) {
		eol = obs_eol(p);
		if (strncmp(p, "cpu", 3) != 0 || !isdigit((unsigned char)p[3]))
			continue;
		if (obs_schedstat_cpu(p, c) == -1) {
			*cause = xasprintf("line \"%.*s\": expected %zu fields",
			    (int)(eol - p), p, OBS_SCHEDSTAT_NFIELDS);
			return -1;
		}
		cpus++;
	}
	if (cpus > 0)
		return 0;
	*cause = xstrdup("no \"cpuN\" line");
	return -1;
}

/* The number of "CPUn" columns of an interrupts header line. */
static size_t
obs_irq_columns(const char *p, const char *eol)
{
	size_t n = 0;

	while ((p = strstr(p, "CPU")) != NULL && p < eol) {
		n++;
		p += 3;
	}
	return n;
}

/* Adds one row ("LOC: 1 2 3  Local timer interrupts") to the sums. */
static void
obs_irq_row(const char *p, const char *colon, size_t ncpu,
    struct obs_counters *c)
{
	const char *q = colon + 1;
	char	   *label, cpu[32];
	uint64_t    v, sum = 0;
	size_t	    i;

	while (*p == ' ')
		p++;
	label = xstrndup(p, colon - p);
	for (i = 0; i < ncpu && obs_number(&q, &v) == 0; i++) {
		sum += v;
		snprintf(cpu, sizeof cpu, "cpu%zu", i);
		obs_counter_add(c, cpu, v);
	}
	if (i == 0 && obs_number(&q, &v) == 0)
		sum = v; /* ERR, MIS: one count for the system */
	obs_counter_add(c, label, sum);
	obs_counter_add(c, "total", sum);
	free(label);
}

/* Reads /proc/interrupts or /proc/softirqs. */
int
obs_parse_interrupts(const char *text, struct obs_counters *c, char **cause)
{
	const char *eol = obs_eol(text), *p, *colon;
	size_t	    ncpu = obs_irq_columns(text, eol);

	if (ncpu == 0) {
		*cause = xstrdup("no \"CPU0\" header");
		return -1;
	}
	obs_counter_set(c, "total", 0);
	for (p = *eol ? eol + 1 : eol; *p != '\0'; p = *eol ? eol + 1 : eol) {
		eol = obs_eol(p);
		colon = memchr(p, ':', eol - p);
		if (colon != NULL)
			obs_irq_row(p, colon, ncpu, c);
	}
	return 0;
}

/* Reads a duration "12.345 us" ending before '|' into ns; -1 if none. */
static int
obs_graph_duration(const char *line, const char *bar, double *ns)
{
	const char *u = bar;
	double	    scale;

	while (u > line && u[-1] == ' ')
		u--;
	if (u - line < 3)
		return -1;
	if (strncmp(u - 2, "us", 2) == 0)
		scale = 1e3;
	else if (strncmp(u - 2, "ns", 2) == 0)
		scale = 1;
	else if (strncmp(u - 2, "ms", 2) == 0)
		scale = 1e6;
	else
		return -1;
	u -= 2;
	while (u > line && u[-1] == ' ')
		u--;
	while (u > line && (isdigit((unsigned char)u[-1]) || u[-1] == '.'))
		u--;
	if (!isdigit((unsigned char)*u))
		return -1;
	*ns = strtod(u, NULL) * scale;
	return 0;
}

/* Copies the function of "fn();" or "} /+ fn +/" after the bar. */
static int
obs_graph_function(const char *p, char *fn, size_t fnlen)
{
	size_t n;

	while (*p == ' ')
		p++;
	if (strncmp(p, "} /* ", 5) == 0)
		p += 5;
	n = strcspn(p, "( *\n");
	if (n == 0 || n >= fnlen)
		return -1;
	if (p[n] == '(' && strncmp(p + n, "();", 3) != 0)
		return -1; /* an entry "fn() {": its "}" has the time */
	memcpy(fn, p, n);
	fn[n] = '\0';
	return 0;
}

/* Reads one function_graph line; see observe.h. */
int
obs_parse_graph_line(const char *line, char *fn, size_t fnlen, double *ns)
{
	const char *bar;

	if (line[0] == '#' || (bar = strchr(line, '|')) == NULL)
		return 0;
	if (obs_graph_duration(line, bar, ns) == -1)
		return 0;
	return obs_graph_function(bar + 1, fn, fnlen) == 0;
}

/* One line of the trace file with options/raw set; see observe.h. */
int
obs_parse_raw_line(const char *line, struct obs_raw_event *ev)
{
	unsigned long long ts;
	long		   pid, cpu, type;
	int		   end = 0;

	if (line[0] == '#' ||
	    sscanf(line, "%ld %ld %llu type: %ld%n", &pid, &cpu, &ts, &type,
		&end) != 4 ||
	    (line[end] != '\0' && line[end] != '\n') || cpu < 0 || type < 0)
		return 0;
	ev->pid = pid;
	ev->cpu = cpu;
	ev->ts = ts;
	ev->type = type;
	return 1;
}

/* The "overrun: N" of a per_cpu stats file, or -1. */
int64_t
obs_parse_overrun(const char *text)
{
	const char *p = strstr(text, "overrun:");
	uint64_t    v;

	if (p == NULL)
		return -1;
	p += 8;
	return obs_number(&p, &v) == 0 ? (int64_t)v : -1;
}
