/*
 * Parses every real capture under $HILAB_SHARED/bench-outputs: each must
 * parse, a few values read off each file must come out exactly, and the
 * file cut short must give an error or a prefix of the full result.
 */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/xmalloc.h"
#include "parsers_test.h"
#include "tests/lib/skip.h"

static const char *outputs_dir;

/*
 * Values read off the files by eye: the occ-th (0-based) metric called
 * name has this value and unit; count, when not 0, is how many there are.
 */
static const struct expect {
	const char *file;
	const char *name;
	size_t	    occ;
	double	    value;
	const char *unit;
	size_t	    count;
} expects[] = {
	{ "hackbench/lkp-process-pipe-g256.txt", "time", 0, 9.541, "s", 8 },
	{ "hackbench/lkp-process-pipe-g256.txt", "time", 2, 12.241, "s", 0 },
	{ "hackbench/lkp-process-pipe-g256.txt", "time", 7, 9.998, "s", 0 },
	{ "hackbench/lkp-threads-pipe-multi-instance.txt", "time", 0, 765.710,
	    "s", 16 },
	{ "hackbench/lkp-threads-pipe-multi-instance.txt", "time", 8, 47.847,
	    "s", 0 },
	{ "hackbench/lkp-threads-pipe-multi-instance.txt", "time", 15, 94.161,
	    "s", 0 },
	{ "hackbench/local-default.txt", "time", 0, 0.513, "s", 1 },
	{ "hackbench/local-pipe-process-g2.txt", "time", 0, 0.856, "s", 1 },
	{ "hackbench/local-process-g4.txt", "time", 0, 3.562, "s", 1 },
	{ "hackbench/local-thread-g4.txt", "time", 0, 3.210, "s", 1 },

	{ "kernel-build/lkp-kbuild-01-runtime.txt", "runtime", 0, 157, "s", 1 },
	{ "kernel-build/lkp-kbuild-01-runtime.txt", "real", 0, NAN, "", 0 },
	{ "kernel-build/lkp-kbuild-02-real-user-sys.txt", "real", 0, 33.544,
	    "s", 8 },
	{ "kernel-build/lkp-kbuild-02-real-user-sys.txt", "user", 0, 910.672,
	    "s", 8 },
	{ "kernel-build/lkp-kbuild-02-real-user-sys.txt", "sys", 0, 160.023,
	    "s", 8 },
	{ "kernel-build/lkp-kbuild-02-real-user-sys.txt", "real", 7, 33.530,
	    "s", 0 },
	{ "kernel-build/lkp-kbuild-02-real-user-sys.txt", "runtime", 0, 319,
	    "s", 1 },
	{ "kernel-build/lkp-kbuild-03-allyesconfig.txt", "real", 0, 300.922,
	    "s", 1 },
	{ "kernel-build/lkp-kbuild-03-allyesconfig.txt", "user", 0, 16611.657,
	    "s", 1 },
	{ "kernel-build/lkp-kbuild-03-allyesconfig.txt", "sys", 0, 1932.173,
	    "s", 1 },
	{ "kernel-build/local-bash-time-format.txt", "real", 0, 0.108, "s", 1 },
	{ "kernel-build/local-bash-time-format.txt", "user", 0, 0.075, "s", 1 },
	{ "kernel-build/local-bash-time-format.txt", "sys", 0, 0.046, "s", 1 },
	{ "kernel-build/local-usr-bin-time-default-format.txt", "real", 0, 0.05,
	    "s", 1 },
	{ "kernel-build/local-usr-bin-time-default-format.txt", "user", 0, 0.07,
	    "s", 1 },
	{ "kernel-build/local-usr-bin-time-default-format.txt", "sys", 0, 0.03,
	    "s", 1 },
	{ "kernel-build/local-usr-bin-time-p-format.txt", "real", 0, 0.06, "s",
	    1 },
	{ "kernel-build/local-usr-bin-time-p-format.txt", "user", 0, 0.08, "s",
	    1 },
	{ "kernel-build/local-usr-bin-time-p-format.txt", "sys", 0, 0.03, "s",
	    1 },
	{ "kernel-build/local-usr-bin-time-v-format.txt", "real", 0, 0.05, "s",
	    1 },
	{ "kernel-build/local-usr-bin-time-v-format.txt", "user", 0, 0.08, "s",
	    1 },
	{ "kernel-build/local-usr-bin-time-v-format.txt", "sys", 0, 0.02, "s",
	    1 },
	{ "kernel-build/local-usr-bin-time-v-format.txt", "max_rss", 0, 25156,
	    "KiB", 1 },

	{ "llama-batched-bench/readme-sample-jsonl.txt",
	    "speed_pp_pp128_tg128_pl1", 0, 547.453064, "tokens/s", 1 },
	{ "llama-batched-bench/readme-sample-jsonl.txt",
	    "speed_tg_pp128_tg128_pl2", 0, 23.050371, "tokens/s", 1 },
	{ "llama-batched-bench/readme-sample-jsonl.txt",
	    "speed_total_pp128_tg128_pl2", 0, 44.410854, "tokens/s", 1 },
	{ "llama-batched-bench/readme-sample-llama7b-table.txt",
	    "speed_pp_pp128_tg128_pl1", 0, 1186.64, "tokens/s", 1 },
	{ "llama-batched-bench/readme-sample-llama7b-table.txt",
	    "speed_tg_pp128_tg128_pl16", 0, 242.23, "tokens/s", 1 },
	{ "llama-batched-bench/readme-sample-llama7b-table.txt",
	    "speed_total_pp128_tg256_pl32", 0, 542.93, "tokens/s", 1 },

	{ "netperf/caprice-kvm-tcp-stream-rr-maerts.txt", "throughput", 0,
	    20.77, "Mbit/s", 4 },
	{ "netperf/caprice-kvm-tcp-stream-rr-maerts.txt", "transactions", 0,
	    60.26, "trans/s", 1 },
	{ "netperf/caprice-kvm-tcp-stream-rr-maerts.txt", "throughput", 3,
	    46.69, "Mbit/s", 0 },
	{ "netperf/caprice-mac-null-host-rr-stream-maerts.txt", "transactions",
	    0, 25.67, "trans/s", 1 },
	{ "netperf/caprice-mac-null-host-rr-stream-maerts.txt", "throughput", 0,
	    35.95, "Mbit/s", 2 },
	{ "netperf/caprice-mac-null-host-rr-stream-maerts.txt", "throughput", 1,
	    32.89, "Mbit/s", 0 },
	{ "netperf/caprice-rpi3-tcp-rr-stream-maerts.txt", "transactions", 0,
	    78.15, "trans/s", 1 },
	{ "netperf/caprice-rpi3-tcp-rr-stream-maerts.txt", "throughput", 0,
	    20.53, "Mbit/s", 2 },
	{ "netperf/caprice-rpi3-tcp-rr-stream-maerts.txt", "throughput", 1,
	    46.91, "Mbit/s", 0 },
	{ "netperf/lkml-2022-udp-rr-ipv6-gvisor.txt", "transactions", 0,
	    95965.18, "trans/s", 2 },
	{ "netperf/lkml-2022-udp-rr-ipv6-gvisor.txt", "transactions", 1,
	    146460.80, "trans/s", 0 },
	{ "netperf/lkp-sctp-stream-many-trimmed.txt", "throughput", 0, 7572.02,
	    "Mbit/s", 16 },
	{ "netperf/lkp-sctp-stream-many-trimmed.txt", "throughput", 1, 7787.03,
	    "Mbit/s", 0 },
	{ "netperf/lkp-udp-stream-16x.txt", "send_throughput", 0, 63577.2,
	    "Mbit/s", 16 },
	{ "netperf/lkp-udp-stream-16x.txt", "throughput", 0, 61689.4, "Mbit/s",
	    16 },
	{ "netperf/lkp-udp-stream-16x.txt", "throughput", 1, 60602.6, "Mbit/s",
	    0 },

	{ "schbench/lkml-2020-old-0000th-and-0th-8space.txt", "wakeup_p99", 0,
	    14160, "usec", 4 },
	{ "schbench/lkml-2020-old-0000th-and-0th-8space.txt", "wakeup_p99", 1,
	    12912, "usec", 0 },
	{ "schbench/lkml-2020-old-0000th-and-0th-8space.txt", "wakeup_p99", 3,
	    8, "usec", 0 },
	{ "schbench/lkml-2020-old-0000th-and-0th-8space.txt", "wakeup_p99_9", 0,
	    22688, "usec", 4 },
	{ "schbench/lkml-2020-old-0000th-and-0th-8space.txt", "wakeup_p50", 2,
	    6, "usec", 0 },
	{ "schbench/lkml-2020-old-0000th-and-0th-8space.txt", "wakeup_max", 3,
	    245, "usec", 0 },
	{ "schbench/lkml-2021-old-0000th-tabs-rps-line.txt", "wakeup_p99", 0,
	    13, "usec", 2 },
	{ "schbench/lkml-2021-old-0000th-tabs-rps-line.txt", "wakeup_p99_9", 0,
	    6408, "usec", 0 },
	{ "schbench/lkml-2021-old-0000th-tabs-rps-line.txt", "wakeup_p50", 1,
	    19872, "usec", 0 },
	{ "schbench/lkml-2021-old-0000th-tabs-rps-line.txt", "rps", 0, 497.44,
	    "rps", 2 },
	{ "schbench/lkml-2021-old-0000th-tabs-rps-line.txt", "rps", 1, 9.90,
	    "rps", 0 },
	/* only the runtime-30 block of each of the three runs counts */
	{ "schbench/lkp-2022-intermediate-format-m1-t16.txt", "wakeup_p99", 0,
	    50112, "usec", 3 },
	{ "schbench/lkp-2022-intermediate-format-m1-t16.txt", "wakeup_p99", 1,
	    50496, "usec", 0 },
	{ "schbench/lkp-2022-intermediate-format-m1-t16.txt", "wakeup_p99", 2,
	    50368, "usec", 0 },
	{ "schbench/lkp-2022-intermediate-format-m1-t16.txt", "wakeup_p50", 0,
	    11344, "usec", 3 },
	{ "schbench/lkp-new-format-m1-t128.txt", "wakeup_p99", 0, 9, "usec",
	    3 },
	{ "schbench/lkp-new-format-m1-t128.txt", "request_p99", 0, 11376,
	    "usec", 3 },
	{ "schbench/lkp-new-format-m1-t128.txt", "request_p50", 1, 6040, "usec",
	    0 },
	{ "schbench/lkp-new-format-m1-t128.txt", "rps_p50", 0, 17376, "rps",
	    3 },
	{ "schbench/lkp-new-format-m1-t128.txt", "rps", 0, 17108.70, "rps", 3 },
	{ "schbench/lkp-new-format-m1-t128.txt", "rps", 2, 17007.27, "rps", 0 },

	{ "stream/daizhiyuan-abbreviated.txt", "copy", 0, 90014.1, "MB/s", 1 },
	{ "stream/daizhiyuan-abbreviated.txt", "scale", 0, 91318.6, "MB/s", 1 },
	{ "stream/daizhiyuan-abbreviated.txt", "add", 0, 97299.2, "MB/s", 1 },
	{ "stream/daizhiyuan-abbreviated.txt", "triad", 0, 98350.8, "MB/s", 1 },
	{ "stream/lkp-stream-5.10-omp4.txt", "copy", 0, 25956.9, "MB/s", 10 },
	{ "stream/lkp-stream-5.10-omp4.txt", "triad", 0, 28701.1, "MB/s", 10 },
	{ "stream/lkp-stream-5.10-omp4.txt", "copy", 9, 31496.2, "MB/s", 0 },
	{ "stream/revyos-lpi4a-8threads.txt", "copy", 0, 8239.8, "MB/s", 1 },
	{ "stream/revyos-lpi4a-8threads.txt", "triad", 0, 6125.3, "MB/s", 1 },

	{ "stress-ng/local-cpu2-3s-metrics-brief.txt", "cpu_bogo_ops", 0, 4625,
	    "bogo ops", 1 },
	{ "stress-ng/local-cpu2-3s-metrics-brief.txt", "cpu_bogo_ops_per_s", 0,
	    1539.94, "bogo ops/s", 1 },
	{ "stress-ng/local-cpu2-3s-metrics-brief.txt", "cpu_bogo_ops_per_cpu_s",
	    0, 1608.15, "bogo ops/s", 1 },

	{ "sysbench/local-cpu-2threads-3s.txt", "events_per_second", 0, 4055.05,
	    "events/s", 1 },
	{ "sysbench/local-cpu-2threads-3s.txt", "latency_p95", 0, 0.77, "ms",
	    1 },
	{ "sysbench/local-cpu-2threads-3s.txt", "latency_max", 0, 68.39, "ms",
	    1 },
	{ "sysbench/local-cpu-2threads-3s.txt", "total_time", 0, 3.0008, "s",
	    1 },
	{ "sysbench/local-cpu-2threads-3s.txt", "events", 0, 12187, "events",
	    1 },
	{ "sysbench/sbc-orangepi-zero2-cpu-4threads.txt", "events_per_second",
	    0, 2809.41, "events/s", 1 },
	{ "sysbench/sbc-orangepi-zero2-cpu-4threads.txt", "latency_avg", 0,
	    1.42, "ms", 1 },

	{ "tbench/lkp-tbench-128clients.txt", "throughput", 0, 23775.4, "MB/s",
	    2 },
	{ "tbench/lkp-tbench-128clients.txt", "throughput", 1, 20853, "MB/s",
	    0 },
	{ "tbench/lkp-tbench-128clients.txt", "max_latency", 0, 8.632, "ms",
	    2 },
	{ "tbench/lkp-tbench-32clients.txt", "throughput", 0, 3789.19, "MB/s",
	    1 },
	{ "tbench/lkp-tbench-32clients.txt", "max_latency", 0, 0.470, "ms", 1 },
	{ "tbench/local-2clients-5s.txt", "throughput", 0, 612.208, "MB/s", 1 },
	{ "tbench/local-2clients-5s.txt", "max_latency", 0, 4.188, "ms", 1 },
	{ "tbench/local-4clients-6s.txt", "throughput", 0, 552.675, "MB/s", 1 },
	{ "tbench/local-4clients-6s.txt", "max_latency", 0, 14.697, "ms", 1 },

	{ "unixbench/lkp-3d-graphics-index.txt", "3d_graphics_gears", 0, 3207.0,
	    "fps", 1 },
	{ "unixbench/lkp-3d-graphics-index.txt", "3d_graphics_gears_index", 0,
	    960.2, "index", 1 },
	{ "unixbench/lkp-3d-graphics-index.txt",
	    "3d_graphics_benchmarks_index_score", 0, 960.2, "index", 1 },
	{ "unixbench/lkp-no-index-filewrite.txt",
	    "file_write_1024_bufsize_2000_maxblocks", 0, 3121976.0, "KBps", 1 },
	{ "unixbench/lkp-partial-index-filecopy.txt",
	    "file_copy_1024_bufsize_2000_maxblocks", 0, 1675624.0, "KBps", 1 },
	{ "unixbench/lkp-partial-index-filecopy.txt",
	    "file_copy_1024_bufsize_2000_maxblocks_index", 0, 4231.4, "index",
	    1 },
	{ "unixbench/lkp-partial-index-filecopy.txt",
	    "system_benchmarks_index_score_partial_only", 0, 4231.4, "index",
	    1 },
	{ "unixbench/sbc-orangepi-zero-4cpu-2runs.txt",
	    "system_benchmarks_index_score", 0, 247.4, "index", 1 },
	{ "unixbench/sbc-orangepi-zero-4cpu-2runs.txt",
	    "system_benchmarks_index_score_x4", 0, 580.0, "index", 1 },
	{ "unixbench/sbc-orangepi-zero-4cpu-2runs.txt",
	    "dhrystone_2_using_register_variables", 0, 5524229.7, "lps", 1 },
	{ "unixbench/sbc-orangepi-zero-4cpu-2runs.txt",
	    "execl_throughput_index_x4", 0, 327.0, "index", 1 },
	{ "unixbench/sbc-rpi-model-b-1cpu.txt", "system_benchmarks_index_score",
	    0, 60.5, "index", 1 },
	{ "unixbench/sbc-rpi-model-b-1cpu.txt", "system_call_overhead_index", 0,
	    170.4, "index", 1 },
	{ "unixbench/sbc-rpi-model-b-1cpu.txt", "shell_scripts_8_concurrent", 0,
	    42.0, "lpm", 1 },
	{ "unixbench/sbc-rpi-zero2-with-banner.txt",
	    "system_benchmarks_index_score", 0, 221.0, "index", 1 },
	{ "unixbench/sbc-rpi-zero2-with-banner.txt",
	    "system_benchmarks_index_score_x4", 0, 564.0, "index", 1 },
	{ "unixbench/sbc-rpi-zero2-with-banner.txt", "pipe_throughput_x4", 0,
	    564542.1, "lps", 1 },

	{ "ycsb/arm-mongodb-nolse-workload-rmw-scan.txt", "throughput", 0,
	    6662.1275371047195, "ops/s", 1 },
	{ "ycsb/arm-mongodb-nolse-workload-rmw-scan.txt", "runtime", 0, 750511,
	    "ms", 1 },
	{ "ycsb/arm-mongodb-nolse-workload-rmw-scan.txt",
	    "read_modify_write_latency_p99", 0, 32271, "us", 1 },
	{ "ycsb/arm-mongodb-nolse-workload-rmw-scan.txt", "scan_latency_avg", 0,
	    22936.992162975963, "us", 1 },
	{ "ycsb/go-redis-ycsb-0.17.0-workloada-full.txt", "throughput", 0,
	    4255.31914893617, "ops/s", 1 },
	{ "ycsb/go-redis-ycsb-0.17.0-workloada-full.txt", "read_latency_p95", 0,
	    173, "us", 1 },
	{ "ycsb/go-redis-ycsb-0.17.0-workloada-full.txt", "update_operations",
	    0, 521, "ops", 1 },
};

/* Checks one expectation against a parse of its file. */
static void
check_expect(const struct expect *e, const struct parse_result *res)
{
	double v = ptest_value(res, e->name, e->occ);
	size_t i, seen = 0;

	if (e->count != 0 && ptest_count(res, e->name) != e->count)
		fail_msg("%s: %zu \"%s\", expected %zu", e->file,
		    ptest_count(res, e->name), e->name, e->count);
	if (isnan(e->value)) {
		if (ptest_count(res, e->name) != 0)
			fail_msg("%s: unexpected \"%s\"", e->file, e->name);
		return;
	}
	if (v != e->value)
		fail_msg("%s: %s[%zu] = %.17g, expected %.17g", e->file,
		    e->name, e->occ, v, e->value);
	for (i = 0; i < res->n; i++) {
		if (strcmp(res->v[i].name, e->name) == 0 && seen++ == e->occ)
			assert_string_equal(res->v[i].unit, e->unit);
	}
}

/* Cuts buf at len: an error, or what parsed is a prefix of full. */
static void
check_cut(const char *file, const char *parser, const char *buf, size_t len,
    const struct parse_result *full)
{
	struct parse_result part;
	char		   *cause = NULL;

	if (parse_output(parser, NULL, buf, len, &part, &cause) < 0) {
		assert_non_null(cause);
		assert_non_null(strstr(cause, parser));
		assert_int_equal(part.n, 0);
		free(cause);
		return;
	}
	if (!ptest_is_prefix(&part, full))
		fail_msg("%s cut at %zu bytes: %zu metrics not a prefix of "
			 "the full result",
		    file, len, part.n);
	parse_result_clear(&part);
}

/* Parses one capture and runs every check that names it. */
static size_t
check_file(const char *rel, const char *parser)
{
	struct parse_result res;
	char		   *path, *buf, *cause = NULL;
	size_t		    len, i, n = 0;

	path = xasprintf("%s/%s", outputs_dir, rel);
	if ((buf = ptest_read_file(path, &len)) == NULL)
		fail_msg("cannot read %s", path);
	if (parse_output(parser, NULL, buf, len, &res, &cause) <= 0)
		fail_msg("%s: %s", rel, cause);
	for (i = 0; i < sizeof expects / sizeof expects[0]; i++) {
		if (strcmp(expects[i].file, rel) == 0) {
			check_expect(&expects[i], &res);
			n++;
		}
	}
	check_cut(rel, parser, buf, len / 2, &res);
	check_cut(rel, parser, buf, len / 4, &res);
	check_cut(rel, parser, buf, len - len / 4, &res);
	parse_result_clear(&res);
	free(buf);
	free(path);
	return (n);
}

/* Keeps plain files, not dot files. */
static int
visible(const struct dirent *d)
{
	return (d->d_name[0] != '.');
}

/* Every file of one tool's folder parses and has values checked. */
static void
check_tool(const char *dir, const char *parser)
{
	struct dirent **names;
	char	       *path, *rel;
	int		n, i;

	path = xasprintf("%s/%s", outputs_dir, dir);
	n = scandir(path, &names, visible, alphasort);
	if (n <= 0)
		fail_msg("%s: no captures", path);
	for (i = 0; i < n; i++) {
		rel = xasprintf("%s/%s", dir, names[i]->d_name);
		if (check_file(rel, parser) == 0)
			fail_msg("%s: no value checked for this capture", rel);
		free(rel);
		free(names[i]);
	}
	free(names);
	free(path);
}

/* Each tool folder of the captures, through its parser. */
static void
test_captures(void **state)
{
	const size_t *i = *state;

	check_tool(ptest_tools[*i].dir, ptest_tools[*i].parser);
}

/* Every folder of the captures has a parser here. */
static void
test_every_folder_known(void **state)
{
	struct dirent **names;
	size_t		k;
	int		n, i;

	n = scandir(outputs_dir, &names, visible, alphasort);
	assert_true(n > 0);
	for (i = 0; i < n; i++) {
		for (k = 0; k < ptest_ntools; k++) {
			if (strcmp(ptest_tools[k].dir, names[i]->d_name) == 0)
				break;
		}
		if (k == ptest_ntools && names[i]->d_type == DT_DIR)
			fail_msg("%s: a folder of captures with no parser",
			    names[i]->d_name);
		free(names[i]);
	}
	free(names);
}

int
main(void)
{
	static size_t	  idx[16];
	struct CMUnitTest tests[1 + sizeof idx / sizeof idx[0]];
	const char	 *shared = getenv("HILAB_SHARED");
	DIR		 *d;
	size_t		  i;

	if (shared == NULL)
		return (SKIP_MISSING_EXIT("HILAB_SHARED is not set"));
	outputs_dir = xasprintf("%s/bench-outputs", shared);
	if ((d = opendir(outputs_dir)) == NULL)
		return (SKIP_MISSING_EXIT("%s is absent: no real captures "
					  "to parse",
		    outputs_dir));
	closedir(d);
	tests[0] = (struct CMUnitTest)cmocka_unit_test(test_every_folder_known);
	assert_true(ptest_ntools <= sizeof idx / sizeof idx[0]);
	for (i = 0; i < ptest_ntools; i++) {
		idx[i] = i;
		tests[i + 1] = (struct CMUnitTest){ ptest_tools[i].dir,
			test_captures, NULL, NULL, &idx[i] };
	}
	return (_cmocka_run_group_tests("captures", tests, 1 + ptest_ntools,
	    NULL, NULL));
}
