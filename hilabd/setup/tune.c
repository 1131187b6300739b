/*
 * A job's machine setup (job.h's struct job_setup) held on its host by
 * "hilab-agent tune" (agents/tune.c) on an ssh session of its own: applied
 * before the job's first run on each boot of the machine, kept while the
 * same job runs on the same boot (the holder answers "status"), put back
 * when the job's runs there are over.  Because the holder restores when
 * its channel closes, a killed controller leaves nothing changed: its ssh
 * sessions die with it.  What each control came to goes to the run's
 * events and facts ("setup.thp": "never"); an absent control is a warning,
 * a control that did not stick fails the run.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/setup/setup.h"
#include "hilabd/worker_ctx.h"
#include "jobs/job.h"
#include "machines/agent_client.h"
#include "machines/ssh.h"

#define TUNE_LINE_MAX 4096

/* Forgets the hold: its channel and session closed, its record freed. */
static void
tune_drop(struct setup_tune *t)
{
	ssh_host_chan_close(t->ch);
	ssh_host_close(t->h);
	free(t->boot);
	json_decref(t->facts);
	memset(t, 0, sizeof *t);
}

/* Reads one line the holder prints (caller frees), or NULL with *cause. */
static char *
tune_line(struct setup_tune *t, char **cause)
{
	char   line[TUNE_LINE_MAX];
	size_t n = 0;

	while (n + 1 < sizeof line) {
		if (ssh_host_chan_read(t->ch, &line[n], 1,
			ssh_host_command_timeout(t->h), cause) == -1)
			return NULL;
		if (line[n] == '\n')
			break;
		n++;
	}
	line[n] = '\0';
	return xstrdup(line);
}

/* Sends one line to the holder. */
static int
tune_send(struct setup_tune *t, const char *line, char **cause)
{
	return ssh_host_chan_write(t->ch, line, strlen(line),
	    ssh_host_command_timeout(t->h), cause);
}

/* The boot id in a run's facts (JSON), or "" (caller frees). */
static char *
tune_boot_of(const char *facts)
{
	json_t	   *o = json_loads(facts != NULL ? facts : "{}", 0, NULL);
	const char *s = json_string_value(json_object_get(o, "boot_id"));
	char	   *boot = xstrdup(s != NULL ? s : "");

	json_decref(o);
	return boot;
}

/* The command that starts the holder with the job's controls. */
static char *
tune_command(struct worker_ctx *ctx, const struct job_setup *s)
{
	const char *words[JOB_SETUP_NCONTROLS][2];
	char	   *cmd = xstrdup("exec "), *kv;
	size_t	    i, n = job_setup_words(s, words);

	setup_append_word(&cmd, agent_remote_path(ctx->conn));
	setup_append_word(&cmd, "--dir");
	setup_append_word(&cmd, setup_agent_dir(ctx));
	setup_append_word(&cmd, "tune");
	for (i = 0; i < n; i++) {
		kv = xasprintf("%s=%s", words[i][0], words[i][1]);
		setup_append_word(&cmd, kv);
		free(kv);
	}
	return cmd;
}

/*
 * Takes one report line of the holder: "set KEY VALUE WAS N", "absent
 * KEY WHY", "failed KEY WHY" into an event and the hold's facts.  A
 * failed control, or an error of the holder, sets *cause.  Returns 1 on
 * "ready", 0 else.
 */
static int
tune_report(struct worker_ctx *ctx, const struct db_run *r,
    struct setup_tune *t, const char *line, char **cause)
{
	char key[64], value[256], was[256], *fact = NULL, *why = NULL;
	int  n = 0;

	if (strcmp(line, "ready") == 0)
		return 1;
	if (sscanf(line, "set %63s %255s %255s %d", key, value, was, &n) == 4) {
		setup_event(ctx, r, DB_INFO, "machine setup: %s %s (was %s)",
		    key, value, was);
		fact = xstrdup(value);
	} else if (sscanf(line, "absent %63s %n", key, &n) == 1 && n > 0) {
		setup_event(ctx, r, DB_WARN,
		    "machine setup: %s absent: %s (not applied)", key,
		    line + n);
		fact = xasprintf("absent: %s", line + n);
	} else if (sscanf(line, "failed %63s %n", key, &n) == 1 && n > 0) {
		fact = xasprintf("failed: %s", line + n);
		why = xasprintf("%s failed: %s", key, line + n);
	} else
		why =
		    xstrdup(strncmp(line, "error ", 6) == 0 ? line + 6 : line);
	if (why != NULL && *cause == NULL)
		*cause = xasprintf("host \"%s\": machine setup: %s",
		    worker_name(ctx), why);
	if (fact != NULL) {
		snprintf(value, sizeof value, "setup.%s", key);
		json_object_set_new(t->facts, value, json_string(fact));
	}
	free(fact);
	free(why);
	return 0;
}

/*
 * Starts the holder and reads its report up to "ready".  Returns 0, 1
 * when it holds but a control failed (*cause set), -1 when it does not
 * hold anything.
 */
static int
tune_apply(struct worker_ctx *ctx, const struct db_run *r, struct setup_tune *t,
    const struct job_setup *s, char **cause)
{
	char *cmd, *line;
	int   ready = 0;

	if ((t->h = ssh_host_connect(ctx->w->machine, 0, cause)) == NULL)
		return -1;
	cmd = tune_command(ctx, s);
	t->ch = ssh_host_chan_open(t->h, cmd, cause);
	free(cmd);
	if (t->ch == NULL)
		return -1;
	t->facts = json_object();
	while (!ready && (line = tune_line(t, cause)) != NULL) {
		ready = tune_report(ctx, r, t, line, cause);
		free(line);
	}
	if (!ready)
		return -1;
	return *cause == NULL ? 0 : 1;
}

/* Whether the hold is job's and its holder still answers. */
static bool
tune_held(struct setup_tune *t, int64_t job)
{
	char *cause = NULL, *line = NULL;
	bool  held;

	if (t->ch == NULL || t->job != job)
		return false;
	held = tune_send(t, "status\n", &cause) == 0 &&
	    (line = tune_line(t, &cause)) != NULL && strcmp(line, "held") == 0;
	free(line);
	free(cause);
	return held;
}

/* Applies the run's job's machine setup unless held; see setup.h. */
int
tune_begin(struct worker_ctx *ctx, const struct db_run *r,
    const struct job *job, const char *facts, char **cause)
{
	struct setup_tune *t = &setup_get(ctx)->tune;
	const char	  *words[JOB_SETUP_NCONTROLS][2];
	char		  *boot = tune_boot_of(facts);
	int		   rc = 1;

	if (t->ch != NULL && strcmp(t->boot, boot) != 0)
		tune_drop(t); /* an earlier boot's: gone with it */
	else if (t->ch != NULL && t->job != r->job)
		tune_end(ctx, t->job); /* another job's, on this boot */
	if (job_setup_words(&job->setup, words) == 0 || tune_held(t, r->job)) {
		free(boot);
		return 0;
	}
	tune_drop(t); /* a holder that no longer answers */
	t->job = r->job;
	t->boot = boot;
	switch (tune_apply(ctx, r, t, &job->setup, cause)) {
	case 1:
		tune_end(ctx, r->job); /* what it did set goes back */
		rc = -1;
		break;
	case -1:
		tune_drop(t);
		rc = -1;
		break;
	}
	return rc;
}

/*
 * The run's facts (JSON) updated with fresh ones, when read again, and
 * with what the held setup came to; NULL when none is held (caller frees).
 */
char *
tune_facts(struct worker_ctx *ctx, const char *facts, const char *fresh)
{
	struct setup_tune *t = &setup_get(ctx)->tune;
	json_t		  *o, *f;
	char		  *s, *out;

	if (t->facts == NULL || facts == NULL ||
	    (o = json_loads(facts, 0, NULL)) == NULL)
		return NULL;
	if (fresh != NULL && (f = json_loads(fresh, 0, NULL)) != NULL) {
		json_object_update(o, f);
		json_decref(f);
	}
	json_object_update(o, t->facts);
	s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	out = xstrdup(s);
	free(s);
	return out;
}

/* Puts the held setup back and lets the holder go; see setup.h. */
void
tune_end(struct worker_ctx *ctx, int64_t job)
{
	struct setup_tune *t = &setup_get(ctx)->tune;
	struct db_run	   at = { .job = job };
	char		  *cause = NULL, *line = NULL, key[64], value[256];

	if (t->ch == NULL)
		return;
	if (tune_send(t, "restore\n", &cause) == 0)
		while ((line = tune_line(t, &cause)) != NULL &&
		    strcmp(line, "done") != 0) {
			if (sscanf(line, "restored %63s %255s", key, value) ==
			    2)
				setup_event(ctx, &at, DB_INFO,
				    "machine setup restored: %s %s", key,
				    value);
			else if (strcmp(line, "held") != 0)
				setup_event(ctx, &at, DB_WARN,
				    "machine setup: %s", line);
			free(line);
		}
	if (line == NULL)
		setup_event(ctx, &at, DB_WARN,
		    "machine setup: restore not confirmed: %s", cause);
	free(line);
	free(cause);
	tune_drop(t);
}
