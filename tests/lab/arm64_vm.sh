#!/usr/bin/env bash
# hilabd on the lab's arm64 VM (scripts/lab.sh arm64: the Ampere Altra
# stand-in, qemu-system-aarch64 under TCG): Debian's two arm64 cloud
# kernels in alternating rounds, each boot proven by the release the
# Image's banner names, hackbench of the arm64 image measured by the
# static arm64 agent, the VM's two clusters of cores seen by the kernel as
# its machine file says and shown in the report; an x86 bzImage on the
# arm64 VM refused before any boot is spent on it; then one job file on
# the x86 VM and the arm64 VM, each on its own kernel, compared by machine.
set -u
. "$HILAB_SRCDIR/tests/lib/skip.sh"
[ "$(id -u)" = 0 ] || skip_missing "needs root (libvirtd, qemu:///system)"
command -v qemu-system-aarch64 >/dev/null ||
    skip_missing "qemu-system-aarch64 not installed (qemu-system-arm)"
labenv=$("$HILAB_SRCDIR/scripts/lab.sh" up) || { echo "Bail out! lab.sh up"; exit 1; }
eval "$labenv"
labenv=$("$HILAB_SRCDIR/scripts/lab.sh" arm64) ||
    { echo "Bail out! lab.sh arm64"; exit 1; }
eval "$labenv"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_scratch a64
cp "$HILAB_LAB_DIR/machines/vma64.yaml" "$HILAB_LAB_DIR/machines/vm4.yaml" \
    "$HILAB_MACHINES/"
URI=qemu:///system
vcpus=$(sed -n 's/^  vcpus: //p' "$HILAB_MACHINES/vma64.yaml")
clusters=$(sed -n 's/^  clusters: //p' "$HILAB_MACHINES/vma64.yaml")

cleanup() {
	local rc=$? d

	daemon_stop KILL
	for d in hilab-vma64 hilab-vm4; do
		virsh -q -c "$URI" destroy "$d" >/dev/null 2>&1
		virsh -q -c "$URI" undefine "$d" >/dev/null 2>&1
	done
	[ $rc = 0 ] || daemon_log_on_failure
	[ -n "${HILAB_KEEP_LAB:-}" ] || rm -rf "$T"
	exit $rc
}
trap cleanup EXIT

job() { hackbench_job "$@"; }

echo "1..13"
daemon_start
t0=$(date +%s)
a=$(job arm64 vma64 2 "  - {name: base, image: $HILAB_LAB_ARM64_KERNEL}
  - {name: patched, image: $HILAB_LAB_ARM64_KERNEL_PATCHED}")
"$hilab" wait --timeout 1500 "$a" >/dev/null
check "two arm64 kernels x two rounds done" test $? = 0
echo "# job $a took $(($(date +%s) - t0)) s"
grep -o 'kernel "[a-z]*" answers on ssh after .*' "$HILABD_LOG" | sed 's/^/# vma64: /'
check "runs alternate: base patched | patched base" test "$(sql "SELECT group_concat(k.name, ' ') FROM (SELECT * FROM runs WHERE job = $a ORDER BY round, position) r JOIN kernels k ON k.id = r.kernel")" = "base patched patched base"
check "each boot verified on the release its Image's banner names" test "$(sql "SELECT group_concat(k.name || '=' || json_extract(r.facts, '\$.\"kernel.release\"'), ' ') FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND r.round = 0 ORDER BY r.position")" = "base=$HILAB_LAB_ARM64_RELEASE patched=$HILAB_LAB_ARM64_RELEASE_PATCHED"
check "the agent reports aarch64 and the VM's $vcpus vCPUs" test "$(sql "SELECT DISTINCT json_extract(facts, '\$.\"cpu.online\"') || ' ' || json_extract(facts, '\$.\"arch\"') FROM runs WHERE job = $a")" = "$vcpus aarch64"
check "the VM's $clusters clusters of cores are the kernel's: topo.cluster_groups" \
    test "$(sql "SELECT DISTINCT json_extract(facts, '\$.\"topo.cluster_groups\"') FROM runs WHERE job = $a")" = "0-$((vcpus / 2 - 1));$((vcpus / 2))-$((vcpus - 1))"
check "2 hackbench samples per kernel and round" test "$(sql "SELECT group_concat(c, ',') FROM (SELECT COUNT(*) c FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $a GROUP BY r.kernel, r.round)")" = "2,2,2,2"
"$hilab" compare --job "$a" >"$T/compare.txt"
check "compare has base and patched columns" grep -q "base.*patched" "$T/compare.txt"
sed 's/^/# /' "$T/compare.txt"
"$hilab" report "$a" >"$T/report.txt" 2>&1
check "the report's machine header names the clusters" \
    grep -q "clusters: 0-$((vcpus / 2 - 1));$((vcpus / 2))-$((vcpus - 1))" "$T/report.txt"
sed -n '/^Machines/,/^$/p' "$T/report.txt" | sed 's/^/# /'

# An x86 bzImage for the arm64 VM: refused by its header, no boot spent.
x=$(job wrongarch vma64 1 "  - {name: x86, image: $HILAB_LAB_KERNEL_BASE}")
"$hilab" wait --timeout 300 "$x" >/dev/null
check "an x86 image on the arm64 VM fails its run, naming both arches" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $x AND state = 'failed' AND error LIKE '%kernel \"x86\": image \"%\" is for x86_64, machine \"vma64\" is aarch64%'")" = 1
check "... before any boot" test "$(grep -c 'booting kernel "x86"' "$HILABD_LOG")" = 0

# One job file on both arches, each VM on its own known-good kernel.
t0=$(date +%s)
b=$(job both "vm4, vma64" 1 "  - running")
"$hilab" wait --timeout 900 "$b" >/dev/null
check "one job file on the x86 VM and the arm64 VM done" test $? = 0
echo "# job $b took $(($(date +%s) - t0)) s"
check "... measured on x86_64 and on aarch64" test "$(sql "SELECT group_concat(a, ' ') FROM (SELECT DISTINCT json_extract(facts, '\$.arch') a FROM runs WHERE job = $b ORDER BY a)")" = "aarch64 x86_64"
"$hilab" compare --job "$b" --by machine >"$T/by-machine.txt" 2>&1
check "compare --by machine shows both VMs" grep -q "vm4.*vma64\|vma64.*vm4" "$T/by-machine.txt"
sed 's/^/# /' "$T/by-machine.txt"
daemon_stop TERM
exit $((failed > 0))
