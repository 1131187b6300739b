/*
 * Usage lines and --help of a program's table (common/args.h), written
 * from the table alone and wrapped at 80 columns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/args.h"
#include "common/xmalloc.h"

#define HELP_WIDTH  80
#define HELP_COLUMN 26 /* where a summary starts */
/* Choices shorter than this show in the usage line ("on|off"). */
#define HELP_INLINE 24

/*
 * Words written with wrapping: the column, where a new line resumes, and
 * whether a word was written since (a blank goes before the next).
 */
struct help_out {
	FILE  *f;
	size_t col;
	size_t indent;
	bool   word;
};

/* Writes a word, first breaking the line if it would pass the width. */
static void
help_word(struct help_out *o, const char *w)
{
	size_t len = strlen(w);

	if (o->word && o->col + 1 + len > HELP_WIDTH) {
		fprintf(o->f, "\n%*s", (int)o->indent, "");
		o->col = o->indent;
	} else if (o->word) {
		fputc(' ', o->f);
		o->col++;
	}
	fputs(w, o->f);
	o->col += len;
	o->word = true;
}

/* Writes text word by word from column col, wrapped to indent; a newline. */
void
args_wrap(FILE *f, const char *text, size_t col, size_t indent)
{
	struct help_out o = { f, col, indent, false };
	char	       *copy = xstrdup(text), *w, *save = NULL;

	for (w = strtok_r(copy, " \n", &save); w != NULL;
	     w = strtok_r(NULL, " \n", &save))
		help_word(&o, w);
	fputc('\n', f);
	free(copy);
}

/* "a|b|c" of a NULL-ended list (caller frees). */
char *
args_choices(const char *const *v, const char *sep)
{
	char  *s = xstrdup(""), *t;
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++) {
		t = xasprintf("%s%s%s", s, i > 0 ? sep : "", v[i]);
		free(s);
		s = t;
	}
	return s;
}

/* The value an option or argument shows: its choices if short, or meta. */
static char *
help_meta(const char *meta, const char *const *choices)
{
	char *c = args_choices(choices, "|");

	if (choices != NULL && strlen(c) <= HELP_INLINE)
		return c;
	free(c);
	return xstrdup(meta != NULL ? meta : "VALUE");
}

/* How an option shows in a usage line: "[--job JOB]...". */
char *
args_opt_usage(const struct args_opt *o)
{
	char *meta, *s;

	if (o->type == ARGS_FLAG)
		meta = xasprintf("--%s", o->name);
	else {
		s = help_meta(o->metavar, o->choices);
		meta = xasprintf("--%s %s", o->name, s);
		free(s);
	}
	s = xasprintf("%s%s%s%s",
	    o->flags & (ARGS_REQUIRED | ARGS_ONE_OF) ? "" : "[", meta,
	    o->flags & (ARGS_REQUIRED | ARGS_ONE_OF) ? "" : "]",
	    o->flags & ARGS_REPEAT ? "..." : "");
	free(meta);
	return s;
}

/* How an argument shows in a usage line: "JOB", "[DIR]", "NAME...". */
char *
args_pos_usage(const struct args_pos *p)
{
	char *meta = help_meta(p->name, p->choices), *s;

	s = xasprintf("%s%s%s%s", p->flags & ARGS_OPTIONAL ? "[" : "", meta,
	    p->flags & ARGS_OPTIONAL ? "]" : "",
	    p->flags & ARGS_REPEAT ? "..." : "");
	free(meta);
	return s;
}

/* The program and the commands named, as one string. */
char *
args_name(const struct args *a)
{
	char  *s = xstrdup(a->prog->name), *t;
	size_t i;

	for (i = 0; i < a->depth; i++) {
		t = xasprintf("%s %s", s, a->path[i]->name);
		free(s);
		s = t;
	}
	return s;
}

/* Writes "[-nvd]": the flags that have a letter, bundled. */
static void
help_letters(struct help_out *o, const struct args_opt *v)
{
	char buf[64] = "[-";
	int  n = 2;

	for (; v != NULL && v->name != NULL && n < 60; v++)
		if (v->letter != 0 && v->type == ARGS_FLAG &&
		    !(v->flags & ARGS_HIDDEN))
			buf[n++] = v->letter;
	if (n == 2)
		return;
	buf[n++] = ']';
	buf[n] = '\0';
	help_word(o, buf);
}

/*
 * Writes the usage words of options (letter flags bundled if letters);
 * options of which one must be given are joined by "|".
 */
static void
help_opts_usage(struct help_out *o, const struct args_opt *v, bool letters)
{
	bool  one_of = false;
	char *w;

	if (letters)
		help_letters(o, v);
	for (; v != NULL && v->name != NULL; v++) {
		if ((v->flags & ARGS_HIDDEN) ||
		    (letters && v->letter != 0 && v->type == ARGS_FLAG))
			continue;
		if (one_of && (v->flags & ARGS_ONE_OF))
			help_word(o, "|");
		one_of = v->flags & ARGS_ONE_OF;
		w = args_opt_usage(v);
		help_word(o, w);
		free(w);
	}
}

/* Writes one synopsis: "hilab sweep add NAME FILE --every DURATION ...". */
static void
help_synopsis(FILE *f, const char *lead, const char *name,
    const struct args_cmd *c)
{
	struct help_out o = { f, 0, strlen(lead) + strlen(name) + 1, true };
	const struct args_pos *p;
	char		      *w;

	fprintf(f, "%s%s", lead, name);
	o.col = o.indent - 1;
	for (p = c->args; p != NULL && p->name != NULL; p++) {
		w = args_pos_usage(p);
		help_word(&o, w);
		free(w);
	}
	help_opts_usage(&o, c->opts, false);
	fputc('\n', f);
}

/* The synopsis of a program without a command. */
static void
help_prog_synopsis(FILE *f, const struct args_prog *prog)
{
	struct help_out o = { f, 0, strlen("usage: ") + strlen(prog->name) + 1,
		true };

	fprintf(f, "usage: %s", prog->name);
	o.col = o.indent - 1;
	help_opts_usage(&o, prog->global, true);
	if (prog->cmds != NULL)
		help_word(&o, "COMMAND [ARGUMENTS]");
	fputc('\n', f);
}

/* Prints the usage lines of what a names. */
void
args_usage(FILE *f, const struct args *a)
{
	const struct args_cmd *c = a->cmd, *s;
	char		      *name = args_name(a), *sub;

	if (c == NULL)
		help_prog_synopsis(f, a->prog);
	else if (c->subs == NULL)
		help_synopsis(f, "usage: ", name, c);
	for (s = c != NULL ? c->subs : NULL; s != NULL && s->name != NULL;
	     s++) {
		sub = xasprintf("%s %s", name, s->name);
		help_synopsis(f, s == c->subs ? "usage: " : "       ", sub, s);
		free(sub);
	}
	free(name);
}

/* Writes "  left   summary", the summary on its own line if left is long. */
static void
help_row(FILE *f, const char *left, const char *summary)
{
	int pad = HELP_COLUMN - 2 - (int)strlen(left);

	fprintf(f, "  %s", left);
	if (pad < 1) {
		fprintf(f, "\n%*s", HELP_COLUMN, "");
		pad = 0;
	} else
		fprintf(f, "%*s", pad, "");
	args_wrap(f, summary, HELP_COLUMN, HELP_COLUMN);
}

/* One option of a --help list, its choices and flags after its help. */
static void
help_opt_row(FILE *f, const struct args_opt *o)
{
	char *left, *meta, *choices = args_choices(o->choices, ", "), *text;

	meta = o->type == ARGS_FLAG ? xstrdup("") : help_meta(o->metavar, NULL);
	if (o->letter != 0)
		left = xasprintf("-%c, --%s%s%s", o->letter, o->name,
		    *meta ? " " : "", meta);
	else
		left = xasprintf("--%s%s%s", o->name, *meta ? " " : "", meta);
	text = xasprintf("%s%s%s%s%s", o->help, o->choices ? "; one of " : "",
	    choices, o->flags & ARGS_REPEAT ? " (repeatable)" : "",
	    o->flags & ARGS_REQUIRED ? " (required)" : "");
	help_row(f, left, text);
	free(text);
	free(left);
	free(meta);
	free(choices);
}

/* A --help list of options under a heading; nothing when there are none. */
static void
help_opts(FILE *f, const char *heading, const struct args_opt *v)
{
	const struct args_opt *o;
	bool		       any = false;

	for (o = v; o != NULL && o->name != NULL; o++) {
		if (o->flags & ARGS_HIDDEN)
			continue;
		if (!any)
			fprintf(f, "\n%s:\n", heading);
		any = true;
		help_opt_row(f, o);
	}
}

/* The arguments of a command, each with its help. */
static void
help_args(FILE *f, const struct args_pos *v)
{
	char *choices, *text;

	if (v == NULL || v->name == NULL)
		return;
	fprintf(f, "\narguments:\n");
	for (; v->name != NULL; v++) {
		choices = args_choices(v->choices, ", ");
		text = xasprintf("%s%s%s", v->help,
		    v->choices ? "; one of " : "", choices);
		help_row(f, v->name, text);
		free(text);
		free(choices);
	}
}

/* The "commands:" list: each leaf as "name ARGS" with its summary. */
static void
help_commands(FILE *f, const char *prefix, const struct args_cmd *v)
{
	const struct args_pos *p;
	char		      *left, *w, *t;

	for (; v != NULL && v->name != NULL; v++) {
		left = xasprintf("%s%s", prefix, v->name);
		if (v->subs != NULL) {
			t = xasprintf("%s ", left);
			help_commands(f, t, v->subs);
			free(t);
			free(left);
			continue;
		}
		for (p = v->args; p != NULL && p->name != NULL; p++) {
			w = args_pos_usage(p);
			t = xasprintf("%s %s", left, w);
			free(left);
			free(w);
			left = t;
		}
		help_row(f, left, v->summary);
		free(left);
	}
}

/* The exit codes and the environment of a program. */
static void
help_tables(FILE *f, const struct args_prog *prog)
{
	const struct args_exit *e;
	const struct args_env  *v;
	char			code[16];

	if (prog->exits != NULL)
		fprintf(f, "\nexit codes:\n");
	for (e = prog->exits; e != NULL && e->meaning != NULL; e++) {
		snprintf(code, sizeof code, "%d", e->code);
		help_row(f, code, e->meaning);
	}
	if (prog->env != NULL)
		fprintf(f, "\nenvironment:\n");
	for (v = prog->env; v != NULL && v->name != NULL; v++)
		help_row(f, v->name, v->meaning);
}

/* The help of the program itself. */
static void
help_prog(FILE *f, const struct args_prog *prog)
{
	fprintf(f, "\n%s - ", prog->name);
	args_wrap(f, prog->summary, strlen(prog->name) + 3, 2);
	if (prog->description != NULL) {
		fputc('\n', f);
		args_wrap(f, prog->description, 0, 0);
	}
	if (prog->cmds != NULL) {
		fprintf(f, "\ncommands:\n");
		help_commands(f, "", prog->cmds);
	}
	help_opts(f,
	    prog->cmds != NULL ? "options (anywhere on the line)" : "options",
	    prog->global);
	help_tables(f, prog);
	if (prog->cmds != NULL)
		fprintf(f,
		    "\n'%s COMMAND --help' shows a command's arguments and "
		    "options.\n",
		    prog->name);
}

/* The global options in one line, for the help of a command. */
static void
help_globals(FILE *f, const struct args_prog *prog)
{
	const struct args_opt *o;
	char		      *s = xstrdup(""), *t;

	for (o = prog->global; o != NULL && o->name != NULL; o++) {
		if (o->flags & ARGS_HIDDEN || strcmp(o->name, "help") == 0 ||
		    strcmp(o->name, "version") == 0)
			continue;
		t = xasprintf("%s%s--%s%s%s", s, *s ? ", " : "", o->name,
		    o->metavar ? " " : "", o->metavar ? o->metavar : "");
		free(s);
		s = t;
	}
	t = xasprintf("global options (anywhere): %s; see '%s --help'", s,
	    prog->name);
	fputc('\n', f);
	args_wrap(f, t, 0, 2);
	free(t);
	free(s);
}

/* Prints the help of what a names. */
void
args_help(FILE *f, const struct args *a)
{
	const struct args_cmd *c = a->cmd;
	char		      *name = args_name(a);

	args_usage(f, a);
	if (c == NULL) {
		help_prog(f, a->prog);
		free(name);
		return;
	}
	fprintf(f, "\n%s - ", name);
	args_wrap(f, c->summary, strlen(name) + 3, 2);
	if (c->description != NULL) {
		fputc('\n', f);
		args_wrap(f, c->description, 0, 0);
	}
	if (c->subs != NULL) {
		fprintf(f, "\nsubcommands:\n");
		help_commands(f, "", c->subs);
		fprintf(f, "\n'%s SUBCOMMAND --help' shows its options.\n",
		    name);
	}
	help_args(f, c->args);
	help_opts(f, "options", c->opts);
	help_globals(f, a->prog);
	free(name);
}
