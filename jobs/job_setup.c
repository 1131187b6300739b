/*
 * A job's machine setup, "setup: {governor: performance, boost: off,
 * smt: on|off, thp: never, cstates: C1}": what each of its machines is
 * set to before the job's runs there and put back after them (the agent's
 * tune, hilabd/setup/tune.c).  Each key is optional.
 */
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/conf.h"
#include "jobs/job.h"
#include "jobs/job_yaml.h"

#define JOB_SETUP_NAME "a name of letters, digits, '_' and '-'"

static const char *const job_setup_onoff[] = { "on", "off", NULL };
static const char *const job_setup_thp[] = { "always", "madvise", "never",
	NULL };

/* A governor's or a C-state's name: letters, digits, '_' and '-'. */
static void
job_setup_name(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	const char *s = conf_scalar(f, k, v, JOB_SETUP_NAME);

	if (s == NULL)
		return;
	if (*s == '\0' ||
	    strspn(s,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"0123456789_-") != strlen(s) ||
	    *s == '-')
		conf_expect(f, k, v, JOB_SETUP_NAME);
	else
		conf_set_str(dst, s);
}

#define SET(f) offsetof(struct job_setup, f)

static const struct conf_key job_setup_keys[] = {
	{ .name = "governor", .parse = job_setup_name, .off = SET(governor) },
	{ .name = "boost",
	    .parse = conf_parse_choice,
	    .off = SET(boost),
	    .choices = job_setup_onoff },
	{ .name = "smt",
	    .parse = conf_parse_choice,
	    .off = SET(smt),
	    .choices = job_setup_onoff },
	{ .name = "thp",
	    .parse = conf_parse_choice,
	    .off = SET(thp),
	    .choices = job_setup_thp },
	{ .name = "cstates", .parse = job_setup_name, .off = SET(cstates) },
	{ .name = NULL },
};

/* "setup": a mapping of the controls above into the job's setup. */
void
job_read_setup(struct conf_file *f, const struct conf_key *k, yaml_node_t *v,
    void *dst)
{
	struct conf_key sub = *k;

	sub.sub = job_setup_keys;
	conf_parse_section(f, &sub, v, dst);
}

/* The controls a setup asks for, in order, as KEY=VALUE (see job.h). */
size_t
job_setup_words(const struct job_setup *s,
    const char			       *words[JOB_SETUP_NCONTROLS][2])
{
	const char *const keys[] = { "governor", "boost", "smt", "thp",
		"cstates" };
	const char *const vals[] = { s->governor, s->boost, s->smt, s->thp,
		s->cstates };
	size_t		  i, n = 0;

	for (i = 0; i < JOB_SETUP_NCONTROLS; i++)
		if (vals[i] != NULL) {
			words[n][0] = keys[i];
			words[n++][1] = vals[i];
		}
	return n;
}

/* Frees what a setup holds. */
void
job_setup_clear(struct job_setup *s)
{
	free(s->governor);
	free(s->boost);
	free(s->smt);
	free(s->thp);
	free(s->cstates);
	memset(s, 0, sizeof *s);
}
