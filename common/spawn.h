/*
 * Running tools on the controller (git, make, the compiler of a kernel
 * build; tar for a kernel's modules) with their output read line by line,
 * never through a shell.
 */
#ifndef HILAB_SPAWN_H
#define HILAB_SPAWN_H

#include <stddef.h>

/* Called with each output line (stdout and stderr merged), no newline. */
typedef void (*spawn_line_cb)(const char *line, void *arg);

struct spawn {
	const char   *dir;  /* working directory, NULL: current */
	char *const  *argv; /* NULL-terminated */
	char *const  *env;  /* "K=V" added to the environment */
	spawn_line_cb cb;   /* may be NULL */
	void	     *arg;
	int	      log_fd; /* every line is also written here */
	char	    **output; /* if set: all output (caller frees) */
	const char   *input;  /* standard input from this file; NULL:
				 /dev/null */
};

/*
 * Runs the command and waits for it.  Returns its exit status (0-255, 128+N
 * for a signal), or -1 with *cause set if it could not be started.
 */
int spawn_run(const struct spawn *, char **cause);
/* Runs argv in dir and returns its first output line, NULL on failure. */
char *spawn_line(const char *dir, char *const argv[], char **cause);

#endif
