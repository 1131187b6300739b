#!/usr/bin/env bash
# hackbench, schbench and stream under hilabd on a 32-vCPU VM booted into
# the lab's two kernels in alternating rounds (base, patched | patched,
# base).  The host image has no compiler: the machine file says
# "build_on: controller", so schbench and stream are built on the
# controller from the mirror's upstream tarballs (stream prepared for the
# job's array size), packed, cached and uploaded by content hash after
# each boot; hackbench comes with the image.  Every sample is stored per
# kernel and the seeds' tables printed.  The VM is a copy of the lab's
# vm32 under its own name and loopback address, so other lab tests may run
# beside it.
set -u
. "$HILAB_SRCDIR/tests/lib/labvm.sh"
MIRROR=${HILAB_SHARED:-}/mirror
[ -d "$MIRROR" ] || skip_missing "no source mirror at \"$MIRROR\""
command -v gcc >/dev/null || skip_missing "gcc missing (scripts/install-deps.sh)"
labvm_init benchvm
export HILAB_BENCH_CACHE=$T/bench-cache
export HILAB_CATALOG=$HILAB_SRCDIR/benchmarks
# The lab's vm32 under another name, address and known_hosts line, with
# the mirror and its benchmarks built on the controller.
labvm_copy vm32 benchvm 127.0.0.14
printf 'mirror: %s\nbuild_on: controller\n' "$MIRROR" >>"$HILAB_MACHINES/$VM.yaml"

cat >"$T/bench.yaml" <<YAML
name: bench-vm32
machines: [$VM]
kernels:
  - {name: base, image: $HILAB_LAB_KERNEL_BASE}
  - {name: patched, image: $HILAB_LAB_KERNEL_PATCHED}
rounds: 2
order: alternate
benchmarks:
  - name: hackbench
    params: {groups: 2, loops: 20}
    iterations: 2
    warmups: 1
  - name: schbench
    params: {message_threads: 1, threads: 4, runtime: 1}
    iterations: 2
    warmups: 0
  - name: stream
    params: {ntimes: 2, array_size: 100000}
    iterations: 2
    warmups: 0
YAML

# The job's runs with their kernels: "SELECT ... $runs_of = JOB ...".
runs_of="FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job"
# per_kernel BENCHMARK METRIC: "base|patched", positive samples of each.
per_kernel() {
	sql "SELECT group_concat(c, '|') FROM (SELECT COUNT(*) c FROM samples s
	    JOIN runs r ON r.id = s.run JOIN kernels k ON k.id = r.kernel
	    WHERE r.job = $j AND r.benchmark = '$1' AND s.metric = '$2'
	    AND s.value > 0 GROUP BY k.name ORDER BY k.name)"
}
# events LIKE: how many of the job's events match a pattern.
events() {
	sql "SELECT COUNT(*) FROM events WHERE job = $j AND message LIKE '$1'"
}
# event_seconds LIKE: the seconds the first such event of the job says.
event_seconds() {
	sql "SELECT message FROM events WHERE job = $j AND message LIKE '$1'
	    ORDER BY id LIMIT 1" | sed -n 's/.* in \([0-9.]*\) s.*/\1/p'
}
# table BENCHMARK METRIC STYLE: the compare table, kept in the TAP log;
# a column per kernel.
table() {
	"$hilab" compare --job "$j" --benchmark "$1" --metric "$2" \
	    --style "$3" >"$T/$1-$2.txt" 2>&1
	local rc=$?

	echo "# hilab compare --job $j --benchmark $1 --metric $2 --style $3:"
	sed 's/^/#   /' "$T/$1-$2.txt"
	[ $rc = 0 ] && grep -q 'base' "$T/$1-$2.txt" &&
	    grep -q 'patched' "$T/$1-$2.txt"
}

# machines_ok: the inventory passes "hilab machines check".
machines_ok() {
	"$hilab" machines check "$HILAB_MACHINES" >/dev/null
}

echo "1..14"
check "machines check accepts build_on: controller" machines_ok
daemon_start || exit 1
t0=$(date +%s)
j=$(submit "$T/bench.yaml")
"$hilab" wait --timeout 1500 "$j" >/dev/null
check "job done" test "$(sql "SELECT state FROM jobs WHERE id = $j")" = done
echo "# job $j took $(($(date +%s) - t0)) s"
sql "SELECT '# round ' || r.round || ' ' || k.name || ' ' || r.benchmark || ': ' || ((r.finished_at - r.started_at) / 1000.0) || ' s' $runs_of = $j ORDER BY r.round, r.position"
check "alternating rounds: base, patched | patched, base" test \
    "$(sql "SELECT group_concat(name, ' ') FROM (SELECT DISTINCT r.round, r.position / 3 p, k.name $runs_of = $j ORDER BY r.round, r.position)")" = \
    "base patched patched base"
check "each kernel booted its own release on 32 CPUs" test \
    "$(sql "SELECT COUNT(*) $runs_of = $j AND r.state = 'done' AND json_extract(r.facts, '\$.\"cpu.online\"') = '32' AND json_extract(r.facts, '\$.\"kernel.release\"') = CASE k.name WHEN 'base' THEN '$HILAB_LAB_RELEASE_BASE' ELSE '$HILAB_LAB_RELEASE_PATCHED' END")" = 12
check "nothing built on the host" test "$(events '%installing from source%')" = 0
check "schbench and stream built once on the controller, then cached" test \
    "$(events 'benchmark "%": built on the controller in %')|$(events 'benchmark "%": built for x86_64 on the controller (cached%')" = "2|6"
check "uploaded by content hash after each of the 4 boots" test \
    "$(sql "SELECT COUNT(*) FROM events WHERE job = $j AND message GLOB 'benchmark \"s*\": uploaded \"*/prefix.tar.gz\" to \"*/bench/s*/[0-9a-f]*.tar.gz\" in *'")" = 8
check "unpacked into the host's prefix after each boot" test \
    "$(events "benchmark \"s%\": unpacking the controller''s build of %: exit 0;%")" = 8
check "hackbench: 4 samples per kernel" test "$(per_kernel hackbench time)" = "4|4"
check "schbench: wakeup p99 and RPS, 4 per kernel" test \
    "$(per_kernel schbench wakeup_p99)|$(per_kernel schbench rps)" = "4|4|4|4"
check "stream: Triad, 4 per kernel" test "$(per_kernel stream triad)" = "4|4"
for b in schbench stream; do
	echo "# $b: built on the controller in $(event_seconds "benchmark \"$b\": built on the controller in %") s, first upload in $(event_seconds "benchmark \"$b\": uploaded %") s"
done
sql "SELECT '# mean ' || r.benchmark || ' ' || s.metric || ' ' || k.name || ': ' || printf('%.4g', AVG(s.value)) || ' (n=' || COUNT(*) || ')' FROM samples s JOIN runs r ON r.id = s.run JOIN kernels k ON k.id = r.kernel WHERE r.job = $j AND s.metric IN ('time', 'wakeup_p99', 'rps', 'triad') GROUP BY r.benchmark, s.metric, k.name ORDER BY r.benchmark, s.metric, k.name"
check "hackbench table (amd)" table hackbench time amd
check "schbench p99 table (pct)" table schbench wakeup_p99 pct
check "stream Triad table (meansd)" table stream triad meansd
if [ "$failed" != 0 ]; then
	sql "SELECT '# run ' || id || ' ' || benchmark || ': ' || substr(error, 1, 800) FROM runs WHERE job = $j AND state != 'done'"
fi
exit $((failed > 0))
