#!/usr/bin/env bash
# The seeds' benchmarks end to end from the catalog on a lab host (sshd in
# a network namespace), through hilabd, with CI-sized parameters:
#
#	seeds.sh quick	hackbench, tbench (tbench_srv as its server),
#			schbench and stream built on the host from the
#			mirror's upstream tarballs (seconds each)
#	seeds.sh full	those, and unixbench, netperf (netserver as its
#			server: TCP_RR, UDP_RR, TCP_STREAM, 1 and 2 clients)
#			and kernbench (Debian's linux-source-6.1, tinyconfig,
#			kernel/sched/ timed): minutes of builds
#
# Every sample stored, every metric declared with its unit, the seeds'
# table of each.  With HILAB_SEEDS_CACHE the host's agent directory (its
# bench/ prefixes) lives there and outlives the test: a second run builds
# nothing.
set -u
LAB_TAP=1
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
mode=${1:-quick}
case $mode in quick|full) ;; *) echo "Bail out! mode \"$mode\""; exit 1 ;; esac
need="hackbench tbench tbench_srv gcc make"
[ "$mode" = full ] && need="$need perl autoreconf makeinfo /usr/bin/time"
for p in $need; do
	command -v "$p" >/dev/null || lab_skip "$p missing (scripts/install-deps.sh)"
done
MIRROR_SRC=${HILAB_SHARED:-}/mirror
KSRC=/usr/src/linux-source-6.1.tar.xz
[ -d "$MIRROR_SRC" ] || lab_skip "no source mirror at \"$MIRROR_SRC\""
[ "$mode" = quick ] || [ -f "$KSRC" ] ||
    lab_skip "$KSRC missing (apt-get install linux-source-6.1)"
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
trap daemon_cleanup EXIT
T=$LAB_TMP
MIRROR=$LAB_TMP/mirror
mkdir -p "$MIRROR"
ln -s "$MIRROR_SRC"/*.tar.gz "$MIRROR/"
[ "$mode" = full ] && ln -s "$KSRC" "$MIRROR/"
if [ -n "${HILAB_SEEDS_CACHE:-}" ]; then
	mkdir -p "$HILAB_SEEDS_CACHE"
	AGENT_DIR_REMOTE=$HILAB_SEEDS_CACHE
fi
daemon_lab_host demo "mirror: $MIRROR
"
export HILAB_CATALOG=$HILAB_SRCDIR/benchmarks

# Quick: fixed counts.  Full: as many as the noise needs (hackbench's CV
# is several times tbench's), each stated under its table.
HB_ITER=3 TB_ITER=2
if [ "$mode" = full ]; then
	HB_ITER="{min: 3, max: 15, precision: 2%}"
	TB_ITER="{min: 3, max: 15, precision: 2%}"
fi
cat >"$T/seeds.yaml" <<YAML
name: seeds-$mode
machines: [demo]
benchmarks:
  - name: hackbench
    params: {groups: [1, 2], loops: 100}
    iterations: $HB_ITER
  - name: tbench
    params: {clients: 2, duration: 2}
    iterations: $TB_ITER
  - name: schbench
    params: {message_threads: 1, threads: [1, 2], runtime: 2}
    iterations: 2
  - name: stream
    params: {ntimes: [10, 100], array_size: 2000000}
    iterations: 2
YAML
[ "$mode" = full ] && cat >>"$T/seeds.yaml" <<YAML
  - name: unixbench
    params: {copies: 1, runs: 1, tests: context1}
    iterations: 2
  - name: netperf
    params: {test: [TCP_RR, UDP_RR, TCP_STREAM], clients: [1, 2],
             duration: 1}
    iterations: 2
  - name: kernbench
    params: {jobs: 2, target: kernel/sched/, config: tinyconfig}
    iterations: 2
    warmups: 0
YAML

# samples BENCHMARK METRIC [PARAMS]: positive samples of the job's metric.
samples() {
	sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run
	    WHERE r.job = $j AND r.benchmark = '$1' AND s.metric = '$2'
	    AND s.value > 0 ${3:+AND r.params = '$3'}"
}

# undeclared: the job's metrics that no declaration of its benchmark
# covers, or covers without a unit.
undeclared() {
	sql "SELECT DISTINCT benchmark || ' ' || metric FROM v_samples
	    WHERE job = $j AND (unit IS NULL OR unit = '' OR direction IS NULL)"
}

# build_seconds BENCHMARK: from the install's start to its end (events).
build_seconds() {
	sql "SELECT printf('%.1f', (MAX(time) - MIN(time)) / 1000.0) FROM
	    events WHERE job = $j AND
	    (message LIKE 'benchmark \"$1\": installing from source%'
	    OR message LIKE 'benchmark \"$1\": build of %')
	    HAVING COUNT(*) > 0"
}

# table BENCHMARK METRIC STYLE: the compare table, kept in the TAP log.
table() {
	"$hilab" compare --job "$j" --benchmark "$1" --metric "$2" \
	    --style "$3" >"$T/$1-$2.txt" 2>&1 || { sed 's/^/# /' "$T/$1-$2.txt"; return 1; }
	sed 's/^/# /' "$T/$1-$2.txt"
	grep -q . "$T/$1-$2.txt"
}

host_procs() {
	ip netns pids "$NETNS" | xargs -r ps -o comm= -p
}

if [ "$mode" = full ]; then echo "1..24"; else echo "1..13"; fi
daemon_start || exit 1
start=$(date +%s)
j=$(submit "$T/seeds.yaml")
[ "$mode" = full ] && limit=2400 || limit=400
"$hilab" wait --timeout "$limit" "$j" >/dev/null
echo "# job $j took $(($(date +%s) - start)) s"
check "seeds job $j done" test "$(sql "SELECT state FROM jobs WHERE id = $j")" = done
if [ "$mode" = quick ]; then
	check "hackbench: 3 samples per group count" test "$(samples hackbench time groups=2,loops=100,mode=--process)" = 3
	check "tbench: 2 throughput samples, against its server" test "$(samples tbench throughput)" = 2
else
	# adaptive BENCHMARK: "iterations:reached:done" of each group.
	adaptive() {
		sql "SELECT group_concat(params || ' ' || iterations || ' (+-' ||
		    printf('%.2f', 100 * precision) || '%) ' || reached || ':' ||
		    done, '; ') FROM adaptive WHERE job = $j AND benchmark = '$1'"
	}
	echo "# adaptive hackbench: $(adaptive hackbench)"
	echo "# adaptive tbench: $(adaptive tbench)"
	# settled BENCHMARK: each group stopped within its bounds, its
	# samples as many as its row says.
	settled() {
		test "$(sql "SELECT COUNT(*) FROM adaptive a WHERE a.job = $j AND
		    a.benchmark = '$1' AND a.done = 1 AND a.iterations BETWEEN 3
		    AND 15 AND a.iterations = (SELECT COUNT(*) FROM samples s
		    JOIN runs r ON r.id = s.run WHERE r.job = a.job AND
		    r.benchmark = a.benchmark AND r.params = a.params AND
		    s.metric = a.metric)")" = "$2"
	}
	check "hackbench: adaptive, each group count settled" settled hackbench 2
	check "tbench: adaptive, settled, against its server" settled tbench 1
fi
check "schbench: wakeup p99 and RPS per thread count" test "$(samples schbench wakeup_p99)|$(samples schbench rps)" = "4|4"
check "stream-10 and stream-100: Triad each" test "$(samples stream triad array_size=2000000,ntimes=10)|$(samples stream triad array_size=2000000,ntimes=100)" = "2|2"
check "every metric stored is declared, with a unit" test -z "$(undeclared)"
check "schbench and stream ran from their prefixes on the host" test "$(sql "SELECT COUNT(*) FROM events WHERE job = $j AND (message LIKE 'benchmark \"schbench\": build of \"schbench-%\": exit 0%' OR message LIKE 'benchmark \"stream\": build of \"stream-%\": exit 0%')")" = 2 -o -n "${HILAB_SEEDS_CACHE:-}"
if [ "$mode" = full ]; then
	check "unixbench: context1's score and index" test "$(samples unixbench pipe_based_context_switching)|$(samples unixbench pipe_based_context_switching_index)" = "2|2"
	check "netperf TCP_RR: one sample per client" test "$(samples netperf transactions clients=1,duration=1,host=127.0.0.1,test=TCP_RR)|$(samples netperf transactions clients=2,duration=1,host=127.0.0.1,test=TCP_RR)" = "2|4"
	check "netperf UDP_RR and TCP_STREAM measured" test "$(samples netperf transactions clients=1,duration=1,host=127.0.0.1,test=UDP_RR)|$(samples netperf throughput clients=2,duration=1,host=127.0.0.1,test=TCP_STREAM)" = "2|4"
	check "kernbench: real, user and sys of kernel/sched/" test "$(samples kernbench real)|$(samples kernbench user)|$(samples kernbench sys)" = "2|2|2"
	check "netserver started and stopped around each netperf run" test "$(sql "SELECT COUNT(*) FROM events WHERE job = $j AND message LIKE 'server \"%/bin/netserver\" started%'")|$(sql "SELECT COUNT(*) FROM events WHERE job = $j AND message LIKE 'server netperf (pid %) stopped'")" = "6|6"
fi
check "no benchmark server left on the host" test -z "$(host_procs | grep -E 'netserver|tbench_srv')"
for b in schbench stream unixbench netperf kernbench; do
	s=$(build_seconds $b)
	[ -n "$s" ] && echo "# $b: install $s s"
done
check "hackbench table (pct)" table hackbench time pct
[ "$mode" = full ] && check "the hackbench table states its adaptive iterations" grep -q "adaptive iterations" "$T/hackbench-time.txt"
check "tbench table (amd)" table tbench throughput amd
check "schbench p99 table (amd)" table schbench wakeup_p99 amd
check "stream Triad table (amd)" table stream triad amd
check "the stream table has a row per ntimes" grep -q "ntimes" "$T/stream-triad.txt"
if [ "$mode" = full ]; then
	check "unixbench table (pct)" table unixbench pipe_based_context_switching_index pct
	check "netperf transactions table (amd)" table netperf transactions amd
	check "the netperf table says trans/s" grep -q "trans/s" "$T/netperf-transactions.txt"
	check "kernbench sys table (meansd)" table kernbench sys meansd
	check "the kernbench table says seconds, lower is better" grep -q "sys (s), lower is better" "$T/kernbench-sys.txt"
fi
if [ "$failed" != 0 ]; then
	sql "SELECT '# run ' || id || ' ' || benchmark || ' ' || params || ': ' ||
	    substr(error, 1, 600) FROM runs WHERE job = $j AND state != 'done'"
fi
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
