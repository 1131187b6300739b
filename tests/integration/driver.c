/* Shared parts of the integration test drivers: a machine from options. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/xmalloc.h"
#include "machines/ssh.h"
#include "tests/integration/driver.h"

void
driver_usage(const char *prog)
{
	fprintf(stderr,
	    "usage: %s -h HOST -i KEY -k KNOWN_HOSTS [-n NAME] "
	    "[-p PORT] [-l USER] [-d REMOTE_DIR] [-c CONNECT_MS] "
	    "[-C COMMAND_MS] [-T] [-N] [-v] [AGENT_DIR] command [args]\n",
	    prog);
	exit(2);
}

int
driver_machine(struct machine *m, int *flags, int argc, char **argv)
{
	int c;

	memset(m, 0, sizeof *m);
	*flags = 0;
	m->name = xstrdup("itest");
	m->kind = MACHINE_SSH;
	m->ssh.port = 22;
	m->ssh.user = xstrdup("root");
	m->ssh.connect_timeout_ms = 10000;
	m->ssh.command_timeout_ms = 60000;
	while ((c = getopt(argc, argv, "+n:h:p:l:i:k:d:c:C:TNv")) != -1) {
		switch (c) {
		case 'n':
			free(m->name);
			m->name = xstrdup(optarg);
			break;
		case 'h':
			free(m->ssh.host);
			m->ssh.host = xstrdup(optarg);
			break;
		case 'p':
			m->ssh.port = atoi(optarg);
			break;
		case 'l':
			free(m->ssh.user);
			m->ssh.user = xstrdup(optarg);
			break;
		case 'i':
			free(m->ssh.identity);
			m->ssh.identity = xstrdup(optarg);
			break;
		case 'k':
			free(m->ssh.known_hosts);
			m->ssh.known_hosts = xstrdup(optarg);
			break;
		case 'd':
			free(m->ssh.agent_dir);
			m->ssh.agent_dir = xstrdup(optarg);
			break;
		case 'c':
			m->ssh.connect_timeout_ms = atoi(optarg);
			break;
		case 'C':
			m->ssh.command_timeout_ms = atoi(optarg);
			break;
		case 'T':
			m->ssh.trust_on_first_use = true;
			break;
		case 'N':
			*flags |= SSH_HOST_NO_NODELAY;
			break;
		case 'v':
			log_init("itest", LOG_LEVEL_DEBUG);
			break;
		default:
			driver_usage(argv[0]);
		}
	}
	if (m->ssh.host == NULL || optind >= argc)
		driver_usage(argv[0]);
	return optind;
}

void
driver_machine_free(struct machine *m)
{
	free(m->name);
	free(m->ssh.host);
	free(m->ssh.user);
	free(m->ssh.identity);
	free(m->ssh.known_hosts);
	free(m->ssh.agent_dir);
	memset(m, 0, sizeof *m);
}

uint64_t
driver_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void
driver_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}
