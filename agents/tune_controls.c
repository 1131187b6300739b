/*
 * The controls of a machine setup (tune.c) and the sysfs files each one
 * writes, under a root ("" for the host, a directory for tests):
 *
 *	governor=NAME	every cpufreq policy's scaling_governor, when each
 *			offers NAME (scaling_available_governors)
 *	boost=on|off	cpufreq/boost (1/0), else intel_pstate/no_turbo (0/1)
 *	smt=on|off	smt/control, when it reads on or off (not
 *			notsupported, notimplemented or forceoff)
 *	thp=always|madvise|never
 *			/sys/kernel/mm/transparent_hugepage/enabled
 *	cstates=NAME	every cpuidle state deeper than the one called NAME
 *			disabled, on every CPU that has cpuidle states
 *
 * A control the host does not offer is absent, with the reason; it is
 * never made up.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "agents/agent.h"
#include "common/xmalloc.h"

#define TUNE_CPU "/sys/devices/system/cpu"
#define TUNE_THP "/sys/kernel/mm/transparent_hugepage/enabled"

/* What a control may be set to; NULL: any name (checked by the host). */
static const char *const tune_onoff[] = { "on", "off", NULL };
static const char *const tune_thp[] = { "always", "madvise", "never", NULL };

/* The value of a control file: the [selected] word of a list, or all. */
char *
tune_read(const char *path)
{
	char *s = facts_read(path), *open, *close;

	if (s == NULL || (open = strchr(s, '[')) == NULL ||
	    (close = strchr(open, ']')) == NULL)
		return s;
	*close = '\0';
	memmove(s, open + 1, strlen(open + 1) + 1);
	return s;
}

/* Adds the write of value to path to p. */
static void
tune_add(struct tune_plan *p, const char *path, const char *value)
{
	p->v = xreallocarray(p->v, p->n + 1, sizeof *p->v);
	p->v[p->n].path = xstrdup(path);
	p->v[p->n].value = xstrdup(value);
	p->n++;
}

/* Marks p absent for the reason given. */
static void
tune_absent(struct tune_plan *p, const char *fmt, const char *arg)
{
	p->absent = xasprintf(fmt, arg);
}

/* The paths matching root + pattern, sorted (globfree after). */
static size_t
tune_glob(const char *root, const char *pattern, glob_t *g)
{
	char *pat = xasprintf("%s%s", root, pattern);

	memset(g, 0, sizeof *g);
	if (glob(pat, 0, NULL, g) != 0)
		g->gl_pathc = 0;
	free(pat);
	return g->gl_pathc;
}

/* Whether word is one of the blank-separated words of path's contents. */
static int
tune_offers(const char *path, const char *word)
{
	char *s = facts_read(path), *w, *save = NULL;
	int   found = 0;

	for (w = s ? strtok_r(s, " \t\n", &save) : NULL; w != NULL && !found;
	     w = strtok_r(NULL, " \t\n", &save))
		found = strcmp(w, word) == 0;
	free(s);
	return found;
}

/* governor=NAME: every cpufreq policy that offers it. */
static void
tune_governor(const char *root, struct tune_plan *p)
{
	glob_t g;
	char  *avail;
	size_t i;

	if (tune_glob(root, TUNE_CPU "/cpufreq/policy*/scaling_governor", &g) ==
	    0) {
		tune_absent(p, "no cpufreq policies (%s)",
		    TUNE_CPU "/cpufreq/policy*/scaling_governor");
		globfree(&g);
		return;
	}
	for (i = 0; i < g.gl_pathc && p->absent == NULL; i++) {
		avail = xasprintf("%.*s/scaling_available_governors",
		    (int)(strrchr(g.gl_pathv[i], '/') - g.gl_pathv[i]),
		    g.gl_pathv[i]);
		if (!tune_offers(avail, p->value))
			tune_absent(p, "governor not offered by \"%s\"", avail);
		else
			tune_add(p, g.gl_pathv[i], p->value);
		free(avail);
	}
	globfree(&g);
}

/* Whether root + path can be read; *full gets the path (caller frees). */
static int
tune_file(const char *root, const char *path, char **full)
{
	char *v;

	*full = xasprintf("%s%s", root, path);
	if ((v = facts_read(*full)) == NULL)
		return 0;
	free(v);
	return 1;
}

/* boost=on|off: cpufreq/boost, else intel_pstate's no_turbo inverted. */
static void
tune_boost(const char *root, struct tune_plan *p)
{
	int   on = strcmp(p->value, "on") == 0;
	char *path;

	if (tune_file(root, TUNE_CPU "/cpufreq/boost", &path))
		tune_add(p, path, on ? "1" : "0");
	else {
		free(path);
		if (tune_file(root, TUNE_CPU "/intel_pstate/no_turbo", &path))
			tune_add(p, path, on ? "0" : "1");
		else
			tune_absent(p, "no %s",
			    TUNE_CPU "/cpufreq/boost or intel_pstate/no_turbo");
	}
	free(path);
}

/* smt=on|off: smt/control, when the kernel lets it change. */
static void
tune_smt(const char *root, struct tune_plan *p)
{
	char *path = xasprintf("%s" TUNE_CPU "/smt/control", root);
	char *now = tune_read(path);

	if (now == NULL)
		tune_absent(p, "no %s", TUNE_CPU "/smt/control");
	else if (strcmp(now, "on") != 0 && strcmp(now, "off") != 0)
		tune_absent(p, "smt control is \"%s\"", now);
	else
		tune_add(p, path, p->value);
	free(now);
	free(path);
}

/* thp=always|madvise|never: the enabled file, when it offers the value. */
static void
tune_thp_plan(const char *root, struct tune_plan *p)
{
	char *path = xasprintf("%s" TUNE_THP, root), *s = facts_read(path);

	if (s == NULL)
		tune_absent(p, "no %s", TUNE_THP);
	else if (strstr(s, p->value) == NULL)
		tune_absent(p, "\"%s\" is not offered", s);
	else
		tune_add(p, path, p->value);
	free(s);
	free(path);
}

/* The index of the state of cpu dir called name, or -1. */
static long
tune_state_index(const char *cpu, const char *name, size_t nstates)
{
	char  *path, *s;
	size_t i;
	long   found = -1;

	for (i = 0; i < nstates && found == -1; i++) {
		path = xasprintf("%s/cpuidle/state%zu/name", cpu, i);
		if ((s = facts_read(path)) != NULL && strcasecmp(s, name) == 0)
			found = (long)i;
		free(s);
		free(path);
	}
	return found;
}

/* Disables every state deeper than NAME on one CPU; 0, or -1 absent. */
static int
tune_cstates_cpu(const char *cpu, struct tune_plan *p)
{
	glob_t g;
	size_t n, i;
	char  *pat = xasprintf("%s/cpuidle/state[0-9]*", cpu), *path;
	long   deepest;

	memset(&g, 0, sizeof g);
	n = glob(pat, 0, NULL, &g) == 0 ? g.gl_pathc : 0;
	globfree(&g);
	free(pat);
	if ((deepest = tune_state_index(cpu, p->value, n)) == -1) {
		tune_absent(p, "no cpuidle state \"%s\"", p->value);
		return -1;
	}
	for (i = (size_t)deepest + 1; i < n; i++) {
		path = xasprintf("%s/cpuidle/state%zu/disable", cpu, i);
		tune_add(p, path, "1");
		free(path);
	}
	return 0;
}

/* cstates=NAME: states deeper than NAME disabled on every CPU. */
static void
tune_cstates(const char *root, struct tune_plan *p)
{
	glob_t g;
	size_t i, ncpus = tune_glob(root, TUNE_CPU "/cpu[0-9]*", &g), with = 0;
	char  *dir;

	for (i = 0; i < ncpus && p->absent == NULL; i++) {
		dir = xasprintf("%s/cpuidle/state0", g.gl_pathv[i]);
		if (access(dir, F_OK) == 0) {
			with++;
			tune_cstates_cpu(g.gl_pathv[i], p);
		}
		free(dir);
	}
	globfree(&g);
	if (with == 0 && p->absent == NULL)
		tune_absent(p, "no cpuidle states (%s)",
		    TUNE_CPU "/cpu*/cpuidle/state*");
}

/* The controls: their keys, allowed values and what they write. */
static const struct {
	const char	  *key;
	const char *const *values; /* NULL: a name */
	void (*plan)(const char *root, struct tune_plan *);
} tune_controls[] = {
	{ "smt", tune_onoff, tune_smt },
	{ "governor", NULL, tune_governor },
	{ "boost", tune_onoff, tune_boost },
	{ "thp", tune_thp, tune_thp_plan },
	{ "cstates", NULL, tune_cstates },
};

#define TUNE_NCONTROLS (sizeof tune_controls / sizeof tune_controls[0])

/* Whether value suits control i: one of its values, or a plain name. */
static int
tune_value_ok(size_t i, const char *value)
{
	size_t j;

	if (tune_controls[i].values == NULL)
		return *value != '\0' &&
		    strspn(value,
			"abcdefghijklmnopqrstuvwxyz"
			"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
		    strlen(value);
	for (j = 0; tune_controls[i].values[j] != NULL; j++)
		if (strcmp(tune_controls[i].values[j], value) == 0)
			return 1;
	return 0;
}

/* The place of key among the controls (the order they apply in), or -1. */
int
tune_control_index(const char *key)
{
	size_t i;

	for (i = 0; i < TUNE_NCONTROLS; i++)
		if (strcmp(tune_controls[i].key, key) == 0)
			return (int)i;
	return -1;
}

/* Plans control key=value under root into p; see agent.h. */
int
tune_control_plan(const char *root, const char *key, const char *value,
    struct tune_plan *p, char **cause)
{
	int i = tune_control_index(key);

	memset(p, 0, sizeof *p);
	if (i == -1 || !tune_value_ok((size_t)i, value)) {
		*cause = i == -1
		    ? xasprintf("unknown control \"%s\"", key)
		    : xasprintf("control \"%s\": bad value \"%s\"", key, value);
		return -1;
	}
	p->key = tune_controls[i].key;
	p->value = xstrdup(value);
	tune_controls[i].plan(root, p);
	if (p->absent == NULL && p->n > 0)
		p->was = tune_read(p->v[0].path);
	return 0;
}

/* Frees what a plan holds. */
void
tune_plan_clear(struct tune_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].path);
		free(p->v[i].value);
	}
	free(p->v);
	free(p->value);
	free(p->was);
	free(p->absent);
	memset(p, 0, sizeof *p);
}
