/*
 * Tests of the real hilab-agent binary's sessions and facts: spawned as
 * "hilab-agent --dir TMP serve" on pipes, spoken to with the protocol codec,
 * checked against this machine.
 *
 * Usage: test-agent AGENT_BINARY [sanitized|plain]
 */
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include <fcntl.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/proto.h"
#include "tests/unit/agent/agent_test.h"

/* HELLO answers with our version, the agent's version and its arch. */
static void
test_hello(void **state)
{
	struct agent   a;
	struct reply   r;
	struct utsname u;
	char	      *s;

	(void)state;
	agent_spawn_tmp(&a);
	send_hello(&a, PROTO_VERSION);
	agent_expect(&a, &r, PROTO_HELLO);
	assert_int_equal(reply_u64(&r, PROTO_T_VERSION), PROTO_VERSION);
	s = proto_get_str(&r.m, PROTO_T_AGENT_VERSION);
	assert_non_null(s);
	assert_true(strlen(s) > 0);
	free(s);
	assert_int_equal(uname(&u), 0);
	s = proto_get_str(&r.m, PROTO_T_ARCH);
	assert_string_equal(s, u.machine);
	free(s);
	reply_free(&r);
	agent_bye(&a);
	rm_tree(a.dir);
}

/* An unsupported version gets an ERROR and the agent leaves. */
static void
test_version_mismatch(void **state)
{
	struct agent a;
	struct reply r;
	char	    *s;

	(void)state;
	agent_spawn_tmp(&a);
	send_hello(&a, PROTO_VERSION + 1);
	agent_expect(&a, &r, PROTO_ERROR);
	s = proto_get_str(&r.m, PROTO_T_MESSAGE);
	assert_non_null(strstr(s, "version"));
	free(s);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 1);
	rm_tree(a.dir);
}

/* Anything but HELLO first, and unexpected types later, drop the peer. */
static void
test_unexpected(void **state)
{
	struct agent a;
	struct reply r;

	(void)state;
	agent_spawn_tmp(&a);
	send_empty(&a, PROTO_FACTS_REQ);
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 2);
	agent_spawn(&a, a.dir);
	agent_hello(&a);
	send_hello(&a, PROTO_VERSION);
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 2);
	agent_spawn(&a, a.dir);
	agent_hello(&a);
	send_empty(&a, PROTO_STATUS);
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 2);
	rm_tree(a.dir);
}

/* Writes raw bytes to the agent, then expects ERROR and exit 2. */
static void
expect_dropped(const unsigned char *bytes, size_t len, int close_after)
{
	struct agent a;
	struct reply r;

	agent_spawn_tmp(&a);
	agent_hello(&a);
	assert_int_equal(write(a.to, bytes, len), (ssize_t)len);
	if (close_after) {
		close(a.to);
		a.to = open("/dev/null", O_WRONLY);
	}
	agent_expect(&a, &r, PROTO_ERROR);
	reply_free(&r);
	assert_int_equal(agent_wait(&a), 2);
	rm_tree(a.dir);
}

/* Garbage, oversized and short frames get ERROR and exit 2; EOF exit 0. */
static void
test_garbage(void **state)
{
	static const unsigned char garbage[] = { 0, 0, 0, 8, 0xde, 0xad, 0xbe,
		0xef, 0x00, 0x01, 0x02, 0x03 };
	static const unsigned char huge[] = { 0x7f, 0xff, 0xff, 0xff, 0, 1 };
	static const unsigned char shortf[] = { 0, 0, 0, 20, 0, 14, 0, 0 };
	static const unsigned char trailing[] = { 0, 0, 0, 5, 0, 14, 0, 0, 0 };
	struct agent		   a;

	(void)state;
	expect_dropped(garbage, sizeof garbage, 0);
	expect_dropped(huge, sizeof huge, 0);
	expect_dropped(shortf, sizeof shortf, 1);
	expect_dropped(trailing, sizeof trailing, 0);
	agent_spawn_tmp(&a);
	agent_hello(&a);
	assert_int_equal(agent_wait(&a), 0);
	rm_tree(a.dir);
}

/* The facts received, as parallel key/value arrays (value NULL = absent). */
struct facts {
	char *key[64];
	char *value[64];
	int   n;
};

/* Asks for the facts. */
static void
get_facts(struct agent *a, struct facts *f)
{
	struct reply r;
	uint16_t     i;

	send_empty(a, PROTO_FACTS_REQ);
	agent_expect(a, &r, PROTO_FACTS);
	memset(f, 0, sizeof *f);
	for (i = 0; i < r.m.nfields; i += 2) {
		assert_true(f->n < 64);
		f->key[f->n] = proto_field_str(&r.m.fields[i]);
		f->value[f->n++] = proto_field_str(&r.m.fields[i + 1]);
	}
	reply_free(&r);
}

/* A fact's value; the key must have been reported (maybe absent). */
static const char *
fact(const struct facts *f, const char *key)
{
	int i;

	for (i = 0; i < f->n; i++) {
		if (strcmp(f->key[i], key) == 0)
			return f->value[i];
	}
	fail_msg("fact \"%s\" not reported", key);
	return NULL;
}

/* A fact that must be present, as a number. */
static long long
fact_num(const struct facts *f, const char *key)
{
	const char *v = fact(f, key);
	char	   *end;
	long long   n;

	if (v == NULL)
		fail_msg("fact \"%s\" absent", key);
	n = strtoll(v, &end, 10);
	if (*v == '\0' || *end != '\0')
		fail_msg("fact \"%s\" = \"%s\": not a number", key, v);
	return n;
}

/* A fact is absent exactly when its source file is missing. */
static void
check_file_fact(const struct facts *f, const char *key, const char *path)
{
	const char *v = fact(f, key);
	char	   *want = slurp(path);

	if (want == NULL && v != NULL)
		fail_msg("%s = \"%s\" but %s is missing", key, v, path);
	if (want != NULL && (v == NULL || strcmp(v, want) != 0))
		fail_msg("%s = \"%s\", %s says \"%s\"", key, v ? v : "(absent)",
		    path, want);
	free(want);
}

/* The number of CPUs a list like "0-3;8-11" names. */
static long
count_cpus(const char *s)
{
	long  lo, hi, n = 0;
	char *end;

	while (*s != '\0') {
		lo = strtol(s, &end, 10);
		hi = *end == '-' ? strtol(end + 1, &end, 10) : lo;
		n += hi - lo + 1;
		s = *end != '\0' ? end + 1 : end;
	}
	return n;
}

/* Checks the topology facts add up to the CPUs online. */
static void
check_topology(const struct facts *f)
{
	long long   online = fact_num(f, "cpu.online");
	const char *llc = fact(f, "topo.llc_groups");
	const char *clusters = fact(f, "topo.cluster_groups");

	assert_int_equal(online, sysconf(_SC_NPROCESSORS_ONLN));
	assert_int_equal(count_cpus(fact(f, "cpu.online_list")), online);
	assert_int_equal(fact_num(f, "topo.sockets") *
		fact_num(f, "topo.cores_per_socket") *
		fact_num(f, "topo.threads_per_core"),
	    online);
	assert_true(fact_num(f, "topo.dies") >= 1);
	if (llc != NULL)
		assert_int_equal(count_cpus(llc), online);
	else
		assert_int_equal(access("/sys/devices/system/cpu/cpu0/cache",
				     F_OK),
		    -1);
	if (clusters != NULL)
		assert_int_equal(count_cpus(clusters), online);
	else
		assert_int_equal(access("/sys/devices/system/cpu/cpu0/topology/"
					"cluster_cpus_list",
				     F_OK),
		    -1);
}

/* Checks the NUMA and memory facts against /sys and sysinfo(2). */
static void
check_numa_mem(const struct facts *f)
{
	struct sysinfo si;
	glob_t	       g;
	size_t	       nodes = 0;

	if (glob("/sys/devices/system/node/node[0-9]*", 0, NULL, &g) == 0)
		nodes = g.gl_pathc;
	globfree(&g);
	if (access("/sys/devices/system/node", F_OK) == -1)
		assert_null(fact(f, "numa.nodes"));
	else {
		assert_int_equal(fact_num(f, "numa.nodes"), nodes);
		assert_int_equal(count_cpus(fact(f, "numa.node_list")), nodes);
	}
	assert_int_equal(sysinfo(&si), 0);
	assert_int_equal(fact_num(f, "mem.total_kb"),
	    (long long)si.totalram * si.mem_unit / 1024);
}

/* The facts match this machine; absent ones are really missing here. */
static void
test_facts(void **state)
{
	struct agent   a;
	struct facts   f;
	struct utsname u;
	int	       i;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	get_facts(&a, &f);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(fact(&f, "kernel.release"), u.release);
	assert_string_equal(fact(&f, "kernel.version"), u.version);
	assert_string_equal(fact(&f, "arch"), u.machine);
	check_file_fact(&f, "boot_id", "/proc/sys/kernel/random/boot_id");
	check_file_fact(&f, "kernel.cmdline", "/proc/cmdline");
	check_file_fact(&f, "cpufreq.governor",
	    "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
	check_file_fact(&f, "cpufreq.boost",
	    "/sys/devices/system/cpu/cpufreq/boost");
	check_file_fact(&f, "intel_pstate.no_turbo",
	    "/sys/devices/system/cpu/intel_pstate/no_turbo");
	check_file_fact(&f, "smt.control",
	    "/sys/devices/system/cpu/smt/control");
	check_file_fact(&f, "clocksource",
	    "/sys/devices/system/clocksource/"
	    "clocksource0/current_clocksource");
	check_topology(&f);
	check_numa_mem(&f);
	assert_non_null(fact(&f, "cpu.model"));
	assert_int_equal(f.n, 30);
	for (i = 0; i < f.n; i++) {
		free(f.key[i]);
		free(f.value[i]);
	}
	agent_bye(&a);
	rm_tree(a.dir);
}

/* "hilab-agent facts" prints the same facts people-readably. */
static void
test_facts_cli(void **state)
{
	struct agent a;
	struct facts f;
	char	     cmd[512], line[8192], want[8192];
	FILE	    *p;
	int	     i = 0;

	(void)state;
	agent_spawn_tmp(&a);
	agent_hello(&a);
	get_facts(&a, &f);
	agent_bye(&a);
	snprintf(cmd, sizeof cmd, "'%s' facts", agent_path);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(line, sizeof line, p) != NULL) {
		assert_true(i < f.n);
		if (f.value[i] == NULL)
			snprintf(want, sizeof want, "%s (absent)\n", f.key[i]);
		else
			snprintf(want, sizeof want, "%s=%s\n", f.key[i],
			    f.value[i]);
		assert_string_equal(line, want);
		free(f.key[i]);
		free(f.value[i]);
		i++;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(i, f.n);
	rm_tree(a.dir);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hello),
		cmocka_unit_test(test_version_mismatch),
		cmocka_unit_test(test_unexpected),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_facts),
		cmocka_unit_test(test_facts_cli),
	};

	if (agent_test_args(argc, argv, "test-agent") == -1)
		return 2;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
