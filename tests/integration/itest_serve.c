/*
 * Drives "hilab-agent serve" over pipes, without ssh, for agent_aarch64.sh:
 * the agent command may be an emulator running another arch's build.
 *
 *	itest-serve [-n ITERATIONS] [-w WARMUPS] DIR AGENT... -- ARGV...
 *
 * starts "AGENT... --dir DIR serve", exchanges HELLO, asks for the facts,
 * runs ARGV (run id "r1"), replays the run's spool with FETCH, acks the run,
 * says BYE and waits for the agent.  It prints:
 *	hello version=V agent_version=S arch=A
 *	fact KEY=VALUE		or "fact KEY absent"
 *	started pid=P
 *	result seq=N warmup=W exit=E timed_out=T output=TEXT
 *	done state=S count=C
 *	fetched seq=N warmup=W exit=E timed_out=T output=TEXT
 *	fetch done state=S count=C
 *	acked RUN_ID
 *	agent exit=CODE
 * TEXT has "\n", "\\" and bytes outside printable ASCII escaped.  An ERROR
 * from the agent, a message out of turn or a bad frame fails (exit 1).
 */
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/proto.h"
#include "common/xmalloc.h"
#include "tests/integration/driver.h"

#define ITEST_SERVE_RUN_ID    "r1"
/* The whole exchange must end within this many seconds. */
#define ITEST_SERVE_TIMEOUT_S 120

/* The agent process and both ends of its stdio. */
struct itest_serve {
	pid_t pid;
	int   to;   /* the agent's stdin */
	int   from; /* the agent's stdout */
};

/* One received message and the payload its fields point into. */
struct itest_msg {
	unsigned char	*payload;
	struct proto_msg m;
};

/* Starts "AGENT... --dir DIR serve" with pipes on its stdin and stdout. */
static void
itest_serve_spawn(struct itest_serve *a, char **agent, int n, const char *dir)
{
	char **argv = xcalloc((size_t)n + 4, sizeof *argv);
	int    in[2], out[2], i;

	for (i = 0; i < n; i++)
		argv[i] = agent[i];
	argv[n] = "--dir";
	argv[n + 1] = (char *)dir;
	argv[n + 2] = "serve";
	if (pipe(in) == -1 || pipe(out) == -1 || (a->pid = fork()) == -1)
		driver_die("pipe or fork: %s", strerror(errno));
	if (a->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[0]);
		close(in[1]);
		close(out[0]);
		close(out[1]);
		execvp(argv[0], argv);
		driver_die("exec \"%s\": %s", argv[0], strerror(errno));
	}
	close(in[0]);
	close(out[1]);
	a->to = in[1];
	a->from = out[0];
	free(argv);
}

/* Finishes b and writes it to the agent. */
static void
itest_serve_send(struct itest_serve *a, struct proto_buf *b)
{
	proto_end(b);
	if (proto_write_frame(a->to, b) == -1)
		driver_die("write to the agent: %s", strerror(errno));
	proto_buf_free(b);
}

/* Sends a message whose only field is the run id. */
static void
itest_serve_send_id(struct itest_serve *a, enum proto_type type)
{
	struct proto_buf b = { 0 };

	proto_begin(&b, type);
	proto_add_str(&b, PROTO_T_RUN_ID, ITEST_SERVE_RUN_ID);
	itest_serve_send(a, &b);
}

/* Reads and decodes one message; an ERROR or a bad frame fails. */
static void
itest_serve_recv(struct itest_serve *a, struct itest_msg *msg)
{
	char   err[256], *text;
	size_t len;
	int    rc;

	rc = proto_read_frame(a->from, &msg->payload, &len, err, sizeof err);
	if (rc == 1)
		driver_die("the agent closed its stdout");
	if (rc == -1 ||
	    proto_decode(msg->payload, len, &msg->m, err, sizeof err) == -1)
		driver_die("from the agent: %s", err);
	if (msg->m.type == PROTO_ERROR) {
		text = proto_get_str(&msg->m, PROTO_T_MESSAGE);
		driver_die("agent: %s", text != NULL ? text : "ERROR");
	}
}

/* Receives one message of type want. */
static void
itest_serve_expect(struct itest_serve *a, int want, struct itest_msg *msg)
{
	itest_serve_recv(a, msg);
	if (msg->m.type != want)
		driver_die("expected %s, got %s", proto_type_name(want),
		    proto_type_name(msg->m.type));
}

/* Frees what a received message holds. */
static void
itest_serve_msg_clear(struct itest_msg *msg)
{
	proto_msg_clear(&msg->m);
	free(msg->payload);
	msg->payload = NULL;
}

/* Prints a BYTES field's bytes with newlines and odd bytes escaped. */
static void
itest_serve_print_bytes(const struct proto_field *f)
{
	uint32_t      i;
	unsigned char ch;

	for (i = 0; f != NULL && i < f->len; i++) {
		ch = f->data[i];
		if (ch == '\n')
			fputs("\\n", stdout);
		else if (ch == '\\')
			fputs("\\\\", stdout);
		else if (ch < 0x20 || ch > 0x7e)
			printf("\\x%02x", ch);
		else
			putchar(ch);
	}
}

/* Sends HELLO and prints the agent's answer. */
static void
itest_serve_hello(struct itest_serve *a)
{
	struct proto_buf b = { 0 };
	struct itest_msg msg;
	uint64_t	 v = 0;
	char		*version, *arch;

	proto_begin(&b, PROTO_HELLO);
	proto_add_u64(&b, PROTO_T_VERSION, PROTO_VERSION);
	itest_serve_send(a, &b);
	itest_serve_expect(a, PROTO_HELLO, &msg);
	proto_get_u64(&msg.m, PROTO_T_VERSION, &v);
	version = proto_get_str(&msg.m, PROTO_T_AGENT_VERSION);
	arch = proto_get_str(&msg.m, PROTO_T_ARCH);
	printf("hello version=%llu agent_version=%s arch=%s\n",
	    (unsigned long long)v, version ? version : "(none)",
	    arch ? arch : "(none)");
	free(version);
	free(arch);
	itest_serve_msg_clear(&msg);
}

/* Asks for the facts and prints them, one line each. */
static void
itest_serve_facts(struct itest_serve *a)
{
	struct proto_buf	  b = { 0 };
	struct itest_msg	  msg;
	const struct proto_field *f;
	uint16_t		  i;

	proto_begin(&b, PROTO_FACTS_REQ);
	itest_serve_send(a, &b);
	itest_serve_expect(a, PROTO_FACTS, &msg);
	for (i = 0; i + 1 < msg.m.nfields; i += 2) {
		f = &msg.m.fields[i];
		if (f->tag != PROTO_T_KEY)
			driver_die("FACTS field %u: tag %u, not a key", i,
			    f->tag);
		fputs("fact ", stdout);
		itest_serve_print_bytes(f);
		if (f[1].tag == PROTO_T_ABSENT)
			fputs(" absent\n", stdout);
		else {
			putchar('=');
			itest_serve_print_bytes(&f[1]);
			putchar('\n');
		}
	}
	itest_serve_msg_clear(&msg);
}

/* Prints one RESULT as "WHAT seq=N warmup=W exit=E ..."; returns its seq. */
static uint64_t
itest_serve_result(const struct proto_msg *m, const char *what)
{
	uint64_t seq = 0, warmup = 0, timed_out = 0;
	int64_t	 exit_status = 0;

	if (proto_get_u64(m, PROTO_T_SEQ, &seq) == -1 ||
	    proto_get_i64(m, PROTO_T_EXIT_STATUS, &exit_status) == -1)
		driver_die("RESULT without SEQ or EXIT_STATUS");
	proto_get_u64(m, PROTO_T_WARMUP, &warmup);
	proto_get_u64(m, PROTO_T_TIMED_OUT, &timed_out);
	printf("%s seq=%llu warmup=%llu exit=%lld timed_out=%llu output=", what,
	    (unsigned long long)seq, (unsigned long long)warmup,
	    (long long)exit_status, (unsigned long long)timed_out);
	itest_serve_print_bytes(proto_find(m, PROTO_T_OUTPUT));
	putchar('\n');
	return seq;
}

/*
 * Prints RESULTs in seq order 0, 1, ... until RUN_DONE, then the end as
 * "PREFIXdone state=S count=C"; the count must match.
 */
static void
itest_serve_results(struct itest_serve *a, const char *what, const char *prefix)
{
	struct itest_msg msg;
	uint64_t	 n = 0, state = 0, count = 0;

	for (;;) {
		itest_serve_recv(a, &msg);
		if (msg.m.type != PROTO_RESULT)
			break;
		if (itest_serve_result(&msg.m, what) != n++)
			driver_die("RESULT %llu out of order",
			    (unsigned long long)n - 1);
		itest_serve_msg_clear(&msg);
	}
	if (msg.m.type != PROTO_RUN_DONE)
		driver_die("expected RESULT or RUN_DONE, got %s",
		    proto_type_name(msg.m.type));
	proto_get_u64(&msg.m, PROTO_T_STATE, &state);
	proto_get_u64(&msg.m, PROTO_T_COUNT, &count);
	printf("%sdone state=%llu count=%llu\n", prefix,
	    (unsigned long long)state, (unsigned long long)count);
	if (count != n)
		driver_die("RUN_DONE counts %llu, %llu RESULTs came",
		    (unsigned long long)count, (unsigned long long)n);
	itest_serve_msg_clear(&msg);
}

/* Runs argv and streams its results. */
static void
itest_serve_run(struct itest_serve *a, char **argv, uint64_t iterations,
    uint64_t warmups)
{
	struct proto_buf b = { 0 };
	struct itest_msg msg;
	uint64_t	 pid = 0;

	proto_begin(&b, PROTO_RUN);
	proto_add_str(&b, PROTO_T_RUN_ID, ITEST_SERVE_RUN_ID);
	for (; *argv != NULL; argv++)
		proto_add_str(&b, PROTO_T_ARGV, *argv);
	proto_add_u64(&b, PROTO_T_ITERATIONS, iterations);
	proto_add_u64(&b, PROTO_T_WARMUPS, warmups);
	proto_add_u64(&b, PROTO_T_TIMEOUT_MS, 60000);
	itest_serve_send(a, &b);
	itest_serve_expect(a, PROTO_RUN_STARTED, &msg);
	proto_get_u64(&msg.m, PROTO_T_PID, &pid);
	printf("started pid=%llu\n", (unsigned long long)pid);
	itest_serve_msg_clear(&msg);
	itest_serve_results(a, "result", "");
}

/* Replays the run's spool from the first result. */
static void
itest_serve_fetch(struct itest_serve *a)
{
	struct proto_buf b = { 0 };

	proto_begin(&b, PROTO_FETCH);
	proto_add_str(&b, PROTO_T_RUN_ID, ITEST_SERVE_RUN_ID);
	proto_add_u64(&b, PROTO_T_FROM_SEQ, 0);
	proto_add_u64(&b, PROTO_T_WAIT, 1);
	itest_serve_send(a, &b);
	itest_serve_results(a, "fetched", "fetch ");
}

/* Acks the run, says BYE and waits for the agent to end; its exit code. */
static int
itest_serve_end(struct itest_serve *a)
{
	struct proto_buf b = { 0 };
	struct itest_msg msg;
	char		*id, extra;
	int		 status;

	itest_serve_send_id(a, PROTO_ACK);
	itest_serve_expect(a, PROTO_ACKED, &msg);
	id = proto_get_str(&msg.m, PROTO_T_RUN_ID);
	printf("acked %s\n", id ? id : "(none)");
	free(id);
	itest_serve_msg_clear(&msg);
	proto_begin(&b, PROTO_BYE);
	itest_serve_send(a, &b);
	close(a->to);
	if (read(a->from, &extra, 1) != 0)
		driver_die("the agent wrote after BYE");
	close(a->from);
	if (waitpid(a->pid, &status, 0) == -1)
		driver_die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status))
		driver_die("the agent died of signal %d", WTERMSIG(status));
	printf("agent exit=%d\n", WEXITSTATUS(status));
	return WEXITSTATUS(status);
}

int
main(int argc, char **argv)
{
	struct itest_serve a;
	uint64_t	   iterations = 1, warmups = 0;
	int		   c, sep;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "+n:w:")) != -1) {
		if (c == 'n')
			iterations = strtoull(optarg, NULL, 10);
		else if (c == 'w')
			warmups = strtoull(optarg, NULL, 10);
		else
			goto usage;
	}
	for (sep = optind + 1; sep < argc; sep++)
		if (strcmp(argv[sep], "--") == 0)
			break;
	if (sep - optind < 2 || sep + 1 >= argc)
		goto usage;
	signal(SIGPIPE, SIG_IGN);
	alarm(ITEST_SERVE_TIMEOUT_S);
	itest_serve_spawn(&a, argv + optind + 1, sep - optind - 1,
	    argv[optind]);
	itest_serve_hello(&a);
	itest_serve_facts(&a);
	itest_serve_run(&a, argv + sep + 1, iterations, warmups);
	itest_serve_fetch(&a);
	return itest_serve_end(&a) == 0 ? 0 : 1;
usage:
	fprintf(stderr,
	    "usage: itest-serve [-n ITERATIONS] [-w WARMUPS] "
	    "DIR AGENT... -- ARGV...\n");
	return 2;
}
