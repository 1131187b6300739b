/*
 * The ssh transport without an sshd: quoting checked by /bin/sh, and the
 * errors of connecting to loopback sockets that refuse or never answer.
 */
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>

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
#include "machines/agent_client.h"
#include "machines/ssh.h"

/* A machine on loopback port port, with files that need not exist. */
static void
test_machine(struct machine *m, int port)
{
	memset(m, 0, sizeof *m);
	m->name = "m1";
	m->kind = MACHINE_SSH;
	m->ssh.host = "127.0.0.1";
	m->ssh.port = port;
	m->ssh.identity = "/nonexistent/id";
	m->ssh.known_hosts = "/nonexistent/known_hosts";
	m->ssh.connect_timeout_ms = 300;
}

/* A loopback TCP socket bound to a free port; listening if listen_too. */
static int
test_socket(int *port, int listen_too)
{
	struct sockaddr_in sin;
	socklen_t	   len = sizeof sin;
	int		   fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&sin, sizeof sin), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	if (listen_too)
		assert_int_equal(listen(fd, 1), 0);
	return fd;
}

/* Runs printf %s QUOTED through /bin/sh and returns what it printed. */
static char *
test_sh_echo(const char *s)
{
	char  *q = ssh_host_quote(s), *cmd, buf[4096];
	FILE  *f;
	size_t n;

	cmd = xasprintf("printf %%s %s", q);
	f = popen(cmd, "r");
	assert_non_null(f);
	n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	assert_int_equal(pclose(f), 0);
	free(cmd);
	free(q);
	return xstrdup(buf);
}

static void
test_quote(void **state)
{
	const char *cases[] = { "", "plain", "it's", "''", "$HOME `id`", "a\nb",
		"\\\" ; | & * ? [x] ~ #", "-n" };
	char	   *got;
	size_t	    i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		got = test_sh_echo(cases[i]);
		assert_string_equal(got, cases[i]);
		free(got);
	}
}

static void
test_no_known_hosts(void **state)
{
	struct machine m;
	char	      *cause = NULL;

	test_machine(&m, 22);
	m.ssh.known_hosts = NULL;
	assert_null(ssh_host_connect(&m, 0, &cause));
	assert_string_equal(cause, "host \"m1\": no known_hosts file given");
	free(cause);
	m.ssh.host = NULL;
	assert_null(ssh_host_connect(&m, 0, &cause));
	assert_string_equal(cause, "host \"m1\": no ssh host given");
	free(cause);
}

static void
test_refused(void **state)
{
	struct machine m;
	char	      *cause = NULL, *want;
	int	       port, fd = test_socket(&port, 0);

	close(fd);
	test_machine(&m, port);
	assert_null(ssh_host_connect(&m, 0, &cause));
	want = xasprintf("host \"m1\": ssh connect: 127.0.0.1 port %d: ", port);
	assert_true(strncmp(cause, want, strlen(want)) == 0);
	assert_non_null(strstr(cause, "refused"));
	free(want);
	free(cause);
}

/* A server that accepts but never says its banner times the client out. */
static void
test_silent_server(void **state)
{
	struct machine	m;
	struct timespec t0, t1;
	char	       *cause = NULL;
	int		port, fd = test_socket(&port, 1);
	long		ms;

	test_machine(&m, port);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_null(ssh_host_connect(&m, 0, &cause));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	    (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_non_null(strstr(cause, "host \"m1\": ssh connect: timed out"));
	assert_true(ms >= 250 && ms < 3000);
	free(cause);
	close(fd);
}

static void
test_agent_no_dir(void **state)
{
	struct machine m;
	char	      *cause = NULL;

	test_machine(&m, 22);
	assert_null(agent_connect(&m, NULL, &cause));
	assert_string_equal(cause,
	    "host \"m1\": agent: no local directory "
	    "of agent builds");
	free(cause);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_no_known_hosts),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_silent_server),
		cmocka_unit_test(test_agent_no_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
