/*
 * A program's man page in roff (man(7) macros), written from its table
 * (common/args.h) alone, so that it says what --help says and cannot go
 * stale: name, synopsis, description, each command with its arguments and
 * options, the global options, exit status, environment, then the files
 * and the pages to see that the caller gives.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/args.h"
#include "common/xmalloc.h"

/* Writes text with roff's special characters escaped. */
static void
man_escape(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

/* Writes a line of running text; a leading '.' or '\'' is made literal. */
static void
man_line(FILE *f, const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", f);
	man_escape(f, s);
	fputc('\n', f);
}

/* Writes a run of letters: metavariables (capitals) italic, words bold. */
static void
man_run(FILE *f, const char *s, size_t n)
{
	char  *w = xstrndup(s, n);
	size_t i;
	bool   meta = true;

	for (i = 0; i < n; i++)
		if (islower((unsigned char)w[i]))
			meta = false;
	fputs(meta ? "\\fI" : "\\fB", f);
	man_escape(f, w);
	fputs("\\fR", f);
	free(w);
}

/*
 * Writes a usage word ("[--job JOB]...", "on|off", "[DIR]") with its
 * option names and literal choices bold and its metavariables italic.
 */
static void
man_usage(FILE *f, const char *w)
{
	size_t n;

	while (*w != '\0') {
		n = strcspn(w, "[]|. ");
		if (n > 0) {
			man_run(f, w, n);
			w += n;
		} else
			man_escape(f, (char[]){ *w++, '\0' });
	}
}

/* Writes a command's usage: its name, arguments and options, one line. */
static void
man_cmd_usage(FILE *f, const char *name, const struct args_cmd *c)
{
	const struct args_pos *p;
	const struct args_opt *o;
	char		      *w;

	fputs("\\fB", f);
	man_escape(f, name);
	fputs("\\fR", f);
	for (p = c->args; p != NULL && p->name != NULL; p++) {
		w = args_pos_usage(p);
		fputc(' ', f);
		man_usage(f, w);
		free(w);
	}
	for (o = c->opts; o != NULL && o->name != NULL; o++) {
		if (o->flags & ARGS_HIDDEN)
			continue;
		w = args_opt_usage(o);
		fputc(' ', f);
		man_usage(f, w);
		free(w);
	}
	fputc('\n', f);
}

/* Writes a one-line help; a period ends it when more sentences follow. */
static void
man_help(FILE *f, const char *help, bool more)
{
	size_t n = strlen(help);
	char  *s;

	if (!more || n == 0 || strchr(".!?", help[n - 1]) != NULL) {
		man_line(f, help);
		return;
	}
	s = xasprintf("%s.", help);
	man_line(f, s);
	free(s);
}

/* One option as a tagged paragraph: "-n, --check", its help. */
static void
man_opt(FILE *f, const struct args_opt *o)
{
	char *choices = args_choices(o->choices, ", ");

	fputs(".TP\n", f);
	if (o->letter != 0)
		fprintf(f, "\\fB\\-%c\\fR, ", o->letter);
	fputs("\\fB\\-\\-", f);
	man_escape(f, o->name);
	fputs("\\fR", f);
	if (o->type != ARGS_FLAG) {
		fputs(" \\fI", f);
		man_escape(f, o->metavar != NULL ? o->metavar : "VALUE");
		fputs("\\fR", f);
	}
	fputc('\n', f);
	man_help(f, o->help,
	    o->choices != NULL || (o->flags & (ARGS_REPEAT | ARGS_REQUIRED)));
	if (o->choices != NULL) {
		fputs("One of: ", f);
		man_line(f, choices);
	}
	if (o->flags & ARGS_REPEAT)
		fputs("May be given more than once.\n", f);
	if (o->flags & ARGS_REQUIRED)
		fputs("Required.\n", f);
	free(choices);
}

/* The options of a list that --help shows. */
static void
man_opts(FILE *f, const struct args_opt *v)
{
	for (; v != NULL && v->name != NULL; v++)
		if (!(v->flags & ARGS_HIDDEN))
			man_opt(f, v);
}

/* The arguments of a command, each as a tagged paragraph. */
static void
man_args(FILE *f, const struct args_pos *v)
{
	char *choices;

	for (; v != NULL && v->name != NULL; v++) {
		fputs(".TP\n\\fI", f);
		man_escape(f, v->name);
		fputs("\\fR\n", f);
		man_help(f, v->help, v->choices != NULL);
		if (v->choices != NULL) {
			choices = args_choices(v->choices, ", ");
			fputs("One of: ", f);
			man_line(f, choices);
			free(choices);
		}
	}
}

/* Each leaf command under prefix: its usage, summary, arguments, options. */
static void
man_commands(FILE *f, const char *prefix, const struct args_cmd *v)
{
	char *name;

	for (; v != NULL && v->name != NULL; v++) {
		name = xasprintf("%s %s", prefix, v->name);
		if (v->subs != NULL) {
			man_commands(f, name, v->subs);
			free(name);
			continue;
		}
		fputs(".TP\n", f);
		man_cmd_usage(f, name, v);
		man_line(f, v->summary);
		if (v->description != NULL) {
			fputs(".IP\n", f);
			man_line(f, v->description);
		}
		if ((v->args != NULL && v->args->name != NULL) ||
		    (v->opts != NULL && v->opts->name != NULL)) {
			fputs(".RS\n", f);
			man_args(f, v->args);
			man_opts(f, v->opts);
			fputs(".RE\n", f);
		}
		free(name);
	}
}

/* The synopsis: the program, its global options, COMMAND. */
static void
man_synopsis(FILE *f, const struct args_prog *prog)
{
	const struct args_opt *o;
	char		      *w;

	fputs(".SH SYNOPSIS\n.B ", f);
	man_escape(f, prog->name);
	fputc('\n', f);
	for (o = prog->global; o != NULL && o->name != NULL; o++) {
		if (o->flags & ARGS_HIDDEN)
			continue;
		w = args_opt_usage(o);
		man_usage(f, w);
		fputc('\n', f);
		free(w);
	}
	if (prog->cmds != NULL)
		fputs("\\fICOMMAND\\fR [\\fIARGUMENTS\\fR]\n", f);
}

/* Tagged paragraphs of (tag, text) rows: exit codes, environment, files. */
static void
man_row(FILE *f, const char *tag, const char *text)
{
	fputs(".TP\n.B ", f);
	man_escape(f, tag);
	fputc('\n', f);
	man_line(f, text);
}

/* Exit status and environment, from the table. */
static void
man_tables(FILE *f, const struct args_prog *prog)
{
	const struct args_exit *e;
	const struct args_env  *v;
	char			code[16];

	if (prog->exits != NULL)
		fputs(".SH EXIT STATUS\n", f);
	for (e = prog->exits; e != NULL && e->meaning != NULL; e++) {
		snprintf(code, sizeof code, "%d", e->code);
		man_row(f, code, e->meaning);
	}
	if (prog->env != NULL)
		fputs(".SH ENVIRONMENT\n", f);
	for (v = prog->env; v != NULL && v->name != NULL; v++)
		man_row(f, v->name, v->meaning);
}

/* The name in capitals, for .TH. */
static char *
man_upper(const char *s)
{
	char *u = xstrdup(s), *p;

	for (p = u; *p != '\0'; p++)
		*p = (char)toupper((unsigned char)*p);
	return u;
}

void
args_man(FILE *f, const struct args_prog *prog, const struct args_man *page)
{
	char  *up = man_upper(prog->name);
	size_t i;

	fprintf(f, ".\\\" Written from %s's option table; do not edit.\n",
	    prog->name);
	fprintf(f, ".TH %s %d \"%s\" \"hilab %s\" \"hilab\"\n", up,
	    page->section, page->date, page->version);
	fputs(".SH NAME\n", f);
	man_escape(f, prog->name);
	fputs(" \\- ", f);
	man_line(f, prog->summary);
	man_synopsis(f, prog);
	fputs(".SH DESCRIPTION\n", f);
	man_line(f,
	    prog->description != NULL ? prog->description : prog->summary);
	if (prog->cmds != NULL) {
		fputs(".SH COMMANDS\n", f);
		man_commands(f, prog->name, prog->cmds);
	}
	fputs(prog->cmds != NULL ? ".SH GLOBAL OPTIONS\n" : ".SH OPTIONS\n", f);
	if (prog->cmds != NULL)
		fputs("Accepted anywhere on the line.\n", f);
	man_opts(f, prog->global);
	man_tables(f, prog);
	if (page->files != NULL)
		fputs(".SH FILES\n", f);
	for (i = 0; page->files != NULL && page->files[i] != NULL; i += 2)
		man_row(f, page->files[i], page->files[i + 1]);
	if (page->see_also != NULL) {
		fputs(".SH SEE ALSO\n", f);
		man_line(f, page->see_also);
	}
	free(up);
}
