#!/usr/bin/env bash
# Benchmarks built on the controller for a host that says "build_on:
# controller": schbench and stream from the real upstream tarballs of the
# mirror, built with a compiler that links statically, stream prepared for
# the job's two array sizes, packed, cached on the controller and uploaded
# to the host by the archive's sha256; a second job finds both in the
# cache and on the host and builds and uploads nothing; a build that fails
# says so with the end of its log.  The same job on a second host without
# the key builds there and prepares stream on the host.  (The namespace
# hosts share this machine's file system, so the test reads their
# prefixes directly.)
set -u
LAB_TAP=1
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
for p in gcc make file; do
	command -v "$p" >/dev/null || lab_skip "$p missing (scripts/install-deps.sh)"
done
MIRROR=${HILAB_SHARED:-}/mirror
[ -d "$MIRROR" ] || lab_skip "no source mirror at \"$MIRROR\""

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
trap daemon_cleanup EXIT
T=$LAB_TMP
eval "$(lab_host_up demo)"
daemon_lab_host demo "mirror: $MIRROR
build_on: controller
"
REMOTE=$AGENT_DIR_REMOTE
eval "$(lab_host_up native)"
daemon_lab_host native "mirror: $MIRROR
"
NATIVE=$AGENT_DIR_REMOTE
export HILAB_BENCH_CACHE=$T/bench-cache
export HILAB_CATALOG=$T/catalog
mkdir -p "$HILAB_CATALOG"
cp "$HILAB_SRCDIR"/benchmarks/schbench.yaml \
    "$HILAB_SRCDIR"/benchmarks/stream.yaml "$HILAB_CATALOG/"
# A build that fails on the controller, from a real tarball.
sed -e 's/^name: schbench/name: broken/' \
    -e 's/^  build: \[make\]/  build: ["echo no such step >\&2; exit 3"]/' \
    "$HILAB_SRCDIR/benchmarks/schbench.yaml" >"$HILAB_CATALOG/broken.yaml"

cat >"$T/job.yaml" <<YAML
name: controller-build
machines: [demo, native]
benchmarks:
  - name: schbench
    params: {message_threads: 1, threads: 2, runtime: 1}
    iterations: 2
    warmups: 0
  - name: stream
    params: {ntimes: 4, array_size: [200000, 300000]}
    iterations: 2
    warmups: 0
YAML
cat >"$T/broken.yaml" <<YAML
name: controller-build-fails
machines: [demo]
benchmarks:
  - name: broken
    params: {runtime: 1}
    iterations: 1
YAML

# samples JOB BENCHMARK METRIC [MACHINE]: positive samples of one metric
# (on demo unless said).
samples() {
	sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run
	    WHERE r.job = $1 AND r.benchmark = '$2' AND s.metric = '$3'
	    AND s.value > 0 AND r.machine = '${4:-demo}'"
}
# events JOB PATTERN [MACHINE]: how many of the job's events on a machine
# (demo unless said) match a LIKE pattern.
events() {
	sql "SELECT COUNT(*) FROM events WHERE job = $1 AND message LIKE '$2'
	    AND machine = '${3:-demo}'"
}
# static FILE: true when the file is a statically linked executable.
static() {
	file -L "$1" | grep -q 'statically linked'
}

echo "1..20"
daemon_start || exit 1
t0=$(date +%s)
j=$(submit "$T/job.yaml")
"$hilab" wait --timeout 400 "$j" >/dev/null
echo "# job $j took $(($(date +%s) - t0)) s"
check "job $j done" test "$(sql "SELECT state FROM jobs WHERE id = $j")" = done
check "schbench and stream built on the controller, nothing on the host" test \
    "$(events "$j" 'benchmark "%": built on the controller in %')|$(events "$j" '%installing from source%')" = "2|0"
check "schbench: wakeup p99 and RPS" test "$(samples "$j" schbench wakeup_p99)|$(samples "$j" schbench rps)" = "2|2"
check "stream: Triad of both array sizes" test "$(samples "$j" stream triad)" = 4
check "uploaded by the archive's sha256" test \
    "$(events "$j" 'benchmark "s%": uploaded "'"$HILAB_BENCH_CACHE"'/%/prefix.tar.gz" to "'"$REMOTE"'/bench/s%.tar.gz" in %')" = 2
h=$(cut -c1-16 "$HILAB_BENCH_CACHE"/stream-*/archive.sha256)
check "the host's prefix records the archive; the upload is unpacked and gone" bash -c \
    "test \"\$(cut -c1-16 '$REMOTE/bench/stream/.archive')\" = '$h' && ! ls '$REMOTE'/bench/stream/*.tar.gz 2>/dev/null"
check "schbench linked statically" static "$REMOTE/bench/schbench/src/schbench"
check "stream prepared for both array sizes, statically linked" bash -c \
    "$(declare -f static); static '$REMOTE/bench/stream/src/stream-4-200000' && static '$REMOTE/bench/stream/src/stream-4-300000'"
check "the host's prefix holds the build's stamp" grep -q '^stream-6703f7504a38.tar.gz ' "$REMOTE/bench/stream/.installed"
for b in schbench stream; do
	sql "SELECT '# ' || message FROM events WHERE job = $j AND (message LIKE 'benchmark \"$b\": built on the controller in %' OR message LIKE 'benchmark \"$b\": uploaded %')"
done
check "native: schbench and stream built on the host, nothing on the controller" test \
    "$(events "$j" '%installing from source%' native)|$(events "$j" '%on the controller%' native)" = "2|0"
check "native: stream prepared on the host for both array sizes" bash -c \
    "test \"$(events "$j" 'benchmark "stream": prepare of "stream": exit 0;%' native)\" = 1 && file -L '$NATIVE/bench/stream/src/stream-4-200000' '$NATIVE/bench/stream/src/stream-4-300000' | grep -c 'dynamically linked' | grep -qx 2"
check "native: its samples stored" test "$(samples "$j" stream triad native)|$(samples "$j" schbench rps native)" = "4|2"

k=$(submit "$T/job.yaml")
"$hilab" wait --timeout 300 "$k" >/dev/null
check "second job $k done" test "$(sql "SELECT state FROM jobs WHERE id = $k")" = done
check "it finds both in the controller's cache" test \
    "$(events "$k" 'benchmark "%": built for x86_64 on the controller (cached in %')|$(events "$k" 'benchmark "%": built on the controller in %')" = "2|0"
check "and on the host: nothing uploaded" test \
    "$(events "$k" 'benchmark "%": uploaded %')|$(events "$k" "benchmark \"stream\": stream-% already installed: $REMOTE/bench/stream/src/%stream")" = "0|1"
check "its samples stored" test "$(samples "$k" stream triad)|$(samples "$k" schbench rps)" = "4|2"
check "native: built already, prepared again" test \
    "$(events "$k" '%installing from source%' native)|$(events "$k" 'benchmark "stream": prepare of "stream": exit 0;%' native)" = "0|1"

f=$(submit "$T/broken.yaml")
"$hilab" wait --timeout 300 "$f" >/dev/null
check "a failing build fails the job" test "$(sql "SELECT state FROM jobs WHERE id = $f")" = failed
err=$(sql "SELECT error FROM runs WHERE job = $f")
echo "$err" | head -5 | sed 's/^/# /'
check "the error names the host, the benchmark and the build's exit" \
    grep -q 'host "demo": benchmark "broken": build on the controller: the build failed (exit 3)' <<<"$err"
check "and ends with the build log's last lines, kept in the cache" bash -c \
    "grep -q 'no such step' <<<'$err' && grep -q 'no such step' '$HILAB_BENCH_CACHE'/broken-*.failed/build.log"
if [ "$failed" != 0 ]; then
	sql "SELECT '# run ' || id || ' ' || benchmark || ': ' || substr(error, 1, 600) FROM runs WHERE job IN ($j, $k) AND state != 'done'"
fi
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
