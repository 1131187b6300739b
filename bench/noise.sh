#!/usr/bin/env bash
# Whether the agent disturbs what it measures (bench/run's noise part):
# rt-tests hackbench (GROUPS groups, LOOPS loops) on a namespace host,
# ROUNDS rounds, each running ITER iterations directly in the host's
# namespace with no agent there, then a job of ITER iterations through
# hilab (its agent between the iterations), in turn.  Rows on stdout: the
# times hilab stored against the direct ones (medians, Mann-Whitney p).
# Root.
#
#	bench/noise.sh ROUNDS ITER GROUPS LOOPS BUILD_DIR
set -u
rounds=${1:?rounds} iter=${2:?iterations} groups=${3:?groups} loops=${4:?loops}
export HILAB_BUILDDIR=${5:?build dir}
export HILAB_SRCDIR=${HILAB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$HILAB_SRCDIR/bench/lib.sh"
command -v hackbench >/dev/null ||
    { echo "noise: hackbench missing (apt-get install rt-tests)" >&2; exit 1; }
bench_lab_host

cat >"$T/job.yaml" <<YAML
name: noise
machines: [bench]
benchmarks:
  - name: hackbench
    params: {groups: $groups, loops: $loops}
    iterations: $iter
    warmups: 0
YAML
# direct: ITER iterations in the host's namespace; their times on stdout.
direct() {
	local i

	for i in $(seq "$iter"); do
		ip netns exec "$NETNS" hackbench --process -g "$groups" -l "$loops" |
		    sed -n 's/^Time: //p'
	done
}

daemon_start || exit 1
# A first job installs the agent; it is not counted.
id=$(submit "$T/job.yaml")
"$hilab" wait --timeout 600 "$id" >/dev/null ||
    { echo "noise: warm-up job $id: $(tail -3 "$HILABD_LOG")" >&2; exit 1; }
: >"$T/direct.t"
: >"$T/hilab.t"
for r in $(seq "$rounds"); do
	echo "noise: round $r of $rounds" >&2
	direct >>"$T/direct.t" || exit 1
	id=$(submit "$T/job.yaml")
	"$hilab" wait --timeout 600 "$id" >/dev/null ||
	    { echo "noise: job $id did not end done" >&2; exit 1; }
	sql "SELECT s.value FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $id AND s.metric = 'time'" >>"$T/hilab.t"
done
daemon_stop TERM

read -r na nb ma mb rv p < <("$HILAB_BUILDDIR/bench/bench_mwu" "$T/direct.t" "$T/hilab.t")
if [ "$na" = 0 ] || [ "$nb" = 0 ]; then
	echo "noise: $na direct and $nb hilab values" >&2
	exit 1
fi
row "hackbench -g $groups -l $loops with hilab's agent between iterations against none ($nb v $na in $rounds rounds, s; Mann-Whitney p=$p)" \
    "$mb" "$ma" "$rv" "p > 0.05" "$(awk -v p="$p" 'BEGIN { print (p > 0.05 ? "yes" : "no") }')"
