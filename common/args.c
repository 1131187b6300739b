/*
 * Command lines read against a program's table (common/args.h): commands,
 * then options and arguments, each value checked by its type.  The first
 * error is kept and reading goes on, so that --help anywhere still wins.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/args.h"
#include "common/cron.h"
#include "common/suggest.h"
#include "common/units.h"
#include "common/xmalloc.h"

/* What one parse goes through. */
struct args_state {
	const struct args_prog *prog;
	struct args	       *a;
	int			argc;
	char		      **argv;
	int			i;    /* the argument being read */
	bool			done; /* after "--" */
	bool			lost; /* after an unknown command */
	char		       *err;  /* the first error */
};

/* Keeps the first error, prefixed by the commands named so far. */
static void __attribute__((format(printf, 2, 3)))
args_fail(struct args_state *st, const char *fmt, ...)
{
	va_list ap;
	char   *msg, *where = NULL;
	size_t	i;

	if (st->err != NULL)
		return;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	for (i = 0; i < st->a->depth; i++) {
		char *w = xasprintf("%s%s%s", where ? where : "",
		    where ? " " : "", st->a->path[i]->name);

		free(where);
		where = w;
	}
	st->err = where ? xasprintf("%s: %s", where, msg) : xstrdup(msg);
	free(where);
	free(msg);
}

/* The option of v called name (len bytes), or NULL. */
static const struct args_opt *
args_find(const struct args_opt *v, const char *name, size_t len)
{
	for (; v != NULL && v->name != NULL; v++)
		if (strlen(v->name) == len && strncmp(v->name, name, len) == 0)
			return v;
	return NULL;
}

/* The option of v whose short name is c, or NULL. */
static const struct args_opt *
args_find_letter(const struct args_opt *v, char c)
{
	for (; v != NULL && v->name != NULL; v++)
		if (v->letter != 0 && v->letter == c)
			return v;
	return NULL;
}

/* The options the command named so far takes, or NULL. */
static const struct args_opt *
args_cmd_opts(const struct args_state *st)
{
	return st->a->cmd != NULL ? st->a->cmd->opts : NULL;
}

/* Offers every long option of v (its name without "--") to s. */
static void
args_suggest_opts(struct suggest *s, const struct args_opt *v)
{
	for (; v != NULL && v->name != NULL; v++)
		if (!(v->flags & ARGS_HIDDEN))
			suggest_add(s, v->name);
}

/* Reports an unknown long option with the closest known one. */
static void
args_unknown_option(struct args_state *st, const char *arg, size_t len)
{
	char	      *word = xstrndup(arg, len);
	struct suggest s;

	suggest_init(&s, word + 2);
	args_suggest_opts(&s, args_cmd_opts(st));
	args_suggest_opts(&s, st->prog->global);
	if (suggest_best(&s) != NULL)
		args_fail(st, "unknown option \"%s\" (did you mean \"--%s\"?)",
		    word, suggest_best(&s));
	else
		args_fail(st, "unknown option \"%s\"", word);
	free(word);
}

/* Reads a time of day "HH:MM" into minutes after midnight; -1 if not one. */
static long long
args_time_of_day(const char *s)
{
	int  h, m;
	char end;

	if (strlen(s) != 5 || sscanf(s, "%2d:%2d%c", &h, &m, &end) != 2 ||
	    s[2] != ':' || h < 0 || h > 23 || m < 0 || m > 59)
		return -1;
	return h * 60 + m;
}

/* Reads a whole decimal number of at least min; -1 if not one. */
static long long
args_whole(const char *s, long long min)
{
	char	 *end;
	long long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoll(s, &end, 10);
	return *end == '\0' && v >= min ? v : -1;
}

/* Finds text among choices (any case); the hint when it is not there. */
static const char *
args_choice(const char *const *choices, const char *text, char **why)
{
	struct suggest s;
	char	      *list, *hint, *l;
	size_t	       i;

	for (i = 0; choices[i] != NULL; i++)
		if (strcasecmp(choices[i], text) == 0)
			return choices[i];
	list = xstrdup("");
	suggest_init(&s, text);
	for (i = 0; choices[i] != NULL; i++) {
		suggest_add(&s, choices[i]);
		l = xasprintf("%s%s%s", list, i > 0 ? ", " : "", choices[i]);
		free(list);
		list = l;
	}
	hint = suggest_hint(&s);
	*why = xasprintf("not one of %s%s", list, hint);
	free(hint);
	free(list);
	return NULL;
}

/*
 * Checks text as a value of type (named what in messages) into v; -1
 * after the error.
 */
static int
args_check(struct args_state *st, const char *what, enum args_type type,
    const char *const *choices, const char *text, struct args_value *v)
{
	struct cron cron;
	int64_t	    ms;
	char	   *why = NULL;

	v->text = text;
	switch (type) {
	case ARGS_INT:
		if ((v->num = args_whole(text, 0)) == -1)
			why = xstrdup("not a whole number");
		break;
	case ARGS_JOB:
		if ((v->num = args_whole(text, 1)) == -1)
			why = xstrdup("not a job id (a number such as 12)");
		break;
	case ARGS_DURATION:
		if (units_parse_duration(text, &ms) == 0 && ms > 0)
			v->num = ms;
		else
			why = xstrdup("not " UNITS_DURATION_TEXT);
		break;
	case ARGS_TIME:
		if ((v->num = args_time_of_day(text)) == -1)
			why = xstrdup("not a time of day HH:MM");
		break;
	case ARGS_CRON:
		cron_read(text, &cron, &why);
		break;
	case ARGS_CHOICE:
		v->text = args_choice(choices, text, &why);
		break;
	default:
		if (*text == '\0')
			why = xstrdup("empty");
	}
	if (why == NULL)
		return 0;
	args_fail(st, "%s \"%s\": %s", what, text, why);
	free(why);
	return -1;
}

/* Records option o with its value text (NULL for a flag). */
static void
args_add(struct args_state *st, const struct args_opt *o, const char *text)
{
	struct args	 *a = st->a;
	struct args_value v = { .opt = o, .text = text };
	char		 *what;

	if (o->type == ARGS_FLAG && strcmp(o->name, "help") == 0) {
		a->help = true;
		return;
	}
	what = xasprintf("--%s", o->name);
	if (o->type == ARGS_FLAG ||
	    args_check(st, what, o->type, o->choices, text, &v) == 0) {
		a->opts = xreallocarray(a->opts, a->nopts + 1, sizeof *a->opts);
		a->opts[a->nopts++] = v;
	}
	free(what);
}

/* The value of an option: after '=', else the next argument. */
static const char *
args_value(struct args_state *st, const struct args_opt *o, const char *eq)
{
	if (eq != NULL)
		return eq + 1;
	if (st->i + 1 < st->argc)
		return st->argv[++st->i];
	args_fail(st, "--%s needs a value (%s)", o->name, o->metavar);
	return NULL;
}

/* Reads "--name", "--name=VALUE" or "--name VALUE". */
static void
args_long(struct args_state *st, const char *arg)
{
	const char	      *name = arg + 2, *eq = strchr(name, '='), *val;
	size_t		       len = eq ? (size_t)(eq - name) : strlen(name);
	const struct args_opt *o;

	if ((o = args_find(args_cmd_opts(st), name, len)) == NULL &&
	    (o = args_find(st->prog->global, name, len)) == NULL) {
		args_unknown_option(st, arg, len + 2);
		return;
	}
	if (o->type == ARGS_FLAG) {
		if (eq != NULL)
			args_fail(st, "--%s takes no value", o->name);
		else
			args_add(st, o, NULL);
		return;
	}
	if ((val = args_value(st, o, eq)) != NULL)
		args_add(st, o, val);
}

/* Reads "-x", "-xyz" (flags) or "-x VALUE". */
static void
args_short(struct args_state *st, const char *arg)
{
	const struct args_opt *o;
	const char	      *p;

	for (p = arg + 1; *p != '\0'; p++) {
		if ((o = args_find_letter(args_cmd_opts(st), *p)) == NULL &&
		    (o = args_find_letter(st->prog->global, *p)) == NULL) {
			args_fail(st, "unknown option \"-%c\"", *p);
			continue;
		}
		if (o->type == ARGS_FLAG) {
			args_add(st, o, NULL);
			continue;
		}
		if (p[1] != '\0')
			args_add(st, o, p + 1);
		else if (st->i + 1 < st->argc)
			args_add(st, o, st->argv[++st->i]);
		else
			args_fail(st, "-%c needs a value (%s)", *p, o->metavar);
		return;
	}
}

/* Reports an unknown command or subcommand with the closest one. */
static void
args_unknown_command(struct args_state *st, const struct args_cmd *v,
    const char *word)
{
	struct suggest s;
	char	      *hint;

	suggest_init(&s, word);
	for (; v->name != NULL; v++)
		suggest_add(&s, v->name);
	hint = suggest_hint(&s);
	args_fail(st, "unknown %s \"%s\"%s",
	    st->a->depth > 0 ? "subcommand" : "command", word, hint);
	free(hint);
}

/* A word: the next command of a group, else an argument. */
static void
args_word(struct args_state *st, const char *word)
{
	struct args	      *a = st->a;
	const struct args_cmd *v;

	v = a->depth == 0 ? st->prog->cmds : a->cmd->subs;
	if (v == NULL || (a->cmd != NULL && a->cmd->subs == NULL) ||
	    a->depth == ARGS_MAX_DEPTH) {
		a->pos = xreallocarray(a->pos, a->npos + 1, sizeof *a->pos);
		a->pos[a->npos++] = (struct args_value){ .text = word };
		return;
	}
	for (; v->name != NULL; v++)
		if (strcmp(v->name, word) == 0) {
			a->path[a->depth++] = v;
			a->cmd = v;
			return;
		}
	args_unknown_command(st, a->depth == 0 ? st->prog->cmds : a->cmd->subs,
	    word);
	st->lost = true; /* the rest meant something else */
}

/* The names of a group's subcommands: "check, list or power". */
static char *
args_sub_names(const struct args_cmd *group)
{
	const struct args_cmd *v;
	char		      *s = xstrdup(""), *t;

	for (v = group->subs; v->name != NULL; v++) {
		t = xasprintf("%s%s%s", s,
		    v == group->subs	    ? ""
			: v[1].name == NULL ? " or "
					    : ", ",
		    v->name);
		free(s);
		s = t;
	}
	return s;
}

/* Checks the arguments given against the command's. */
static void
args_check_pos(struct args_state *st, const struct args_cmd *c)
{
	const struct args_pos *p = c->args;
	struct args	      *a = st->a;
	size_t		       i, k;

	for (i = k = 0; p != NULL && p[k].name != NULL; k++, i++) {
		if (i >= a->npos) {
			if (!(p[k].flags & ARGS_OPTIONAL))
				args_fail(st, "missing %s", p[k].name);
			return;
		}
		if (args_check(st, p[k].name, p[k].type, p[k].choices,
			a->pos[i].text, &a->pos[i]) == -1)
			return;
		if ((p[k].flags & ARGS_REPEAT) && i + 1 < a->npos)
			k--;
	}
	if (i < a->npos)
		args_fail(st, "unexpected \"%s\"", a->pos[i].text);
}

/* The options of c flagged ARGS_ONE_OF, as "--a or --b" (caller frees). */
static char *
args_one_of_names(const struct args_cmd *c)
{
	const struct args_opt *o;
	char		      *s = NULL, *t;

	for (o = c->opts; o != NULL && o->name != NULL; o++) {
		if (!(o->flags & ARGS_ONE_OF))
			continue;
		t = s == NULL ? xasprintf("--%s", o->name)
			      : xasprintf("%s or --%s", s, o->name);
		free(s);
		s = t;
	}
	return s;
}

/* Checks that exactly one of c's ARGS_ONE_OF options was given. */
static void
args_one_of(struct args_state *st, const struct args_cmd *c)
{
	const struct args_opt *o, *first = NULL;
	char		      *names;

	for (o = c->opts; o != NULL && o->name != NULL; o++) {
		if (!(o->flags & ARGS_ONE_OF) ||
		    args_get(st->a, o->name) == NULL)
			continue;
		if (first != NULL) {
			args_fail(st, "--%s and --%s cannot be given together",
			    first->name, o->name);
			return;
		}
		first = o;
	}
	if (first != NULL || (names = args_one_of_names(c)) == NULL)
		return;
	args_fail(st, "%s is required", names);
	free(names);
}

/* Checks what can only be checked at the end. */
static void
args_finish(struct args_state *st)
{
	const struct args_cmd *c = st->a->cmd;
	const struct args_opt *o;
	char		      *subs;

	if (c == NULL) {
		if (st->a->npos > 0)
			args_fail(st, "unexpected \"%s\"", st->a->pos[0].text);
		return;
	}
	if (c->subs != NULL) {
		subs = args_sub_names(c);
		args_fail(st, "missing subcommand: %s", subs);
		free(subs);
		return;
	}
	args_check_pos(st, c);
	for (o = c->opts; o != NULL && o->name != NULL; o++) {
		if ((o->flags & ARGS_REQUIRED) &&
		    args_get(st->a, o->name) == NULL)
			args_fail(st, "--%s %s is required", o->name,
			    o->metavar);
		if (o->needs != NULL && args_get(st->a, o->name) != NULL &&
		    args_get(st->a, o->needs) == NULL)
			args_fail(st, "--%s needs --%s", o->name, o->needs);
	}
	args_one_of(st, c);
}

/* Reads argv against the table; see args.h. */
int
args_parse(const struct args_prog *prog, int argc, char **argv, struct args *a,
    char **cause)
{
	struct args_state st = { prog, a, argc, argv, 1, false, false, NULL };
	const char	 *arg;

	memset(a, 0, sizeof *a);
	a->prog = prog;
	for (; st.i < argc; st.i++) {
		arg = argv[st.i];
		if (!st.done && strcmp(arg, "--") == 0)
			st.done = true;
		else if (!st.done && strncmp(arg, "--", 2) == 0)
			args_long(&st, arg);
		else if (!st.done && arg[0] == '-' && arg[1] != '\0')
			args_short(&st, arg);
		else if (!st.lost)
			args_word(&st, arg);
	}
	if (a->help) {
		free(st.err);
		return 0;
	}
	args_finish(&st);
	if (st.err == NULL)
		return 0;
	*cause = st.err;
	return -1;
}

/* Frees what args_parse kept. */
void
args_clear(struct args *a)
{
	free(a->opts);
	free(a->pos);
	memset(a, 0, sizeof *a);
}

/* The last value given of option name, or NULL. */
const struct args_value *
args_get(const struct args *a, const char *name)
{
	size_t i;

	for (i = a->nopts; i > 0; i--)
		if (strcmp(a->opts[i - 1].opt->name, name) == 0)
			return &a->opts[i - 1];
	return NULL;
}

/* Whether option name was given. */
bool
args_flag(const struct args *a, const char *name)
{
	return args_get(a, name) != NULL;
}

/* The text of option name, or def. */
const char *
args_text(const struct args *a, const char *name, const char *def)
{
	const struct args_value *v = args_get(a, name);

	return v != NULL ? v->text : def;
}

/* The number of option name, or def. */
long long
args_num(const struct args *a, const char *name, long long def)
{
	const struct args_value *v = args_get(a, name);

	return v != NULL ? v->num : def;
}

/* How many times option name was given. */
size_t
args_count(const struct args *a, const char *name)
{
	size_t i, n = 0;

	for (i = 0; i < a->nopts; i++)
		n += strcmp(a->opts[i].opt->name, name) == 0;
	return n;
}

/* The nth value given of option name, or NULL. */
const struct args_value *
args_nth(const struct args *a, const char *name, size_t nth)
{
	size_t i;

	for (i = 0; i < a->nopts; i++)
		if (strcmp(a->opts[i].opt->name, name) == 0 && nth-- == 0)
			return &a->opts[i];
	return NULL;
}
