/*
 * What a failed run keeps of a boot's console file: the part around the
 * first kernel panic even when a reset and a whole next boot follow it,
 * else the tail; the line that says most; whether a panic resets the
 * machine by itself.  And the consoles kept per boot: a console server's
 * log followed from where it stood when the boot began, a command's
 * output, and what is written to a command console.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "machines/console.h"

#define EXCERPT 8192

static char path[] = "/tmp/hilab-console-XXXXXX";

/* Writes n lines of "[ t] filler k" to fp. */
static void
filler(FILE *fp, int n, const char *what)
{
	int i;

	for (i = 0; i < n; i++)
		fprintf(fp, "[ %5d.000000] %s line %d of some length\n", i,
		    what, i);
}

/* Makes the console file: a boot, maybe a panic, then a reset and more. */
static void
console_file(bool panic)
{
	FILE *fp;
	int   fd = mkstemp(path);

	assert_true(fd != -1);
	assert_non_null(fp = fdopen(fd, "w"));
	filler(fp, 400, "boot");
	if (panic)
		fputs("[    2.244748] " CONSOLE_PANIC
		      ": VFS: Unable to mount root fs\n",
		    fp);
	filler(fp, 1500, "after");
	fclose(fp);
}

/* A panic followed by 75 KB of a reset's boot stays in the excerpt. */
static void
test_panic_kept(void **state)
{
	char *e, *line;

	(void)state;
	console_file(true);
	e = console_file_excerpt(path, EXCERPT);
	assert_non_null(e);
	assert_true(strlen(e) <= EXCERPT);
	assert_true(console_panicked(e));
	assert_true(strstr(e, CONSOLE_PANIC) - e >= EXCERPT / 2);
	line = console_line(e);
	assert_string_equal(line,
	    "[    2.244748] " CONSOLE_PANIC ": VFS: Unable to mount root fs");
	free(line);
	/* The plain tail has lost it. */
	free(e);
	e = console_file_tail(path, EXCERPT);
	assert_false(console_panicked(e));
	free(e);
	unlink(path);
}

/*
 * A panic followed by the kernel's own "Rebooting in N seconds.." (panic=N)
 * resets the machine by itself; a panic without it, or the words before
 * the panic, does not.
 */
static void
test_resets_itself(void **state)
{
	(void)state;
	assert_true(console_resets_itself(
	    "[    2.244748] " CONSOLE_PANIC ": VFS: Unable to mount root fs\n"
	    "[    2.245001] Rebooting in 1 seconds..\n"));
	assert_false(console_resets_itself(
	    "[    2.244748] " CONSOLE_PANIC ": VFS: Unable to mount root fs\n"
	    "[    2.245001] ---[ end " CONSOLE_PANIC " ]---\n"));
	assert_false(
	    console_resets_itself("[    0.100000] Rebooting in 1 seconds..\n"
				  "[    2.244748] " CONSOLE_PANIC ": oops\n"));
	assert_false(console_resets_itself(NULL));
}

/* Without a panic the excerpt is the tail. */
static void
test_tail(void **state)
{
	char *e, *t;

	(void)state;
	memcpy(path + strlen(path) - 6, "XXXXXX", 6);
	console_file(false);
	e = console_file_excerpt(path, EXCERPT);
	t = console_file_tail(path, EXCERPT);
	assert_string_equal(e, t);
	assert_non_null(strstr(e, "after line 1499"));
	free(e);
	free(t);
	unlink(path);
	assert_null(console_file_excerpt(path, EXCERPT));
}

/* Waits up to 10 s for the boot's console file to hold want. */
static bool
console_shows(struct console *c, const char *want)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 };
	char	       *tail;
	bool		seen = false;
	int		i;

	for (i = 0; i < 500 && !seen; i++) {
		tail = console_file_tail(console_path(c), 65536);
		seen = tail != NULL && strstr(tail, want) != NULL;
		free(tail);
		if (!seen)
			nanosleep(&pause, NULL);
	}
	return seen;
}

/* Appends s to file path. */
static void
append(const char *file, const char *s)
{
	FILE *fp = fopen(file, "a");

	assert_non_null(fp);
	fputs(s, fp);
	fclose(fp);
}

/*
 * A console server's log: only what it gained after the boot began goes
 * to the boot's own file, readable while the boot runs; a file console
 * cannot be written to.
 */
static void
test_follow_file(void **state)
{
	char		       dir[] = "/tmp/hilab-consoles-XXXXXX", *src, *cmd;
	char		      *cause = NULL, *all;
	struct machine	       m = { .name = (char *)"epyc" };
	struct machine_console mc = { 0 };
	struct console	      *c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	src = xasprintf("%s/conserver.log", dir);
	append(src, "the boot before\n");
	mc.file = src;
	mc.dir = dir;
	c = console_start(&m, &mc, &cause);
	assert_non_null(c);
	assert_non_null(strstr(console_path(c), "/epyc-"));
	append(src, "Linux version 6.1.0-57-cloud-amd64\n");
	assert_true(console_shows(c, "Linux version 6.1.0-57"));
	assert_int_equal(console_write(c, "x", 1, &cause), -1);
	assert_non_null(strstr(cause, "machine \"epyc\""));
	free(cause);
	append(src, "login:\n");
	all = xstrdup(console_path(c));
	console_stop(c);
	c = NULL;
	cmd = console_file_tail(all, 65536);
	assert_string_equal(cmd,
	    "Linux version 6.1.0-57-cloud-amd64\nlogin:\n");
	free(cmd);
	free(all);
	cmd = xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(src);
}

/* A command console: its output is kept, what is written reaches it. */
static void
test_follow_command(void **state)
{
	char		       dir[] = "/tmp/hilab-consoles-XXXXXX", *cmd;
	char		      *cause = NULL;
	char		      *argv[] = { (char *)"sh", (char *)"-c",
				 (char *)"echo U-Boot 2023.01; exec cat", NULL };
	struct machine	       m = { .name = (char *)"board" };
	struct machine_console mc = { .command = argv };
	struct console	      *c;

	(void)state;
	assert_non_null(mkdtemp(dir));
	mc.dir = dir;
	c = console_start(&m, &mc, &cause);
	assert_non_null(c);
	assert_true(console_shows(c, "U-Boot 2023.01"));
	assert_int_equal(console_write(c, "boot hilab\n", 11, &cause), 0);
	assert_true(console_shows(c, "boot hilab"));
	console_stop(c);
	cmd = xasprintf("rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_panic_kept),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_resets_itself),
		cmocka_unit_test(test_follow_file),
		cmocka_unit_test(test_follow_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
