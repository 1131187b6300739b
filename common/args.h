/*
 * Command lines read against a table: the one grammar of hilab and hilabd.
 * A program's table is data only (commands and subcommands, their
 * arguments, options with types, one-line summaries, exit codes and
 * environment variables), so that one table drives parsing, usage errors
 * and --help here, and man pages and shell completion elsewhere.
 *
 * The grammar: PROGRAM [COMMAND [SUBCOMMAND]] [ARGUMENT | OPTION]...
 * Options are long (--name VALUE, --name=VALUE), a few also short (-n,
 * bundled as -nv); global options are accepted anywhere on the line, a
 * command's own after its name; "--" ends the options.  --help (-h)
 * anywhere asks for the help of the command named so far.
 */
#ifndef HILAB_ARGS_H
#define HILAB_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What a value is: how it is checked and, later, how it completes. */
enum args_type {
	ARGS_FLAG,	/* an option without a value */
	ARGS_TEXT,	/* any text */
	ARGS_INT,	/* a whole number, 0 or more */
	ARGS_DURATION,	/* common/units.h, 1ms or more; num is in ms */
	ARGS_TIME,	/* a time of day HH:MM; num is minutes after 0:00 */
	ARGS_CRON,	/* five cron fields (common/cron.h), as text */
	ARGS_CHOICE,	/* one of choices (any case); text is the table's */
	ARGS_JOB,	/* a job id, 1 or more */
	ARGS_FILE,	/* a path to a file */
	ARGS_DIR,	/* a path to a directory */
	ARGS_MACHINE,	/* a machine of the inventory */
	ARGS_BENCHMARK, /* a benchmark of the catalog */
	ARGS_SWEEP,	/* the name of a sweep */
	ARGS_KERNEL,	/* a kernel cache entry: a build id or its prefix */
	ARGS_SQL,	/* one SQL statement */
	ARGS_COMMAND	/* a command of the program */
};

#define ARGS_REPEAT   0x1 /* may be given more than once */
#define ARGS_REQUIRED 0x2 /* an option that must be given */
#define ARGS_OPTIONAL 0x4 /* an argument that may be left out */
#define ARGS_HIDDEN   0x8 /* internal: not in --help */
/* Exactly one of a command's options with this flag must be given. */
#define ARGS_ONE_OF   0x10

/* An option: --name, maybe -letter. */
struct args_opt {
	const char	  *name;
	char		   letter;  /* 0: none */
	enum args_type	   type;    /* ARGS_FLAG: takes no value */
	const char	  *metavar; /* "DURATION"; NULL for a flag */
	const char *const *choices; /* ARGS_CHOICE: NULL-ended */
	int		   flags;   /* ARGS_REPEAT, ARGS_REQUIRED, ... */
	const char	  *help;    /* one line */
	const char	  *needs;   /* another option it needs, or NULL */
};

/* A positional argument, in order. */
struct args_pos {
	const char	  *name; /* "JOB" */
	enum args_type	   type;
	const char *const *choices;
	int		   flags; /* ARGS_OPTIONAL, ARGS_REPEAT (the last) */
	const char	  *help;
};

/* A command: a leaf with a handler id, or a group of subcommands. */
struct args_cmd {
	const char	      *name;
	int		       id;	/* the program's handler; -1: group */
	const char	      *summary; /* one line */
	const char	      *description; /* more for --help, or NULL */
	const struct args_pos *args;	    /* ended by a NULL name, or NULL */
	const struct args_opt *opts;	    /* ended by a NULL name, or NULL */
	const struct args_cmd *subs;	    /* ended by a NULL name, or NULL */
};

struct args_exit {
	int	    code;
	const char *meaning; /* NULL ends the table */
};

struct args_env {
	const char *name; /* NULL ends the table */
	const char *meaning;
};

struct args_prog {
	const char	       *name;
	const char	       *summary;
	const char	       *description; /* or NULL */
	const struct args_opt  *global;	     /* accepted anywhere */
	const struct args_cmd  *cmds;	     /* NULL: no commands */
	const struct args_exit *exits;
	const struct args_env  *env;
};

/* One option or argument given. */
struct args_value {
	const struct args_opt *opt; /* NULL for an argument */
	const char	      *text;
	long long	       num; /* INT, JOB, DURATION, TIME */
};

#define ARGS_MAX_DEPTH 2

/* A parsed command line; argv's strings are referred to, not copied. */
struct args {
	const struct args_prog *prog;
	const struct args_cmd  *path[ARGS_MAX_DEPTH]; /* commands named */
	size_t			depth;
	const struct args_cmd  *cmd;  /* the deepest, or NULL */
	struct args_value      *opts; /* in the order given */
	size_t			nopts;
	struct args_value      *pos;
	size_t			npos;
	bool			help; /* --help: nothing else was checked */
};

/*
 * Parses argv[1..] against prog into a (cleared by args_clear).  Returns
 * 0, or -1 with *cause (caller frees) naming the command, the option or
 * argument and why ("sweep add: unknown option \"--evry\" (did you mean
 * \"--every\"?)").  With --help it returns 0 with a->help set whatever
 * else is wrong.  A program with commands may be given none (a->cmd is
 * NULL); a group given without its subcommand is an error.
 */
int  args_parse(const struct args_prog *, int argc, char **argv, struct args *a,
     char **cause);
void args_clear(struct args *);

/* The last value of option name, or NULL when it was not given. */
const struct args_value *args_get(const struct args *, const char *name);
bool			 args_flag(const struct args *, const char *name);
const char *args_text(const struct args *, const char *name, const char *def);
long long   args_num(const struct args *, const char *name, long long def);
/* How many times option name was given; the i-th of them. */
size_t			 args_count(const struct args *, const char *name);
const struct args_value *args_nth(const struct args *, const char *name,
    size_t i);

/* "hilab sweep add": the program and the commands named (caller frees). */
char *args_name(const struct args *);
/* Prints the usage line(s) of what a names, "usage: " first. */
void args_usage(FILE *, const struct args *);
/* Prints the help of what a names: usage, summary, arguments, options. */
void args_help(FILE *, const struct args *);
/* "a|b|c": a NULL-ended list joined by sep (caller frees). */
char *args_choices(const char *const *v, const char *sep);
/* How an option shows in a usage line: "[--job JOB]..." (caller frees). */
char *args_opt_usage(const struct args_opt *);
/* How an argument shows in a usage line: "JOB", "[DIR]" (caller frees). */
char *args_pos_usage(const struct args_pos *);
/*
 * Writes text word by word, from column col (what the caller wrote on the
 * line already), wrapped at 80 columns to indent; ends the line.
 */
void args_wrap(FILE *, const char *text, size_t col, size_t indent);

/* What a man page has besides the table. */
struct args_man {
	int		   section; /* 1, 8 */
	const char	  *date;    /* "2026-12-05", or "" */
	const char	  *version;
	const char *const *files;    /* path, meaning, ..., NULL; or NULL */
	const char	  *see_also; /* "hilabd(8), ..." or NULL */
};

/* Writes prog's man page in roff (man(7)) from its table. */
void args_man(FILE *, const struct args_prog *, const struct args_man *);
/* Where the names of a type come from: "machine", "machines list", "name". */
struct args_lookup {
	const char *type;    /* machine, job, benchmark, sweep; NULL ends */
	const char *command; /* words after "PROG --json" */
	const char *key;     /* the key of each listed object */
};

/*
 * Writes a bash completion script for prog from its table: commands,
 * options and choices; files and directories; machine, job, benchmark and
 * sweep names read from the program's own --json output (lookups).
 */
void args_bash(FILE *, const struct args_prog *,
    const struct args_lookup *lookups);

#endif
