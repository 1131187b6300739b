#!/usr/bin/env bash
# Slow: arm64 kernels hilabd cross-builds from a real Linux 6.1 tree and the
# lab's two-patch series (base and patch 1 on tinyconfig +
# scripts/lab-kernel.config, SLUB and scripts/lab-kernel-arm64.config,
# ARCH=arm64, in a worktree of their own), booted in alternating rounds on the arm64
# VM (libvirt, vma64) and then, from the cache, on the U-Boot board
# stand-in (boot method extlinux), each run verified by its build id in
# uname -v; each job's compare sets patch 1 against base.
set -u
. "$HILAB_SRCDIR/tests/lib/server.sh"
server_test_init a64b qemu-system-aarch64 socat mkenvimage aarch64-linux-gnu-gcc \
    git gcc make flex bison bc
labenv=$("$HILAB_SRCDIR/scripts/lab.sh" arm64) ||
    { echo "Bail out! lab.sh arm64"; exit 1; }
eval "$labenv"
server_series work-arm64
mkdir -p "$HILAB_MACHINES"
cp "$HILAB_LAB_DIR/machines/vma64.yaml" "$HILAB_MACHINES/"

# The teardown also takes down the arm64 VM's domain, if one is left.
a64_cleanup() {
	local rc=$?

	virsh -q -c qemu:///system destroy hilab-vma64 >/dev/null 2>&1
	virsh -q -c qemu:///system undefine hilab-vma64 >/dev/null 2>&1
	(exit $rc)
	server_test_cleanup
}
trap a64_cleanup EXIT

# job NAME MACHINE: base and patch 1, built for arm64, in two rounds.
job() {
	submit "$(SERVER_NAME=$2 built_job "$1" \
	    "$(server_fragment slub), $HILAB_SRCDIR/scripts/lab-kernel-arm64.config" \
	    "    arch: arm64
    initrd: $HILAB_LAB_ARM64_INITRD")"
}

echo "1..11"
# The board first: hilabd reads its inventory when it starts.
server_up board-sb uboot 127.0.0.47 1 4 1 1024
daemon_start
t0=$(date +%s)
v=$(job built-vm vma64)
"$hilab" wait --timeout 3000 "$v" >/dev/null
check "arm64 base and patch 1 built, x two rounds on the arm64 VM" test $? = 0
echo "# job $v (cross builds included) took $(($(date +%s) - t0)) s"
sql "SELECT message FROM events WHERE job = $v AND message LIKE 'kernel build:%built%'" | sed 's/^/# /'
built_kernel_checks "$v"
check "the VM's runs report aarch64" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $v AND json_extract(facts, '\$.arch') = 'aarch64'")" = 4

t0=$(date +%s)
b=$(job built-board board-sb)
"$hilab" wait --timeout 1800 "$b" >/dev/null
check "the same kernels from the cache, x two rounds on the board" test $? = 0
echo "# job $b took $(($(date +%s) - t0)) s"
built_kernel_checks "$b"
check "the board booted them through extlinux entries" \
    test "$(grep -l 'setenv pxe_label_override hilab-' "$SERVER_DIR"/consoles/*.log | wc -l)" = 4
for j in "$v" "$b"; do
	"$hilab" compare --job "$j" >"$T/compare-$j.txt" 2>&1
	sed 's/^/# /' "$T/compare-$j.txt"
done
check "compare sets patch 1 against base, on the VM and on the board" \
    test "$(grep -l "base.*patch 1" "$T/compare-$v.txt" "$T/compare-$b.txt" | wc -l)" = 2
server_times
daemon_stop TERM
exit $((failed > 0))
