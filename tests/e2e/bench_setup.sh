#!/usr/bin/env bash
# Benchmarks made ready on a lab host by hilabd: tbench against the
# tbench_srv its catalog entry starts on the host (and stops after), a
# benchmark built on the host from a real source tarball in the machine's
# mirror directory (the seccomp benchmark of linux-source-6.1's selftests),
# a build that fails, and a build cancelled while it runs.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
command -v tbench >/dev/null && command -v tbench_srv >/dev/null ||
    lab_skip "tbench missing (apt-get install dbench)"
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
SUBMIT_ERR=$LAB_TMP/submit.err
export HILAB_CATALOG=$LAB_TMP/catalog
MIRROR=$LAB_TMP/mirror
mkdir -p "$HILAB_CATALOG" "$MIRROR"
daemon_lab_host demo "mirror: $MIRROR
"
cp "$HILAB_SRCDIR"/benchmarks/*.yaml "$HILAB_CATALOG/"

# Keeps the test's exit status for lab_teardown, which reads $?.
daemon_cleanup() {
	local rc=$?

	daemon_stop KILL
	[ -n "${DEBS_INSTALLED:-}" ] && dpkg -P iperf3 libiperf0 >/dev/null 2>&1
	(exit $rc)
	lab_teardown
}
trap daemon_cleanup EXIT

# skip DESCRIPTION REASON: one TAP line for a check that cannot run here.
skip() {
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# missing DESCRIPTION REASON: a check whose install step did not happen:
# skipped, but failed in CI (tests/lib/skip.sh).
missing() {
	if [ "${CI:-}" = true ]; then
		check "$1 (missing in CI: $2)" false
	else
		skip "$1" "$2"
	fi
}

# Prints the names of the processes running in the host's namespace.
host_procs() {
	ip netns pids "$NETNS" | xargs -r ps -o comm= -p
}

# True while a process of the slow build runs on the host (the shells
# running its script name the command too).
host_building() {
	ip netns pids "$NETNS" | xargs -r ps -o args= -p | grep -q "sleep 347"
}

# True once the worker says it stopped the slow build of job $c.
slow_stopped() {
	test "$(events "$c" '%build of "slow-1.tar.gz" cancelled; stopped install (pid %)')" = 1
}

# True when no hilabd holds the lease of "demo".
demo_released() {
	test -z "$(sql "SELECT lease_owner FROM machines WHERE name = 'demo'")"
}

# The selftests' seccomp benchmark from linux-source-6.1, as a tarball in
# the mirror; unpacked once into a cache beside the build (the .tar.xz is
# read whole to reach it).  Returns 1 when the source is not here.
make_tarball() {
	local tar=/usr/src/linux-source-6.1.tar.xz
	local cache=$HILAB_BUILDDIR/tests/e2e/seccomp-src
	local top=linux-source-6.1/tools/testing/selftests

	[ -f "$tar" ] || return 1
	if [ ! -f "$cache/selftests/seccomp/seccomp_benchmark.c" ]; then
		rm -rf "$cache" && mkdir -p "$cache" || return 1
		tar -xJf "$tar" -C "$cache" "$top/kselftest.h" \
		    "$top/seccomp" || return 1
		mv "$cache/$top" "$cache/selftests"
		rm -rf "$cache/linux-source-6.1"
	fi
	tar -czf "$MIRROR/seccomp-selftest-6.1.tar.gz" -C "$cache" selftests
}

# catalog_entry NAME BUILD: a benchmark built from the mirror's tarball.
catalog_entry() {
	cat >"$HILAB_CATALOG/$1.yaml" <<YAML
name: $1
description: getpid cost without and with seccomp filters
command: [./seccomp_benchmark, "{samples}"]
params:
  samples:
    default: 100000
iterations: 2
timeout: 120
install:
  source: seccomp-selftest-6.1.tar.gz
  build: ["$2"]
parser: regex
parser_args: |
  native[ns]=getpid native: ([0-9]+) ns
  filter4[ns]=getpid RET_ALLOW 4 filters \\(full\\): ([0-9]+) ns
metrics:
  - {name: native, unit: ns, direction: lower, statistic: median}
  - {name: filter4, unit: ns, direction: lower, statistic: median}
YAML
}

# job_file NAME BENCHMARK PARAMS: a job of one benchmark on "demo".
job_file() {
	cat >"$LAB_TMP/$1.yaml" <<YAML
name: $1
machines: [demo]
benchmarks:
  - name: $2
    params: $3
    iterations: 2
YAML
	echo "$LAB_TMP/$1.yaml"
}

# samples JOB METRIC: how many positive samples of metric the job has.
samples() {
	sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run
	    WHERE r.job = $1 AND s.metric = '$2' AND s.value > 0"
}

# events JOB PATTERN: how many of the job's events match a LIKE pattern.
events() {
	sql "SELECT COUNT(*) FROM events WHERE job = $1 AND message LIKE '$2'"
}

# Whether this machine has iperf3 or its library installed already (the
# install from the mirror would then not run).
debs_installed() {
	local p

	for p in iperf3 libiperf0; do
		[ "$(dpkg-query -W -f='${Status}' $p 2>/dev/null)" = \
		    "install ok installed" ] && return 0
	done
	return 1
}

# .deb files of iperf3 and its library, which the host lacks, in the
# mirror: fetched with apt-get download.
fetch_debs() {
	(cd "$MIRROR" && apt-get download iperf3 libiperf0) >/dev/null 2>&1
}

cat >"$HILAB_CATALOG/iperf3.yaml" <<YAML
name: iperf3
description: TCP throughput over loopback against an iperf3 server
command: [iperf3, -c, 127.0.0.1, -t, "{time}", -f, m]
params:
  time:
    default: 1
iterations: 2
timeout: 60
install:
  package: iperf3
server:
  command: [iperf3, -s]
  port: 5201
parser: regex
parser_args: "throughput[Mbit/s]=([0-9.]+) Mbits/sec +receiver"
metrics:
  - {name: throughput, unit: Mbit/s, direction: higher, statistic: amean}
YAML

# A source build that takes long, to cancel while it runs.
mkdir -p "$LAB_TMP/slow-1"
printf '#!/bin/sh\necho value=1\n' >"$LAB_TMP/slow-1/slow"
chmod +x "$LAB_TMP/slow-1/slow"
tar -czf "$MIRROR/slow-1.tar.gz" -C "$LAB_TMP" slow-1
cat >"$HILAB_CATALOG/slow.yaml" <<YAML
name: slow
description: a build that takes minutes, cancelled while it runs
command: [./slow, "{n}"]
params:
  n:
    default: 1
iterations: 1
timeout: 60
install:
  source: slow-1.tar.gz
  build: ["sleep 347"]
parser: regex
parser_args: "value[count]=([0-9]+)"
metrics:
  - {name: value, unit: count, direction: higher, statistic: median}
YAML

echo "1..29"
have_source=1
make_tarball || have_source=0
catalog_entry seccomp-bench \
    "gcc -O2 -o seccomp_benchmark seccomp/seccomp_benchmark.c"
catalog_entry broken "gcc -O2 -o seccomp_benchmark seccomp/no_such_file.c"
"$hilab" jobs check "$(job_file tb tbench "{clients: 2, duration: 3}")" \
    >"$LAB_TMP/check.out" 2>&1
check "jobs check shows the server tbench needs" \
    grep -q "server: {command: \[tbench_srv\], port: 7003}" "$LAB_TMP/check.out"
daemon_start

# tbench: tbench_srv started on the host before the runs, stopped after.
check "no tbench_srv on the host before" test -z "$(host_procs | grep tbench_srv)"
t=$(submit "$LAB_TMP/tb.yaml")
"$hilab" wait --timeout 120 "$t" >/dev/null
check "tbench job $t done" test "$(sql "SELECT state FROM jobs WHERE id = $t")" = done
check "2 samples of tbench throughput" test "$(samples "$t" throughput)" = 2
check "tbench_srv started by the setup step" test "$(events "$t" 'server "%tbench_srv" started (pid %')" = 1
check "tbench_srv stopped after the run" test "$(events "$t" 'server tbench (pid %) stopped')" = 1
check "tbench_srv is gone from the host" test -z "$(host_procs | grep tbench_srv)"

# Cancel while the build runs: its process group stopped on the host, the
# run and the job cancelled, the machine free for what follows.
c=$(submit "$(job_file slow slow "{n: 1}")")
check "the slow build runs on the host" until_true 600 host_building
start=$(date +%s)
"$hilab" cancel "$c" >/dev/null
"$hilab" wait --timeout 30 "$c" >/dev/null
until_true 100 slow_stopped
took=$(($(date +%s) - start))
check "job $c cancelled" test "$(sql "SELECT state FROM jobs WHERE id = $c")" = cancelled
check "its run cancelled, not failed" test "$(sql "SELECT group_concat(state) FROM runs WHERE job = $c")" = cancelled
check "the build's stop on the host is in the run's events" slow_stopped
check "build stopped ${took} s after the cancel (at most 10)" test "$took" -le 10
check "no build process left on the host" until_true 20 eval '! host_building'
check "machine lease released after the cancel" until_true 50 demo_released

# From source: uploaded from the mirror, built on the host, run from there.
if [ "$have_source" = 1 ]; then
	s=$(submit "$(job_file src seccomp-bench "{samples: 100000}")")
	"$hilab" wait --timeout 180 "$s" >/dev/null
	check "source-built job $s done" test "$(sql "SELECT state FROM jobs WHERE id = $s")" = done
	check "2 samples of getpid with 4 filters" test "$(samples "$s" filter4)" = 2
	check "built in the agent's prefix on the host" test -x "$AGENT_DIR_REMOTE/bench/seccomp-bench/src/seccomp_benchmark"
	check "the build's output is in the run's events" test "$(events "$s" '%+ gcc -O2 -o seccomp_benchmark%')" = 1
	check "the story tells the install and how long it took" test "$(events "$s" 'benchmark "%": seccomp-selftest-6.1.tar.gz installed in %s: %')" = 1
	s2=$(submit "$LAB_TMP/src.yaml")
	"$hilab" wait --timeout 180 "$s2" >/dev/null
	check "a second job runs it without building again" test "$(sql "SELECT state FROM jobs WHERE id = $s2")|$(events "$s2" '%installing%')" = "done|0"
	check "... and its story says it was there" test "$(events "$s2" '%seccomp-selftest-6.1.tar.gz already installed: %')" -ge 1
	cat >"$LAB_TMP/bad.yaml" <<YAML
name: bad
machines: [demo]
benchmarks:
  - name: broken
    params: {samples: [1000, 2000]}
  - name: seccomp-bench
YAML
	b=$(submit "$LAB_TMP/bad.yaml")
	"$hilab" wait --timeout 180 "$b" >/dev/null
	check "job $b with a failing build ends failed" test "$(sql "SELECT state FROM jobs WHERE id = $b")" = failed
	check "both runs' errors name host, benchmark and the build's output" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $b AND state = 'failed' AND error LIKE 'host \"demo\": benchmark \"broken\": build of \"seccomp-selftest-6.1.tar.gz\" failed (exit 1):%no_such_file.c%'")" = 2
	check "the failing build ran once" test "$(events "$b" 'benchmark "broken": build of %: exit 1; output:%')" = 1
	check "the job's other benchmark still measured" test "$(samples "$b" native)" = 2
else
	for d in "source-built job" "samples" "prefix" "events" "installed" \
	    "no rebuild" "already installed" "failed build" "errors" \
	    "built once" "other measured"; do
		missing "$d" "/usr/src/linux-source-6.1.tar.xz (linux-source-6.1)"
	done
fi

# A package from the mirror: its .deb and the missing library's uploaded
# and installed with dpkg, then its server started and stopped.
if debs_installed; then
	for d in "iperf3 job" "dpkg" "library" "samples"; do
		skip "$d" "iperf3 is installed on this machine already"
	done
elif ! fetch_debs; then
	for d in "iperf3 job" "dpkg" "library" "samples"; do
		missing "$d" "apt-get download iperf3 libiperf0 failed"
	done
else
	DEBS_INSTALLED=1
	p=$(submit "$(job_file pkg iperf3 "{time: 1}")")
	"$hilab" wait --timeout 180 "$p" >/dev/null
	check "iperf3 job $p done" test "$(sql "SELECT state FROM jobs WHERE id = $p")" = done
	check "installed from the mirror with dpkg" test "$(events "$p" '%dpkg install of "iperf3" from the mirror: exit 0;%')" = 1
	check "its missing library came from the mirror too" test "$(dpkg-query -W -f='${Status}' libiperf0 2>/dev/null)" = "install ok installed"
	check "2 samples of iperf3 throughput" test "$(samples "$p" throughput)" = 2
fi

daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
