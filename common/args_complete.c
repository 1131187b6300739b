/*
 * A bash completion script written from a program's table
 * (common/args.h): the script knows the commands, each command's options
 * and arguments and what each value is, so that it completes what --help
 * lists and nothing else.  Names that only the lab knows (machines, jobs,
 * benchmarks, sweeps) are read at completion time from the program's own
 * --json output, with the global options already on the line (--db, ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/args.h"
#include "common/xmalloc.h"

/* The runtime part: walks the words, then completes by the value's type. */
static const char complete_main[] =
    "# WORD TYPE: sets COMPREPLY to the values of TYPE that start with WORD.\n"
    "_@P@_values()\n"
    "{\n"
    "\tlocal w\n"
    "\n"
    "\tcase $2 in\n"
    "\tfile | dir)\n"
    "\t\tcompopt -o filenames 2>/dev/null\n"
    "\t\tmapfile -t COMPREPLY < <(compgen \"-${2:0:1}\" -- \"$1\") ;;\n"
    "\tchoice:*) w=${2#choice:} ;;\n"
    "\tcommand) w=$(_@P@_subs '') ;;\n"
    "\tmachine | job | benchmark | sweep) w=$(_@P@_names \"$2\") ;;\n"
    "\tesac\n"
    "\t[ -n \"$w\" ] && mapfile -t COMPREPLY < <(compgen -W \"$w\" -- \"$1\")\n"
    "\treturn 0\n"
    "}\n"
    "\n"
    "_@P@()\n"
    "{\n"
    "\tlocal cur=${COMP_WORDS[COMP_CWORD]} path= w t i npos=0\n"
    "\tlocal -a _@P@_g=()\n"
    "\n"
    "\tCOMPREPLY=()\n"
    "\t# The command named so far, the arguments given, the global options.\n"
    "\tfor ((i = 1; i < COMP_CWORD; i++)); do\n"
    "\t\tw=${COMP_WORDS[i]}\n"
    "\t\tcase $w in\n"
    "\t\t--) ;;\n"
    "\t\t-*)\n"
    "\t\t\tt=$(_@P@_opt_type \"$path\" \"$w\")\n"
    "\t\t\t[ -z \"$t\" ] || [ \"$t\" = flag ] && continue\n"
    "\t\t\t[ \"${COMP_WORDS[i + 1]}\" = = ] && i=$((i + 1))\n"
    "\t\t\t[ $((i + 1)) -ge $COMP_CWORD ] && break\n"
    "\t\t\ti=$((i + 1))\n"
    "\t\t\t_@P@_global \"$w\" &&\n"
    "\t\t\t    _@P@_g+=(\"$w\" \"${COMP_WORDS[i]}\") ;;\n"
    "\t\t*)\n"
    "\t\t\tif [ $npos = 0 ] &&\n"
    "\t\t\t    [[ \" $(_@P@_subs \"$path\") \" == *\" $w \"* ]]; then\n"
    "\t\t\t\tpath=${path:+$path }$w\n"
    "\t\t\telse\n"
    "\t\t\t\tnpos=$((npos + 1))\n"
    "\t\t\tfi ;;\n"
    "\t\tesac\n"
    "\tdone\n"
    "\t# The value of an option: after it, or after its \"=\".\n"
    "\tw=${COMP_WORDS[COMP_CWORD - 1]}\n"
    "\tif [ \"$cur\" = = ]; then\n"
    "\t\tcur=\n"
    "\telif [ \"$w\" = = ] && [ $COMP_CWORD -ge 2 ]; then\n"
    "\t\tw=${COMP_WORDS[COMP_CWORD - 2]}\n"
    "\tfi\n"
    "\tif [ $COMP_CWORD -gt 1 ] && [[ $w == -* ]]; then\n"
    "\t\tt=$(_@P@_opt_type \"$path\" \"$w\")\n"
    "\t\tif [ -n \"$t\" ] && [ \"$t\" != flag ]; then\n"
    "\t\t\t_@P@_values \"$cur\" \"$t\"\n"
    "\t\t\treturn 0\n"
    "\t\tfi\n"
    "\tfi\n"
    "\tif [[ $cur == -* ]]; then\n"
    "\t\t_@P@_values \"$cur\" \"choice:$(_@P@_opts \"$path\")\"\n"
    "\telif [ $npos = 0 ] && [ -n \"$(_@P@_subs \"$path\")\" ]; then\n"
    "\t\t_@P@_values \"$cur\" \"choice:$(_@P@_subs \"$path\")\"\n"
    "\telse\n"
    "\t\t_@P@_values \"$cur\" \"$(_@P@_arg_type \"$path\" $npos)\"\n"
    "\tfi\n"
    "}\n"
    "complete -F _@P@ @P@\n";

/* The word a type completes as in the script. */
static char *
complete_type(enum args_type t, const char *const *choices)
{
	char *c, *s;

	switch (t) {
	case ARGS_FLAG:
		return xstrdup("flag");
	case ARGS_FILE:
		return xstrdup("file");
	case ARGS_DIR:
		return xstrdup("dir");
	case ARGS_COMMAND:
		return xstrdup("command");
	case ARGS_MACHINE:
		return xstrdup("machine");
	case ARGS_JOB:
		return xstrdup("job");
	case ARGS_BENCHMARK:
		return xstrdup("benchmark");
	case ARGS_SWEEP:
		return xstrdup("sweep");
	case ARGS_CHOICE:
		c = args_choices(choices, " ");
		s = xasprintf("choice:%s", c);
		free(c);
		return s;
	default:
		return xstrdup("value");
	}
}

/* The case arms of the subcommand names under each group. */
static void
complete_subs(FILE *f, const char *path, const struct args_cmd *v)
{
	const struct args_cmd *c;
	char		      *sub;

	if (v == NULL)
		return;
	fprintf(f, "\t'%s') echo '", path);
	for (c = v; c->name != NULL; c++)
		fprintf(f, "%s%s", c == v ? "" : " ", c->name);
	fputs("' ;;\n", f);
	for (c = v; c->name != NULL; c++) {
		sub = xasprintf("%s%s%s", path, *path ? " " : "", c->name);
		complete_subs(f, sub, c->subs);
		free(sub);
	}
}

/* The options of a list as "--a --b -n" (hidden ones left out). */
static void
complete_opt_names(FILE *f, const struct args_opt *v)
{
	for (; v != NULL && v->name != NULL; v++) {
		if (v->flags & ARGS_HIDDEN)
			continue;
		fprintf(f, " --%s", v->name);
		if (v->letter != 0)
			fprintf(f, " -%c", v->letter);
	}
}

/* The case arms of each leaf's options (path) and their types (types). */
static void
complete_cmds(FILE *f, const char *path, const struct args_cmd *v, bool types)
{
	const struct args_opt *o;
	char		      *sub, *t;

	for (; v != NULL && v->name != NULL; v++) {
		sub = xasprintf("%s%s%s", path, *path ? " " : "", v->name);
		complete_cmds(f, sub, v->subs, types);
		if (!types && v->opts != NULL) {
			fprintf(f, "\t'%s') echo", sub);
			complete_opt_names(f, v->opts);
			fputs(" ;;\n", f);
		}
		for (o = v->opts; types && o != NULL && o->name != NULL; o++) {
			t = complete_type(o->type, o->choices);
			fprintf(f, "\t'%s --%s'", sub, o->name);
			if (o->letter != 0)
				fprintf(f, " | '%s -%c'", sub, o->letter);
			fprintf(f, ") echo '%s' ;;\n", t);
			free(t);
		}
		free(sub);
	}
}

/* The case arms of each leaf's arguments by position. */
static void
complete_args(FILE *f, const char *path, const struct args_cmd *v)
{
	const struct args_pos *p;
	char		      *sub, *t;
	int		       i;

	for (; v != NULL && v->name != NULL; v++) {
		sub = xasprintf("%s%s%s", path, *path ? " " : "", v->name);
		complete_args(f, sub, v->subs);
		for (p = v->args, i = 0; p != NULL && p->name != NULL;
		     p++, i++) {
			t = complete_type(p->type, p->choices);
			if (p->flags & ARGS_REPEAT)
				fprintf(f,
				    "\t'%s '*) [ \"$2\" -ge %d ] && echo '%s' "
				    ";;\n",
				    sub, i, t);
			else
				fprintf(f, "\t'%s %d') echo '%s' ;;\n", sub, i,
				    t);
			free(t);
		}
		free(sub);
	}
}

/* The table-driven functions: subs, opts, opt_type, arg_type, global. */
static void
complete_tables(FILE *f, const struct args_prog *prog)
{
	const char	      *n = prog->name;
	const struct args_opt *o;
	char		      *t;

	fprintf(f,
	    "# PATH: the subcommands of the command PATH names.\n"
	    "_%s_subs()\n{\n\tcase $1 in\n",
	    n);
	complete_subs(f, "", prog->cmds);
	fprintf(f,
	    "\tesac\n}\n\n# PATH: the options of PATH and the global "
	    "ones.\n_%s_opts()\n{\n\tcase $1 in\n",
	    n);
	complete_cmds(f, "", prog->cmds, false);
	fputs("\tesac\n\techo", f);
	complete_opt_names(f, prog->global);
	fprintf(f,
	    "\n}\n\n# PATH OPTION: what the option's value is.\n"
	    "_%s_opt_type()\n{\n\tcase \"$1 $2\" in\n",
	    n);
	complete_cmds(f, "", prog->cmds, true);
	for (o = prog->global; o != NULL && o->name != NULL; o++) {
		t = complete_type(o->type, o->choices);
		fprintf(f, "\t*' --%s'", o->name);
		if (o->letter != 0)
			fprintf(f, " | *' -%c'", o->letter);
		fprintf(f, ") echo '%s' ;;\n", t);
		free(t);
	}
	fprintf(f,
	    "\tesac\n}\n\n# PATH N: what the N-th argument of PATH "
	    "is.\n_%s_arg_type()\n{\n\tcase \"$1 $2\" in\n",
	    n);
	complete_args(f, "", prog->cmds);
	fprintf(f,
	    "\tesac\n}\n\n# OPTION: a global option.\n_%s_global()\n"
	    "{\n\tcase $1 in\n\t",
	    n);
	for (o = prog->global; o != NULL && o->name != NULL; o++)
		fprintf(f, "%s--%s", o == prog->global ? "" : " | ", o->name);
	fputs(") return 0 ;;\n\tesac\n\treturn 1\n}\n\n", f);
}

/* Writes tmpl with each "@P@" replaced by the program's name. */
static void
complete_subst(FILE *f, const char *tmpl, const char *name)
{
	const char *at;

	while ((at = strstr(tmpl, "@P@")) != NULL) {
		fwrite(tmpl, 1, (size_t)(at - tmpl), f);
		fputs(name, f);
		tmpl = at + 3;
	}
	fputs(tmpl, f);
}

void
args_bash(FILE *f, const struct args_prog *prog,
    const struct args_lookup *lookups)
{
	const struct args_lookup *l;

	complete_subst(f,
	    "# bash completion of @P@, written from its option table; do "
	    "not edit.\n\n"
	    "# TYPE: the names of that type, from @P@'s own --json output.\n"
	    "_@P@_names()\n{\n\tcase $1 in\n",
	    prog->name);
	for (l = lookups; l != NULL && l->type != NULL; l++)
		fprintf(f,
		    "\t%s) \"${COMP_WORDS[0]}\" \"${_%s_g[@]}\" --json %s 2>/dev/null |\n"
		    "\t\tsed -n 's/^    \"%s\": \"\\{0,1\\}\\([^\",]*\\)"
		    "\"\\{0,1\\},\\{0,1\\}$/\\1/p' ;;\n",
		    l->type, prog->name, l->command, l->key);
	fputs("\tesac\n}\n\n", f);
	complete_tables(f, prog);
	complete_subst(f, complete_main, prog->name);
}
