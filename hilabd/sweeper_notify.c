/*
 * The sweeper's mail: a confirmed regression (the A/B job's report) or a
 * failed sweep job (that job's report) as a mail-ready message, appended
 * to the sweep's mbox file and piped to its mail command (argv words, no
 * shell; sendmail -t reads the To header, -oi a lone "." line).  The
 * message: a summary of what happened (series, change, confirmation,
 * kernels and the commit range where both sides are built from one tree,
 * the commands to look again), then hilab report's text of the job.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/spawn.h"
#include "common/xmalloc.h"
#include "db/db.h"
#include "hilabd/sweeper.h"
#include "report/mail.h"
#include "report/report_text.h"

/* The commits a mail lists at most, as text for git's option. */
#define NOTIFY_MAX_COMMITS "50"

/* The kernel of side k of the A/B job's spec as JSON text, or NULL. */
static char *
notify_kernel_spec(const char *spec, size_t k)
{
	json_t *o = json_loads(spec, 0, NULL);
	char   *s = NULL;
	json_t *kern = json_array_get(json_object_get(o, "kernels"), k);

	if (kern != NULL)
		s = json_dumps(kern, JSON_COMPACT);
	json_decref(o);
	return s;
}

/* The commits A..B of tree, one "id subject" a line, indented. */
static void
notify_commit_list(FILE *fp, const char *tree, const char *a, const char *b)
{
	char	    *range = xasprintf("%s..%s", a, b), *out = NULL;
	char	    *cause = NULL, *line, *save = NULL;
	char	    *argv[] = { (char *)"git", (char *)"-C", (char *)tree,
		       (char *)"log", (char *)"--oneline", (char *)"--no-decorate",
		       (char *)"--max-count=" NOTIFY_MAX_COMMITS, range, NULL };
	struct spawn sp = { .argv = argv, .log_fd = -1, .output = &out };

	if (spawn_run(&sp, &cause) == 0 && out != NULL)
		for (line = strtok_r(out, "\n", &save); line != NULL;
		     line = strtok_r(NULL, "\n", &save))
			fprintf(fp, "             %s\n", line);
	free(range);
	free(out);
	free(cause);
}

/*
 * "git -C TREE log A..B" and its commits (the newest first, at most
 * NOTIFY_MAX_COMMITS) when both kernels are built from one tree.
 */
static void
notify_commits(FILE *fp, const char *spec)
{
	json_t	   *o = json_loads(spec, 0, NULL);
	json_t	   *ks = json_object_get(o, "kernels");
	const char *g0 =
	    json_string_value(json_object_get(json_array_get(ks, 0), "git"));
	const char *g1 =
	    json_string_value(json_object_get(json_array_get(ks, 1), "git"));
	const char *b0 =
	    json_string_value(json_object_get(json_array_get(ks, 0), "base"));
	const char *b1 =
	    json_string_value(json_object_get(json_array_get(ks, 1), "base"));

	if (g0 != NULL && g1 != NULL && b0 != NULL && b1 != NULL &&
	    strcmp(g0, g1) == 0) {
		fprintf(fp, "  commits    git -C %s log %s..%s\n", g0, b0, b1);
		notify_commit_list(fp, g0, b0, b1);
	}
	json_decref(o);
}

/* The summary of a confirmed regression, before the report. */
static void
notify_change(FILE *fp, const struct db_sweep *w,
    const struct db_sweep_change *c, const struct db_job *j)
{
	char  *k0 = notify_kernel_spec(j->spec, 0);
	char  *k1 = notify_kernel_spec(j->spec, 1);
	char  *s0 = report_kernel_source(k0 ? k0 : "{}");
	char  *s1 = report_kernel_source(k1 ? k1 : "{}");
	size_t i;

	fprintf(fp,
	    "Sweep \"%s\" (%s) found a regression and confirmed it.\n\n"
	    "  series     %s %s%s%s on %s\n"
	    "  change     from job %lld on, after job %lld: %g -> %g "
	    "(%+.1f%%, change point p=%.2g)\n"
	    "  confirmed  by job %lld, %d interleaved rounds of good (job "
	    "%lld) and suspect (job %lld): %+.1f%%, p=%.2g\n"
	    "  good       %s\n  suspect    %s\n",
	    w->name, w->file, c->benchmark, c->metric, *c->params ? " " : "",
	    c->params, c->machine, (long long)c->job, (long long)c->before_job,
	    c->before, c->after, c->effect_pct, c->p, (long long)j->id,
	    w->confirm_rounds, (long long)c->before_job, (long long)c->job,
	    c->confirm_effect_pct, c->confirm_p, s0, s1);
	notify_commits(fp, j->spec);
	fprintf(fp, "  look again hilab compare --job %lld --benchmark %s\n",
	    (long long)j->id, c->benchmark);
	fprintf(fp, "             hilab sweep show %s\n\n", w->name);
	for (i = 0; i < 72; i++)
		fputc('-', fp);
	fputs("\n\n", fp);
	free(k0), free(k1), free(s0), free(s1);
}

/* The subject and body of the mail about job j; 0 or -1 with *cause. */
static int
notify_compose(struct db *db, const struct db_sweep *w,
    const struct db_sweep_change *c, const struct db_job *j, char **subject,
    char **body, char **cause)
{
	size_t len = 0;
	FILE  *fp;
	int    rc;

	if ((fp = open_memstream(body, &len)) == NULL)
		fatalx("open_memstream: out of memory");
	if (c != NULL) {
		*subject = xasprintf("[hilab] sweep %s: regression confirmed: "
				     "%s %s on %s %+.1f%% (p=%.2g)",
		    w->name, c->benchmark, c->metric, c->machine,
		    c->confirm_effect_pct, c->confirm_p);
		notify_change(fp, w, c, j);
	} else {
		*subject = xasprintf("[hilab] sweep %s: job %lld failed",
		    w->name, (long long)j->id);
		fprintf(fp, "Sweep \"%s\" (%s): job %lld failed: %s\n\n",
		    w->name, w->file, (long long)j->id,
		    j->error ? j->error : "(no cause recorded)");
	}
	rc = report_text_print(fp, db, j, "amd", cause);
	fclose(fp);
	return rc;
}

/* The mail command's argv from its JSON array (caller frees). */
static char **
notify_argv(const char *json)
{
	json_t *a = json_loads(json, 0, NULL), *v;
	char  **argv = xcalloc(json_array_size(a) + 1, sizeof *argv);
	size_t	i;

	json_array_foreach(a, i, v) argv[i] =
	    xstrdup(json_string_value(v) ? json_string_value(v) : "");
	json_decref(a);
	return argv;
}

/* Writes text to a new temporary file; its path or NULL with *cause. */
static char *
notify_tmpfile(const char *text, char **cause)
{
	const char *dir = getenv("TMPDIR");
	char  *path = xasprintf("%s/hilab-mail.XXXXXX", dir ? dir : "/tmp");
	size_t n = strlen(text);
	FILE  *fp;
	int    fd;

	if ((fd = mkstemp(path)) == -1 || (fp = fdopen(fd, "w")) == NULL ||
	    fwrite(text, 1, n, fp) != n || fclose(fp) != 0) {
		*cause = xasprintf("mail: temporary file: %s", strerror(errno));
		free(path);
		return NULL;
	}
	return path;
}

/* Pipes the message to the sweep's mail command; 0 or -1 with *cause. */
static int
notify_pipe(const struct db_sweep *w, const char *text, char **cause)
{
	char	   **argv = notify_argv(w->mail_command), *out = NULL;
	char	    *in = notify_tmpfile(text, cause);
	struct spawn s = { .argv = argv, .log_fd = -1, .output = &out };
	int	     status = -1;
	size_t	     i;

	if (in != NULL && argv[0] != NULL) {
		s.input = in;
		if ((status = spawn_run(&s, cause)) > 0)
			*cause =
			    xasprintf("mail command \"%s\": exit %d%s%.200s",
				argv[0], status, out && *out ? ": " : "",
				out ? out : "");
		unlink(in);
	}
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
	free(in);
	free(out);
	return status == 0 ? 0 : -1;
}

/* Sends text each way the sweep has; notes each outcome as an event. */
static void
notify_deliver(struct db *db, const struct db_sweep *w, int64_t job,
    const char *text, int64_t now)
{
	char *sender = mail_sender(), *cause = NULL, *why = NULL;

	if (w->mbox != NULL &&
	    mail_mbox_append(w->mbox, sender, now, text, &cause) == -1)
		why = cause;
	else if (w->mbox != NULL)
		db_sweep_event_add(db, w->id, job, DB_INFO, &why,
		    "sweep \"%s\": mailed the report of job %lld to mbox %s",
		    w->name, (long long)job, w->mbox);
	if (why != NULL)
		log_warn("sweeper", "sweep \"%s\": %s", w->name, why);
	free(why);
	why = cause = NULL;
	if (w->mail_command != NULL && notify_pipe(w, text, &cause) == -1)
		why = cause;
	else if (w->mail_command != NULL)
		db_sweep_event_add(db, w->id, job, DB_INFO, &why,
		    "sweep \"%s\": mailed the report of job %lld through %s",
		    w->name, (long long)job, w->mail_command);
	if (why != NULL)
		log_warn("sweeper", "sweep \"%s\": %s", w->name, why);
	free(why);
	free(sender);
}

/* Mails subject and body the ways the sweep has; see hilabd/sweeper.h. */
void
sweeper_mail(struct db *db, const struct db_sweep *w, int64_t job,
    const char *subject, const char *body)
{
	struct mail m = { 0 };
	char	   *text, *sender;

	if (w->mbox == NULL && w->mail_command == NULL)
		return;
	sender = mail_sender();
	m.from = sender;
	m.subject = subject;
	m.date_ms = db_now_ms();
	m.body = body;
	text = mail_format(&m);
	notify_deliver(db, w, job, text, m.date_ms);
	free(text);
	free(sender);
}

/* Mails a confirmed regression or a failed job; see hilabd/sweeper.h. */
void
sweeper_notify(struct db *db, const struct db_sweep *w,
    const struct db_sweep_change *c, int64_t job)
{
	struct db_job *j;
	char	      *subject = NULL, *body = NULL, *cause = NULL;

	if (w->mbox == NULL && w->mail_command == NULL)
		return;
	if ((j = db_job_get(db, job, &cause)) == NULL ||
	    notify_compose(db, w, c, j, &subject, &body, &cause) == -1) {
		log_warn("sweeper", "sweep \"%s\": mail: %s", w->name, cause);
		free(cause);
		goto out;
	}
	sweeper_mail(db, w, job, subject, body);
out:
	free(subject);
	free(body);
	db_job_free(j);
}
