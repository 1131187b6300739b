#!/usr/bin/env bash
# Kernels built from git + an mbox series through hilabd: a job naming a real
# Linux 6.1 tree, a two-patch series (git format-patch) and the lab's kernel
# config expands into base, patch 1 and patch 1+2; hilabd builds them (one
# worktree, kept between runs in the lab cache, so later runs build
# incrementally), boots each on the lab VM, verifies its build id in
# uname -v and stores samples per kernel.  A second submit finds every
# kernel in the cache; a series whose patch 2 does not apply fails the job
# naming the patch, with nothing queued.
set -u
. "$HILAB_SRCDIR/tests/lib/skip.sh"
[ "$(id -u)" = 0 ] || skip_missing "needs root (libvirtd, qemu:///system)"
for tool in git gcc make flex bison bc; do
	command -v $tool >/dev/null || skip_missing "$tool not installed"
done
labenv=$("$HILAB_SRCDIR/scripts/lab.sh" up) || { echo "Bail out! lab.sh up"; exit 1; }
eval "$labenv"
lab=${HILAB_LAB_CACHE:-/var/cache/hilab/lab}
mkdir -p "$lab"
rc=0
src=$(flock "$lab/.source.lock" "$HILAB_SRCDIR/tests/kernels/lab_source.sh") ||
    rc=$?
[ $rc = 0 ] || exit $rc

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_scratch labk	# qemu runs as libvirt-qemu and reads the built images here
# A cache of this run's own (every kernel is built, not found), in a
# worktree kept between runs (HILAB_KEEP_LAB keeps the cache too).
export HILAB_KERNEL_CACHE=$T/cache HILAB_KERNEL_WORK=$lab/work
mkdir -p "$HILAB_MACHINES"
cp "$HILAB_LAB_DIR/machines/vm4.yaml" "$HILAB_MACHINES/"
URI=qemu:///system

cleanup() {
	local rc=$?

	daemon_stop KILL
	virsh -q -c "$URI" destroy hilab-vm4 >/dev/null 2>&1
	virsh -q -c "$URI" undefine hilab-vm4 >/dev/null 2>&1
	[ $rc = 0 ] || daemon_log_on_failure
	[ -n "${HILAB_KEEP_LAB:-}" ] || rm -rf "$T"
	git -C "$src" worktree prune
	exit $rc
}
trap cleanup EXIT

"$HILAB_SRCDIR/tests/kernels/lab_series.sh" "$src" "$T"
base=$(git -C "$src" rev-parse HEAD)

# job NAME MBOX: hackbench on vm4 under the series' cumulative variants.
job() {
	cat >"$T/$1.yaml" <<YAML
name: $1
machines: [vm4]
kernels:
  - git: $src
    base: $base
    series: $2
    config: tinyconfig
    fragments: [$HILAB_SRCDIR/scripts/lab-kernel.config]
    variants: cumulative
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 50}
    iterations: 2
    warmups: 1
YAML
	submit "$T/$1.yaml"
}

# events JOB: the job's kernel build events, one per line.
events() {
	sql "SELECT message FROM events WHERE job = $1 AND message LIKE 'kernel build:%' ORDER BY id"
}

echo "1..11"
daemon_start
t0=$(date +%s)
a=$(job series good.mbox)
"$hilab" wait --timeout 3000 "$a" >/dev/null
check "the job's three variants built, booted and measured" test $? = 0
echo "# job $a took $(($(date +%s) - t0)) s"
events "$a" | grep -E ': (built|cached as) ' | sed 's/^/# /'
check "kernels base, patch 1, patch 1+2 in job order" test "$(sql "SELECT group_concat(name, ',') FROM (SELECT DISTINCT k.name FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a ORDER BY r.position)")" = "base,patch 1,patch 1+2"
check "hilabd built all three" test "$(events "$a" | grep -c ': built [0-9a-f]\{16\} ')" = 3
check "each run booted its kernel's build id (uname -v)" test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND json_extract(r.facts, '\$.\"kernel.version\"') LIKE '#' || json_extract(k.spec, '\$.build_id') || ' %'")" = 3
check "three distinct build ids" test "$(sql "SELECT COUNT(DISTINCT json_extract(k.spec, '\$.build_id')) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a")" = 3
check "2 samples per kernel" test "$(sql "SELECT group_concat(c, ',') FROM (SELECT COUNT(*) c FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $a GROUP BY r.kernel)")" = "2,2,2"
"$hilab" compare --job "$a" >"$T/compare.txt"
check "compare has the three kernels as columns" grep -q "base.*patch 1.*patch 1+2" "$T/compare.txt"

# The same job again: every kernel from the cache, nothing made.
t0=$(date +%s)
b=$(job again good.mbox)
"$hilab" wait --timeout 900 "$b" >/dev/null
check "second submit done" test $? = 0
echo "# job $b (all cached) took $(($(date +%s) - t0)) s"
check "second submit: three cache hits, no build" test "$(events "$b" | grep -c ': cached as ')/$(events "$b" | grep -c ': building ')" = 3/0

# Patch 2 does not apply: the job fails naming it; no run is queued.
c=$(job broken bad.mbox)
"$hilab" wait --timeout 900 "$c" >/dev/null
err=$(sql "SELECT error FROM jobs WHERE id = $c")
echo "# $err" | head -3
check "bad series: job failed naming patch 2/2 and the mbox" \
    bash -c "[ \"\$(sqlite3 '$HILAB_DB' \"SELECT state FROM jobs WHERE id = $c\")\" = failed ] && grep -q 'patch 2/2' <<<'$err' && grep -q 'bad.mbox' <<<'$err'"
check "bad series: no run queued" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $c")" = 0
daemon_stop TERM
exit $((failed > 0))
