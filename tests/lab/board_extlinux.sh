#!/usr/bin/env bash
# The arm64 board stand-in (scripts/lab-server.sh KIND uboot: U-Boot's
# distro boot reading extlinux/extlinux.conf from a virtio disk, 18 CPUs
# whose vendor .dtb gives them uneven L2 groups, powered through a BMC,
# console on a socket read with socat), through
# hilabd with boot method extlinux.  Debian's two arm64 kernels in
# alternating rounds: each installed on the boot partition, given an
# extlinux entry, picked at U-Boot's prompt for one boot, verified and
# measured; DEFAULT never changed, the board back on its known-good kernel
# after the job.  Then a trial kernel that panics: the board resets into
# DEFAULT by itself (not the trial again), the run fails with the console
# excerpt, and the job's other kernel is measured.
set -u
. "$HILAB_SRCDIR/tests/lib/server.sh"
server_test_init board qemu-system-aarch64 socat mkenvimage dtc
labenv=$("$HILAB_SRCDIR/scripts/lab.sh" arm64) ||
    { echo "Bail out! lab.sh arm64"; exit 1; }
eval "$labenv"
A64=$HILAB_LAB_ARM64_INITRD
k_base="  - {name: base, image: $HILAB_LAB_ARM64_KERNEL, initrd: $A64}"
k_patched="  - {name: patched, image: $HILAB_LAB_ARM64_KERNEL_PATCHED, initrd: $A64, cmdline: hilab_test=patched}"
conf() { server_ssh cat /boot/extlinux/extlinux.conf; }

echo "1..26"
# The board's own .dtb (DEFAULT's FDT, which hilab's entries take too)
# shares its L2 caches as seed 4's board does: four groups of 4 CPUs and a
# last of 2.
LLC="0-3;4-7;8-11;12-15;16-17"
SERVER_LLC_GROUPS=$LLC server_up board-sa uboot 127.0.0.46 1 18 1 1536
check "U-Boot booted extlinux.conf's DEFAULT at power on" \
    grep -q 'Retrieving file: /vmlinuz-' "$SERVER_CONSOLE"

daemon_start
t0=$(date +%s)
a=$(submit "$(server_job board-two 2 "$k_base
$k_patched")")
"$hilab" wait --timeout 1200 "$a" >/dev/null
check "two arm64 kernels x two rounds done" test $? = 0
echo "# job $a took $(($(date +%s) - t0)) s"
two_kernel_checks "$a" "$HILAB_LAB_ARM64_RELEASE" \
    "$HILAB_LAB_ARM64_RELEASE_PATCHED"
check "facts: aarch64, 18 CPUs" \
    test "$(run_fact "$a" 0 0 arch)/$(run_fact "$a" 0 0 cpu.online)" = aarch64/18
check "facts: the LLC groups of the board's device tree, $LLC, at each boot" \
    test "$(sql "SELECT COUNT(DISTINCT json_extract(facts, '\$.\"topo.llc_groups\"')) || ' ' || MIN(json_extract(facts, '\$.\"topo.llc_groups\"')) || ' ' || COUNT(*) FROM runs WHERE job = $a")" = "1 $LLC 4"
check "... as its machine file declares: no warning" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $a AND message LIKE '%llc%'")" = 0
check "U-Boot was told each install's label, one console file per switch" \
    test "$(grep -l 'setenv pxe_label_override hilab-[0-9a-f]*; boot' "$SERVER_DIR"/consoles/*.log | wc -l)" = 4
check "after the job: back on the known-good kernel" server_back_known_good
check "extlinux.conf: DEFAULT unchanged, one hilab entry per install" \
    test "$(conf | grep -c '^DEFAULT known-good$')/$(conf | grep -c '^LABEL hilab-')" = 1/2

# A kernel with a device tree of its own (the board's, with two L2 groups
# of 9): its extlinux entry loads it (FDT), so the kernel sees those
# groups, not the board's .dtb's, and says so against the machine file.
HILAB_SERVER_DIR=$T/servers "$HILAB_SRCDIR/scripts/lab-server.sh" dtb \
    board-sa "0-8;9-17" "$T/board-2x9.dtb" ||
    { echo "Bail out! lab-server.sh dtb"; exit 1; }
d=$(submit "$(server_job board-dtb 1 "  - {name: dtb, image: $HILAB_LAB_ARM64_KERNEL, initrd: $A64, dtb: $T/board-2x9.dtb}")")
"$hilab" wait --timeout 900 "$d" >/dev/null
check "a kernel with its own .dtb: done, on LLC groups 0-8;9-17" \
    test "$(sql "SELECT state FROM jobs WHERE id = $d")/$(run_fact "$d" 0 0 topo.llc_groups)" = "done/0-8;9-17"
# The job's end reboots the board into its known-good kernel: read the
# file once it is back.
server_back_known_good
check "... its extlinux entry names the .dtb it installed" \
    test "$(conf | grep -c '^  FDT /hilab/[0-9a-f]*/board.dtb$')" = 1
check "... and a warning says the kernel's groups are not the machine file's" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $d AND level = 'warn' AND message LIKE '%the kernel shows LLC groups 0-8;9-17, the machine file says $LLC%'")" = 1

# A trial kernel that panics: panic=1 resets the board, and U-Boot boots
# DEFAULT, since the label was picked for that boot alone.
t0=$(date +%s)
p=$(submit "$(server_job board-panic 1 "  - {name: broken, image: $HILAB_LAB_ARM64_KERNEL, initrd: $A64, cmdline: rdinit=/nonexistent}
$k_patched")")
"$hilab" wait --timeout 900 "$p" >/dev/null
echo "# job $p took $(($(date +%s) - t0)) s"
check "the panicking kernel's run failed, naming the panic" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $p AND k.name = 'broken' AND r.state = 'failed' AND r.error LIKE '%kernel \"broken\" (extlinux) panicked at boot%'")" = 1
check "its console excerpt is kept with the run" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $p AND k.name = 'broken' AND r.console LIKE '%Kernel panic%'")" = 1
check "after the panic U-Boot booted DEFAULT, not the trial again" \
    test "$(sed -n '/Kernel panic/,$p' "$SERVER_CONSOLE" | tr -d '\r' | grep -m 1 'Retrieving file: .*vmlinuz')" = "Retrieving file: /vmlinuz-$SERVER_KNOWN_GOOD"
check "the board reset itself after the panic: no power cycle" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $p AND message LIKE '%having reset itself: no power cycle%'")/$(sql "SELECT COUNT(*) FROM events WHERE job = $p AND message LIKE '%power cycle through%'")" = 1/0
check "the job's other kernel was measured" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $p AND k.name = 'patched' AND r.state = 'done'")" = 1
check "back on the known-good kernel" server_back_known_good
server_times
daemon_stop TERM
exit $((failed > 0))
