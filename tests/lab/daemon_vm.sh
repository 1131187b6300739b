#!/usr/bin/env bash
# hilabd with real VMs: two kernels in alternating rounds on a libvirt VM
# (samples per kernel and round in SQLite, every boot verified), a kernel
# that panics at boot, one that panics during a run (seen on its console at
# once), qemu killed in mid-boot (booted again, not held against the
# kernel), and a domain left running by a SIGKILLed hilabd.
set -u
. "$HILAB_SRCDIR/tests/lib/skip.sh"
[ "$(id -u)" = 0 ] || skip_missing "needs root (libvirtd, qemu:///system)"
labenv=$("$HILAB_SRCDIR/scripts/lab.sh" up) || { echo "Bail out! lab.sh up"; exit 1; }
eval "$labenv"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_scratch labd
cp "$HILAB_LAB_DIR/machines/vm4.yaml" "$HILAB_MACHINES/"
URI=qemu:///system

domain_state() { virsh -q -c "$URI" domstate hilab-vm4 2>/dev/null || echo absent; }

cleanup() {
	local rc=$?

	daemon_stop KILL
	virsh -q -c "$URI" destroy hilab-vm4 >/dev/null 2>&1
	virsh -q -c "$URI" undefine hilab-vm4 >/dev/null 2>&1
	[ $rc = 0 ] || daemon_log_on_failure
	rm -rf "$T"
	exit $rc
}
trap cleanup EXIT

# job NAME ROUNDS KERNELS-YAML: hackbench on vm4.
job() { hackbench_job "$1" vm4 "$2" "$3"; }
two_kernels="  - {name: base, image: $HILAB_LAB_KERNEL_BASE}
  - {name: patched, image: $HILAB_LAB_KERNEL_PATCHED}"

echo "1..24"
daemon_start
t0=$(date +%s)
a=$(job rounds 2 "$two_kernels")
"$hilab" wait --timeout 600 "$a" >/dev/null
check "two kernels x two rounds done" test $? = 0
echo "# job $a took $(($(date +%s) - t0)) s"
check "runs alternate: base patched | patched base" test "$(sql "SELECT group_concat(k.name, ' ') FROM (SELECT * FROM runs WHERE job = $a ORDER BY round, position) r JOIN kernels k ON k.id = r.kernel")" = "base patched patched base"
check "2 samples per kernel and round" test "$(sql "SELECT group_concat(c, ',') FROM (SELECT COUNT(*) c FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $a GROUP BY r.kernel, r.round)")" = "2,2,2,2"
check "each kernel booted its own release" test "$(sql "SELECT group_concat(k.name || '=' || json_extract(r.facts, '\$.\"kernel.release\"'), ' ') FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND r.round = 0 ORDER BY r.position")" = "base=$HILAB_LAB_RELEASE_BASE patched=$HILAB_LAB_RELEASE_PATCHED"
check "the VM booted with rt_group_sched=0" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $a AND json_extract(facts, '\$.\"kernel.cmdline\"') LIKE '%rt_group_sched=0%'")" = 4
check "each run on the VM's 4 vCPUs" test "$(sql "SELECT DISTINCT json_extract(facts, '\$.\"cpu.online\"') FROM runs WHERE job = $a")" = 4
check "the agent came in each boot's initramfs: 4 boots, no upload" test "$(grep -c 'vm4: agent ready (x86_64)$' "$HILABD_LOG")/$(grep -c 'vm4: agent ready' "$HILABD_LOG")" = 4/4
for _ in $(seq 1 50); do [ "$(domain_state)" = absent ] && break; sleep 0.2; done
check "the VM is shut down after the job" test "$(domain_state)" = absent
"$hilab" compare --job "$a" >"$T/compare.txt"
check "compare has base and patched columns" grep -q "base.*patched" "$T/compare.txt"
"$hilab" logs "$a" >"$T/logs.txt"
sed -n 's/^/# logs: /p' "$T/logs.txt" | head -8
check "hilab logs tells each boot: kernel, time, release" test "$(grep -Ec "info  vm4 run [0-9]+: kernel \"(base\" booted in [0-9]+m?s: $HILAB_LAB_RELEASE_BASE|patched\" booted in [0-9]+m?s: $HILAB_LAB_RELEASE_PATCHED)\$" "$T/logs.txt")" = 4

# A kernel that panics at boot: seen within seconds, console kept.
t0=$(date +%s)
p=$(job panic 1 "  - {name: broken, image: $HILAB_LAB_KERNEL_BASE, cmdline: rdinit=/nonexistent}")
"$hilab" wait --timeout 300 "$p" >/dev/null
took=$(($(date +%s) - t0))
echo "# panicking kernel: job ended in $took s"
check "panic fails the run, naming it" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $p AND state = 'failed' AND error LIKE '%panicked at boot%'")" = 1
check "console excerpt stored with the run" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $p AND console LIKE '%Kernel panic%'")" = 1
check "panic seen within 60 s" test "$took" -lt 60

# A kernel that panics during a run (sysrq c in the second iteration): the
# run fails naming the panic once the console shows it, not after a minute
# of reconnects; the first iteration's sample stays.  The next job boots
# the VM again (below).
cat >"$T/midrun.yaml" <<YAML
name: midrun
machines: [vm4]
kernels: [{name: base, image: $HILAB_LAB_KERNEL_BASE}]
benchmarks:
  - name: crash
    command: [sh, -c, '[ -e /dev/shm/crashed ] && echo c > /proc/sysrq-trigger; touch /dev/shm/crashed; echo t=1']
    parser: keyvalue
    metrics: [{name: t, unit: s, direction: lower}]
    iterations: 2
    warmups: 0
YAML
m=$(submit "$T/midrun.yaml")
"$hilab" wait --timeout 300 "$m" >/dev/null
ran=$(sql "SELECT (finished_at - started_at) FROM runs WHERE job = $m")
echo "# panic during a run: the run failed $ran ms after it started"
check "a panic during a run fails it, naming it and its console line" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $m AND state = 'failed' AND error LIKE '%kernel \"base\" panicked during the run: %Kernel panic - not syncing: sysrq triggered crash%'")" = 1
check "... its console kept, the first iteration's sample stored" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $m AND console LIKE '%sysrq triggered crash%'")/$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $m")" = 1/1
check "... within 10 s of the run's start (${ran:-?} ms)" test "${ran:-99999}" -lt 10000
check "... without waiting for the host to answer again" test "$("$hilab" logs "$m" | grep -c 'connection lost\|did not answer again')" = 0

# qemu killed in mid-boot: an emulator failure, booted again on a fresh
# domain; the run completes and the kernel is not blamed.
qemu_pid() { pgrep -f 'guest=hilab-vm4,' | head -n 1; }
c=$(job crash 1 "  - {name: base, image: $HILAB_LAB_KERNEL_BASE}")
console=
for _ in $(seq 1 600); do
	pid=$(qemu_pid)
	console=$(ls -t "$HILAB_LAB_DIR"/console/vm4-*.log 2>/dev/null | head -n 1)
	[ -n "$pid" ] && [ -n "$console" ] &&
	    grep -q 'Linux version' "$console" 2>/dev/null && break
	sleep 0.1
done
kill -KILL "$pid"
echo "# killed qemu $pid after: $(grep -c . "$console") console lines"
"$hilab" wait --timeout 300 "$c" >/dev/null
check "the job with the killed qemu ends done" test "$(sql "SELECT state FROM jobs WHERE id = $c")" = done
check "its run took two boots" test "$(sql "SELECT boot_tries FROM runs WHERE job = $c")" = 2
check "the lost boot is an emulator event, not the kernel's" \
    test "$("$hilab" logs "$c" | grep -c 'boot 1 of kernel "base" failed (emulator, not the kernel.s): .*lost its emulator at boot.*booting again on a fresh domain')" = 1
check "hilab status shows the two boots" \
    test "$("$hilab" status "$c" | awk '$1 ~ /^[0-9]+$/ { print $4 }')" = 2
check "no run of it failed" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $c AND (state != 'done' OR error IS NOT NULL)")" = 0

# SIGKILL of hilabd while its VM runs: the domain is destroyed on restart
# and the run is done again.
k=$(job killed 1 "  - {name: base, image: $HILAB_LAB_KERNEL_BASE}")
for _ in $(seq 1 600); do
	[ "$(sql "SELECT state FROM runs WHERE job = $k")" = running ] && break
	sleep 0.2
done
daemon_stop KILL
state_after_kill=$(domain_state)
daemon_start
"$hilab" wait --timeout 300 "$k" >/dev/null
check "left-over domain ($state_after_kill) destroyed, job done on restart" \
    grep -q 'destroyed 1 left-over domain "hilab-vm4"' "$T/hilabd.log"
check "the interrupted run done again: the job ends done" \
    test "$(sql "SELECT state FROM jobs WHERE id = $k")/$(sql "SELECT COUNT(*) FROM runs WHERE job = $k AND retried_as IS NOT NULL")" = done/1
daemon_stop TERM
exit $((failed > 0))
