#!/usr/bin/env bash
# The cost of monitors and of a function probe on hackbench, measured
# through hilabd: one job whose rounds run the same hackbench without,
# then with them, so off and on interleave; bench_observe compares the two
# with Mann-Whitney (README, "Measured").  Run as root from the source
# tree, the build in ./build (or HILAB_BUILDDIR):
#
#	bench/observe_overhead.sh [--vm] [ROUNDS [ON_YAML]]
#
# On a lab host of this machine (sshd in a network namespace), or with
# --vm on a copy of the lab's 32-vCPU VM (its base kernel), whose kernel
# offers function_graph and kprobe events.  ON_YAML is what the "on"
# benchmark adds, by default every monitor the host offers (with --vm,
# a function_graph probe of select_task_rq_fair too).
set -u
export HILAB_SRCDIR=${HILAB_SRCDIR:-$(pwd)}
export HILAB_BUILDDIR=${HILAB_BUILDDIR:-$(pwd)/build}
vm=0
[ "${1:-}" = --vm ] && { vm=1; shift; }
ROUNDS=${1:-10}
if [ $vm = 1 ]; then
	ON=${2:-"probes: [{function: select_task_rq_fair}]"}
	. "$HILAB_SRCDIR/tests/lib/labvm.sh"
	labvm_init observe-bench
	labvm_copy vm32 observe-bench 127.0.0.18
	KERNELS="kernels: [{name: base, image: $HILAB_LAB_KERNEL_BASE}]"
	GROUPS_=2 LOOPS=20
else
	ON=${2:-"monitors: [vmstat, interrupts, softirqs, perf-stat]"}
	. "$HILAB_SRCDIR/tests/integration/lib.sh"
	lab_init
	eval "$(lab_host_up demo)" >/dev/null
	. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
	daemon_lab_host demo
	trap daemon_cleanup EXIT
	T=$LAB_TMP VM=demo KERNELS="" GROUPS_=4 LOOPS=200
fi

# One hackbench entry named $1, with $2 added.
entry() {
	cat <<YAML
  - name: $1
    command: [hackbench, -g, "$GROUPS_", -l, "$LOOPS"]
    parser: hackbench
    iterations: 5
    warmups: 1
    metrics: [{name: time, unit: s, direction: lower}]
    $2
YAML
}
{
	printf 'name: overhead\nmachines: [%s]\n%s\nrounds: %s\nbenchmarks:\n' \
	    "$VM" "$KERNELS" "$ROUNDS"
	entry off ""
	entry on "$ON"
} >"$T/overhead.yaml"
daemon_start || exit 1
j=$(submit "$T/overhead.yaml")
"$hilab" wait --timeout 7200 "$j" >/dev/null || { echo "job $j failed" >&2; exit 1; }
echo "on: $ON"
"$HILAB_BUILDDIR/bench/bench_observe" "$HILAB_DB" "$j" off on time
