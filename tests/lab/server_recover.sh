#!/usr/bin/env bash
# Kernels that do not come back, on a bare-metal stand-in that switches
# with kexec and is powered through a BMC (ipmi_sim): one that panics at
# boot and one that hangs (its init is a shell waiting on the console, so
# sshd never answers) are each power-cycled back to the known-good kernel,
# their runs fail naming the kernel with the console excerpt kept, the
# machine passes a health check before its next run, the job's other
# kernel is measured, and neither broken kernel is booted again in the
# job.  Then health decides: a machine in maintenance takes no runs (and
# status says why) until it is set good; a changed host key puts it in
# maintenance without a power cycle; a BMC that does not answer is an
# infrastructure error, not a kernel failure.
set -u
. "$HILAB_SRCDIR/tests/lib/server.sh"
server_test_init srvr ssh-keygen

echo "1..23"
SERVER_BOOT_TIMEOUT=90s server_up rec-sa kexec 127.0.0.44 1 2 1 1024

# job NAME ROUNDS KERNELS-YAML: submits a short hackbench on the stand-in.
job() { submit "$(server_job "$@")"; }
# panic=0: the panic does not reboot by itself (the stand-in's panic=1
# would, and hilab would wait for that instead of a power cycle).
k_broken="  - {name: broken, image: $HILAB_LAB_KERNEL_BASE, initrd: $HILAB_LAB_INITRD, cmdline: rdinit=/nonexistent panic=0}"
k_mute="  - {name: mute, image: $HILAB_LAB_KERNEL_BASE, initrd: $HILAB_LAB_INITRD, cmdline: rdinit=/bin/sh}"
k_good="  - {name: good, image: $HILAB_LAB_KERNEL_PATCHED, initrd: $HILAB_LAB_INITRD}"
run_error() { sql "SELECT r.error FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $1 AND k.name = '$2' AND r.round = $3"; }
events() { sql "SELECT COUNT(*) FROM events WHERE job = $1 AND message LIKE '$2'"; }
health() { sql "SELECT health || '|' || COALESCE(health_reason, '') FROM machines WHERE name = 'rec-sa'"; }

# The moment a console file of the stand-in first shows the panic (ms).
(
	for _ in $(seq 1 12000); do
		if grep -qs 'Kernel panic' "$SERVER_DIR"/consoles/*.log; then
			date +%s%3N >"$T/panic_at"
			exit 0
		fi
		sleep 0.05
	done
) &
daemon_start
t0=$(date +%s)
a=$(job recover 2 "$k_broken
$k_mute
$k_good")
"$hilab" wait --timeout 900 "$a" >/dev/null
echo "# job $a took $(($(date +%s) - t0)) s"
check "the panicking kernel's run failed, naming kernel, machine and the panic" \
    bash -c "grep -q '^machine \"rec-sa\": kernel \"broken\" (kexec) panicked at boot: .*Kernel panic' <<<'$(run_error "$a" broken 0)'"
failed_at=$(sql "SELECT r.finished_at FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND k.name = 'broken' AND r.round = 0")
echo "# panic on the console to run failed: $((failed_at - $(cat "$T/panic_at" 2>/dev/null || echo 0))) ms"
check "its console excerpt is kept with the run" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND k.name = 'broken' AND r.console LIKE '%Kernel panic%'")" = 1
check "the hanging kernel's run failed at the 90 s boot timeout" \
    test "$(run_error "$a" mute 0)" = 'machine "rec-sa": kernel "mute" (kexec) ssh 127.0.0.44:22 did not come back with a new boot within 90s'
check "their boots are marked failed" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $a AND round = 0 AND boot_failed = 1")" = 2
check "two power cycles through the BMC" \
    test "$(events "$a" 'host "rec-sa" does not answer (its kernel did not come back): power cycle through BMC %')" = 2
check "the known-good kernel answered after each" \
    test "$(events "$a" 'host "rec-sa" answers again % after the power cycle; a health check comes before its next run')" = 2
check "a health check passed after each recovery" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE machine = 'rec-sa' AND message LIKE 'health check passed in % (facts and \"hackbench\"): machine \"rec-sa\" is good again'")" = 2
check "neither broken kernel is booted again in round 1" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $a AND round = 1 AND state = 'failed' AND boot_failed = 0 AND error LIKE 'kernel of run % did not boot on \"rec-sa\" in this job: not booted there again'")" = 2
check "the good kernel measured in both rounds" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND k.name = 'good' AND r.state = 'done'")" = 2
check "each good run booted the good kernel" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND k.name = 'good' AND json_extract(r.facts, '\$.\"kernel.release\"') = '$HILAB_LAB_RELEASE_PATCHED'")" = 2
check "the machine is good after the job" test "$(health)" = "good|"
check "and back on its known-good kernel" server_back_known_good
sql "SELECT '# ' || datetime(time / 1000, 'unixepoch') || ' ' || message FROM events WHERE job = $a AND (message LIKE 'booting%' OR message LIKE 'host%' OR message LIKE 'health%' OR level = 'error') ORDER BY id"

# Maintenance: no runs until it is set good; status says why they wait.
"$hilab" machines set rec-sa maintenance --reason "disk swap" >/dev/null
check "machines set maintenance exits 0" test $? = 0
check "machines list shows it with the reason" \
    bash -c "'$hilab' machines list | grep -q '^rec-sa .* maintenance  *disk swap\$'"
b=$(job waits 1 "$k_good")
sleep 8
check "a machine in maintenance takes no runs" \
    test "$(sql "SELECT state FROM runs WHERE job = $b")" = queued
check "status says why the run waits" \
    bash -c "'$hilab' status $b | grep -q 'waiting: machine \"rec-sa\" is maintenance: disk swap'"
"$hilab" machines set rec-sa good >/dev/null
"$hilab" wait --timeout 300 "$b" >/dev/null
check "set good, it takes the run" test "$(sql "SELECT state FROM jobs WHERE id = $b")" = done

# A changed host key: maintenance, no power cycle.  The key changes only
# once the machine is back on its known-good kernel after job $b (hilabd
# reboots it there when a job ends), so that reboot is not what meets it.
server_back_known_good
sleep 5
cp "$SERVER_DIR/known_hosts" "$T/known_hosts.real"
ssh-keygen -q -t ed25519 -N '' -f "$T/other" >/dev/null
echo "127.0.0.44 $(cut -d' ' -f1-2 "$T/other.pub")" >"$SERVER_DIR/known_hosts"
c=$(job hostkey 1 "$k_good")
"$hilab" wait --timeout 120 "$c" >/dev/null
check "a changed host key fails the run, saying so" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $c AND error LIKE '%host key for 127.0.0.44 has changed%'")" = 1
check "and power-cycles nothing" test "$(events "$c" '%power cycle%')" = 0
check "the machine is in maintenance, the reason the host key" \
    bash -c "grep -q '^maintenance|.*host key for 127.0.0.44 has changed' <<<'$(health)'"
cp "$T/known_hosts.real" "$SERVER_DIR/known_hosts"
"$hilab" machines set rec-sa good >/dev/null

# A BMC that does not answer: an infrastructure error, maintenance.
kill -KILL "$(cat "$SERVER_DIR/bmc/sim.pid")"
d=$(job nobmc 1 "$k_broken")
"$hilab" wait --timeout 300 "$d" >/dev/null
# The run fails first; the recovery that then fails follows, the machine
# put in maintenance just before the event saying why is stored.
infra_event() { [ "$(sql "SELECT COUNT(*) FROM events WHERE job = $d AND message LIKE '%power control failed%'")" = 1 ]; }
until_true 1200 infra_event
check "the run failed for its panic" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $d AND error LIKE '%kernel \"broken\" (kexec) panicked at boot:%'")" = 1
check "the failed power control is an infrastructure error, not a kernel failure" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $d AND level = 'error' AND message LIKE 'host \"rec-sa\" (127.0.0.44:22) needs a power cycle, and the power control failed (an infrastructure error): %'")" = 1
check "the machine is in maintenance, not bad" \
    bash -c "grep -q '^maintenance|.*infrastructure error' <<<'$(health)'"
server_times
daemon_stop TERM
exit $((failed > 0))
