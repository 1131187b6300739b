#!/usr/bin/env bash
# What a job costs beyond its benchmark (bench/run's harness part): a job
# of ITER iterations of a CPU-bound command (stress-ng's int64 method,
# calibrated to ~SECS s) on a namespace host, ROUNDS times, each round
# also running the same iterations directly in the host's namespace and
# by a bare OpenSSH loop, in turn.  The command times itself, so the
# values hilab stores compare with the direct ones.  Rows on stdout:
# whole job, values, submit to the first run started, last run ended to
# the job settled and to `hilab wait` returning.  Root.
#
#	bench/harness.sh ROUNDS ITER SECS BUILD_DIR
set -u
rounds=${1:?rounds} iter=${2:?iterations} secs=${3:?seconds}
export HILAB_BUILDDIR=${4:?build dir}
export HILAB_SRCDIR=${HILAB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$HILAB_SRCDIR/bench/lib.sh"
bench_lab_host

# script OPS: the command, printing its own wall time as t=MICROSECONDS.
script() {
	echo "t0=\$(date +%s%N); stress-ng --cpu 1 --cpu-method int64 --cpu-ops $1 --quiet; t1=\$(date +%s%N); echo t=\$(( (t1 - t0) / 1000 ))"
}
# direct: the iterations in the host's namespace; t values on stdout.
direct() {
	ip netns exec "$NETNS" sh -c "for i in \$(seq $iter); do $(script "$ops"); done" |
	    sed -n 's/^t=//p'
}
# openssh: the iterations, one OpenSSH command each.
openssh() {
	local i

	for i in $(seq "$iter"); do
		ssh -q -i "$KEY" -o BatchMode=yes -o UserKnownHostsFile="$KNOWN_HOSTS" \
		    "$LOGIN@$HOST" "$(script "$ops")" >/dev/null || return 1
	done
}
# ms COMMAND...: runs it (stdout to $T/out); prints its wall time in ms.
ms() {
	local t0

	t0=$(now_ms)
	"$@" >"$T/out" || { echo "harness: $1 failed" >&2; exit 1; }
	echo $(($(now_ms) - t0))
}

# Calibrates the ops to ~SECS s from 200 ops.
t=$(ip netns exec "$NETNS" sh -c "$(script 200)" | sed -n 's/^t=//p')
ops=$(awk -v t="$t" -v s="$secs" 'BEGIN { o = int(200 * s * 1e6 / t); print (o > 0 ? o : 1) }')
cat >"$T/job.yaml" <<YAML
name: harness
machines: [bench]
benchmarks:
  - name: cpu
    command: [sh, -c, '$(script "$ops")']
    parser: keyvalue
    metrics: [{name: t, unit: us, direction: lower}]
    iterations: $iter
    warmups: 0
YAML
daemon_start || exit 1
# A first job installs the agent; it is not counted.
id=$(submit "$T/job.yaml")
"$hilab" wait --timeout 600 "$id" >/dev/null || { echo "harness: warm-up job $id: $(tail -3 "$HILABD_LOG")" >&2; exit 1; }
: >"$T/direct.t"
: >"$T/hilab.t"
for r in $(seq "$rounds"); do
	echo "harness: round $r of $rounds" >&2
	d=$(ms direct) || exit 1
	cat "$T/out" >>"$T/direct.t"
	echo "$d" >>"$T/direct.ms"
	ms openssh >>"$T/ssh.ms"
	t0=$(now_ms)
	id=$(submit "$T/job.yaml")
	"$hilab" wait --timeout 600 "$id" >/dev/null ||
	    { echo "harness: job $id did not end done" >&2; exit 1; }
	t1=$(now_ms)
	echo $((t1 - t0)) >>"$T/hilab.ms"
	sql "SELECT s.value FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $id AND s.metric = 't'" >>"$T/hilab.t"
	sql "SELECT MIN(started_at) - $t0 FROM runs WHERE job = $id" >>"$T/start.ms"
	sql "SELECT j.finished_at - MAX(r.finished_at) FROM jobs j JOIN runs r ON r.job = j.id WHERE j.id = $id" >>"$T/settle.ms"
	sql "SELECT $t1 - MAX(finished_at) FROM runs WHERE job = $id" >>"$T/wait.ms"
done
daemon_stop TERM

h=$(median <"$T/hilab.ms") d=$(median <"$T/direct.ms") s=$(median <"$T/ssh.ms")
what="$iter iterations of ${secs} s of CPU on a namespace host, median of $rounds"
row "whole job, $what: through hilab (submit to \`hilab wait\` returning) against directly in the host (ms)" \
    "$h" "$d" "$(ratio "$h" "$d")" "<= 1.02" "$(le "$(ratio "$h" "$d")" 1.02)"
row "the same by a bare OpenSSH loop against directly (ms)" \
    "$s" "$d" "$(ratio "$s" "$d")" "-" "-"
read -r na nb ma mb rv p < <("$HILAB_BUILDDIR/bench/bench_mwu" "$T/direct.t" "$T/hilab.t")
row "values the command measured through hilab against directly ($nb v $na, us; Mann-Whitney p=$p)" \
    "$mb" "$ma" "$rv" "p > 0.05" "$(awk -v p="$p" 'BEGIN { print (p > 0.05 ? "yes" : "no") }')"
v=$(median <"$T/start.ms")
row "submit to the first run started on an idle ssh host (ms)" "$v" "-" "-" "<= 200" "$(le "$v" 200)"
v=$(median <"$T/settle.ms")
row "last run ended to its job settled in the database (ms)" "$v" "-" "-" "-" "-"
v=$(median <"$T/wait.ms")
row "last run ended to \`hilab wait\` returning (ms)" "$v" "-" "-" "<= 50" "$(le "$v" 50)"
