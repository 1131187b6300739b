/*
 * Drives the ssh transport against a real sshd for ssh_transport.sh:
 *	connect			connect, print "connected" or the error (exit 3)
 *	exec CMD		run CMD, relay its output and exit status
 *	checks			output, exit status, stdin EOF, quoting, channel
 *	bench N			time connect+auth and N round trips of "true"
 *	upload LOCAL REMOTE	upload with mode 0755
 *	run WHAT CMD MS		ssh_host_run within MS (0: the command
 *				timeout): print "[OUT]", or the error (exit 3)
 *	probe MS		ssh_host_probe: print "answers" (exit 0) or
 *				"silent" (exit 1) and the time it took
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/xmalloc.h"
#include "machines/ssh.h"
#include "tests/integration/driver.h"

/* Connects or dies with the cause. */
static struct ssh_host *
itest_connect(const struct machine *m, int flags)
{
	struct ssh_host *h;
	char		*cause = NULL;

	if ((h = ssh_host_connect(m, flags, &cause)) == NULL)
		driver_die("%s", cause);
	return h;
}

/* Runs cmd and dies on a transport error. */
static void
itest_exec(struct ssh_host *h, const char *cmd, struct ssh_host_result *res)
{
	char *cause = NULL;

	if (ssh_host_exec(h, cmd, res, &cause) != 0)
		driver_die("exec \"%s\": %s", cmd, cause);
}

static int
itest_cmd_connect(const struct machine *m, int flags)
{
	struct ssh_host *h;
	char		*cause = NULL;

	if ((h = ssh_host_connect(m, flags, &cause)) == NULL) {
		printf("%s\n", cause);
		free(cause);
		return 3;
	}
	printf("connected\n");
	ssh_host_close(h);
	return 0;
}

static int
itest_cmd_exec(const struct machine *m, int flags, const char *cmd)
{
	struct ssh_host	      *h = itest_connect(m, flags);
	struct ssh_host_result res;
	char		      *cause = NULL;
	int		       status;

	if (ssh_host_exec(h, cmd, &res, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		ssh_host_close(h);
		return 125;
	}
	fwrite(res.out, 1, res.out_len, stdout);
	fwrite(res.err, 1, res.err_len, stderr);
	status = res.status;
	ssh_host_result_clear(&res);
	ssh_host_close(h);
	return status < 0 ? 126 : status;
}

/* Output on both streams, a non-zero exit, output past the window. */
static void
itest_check_output(struct ssh_host *h)
{
	struct ssh_host_result res;

	itest_exec(h, "echo hello; echo oops >&2; exit 3", &res);
	if (strcmp(res.out, "hello\n") != 0 || strcmp(res.err, "oops\n") != 0 ||
	    res.status != 3)
		driver_die("echo: out \"%s\" err \"%s\" status %d", res.out,
		    res.err, res.status);
	ssh_host_result_clear(&res);
	itest_exec(h,
	    "head -c 3000000 /dev/zero | tr '\\0' x; "
	    "head -c 200000 /dev/zero | tr '\\0' y >&2",
	    &res);
	if (res.out_len != 3000000 || res.err_len != 200000 ||
	    strspn(res.out, "x") != 3000000 || res.status != 0)
		driver_die("big output: %zu bytes out, %zu err, status %d",
		    res.out_len, res.err_len, res.status);
	ssh_host_result_clear(&res);
	itest_exec(h, "cat; echo done", &res);
	if (strcmp(res.out, "done\n") != 0)
		driver_die("stdin is not at end of file: \"%s\"", res.out);
	ssh_host_result_clear(&res);
	printf("ok: output, stderr, exit status, 3 MB, stdin EOF\n");
}

/* A string with shell metacharacters survives quoting unchanged. */
static void
itest_check_quote(struct ssh_host *h)
{
	const char	      *s = "it's $HOME `id` \"x\" \\ ; | * \n end";
	struct ssh_host_result res;
	char		      *q = ssh_host_quote(s), *cmd;

	cmd = xasprintf("printf %%s %s", q);
	itest_exec(h, cmd, &res);
	if (strcmp(res.out, s) != 0)
		driver_die("quote: sent \"%s\", got \"%s\"", s, res.out);
	ssh_host_result_clear(&res);
	free(cmd);
	free(q);
	printf("ok: quoting\n");
}

/* A long-lived channel echoes what is written, and times out reads. */
static void
itest_check_chan(struct ssh_host *h)
{
	struct ssh_host_chan *ch;
	char		     *cause = NULL, out[200000], in[200000];
	size_t		      i;
	uint64_t	      t0;

	if ((ch = ssh_host_chan_open(h, "cat", &cause)) == NULL)
		driver_die("chan: %s", cause);
	for (i = 0; i < sizeof out; i++)
		out[i] = (char)('a' + i % 26);
	if (ssh_host_chan_write(ch, out, sizeof out, 5000, &cause) != 0 ||
	    ssh_host_chan_read(ch, in, sizeof in, 5000, &cause) != 0)
		driver_die("chan: %s", cause);
	if (memcmp(in, out, sizeof in) != 0)
		driver_die("chan: echoed bytes differ");
	t0 = driver_now_ns();
	if (ssh_host_chan_read(ch, in, 1, 300, &cause) == 0)
		driver_die("chan: read with nothing to read succeeded");
	if (strstr(cause, "timed out") == NULL ||
	    driver_now_ns() - t0 < 250000000u)
		driver_die("chan: expected a timeout after 300 ms: %s", cause);
	printf("ok: channel echo, read timeout: %s\n", cause);
	free(cause);
	ssh_host_chan_close(ch);
}

/* A process that exits is an error that quotes its stderr. */
static void
itest_check_chan_eof(struct ssh_host *h)
{
	struct ssh_host_chan *ch;
	char		     *cause = NULL, b;

	ch = ssh_host_chan_open(h, "echo 'no such agent' >&2; exit 1", &cause);
	if (ch == NULL)
		driver_die("chan: %s", cause);
	if (ssh_host_chan_read(ch, &b, 1, 5000, &cause) == 0)
		driver_die("chan: read past the end succeeded");
	if (strstr(cause, "no such agent") == NULL ||
	    strstr(cause, "host \"") != cause)
		driver_die("chan: end of file error: %s", cause);
	printf("ok: channel end: %s\n", cause);
	free(cause);
	ssh_host_chan_close(ch);
}

static int
itest_cmd_checks(const struct machine *m, int flags)
{
	struct ssh_host *h = itest_connect(m, flags);

	itest_check_output(h);
	itest_check_quote(h);
	itest_check_chan(h);
	itest_check_chan_eof(h);
	ssh_host_close(h);
	return 0;
}

static int
itest_cmd_bench(const struct machine *m, int flags, int n)
{
	struct ssh_host	      *h;
	struct ssh_host_result res;
	uint64_t	       t0, conn = 0;
	int		       i, nconn = 5;

	for (i = 0; i < nconn; i++) {
		t0 = driver_now_ns();
		h = itest_connect(m, flags);
		conn += driver_now_ns() - t0;
		ssh_host_close(h);
	}
	h = itest_connect(m, flags);
	t0 = driver_now_ns();
	for (i = 0; i < n; i++) {
		itest_exec(h, "true", &res);
		if (res.status != 0)
			driver_die("true exited %d", res.status);
		ssh_host_result_clear(&res);
	}
	printf("%s: connect+auth %.2f ms (mean of %d), per command %.3f ms "
	       "(%d x true over one session)\n",
	    flags & SSH_HOST_NO_NODELAY ? "nodelay off" : "nodelay on",
	    (double)conn / nconn / 1e6, nconn,
	    (double)(driver_now_ns() - t0) / n / 1e6, n);
	ssh_host_close(h);
	return 0;
}

static int
itest_cmd_upload(const struct machine *m, int flags, const char *local,
    const char *remote)
{
	struct ssh_host *h = itest_connect(m, flags);
	char		*cause = NULL;
	uint64_t	 t0 = driver_now_ns();

	if (ssh_host_upload(h, local, remote, 0755, &cause) != 0) {
		printf("%s\n", cause);
		free(cause);
		ssh_host_close(h);
		return 3;
	}
	printf("uploaded in %.2f ms\n", (double)(driver_now_ns() - t0) / 1e6);
	ssh_host_close(h);
	return 0;
}

static int
itest_cmd_run(const struct machine *m, int flags, const char *what,
    const char *cmd, int ms)
{
	struct ssh_host *h = itest_connect(m, flags);
	char		*out = NULL, *cause = NULL;
	int		 rc = 0;

	if (ssh_host_run(h, what, cmd, ms, &out, &cause) != 0) {
		printf("%s\n", cause);
		rc = 3;
	} else
		printf("[%s]\n", out);
	free(out);
	free(cause);
	ssh_host_close(h);
	return rc;
}

static int
itest_cmd_probe(const struct machine *m, int ms)
{
	uint64_t t0 = driver_now_ns();
	bool	 up = ssh_host_probe(m->ssh.host, m->ssh.port, ms);

	printf("%s %.0f ms\n", up ? "answers" : "silent",
	    (double)(driver_now_ns() - t0) / 1e6);
	return up ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct machine m;
	const char    *cmd;
	int	       flags, i, rc = 2;

	i = driver_machine(&m, &flags, argc, argv);
	cmd = argv[i++];
	if (strcmp(cmd, "connect") == 0)
		rc = itest_cmd_connect(&m, flags);
	else if (strcmp(cmd, "exec") == 0 && i < argc)
		rc = itest_cmd_exec(&m, flags, argv[i]);
	else if (strcmp(cmd, "checks") == 0)
		rc = itest_cmd_checks(&m, flags);
	else if (strcmp(cmd, "bench") == 0 && i < argc)
		rc = itest_cmd_bench(&m, flags, atoi(argv[i]));
	else if (strcmp(cmd, "upload") == 0 && i + 1 < argc)
		rc = itest_cmd_upload(&m, flags, argv[i], argv[i + 1]);
	else if (strcmp(cmd, "run") == 0 && i + 2 < argc)
		rc = itest_cmd_run(&m, flags, argv[i], argv[i + 1],
		    atoi(argv[i + 2]));
	else if (strcmp(cmd, "probe") == 0 && i < argc)
		rc = itest_cmd_probe(&m, atoi(argv[i]));
	else
		driver_usage(argv[0]);
	driver_machine_free(&m);
	return rc;
}
