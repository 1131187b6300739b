/*
 * Reports as mail: the message's headers and body, and mbox files that
 * Python's mailbox module reads back (two messages, their headers, a body
 * line that starts with "From " quoted as mboxrd quotes it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/mail.h"
#include "tests/lib/skip.h"
#include "tests/lib/slurp.h"

/* 2026-12-01 22:09:39 UTC. */
#define DEC1 1796162979000LL

/* The message of the tests: a body with lines an mbox must quote. */
static char *
message(const char *subject)
{
	struct mail m = { .from = "hilab <hilab@lab1>",
		.to = "dev@example.org",
		.subject = subject,
		.date_ms = DEC1,
		.body = "Sweep \"nap\" found a regression.\n\nFrom job 4 on\n"
			">From the quoted\nlast line" };

	return mail_format(&m);
}

/* Headers in order, a blank line, the body ended by a newline. */
static void
test_format(void **state)
{
	char *t;

	(void)state;
	setenv("TZ", "UTC", 1);
	t = message("[hilab] sweep nap: regression confirmed");
	assert_non_null(strstr(t,
	    "From: hilab <hilab@lab1>\nTo: "
	    "dev@example.org\nSubject: [hilab] sweep "
	    "nap: regression confirmed\nDate: Tue, 01 "
	    "Dec 2026 22:09:39 +0000\nMessage-ID: <"));
	assert_non_null(strstr(t,
	    "@lab1>\nMIME-Version: 1.0\n"
	    "Content-Type: text/plain; charset=utf-8\n"));
	assert_non_null(strstr(t, "8bit\n\nSweep \"nap\" found"));
	assert_int_equal(t[strlen(t) - 1], '\n');
	assert_non_null(strstr(t, "\nlast line\n"));
	free(t);
}

/* Two appended messages: separators, quoting, a mode of 0600. */
static void
test_mbox(void **state)
{
	char	    dir[] = "/tmp/hilab-mail.XXXXXX", path[64], *t, *box;
	struct stat st;

	(void)state;
	setenv("TZ", "UTC", 1);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/lab.mbox", dir);
	t = message("first");
	assert_int_equal(mail_mbox_append(path, "hilab <hilab@lab1>", DEC1, t,
			     NULL),
	    0);
	free(t);
	t = message("second");
	assert_int_equal(mail_mbox_append(path, "hilab <hilab@lab1>",
			     DEC1 + 1000, t, NULL),
	    0);
	free(t);
	assert_non_null(box = test_slurp(path, NULL));
	assert_memory_equal(box, "From hilab@lab1 Tue Dec  1 22:09:39 2026\n",
	    41);
	assert_non_null(strstr(box, "\n>From job 4 on\n>>From the quoted\n"));
	assert_non_null(strstr(box,
	    "last line\n\nFrom hilab@lab1 Tue Dec  1 22:09:40 "
	    "2026\nFrom: hilab"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	free(box);
	*state = strdup(dir);
}

/* Python's mailbox module reads both messages and their headers back. */
static void
test_mbox_python(void **state)
{
	char cmd[1024], dir[] = "/tmp/hilab-mail.XXXXXX", path[64], *t;
	int  rc;

	(void)state;
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		skip_missing("python3 is not installed");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/lab.mbox", dir);
	t = message("[hilab] sweep nap: job 7 failed");
	assert_int_equal(mail_mbox_append(path, "hilab <hilab@lab1>", DEC1, t,
			     NULL),
	    0);
	assert_int_equal(mail_mbox_append(path, "hilab <hilab@lab1>", DEC1, t,
			     NULL),
	    0);
	free(t);
	snprintf(cmd, sizeof cmd,
	    "python3 -c 'import mailbox, sys, email.utils as u\n"
	    "v = list(mailbox.mbox(sys.argv[1]))\n"
	    "assert len(v) == 2, len(v)\n"
	    "for m in v:\n"
	    "  assert m[\"Subject\"] == \"[hilab] sweep nap: job 7 failed\"\n"
	    "  assert u.parsedate_to_datetime(m[\"Date\"]).timestamp() == "
	    "1796162979\n"
	    "  b = m.get_payload()\n"
	    "  assert b.startswith(\"Sweep \") and \">From job 4 on\" in b, b\n"
	    "  assert b.rstrip().endswith(\"last line\"), b\n"
	    "' %s",
	    path);
	rc = system(cmd);
	unlink(path);
	rmdir(dir);
	assert_int_equal(rc, 0);
}

/* An mbox that cannot be created names its path. */
static void
test_mbox_error(void **state)
{
	char *cause = NULL, *t = message("x");

	(void)state;
	assert_int_equal(mail_mbox_append("/nonexistent/dir/lab.mbox", "hilab",
			     DEC1, t, &cause),
	    -1);
	assert_non_null(cause);
	assert_string_equal(cause,
	    "mbox \"/nonexistent/dir/lab.mbox\": No such file or directory");
	free(cause);
	free(t);
}

/* Removes what test_mbox made. */
static int
cleanup(void **state)
{
	char path[96];

	if (*state != NULL) {
		snprintf(path, sizeof path, "%s/lab.mbox", (char *)*state);
		unlink(path);
		rmdir(*state);
		free(*state);
	}
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test_teardown(test_mbox, cleanup),
		cmocka_unit_test(test_mbox_python),
		cmocka_unit_test(test_mbox_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
